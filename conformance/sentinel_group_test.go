package conformance

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// A Sentinel-managed group for the failover tests: three real Sentinels
// (redis-server --sentinel, quorum 2) watching a master with two replicas.
// Sentinel's periods are shortened (SENTINEL DEBUG) so that a failover
// takes seconds: INFO every 250 ms instead of 10 s, hellos every 250 ms
// (an old master that comes back is converted after 4 of them).

const (
	sentinelMasterName = "mymaster"
	sentinelDownAfter  = 1000 // ms
	sentinelFailoverTO = 3000 // ms
)

// groupNode is one data server of the group, a child process (SIGSTOP and
// kill -9 need one).
type groupNode struct {
	name string
	addr string
	cmd  *exec.Cmd
	done <-chan struct{}
	log  func() string
	conn *RawConn
}

func (n *groupNode) port() string { _, p, _ := net.SplitHostPort(n.addr); return p }

func (n *groupNode) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := n.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%s: signal %v: %v", n.name, sig, err)
	}
}

// kill9 is kill -9, and waits for the process to be gone.
func (n *groupNode) kill9(t *testing.T) {
	t.Helper()
	n.cmd.Process.Kill()
	select {
	case <-n.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still running 5 s after SIGKILL", n.name)
	}
}

func (n *groupNode) do(t *testing.T, args ...string) *Reply {
	t.Helper()
	if n.conn == nil {
		n.conn = dialRaw(t, n.name, n.addr)
	}
	r, err := n.conn.Do(args...)
	if err != nil {
		// A connection the failover transaction killed: once more, fresh.
		n.conn.Close()
		n.conn = dialRaw(t, n.name, n.addr)
		if r, err = n.conn.Do(args...); err != nil {
			t.Fatalf("%s %v: %v", n.name, args, err)
		}
	}
	return r
}

// role is ROLE's first elements: "master", or "slave host port state".
func (n *groupNode) role(t *testing.T) string {
	t.Helper()
	r := n.do(t, "ROLE")
	if r.Type != '*' || len(r.Elems) < 3 {
		return fmt.Sprintf("ROLE answered %q", r.Raw)
	}
	if r.Elems[0].Str == "master" {
		return "master"
	}
	parts := []string{r.Elems[0].Str, r.Elems[1].Str, strconv.FormatInt(r.Elems[2].Int, 10)}
	if len(r.Elems) > 3 {
		parts = append(parts, r.Elems[3].Str)
	}
	return strings.Join(parts, " ")
}

func startLimitkvNode(t *testing.T, name string, args ...string) *groupNode {
	t.Helper()
	p := startLimitkvProc(t, t.TempDir(), false, args...)
	return &groupNode{name: name, addr: p.Addr, cmd: p.Cmd, done: p.Done(), log: p.Log}
}

// sentinelProc is one Sentinel, its log in a file (Sentinel's own logfile,
// loglevel verbose) for the failure messages.
type sentinelProc struct {
	name, addr, logPath string
	p                   *testredis.Proc
	conn                *RawConn
}

func startSentinel(t *testing.T, name, masterAddr string) *sentinelProc {
	t.Helper()
	dir := t.TempDir()
	host, mport, _ := net.SplitHostPort(masterAddr)
	s := &sentinelProc{name: name, logPath: filepath.Join(dir, "sentinel.log")}
	n := sentinelMasterName
	conf := fmt.Sprintf("logfile %s\nloglevel verbose\n", s.logPath) +
		fmt.Sprintf("sentinel monitor %s %s %s 2\n", n, host, mport) +
		fmt.Sprintf("sentinel down-after-milliseconds %s %d\n", n, sentinelDownAfter) +
		fmt.Sprintf("sentinel failover-timeout %s %d\n", n, sentinelFailoverTO) +
		fmt.Sprintf("sentinel parallel-syncs %s 2\n", n)
	confPath := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	s.p = testredis.StartWith(t, testredis.Options{Path: redisServerPath, Conf: confPath, Dir: dir, Args: []string{"--sentinel"}})
	s.addr = s.p.Addr
	s.conn = dialRaw(t, name, s.addr)
	if r := s.conn.MustDo(t, "SENTINEL", "DEBUG", "info-period", "250", "publish-period", "250",
		"ask-period", "250", "ping-period", "250"); r.Type == '-' {
		t.Fatalf("SENTINEL DEBUG: %q", r.Raw)
	}
	return s
}

func (s *sentinelProc) logText() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// masterAddr is SENTINEL GET-MASTER-ADDR-BY-NAME.
func (s *sentinelProc) masterAddr(t *testing.T) string {
	t.Helper()
	r := s.conn.MustDo(t, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", sentinelMasterName)
	if r.Type != '*' || len(r.Elems) != 2 {
		return ""
	}
	return net.JoinHostPort(r.Elems[0].Str, r.Elems[1].Str)
}

// view is SENTINEL MASTER (which == "") or the entry for addr in SENTINEL
// REPLICAS, as field -> value.
func (s *sentinelProc) view(t *testing.T, addr string) map[string]string {
	t.Helper()
	flat := func(r *Reply) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(r.Elems); i += 2 {
			m[r.Elems[i].Str] = r.Elems[i+1].Str
		}
		return m
	}
	if addr == "" {
		return flat(s.conn.MustDo(t, "SENTINEL", "MASTER", sentinelMasterName))
	}
	for _, e := range s.conn.MustDo(t, "SENTINEL", "REPLICAS", sentinelMasterName).Elems {
		if m := flat(e); m["name"] == addr {
			return m
		}
	}
	return nil
}

type sentinelGroup struct {
	nodes     []*groupNode // [0] the first master
	sentinels []*sentinelProc
}

// newSentinelGroup starts master, makes every replica REPLICAOF it, waits
// for their links, then starts the Sentinels and waits until each knows
// the other two and both replicas.
func newSentinelGroup(t *testing.T, master *groupNode, replicas ...*groupNode) *sentinelGroup {
	t.Helper()
	g := &sentinelGroup{nodes: append([]*groupNode{master}, replicas...)}
	for _, r := range replicas {
		if rep := r.do(t, "REPLICAOF", "127.0.0.1", master.port()); rep.Type == '-' {
			t.Fatalf("%s REPLICAOF: %q", r.name, rep.Raw)
		}
	}
	for _, r := range replicas {
		g.waitRole(t, r, "slave 127.0.0.1 "+master.port()+" connected", 20*time.Second)
	}
	for i := range 3 {
		g.sentinels = append(g.sentinels, startSentinel(t, fmt.Sprintf("sentinel%d", i+1), master.addr))
	}
	g.waitSentinels(t, 20*time.Second, "each Sentinel sees the other two and both replicas", func(s *sentinelProc) string {
		m := s.view(t, "")
		if m["num-other-sentinels"] != "2" || m["num-slaves"] != strconv.Itoa(len(replicas)) {
			return fmt.Sprintf("num-other-sentinels %s, num-slaves %s", m["num-other-sentinels"], m["num-slaves"])
		}
		for _, r := range replicas {
			v := s.view(t, r.addr)
			if v == nil || v["flags"] != "slave" || v["master-link-status"] != "ok" || v["role-reported"] != "slave" {
				return fmt.Sprintf("its view of %s: %v", r.name, v)
			}
		}
		return ""
	})
	return g
}

func (g *sentinelGroup) byAddr(addr string) *groupNode {
	for _, n := range g.nodes {
		if n.addr == addr {
			return n
		}
	}
	return nil
}

// waitRole waits until n's ROLE reads want.
func (g *sentinelGroup) waitRole(t *testing.T, n *groupNode, want string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got := n.role(t)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			g.fail(t, fmt.Sprintf("%s's ROLE after %v: %q, want %q", n.name, d, got, want))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitSentinels waits until check returns "" for every Sentinel.
func (g *sentinelGroup) waitSentinels(t *testing.T, d time.Duration, what string, check func(*sentinelProc) string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		why := ""
		for _, s := range g.sentinels {
			if w := check(s); w != "" {
				why = s.name + ": " + w
				break
			}
		}
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			g.fail(t, fmt.Sprintf("after %v, not yet %s: %s", d, what, why))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newMaster waits until all three Sentinels name the same master other
// than old, and returns it.
func (g *sentinelGroup) newMaster(t *testing.T, old *groupNode, d time.Duration) *groupNode {
	t.Helper()
	var addr string
	g.waitSentinels(t, d, "a new master all Sentinels agree on", func(s *sentinelProc) string {
		a := s.masterAddr(t)
		switch {
		case a == old.addr:
			return "still names " + old.name
		case addr == "" || s == g.sentinels[0]:
			addr = a
		case a != addr:
			return "names " + a + ", the first Sentinel " + addr
		}
		return ""
	})
	n := g.byAddr(addr)
	if n == nil {
		g.fail(t, "the Sentinels promoted "+addr+", not a node of the group")
	}
	return n
}

// fail ends the test with every Sentinel's log tail and every node's.
func (g *sentinelGroup) fail(t *testing.T, msg string) {
	t.Helper()
	var b strings.Builder
	for _, s := range g.sentinels {
		fmt.Fprintf(&b, "\n--- %s log ---\n%s", s.name, tail(filterSentinelLog(s.logText()), 40))
	}
	for _, n := range g.nodes {
		fmt.Fprintf(&b, "\n--- %s (%s) log ---\n%s", n.name, n.addr, tail(n.log(), 15))
	}
	t.Fatalf("%s%s", msg, b.String())
}

// filterSentinelLog drops the verbose connection lines.
func filterSentinelLog(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, " - Accepted ") || strings.Contains(l, " - Client closed connection") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// replicasFollow checks that every node but master is a replica of it
// with its link up, and that a write on master reaches them.
func (g *sentinelGroup) replicasFollow(t *testing.T, master *groupNode, skip *groupNode, d time.Duration) {
	t.Helper()
	want := "slave 127.0.0.1 " + master.port() + " connected"
	for _, n := range g.nodes {
		if n != master && n != skip {
			g.waitRole(t, n, want, d)
		}
	}
	key := "written-on-" + master.name
	if r := master.do(t, "SET", key, "1"); string(r.Raw) != "+OK\r\n" {
		g.fail(t, fmt.Sprintf("SET on the new master %s: %q", master.name, r.Raw))
	}
	for _, n := range g.nodes {
		if n == master || n == skip {
			continue
		}
		deadline := time.Now().Add(d)
		for string(n.do(t, "GET", key).Raw) != "$1\r\n1\r\n" {
			if time.Now().After(deadline) {
				g.fail(t, fmt.Sprintf("%s does not have the new master's write after %v", n.name, d))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
