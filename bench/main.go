// Command bench runs limitkv and Redis side by side on this machine and
// prints one markdown table: throughput, latency and memory for the same
// workloads, alternating servers round by round, plus the project's targets
// as PASS/FAIL.
//
//	go run ./bench              # full run, about 9 minutes on 2 cores
//	go run ./bench -quick       # about 1.5 minutes, smaller data, 1 round
//	go run ./bench -out bench/results.md -profile /tmp/prof
//
// The PING rows also run on bench/floor, a no-op event-loop server: the
// floor this machine allows. Every server listens on 127.0.0.1 on a free
// port and is stopped by pid when the run ends, fails or is interrupted.
// See bench/README.md.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

type config struct {
	quick      bool
	out        string
	rounds     int
	dur        time.Duration
	warmup     time.Duration
	clients    int
	seedUsers  int
	memUsers   int
	settle     time.Duration
	stormKeys  int
	stormLead  time.Duration
	stormWatch time.Duration
	only       map[int]bool
	profileDir string
	nice       int
	users      int    // -users: overrides the user/key count of workloads 4 and 5
	noRedis    bool   // -limitkv-only: skip Redis in workloads 4 and 5 (iteration, not a report)
	serverCPUs string // -server-cpus as given
	limitKeys  int    // -limit-keys: keys per limiter of workload 13 (GCRA, sliding counter)
	logKeys    int    // -log-keys: keys of workload 13's sliding log (500 entries each)
}

func main() {
	os.Exit(run())
}

func run() int {
	cfg := &config{}
	var only, ports string
	flag.BoolVar(&cfg.quick, "quick", false, "short run for iteration: 1 round, 1 s runs, 200k users/keys for workloads 4 and 5")
	flag.StringVar(&cfg.out, "out", "", "also write the report (markdown) to this file")
	flag.IntVar(&cfg.rounds, "rounds", 0, "rounds per workload, median reported (default 3, quick 1)")
	flag.DurationVar(&cfg.dur, "dur", 0, "measured time per run (default 2s, quick 1s)")
	flag.IntVar(&cfg.clients, "clients", 50, "concurrent clients")
	flag.StringVar(&ports, "ports", "", "lo-hi: take server ports from this range (default: the kernel picks)")
	flag.StringVar(&only, "only", "1,2,3,4,5", "workloads to run, comma separated (1 PING, 2 sorted sets, 3 seed, 4 memory, 5 expiry storm, 6 BGSAVE under load, 7 Pub/Sub load, 8 eviction under a write flood, 9 replication cost, 10 streams XADD/XREADGROUP, 11 stream bytes per entry, 12 limiters vs their Lua twins, 13 limiter memory per key; 6 to 13 run only when named)")
	flag.StringVar(&cfg.profileDir, "profile", "", "directory for limitkv CPU profiles of workloads 1-3 (extra, unmeasured runs) and a heap profile after workload 4")
	flag.IntVar(&cfg.nice, "nice", 0, "run the harness, its servers and redis-benchmark at this nice value (e.g. -10, needs root) so that other processes on a shared machine disturb less")
	flag.IntVar(&cfg.users, "users", 0, "users (workload 4) and keys (workload 5), overriding the default")
	flag.BoolVar(&cfg.noRedis, "limitkv-only", false, "run workloads 4 and 5 on limitkv only, for quick iteration (the report then has no ratio)")
	flag.IntVar(&cfg.limitKeys, "limit-keys", 0, "workload 13: keys per O(1) limiter (GCRA, sliding-window counter) (default 1000000, quick 100000)")
	flag.IntVar(&cfg.logKeys, "log-keys", 0, "workload 13: keys of the sliding log, 500 entries each (default 50000, quick 2000; 1M would need about 65 GB in Redis)")
	flag.StringVar(&cfg.serverCPUs, "server-cpus", "", "pin the servers (limitkv, redis-server, floor; not the load generators) with taskset: a count N takes the first N CPUs the harness may use, a list (0,1 or 1-1) names them")
	flag.Parse()
	cfg.seedUsers = 100_000
	if cfg.quick {
		cfg.rounds = orInt(cfg.rounds, 1)
		cfg.dur = orDur(cfg.dur, time.Second)
		cfg.warmup = 200 * time.Millisecond
		cfg.memUsers, cfg.stormKeys = 200_000, 200_000
		cfg.settle, cfg.stormLead, cfg.stormWatch = 2*time.Second, 6*time.Second, 10*time.Second
		cfg.limitKeys, cfg.logKeys = orInt(cfg.limitKeys, 100_000), orInt(cfg.logKeys, 2_000)
	} else {
		cfg.rounds = orInt(cfg.rounds, 3)
		cfg.dur = orDur(cfg.dur, 2*time.Second)
		cfg.warmup = 300 * time.Millisecond
		cfg.memUsers, cfg.stormKeys = 1_000_000, 1_000_000
		cfg.settle, cfg.stormLead, cfg.stormWatch = 5*time.Second, 12*time.Second, 20*time.Second
		cfg.limitKeys, cfg.logKeys = orInt(cfg.limitKeys, 1_000_000), orInt(cfg.logKeys, 50_000)
	}
	if cfg.users > 0 {
		cfg.memUsers, cfg.stormKeys = cfg.users, cfg.users
	}
	if ports != "" {
		lo, hi, _ := strings.Cut(ports, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 1 || b < a || b > 65535 {
			fmt.Fprintf(os.Stderr, "bench: -ports: want lo-hi, got %q\n", ports)
			return 2
		}
		portRange = [2]int{a, b}
	}
	o, err := parseOnly(only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: -only:", err)
		return 2
	}
	cfg.only = o

	var cpusOf string
	if cfg.serverCPUs != "" {
		list, of, err := resolveServerCPUs(cfg.serverCPUs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: -server-cpus:", err)
			return 2
		}
		serverCPUs, cpusOf = list, of
	}
	if cfg.nice != 0 {
		if err := reniceSelf(cfg.nice); err != nil {
			fmt.Fprintln(os.Stderr, "bench: -nice:", err)
			return 2
		}
	}
	tmp, err := os.MkdirTemp("", "limitkv-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	var once sync.Once
	cleanup := func() {
		once.Do(func() {
			stopAllChildren()
			os.RemoveAll(tmp)
		})
	}
	defer cleanup()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	var interrupted atomic.Bool
	go func() {
		s := <-sig
		interrupted.Store(true)
		fmt.Fprintf(os.Stderr, "\nbench: %v: stopping servers\n", s)
		cleanup()
		os.Exit(130)
	}()

	err = bench(cfg, tmp, cpusOf)
	if interrupted.Load() {
		select {} // the signal handler cleans up and exits
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	return 0
}

// maxWorkload is the highest workload number -only accepts.
const maxWorkload = 13

// parseOnly parses -only: workload numbers, comma separated.
func parseOnly(v string) (map[int]bool, error) {
	only := map[int]bool{}
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxWorkload {
			return nil, fmt.Errorf("bad workload %q (1 to %d)", f, maxWorkload)
		}
		only[n] = true
	}
	return only, nil
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func orDur(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// moduleRoot finds the limitkv module around the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/limitkv/limitkv\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the limitkv module (go run ./bench)")
		}
		dir = parent
	}
}

// env describes the machine and software for the report.
type env struct {
	Cores    int
	CPU      string
	Go       string
	Redis    string
	Limitkv  string
	Commit   string
	Date     string
	Settings string
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func bench(cfg *config, tmp, cpusOf string) error {
	start := time.Now()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if got := seedScriptSHA(); got != seedSHA {
		return fmt.Errorf("embedded seed script has SHA1 %s, want %s", got, seedSHA)
	}
	if cfg.profileDir != "" {
		if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
			return err
		}
	}
	// Found as the tests find them (internal/testredis): $LIMITKV_REDIS_SERVER,
	// then PATH, then /usr/bin.
	if redisServerBin, err = testredis.Find(); err != nil {
		return err
	}
	if redisBenchmarkBin, err = testredis.FindTool("redis-benchmark"); err != nil {
		return fmt.Errorf("%v (apt-get install redis-tools)", err)
	}
	bin := filepath.Join(tmp, "limitkv")
	logf("building limitkv")
	build := exec.Command("go", "build", "-o", bin, "./cmd/limitkv")
	build.Dir = root
	if out, err := runChild(build); err != nil {
		return fmt.Errorf("go build ./cmd/limitkv: %v\n%s", err, out)
	}
	floorBin := filepath.Join(tmp, "floor")
	if cfg.only[1] {
		logf("building bench/floor")
		build := exec.Command("go", "build", "-o", floorBin, "./bench/floor")
		build.Dir = root
		if out, err := runChild(build); err != nil {
			return fmt.Errorf("go build ./bench/floor: %v\n%s", err, out)
		}
	}
	rv, _ := runChild(exec.Command(redisServerBin, "--version"))
	commit, _ := runChild(gitCmd(root, "describe", "--always", "--dirty"))
	e := env{
		Cores:   runtime.NumCPU(),
		CPU:     cpuModel(),
		Go:      runtime.Version(),
		Redis:   strings.TrimSpace(string(rv)),
		Commit:  strings.TrimSpace(string(commit)),
		Date:    time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Limitkv: "?",
	}
	e.Settings = fmt.Sprintf("%d clients; %d round(s) per workload, median reported; %s measured per run after %s warm-up; seed workload over %d users",
		cfg.clients, cfg.rounds, cfg.dur, cfg.warmup, cfg.seedUsers)
	if cfg.quick {
		e.Settings += "; -quick"
	}
	if cfg.nice != 0 {
		e.Settings += fmt.Sprintf("; harness and servers at nice %d", cfg.nice)
	}
	if serverCPUs != "" {
		n := len(strings.Split(serverCPUs, ","))
		e.Settings += fmt.Sprintf("; servers (limitkv, redis-server, floor) pinned to %d CPU(s), %s of %s (taskset -c %s), load generators unpinned",
			n, serverCPUs, cpusOf, serverCPUs)
	} else {
		e.Settings += "; servers unpinned"
	}
	rep := &report{cfg: cfg, env: e}
	if busy := busyProcesses(time.Second, 0.05); len(busy) > 0 {
		rep.noise = busy
		logf("WARNING: other processes are using CPU, figures will be off: %s", strings.Join(busy, "; "))
	}

	if cfg.only[1] || cfg.only[2] || cfg.only[3] || cfg.only[10] || cfg.only[12] {
		l, err := startServer("limitkv", bin, tmp, cfg.profileDir != "")
		if err != nil {
			return err
		}
		defer l.Stop()
		r, err := startServer("redis", "", tmp, false)
		if err != nil {
			return err
		}
		defer r.Stop()
		servers := map[string]*server{"limitkv": l, "redis": r}
		if cfg.only[1] {
			f, err := startServer("floor", floorBin, tmp, false)
			if err != nil {
				return err
			}
			defer f.Stop()
			servers["floor"] = f
			logf("floor pid %d on %s", f.Pid(), f.Addr)
		}
		rep.env.Limitkv = l.Info("server", "limitkv_version") + " (reports redis_version " + l.Info("server", "redis_version") + ")"
		logf("limitkv %s pid %d on %s; %s pid %d on %s", rep.env.Limitkv, l.Pid(), l.Addr, rep.env.Redis, r.Pid(), r.Addr)
		var rows []row
		for _, rw := range buildRows(cfg) {
			if cfg.only[rw.Group] {
				rows = append(rows, rw)
			}
		}
		run := &runner{cfg: cfg, servers: servers,
			results: map[string][]measurement{}, na: map[string]string{}, rbN: map[string]int{}, logf: logf}
		if err := run.run(rows); err != nil {
			return err
		}
		rep.rows, rep.run = rows, run
		if cfg.profileDir != "" {
			rep.profiles = profileRows(cfg, run, l, bin, rows)
		}
		for _, s := range servers {
			s.Stop()
		}
	}
	if cfg.only[4] {
		logf("workload 4: memory, %d users x 5 requests", cfg.memUsers)
		rep.mem = append(rep.mem, runMemory(cfg, "limitkv", bin, tmp, seedRLCheck))
		logf("  limitkv: %s", rep.mem[len(rep.mem)-1].summary())
		if !cfg.noRedis {
			rep.mem = append(rep.mem, runMemory(cfg, "redis", "", tmp, seedEvalSHA))
			logf("  redis: %s", rep.mem[len(rep.mem)-1].summary())
		}
	}
	if cfg.only[5] {
		logf("workload 5: expiry storm, %d keys", cfg.stormKeys)
		rep.storm = append(rep.storm, runStorm(cfg, "limitkv", bin, tmp, seedRLCheck))
		logf("  limitkv: %s", rep.storm[len(rep.storm)-1].summary())
		if !cfg.noRedis {
			rep.storm = append(rep.storm, runStorm(cfg, "redis", "", tmp, seedEvalSHA))
			logf("  redis: %s", rep.storm[len(rep.storm)-1].summary())
		}
	}
	if cfg.only[6] {
		logf("workload 6: BGSAVE of %d users under the seed load", cfg.memUsers)
		rep.bgsave = append(rep.bgsave, runBgsave(cfg, "limitkv", bin, tmp, seedRLCheck))
		logf("  limitkv: %s", rep.bgsave[len(rep.bgsave)-1].summary())
		if !cfg.noRedis {
			rep.bgsave = append(rep.bgsave, runBgsave(cfg, "redis", "", tmp, seedEvalSHA))
			logf("  redis: %s", rep.bgsave[len(rep.bgsave)-1].summary())
		}
	}
	if cfg.only[7] {
		logf("workload 7: Pub/Sub load, %d subscribers on %d patterns", psPatterns*psPerPattern, psPatterns)
		rep.pubsub = append(rep.pubsub, runPubSub(cfg, "limitkv", bin, tmp, seedRLCheck))
		logf("  limitkv: %s", rep.pubsub[len(rep.pubsub)-1].summary())
		if !cfg.noRedis {
			rep.pubsub = append(rep.pubsub, runPubSub(cfg, "redis", "", tmp, seedEvalSHA))
			logf("  redis: %s", rep.pubsub[len(rep.pubsub)-1].summary())
		}
	}
	if cfg.only[8] {
		logf("workload 8: eviction under a write flood")
		for _, name := range []string{"limitkv", "redis"} {
			if name == "redis" && cfg.noRedis {
				continue
			}
			for _, limit := range []int64{evictLimit, 0} {
				rep.evict = append(rep.evict, runEvictFlood(cfg, name, bin, tmp, limit))
				logf("  %s maxmemory %d: %s", name, limit, rep.evict[len(rep.evict)-1].summary())
			}
		}
	}
	if cfg.only[9] {
		logf("workload 9: replication cost, the redis-benchmark seed check on a master with 0, 1 and 2 replicas")
		rep.repl = runReplication(cfg, bin, tmp)
	}
	if cfg.only[11] {
		logf("workload 11: stream bytes per entry, %d entries per shape", cfg.memUsers)
		for _, sh := range streamShapes(cfg.memUsers) {
			for _, name := range []string{"limitkv", "redis"} {
				if name == "redis" && cfg.noRedis {
					continue
				}
				rep.xmem = append(rep.xmem, runStreamMemory(cfg, name, bin, tmp, sh))
				logf("  %s %s: %s", name, sh, rep.xmem[len(rep.xmem)-1].summary())
			}
		}
	}
	if cfg.only[13] {
		logf("workload 13: limiter memory, %d keys (sliding log %d keys) x %d requests at %d per hour", cfg.limitKeys, cfg.logKeys, limMemRequests, limMemLimit)
		for _, alg := range limMemAlgorithms {
			for _, name := range []string{"limitkv", "redis"} {
				if name == "redis" && cfg.noRedis {
					continue
				}
				rep.lmem = append(rep.lmem, runLimiterMemory(cfg, name, bin, tmp, alg))
				logf("  %s %s: %s", name, alg.Name, rep.lmem[len(rep.lmem)-1].summary())
			}
		}
	}
	if busy := busyProcesses(time.Second, 0.05); len(busy) > 0 {
		rep.noise = append(rep.noise, "at the end: "+strings.Join(busy, "; "))
		logf("WARNING: other processes are using CPU: %s", strings.Join(busy, "; "))
	}
	rep.elapsed = time.Since(start)
	md := rep.markdown()
	fmt.Print(md)
	if cfg.out != "" {
		if err := os.WriteFile(cfg.out, []byte(md), 0o644); err != nil {
			return err
		}
		logf("wrote %s", cfg.out)
	}
	return nil
}

// gitCmd is a read-only git query for the report.
func gitCmd(root string, args ...string) *exec.Cmd {
	c := exec.Command("git", args...)
	c.Dir = root
	return c
}

// profileRows re-runs each limitkv workload once with a CPU profile (these
// runs are not in the table) and writes pprof's top functions beside it.
func profileRows(cfg *config, run *runner, l *server, bin string, rows []row) []profileSummary {
	var sums []profileSummary
	seen := map[string]bool{}
	for _, rw := range rows {
		sp := rw.L
		if seen[sp.ID] {
			continue
		}
		seen[sp.ID] = true
		if _, na := run.na[key("limitkv", sp)]; na {
			continue
		}
		path := filepath.Join(cfg.profileDir, sp.ID+".cpu.pprof")
		logf("profiling limitkv %s", sp.ID)
		if _, err := run.runOne(l, sp, path); err != nil {
			logf("  %v", err)
			continue
		}
		if err := pprofTop(bin, path, path+".top.txt"); err != nil {
			logf("  pprof -top: %v", err)
		}
		ps, err := summarizeProfile(bin, path, sp.ID)
		if err != nil {
			logf("  pprof summary: %v", err)
			continue
		}
		sums = append(sums, ps)
	}
	return sums
}
