package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

// Redis Sentinel (Debian's redis-server 7.0.15 in sentinel mode) managing
// a limitkv master and two limitkv replicas: a SENTINEL FAILOVER, then a
// master that stops answering (SIGSTOP, later kill -9), each end with a
// replica promoted and the others following it, while a go-redis
// FailoverClient keeps the ratelimit package serving RL.CHECK.

func TestSentinelFailover(t *testing.T) {
	requireServers(t)
	master := startLimitkvNode(t, "limitkv-a")
	r1 := startLimitkvNode(t, "limitkv-b")
	r2 := startLimitkvNode(t, "limitkv-c")
	g := newSentinelGroup(t, master, r1, r2)
	load := startFailoverLoad(t, g, ratelimit.BackendLimitkv)

	// (a) SENTINEL FAILOVER: a replica promoted, the other following it,
	// the old master (still up) turned into a replica of the new one.
	t.Log("SENTINEL FAILOVER")
	failoverAt := time.Now()
	if r := g.sentinels[0].conn.MustDo(t, "SENTINEL", "FAILOVER", sentinelMasterName); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("SENTINEL FAILOVER: %q", r.Raw)
	}
	m1 := g.newMaster(t, master, 20*time.Second)
	if got := m1.role(t); got != "master" {
		g.fail(t, fmt.Sprintf("the promoted %s's ROLE: %q", m1.name, got))
	}
	g.replicasFollow(t, m1, nil, 15*time.Second)
	g.waitSentinels(t, 15*time.Second, "the old master seen as a replica", func(s *sentinelProc) string {
		if v := s.view(t, master.addr); v == nil || v["role-reported"] != "slave" || v["master-link-status"] != "ok" ||
			v["master-port"] != m1.port() {
			return fmt.Sprintf("its view of %s: %v", master.name, v)
		}
		return ""
	})
	t.Logf("SENTINEL FAILOVER: %s promoted, the others following it, in %v", m1.name, time.Since(failoverAt).Round(time.Millisecond))
	load.mark("after SENTINEL FAILOVER")

	// (b) The master stops answering: the Sentinels agree it is down
	// (+odown), promote a replica, the other follows; then it dies.
	stopAt := time.Now()
	m1.signal(t, syscall.SIGSTOP)
	m2 := g.newMaster(t, m1, 25*time.Second)
	if got := m2.role(t); got != "master" {
		g.fail(t, fmt.Sprintf("the promoted %s's ROLE: %q", m2.name, got))
	}
	g.replicasFollow(t, m2, m1, 15*time.Second)
	odown := 0
	for _, s := range g.sentinels {
		if strings.Contains(s.logText(), "+odown master "+sentinelMasterName+" 127.0.0.1 "+m1.port()) {
			odown++
		}
	}
	if odown < 2 {
		g.fail(t, fmt.Sprintf("%d Sentinels logged +odown for the stopped master, want at least the quorum (2)", odown))
	}
	t.Logf("SIGSTOP: %d Sentinels agreed on +odown; %s promoted, the other following it, in %v", odown, m2.name,
		time.Since(stopAt).Round(time.Millisecond))
	m1.kill9(t)
	g.waitSentinels(t, 10*time.Second, "the killed master seen as a replica that is down", func(s *sentinelProc) string {
		if v := s.view(t, m1.addr); v == nil || !strings.Contains(v["flags"], "s_down") || !strings.Contains(v["flags"], "slave") {
			return fmt.Sprintf("its view of %s: %v", m1.name, v)
		}
		return ""
	})
	load.mark("after SIGSTOP and kill -9")
	time.Sleep(500 * time.Millisecond)
	load.stop(t)
}

// failoverLoad is a ratelimit.Limiter over a go-redis FailoverClient,
// checking requests without pause through the failovers.
type failoverLoad struct {
	rdb  *redis.Client
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	ok      int
	errs    []time.Time // when each failed call started
	lastErr error
	marks   []loadMark
}

type loadMark struct {
	what string
	ok   int
	errs int
}

func startFailoverLoad(t *testing.T, g *sentinelGroup, backend ratelimit.Backend) *failoverLoad {
	t.Helper()
	var addrs []string
	for _, s := range g.sentinels {
		addrs = append(addrs, s.addr)
	}
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    sentinelMasterName,
		SentinelAddrs: addrs,
		DialTimeout:   300 * time.Millisecond,
		ReadTimeout:   300 * time.Millisecond,
		WriteTimeout:  300 * time.Millisecond,
		MaxRetries:    -1, // every failure counted, none hidden by a retry
	})
	t.Cleanup(func() { rdb.Close() })
	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "sentinel", Limit: 1 << 30, Window: time.Minute,
		Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	l := &failoverLoad{rdb: rdb, done: make(chan struct{})}
	ctx := context.Background()
	if _, err := lim.Allow(ctx, "acme", "warmup"); err != nil {
		t.Fatalf("RL.CHECK through the FailoverClient before any failover: %v", err)
	}
	for w := range 4 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-l.done:
					return
				default:
				}
				start := time.Now()
				res, err := lim.Allow(ctx, "acme", fmt.Sprintf("user%d-%d", w, i%16))
				l.mu.Lock()
				if err == nil && res.Allowed {
					l.ok++
				} else {
					l.errs = append(l.errs, start)
					l.lastErr = err
				}
				l.mu.Unlock()
				if err != nil {
					time.Sleep(10 * time.Millisecond) // no spin against a refused dial
				}
			}
		}()
	}
	return l
}

// mark records the counts at a point of the test, and checks the client
// is serving there (a few calls succeed in a row).
func (l *failoverLoad) mark(what string) {
	l.mu.Lock()
	l.marks = append(l.marks, loadMark{what, l.ok, len(l.errs)})
	l.mu.Unlock()
}

// stop ends the load and checks it: it served after each failover (calls
// succeeded between the marks), and its failures fall in few, short
// windows (the switches), none longer than maxWindow.
func (l *failoverLoad) stop(t *testing.T) {
	t.Helper()
	close(l.done)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	const maxWindow = 10 * time.Second
	// Failures less than 1 s apart are one window.
	var windows [][2]time.Time
	for _, e := range l.errs {
		if n := len(windows); n > 0 && e.Sub(windows[n-1][1]) < time.Second {
			windows[n-1][1] = e
			continue
		}
		windows = append(windows, [2]time.Time{e, e})
	}
	var desc []string
	for _, w := range windows {
		d := w[1].Sub(w[0])
		desc = append(desc, d.Round(time.Millisecond).String())
		if d > maxWindow {
			t.Errorf("the FailoverClient failed for %v in a row (from %s), more than %v", d, w[0].Format("15:04:05.000"), maxWindow)
		}
	}
	t.Logf("FailoverClient + ratelimit: %d calls served, %d failed, in %d windows %v (last error: %v)",
		l.ok, len(l.errs), len(windows), desc, l.lastErr)
	if len(windows) > 4 {
		t.Errorf("failures in %d separate windows, want at most 2 per failover", len(windows))
	}
	prev := loadMark{"the start", 0, 0}
	for _, m := range append(l.marks, loadMark{"the end", l.ok, len(l.errs)}) {
		if m.ok <= prev.ok {
			t.Errorf("no call served between %s and %s", prev.what, m.what)
		}
		prev = m
	}
}

// A master busy in a script answers PING with -BUSY, which Sentinel does
// not take as alive: once it thinks the master down it sends SCRIPT KILL,
// and the master, its script killed, is up again without a failover.
func TestSentinelScriptKill(t *testing.T) {
	requireServers(t)
	master := startLimitkvNode(t, "limitkv")
	g := newSentinelGroup(t, master)
	if r := master.do(t, "CONFIG", "SET", "busy-reply-threshold", "100"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("CONFIG SET busy-reply-threshold: %q", r.Raw)
	}
	busy := dialRaw(t, "busy", master.addr)
	busy.Timeout = 20 * time.Second
	if err := busy.Send("EVAL", "while true do end", "0"); err != nil {
		t.Fatal(err)
	}
	r, err := busy.ReadReply()
	if err != nil {
		g.fail(t, fmt.Sprintf("the busy script: %v", err))
	}
	if r.Type != '-' || !strings.Contains(r.Str, "Script killed by user with SCRIPT KILL") {
		g.fail(t, fmt.Sprintf("the busy script ended with %q, want killed by SCRIPT KILL", r.Raw))
	}
	killed := 0
	for _, s := range g.sentinels {
		if strings.Contains(s.logText(), "+sdown master "+sentinelMasterName) {
			killed++
		}
	}
	if killed == 0 {
		g.fail(t, "no Sentinel logged +sdown for the busy master")
	}
	g.waitSentinels(t, 10*time.Second, "the master up again, not failed over", func(s *sentinelProc) string {
		if m := s.view(t, ""); m["flags"] != "master" || m["port"] != master.port() {
			return fmt.Sprintf("flags %q, port %s", m["flags"], m["port"])
		}
		return ""
	})
}
