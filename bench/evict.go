package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Workload 8: eviction under a write flood. A fresh server with
// maxmemory 100mb and allkeys-lru; redis-benchmark SETs 512-byte values to
// random keys (drawn from 100M, so nearly every write is a new key) from 50
// clients until far more than the limit has been written. Meanwhile INFO
// memory, INFO stats and VmRSS are read every 100 ms. What a user wants to
// know: does used_memory stay at the limit, do writes keep being accepted,
// and what does evicting cost in latency. A second run of the same flood
// without a limit (noeviction, nothing evicted) is the baseline for the
// latency.

const (
	evictLimit    = 100 << 20
	evictPolicy   = "allkeys-lru"
	evictValue    = 512
	evictRange    = 100_000_000
	evictClients  = 50
	evictRequests = 1_000_000 // about 5x the limit in values alone
)

type evictResult struct {
	Server   string
	Limit    int64 // maxmemory; 0 for the baseline
	Requests int
	RB       rbResult
	// used_memory from the first sample at 95% of the limit to the end of
	// the flood: median and maximum, and the share of samples above the
	// limit by more than 5%.
	UsedMedian, UsedMax int64
	OverShare           float64
	Samples             int
	ReachedAfter        time.Duration // from the flood's start to the first sample at 95% of the limit
	EndUsed             int64
	PeakRSS             int64
	Keys                int64
	Evicted             int64
	Err                 string
}

func runEvictFlood(cfg *config, name, bin, dir string, limit int64) (res evictResult) {
	res = evictResult{Server: name, Limit: limit, Requests: evictRequests}
	if cfg.quick {
		res.Requests = evictRequests / 4
	}
	fail := func(err error) evictResult { res.Err = err.Error(); return res }
	s, err := startServer(name, bin, dir, false)
	if err != nil {
		return fail(err)
	}
	defer s.Stop()
	if limit > 0 {
		for _, kv := range [][2]string{{"maxmemory-policy", evictPolicy}, {"maxmemory", strconv.FormatInt(limit, 10)}} {
			if r, err := s.Do("CONFIG", "SET", kv[0], kv[1]); err != nil || r.kind != '+' {
				return fail(fmt.Errorf("CONFIG SET %s %s: %v %q", kv[0], kv[1], err, r.str))
			}
		}
	}
	c, err := dial(s.Addr)
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	type sample struct {
		at   time.Duration
		used int64
	}
	var (
		mu      sync.Mutex
		samples []sample
		peakRSS int64
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			r, err := c.Do("INFO", "memory")
			if err != nil {
				continue
			}
			used, _ := strconv.ParseInt(infoField(r.str, "used_memory"), 10, 64)
			rss := s.RSS()
			mu.Lock()
			samples = append(samples, sample{time.Since(start), used})
			peakRSS = max(peakRSS, rss)
			mu.Unlock()
		}
	}()
	res.RB, err = runRedisBenchmark(s.Addr, evictClients, 1, res.Requests, evictRange,
		[]string{"-t", "set", "-d", strconv.Itoa(evictValue)})
	close(stop)
	<-done
	if err != nil {
		return fail(err)
	}
	res.PeakRSS = peakRSS
	res.EndUsed = s.UsedMemory()
	res.Keys, _ = s.DBSize()
	res.Evicted, _ = strconv.ParseInt(s.Info("stats", "evicted_keys"), 10, 64)
	if limit == 0 {
		return res
	}
	var used []int64
	for _, sm := range samples {
		if len(used) == 0 && sm.used < limit/100*95 {
			continue
		}
		if len(used) == 0 {
			res.ReachedAfter = sm.at
		}
		used = append(used, sm.used)
		if sm.used > limit+limit/20 {
			res.OverShare++
		}
	}
	res.Samples = len(used)
	if len(used) > 0 {
		res.OverShare /= float64(len(used))
		slices.Sort(used)
		res.UsedMedian, res.UsedMax = used[len(used)/2], used[len(used)-1]
	}
	return res
}

func (r evictResult) summary() string {
	if r.Err != "" {
		return "error: " + r.Err
	}
	return fmt.Sprintf("%.0f SET/s, p99 %.2f ms, used_memory median %s max %s MB, %d keys, %d evicted",
		r.RB.RPS, ms(r.RB.P99), fmtMB(r.UsedMedian), fmtMB(r.UsedMax), r.Keys, r.Evicted)
}

func evictMarkdown(results []evictResult) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Workload 8: eviction under a write flood: redis-benchmark SET of %d-byte values to random keys (-r %d), %d clients, P1; maxmemory %s %s, and the same flood without a limit\n\n",
		evictValue, evictRange, evictClients, fmtMB(evictLimit)+" MB", evictPolicy)
	p("| server | maxmemory | requests | SET/s | p50 ms | p99 ms | max ms | used_memory median / max MB (from 95%% of the limit) | samples over limit +5%% | limit reached after s | keys at end | evicted | peak RSS MB |\n")
	p("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range results {
		lim := "none"
		if r.Limit > 0 {
			lim = fmtMB(r.Limit) + " MB"
		}
		if r.Err != "" {
			p("| %s | %s | error: %s |\n", r.Server, lim, r.Err)
			continue
		}
		used, over, reached := "n/a", "n/a", "n/a"
		if r.Limit > 0 && r.Samples > 0 {
			used = fmtMB(r.UsedMedian) + " / " + fmtMB(r.UsedMax)
			over = fmt.Sprintf("%.0f%% of %d", 100*r.OverShare, r.Samples)
			reached = fmt.Sprintf("%.1f", r.ReachedAfter.Seconds())
		}
		p("| %s | %s | %d | %.0f | %.2f | %.2f | %.2f | %s | %s | %s | %d | %d | %s |\n", r.Server, lim, r.Requests,
			r.RB.RPS, ms(r.RB.P50), ms(r.RB.P99), ms(r.RB.Max), used, over, reached, r.Keys, r.Evicted, fmtMB(r.PeakRSS))
	}
	p("\n")
	return b.String()
}
