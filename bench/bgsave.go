package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// bgsaveResult is workload 6 on one server: BGSAVE of cfg.memUsers seed
// users while 50 clients run the seed check.
type bgsaveResult struct {
	Server    string
	Users     int
	EmptyRSS  int64
	BaseRSS   int64 // after loading, before the save
	PeakRSS   int64 // the server process's highest RSS during the save
	COWPeak   int64 // Redis: the child's copy-on-write peak (INFO current_cow_peak); 0 for limitkv
	Before    windowStats
	During    windowStats
	SaveTime  time.Duration // BGSAVE sent until rdb_bgsave_in_progress:0
	Reply     time.Duration // BGSAVE's own reply time
	FileBytes string
	Status    string
	Others    float64
	Err       string
}

func (b bgsaveResult) summary() string {
	if b.Err != "" {
		return "error: " + b.Err
	}
	return fmt.Sprintf("p99 before %.2f ms, during %.2f ms (%.2fx); save %.1f s; extra memory %.0f MB (%.2fx the dataset's %.0f MB; RSS empty %.0f, before %.0f, peak %.0f MB)",
		ms(b.Before.P99), ms(b.During.P99), b.ratio(), b.SaveTime.Seconds(), mb(b.extra()), b.extraRatio(), mb(b.BaseRSS-b.EmptyRSS),
		mb(b.EmptyRSS), mb(b.BaseRSS), mb(b.PeakRSS))
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
func mb(n int64) float64         { return float64(n) / (1 << 20) }

func (b bgsaveResult) ratio() float64 {
	if b.Before.P99 == 0 {
		return 0
	}
	return float64(b.During.P99) / float64(b.Before.P99)
}

// extra is the memory the save cost: the server's RSS growth plus, for
// Redis, the child's copy-on-write pages.
func (b bgsaveResult) extra() int64 { return max(b.PeakRSS-b.BaseRSS, 0) + b.COWPeak }

func (b bgsaveResult) extraRatio() float64 {
	if b.BaseRSS <= b.EmptyRSS {
		return 0
	}
	return float64(b.extra()) / float64(b.BaseRSS-b.EmptyRSS)
}

// runBgsave: a fresh server, cfg.memUsers users preloaded at their limit
// (5-member sorted sets with a TTL, workload 4's data), 50 clients
// running the seed check (P1) on the first cfg.seedUsers of them; 3 s in,
// BGSAVE; INFO persistence and RSS every 20 ms until it is done, then 1 s
// more. "Before" is the 2 s before BGSAVE, "during" from BGSAVE until done.
func runBgsave(cfg *config, name, bin, dir string, kind seedKind) (res bgsaveResult) {
	res = bgsaveResult{Server: name, Users: cfg.memUsers}
	fail := func(err error) bgsaveResult { res.Err = err.Error(); return res }
	// A directory of its own: the next server must not load this one's file.
	dir, err := os.MkdirTemp(dir, name+"-bgsave-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	s, err := startServer(name, bin, dir, false)
	if err != nil {
		return fail(err)
	}
	defer s.Stop()
	res.EmptyRSS = s.RSS()
	if kind == seedEvalSHA {
		if _, err := loadSeedScript(s); err != nil {
			return fail(fmt.Errorf("SCRIPT LOAD: %w", err))
		}
	}
	if err := preloadUsers(s, kind, cfg.memUsers); err != nil {
		return fail(fmt.Errorf("preloading users: %w", err))
	}
	mon, err := dial(s.Addr)
	if err != nil {
		return fail(err)
	}
	defer mon.Close()
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
	time.Sleep(3 * time.Second)
	res.BaseRSS = s.RSS()
	start := time.Now()
	r, err := mon.Do("BGSAVE")
	res.Reply = time.Since(start)
	if err != nil {
		return fail(err)
	}
	if r.str != "Background saving started" {
		return fail(fmt.Errorf("BGSAVE answered %q", r.str))
	}
	field := func(info reply, name string) string { return infoField(info.str, name) }
	for {
		res.PeakRSS = max(res.PeakRSS, s.RSS())
		info, err := mon.Do("INFO", "persistence")
		if err != nil {
			return fail(err)
		}
		cow, _ := strconv.ParseInt(field(info, "current_cow_peak"), 10, 64)
		res.COWPeak = max(res.COWPeak, cow)
		if field(info, "rdb_bgsave_in_progress") == "0" {
			res.SaveTime = time.Since(start)
			res.Status = field(info, "rdb_last_bgsave_status")
			break
		}
		if time.Since(start) > 5*time.Minute {
			return fail(fmt.Errorf("BGSAVE still running after 5 minutes"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	end := time.Now()
	time.Sleep(time.Second)
	res.Others = othersShare(snap0, snapCPU())
	stopLoad()
	if loadErr != nil {
		return fail(fmt.Errorf("seed load: %w", loadErr))
	}
	if loadRes.Errors > 0 {
		return fail(fmt.Errorf("%d seed replies were errors, first: %q", loadRes.Errors, loadRes.FirstErr))
	}
	res.Before = statsBetween(loadRes, start.Add(-2*time.Second), start)
	res.During = statsBetween(loadRes, start, end)
	if info, err := mon.Do("INFO", "persistence"); err == nil {
		res.COWPeak = max(res.COWPeak, atoi64(field(info, "rdb_last_cow_size")))
	}
	if st, err := os.Stat(filepath.Join(dir, "dump.rdb")); err == nil {
		res.FileBytes = strconv.FormatInt(st.Size(), 10)
	}
	return res
}

func atoi64(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
