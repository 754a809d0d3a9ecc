package limitkv_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv"
)

// A test starts the real server in-process on a free port, moves its clock,
// and closes it when done.
func Example() {
	clock := limitkv.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := limitkv.Start(limitkv.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()

	rdb.Set(ctx, "session", "abc", time.Minute)
	fmt.Println(rdb.Get(ctx, "session").Val())

	clock.Add(61 * time.Second) // no sleeping: the key expires as time moves
	fmt.Println(rdb.Exists(ctx, "session").Val())

	// Five requests per minute per user, with the server's clock and
	// server-made members: the sixth is refused.
	for i := 0; i < 6; i++ {
		count, _ := rdb.Do(ctx, "RL.CHECK", "{acme}:ratelimit:ai:user1", "*", 60000, 5, "*").Int()
		fmt.Print(count < 5, " ")
	}
	fmt.Println()
	// Output:
	// abc
	// 0
	// true true true true true false
}

func TestStartT(t *testing.T) {
	srv := limitkv.StartT(t, limitkv.Options{})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestShutdownCommandStopsTheServer(t *testing.T) {
	srv := limitkv.StartT(t, limitkv.Options{})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer rdb.Close()
	rdb.Do(t.Context(), "SHUTDOWN") // the connection closes: no reply
	select {
	case <-srv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("server still running after SHUTDOWN")
	}
}
