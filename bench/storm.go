package main

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// stormPoint is one reading of the monitor.
type stormPoint struct {
	At   time.Time
	RSS  int64
	Keys int64 // DBSIZE
}

// stormResult is workload 5 on one server.
type stormResult struct {
	Server       string
	Kind         seedKind
	Keys         int
	Deadline     time.Time     // the first storm key's deadline; all fall in [Deadline, Deadline+1s)
	LoadTime     time.Duration // loading the storm keys
	LoadMargin   time.Duration // Deadline - end of loading
	BaseKeys     int64
	BaseRSS      int64
	PeakRSS      int64
	Before       windowStats   // seed-workload latency in [Deadline-1s, Deadline)
	During       windowStats   // in [Deadline, keys gone] (at least 1 s)
	GoneAfter    time.Duration // from Deadline until <=1% of the storm keys are left; -1: not within the watch
	RSSBackAfter time.Duration // from Deadline until RSS <= 1.1 x BaseRSS; -1: not within the watch
	Points       []stormPoint
	Others       float64 // cores other processes used from the load's start to the end
	// The allocator's allocated/resident bytes (INFO) before the storm
	// keys are loaded and at the end, to tell live data from retained pages.
	BaseAlloc, BaseResident, EndAlloc, EndResident int64
	Err                                            string
}

// runStorm: a fresh server, cfg.seedUsers users preloaded, 50 clients
// running the seed workload; then cfg.stormKeys keys set with PX so that all
// expire within one second a few seconds ahead. The monitor reads DBSIZE and
// RSS every 100 ms.
func runStorm(cfg *config, name, bin, dir string, kind seedKind) (res stormResult) {
	res = stormResult{Server: name, Kind: kind, Keys: cfg.stormKeys, GoneAfter: -1, RSSBackAfter: -1}
	fail := func(err error) stormResult { res.Err = err.Error(); return res }
	s, err := startServer(name, bin, dir, cfg.profileDir != "" && name == "limitkv")
	if err != nil {
		return fail(err)
	}
	defer s.Stop()
	if kind == seedEvalSHA {
		if _, err := loadSeedScript(s); err != nil {
			return fail(fmt.Errorf("SCRIPT LOAD: %w", err))
		}
	}
	if err := preloadUsers(s, kind, cfg.seedUsers); err != nil {
		return fail(fmt.Errorf("preloading users: %w", err))
	}

	res.BaseAlloc, _, res.BaseResident = allocatorFigures(s)
	snap0 := snapCPU()
	stop := make(chan struct{})
	var loadRes *loadResult
	var loadErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		loadRes, loadErr = runLoad(loadSpec{Addr: s.Addr, Clients: cfg.clients, Pipeline: 1,
			NewGen: seedGen(kind, seedSHA, cfg.seedUsers), Samples: true, Stop: stop})
	}()
	stopLoad := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}
	defer stopLoad()

	mon, err := dial(s.Addr)
	if err != nil {
		return fail(err)
	}
	defer mon.Close()
	var points []stormPoint
	read := func() error {
		n, err := mon.Int("DBSIZE")
		if err != nil {
			return err
		}
		points = append(points, stormPoint{At: time.Now(), RSS: s.RSS(), Keys: n})
		return nil
	}
	// Monitor in the foreground between steps; the loader runs meanwhile.
	watchUntil := func(t time.Time, done func() bool) error {
		for time.Now().Before(t) {
			if err := read(); err != nil {
				return err
			}
			if done != nil && done() {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return nil
	}
	if err := watchUntil(time.Now().Add(2*time.Second), nil); err != nil {
		return fail(err)
	}
	last := points[len(points)-1]
	res.BaseKeys, res.BaseRSS = last.Keys, last.RSS

	res.Deadline = time.Now().Add(cfg.stormLead).Truncate(time.Second).Add(time.Second)
	dl := res.Deadline.UnixMilli()
	k := cfg.stormKeys
	loadDone := make(chan error, 1)
	loadStart := time.Now()
	go func() {
		bad, first, err := bulkLoad(s.Addr, 2, 1000, k, func(b []byte, i int, now time.Time) []byte {
			px := dl + int64(i)*1000/int64(k) - now.UnixMilli()
			b = appendArrayHeader(b, 5)
			b = appendBulkString(b, "SET")
			b = appendBulkString(b, "storm:"+strconv.Itoa(i))
			b = appendBulkString(b, "x")
			b = appendBulkString(b, "PX")
			return appendBulkInt(b, max(px, 1))
		}, nil)
		if err == nil && bad > 0 {
			err = fmt.Errorf("%d bad SET replies, first: %s", bad, first)
		}
		res.LoadTime = time.Since(loadStart)
		loadDone <- err
	}()
	// Keep reading while loading.
	var lerr error
	for loading := true; loading; {
		select {
		case lerr = <-loadDone:
			loading = false
		case <-time.After(100 * time.Millisecond):
			if err := read(); err != nil {
				return fail(err)
			}
		}
	}
	if lerr != nil {
		return fail(fmt.Errorf("loading storm keys: %w", lerr))
	}
	res.LoadMargin = res.Deadline.Sub(loadStart.Add(res.LoadTime))

	gone := func() bool {
		p := points[len(points)-1]
		return p.At.After(res.Deadline) && p.Keys-res.BaseKeys <= int64(k/100)
	}
	back := func() bool {
		p := points[len(points)-1]
		return p.At.After(res.Deadline) && p.RSS <= res.BaseRSS*11/10
	}
	end := res.Deadline.Add(cfg.stormWatch)
	if err := watchUntil(end, func() bool {
		return gone() && back() && time.Since(res.Deadline) > 2*time.Second
	}); err != nil {
		return fail(err)
	}
	res.Others = othersShare(snap0, snapCPU())
	stopLoad()
	res.EndAlloc, _, res.EndResident = allocatorFigures(s)
	if cfg.profileDir != "" && s.Pprof != "" {
		path := cfg.profileDir + "/storm-heap.pprof"
		if err := fetchPprof(s, "heap", path); err == nil {
			pprofTop(bin, path, path+".top.txt", "-sample_index=inuse_space")
		}
	}
	if loadErr != nil {
		return fail(fmt.Errorf("seed load: %w", loadErr))
	}
	res.Points = points
	for _, p := range points {
		res.PeakRSS = max(res.PeakRSS, p.RSS)
		if !p.At.After(res.Deadline) {
			continue
		}
		if res.GoneAfter < 0 && p.Keys-res.BaseKeys <= int64(k/100) {
			res.GoneAfter = p.At.Sub(res.Deadline)
		}
		if res.RSSBackAfter < 0 && p.RSS <= res.BaseRSS*11/10 {
			res.RSSBackAfter = p.At.Sub(res.Deadline)
		}
	}
	res.Before = statsBetween(loadRes, res.Deadline.Add(-time.Second), res.Deadline)
	duringEnd := res.Deadline.Add(max(time.Second, res.GoneAfter))
	if res.GoneAfter < 0 {
		duringEnd = points[len(points)-1].At
	}
	res.During = statsBetween(loadRes, res.Deadline, duringEnd)
	if loadRes.Errors > 0 {
		res.Err = fmt.Sprintf("%d seed replies were errors, first: %q", loadRes.Errors, loadRes.FirstErr)
	}
	return res
}
