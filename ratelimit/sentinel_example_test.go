package ratelimit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

// With Redis Sentinel in front of a limitkv master and its replicas, the
// limiter takes a go-redis FailoverClient: it asks the Sentinels for the
// master and moves to the promoted replica after a failover, which has the
// windows (they are replicated like any key). TestSentinelFailoverClient
// runs this against three real Sentinels and a SENTINEL FAILOVER.
func ExampleNew_sentinel() {
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    "mymaster",
		SentinelAddrs: []string{"127.0.0.1:26379", "127.0.0.1:26380", "127.0.0.1:26381"},
		// Short timeouts: a master that stopped answering holds each call
		// this long, not go-redis's default 3 s, until the switch.
		DialTimeout: 500 * time.Millisecond,
		ReadTimeout: 500 * time.Millisecond,
	})
	defer rdb.Close()
	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest-categories", Limit: 5, Window: time.Minute})
	if err != nil {
		panic(err)
	}
	res, err := lim.Allow(context.Background(), "acme", "user123")
	if err != nil {
		// No master reachable (during a switch, or no Sentinel): the
		// default policy fails closed.
		fmt.Println("store unavailable:", err)
		return
	}
	fmt.Println("allowed:", res.Allowed)
}
