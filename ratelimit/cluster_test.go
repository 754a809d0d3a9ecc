package ratelimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestHashTag(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"{acme}:ratelimit:suggest:u1", "acme"},
		{"plain", "plain"},
		{"{}:empty", "{}:empty"}, // an empty tag: the whole key is hashed
		{"a{b}c{d}", "b"},
		{"a{b", "a{b"},
		{"a}b{c}", "c"},
		{"{{x}}", "{x"},
	} {
		if got := hashTag(c.key); got != c.want {
			t.Errorf("hashTag(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

// AllowAll refuses charges of two tenants on a ClusterClient or a Ring
// before any round trip, whatever the failure policy (FailOpen would
// otherwise admit the CROSSSLOT a cluster answers), and lets one tenant's
// charges through to the store. The clients point at a closed port, so a
// charge that got through fails on the network instead.
func TestAllowAllCrossSlot(t *testing.T) {
	dead := "127.0.0.1:1"
	for _, c := range []struct {
		name string
		rdb  redis.UniversalClient
		sh   bool
	}{
		{"cluster", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{dead}, MaxRetries: -1}), true},
		{"ring", redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": dead}, MaxRetries: -1}), true},
		{"client", redis.NewClient(&redis.Options{Addr: dead, MaxRetries: -1}), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer c.rdb.Close()
			lim, err := New(c.rdb, Options{Name: "x", Limit: 5, Window: time.Second, Algorithm: GCRA,
				Backend: BackendLimitkv, OnFailure: FailOpen})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			_, err = AllowAll(ctx, lim.Charge("acme", "u1", 1), lim.Charge("globex", "u1", 1))
			if got := errors.Is(err, ErrCrossSlot); got != c.sh {
				t.Errorf("two tenants: %v, want ErrCrossSlot %v", err, c.sh)
			}
			m, err := AllowAll(ctx, lim.Charge("acme", "u1", 1), lim.Charge("acme", "all", 1))
			if err != nil || !m.Allowed || m.StoreErr == nil {
				t.Errorf("one tenant, store down, FailOpen: %+v %v, want allowed with the store's error", m, err)
			}
		})
	}
}
