package set

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
)

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemoryPerMember measures heap bytes per member of the set values
// alone (SET_MEASURE=1): many small intsets, full intsets, small hash
// tables of IP-like members, and one large hash table. Compare with
// Redis's MEMORY USAGE of the same sets divided by their size.
func TestMemoryPerMember(t *testing.T) {
	if os.Getenv("SET_MEASURE") == "" {
		t.Skip("set SET_MEASURE=1 to measure bytes per member")
	}
	for _, tc := range []struct {
		name      string
		sets, per int
		member    func(i int) string
	}{
		{"intset of 5 small integers", 100000, 5, func(i int) string { return strconv.Itoa(i * 7) }},
		{"intset of 512 integers > 2^16", 1000, 512, func(i int) string { return strconv.Itoa(100000 + i*3) }},
		{"hashtable of 8 ip members", 50000, 8, func(i int) string { return fmt.Sprintf("ip:10.0.%d.%d", i/256, i%256) }},
		{"hashtable of 1M members", 1, 1000000, func(i int) string { return "member:" + strconv.Itoa(i) }},
	} {
		ms := make([][]byte, tc.per)
		for i := range ms {
			ms[i] = []byte(tc.member(i))
		}
		before := heapInUse()
		all := make([]*Set, tc.sets)
		usage := 0
		for i := range all {
			s := NewFor(ms[0])
			for _, m := range ms {
				s.Add(m, 512)
			}
			all[i] = s
			usage += s.MemoryUsage()
		}
		after := heapInUse()
		n := float64(tc.sets * tc.per)
		t.Logf("%s (%s): %.1f bytes/member (heap, incl. the %d-byte slice of pointers per set), MemoryUsage says %.1f",
			tc.name, all[0].Encoding(), float64(after-before)/n, 8, float64(usage)/n)
		runtime.KeepAlive(all)
		runtime.KeepAlive(ms)
	}
}
