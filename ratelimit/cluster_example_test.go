package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

// On a Redis Cluster (limitkv masters, Redis masters, or both) the limiter
// takes a go-redis ClusterClient. DefaultKey puts the tenant in a hash tag,
// so one tenant's windows share a slot and AllowAll can charge several of
// them in one step; every tenant's checks go to the master of its slot.
// conformance/ratelimit_cluster_test.go runs this against real clusters.
func ExampleNew_cluster() {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		// Any of the nodes: the client learns the others and the slots.
		Addrs:       []string{"127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"},
		DialTimeout: 500 * time.Millisecond,
		ReadTimeout: 500 * time.Millisecond,
		// A dead master's tenants move to its promoted replica when the
		// client reloads the slot map; a refused dial does not trigger it.
		ClusterStateReloadInterval: time.Second,
	})
	defer rdb.Close()
	perUser, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest", Limit: 5, Window: time.Minute,
		Algorithm: ratelimit.SlidingWindow})
	if err != nil {
		panic(err)
	}
	perTenant, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest-tenant", Limit: 1000, Window: time.Minute,
		Algorithm: ratelimit.TokenBucket})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	// Both keys are "{acme}:...": one slot, one atomic step.
	m, err := ratelimit.AllowAll(ctx, perUser.Charge("acme", "user123", 1), perTenant.Charge("acme", "all", 1))
	switch {
	case errors.Is(err, ratelimit.ErrCrossSlot):
		panic(err) // keys of two tenants: a programming error, never sent
	case err != nil:
		fmt.Println("store unavailable:", err) // the default policy fails closed
	default:
		fmt.Println("allowed:", m.Allowed)
	}
}
