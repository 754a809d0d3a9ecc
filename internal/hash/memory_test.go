package hash

import (
	"os"
	"runtime"
	"strconv"
	"testing"
)

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// memoryShapes are the hashes measured: a token bucket (Upstash's
// refilledAt/tokens), a Laravel duration limiter (start/end/count), a
// ratelimit-gem ring of 120 integer buckets, and a large hash of 1M
// "field:<i>" -> "<i>" pairs.
var memoryShapes = []struct {
	name   string
	keys   int
	fields func(h *Hash, i int)
}{
	{"token bucket (2 fields)", 100000, func(h *Hash, i int) {
		h.Set([]byte("refilledAt"), strconv.AppendInt(nil, 1700000000000+int64(i), 10), DefaultLimits())
		h.Set([]byte("tokens"), strconv.AppendInt(nil, int64(i%10), 10), DefaultLimits())
	}},
	{"duration limiter (3 fields)", 100000, func(h *Hash, i int) {
		h.Set([]byte("start"), strconv.AppendInt(nil, 1700000000+int64(i), 10), DefaultLimits())
		h.Set([]byte("end"), strconv.AppendInt(nil, 1700000060+int64(i), 10), DefaultLimits())
		h.Set([]byte("count"), strconv.AppendInt(nil, int64(i%5), 10), DefaultLimits())
	}},
	{"bucket ring (120 fields)", 2000, func(h *Hash, i int) {
		for b := range 120 {
			h.Set(strconv.AppendInt(nil, int64(b), 10), strconv.AppendInt(nil, int64((i+b)%50), 10), DefaultLimits())
		}
	}},
	{"large (1M fields)", 1, func(h *Hash, _ int) {
		for j := range 1000000 {
			h.Set([]byte("field:"+strconv.Itoa(j)), strconv.AppendInt(nil, int64(j), 10), DefaultLimits())
		}
	}},
}

// TestMemoryPerField measures heap bytes per field (HASH_MEASURE=1) and
// what MemoryUsage estimates, for the shapes above. The Redis figures to
// compare with are MEMORY USAGE (and INFO used_memory deltas) of the same
// hashes; see the family's report.
func TestMemoryPerField(t *testing.T) {
	if os.Getenv("HASH_MEASURE") == "" {
		t.Skip("set HASH_MEASURE=1 to measure bytes per field")
	}
	for _, sh := range memoryShapes {
		all := make([]*Hash, sh.keys)
		before := heapInUse()
		for i := range all {
			all[i] = New()
			sh.fields(all[i], i)
		}
		after := heapInUse()
		usage, fields := 0, 0
		for _, h := range all {
			usage += h.MemoryUsage()
			fields += h.Len()
		}
		t.Logf("%s, %s: heap %.1f B/field (%.0f B/hash), MemoryUsage %.1f B/field",
			sh.name, all[0].Encoding(), float64(after-before)/float64(fields), float64(after-before)/float64(sh.keys), float64(usage)/float64(fields))
		runtime.KeepAlive(all)
	}
}
