package commands

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
)

// heapObjects is the figure UsedMemory starts from, read directly.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// memTester is a tester whose maxmemory sits room bytes above what the
// process uses now.
func memTester(t *testing.T, policy string, room uint64) *tester {
	t.Helper()
	tt := newTester(t)
	runtime.GC()
	tt.E.Lock()
	used := tt.E.UsedMemory()
	tt.E.Unlock()
	tt.E.Cfg.MaxMemory.Store(int64(used + room))
	tt.Expect(okReply, "CONFIG", "SET", "maxmemory-policy", policy)
	return tt
}

// eventually retries fn (which reports success) for up to d.
func eventually(d time.Duration, fn func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if fn() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestMemoryNoEviction(t *testing.T) {
	tt := memTester(t, "noeviction", 8<<20)
	val := strings.Repeat("v", 4096)
	oom := errReply(engine.ErrOOM)
	n := 0
	for ; n < 20000; n++ {
		r := tt.Do("SET", "k"+strconv.Itoa(n), val)
		if r == oom {
			break
		}
		if r != okReply {
			t.Fatalf("SET %d: %q", n, r)
		}
	}
	if n == 20000 {
		t.Fatalf("20000 SETs of 4 KB fit in 8 MB of maxmemory")
	}
	if n < 500 {
		t.Fatalf("OOM after only %d SETs of 4 KB with 8 MB of room", n)
	}
	t.Logf("OOM after %d keys", n)
	// At the very edge a collection may yet bring the heap under the limit;
	// well past it, every deny-oom command is refused, and reads and
	// deletions are served.
	tt.E.Cfg.MaxMemory.Add(-4 << 20)
	for _, args := range [][]string{{"SET", "x", "1"}, {"INCR", "x"}, {"APPEND", "k0", "x"}, {"MSET", "a", "1"}, {"SETRANGE", "k0", "1", "x"}} {
		tt.Expect(oom, args...)
	}
	tt.Expect(bulk(val), "GET", "k0")
	tt.Expect(integer(1), "EXISTS", "k1")
	tt.Expect(integer(1), "EXPIRE", "k1", "100")
	if tt.E.Stats.EvictedKeys != 0 {
		t.Errorf("noeviction evicted %d keys", tt.E.Stats.EvictedKeys)
	}
	tt.Expect(okReply, "FLUSHALL")
	if !eventually(3*time.Second, func() bool { return tt.Do("SET", "after", "1") == okReply }) {
		t.Fatalf("writes still refused 3 s after FLUSHALL; used %d, maxmemory %d", tt.E.UsedMemory(), tt.E.Cfg.MaxMemory.Load())
	}
}

func TestMemoryDelFrees(t *testing.T) {
	tt := memTester(t, "noeviction", 4<<20)
	val := strings.Repeat("v", 64<<10)
	n := 0
	for ; n < 1000 && tt.Do("SET", "k"+strconv.Itoa(n), val) == okReply; n++ {
	}
	if n == 1000 {
		t.Fatal("never reached maxmemory")
	}
	for i := range n {
		tt.Do("DEL", "k"+strconv.Itoa(i))
	}
	if !eventually(3*time.Second, func() bool { return tt.Do("SET", "after", val) == okReply }) {
		t.Fatalf("writes still refused 3 s after DEL of every key")
	}
}

func TestMemoryVolatileTTL(t *testing.T) {
	tt := memTester(t, "volatile-ttl", 8<<20)
	val := strings.Repeat("v", 4096)
	// Persistent keys are never evicted.
	for i := range 200 {
		tt.Expect(okReply, "SET", "p"+strconv.Itoa(i), val)
	}
	// The nearest deadline lives in another database: eviction looks across all.
	tt.Expect(okReply, "SELECT", "3")
	tt.Expect(okReply, "SET", "soonest", val, "EX", "10")
	tt.Expect(okReply, "SELECT", "0")
	// Volatile keys with growing deadlines: every write succeeds, and those
	// nearest their deadline go first.
	const nv = 6000
	for i := range nv {
		if r := tt.Do("SET", "v"+strconv.Itoa(i), val, "EX", strconv.Itoa(100+i)); r != okReply {
			t.Fatalf("SET v%d: %q (evicted so far %d)", i, r, tt.E.Stats.EvictedKeys)
		}
	}
	ev := tt.E.Stats.EvictedKeys
	if ev == 0 {
		t.Fatalf("no key evicted after writing %d KB past an 8 MB room", nv*4)
	}
	tt.Expect(okReply, "SELECT", "3")
	tt.Expect(integer(0), "EXISTS", "soonest")
	tt.Expect(okReply, "SELECT", "0")
	for i := range 200 {
		tt.Expect(integer(1), "EXISTS", "p"+strconv.Itoa(i))
	}
	// Survivors are a suffix in deadline order.
	first := -1
	for i := range nv {
		live := tt.Do("EXISTS", "v"+strconv.Itoa(i)) == integer(1)
		if live && first < 0 {
			first = i
		}
		if !live && first >= 0 {
			t.Fatalf("v%d evicted while v%d (nearer deadline) survived", i, first)
		}
	}
	t.Logf("evicted %d keys; survivors from v%d", ev, first)
	if first <= 0 {
		t.Fatalf("first survivor %d: the nearest deadlines were not evicted", first)
	}
	// INFO-visible counter is the stat, and persistent writes eventually
	// hit OOM once no volatile key is left.
	oom := false
	for i := 0; i < 20000 && !oom; i++ {
		oom = tt.Do("SET", "q"+strconv.Itoa(i), val) == errReply(engine.ErrOOM)
	}
	if !oom {
		t.Fatal("persistent writes never refused")
	}
	for i := range nv {
		if tt.Do("EXISTS", "v"+strconv.Itoa(i)) == integer(1) {
			t.Fatalf("OOM refused a write while v%d (volatile) was still there", i)
		}
	}
}

func TestMemoryExpiredVictimIsExpiry(t *testing.T) {
	tt := memTester(t, "volatile-ttl", 1<<20)
	db := tt.E.DB(0)
	ent := db.Add([]byte("gone"), []byte("x"))
	db.SetExpiry(ent, tt.Clock.Now().UnixMilli()-1000)
	tt.E.Lock()
	freed, _ := tt.E.Evict(tt.E.Mem(), "volatile-ttl", 1)
	tt.E.Unlock()
	if freed == 0 || db.Len() != 0 {
		t.Fatalf("freed %d, keys left %d", freed, db.Len())
	}
	if tt.E.Stats.EvictedKeys != 0 || db.Expired != 1 {
		t.Fatalf("evicted %d, expired %d: a key past its deadline counts as expired", tt.E.Stats.EvictedKeys, db.Expired)
	}
}

func TestMemoryNoLimitNoCheck(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "SET", "a", "1")
	if !tt.E.Memory.At.IsZero() {
		t.Fatal("the heap was read for a write with maxmemory 0")
	}
}

// TestMemoryEntryEstimate checks entryMemory against what the heap holds.
func TestMemoryEntryEstimate(t *testing.T) {
	for _, tc := range []struct {
		name string
		val  int
		ttl  bool
	}{{"small", 8, false}, {"100B ttl", 100, true}, {"1KB", 1000, false}, {"4KB ttl", 4096, true}} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 20000
			db := keyspace.New()
			runtime.GC()
			before := heapObjects()
			for i := range n {
				ent := db.Add(fmt.Appendf(nil, "key:%08d", i), make([]byte, tc.val))
				if tc.ttl {
					db.SetExpiry(ent, int64(1e12+i))
				}
			}
			runtime.GC()
			heap := float64(heapObjects()) - float64(before)
			var est float64
			db.ForEach(func(e *keyspace.Entry) bool { est += float64(engine.EntryMemory(e)); return true })
			runtime.KeepAlive(db)
			ratio := est / heap
			t.Logf("heap %.0f B/key, estimate %.0f B/key (ratio %.2f)", heap/n, est/n, ratio)
			if ratio < 0.7 || ratio > 1.3 {
				t.Errorf("estimate off by more than 30%%: ratio %.2f", ratio)
			}
		})
	}
}

func TestMemoryOutputLimitsSet(t *testing.T) {
	const (
		errArgs  = "Wrong number of arguments in buffer limit configuration."
		errClass = "Invalid client class specified in buffer limit configuration."
		errValue = "Error in hard, soft or soft_seconds setting in buffer limit configuration."
	)
	dflt := "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
	if got := config.DefaultOutputLimits.String(); got != dflt {
		t.Fatalf("default %q", got)
	}
	for _, tc := range []struct {
		in, want, err string
	}{
		// Replies checked against redis-server 7.0.15.
		{"normal 10mb 5mb 60", "normal 10485760 5242880 60 slave 268435456 67108864 60 pubsub 33554432 8388608 60", ""},
		{"replica 1k 2K 3 pubsub 0 0 0", "normal 0 0 0 slave 1000 2000 3 pubsub 0 0 0", ""},
		{"NORMAL 1 2 3", "normal 1 2 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60", ""},
		{"normal 1 2 3 normal 4 5 6", "normal 4 5 6 slave 268435456 67108864 60 pubsub 33554432 8388608 60", ""},
		{"normal 5 10 3", "normal 5 10 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60", ""},
		{"", dflt, ""},
		{"normal 1 2", "", errArgs},
		{"normal 1 2 3 ", "", errArgs},
		{"foo 1 2 3", "", errClass},
		{"master 1 2 3", "", errClass},
		{"normal x 2 3", "", errValue},
		{"normal 1 2 -3", "", errValue},
		{"normal 1 2 x", "", errValue},
		{"normal -1 2 3", "", errValue},
		{"normal 1 1 2147483648", "", errValue},
		{"normal 1 1 9223372036854775808", "", errValue},
		{"normal 1 1 4294967297", "normal 1 1 1 slave 268435456 67108864 60 pubsub 33554432 8388608 60", ""},
		{"normal 1 1 1 bogus 2 2 2", "", errClass},
	} {
		var args []string
		if tc.in != "" {
			args = strings.Split(tc.in, " ")
		}
		got, err := config.DefaultOutputLimits.Set(args)
		if err != tc.err || (err == "" && got.String() != tc.want) {
			t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got.String(), err, tc.want, tc.err)
		}
	}
}

func TestMemoryOutputLimitsConfig(t *testing.T) {
	cfg := config.DefaultConfig()
	if cfg.OutputLimits() != config.DefaultOutputLimits {
		t.Fatal("a new config has not the default limits")
	}
	l, _ := config.DefaultOutputLimits.Set([]string{"normal", "1mb", "0", "0"})
	cfg.SetOutputLimits(l)
	if got := cfg.OutputLimits().Normal.Hard; got != 1<<20 {
		t.Fatalf("hard %d", got)
	}
	if config.DefaultConfig().OutputLimits() != config.DefaultOutputLimits {
		t.Fatal("limits leaked to another config")
	}
}

// TestMemoryListEstimate checks the list estimate (valueMemory) against
// what the heap holds, for small lists and for lists of many nodes.
func TestMemoryListEstimate(t *testing.T) {
	for _, tc := range []struct {
		name        string
		keys, elems int
		el          func(i int) string
	}{
		{"5 short strings", 20000, 5, func(i int) string { return fmt.Sprintf("job:%06d", i) }},
		{"50 timestamps", 5000, 50, func(i int) string { return strconv.Itoa(1_700_000_000_000 + i) }},
		{"5000 strings", 40, 5000, func(i int) string { return fmt.Sprintf("element-%08d", i) }},
		{"200 of 1 KB", 200, 200, func(i int) string { return strings.Repeat("v", 1000) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTester(t)
			args := make([][]string, tc.keys)
			for k := range args {
				a := []string{"RPUSH", fmt.Sprintf("key:%08d", k)}
				for i := range tc.elems {
					a = append(a, tc.el(k*tc.elems+i))
				}
				args[k] = a
			}
			// Keys first, so that the keyspace's own growth is not counted.
			for _, a := range args {
				tt.Do("SET", a[1], "x")
			}
			var est float64
			tt.E.Lock()
			tt.E.DB(0).ForEach(func(e *keyspace.Entry) bool { est -= float64(engine.ValueMemory(e)); return true })
			tt.E.Unlock()
			runtime.GC()
			before := heapObjects()
			for _, a := range args {
				tt.Do("DEL", a[1])
				tt.Do(a...)
			}
			runtime.GC()
			heap := float64(heapObjects()) - float64(before)
			tt.E.Lock()
			tt.E.DB(0).ForEach(func(e *keyspace.Entry) bool { est += float64(engine.ValueMemory(e)); return true })
			tt.E.Unlock()
			runtime.KeepAlive(args)
			n := float64(tc.keys * tc.elems)
			ratio := est / heap
			t.Logf("heap %.1f B/element, estimate %.1f B/element (ratio %.2f)", heap/n, est/n, ratio)
			if ratio < 0.7 || ratio > 1.3 {
				t.Errorf("estimate off by more than 30%%: ratio %.2f", ratio)
			}
		})
	}
}

// MEMORY USAGE is the eviction estimate: it grows with the value, and a
// key past its deadline not yet reclaimed is still measured (dictFind).
func TestMemoryUsage(t *testing.T) {
	tt := newTester(t)
	tt.Do("SET", "small", "v")
	tt.Do("SET", "big", strings.Repeat("x", 1000))
	usage := func(k string) int {
		r := tt.Do("MEMORY", "USAGE", k)
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r, ":"), "\r\n"))
		if err != nil {
			t.Fatalf("MEMORY USAGE %s: %q", k, r)
		}
		return n
	}
	if s, b := usage("small"), usage("big"); b < s+1000 {
		t.Errorf("MEMORY USAGE: %d for a 1-byte value, %d for 1000 bytes", s, b)
	}
	tt.Do("SET", "gone", "v", "PX", "10")
	tt.Clock.Add(time.Second)
	if usage("gone") == 0 {
		t.Error("an expired key not yet reclaimed measured 0")
	}
	if r := tt.Do("MEMORY", "DOCTOR"); !strings.Contains(r, "Sam") {
		t.Errorf("MEMORY DOCTOR: %q", r)
	}
}

// The garbage share learnt between collections, and what used subtracts.
func TestMemoryGarbageShare(t *testing.T) {
	const mb = 1 << 20
	type cycle struct{ allocs, live, evicted uint64 }
	for _, tc := range []struct {
		name   string
		cycles []cycle
		want   float64
	}{
		{"first collection only sets the baseline", []cycle{{100 * mb, 10 * mb, 0}}, 0},
		// 10 MB allocated, live grew by 4 MB and 2 MB were evicted: 6 kept.
		{"flood", []cycle{{100 * mb, 10 * mb, 0}, {110 * mb, 14 * mb, 2 * mb}}, 0.4},
		{"all garbage is capped", []cycle{{100 * mb, 10 * mb, 0}, {110 * mb, 10 * mb, 0}}, engine.GarbageMax},
		{"live heap shrank by more than was evicted", []cycle{{100 * mb, 10 * mb, 0}, {110 * mb, 2 * mb, 0}}, engine.GarbageMax},
		// 6 MB of each 10 allocated stay live; 4 MB evicted during the
		// first collection's mark leave the live heap only at the second.
		// Alone the intervals say 0 and 0.8; the decayed sums, 7 kept of
		// 15.
		{"evictions a cycle late", []cycle{{100 * mb, 10 * mb, 0}, {110 * mb, 16 * mb, 4 * mb}, {120 * mb, 18 * mb, 4 * mb}}, 1 - 7.0/15},
		{"nothing garbage", []cycle{{100 * mb, 10 * mb, 0}, {110 * mb, 20 * mb, 0}}, 0},
		{"too little allocated to tell", []cycle{{100 * mb, 10 * mb, 0}, {100*mb + 1000, 10 * mb, 0}}, 0},
		// The older interval (all kept) weighs half: 5 MB kept of the
		// 5+10 allocated.
		{"recent intervals weigh more", []cycle{{100 * mb, 10 * mb, 0}, {110 * mb, 20 * mb, 0}, {120 * mb, 20 * mb, 0}}, 1 - 5.0/15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := engine.NewMemState()
			for _, c := range tc.cycles {
				m.Allocs, m.Live, m.Evicted = c.allocs, c.live, c.evicted
				m.LearnGarbage()
			}
			if diff := m.Garbage - tc.want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("garbage share %.4f, want %.4f", m.Garbage, tc.want)
			}
		})
	}
	m := engine.NewMemState()
	m.Allocs, m.Live = 100*mb, 10*mb
	m.LearnGarbage()
	m.Garbage = 0.5
	m.Allocs, m.Heap = 104*mb, 14*mb
	if got := m.Used(true); got != 12*mb {
		t.Errorf("used %d, want %d: half the 4 MB allocated since is garbage", got, 12*mb)
	}
	m.Evicted = 1 * mb
	if got := m.Used(true); got != 11*mb {
		t.Errorf("used %d, want %d with 1 MB evicted since", got, 11*mb)
	}
	if got := m.Used(false); got != 13*mb {
		t.Errorf("used %d, want %d under noeviction: the heap less the credit", got, 13*mb)
	}
	// Just after a collection, before the sweep: the heap still holds the
	// garbage it found, the live heap does not.
	m.Evicted, m.Allocs, m.Heap = 0, 100*mb, 20*mb
	if got := m.Used(true); got != 10*mb {
		t.Errorf("used %d, want the live heap %d before the sweep", got, 10*mb)
	}
	// Never more than the heap less the credit.
	m.Evicted, m.Allocs, m.Heap = 1*mb, 140*mb, 14*mb
	if got := m.Used(true); got != 13*mb {
		t.Errorf("used %d, want %d", got, 13*mb)
	}
}
