package commands

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/set"
)

// TestMemorySetEstimate calibrates the set's MemoryUsage (through
// entryMemory, as maxmemory and INFO use it) against the Go heap, for the
// intset and hash-table encodings at typical sizes.
func TestMemorySetEstimate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keys, per  int
		member     func(i int) string
		wantEncode string
	}{
		{"small intsets", 20000, 5, func(i int) string { return strconv.Itoa(i * 7) }, "intset"},
		{"full intsets", 200, 500, func(i int) string { return strconv.Itoa(100000 + i*3) }, "intset"},
		{"small hash tables", 10000, 8, func(i int) string { return fmt.Sprintf("ip:10.0.%d.%d", i/256, i%256) }, "hashtable"},
		{"big hash table", 1, 200000, func(i int) string { return "member:" + strconv.Itoa(i) }, "hashtable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := keyspace.New()
			// The members as a client would send them, made first so that
			// only what the sets keep is counted.
			members := make([][]byte, tc.per)
			for i := range members {
				members[i] = []byte(tc.member(i))
			}
			// Twice: objects in a sync.Pool (the RDB encoder's LZF
			// tables, after DUMP tests) survive the first collection as
			// victims and would be freed during the measurement.
			runtime.GC()
			runtime.GC()
			before := heapObjects()
			for k := range tc.keys {
				s := set.NewFor(members[0])
				for _, m := range members {
					s.Add(m, 512)
				}
				db.Add(fmt.Appendf(nil, "key:%08d", k), s)
			}
			runtime.GC()
			heap := float64(heapObjects()) - float64(before)
			var est float64
			db.ForEach(func(e *keyspace.Entry) bool {
				if got := e.Val.(*set.Set).Encoding(); got != tc.wantEncode {
					t.Fatalf("encoding %s", got)
				}
				est += float64(engine.EntryMemory(e))
				return true
			})
			runtime.KeepAlive(db)
			runtime.KeepAlive(members)
			n := float64(tc.keys * tc.per)
			ratio := est / heap
			t.Logf("heap %.1f B/member, estimate %.1f B/member (ratio %.2f)", heap/n, est/n, ratio)
			if ratio < 0.8 || ratio > 1.2 {
				t.Errorf("estimate off by more than 20%%: ratio %.2f", ratio)
			}
		})
	}
}
