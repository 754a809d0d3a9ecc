// Package gctune raises the Go collector's target (GOGC) while collections
// find little garbage, and brings it back to its base as soon as they find
// some.
//
// A store's heap is nearly all live data, which is why the binary runs at a
// low GOGC (25): between collections the heap grows by at most a quarter
// of the live data, so RSS stays close to it. But while a server fills (a
// flushed rate limiter meeting its users, a load after FLUSHALL) nearly
// every allocated byte stays live: the collections that GOGC 25 starts,
// every time the heap has grown by a quarter, mark the whole heap and free
// almost nothing. On a million-key fill they were a sixth of the
// server's CPU. A higher target there costs no memory, since what it
// would let pile up is garbage and there is little of it.
//
// So the tuner learns, from what each collection leaves live, the share of
// recent allocation that was garbage, and sets the target so that the
// garbage a cycle may accumulate stays within what the base target allows
// at a garbage share of 1/4:
//
//	percent = base × min(4, max(1, (1/4) / share))
//
// bounded by an absolute headroom (the target never lets the heap grow by
// more than Headroom bytes beyond what the base allows), because the share
// is learned only when a cycle ends: the cycle after a fill turns into
// churn may fill its whole headroom with garbage before the next one shows
// it.
package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Sample is the runtime's state at one observation.
type Sample struct {
	Cycles uint64 // completed collections (/gc/cycles/total:gc-cycles)
	Allocs uint64 // bytes allocated since the process started (/gc/heap/allocs:bytes)
	Live   uint64 // heap marked live by the last collection (/gc/heap/live:bytes)
}

const (
	// refShare is the garbage share at and above which the base target
	// applies.
	refShare = 0.25
	// maxFactor caps how far the target is raised over its base.
	maxFactor = 4
	// minAlloc is the least (decayed) allocation that tells the share:
	// the ratio of fewer bytes is noise.
	minAlloc = 1 << 20
)

// GarbageShare estimates, from the intervals between collections, the
// share of allocated bytes that became garbage. One interval alone swings
// from 0 to 1 (a client's buffers live across it, or die in it), so the
// share is over the recent intervals, each weighing by its allocation and
// half as much as the next; only the sums are compared. The tuner and the
// maxmemory accounting (commands/memory.go) both learn it so.
type GarbageShare struct {
	alloc, kept float64 // bytes allocated in recent intervals and the part kept live, decayed
}

// Add counts one interval: alloc bytes allocated, of which the live heap
// kept kept (negative when it shrank: data was deleted).
func (g *GarbageShare) Add(alloc, kept float64) {
	g.alloc = g.alloc/2 + alloc
	g.kept = g.kept/2 + kept
}

// Value is the share, unclamped (above 1 after deletions, below 0 when
// the heap kept more than was allocated), once the decayed allocation is
// at least minAlloc bytes; ok is false before.
func (g *GarbageShare) Value(minAlloc float64) (share float64, ok bool) {
	if g.alloc < minAlloc {
		return 0, false
	}
	return 1 - g.kept/g.alloc, true
}

// Tuner turns samples into a GC percent. The zero value is not usable: set
// Base (and Headroom) first.
type Tuner struct {
	Base     int    // the configured GC percent, the floor
	Headroom uint64 // bytes the raised target may add over Base's

	last    Sample
	started bool
	share   GarbageShare
}

// Observe takes a sample and returns the GC percent to run at.
func (t *Tuner) Observe(s Sample) int {
	if !t.started || s.Cycles < t.last.Cycles || s.Allocs < t.last.Allocs {
		t.last, t.started = s, true
		return t.Base
	}
	if s.Cycles == t.last.Cycles {
		// No collection since the last sample: nothing new is known
		// about what stayed live. The allocation is counted with the
		// interval a collection closes.
		return t.percent(s.Live)
	}
	// What the interval kept is the live heap's growth, which is negative
	// when data was deleted: then the collections found more garbage than
	// was allocated (a share above 1), and the base applies until the
	// deletions have decayed from the figures. Counted as nothing kept
	// instead, the allocation before them (a fill, all kept) would hold a
	// raised target over a heap mostly freed, and the pages it had held
	// would not go back to the system.
	a := float64(s.Allocs - t.last.Allocs)
	t.share.Add(a, min(float64(s.Live)-float64(t.last.Live), a))
	t.last = s
	return t.percent(s.Live)
}

// Share is the garbage share learned so far (1 until enough is known; above
// 1 after deletions).
func (t *Tuner) Share() float64 {
	if v, ok := t.share.Value(minAlloc); ok {
		return v
	}
	return 1
}

func (t *Tuner) percent(live uint64) int {
	share := t.Share()
	factor := float64(maxFactor)
	if share > refShare/maxFactor {
		factor = max(1, refShare/share)
	}
	p := float64(t.Base) * factor
	if live > 0 && t.Headroom > 0 {
		p = min(p, float64(t.Base)+100*float64(t.Headroom)/float64(live))
	}
	// Whole steps of an eighth of the base, so that the target is not
	// reset for every small change of the share.
	step := max(1, float64(t.Base)/8)
	return int(math.Floor(p/step) * step)
}

// Run applies the tuner's percent with debug.SetGCPercent until stop is
// closed, sampling the runtime as each collection ends (a finalizer tells
// when: a sample taken at a fixed pace mixes what was allocated after the
// collection into the interval it closes). While active reports false
// (maxmemory set: the memory accounting there counts on the base target)
// the base applies; it is asked every interval. changed, if not nil, hears
// every change.
func Run(t *Tuner, interval time.Duration, active func() bool, stop <-chan struct{}, changed func(from, to int)) {
	samples := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	gcEnd := make(chan struct{}, 1)
	var stopped atomic.Bool
	notifyGC(gcEnd, &stopped)
	defer stopped.Store(true)
	cur := t.Base
	set := func(p int) {
		if p != cur {
			debug.SetGCPercent(p)
			if changed != nil {
				changed(cur, p)
			}
			cur = p
		}
	}
	defer set(t.Base)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	on := active()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			if on = active(); !on {
				*t = Tuner{Base: t.Base, Headroom: t.Headroom}
				set(t.Base)
			}
		case <-gcEnd:
			if on {
				metrics.Read(samples)
				set(t.Observe(Sample{Cycles: samples[0].Value.Uint64(), Allocs: samples[1].Value.Uint64(), Live: samples[2].Value.Uint64()}))
			}
		}
	}
}

// sentinel is an object made only to be collected; big enough not to share
// a tiny-allocator block, whose other objects would keep it alive.
type sentinel struct{ _ [32]byte }

// notifyGC signals ch after every collection (or run of collections) until
// stopped is set: each sentinel's finalizer makes the next one.
func notifyGC(ch chan struct{}, stopped *atomic.Bool) {
	s := new(sentinel)
	runtime.SetFinalizer(s, func(*sentinel) {
		if stopped.Load() {
			return
		}
		select {
		case ch <- struct{}{}:
		default:
		}
		notifyGC(ch, stopped)
	})
}
