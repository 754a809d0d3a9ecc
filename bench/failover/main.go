// Command failover measures how many requests a Sentinel failover
// over-admits under the seed's workload (5 requests per 60 s per user):
// users arrive over the first seconds and each asks again every interval,
// through a go-redis FailoverClient, against a master with two limitkv
// replicas watched by three Sentinels; the master is killed (kill -9) in
// the middle, a replica is promoted, and the run goes on. Every check is
// inside one window, so a user admitted more than 5 times was over-admitted:
// the admissions its old master recorded but had not yet sent to the
// promoted replica.
//
//	go run ./bench/failover                        # asynchronous replication
//	go run ./bench/failover -wait                   # WAIT 1 after each admitted check
//	go run ./bench/failover -master redis -check script   # a Redis master, the seed's script
//	go run ./bench/failover -cluster                # a cluster of 3 limitkv masters and replicas, kill -9 of one
//	go run ./bench/failover -cluster -P 16          # the same, 16 checks per pipeline
//	go run ./bench/failover -cluster -master redis  # a Redis cluster, the seed's EVALSHA
//
// With -wait a check counts as admitted only once WAIT 1 says a replica
// has it (the strict mode); one whose WAIT times out is refused. It builds
// ./cmd/limitkv (or runs -bin), listens on free loopback ports only, and
// stops every process it started by its pid. Not part of `go test ./...`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/limitkv/limitkv/ratelimit/seedscript"
	"github.com/redis/go-redis/v9"
)

var (
	bin       = flag.String("bin", "", "limitkv binary (default: build ./cmd/limitkv)")
	redisBin  = flag.String("redis-server", "redis-server", "redis-server binary (the Sentinels, and -master redis)")
	masterK   = flag.String("master", "limitkv", "the first master: limitkv or redis")
	replicaK  = flag.String("replicas", "limitkv", "the two replicas: limitkv or redis")
	check     = flag.String("check", "rlcheck", "rlcheck (RL.CHECK key * 60000 5 *) or script (the seed's EVALSHA)")
	users     = flag.Int("users", 4000, "users")
	arrive    = flag.Duration("arrive", 16*time.Second, "users arrive uniformly over this long")
	every     = flag.Duration("every", 400*time.Millisecond, "each user checks again after this long")
	killAt    = flag.Duration("kill-at", 8*time.Second, "kill -9 the master this long into the run")
	runFor    = flag.Duration("duration", 24*time.Second, "length of the run (under the 60 s window)")
	workers   = flag.Int("workers", 64, "client goroutines")
	wait      = flag.Bool("wait", false, "WAIT 1 <wait-ms> after each admitted check; admitted only if a replica acknowledged")
	waitMs    = flag.Int("wait-ms", 100, "WAIT's timeout")
	minRepl   = flag.Int("min-replicas", 0, "CONFIG SET min-replicas-to-write on the master (0: off)")
	keepLogs  = flag.Bool("keep", false, "keep the working directory (logs)")
	downAfter = flag.Int("down-after", 1000, "Sentinel down-after-milliseconds")
	how       = flag.String("how", "kill", "kill (kill -9 of the master) or sentinel-failover (SENTINEL FAILOVER, the master alive)")
)

const (
	limit    = 5
	windowMs = 60000
)

func main() {
	flag.Parse()
	redis.SetLogger(quiet{}) // the dial failures of the switch are counted, not logged
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "failover:", err)
		os.Exit(1)
	}
}

type proc struct {
	name string
	addr string
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *proc) port() string { _, port, _ := net.SplitHostPort(p.addr); return port }

func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

func run() error {
	if *clusterMode {
		return runCluster()
	}
	if *runFor >= windowMs*time.Millisecond-*arrive {
		return errors.New("-duration must leave every check in its user's first window")
	}
	work, err := os.MkdirTemp("", "limitkv-failover-")
	if err != nil {
		return err
	}
	if *keepLogs {
		fmt.Println("working directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	path := *bin
	if path == "" {
		path = filepath.Join(work, "limitkv")
		b := exec.Command("go", "build", "-o", path, "./cmd/limitkv")
		b.Stdout, b.Stderr = os.Stdout, os.Stderr
		if err := b.Run(); err != nil {
			return fmt.Errorf("building ./cmd/limitkv (run from the repository root): %w", err)
		}
	}
	var procs []*proc
	defer func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].stop()
		}
	}()
	start := func(name string, args ...string) (*proc, error) {
		port := freePort()
		dir := filepath.Join(work, name)
		os.MkdirAll(dir, 0o755)
		p := &proc{name: name, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), done: make(chan struct{})}
		args = append(args, "--port", strconv.Itoa(port))
		p.cmd = exec.Command(args[0], args[1:]...)
		p.cmd.Dir = dir
		logf, err := os.Create(filepath.Join(dir, "out.log"))
		if err != nil {
			return nil, err
		}
		p.cmd.Stdout, p.cmd.Stderr = logf, logf
		if err := p.cmd.Start(); err != nil {
			return nil, err
		}
		go func() { p.cmd.Wait(); logf.Close(); close(p.done) }()
		procs = append(procs, p)
		return p, waitPing(p)
	}
	data := func(name, kind string) (*proc, error) {
		dir := filepath.Join(work, name)
		os.MkdirAll(dir, 0o755)
		b := path
		if kind == "redis" {
			b = *redisBin
		}
		return start(name, b, "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--appendonly", "no")
	}
	master, err := data("master", *masterK)
	if err != nil {
		return err
	}
	var replicas []*proc
	for _, n := range []string{"replica1", "replica2"} {
		r, err := data(n, *replicaK)
		if err != nil {
			return err
		}
		replicas = append(replicas, r)
	}
	ctx := context.Background()
	for _, r := range replicas {
		if err := do(r.addr, "REPLICAOF", "127.0.0.1", master.port()); err != nil {
			return err
		}
	}
	if *minRepl > 0 {
		// On every node: a promoted replica keeps the rule (Sentinel
		// does not carry settings over).
		for _, p := range append([]*proc{master}, replicas...) {
			if err := do(p.addr, "CONFIG", "SET", "min-replicas-to-write", strconv.Itoa(*minRepl)); err != nil {
				return err
			}
		}
	}
	var sentinels []*proc
	for i := range 3 {
		name := fmt.Sprintf("sentinel%d", i+1)
		dir := filepath.Join(work, name)
		os.MkdirAll(dir, 0o755)
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("bind 127.0.0.1\ndir %s\nlogfile %s\nsentinel monitor mymaster 127.0.0.1 %s 2\n"+
			"sentinel down-after-milliseconds mymaster %d\nsentinel failover-timeout mymaster 5000\nsentinel parallel-syncs mymaster 2\n",
			dir, filepath.Join(dir, "sentinel.log"), master.port(), *downAfter)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return err
		}
		// The port comes last on the command line, after the file.
		s, err := start(name, *redisBin, conf, "--sentinel")
		if err != nil {
			return err
		}
		if err := do(s.addr, "SENTINEL", "DEBUG", "info-period", "250", "publish-period", "250", "ask-period", "250", "ping-period", "250"); err != nil {
			return err
		}
		sentinels = append(sentinels, s)
	}
	if err := waitFor(30*time.Second, "the Sentinels to see both replicas and each other", func() bool {
		for _, s := range sentinels {
			sc := redis.NewSentinelClient(&redis.Options{Addr: s.addr})
			m, err1 := sc.Master(ctx, "mymaster").Result()
			rs, err2 := sc.Replicas(ctx, "mymaster").Result()
			sc.Close()
			if err1 != nil || err2 != nil || m["num-other-sentinels"] != "2" || len(rs) != 2 {
				return false
			}
			for _, r := range rs {
				if r["flags"] != "slave" || r["master-link-status"] != "ok" {
					return false
				}
			}
		}
		return true
	}); err != nil {
		return err
	}

	var saddrs []string
	for _, s := range sentinels {
		saddrs = append(saddrs, s.addr)
	}
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName: "mymaster", SentinelAddrs: saddrs, PoolSize: *workers,
		DialTimeout: 300 * time.Millisecond, ReadTimeout: 300*time.Millisecond + time.Duration(*waitMs)*time.Millisecond,
		WriteTimeout: 300 * time.Millisecond, MaxRetries: -1,
	})
	defer rdb.Close()
	script := redis.NewScript(seedscript.Source)
	if *check == "script" {
		if err := script.Load(ctx, rdb).Err(); err != nil {
			return err
		}
	}

	// Users arrive uniformly over -arrive; each checks every -every.
	rng := rand.New(rand.NewPCG(1, 2))
	type user struct {
		key     string
		first   time.Duration
		allowed atomic.Int32
	}
	us := make([]*user, *users)
	for i := range us {
		us[i] = &user{key: fmt.Sprintf("{t}:ratelimit:failover:u%d", i), first: time.Duration(rng.Int64N(int64(*arrive)))}
	}
	sort.Slice(us, func(i, j int) bool { return us[i].first < us[j].first })
	var (
		checks, admitted, refused, failed, unacked atomic.Int64
		errMu                                      sync.Mutex
		firstErr, lastErr                          time.Duration
		lastErrText                                string
		admittedBefore, admittedAfter              atomic.Int64
		latMu                                      sync.Mutex
		lats                                       []time.Duration // checks answered before the event
	)
	var killed atomic.Bool
	t0 := time.Now()
	onErr := func(at time.Duration, err error) {
		failed.Add(1)
		errMu.Lock()
		if firstErr == 0 || at < firstErr {
			firstErr = at
		}
		if at > lastErr {
			lastErr = at
		}
		lastErrText = err.Error()
		errMu.Unlock()
	}
	checkOnce := func(u *user) {
		at := time.Since(t0)
		checks.Add(1)
		var count int64
		var acked int64 = 1
		var err error
		switch {
		case *check == "script":
			now := strconv.FormatInt(time.Now().UnixMilli(), 10)
			member := now + ":" + strconv.FormatUint(rand.Uint64()&0xffffffff, 16)
			if *wait {
				pipe := rdb.Pipeline()
				// EVAL, not EVALSHA: the promoted replica's script cache
				// is empty (SCRIPT LOAD is not replicated), and a pipeline
				// has no NOSCRIPT fallback.
				c := script.Eval(ctx, pipe, []string{u.key}, now, windowMs, limit, member)
				w := pipe.Do(ctx, "WAIT", 1, *waitMs)
				_, err = pipe.Exec(ctx)
				count, _ = c.Int64()
				acked, _ = w.Int64()
			} else {
				// EVALSHA, EVAL on NOSCRIPT (the promoted replica's cache).
				count, err = script.Run(ctx, rdb, []string{u.key}, now, windowMs, limit, member).Int64()
			}
		default:
			if *wait {
				pipe := rdb.Pipeline()
				c := pipe.Do(ctx, "RL.CHECK", u.key, "*", windowMs, limit, "*")
				w := pipe.Do(ctx, "WAIT", 1, *waitMs)
				_, err = pipe.Exec(ctx)
				count, _ = c.Int64()
				acked, _ = w.Int64()
			} else {
				count, err = rdb.Do(ctx, "RL.CHECK", u.key, "*", windowMs, limit, "*").Int64()
			}
		}
		if err != nil {
			onErr(at, err)
			return
		}
		if !killed.Load() {
			d := time.Since(t0) - at
			latMu.Lock()
			lats = append(lats, d)
			latMu.Unlock()
		}
		switch {
		case count >= limit:
			refused.Add(1)
		case acked < 1:
			// Recorded on the master, not (yet) on a replica: the strict
			// mode refuses it (the user may be under-served, never over).
			unacked.Add(1)
		default:
			admitted.Add(1)
			u.allowed.Add(1)
			if killed.Load() {
				admittedAfter.Add(1)
			} else {
				admittedBefore.Add(1)
			}
		}
	}

	driven := make(chan struct{})
	go func() {
		defer close(driven)
		drive(t0, len(us), *workers, 1, *runFor, *every,
			func(i int) time.Duration { return us[i].first },
			func(idx []int) { checkOnce(us[idx[0]]) })
	}()

	time.Sleep(*killAt)
	killOffset := masterOffset(master.addr)
	replOffsets := []string{masterOffset2(replicas[0].addr), masterOffset2(replicas[1].addr)}
	switch *how {
	case "kill":
		master.cmd.Process.Kill()
		<-master.done
	case "sentinel-failover":
		if err := do(sentinels[0].addr, "SENTINEL", "FAILOVER", "mymaster"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-how %q: kill or sentinel-failover", *how)
	}
	killed.Store(true)
	killTime := time.Since(t0)
	var promoted string
	waitFor(30*time.Second, "a new master", func() bool {
		sc := redis.NewSentinelClient(&redis.Options{Addr: sentinels[0].addr})
		defer sc.Close()
		a, err := sc.GetMasterAddrByName(ctx, "mymaster").Result()
		if err == nil && len(a) == 2 && net.JoinHostPort(a[0], a[1]) != master.addr {
			promoted = net.JoinHostPort(a[0], a[1])
			return true
		}
		return false
	})
	promotedAt := time.Since(t0)
	<-driven

	over, overUsers := 0, 0
	hist := map[int]int{}
	for _, u := range us {
		n := int(u.allowed.Load())
		hist[n]++
		if n > limit {
			over += n - limit
			overUsers++
		}
	}
	mode := "asynchronous replication"
	if *wait {
		mode = fmt.Sprintf("WAIT 1 %d after each check", *waitMs)
	}
	if *minRepl > 0 {
		mode += fmt.Sprintf(", min-replicas-to-write %d", *minRepl)
	}
	fmt.Printf("mode: %s; master %s, replicas %s, check %s; %d users arriving over %v, a check every %v, %v run, %s at %v\n",
		mode, *masterK, *replicaK, *check, *users, *arrive, *every, *runFor, *how, killTime.Round(time.Millisecond))
	fmt.Printf("offsets just before the %s (read one after the other): master %s, replicas %s\n", *how, killOffset, strings.Join(replOffsets, " "))
	fmt.Printf("checks %d: admitted %d (%d before, %d after), refused %d, unacknowledged %d, failed %d\n",
		checks.Load(), admitted.Load(), admittedBefore.Load(), admittedAfter.Load(), refused.Load(), unacked.Load(), failed.Load())
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	pct := func(p float64) time.Duration {
		if len(lats) == 0 {
			return 0
		}
		return lats[int(p*float64(len(lats)-1))]
	}
	fmt.Printf("admission rate before: %.0f/s; check latency before: p50 %v, p99 %v, max %v\n",
		float64(admittedBefore.Load())/killTime.Seconds(), pct(0.5).Round(time.Microsecond),
		pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	fmt.Printf("Sentinels named %s at %v (%v after); failures from %v to %v (last: %s)\n",
		promoted, promotedAt.Round(time.Millisecond), (promotedAt - killTime).Round(time.Millisecond),
		firstErr.Round(time.Millisecond), lastErr.Round(time.Millisecond), lastErrText)
	var ks []int
	for k := range hist {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var hs []string
	for _, k := range ks {
		hs = append(hs, fmt.Sprintf("%d:%d", k, hist[k]))
	}
	fmt.Printf("users by admitted count: %s\n", strings.Join(hs, " "))
	fmt.Printf("OVER-ADMITTED: %d requests beyond the limit, %d users\n", over, overUsers)
	return nil
}

func masterOffset(addr string) string {
	return infoField(addr, "master_repl_offset")
}

func masterOffset2(addr string) string {
	return infoField(addr, "slave_repl_offset")
}

func infoField(addr, name string) string {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ReadTimeout: 200 * time.Millisecond})
	defer c.Close()
	s, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return v
		}
	}
	return "?"
}

func do(addr string, args ...any) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	if err := c.Do(context.Background(), args...).Err(); err != nil {
		return fmt.Errorf("%s %v: %w", addr, args, err)
	}
	return nil
}

func waitPing(p *proc) error {
	return waitFor(10*time.Second, p.name+" answering PING", func() bool {
		select {
		case <-p.done:
			return false
		default:
		}
		c := redis.NewClient(&redis.Options{Addr: p.addr, MaxRetries: -1})
		defer c.Close()
		return c.Ping(context.Background()).Err() == nil
	})
}

func waitFor(d time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
