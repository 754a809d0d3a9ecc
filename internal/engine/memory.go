package engine

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
	"unsafe"

	"github.com/limitkv/limitkv/internal/gctune"
	"github.com/limitkv/limitkv/internal/keyspace"
)

// Memory accounting for maxmemory, and the client output buffer limits.
//
// Used memory is the Go heap's "objects" class (runtime/metrics
// /memory/classes/heap/objects:bytes): the same quantity as
// MemStats.HeapAlloc, but read without stopping the world, in about 300 ns,
// and at most once a millisecond. It is what Redis's used_memory is to
// jemalloc: bytes in allocated objects, without fragmentation, stacks or
// runtime metadata. Accounting each value instead would need every handler
// to report its growth, and would still miss the bytes Go allocates around
// them.
//
// The catch is that a Go heap keeps unreferenced objects until the next
// collection: a DEL frees nothing at once, and request and reply buffers
// pile up as garbage. Counting garbage as data would refuse writes (or evict
// keys) for memory a collection gives back, so:
//   - a write that finds the heap over maxmemory when garbage may explain it
//     (the heap grew by 1/32 of maxmemory past the live heap of the last
//     collection, or keys were deleted since) and that nothing can be
//     evicted for waits for a collection, without holding the executor
//     lock, and only then decides. Under an evicting policy writes never
//     wait: while a collection runs they may take the heap 1/16 over the
//     limit, otherwise keys are evicted at once, garbage or not (see
//     checkMemory);
//   - above 90% of maxmemory a collection is started in the background once
//     1/16 of maxmemory of garbage may have piled up, so writes rarely wait;
//   - evicted keys are credited with an estimate of their
//     size (entryMemory) until a collection that started after the eviction
//     has finished, so one burst of evictions is not repeated while the
//     heap figure catches up;
//   - under an evicting policy, of the bytes allocated since the last
//     collection the share that recent intervals between collections left
//     as garbage (their allocations less their net growth of the live heap
//     and what they evicted) is not counted, at most garbageMax
//     (learnGarbage). Request buffers, argument vectors and replies are
//     garbage once a command is done: in a write flood of 1 KB values
//     about 40% of what a write allocates. Counted as data, that garbage
//     made each written byte evict nearly two, and the keyspace fell to
//     half of maxmemory between collections, evicting keys read a moment
//     before (TestEvictFlood's hot keys). The price is a heap that may
//     pass the limit by that share until the next collection, when
//     eviction catches up.
//
// The heap is the whole process's: a server embedded in a test binary counts
// the test's memory too, which errs on the safe side.

const (
	// memSampleEvery bounds how stale the used-memory figure may be.
	memSampleEvery = time.Millisecond
	// gcWaitMax bounds how long a write waits for a collection.
	gcWaitMax = 2 * time.Second
	// gcMinGap spaces background collections: at least this long, and four
	// times the last one's duration, between the end of one and the next.
	gcMinGap = 5 * time.Millisecond
	// gcIdleRetry: when nothing suggests garbage, refused writes still start
	// a background collection this often, for frees no counter sees (a value
	// overwritten by a smaller one, a shrunk sorted set).
	gcIdleRetry = time.Second
	// garbageMax caps the share of recent allocation taken for garbage, so
	// at least this much of what a changed workload allocates counts as
	// data before a collection shows what it is.
	GarbageMax = 0.75
	// garbageMinAlloc is the least (decayed) allocation that tells the
	// garbage share: the ratio of fewer bytes is noise.
	garbageMinAlloc = 256 << 10
)

// memState is one engine's view of the heap. Plain fields are guarded by the
// engine lock, the collection fields by gcMu.
type memState struct {
	samples [4]metrics.Sample
	At      time.Time // when heap was read
	Heap    uint64    // heap objects bytes
	Live    uint64    // live heap marked by the last collection
	cycles  uint64    // collections completed, as of at
	Allocs  uint64    // bytes allocated since the process started, as of at

	// The garbage share: of the bytes allocated between the last two
	// collections seen, the part that did not end up live (garbage), and
	// the figures as of the last one seen, which the next compares with.
	Garbage   float64
	recent    gctune.GarbageShare
	gcAllocs  uint64 // allocs when the last collection was seen
	gcLive    uint64
	gcEvicted uint64

	// evicted counts estimated bytes of evicted keys, cumulatively.
	// reflected is how much of it the heap figure already shows: whatever
	// was evicted before a collection that has since completed started.
	Evicted       uint64
	evictedAtSeen uint64 // evicted when the current cycle count was first seen
	reflected     uint64
	keysAtGC      int // keys when the last forced collection started
	ev            evictState

	gcMu     sync.Mutex
	gcDone   chan struct{} // non-nil while a forced collection runs; closed at its end
	gcEnded  time.Time     // end of the last forced collection
	gcTook   time.Duration // its duration
	forced   uint64        // evicted as of the start of the last finished forced collection
	resample bool          // a forced collection finished since the last read
}

func NewMemState() *memState {
	m := &memState{}
	m.samples[0].Name = "/memory/classes/heap/objects:bytes"
	m.samples[1].Name = "/gc/heap/live:bytes"
	m.samples[2].Name = "/gc/cycles/total:gc-cycles"
	m.samples[3].Name = "/gc/heap/allocs:bytes"
	return m
}

func (e *Engine) Mem() *memState { return e.Memory }

// read refreshes the heap figures if they are older than memSampleEvery, a
// forced collection finished since, or force.
func (m *memState) read(force bool) {
	now := time.Now()
	m.gcMu.Lock()
	force = force || m.resample
	m.resample = false
	forced := m.forced
	m.gcMu.Unlock()
	m.reflected = max(m.reflected, forced)
	if !force && now.Sub(m.At) < memSampleEvery {
		return
	}
	metrics.Read(m.samples[:])
	m.At = now
	m.Heap = m.samples[0].Value.Uint64()
	m.Live = m.samples[1].Value.Uint64()
	cycles := m.samples[2].Value.Uint64()
	m.Allocs = m.samples[3].Value.Uint64()
	switch {
	case cycles == m.cycles+1:
		// What was evicted before the previous count was seen was evicted
		// before the cycle that just completed started.
		m.reflected = max(m.reflected, m.evictedAtSeen)
		m.evictedAtSeen = m.Evicted
	case cycles > m.cycles:
		m.reflected = m.Evicted
		m.evictedAtSeen = m.Evicted
	}
	if cycles > m.cycles {
		m.LearnGarbage()
	}
	m.cycles = cycles
}

// learnGarbage updates the garbage share when a collection is seen: the
// bytes allocated since the previous one was seen, less the live heap's
// growth and the keys evicted meanwhile (the live heap shrank by those),
// are what became garbage, weighed over the recent intervals
// (gctune.GarbageShare: one alone swings from 0 to 1; here also because a
// key evicted while the collection marked may still count as live, and
// drops out of the next); only the share is clamped.
// (The credits' reflected figure lags a cycle on purpose, and would have
// put the evictions of one interval in the next: the share then stuck at
// garbageMax.)
func (m *memState) LearnGarbage() {
	if m.gcAllocs != 0 && m.Allocs > m.gcAllocs {
		alloc := float64(m.Allocs - m.gcAllocs)
		kept := float64(m.Live) - float64(m.gcLive) + float64(m.Evicted-m.gcEvicted)
		m.recent.Add(alloc, kept)
		if share, ok := m.recent.Value(garbageMinAlloc); ok {
			m.Garbage = min(max(share, 0), GarbageMax)
		}
	}
	m.gcAllocs, m.gcLive, m.gcEvicted = m.Allocs, m.Live, m.Evicted
}

// heapLessEvicted is the heap minus evictions it does not show yet.
func (m *memState) heapLessEvicted() uint64 {
	pending := m.Evicted - m.reflected
	if pending >= m.Heap {
		return 0
	}
	return m.Heap - pending
}

// used is heapLessEvicted; under an evicting policy at most the live heap
// the last collection marked, plus the bytes allocated since less their
// expected garbage share, less the evictions not shown yet. That estimate
// starts from the marked live heap rather than the heap figure, which
// until the collector has swept still counts the garbage the collection
// found (and the evictions it reflects, no longer credited). A key evicted
// for garbage is lost, where a write refused under noeviction is not, and
// is refused only after a collection has made the figure exact; a write
// let in for garbage it was not would stay in, so noeviction has no
// discount.
func (m *memState) Used(evicting bool) uint64 {
	used := m.heapLessEvicted()
	if !evicting || m.gcAllocs == 0 || m.Allocs < m.gcAllocs {
		return used
	}
	est := float64(m.Live) + (1-m.Garbage)*float64(m.Allocs-m.gcAllocs) - float64(m.Evicted-m.reflected)
	if est <= 0 {
		return 0
	}
	return min(used, uint64(est))
}

// UsedMemory is the used memory maxmemory is checked against (INFO's
// used_memory should report the same). Call with the lock held.
func (e *Engine) UsedMemory() uint64 {
	m := e.Mem()
	m.read(true)
	return m.Used(*e.Cfg.MaxMemoryPolicy.Load() != "noeviction")
}

// memoryAvailable reports whether a command that may grow memory can run
// under maxmemory, after evicting what the policy allows. Called with the
// lock held, only when maxmemory is set, by the dispatcher before a command
// starts: it may release the lock while it waits for a collection, so it
// must not be called from inside a script or a transaction (use
// checkMemory(false) there).
func (e *Engine) memoryAvailable() bool { return e.CheckMemory(true) }

func (e *Engine) CheckMemory(mayWait bool) bool {
	if e.Cs.Pause.Kind != PauseOff && e.Paused() {
		return true // nothing is evicted during a pause, nor refused
	}
	limit := uint64(e.Cfg.MaxMemory.Load())
	m := e.Mem()
	m.read(false)
	// Judged on the heap as it is, evictions it still shows included:
	// only a collection turns the credits and the garbage share from
	// estimates into a measure, so they must not put it off.
	if m.Heap > limit/10*9 && m.Heap > m.Live+limit/16 {
		m.collect(e, false)
	}
	policy := *e.Cfg.MaxMemoryPolicy.Load()
	evicting := policy != "noeviction"
	// Replicas' output does not count (freeMemoryGetNotCountedMemory):
	// evicting keys to make room for the stream would feed it more DELs.
	nc := e.Dur.ReplOutputBytes()
	counted := func() uint64 { u := m.Used(evicting); return u - min(u, nc) }
	used := counted()
	if used <= limit {
		return true
	}
	keys := e.TotalKeys()
	// An evicting policy does not wait for a collection that might show
	// the heap under the limit: in a write flood every write would wait
	// for one. When garbage may explain the excess a collection is started
	// (spaced out as always: forcing them back to back halved the flood's
	// throughput in bench workload 8), and while it runs writes go on with
	// the heap up to 1/16 over the limit; once it ends the figure is exact
	// again. Otherwise keys are evicted at once, as in Redis, even if some
	// of the excess is garbage: the next collection gives that back as
	// room. Only when nothing is left to evict does a write wait before it
	// is refused.
	if evicting {
		if m.Heap > m.Live+limit/32 {
			m.collect(e, false)
			if used <= limit+limit/16 && m.collecting() {
				return true
			}
		}
		if freed, ok := e.Evict(m, policy, used-limit); freed > 0 {
			// Let the heap figure catch up with the credit.
			m.collect(e, false)
			if ok {
				return true
			}
		}
	}
	if mayWait && (m.Heap > m.Live+limit/32 || keys < m.keysAtGC) {
		done := m.collect(e, true)
		m.keysAtGC = keys
		e.mu.Unlock()
		t := time.NewTimer(gcWaitMax)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
		e.mu.Lock()
		m.read(true)
		if used = counted(); used <= limit {
			return true
		}
	}
	if keys < m.keysAtGC || m.sinceGC() >= gcIdleRetry {
		m.keysAtGC = keys
		m.collect(e, false)
	}
	return false
}

// collecting reports whether a forced collection is running.
func (m *memState) collecting() bool {
	m.gcMu.Lock()
	defer m.gcMu.Unlock()
	return m.gcDone != nil
}

func (m *memState) sinceGC() time.Duration {
	m.gcMu.Lock()
	defer m.gcMu.Unlock()
	return time.Since(m.gcEnded)
}

// collect starts a forced collection in the background, unless one runs
// already, and returns a channel closed when the running one ends. Unless
// now, a collection that would come too soon after the last is skipped
// (the channel returned is then already closed).
func (m *memState) collect(e *Engine, now bool) <-chan struct{} {
	m.gcMu.Lock()
	defer m.gcMu.Unlock()
	if m.gcDone != nil {
		return m.gcDone
	}
	if !now && time.Since(m.gcEnded) < max(gcMinGap, 4*m.gcTook) {
		return closedChan
	}
	done := make(chan struct{})
	m.gcDone = done
	evicted := m.Evicted
	go func() {
		start := time.Now()
		runtime.GC()
		m.gcMu.Lock()
		m.gcEnded = time.Now()
		m.gcTook = m.gcEnded.Sub(start)
		m.forced = max(m.forced, evicted)
		m.resample = true
		m.gcDone = nil
		m.gcMu.Unlock()
		close(done)
	}()
	return done
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (e *Engine) TotalKeys() int {
	n := 0
	for _, db := range e.Dbs {
		n += db.Len()
	}
	return n
}

// Heap bytes of a key beyond its name and value: the Entry, which holds the
// key inline (the pair is rounded up to a size class below), its bucket
// slot, the string header of the []byte boxed in the interface, and the
// deadline index item with its share of a chunk.
const (
	entryOverhead  = unsafe.Sizeof(keyspace.Entry{})
	bucketOverhead = 8
	bytesOverhead  = 24
	expiryOverhead = 17
)

// entryMemory estimates the heap bytes a key holds. Calibrated against the
// heap by TestMemoryEntryEstimate.
func EntryMemory(ent *keyspace.Entry) uint64 { return EntryMemorySampled(ent, DefaultMemorySamples) }

// EntryMemorySampled is EntryMemory with MEMORY USAGE's SAMPLES (0: all).
func EntryMemorySampled(ent *keyspace.Entry, samples int) uint64 {
	n := roundAlloc(int(entryOverhead)+len(ent.Key())) + bucketOverhead
	if ent.Expiry() != keyspace.NoExpiry {
		n += expiryOverhead
	}
	return n + valueMemory(ent, samples)
}

// roundAlloc approximates Go's size classes (at most 12.5% waste).
func roundAlloc(n int) uint64 {
	switch {
	case n == 0:
		return 0
	case n <= 16:
		return 16
	case n <= 128:
		return uint64(n+15) / 16 * 16
	}
	return uint64(n) + uint64(n)/16
}
