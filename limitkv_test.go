package limitkv

import (
	"context"
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
