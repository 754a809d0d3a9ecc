package hll

import (
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMemoryPerElement measures heap bytes per added element
// (HLL_MEASURE=1) for HLLs built by one PFADD of n elements each: sparse
// ones at 100 and 1000 elements, dense ones at 5000. Compare with Redis's
// INFO used_memory delta over as many keys (which also counts the key and
// its dictionary entry, about 60 bytes a key).
func TestMemoryPerElement(t *testing.T) {
	if os.Getenv("HLL_MEASURE") == "" {
		t.Skip("set HLL_MEASURE=1 to measure bytes per element")
	}
	for _, tc := range []struct{ keys, n int }{{2000, 100}, {2000, 1000}, {300, 5000}} {
		elems := make([][][]byte, tc.keys)
		for k := range elems {
			for i := range tc.n {
				elems[k] = append(elems[k], []byte("el"+strconv.Itoa(k)+"_"+strconv.Itoa(i)))
			}
		}
		before, beforeLive := heapInUse()
		all := make([][]byte, tc.keys)
		for k := range all {
			all[k], _, _ = Add(New(), elems[k], DefaultSparseMaxBytes)
		}
		after, afterLive := heapInUse()
		t.Logf("%d HLLs of %d elements: %.0f bytes/HLL, %.2f bytes/element (heap in use); %.0f bytes/HLL live; length %d, capacity %d",
			tc.keys, tc.n, float64(after-before)/float64(tc.keys), float64(after-before)/float64(tc.keys*tc.n),
			float64(afterLive-beforeLive)/float64(tc.keys), len(all[0]), cap(all[0]))
		runtime.KeepAlive(all)
		runtime.KeepAlive(elems)
	}
}

// heapInUse is the heap's spans in use and its live bytes, after GC.
func heapInUse() (inuse, live uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse, m.HeapAlloc
}
