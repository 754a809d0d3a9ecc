package engine

import (
	"runtime/metrics"
	"time"
)

// quietReturn hands the collector's headroom back once the server goes
// quiet after its heap has grown. The runtime keeps the pages a
// collection frees for the heap to refill to its goal (gc-percent above
// the live data) and scavenges only what lies beyond that goal: a store
// that has loaded its data and then waits keeps tens of MB it does not
// use, for good (a million rate-limit keys: about 50 MB, a quarter of the
// resident size). jemalloc, Redis's allocator, hands freed pages back
// after ten seconds (its dirty page decay); this is the Go counterpart,
// taken only when no command has run for quietFor, so traffic never pays
// for the forced collection, and not under maxmemory (see returnMemory).
type QuietReturn struct {
	mark  int64     // Stats.Commands when last seen
	since time.Time // when it last changed
	Heap  uint64    // the heap's object bytes after memory was last returned
}

const (
	QuietFor   = time.Second
	QuietGrown = 8 << 20 // and an eighth of the heap: growth that is worth a collection
)

// heapBytes is the heap's object bytes, garbage not yet collected
// included (read without stopping the world, unlike ReadMemStats).
func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// due reports whether the heap has grown enough since memory was last
// returned, and no command has run for quietFor.
func (q *QuietReturn) Due(commands int64, now time.Time) bool {
	if commands != q.mark || q.since.IsZero() {
		q.mark, q.since = commands, now
		return false
	}
	if now.Sub(q.since) < QuietFor {
		return false
	}
	h := HeapBytes()
	return h >= q.Heap+QuietGrown && h >= q.Heap+q.Heap/8
}

// returned records the heap as memory is handed back (it shrinks to the
// live data then; a little more, as the collection runs after this).
func (q *QuietReturn) Returned() { q.Heap = HeapBytes() }
