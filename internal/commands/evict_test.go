package commands

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
)

func TestEvictionTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		tenacity int64
		want     time.Duration
	}{
		{0, 0},
		{1, 50 * time.Microsecond},
		{10, 500 * time.Microsecond}, // the default
		{11, 575 * time.Microsecond}, // 500 * 1.15
		{20, time.Duration(500*math.Pow(1.15, 10)) * time.Microsecond},
		{100, math.MaxInt64},
	} {
		if got := engine.EvictionTimeLimit(tc.tenacity); got != tc.want {
			t.Errorf("tenacity %d: %v, want %v", tc.tenacity, got, tc.want)
		}
	}
}

// TestEvictOrder: with more samples than keys the pool sees every key, so
// the sampled policies evict in exact order: longest idle first under LRU,
// lowest counter first under LFU, only keys with a TTL under volatile-*.
// The clock is the injected one.
func TestEvictOrder(t *testing.T) {
	evictOne := func(tt *tester, policy string) string {
		t.Helper()
		before := map[string]bool{}
		db := tt.E.DB(0)
		for i := range 10 {
			k := fmt.Sprintf("k%d", i)
			if db.Peek([]byte(k)) != nil {
				before[k] = true
			}
		}
		tt.E.Lock()
		// One sample may miss a key (dictGetSomeKeys jumps after a run of
		// empty buckets); the pool keeps what earlier samples found, so a
		// few rounds first make it hold every key, for an exact order.
		if strings.HasSuffix(policy, "-lru") || strings.HasSuffix(policy, "-lfu") {
			for range 20 {
				tt.E.PoolPopulate(tt.E.Mem(), 0, strings.HasPrefix(policy, "volatile-"), strings.HasSuffix(policy, "-lfu"), tt.E.NowMs())
			}
		}
		freed, ok := tt.E.Evict(tt.E.Mem(), policy, 1)
		tt.E.Unlock()
		if freed == 0 || !ok {
			return "none"
		}
		for k := range before {
			if db.Peek([]byte(k)) == nil {
				return k
			}
		}
		return "?"
	}
	setup := func(policy string) *tester {
		tt := newTester(t)
		tt.Expect(okReply, "CONFIG", "SET", "maxmemory-policy", policy, "maxmemory-samples", "1000", "lfu-log-factor", "0")
		return tt
	}

	t.Run("allkeys-lru", func(t *testing.T) {
		tt := setup("allkeys-lru")
		for i := range 5 {
			tt.Do("SET", fmt.Sprintf("k%d", i), "v")
			tt.Clock.Add(time.Second)
		}
		tt.Do("GET", "k0") // now the freshest
		for _, want := range []string{"k1", "k2", "k3", "k4", "k0", "none"} {
			if got := evictOne(tt, "allkeys-lru"); got != want {
				t.Fatalf("evicted %s, want %s", got, want)
			}
		}
		if tt.E.Stats.EvictedKeys != 5 {
			t.Fatalf("evicted_keys %d", tt.E.Stats.EvictedKeys)
		}
	})
	t.Run("allkeys-lfu", func(t *testing.T) {
		tt := setup("allkeys-lfu")
		for i := range 5 {
			k := fmt.Sprintf("k%d", i)
			tt.Do("SET", k, "v")
			for range 4 - i { // k0 read 4 times ... k4 never
				tt.Do("GET", k)
			}
		}
		for _, want := range []string{"k4", "k3", "k2", "k1", "k0"} {
			if got := evictOne(tt, "allkeys-lfu"); got != want {
				t.Fatalf("evicted %s, want %s", got, want)
			}
		}
	})
	t.Run("lfu decay", func(t *testing.T) {
		tt := setup("allkeys-lfu")
		tt.Do("SET", "k0", "v")
		for range 10 {
			tt.Do("GET", "k0") // 15
		}
		tt.Clock.Add(12 * time.Minute) // decays to 3
		tt.Do("SET", "k1", "v")        // 5
		if got := evictOne(tt, "allkeys-lfu"); got != "k0" {
			t.Fatalf("evicted %s, want the decayed k0", got)
		}
	})
	t.Run("volatile-lru", func(t *testing.T) {
		tt := setup("volatile-lru")
		tt.Do("SET", "k0", "v") // the most idle, but persistent
		tt.Clock.Add(time.Second)
		tt.Do("SET", "k1", "v", "EX", "100")
		tt.Clock.Add(time.Second)
		tt.Do("SET", "k2", "v", "EX", "100")
		for _, want := range []string{"k1", "k2", "none"} {
			if got := evictOne(tt, "volatile-lru"); got != want {
				t.Fatalf("evicted %s, want %s", got, want)
			}
		}
	})
	t.Run("volatile-random", func(t *testing.T) {
		tt := setup("volatile-random")
		tt.Do("SET", "k0", "v")
		tt.Do("SET", "k1", "v", "EX", "100")
		tt.Do("SELECT", "3")
		tt.Do("SET", "k2", "v", "EX", "100")
		tt.Do("SELECT", "0")
		if got := evictOne(tt, "volatile-random"); got != "k1" && got != "?" {
			t.Fatalf("evicted %s", got)
		}
		evictOne(tt, "volatile-random")
		if tt.E.DB(3).Len() != 0 || tt.E.DB(0).Len() != 1 || evictOne(tt, "volatile-random") != "none" {
			t.Fatalf("volatile-random left db0 %d db3 %d", tt.E.DB(0).Len(), tt.E.DB(3).Len())
		}
	})
	// A pool candidate deleted meanwhile is a ghost: skipped, not revived.
	t.Run("ghosts", func(t *testing.T) {
		tt := setup("allkeys-lru")
		for i := range 5 {
			tt.Do("SET", fmt.Sprintf("k%d", i), "v")
			tt.Clock.Add(time.Second)
		}
		if got := evictOne(tt, "allkeys-lru"); got != "k0" {
			t.Fatalf("evicted %s, want k0", got)
		}
		tt.Do("DEL", "k1", "k2") // still in the pool
		if got := evictOne(tt, "allkeys-lru"); got != "k3" {
			t.Fatalf("evicted %s, want k3", got)
		}
	})
}
