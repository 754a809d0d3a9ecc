package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Workload 9: what replication costs the master (issue #15). For each
// setup (a master kind and 0, 1 or 2 replicas of a kind), round by round:
// a fresh master and fresh replicas (REPLICAOF), wait until the master
// lists every replica state=online, then the redis-benchmark seed rows of
// workload 3 (RL.CHECK on a limitkv master, EVALSHA of the seed script on
// a Redis one) at P1 and P16 against the master. Server CPU per request is
// the master's (/proc); the replicas' CPU is summed beside it. After each
// run: the replicas' lag in bytes as the master's INFO shows it
// (master_repl_offset minus slaveN's acked offset, which replicas report
// about once a second), then how long a WAIT for all replicas takes after
// a marker write (the time to catch up), then DBSIZE on master and
// replicas, which must agree.

// replSetup is one master and its replicas.
type replSetup struct {
	Master, Replica string // "limitkv" or "redis"
	N               int
}

func (s replSetup) ID() string {
	if s.N == 0 {
		return s.Master + "-0"
	}
	return fmt.Sprintf("%s-%d%s", s.Master, s.N, s.Replica)
}

func (s replSetup) replicasLabel() string {
	if s.N == 0 {
		return "none"
	}
	return fmt.Sprintf("%d %s", s.N, s.Replica)
}

// replSetups is the order of each round: at each replica count limitkv,
// then Redis, then limitkv with Redis replicas (whose master does the
// same work as with limitkv replicas: only the replica differs).
func replSetups() []replSetup {
	var ss []replSetup
	for n := 0; n <= 2; n++ {
		ss = append(ss, replSetup{"limitkv", "limitkv", n}, replSetup{"redis", "redis", n})
		if n > 0 {
			ss = append(ss, replSetup{"limitkv", "redis", n})
		}
	}
	return ss
}

// replRun is one round of one setup at one depth.
type replRun struct {
	M          measurement
	ReplicaCPU time.Duration // all replicas' CPU per request, the measured run through the catch-up
	Lag        []int64       // per replica, bytes behind when the run ended
	CatchUp    time.Duration // from the run's end until WAIT counted every replica; -1 if not within replWaitMs
	Keys       int64         // master's DBSIZE after the catch-up
	Mismatch   string        // replicas whose DBSIZE differs from the master's
}

// replWaitMs bounds the WAIT after each run.
const replWaitMs = 30000

// replCalibrate is the calibration run's requests per pipeline depth.
const replCalibrate = 2500

type replResult struct {
	Setup    replSetup
	Pipeline int
	Runs     []replRun
	Err      string
}

// median is the round with the median ops/s.
func (r replResult) median() (replRun, bool) {
	if len(r.Runs) == 0 {
		return replRun{}, false
	}
	rs := append([]replRun(nil), r.Runs...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].M.OpsPerSec < rs[j].M.OpsPerSec })
	return rs[len(rs)/2], true
}

// replSpecs are workload 3's redis-benchmark seed specs for a master kind,
// one per depth, under IDs of the setup's own so each setup calibrates its
// own request count.
func replSpecs(cfg *config, s replSetup) []*spec {
	var out []*spec
	for _, rw := range buildRows(cfg) {
		if rw.Label != labelSeedRB {
			continue
		}
		base := rw.L
		if s.Master == "redis" {
			base = rw.R
		}
		sp := *base
		sp.ID = "repl-" + s.ID() + "-" + base.ID
		sp.CountMatch = ""
		out = append(out, &sp)
	}
	return out
}

// replReport is workload 9's outcome.
type replReport struct {
	results []replResult
	retries int // runs made again for noise
}

// runReplication runs workload 9: every setup, round by round.
func runReplication(cfg *config, bin, tmp string) *replReport {
	run := &runner{cfg: cfg, servers: map[string]*server{}, results: map[string][]measurement{},
		na: map[string]string{}, rbN: map[string]int{}, logf: logf}
	setups := replSetups()
	var results []replResult
	idx := map[string]int{} // setup ID/pipeline -> results index
	for _, s := range setups {
		for _, sp := range replSpecs(cfg, s) {
			idx[s.ID()+"/"+strconv.Itoa(sp.Pipeline)] = len(results)
			results = append(results, replResult{Setup: s, Pipeline: sp.Pipeline})
		}
	}
	failed := map[string]bool{}
	for round := 0; round < cfg.rounds; round++ {
		logf("workload 9 round %d/%d", round+1, cfg.rounds)
		for _, s := range setups {
			if failed[s.ID()] {
				continue
			}
			runs, err := replRound(run, s, tmp, bin)
			for p, rr := range runs {
				i := idx[s.ID()+"/"+strconv.Itoa(p)]
				results[i].Runs = append(results[i].Runs, rr)
			}
			if err != nil {
				logf("  %-22s error: %v", s.ID(), err)
				failed[s.ID()] = true
				for _, sp := range replSpecs(cfg, s) {
					i := idx[s.ID()+"/"+strconv.Itoa(sp.Pipeline)]
					if results[i].Err == "" {
						results[i].Err = fmt.Sprintf("round %d: %v", round+1, err)
					}
				}
			}
		}
	}
	return &replReport{results: results, retries: run.noisyRetries}
}

// replRound starts setup s afresh, measures both depths and stops it.
func replRound(run *runner, s replSetup, tmp, bin string) (map[int]replRun, error) {
	dir, err := os.MkdirTemp(tmp, s.ID()+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	start := func(name, sub string) (*server, error) {
		d := filepath.Join(dir, sub)
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
		return startServer(name, bin, d, false)
	}
	master, err := start(s.Master, "master")
	if err != nil {
		return nil, err
	}
	defer master.Stop()
	if s.Master == "redis" {
		// Redis 7.0 waits 5 s for more replicas before a diskless sync.
		if r, err := master.Do("CONFIG", "SET", "repl-diskless-sync-delay", "0"); err != nil || r.err() != nil {
			return nil, fmt.Errorf("CONFIG SET repl-diskless-sync-delay 0: %v %v", err, r.err())
		}
	}
	host, port, _ := net.SplitHostPort(master.Addr)
	var replicas []*server
	for i := 0; i < s.N; i++ {
		rp, err := start(s.Replica, "replica"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		defer rp.Stop()
		replicas = append(replicas, rp)
		r, err := rp.Do("REPLICAOF", host, port)
		if err == nil {
			err = r.err()
		}
		if err != nil {
			return nil, fmt.Errorf("REPLICAOF on %s replica %d: %w", s.Replica, i, err)
		}
	}
	t0 := time.Now()
	if err := waitOnline(master, replicas, 30*time.Second); err != nil {
		return nil, err
	}
	logf("  %-22s master pid %d, %d replica(s) online after %s", s.ID(), master.Pid(), s.N, time.Since(t0).Round(time.Millisecond))
	runs := map[int]replRun{}
	for _, sp := range replSpecs(run.cfg, s) {
		rr, err := replMeasure(run, s, master, replicas, sp)
		if err != nil {
			return runs, fmt.Errorf("%s: %w", sp.ID, err)
		}
		runs[sp.Pipeline] = rr
		lag := "-"
		if len(rr.Lag) > 0 {
			var ls []string
			for _, l := range rr.Lag {
				ls = append(ls, strconv.FormatInt(l, 10))
			}
			lag = strings.Join(ls, "/")
		}
		logf("  %-22s P%-2d %10.0f ops/s  p50 %s  p99 %s  master cpu/op %s µs, replicas %s µs, others %.0f%%; lag %s B, caught up %s%s",
			s.ID(), sp.Pipeline, rr.M.OpsPerSec, fmtMs(rr.M.P50), fmtMs(rr.M.P99), fmtUs(rr.M.CPUPerOp), fmtUs(rr.ReplicaCPU),
			100*rr.M.Others, lag, fmtCatchUp(rr.CatchUp, s.N), mismatchNote(rr.Mismatch))
	}
	return runs, nil
}

func mismatchNote(m string) string {
	if m == "" {
		return ""
	}
	return "; DBSIZE MISMATCH " + m
}

func fmtCatchUp(d time.Duration, n int) string {
	switch {
	case n == 0:
		return "-"
	case d < 0:
		return fmt.Sprintf("not within %d s", replWaitMs/1000)
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// replMeasure is one measured run of sp on the master: its own calibration
// the first time, the replicas caught up before it starts, the lag, the
// catch-up and the DBSIZE check after it.
func replMeasure(run *runner, s replSetup, master *server, replicas []*server, sp *spec) (replRun, error) {
	var rr replRun
	k := key(master.Name, sp)
	if run.rbN[k] == 0 {
		if err := ensureState(master, sp.State); err != nil {
			return rr, err
		}
		// Smaller than workload 3's calibration: with replicas on the
		// same cores a P16 run can be slower than 20k requests a second.
		n := replCalibrate * sp.Pipeline
		if run.cfg.quick {
			n /= 2
		}
		res, err := runRedisBenchmark(master.Addr, run.cfg.clients, sp.Pipeline, n, sp.RBRand, sp.RBArgs)
		if err != nil {
			return rr, err
		}
		run.rbN[k] = max(1, int(res.RPS*run.cfg.dur.Seconds()))
	}
	// The replicas start the measured run with nothing left to apply: the
	// calibration's data and its FLUSHALL are behind them.
	if err := ensureState(master, sp.State); err != nil {
		return rr, err
	}
	if err := caughtUp(master, len(replicas)); err != nil {
		return rr, err
	}
	replCPU := func() time.Duration {
		var t time.Duration
		for _, rp := range replicas {
			t += rp.CPUTime()
		}
		return t
	}
	cpu0 := replCPU()
	m, err := run.runOne(master, sp, "")
	for try := 1; err == nil && m.Others > maxOthers && try <= 2 && run.noisyRetries < run.maxRetries(); try++ {
		logf("  %-22s P%-2d other processes used %.0f%% of a core: waiting, then running again", s.ID(), sp.Pipeline, 100*m.Others)
		run.noisyRetries++
		time.Sleep(time.Duration(try) * 2 * time.Second)
		if err := caughtUp(master, len(replicas)); err != nil {
			return rr, err
		}
		cpu0 = replCPU()
		m, err = run.runOne(master, sp, "")
	}
	if err != nil {
		return rr, err
	}
	rr.M = m
	if len(replicas) > 0 {
		info, err := master.Do("INFO", "replication")
		if err != nil {
			return rr, err
		}
		rr.Lag, err = replicaLag(info.str, len(replicas))
		if err != nil {
			return rr, err
		}
		// The run ended just before the INFO: the WAIT's time is from then.
		t0 := time.Now()
		got, err := waitReplicas(master, len(replicas))
		if err != nil {
			return rr, err
		}
		rr.CatchUp = time.Since(t0)
		if got < int64(len(replicas)) {
			rr.CatchUp = -1
		}
		rr.ReplicaCPU = (replCPU() - cpu0) / time.Duration(max(1, m.Requests))
	}
	for _, x := range append([]*server{master}, replicas...) {
		if !x.Alive() {
			return rr, fmt.Errorf("%s (pid %d) died: %s", x.Name, x.Pid(), x.logTail())
		}
	}
	if rr.Keys, err = master.DBSize(); err != nil {
		return rr, err
	}
	var bad []string
	for i, rp := range replicas {
		n, err := rp.DBSize()
		if err != nil {
			return rr, fmt.Errorf("DBSIZE on replica %d: %w", i, err)
		}
		if n != rr.Keys {
			bad = append(bad, fmt.Sprintf("replica %d has %d keys, the master %d", i, n, rr.Keys))
		}
	}
	rr.Mismatch = strings.Join(bad, "; ")
	return rr, nil
}

// waitReplicas writes a marker on the master and WAITs for n replicas to
// acknowledge it (and so everything before it); it returns how many did
// within replWaitMs.
func waitReplicas(master *server, n int) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	c, err := dial(master.Addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	r, err := c.Do("SET", "{t}:repl:mark", "1")
	if err == nil {
		err = r.err()
	}
	if err != nil {
		return 0, fmt.Errorf("marker SET: %w", err)
	}
	c.nc.SetDeadline(time.Now().Add(replWaitMs*time.Millisecond + 10*time.Second))
	c.w = appendCmd(c.w[:0], "WAIT", strconv.Itoa(n), strconv.Itoa(replWaitMs))
	if _, err := c.nc.Write(c.w); err != nil {
		return 0, err
	}
	r, err = c.read()
	if err != nil {
		return 0, fmt.Errorf("WAIT: %w", err)
	}
	if r.kind != ':' {
		return 0, fmt.Errorf("WAIT answered %s", r.String())
	}
	return r.n, nil
}

// caughtUp is waitReplicas before a run: all n must have caught up.
func caughtUp(master *server, n int) error {
	got, err := waitReplicas(master, n)
	if err == nil && got < int64(n) {
		err = fmt.Errorf("only %d of %d replicas caught up within %d s before the run", got, n, replWaitMs/1000)
	}
	return err
}

// replicaLines are the master's INFO replication slaveN lines, parsed.
func replicaLines(info string, n int) ([]map[string]string, error) {
	var out []map[string]string
	for i := 0; i < n; i++ {
		line := infoField(info, "slave"+strconv.Itoa(i))
		if line == "" {
			return out, fmt.Errorf("INFO replication has no slave%d line", i)
		}
		m := map[string]string{}
		for _, kv := range strings.Split(line, ",") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		out = append(out, m)
	}
	return out, nil
}

// replicaLag is, per replica, master_repl_offset minus its acked offset.
func replicaLag(info string, n int) ([]int64, error) {
	moff, err := strconv.ParseInt(infoField(info, "master_repl_offset"), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("INFO replication master_repl_offset: %v", err)
	}
	lines, err := replicaLines(info, n)
	if err != nil {
		return nil, err
	}
	var lag []int64
	for i, l := range lines {
		off, err := strconv.ParseInt(l["offset"], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("slave%d offset %q", i, l["offset"])
		}
		lag = append(lag, moff-off)
	}
	return lag, nil
}

// waitOnline waits until the master lists every replica state=online and
// every replica reports master_link_status:up.
func waitOnline(master *server, replicas []*server, timeout time.Duration) error {
	if len(replicas) == 0 {
		return nil
	}
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok := false
		if r, err := master.Do("INFO", "replication"); err == nil {
			last = r.str
			lines, err := replicaLines(r.str, len(replicas))
			ok = err == nil && infoField(r.str, "connected_slaves") == strconv.Itoa(len(replicas))
			for _, l := range lines {
				ok = ok && l["state"] == "online"
			}
		}
		for _, rp := range replicas {
			ok = ok && rp.Info("replication", "master_link_status") == "up"
		}
		if ok {
			return nil
		}
		for _, x := range append([]*server{master}, replicas...) {
			if !x.Alive() {
				return fmt.Errorf("%s (pid %d) died waiting for the replicas: %s", x.Name, x.Pid(), x.logTail())
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replicas not online within %s; master's INFO replication: %q", timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// replMarkdown is workload 9's section of the report.
func replMarkdown(cfg *config, rep *replReport) string {
	results, noisyRetries := rep.results, rep.retries
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Workload 9: replication cost: the redis-benchmark seed check (-r %d, fixed now) on a fresh master with 0, 1 and 2 replicas, %d clients\n\n", seedRBKeys, cfg.clients)
	p("| master | replicas | pipeline | ops/s | ops/s vs 0 replicas | ops/s limitkv / Redis | master CPU µs/op | master CPU vs 0 replicas | master CPU limitkv / Redis | replicas' CPU µs/op | p50 ms | p99 ms | lag at end, bytes | caught up after | keys (master) | master RSS MB | ops/s of every round |\n")
	p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	find := func(master string, n, pipeline int) (replRun, bool) {
		for _, r := range results {
			if r.Setup.Master == master && r.Setup.Replica == master && r.Setup.N == n && r.Pipeline == pipeline {
				return r.median()
			}
		}
		return replRun{}, false
	}
	ratio := func(a, b float64) string {
		if a <= 0 || b <= 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	var errs, mismatches []string
	for _, pipeline := range []int{1, 16} {
		for _, r := range results {
			if r.Pipeline != pipeline {
				continue
			}
			s := r.Setup
			cmd := "RL.CHECK"
			if s.Master == "redis" {
				cmd = "EVALSHA"
			}
			if r.Err != "" {
				errs = append(errs, fmt.Sprintf("%s master, replicas %s, P%d: %s", s.Master, s.replicasLabel(), pipeline, r.Err))
			}
			m, ok := r.median()
			if !ok {
				p("| %s (%s) | %s | %d | n/a | | | | | | | | | | | | | |\n", s.Master, cmd, s.replicasLabel(), pipeline)
				continue
			}
			zero, _ := find(s.Master, 0, pipeline)
			vsZeroOps, vsZeroCPU := "-", "-"
			if s.N > 0 {
				vsZeroOps = ratio(m.M.OpsPerSec, zero.M.OpsPerSec)
				vsZeroCPU = ratio(float64(m.M.CPUPerOp), float64(zero.M.CPUPerOp))
			}
			vsRedisOps, vsRedisCPU := "-", "-"
			if s.Master == "limitkv" {
				if rd, ok := find("redis", s.N, pipeline); ok {
					vsRedisOps = ratio(m.M.OpsPerSec, rd.M.OpsPerSec)
					vsRedisCPU = ratio(float64(m.M.CPUPerOp), float64(rd.M.CPUPerOp))
				}
			}
			ops := fmtOps(m.M.OpsPerSec)
			if m.M.Others > maxOthers {
				ops += fmt.Sprintf(" (noisy: others used %.0f%% of a core)", 100*m.M.Others)
			}
			lag, repCPU := "-", "-"
			if s.N > 0 {
				var ls []string
				for _, l := range m.Lag {
					ls = append(ls, strconv.FormatInt(l, 10))
				}
				lag = strings.Join(ls, " / ")
				repCPU = fmtUs(m.ReplicaCPU)
			}
			var rounds []string
			for _, x := range r.Runs {
				rounds = append(rounds, fmtOps(x.M.OpsPerSec))
				if x.Mismatch != "" {
					mismatches = append(mismatches, fmt.Sprintf("%s master, replicas %s, P%d: %s", s.Master, s.replicasLabel(), pipeline, x.Mismatch))
				}
			}
			p("| %s (%s) | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |\n",
				s.Master, cmd, s.replicasLabel(), pipeline, ops, vsZeroOps, vsRedisOps, fmtUs(m.M.CPUPerOp), vsZeroCPU, vsRedisCPU,
				repCPU, fmtMs(m.M.P50), fmtMs(m.M.P99), lag, fmtCatchUp(m.CatchUp, s.N), m.Keys, fmtMB(m.M.RSS), strings.Join(rounds, ", "))
		}
	}
	p("\n\"vs 0 replicas\" divides by the same master kind without replicas; \"limitkv / Redis\" divides by the Redis master with as many Redis replicas. ")
	p("Lag at end: master_repl_offset minus each replica's acknowledged offset (INFO slaveN offset=) right after the run; replicas acknowledge about once a second, so up to a second of the stream shows here even for a replica that keeps up. ")
	p("Caught up after: from then until `WAIT <replicas> %d` after a marker write counted every replica. Replicas' CPU: all replicas together, from the measured run's start to the catch-up, per request. Master RSS: right after the run (before the catch-up).\n", replWaitMs)
	if noisyRetries > 0 {
		p("\n%d run(s) were made again because other processes used more than %.0f%% of a core meanwhile.\n", noisyRetries, 100*maxOthers)
	}
	if len(mismatches) > 0 {
		p("\n**DBSIZE differs between master and replica after the catch-up:**\n\n")
		for _, m := range mismatches {
			p("- %s\n", m)
		}
	}
	if len(errs) > 0 {
		p("\nErrors:\n\n")
		for _, e := range errs {
			p("- %s\n", e)
		}
	}
	p("\n")
	return b.String()
}
