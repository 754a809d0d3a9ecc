// Command soak runs a limitkv binary under mixed load for a while, with
// clients connecting and dropping in every way a network allows, and prints
// the server's resident memory, goroutines, clients and memory figures every
// few seconds. At the end it lets the server settle and fails if goroutines
// or clients leaked, or if the server stopped answering or did not shut down
// gracefully on SIGTERM.
//
//	go run ./bench/soak                   # 3 minutes
//	go run ./bench/soak -duration 30s -interval 2s
//
// It builds ./cmd/limitkv (or runs -bin), listens on free loopback ports
// only, and stops the server by its pid. Not part of `go test ./...`.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

var (
	duration = flag.Duration("duration", 3*time.Minute, "how long to apply load")
	interval = flag.Duration("interval", 5*time.Second, "sampling interval")
	bin      = flag.String("bin", "", "limitkv binary to run (default: build ./cmd/limitkv)")
	steady   = flag.Int("steady", 16, "steady clients (go-redis, mixed commands)")
	churn    = flag.Int("churn", 8, "goroutines that connect, misbehave and drop")
	slow     = flag.Int("slow", 2, "slow readers")
	maxmem   = flag.String("maxmemory", "32mb", "server maxmemory, volatile-ttl (small enough that keys get evicted)")
)

// counters are the load's client-side figures.
type counters struct {
	ops, errs, dials, drops atomic.Int64
	lastErr                 atomic.Value
}

func run() error {
	flag.Parse()
	path := *bin
	if path == "" {
		dir, err := os.MkdirTemp("", "limitkv-soak-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "limitkv")
		build := exec.Command("go", "build", "-o", path, "./cmd/limitkv")
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building ./cmd/limitkv (run from the repository root): %w", err)
		}
	}
	port, pport := freePort(), freePort()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	paddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(pport))
	srv := exec.Command(path, "--port", strconv.Itoa(port), "--pprof", paddr, "--log-level", "warn",
		"--maxmemory", *maxmem, "--maxmemory-policy", "volatile-ttl", "--maxclients", "2000",
		"--client-output-buffer-limit", "normal 64mb 16mb 10", "--timeout", "60")
	var serverLog bytes.Buffer
	srv.Stdout, srv.Stderr = &serverLog, &serverLog
	srv.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := srv.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer func() {
		select {
		case <-exited:
		default:
			srv.Process.Kill()
			<-exited
		}
	}()
	if err := waitReady(addr, exited); err != nil {
		return err
	}
	pid := srv.Process.Pid
	fmt.Printf("limitkv pid %d on %s, pprof on %s; load for %v: %d steady clients, %d churners, %d slow readers\n\n",
		pid, addr, paddr, *duration, *steady, *churn, *slow)

	admin := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 2, MaxRetries: -1})
	defer admin.Close()
	ctx := context.Background()
	if err := admin.Set(ctx, "soak:big", strings.Repeat("B", 1<<20), 0).Err(); err != nil {
		return err
	}
	haveZset := commandExists(ctx, admin, "bzpopmin")

	base := sample(ctx, admin, pid, paddr)
	fmt.Println(header)
	fmt.Println(base.line(0, 0, &counters{}))

	var cnt counters
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range *steady {
		wg.Add(1)
		go func() { defer wg.Done(); steadyClient(ctx, addr, i, haveZset, stop, &cnt) }()
	}
	for i := range *churn {
		wg.Add(1)
		go func() { defer wg.Done(); churner(addr, i, stop, &cnt) }()
	}
	for range *slow {
		wg.Add(1)
		go func() { defer wg.Done(); slowReader(addr, stop, &cnt) }()
	}
	if haveZset {
		wg.Add(1)
		go func() { defer wg.Done(); blocker(ctx, addr, stop, &cnt) }()
	}

	start := time.Now()
	peak := base
	prevOps, prevT := int64(0), start
	tick := time.NewTicker(*interval)
	end := time.After(*duration)
loop:
	for {
		select {
		case err := <-exited:
			close(stop)
			return fmt.Errorf("server exited during the run: %v\nlog:\n%s", err, tail(serverLog.String()))
		case <-end:
			break loop
		case now := <-tick.C:
			s := sample(ctx, admin, pid, paddr)
			ops := cnt.ops.Load()
			rate := float64(ops-prevOps) / now.Sub(prevT).Seconds()
			prevOps, prevT = ops, now
			peak = peak.max(s)
			fmt.Println(s.line(now.Sub(start), rate, &cnt))
		}
	}
	tick.Stop()
	close(stop)
	wg.Wait()

	// Let the server notice every close, then look for leaks.
	fmt.Println("\nload stopped; settling...")
	var final stats
	for range 20 {
		time.Sleep(500 * time.Millisecond)
		final = sample(ctx, admin, pid, paddr)
		if final.clients <= 1 {
			break
		}
	}
	fmt.Println(header)
	fmt.Println(final.line(time.Since(start), 0, &cnt))
	fmt.Printf("\nsummary over %v: %d ops (%.0f/s), %d unexpected errors, %d connections opened, %d dropped on purpose\n",
		*duration, cnt.ops.Load(), float64(cnt.ops.Load())/duration.Seconds(), cnt.errs.Load(), cnt.dials.Load(), cnt.drops.Load())
	fmt.Printf("  RSS        start %s  peak %s  end %s\n", mb(base.rss), mb(peak.rss), mb(final.rss))
	fmt.Printf("  goroutines start %d  peak %d  end %d\n", base.goroutines, peak.goroutines, final.goroutines)
	fmt.Printf("  clients    peak %d  end %d\n", peak.clients, final.clients)
	fmt.Printf("  used_memory peak %s  end %s;  evicted_keys %d, expired_keys %d\n", mb(peak.used), mb(final.used), final.evicted, final.expired)
	if e, ok := cnt.lastErr.Load().(string); ok {
		fmt.Printf("  last unexpected error: %s\n", e)
	}

	var problems []string
	if final.clients > 1 {
		problems = append(problems, fmt.Sprintf("%d clients still connected after the load stopped", final.clients))
	}
	// The sampler's own connection and pprof's handler may add a few.
	if final.goroutines > base.goroutines+10 {
		problems = append(problems, fmt.Sprintf("goroutines grew from %d to %d", base.goroutines, final.goroutines))
	}
	if err := admin.Ping(ctx).Err(); err != nil {
		problems = append(problems, "server no longer answers PING: "+err.Error())
	}
	admin.Close()
	srv.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			problems = append(problems, fmt.Sprintf("exit after SIGTERM: %v", err))
		} else {
			fmt.Println("  SIGTERM: clean exit")
		}
	case <-time.After(10 * time.Second):
		problems = append(problems, "no exit within 10 s of SIGTERM")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s\nserver log:\n%s", strings.Join(problems, "; "), tail(serverLog.String()))
	}
	fmt.Println("OK")
	return nil
}

func commandExists(ctx context.Context, c *redis.Client, name string) bool {
	v, err := c.Do(ctx, "COMMAND", "INFO", name).Slice()
	return err == nil && len(v) == 1 && v[0] != nil
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func waitReady(addr string, exited <-chan error) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("server exited at start: %v", err)
		default:
		}
		if nc, err := net.Dial("tcp", addr); err == nil {
			nc.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("server did not listen within 10 s")
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// ---------------------------------------------------------------------------
// Sampling

type stats struct {
	rss, used              int64
	goroutines, clients    int
	keys, evicted, expired int64
}

const header = "   elapsed     ops/s   RSS       goroutines  clients  used_memory  keys      evicted   errors"

func (s stats) line(elapsed time.Duration, rate float64, c *counters) string {
	return fmt.Sprintf("%10s  %8.0f   %-9s %10d  %7d  %-11s  %-8d  %-8d  %d",
		elapsed.Round(time.Second), rate, mb(s.rss), s.goroutines, s.clients, mb(s.used), s.keys, s.evicted, c.errs.Load())
}

func (s stats) max(o stats) stats {
	s.rss, s.used = max(s.rss, o.rss), max(s.used, o.used)
	s.goroutines, s.clients = max(s.goroutines, o.goroutines), max(s.clients, o.clients)
	return s
}

func mb(n int64) string { return fmt.Sprintf("%.1fMB", float64(n)/(1<<20)) }

func sample(ctx context.Context, c *redis.Client, pid int, pprof string) stats {
	var s stats
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
				s.rss = kb << 10
			}
		}
	}
	if resp, err := http.Get("http://" + pprof + "/debug/pprof/goroutine?debug=1"); err == nil {
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		resp.Body.Close()
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "goroutine profile: total "); ok {
			s.goroutines, _ = strconv.Atoi(v)
		}
	}
	if info, err := c.Info(ctx, "clients", "memory", "stats", "keyspace").Result(); err == nil {
		for _, l := range strings.Split(info, "\r\n") {
			k, v, _ := strings.Cut(l, ":")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "connected_clients":
				s.clients = int(n)
			case "used_memory":
				s.used = n
			case "evicted_keys":
				s.evicted = n
			case "expired_keys":
				s.expired = n
			case "db0":
				if f, ok := strings.CutPrefix(v, "keys="); ok {
					f, _, _ = strings.Cut(f, ",")
					s.keys, _ = strconv.ParseInt(f, 10, 64)
				}
			}
		}
	}
	return s
}

// ---------------------------------------------------------------------------
// Load

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

func (c *counters) fail(err error) {
	c.errs.Add(1)
	c.lastErr.Store(err.Error())
}

const rlScript = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n`

// steadyClient runs a mix of the commands a limit server sees, on a pooled
// go-redis client, until stop.
func steadyClient(ctx context.Context, addr string, id int, zset bool, stop <-chan struct{}, cnt *counters) {
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 2, MaxRetries: -1, ReadTimeout: 5 * time.Second})
	defer rdb.Close()
	r := rand.New(rand.NewPCG(uint64(id), 1))
	val := strings.Repeat("v", 256)
	for !stopped(stop) {
		k := "soak:" + strconv.Itoa(r.IntN(50000))
		var err error
		switch p := r.IntN(100); {
		case p < 30:
			err = rdb.Do(ctx, "RL.CHECK", "rl:"+k, "*", "1000", "50", "*").Err()
		case p < 50:
			err = rdb.Set(ctx, k, val, time.Duration(1+r.IntN(30))*time.Second).Err()
		case p < 70:
			err = rdb.Get(ctx, k).Err()
		case p < 78:
			pipe := rdb.TxPipeline()
			pipe.Incr(ctx, "ctr:"+k)
			pipe.Expire(ctx, "ctr:"+k, 20*time.Second)
			_, err = pipe.Exec(ctx)
		case p < 85:
			err = rdb.Eval(ctx, rlScript, []string{"lua:" + k}, 2000).Err()
		case p < 90 && zset:
			err = rdb.ZAdd(ctx, "z:"+k[len(k)-2:], redis.Z{Score: float64(r.IntN(1000)), Member: k}).Err()
			if err == nil {
				err = rdb.ZRangeWithScores(ctx, "z:"+k[len(k)-2:], 0, 10).Err()
			}
		case p < 95:
			pipe := rdb.Pipeline()
			for range 20 {
				pipe.Get(ctx, "soak:"+strconv.Itoa(r.IntN(50000)))
			}
			_, err = pipe.Exec(ctx)
		default:
			err = rdb.Del(ctx, k).Err()
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			cnt.fail(err)
			time.Sleep(10 * time.Millisecond)
		}
		cnt.ops.Add(1)
	}
}

// churner connects, misbehaves in one of several ways, and drops.
func churner(addr string, id int, stop <-chan struct{}, cnt *counters) {
	r := rand.New(rand.NewPCG(uint64(id), 2))
	for !stopped(stop) {
		nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			cnt.fail(err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		cnt.dials.Add(1)
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(nc)
		switch r.IntN(7) {
		case 0: // polite
			io.WriteString(nc, "PING\r\nSET churn:k v\r\nQUIT\r\n")
			if b, err := io.ReadAll(br); err != nil || string(b) != "+PONG\r\n+OK\r\n+OK\r\n" {
				cnt.fail(fmt.Errorf("polite client got %q, %v", b, err))
			}
			cnt.ops.Add(3)
		case 1: // vanishes mid-command
			io.WriteString(nc, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nhalf")
		case 2: // vanishes mid-reply
			io.WriteString(nc, "*2\r\n$3\r\nGET\r\n$8\r\nsoak:big\r\n")
			io.CopyN(io.Discard, br, int64(r.IntN(200<<10)))
		case 3: // pipelines without reading
			nc.Write(bytes.Repeat([]byte("*1\r\n$4\r\nPING\r\n"), 1+r.IntN(500)))
		case 4: // garbage
			junk := make([]byte, 1+r.IntN(2000))
			for i := range junk {
				junk[i] = byte(r.IntN(256))
			}
			nc.Write(junk)
			time.Sleep(time.Duration(r.IntN(20)) * time.Millisecond)
		case 5: // idle, then gone
			time.Sleep(time.Duration(r.IntN(500)) * time.Millisecond)
		case 6: // protocol error
			io.WriteString(nc, "*1\r\n$-5\r\n")
			br.ReadString('\n')
		}
		if tcp, ok := nc.(*net.TCPConn); ok && r.IntN(2) == 0 {
			tcp.SetLinger(0) // a reset rather than a close
		}
		nc.Close()
		cnt.drops.Add(1)
	}
}

// slowReader asks for 20 MB of replies and takes them at a trickle for a few
// seconds, then drops.
func slowReader(addr string, stop <-chan struct{}, cnt *counters) {
	for !stopped(stop) {
		nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			cnt.fail(err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		cnt.dials.Add(1)
		nc.Write(bytes.Repeat([]byte("*2\r\n$3\r\nGET\r\n$8\r\nsoak:big\r\n"), 20))
		buf := make([]byte, 1024)
		for range 30 {
			if stopped(stop) {
				break
			}
			nc.SetReadDeadline(time.Now().Add(time.Second))
			if _, err := nc.Read(buf); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		nc.Close()
		cnt.drops.Add(1)
	}
}

// blocker waits on an empty sorted set with a short timeout, again and again.
func blocker(ctx context.Context, addr string, stop <-chan struct{}, cnt *counters) {
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1, ReadTimeout: 5 * time.Second})
	defer rdb.Close()
	for !stopped(stop) {
		err := rdb.Do(ctx, "BZPOPMIN", "soak:nothing", "0.2").Err()
		if err != nil && !errors.Is(err, redis.Nil) {
			cnt.fail(err)
			time.Sleep(50 * time.Millisecond)
		}
		cnt.ops.Add(1)
	}
}
