package main

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"sync"
	"time"
)

// hist is a log-linear latency histogram in nanoseconds: exact below 128ns,
// then 64 buckets per power of two (under 1.6% error), up to about 70s.
type hist struct {
	counts [2048]uint64
	n      uint64
	max    int64
	sum    int64
}

const histSub = 7

func histBucket(v int64) int {
	if v < 1<<histSub {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histSub
	i := e<<(histSub-1) + int(v>>e)
	if i >= len(hist{}.counts) {
		return len(hist{}.counts) - 1
	}
	return i
}

// histValue is the middle of bucket i.
func histValue(i int) int64 {
	if i < 1<<histSub {
		return int64(i)
	}
	e := i>>(histSub-1) - 1
	m := int64(i - e<<(histSub-1))
	return m<<e + (int64(1)<<e)/2
}

func (h *hist) add(v int64) {
	h.counts[histBucket(v)]++
	h.n++
	h.sum += v
	if v > h.max {
		h.max = v
	}
}

func (h *hist) merge(o *hist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// quantile returns the q-quantile (0..1) in nanoseconds.
func (h *hist) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(q*float64(h.n)) + 1
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(histValue(i), h.max)
		}
	}
	return h.max
}

// sample is one reply, for runs that need latency over time (the storm).
type sample struct {
	at  int64 // completion, ns since the run's start
	lat int64 // ns
}

// genFunc appends one request to b. Each client has its own generator state
// and random source; now is the wall clock when the batch is built.
type genFunc func(b []byte, rng *rand.Rand, now time.Time) []byte

// loadSpec describes one load-generator run.
type loadSpec struct {
	Addr     string
	Clients  int
	Pipeline int
	Warmup   time.Duration // replies before this are not counted
	Duration time.Duration // measured time after warmup
	NewGen   func(client int) genFunc
	Samples  bool          // keep every (time, latency) sample
	Stop     chan struct{} // optional: ends the run early (with Duration 0: the only end)
	Setup    []string      // optional command sent once per connection first (e.g. SELECT)
	// OnWindow, if set, is called when the measured window opens and when it
	// closes (open false), e.g. to read the server's CPU time.
	OnWindow func(open bool)
}

type loadResult struct {
	Ops      uint64
	Errors   uint64
	FirstErr string
	Elapsed  time.Duration
	Hist     hist
	Samples  [][]sample // per client, in time order
	Start    time.Time  // t=0 of the samples
}

func (r *loadResult) OpsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// runLoad runs spec's clients in closed loops: each writes a batch of
// Pipeline requests, then reads their replies, timing each reply from the
// batch's write (as redis-benchmark does).
func runLoad(spec loadSpec) (*loadResult, error) {
	conns := make([]*conn, spec.Clients)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		c, err := dial(spec.Addr)
		if err != nil {
			return nil, err
		}
		conns[i] = c
		if len(spec.Setup) > 0 {
			r, err := c.Do(spec.Setup...)
			if err == nil {
				err = r.err()
			}
			if err != nil {
				return nil, fmt.Errorf("%v: %w", spec.Setup, err)
			}
		}
	}
	type clientOut struct {
		h       hist
		ops     uint64
		errs    uint64
		first   string
		samples []sample
		err     error
	}
	outs := make([]clientOut, spec.Clients)
	start := time.Now()
	measureFrom := start.Add(spec.Warmup)
	var measureTo time.Time
	if spec.Duration > 0 {
		measureTo = measureFrom.Add(spec.Duration)
	}
	stopped := func() bool {
		if spec.Stop == nil {
			return false
		}
		select {
		case <-spec.Stop:
			return true
		default:
			return false
		}
	}
	// The first client to see the window open (close) reports it, so the
	// callbacks run in time even when every core is busy.
	var openOnce, closeOnce sync.Once
	window := func(now time.Time) {
		if spec.OnWindow == nil {
			return
		}
		if !now.Before(measureFrom) {
			openOnce.Do(func() { spec.OnWindow(true) })
		}
		if !measureTo.IsZero() && !now.Before(measureTo) {
			closeOnce.Do(func() { spec.OnWindow(false) })
		}
	}
	var stopAt time.Time // set when Stop closes, for Elapsed
	var stopMu sync.Mutex
	var wg sync.WaitGroup
	for ci := range conns {
		wg.Add(1)
		go func(ci int) {
			defer wg.Done()
			c, out := conns[ci], &outs[ci]
			gen := spec.NewGen(ci)
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(ci)))
			buf := make([]byte, 0, 4096)
			if spec.Samples {
				out.samples = make([]sample, 0, 1<<16)
			}
			for {
				now := time.Now()
				window(now)
				if !measureTo.IsZero() && !now.Before(measureTo) {
					return
				}
				if stopped() {
					stopMu.Lock()
					if stopAt.IsZero() {
						stopAt = now
					}
					stopMu.Unlock()
					return
				}
				buf = buf[:0]
				for i := 0; i < spec.Pipeline; i++ {
					buf = gen(buf, rng, now)
				}
				sent := time.Now()
				c.nc.SetDeadline(sent.Add(30 * time.Second))
				if _, err := c.nc.Write(buf); err != nil {
					out.err = err
					return
				}
				for i := 0; i < spec.Pipeline; i++ {
					isErr, msg, err := c.skip()
					if err != nil {
						out.err = err
						return
					}
					done := time.Now()
					if done.Before(measureFrom) || (!measureTo.IsZero() && done.After(measureTo)) {
						continue
					}
					lat := done.Sub(sent).Nanoseconds()
					out.ops++
					out.h.add(lat)
					if spec.Samples {
						out.samples = append(out.samples, sample{at: done.Sub(start).Nanoseconds(), lat: lat})
					}
					if isErr {
						out.errs++
						if out.first == "" {
							out.first = msg
						}
					}
				}
			}
		}(ci)
	}
	wg.Wait()
	res := &loadResult{Start: start}
	end := measureTo
	if end.IsZero() || (!stopAt.IsZero() && stopAt.Before(end)) {
		end = stopAt
	}
	if end.IsZero() {
		end = time.Now()
	}
	res.Elapsed = end.Sub(measureFrom)
	for i := range outs {
		o := &outs[i]
		if o.err != nil {
			return nil, fmt.Errorf("client %d: %w", i, o.err)
		}
		res.Ops += o.ops
		res.Errors += o.errs
		if res.FirstErr == "" {
			res.FirstErr = o.first
		}
		res.Hist.merge(&o.h)
		if spec.Samples {
			res.Samples = append(res.Samples, o.samples)
		}
	}
	return res, nil
}

// windowStats are latency figures for the samples completed in [from, to).
type windowStats struct {
	N        int
	P50, P99 time.Duration
	Max      time.Duration
	OpsPerS  float64
}

func statsBetween(res *loadResult, from, to time.Time) windowStats {
	f, t := from.Sub(res.Start).Nanoseconds(), to.Sub(res.Start).Nanoseconds()
	var lats []int64
	for _, ss := range res.Samples {
		i := sort.Search(len(ss), func(i int) bool { return ss[i].at >= f })
		for ; i < len(ss) && ss[i].at < t; i++ {
			lats = append(lats, ss[i].lat)
		}
	}
	w := windowStats{N: len(lats)}
	if len(lats) == 0 {
		return w
	}
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	q := func(p float64) time.Duration { return time.Duration(lats[min(len(lats)-1, int(p*float64(len(lats))))]) }
	w.P50, w.P99, w.Max = q(0.50), q(0.99), time.Duration(lats[len(lats)-1])
	w.OpsPerS = float64(len(lats)) / to.Sub(from).Seconds()
	return w
}
