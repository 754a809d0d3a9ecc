package limitkv

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testpki"
	"github.com/redis/go-redis/v9"
)

func TestStartTLS(t *testing.T) {
	pki := testpki.New(t)
	s := StartT(t, Options{TLS: pki.ServerTLS(), Password: "pw"})
	ctx := context.Background()

	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: "pw", TLSConfig: pki.ClientTLS()})
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET over TLS: %v", err)
	}
	if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("GET over TLS: %q, %v", got, err)
	}

	// A plaintext client gets no Redis reply from a TLS-only server.
	plain := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: "pw", MaxRetries: -1,
		DialTimeout: time.Second, ReadTimeout: time.Second})
	defer plain.Close()
	if err := plain.Ping(ctx).Err(); err == nil {
		t.Fatal("a plaintext PING succeeded against a TLS server")
	}
}

// Two servers in one process serve pipelined batches at the same time
// (run with -race: nothing they do may share state).
func TestTwoServersPipelining(t *testing.T) {
	ctx := context.Background()
	done := make(chan error, 2)
	for i := 0; i < 2; i++ {
		s := StartT(t, Options{})
		go func() {
			rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
			defer rdb.Close()
			for n := 0; n < 50; n++ {
				pipe := rdb.Pipeline()
				for k := 0; k < 16; k++ {
					pipe.Do(ctx, "RL.CHECK", "{t}:ratelimit:ai:user"+strconv.Itoa(k), "*", "60000", "5", "*")
				}
				if _, err := pipe.Exec(ctx); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for i := 0; i < 2; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
