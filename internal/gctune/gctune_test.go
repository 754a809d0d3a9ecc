package gctune

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

const mb = 1 << 20

// step is one collection's outcome: bytes allocated since the last one and
// the live heap it marked.
type step struct{ alloc, live uint64 }

func TestObserve(t *testing.T) {
	// Each case starts from a first sample at 10 MB live, then feeds its
	// steps one collection each and checks the last percent.
	fill := func(n int, per uint64) []step { // every byte allocated stays live
		var s []step
		live := uint64(10 * mb)
		for range n {
			live += per
			s = append(s, step{per, live})
		}
		return s
	}
	cases := []struct {
		name     string
		headroom uint64
		steps    []step
		want     int
	}{
		{"first sample: base", 0, nil, 25},
		{"fill: four times the base", 0, fill(4, 4*mb), 100},
		{"churn, nothing kept: base", 0, []step{{8 * mb, 10 * mb}, {8 * mb, 10 * mb}, {8 * mb, 10 * mb}}, 25},
		// 1/8 of the allocation is garbage: twice the base.
		{"share 1/8: twice", 0, []step{{8 * mb, 17 * mb}, {8 * mb, 24 * mb}, {8 * mb, 31 * mb}, {8 * mb, 38 * mb}}, 50},
		// A quarter and more of it garbage: the base.
		{"share 1/4: base", 0, []step{{8 * mb, 16 * mb}, {8 * mb, 22 * mb}, {8 * mb, 28 * mb}}, 25},
		{"too little allocated to tell", 0, []step{{100 << 10, 10*mb + 100<<10}}, 25},
		// The headroom bounds the raise: 4 MB over 64 MB live is 6.25% more.
		{"headroom", 4 * mb, fill(6, 9*mb), 31},
		{"headroom at a small heap does not bind", 64 * mb, fill(4, 4*mb), 100},
		// A fill, then a collection that finds most of it deleted: at
		// once the base, though the fill allocated far more.
		{"deletions after a fill", 0, append(fill(4, 16*mb), step{2 * mb, 12 * mb}), 25},
		// Deletions decay: fill enough afterwards and the raise returns.
		{"fill after deletions", 0, append(append(fill(2, 16*mb), step{1 * mb, 11 * mb}), fill(8, 8*mb)...), 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tu := &Tuner{Base: 25, Headroom: c.headroom}
			s := Sample{Cycles: 1, Allocs: 100 * mb, Live: 10 * mb}
			got := tu.Observe(s)
			for _, st := range c.steps {
				s = Sample{Cycles: s.Cycles + 1, Allocs: s.Allocs + st.alloc, Live: st.live}
				got = tu.Observe(s)
			}
			if got != c.want {
				t.Errorf("percent %d, want %d (share %.3f)", got, c.want, tu.Share())
			}
		})
	}
}

func TestObserveWithoutCollection(t *testing.T) {
	tu := &Tuner{Base: 25}
	s := Sample{Cycles: 1, Allocs: 0, Live: 10 * mb}
	tu.Observe(s)
	s = Sample{Cycles: 2, Allocs: 8 * mb, Live: 18 * mb} // a fill
	if p := tu.Observe(s); p != 100 {
		t.Fatalf("after a fill: %d", p)
	}
	// Allocation with no collection ending tells nothing yet: the same
	// percent, and the bytes belong to the interval the next one closes.
	s.Allocs += 8 * mb
	if p := tu.Observe(s); p != 100 {
		t.Fatalf("without a collection: %d", p)
	}
	s.Cycles++ // that interval's 8 MB were all garbage
	if p := tu.Observe(s); p >= 100 {
		t.Fatalf("after a collection that kept nothing of 8 MB: %d", p)
	}
}

func TestObserveCountersBackwards(t *testing.T) {
	tu := &Tuner{Base: 25}
	tu.Observe(Sample{Cycles: 10, Allocs: 0, Live: 10 * mb})
	tu.Observe(Sample{Cycles: 11, Allocs: 8 * mb, Live: 18 * mb})
	if p := tu.Observe(Sample{Cycles: 1, Allocs: 1, Live: 1}); p != 25 {
		t.Fatalf("counters reset: %d, want the base", p)
	}
}

func TestStepsOfTheBase(t *testing.T) {
	// Percents come in eighths of the base, so the share's small moves do
	// not reset the target.
	for _, base := range []int{8, 25, 100} {
		tu := &Tuner{Base: base}
		tu.share.Add(100*mb, 100*mb*0.9) // share 0.1: 2.5x
		if p, want := tu.percent(10*mb), base*5/2; p != want {
			t.Errorf("base %d: %d, want %d", base, p, want)
		}
	}
}

func TestNotifyGC(t *testing.T) {
	ch := make(chan struct{}, 1)
	var stopped atomic.Bool
	notifyGC(ch, &stopped)
	for i := range 3 {
		deadline := time.After(10 * time.Second)
		for got := false; !got; {
			runtime.GC()
			select {
			case <-ch:
				got = true
			case <-time.After(10 * time.Millisecond):
			case <-deadline:
				t.Fatalf("no signal after collection %d", i)
			}
		}
	}
	stopped.Store(true)
}

// TestRun drives the runtime itself: a fill of live memory raises the
// target, and the tuner going inactive brings back the base.
func TestRun(t *testing.T) {
	old := debug.SetGCPercent(25)
	defer debug.SetGCPercent(old)
	var on atomic.Bool
	on.Store(true)
	changes := make(chan [2]int, 64)
	stop := make(chan struct{})
	done := make(chan struct{})
	tu := &Tuner{Base: 25}
	go func() {
		Run(tu, 5*time.Millisecond, on.Load, stop, func(from, to int) { changes <- [2]int{from, to} })
		close(done)
	}()
	var keep [][]byte
	deadline := time.Now().Add(20 * time.Second)
	raised := false
	for !raised && time.Now().Before(deadline) {
		keep = append(keep, make([]byte, 256<<10))
		for _, b := range keep[len(keep)-1:] {
			b[0] = 1
		}
		select {
		case c := <-changes:
			raised = c[1] > 25
		default:
		}
	}
	if !raised {
		t.Fatalf("a fill of %d MB did not raise the target (share %.3f)", len(keep)/4, tu.Share())
	}
	on.Store(false)
	for {
		select {
		case c := <-changes:
			if c[1] != 25 {
				continue
			}
		case <-time.After(10 * time.Second):
			t.Fatal("inactive, the target did not return to the base")
		}
		break
	}
	if p := debug.SetGCPercent(25); p != 25 {
		t.Errorf("the runtime's percent is %d", p)
	}
	close(stop)
	<-done
	runtime.KeepAlive(keep)
}
