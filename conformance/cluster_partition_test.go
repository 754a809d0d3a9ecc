//go:build linux

package conformance

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
	"golang.org/x/sys/unix"
)

// Network partitions. Each node runs in a network namespace of its own,
// its veth's other end on a bridge in a "hub" namespace: 10.77.0.N/24, no
// route out, nothing outside the test's namespaces touched (the root
// namespace only gets their names). Cutting a node is setting its veth's
// hub end down: its packets go nowhere and its TCP connections hang, as
// with a pulled cable (no RST, no FIN). The test talks to each node on
// 127.0.0.1 inside its namespace, which no cut reaches.
//
// Three masters and three replicas, node timeout 1 s. The first master is
// cut off alone, then healed:
//
//	(a) it refuses writes with -CLUSTERDOWN within node timeout + 1 s (it
//	    sees both other masters PFAIL, a minority: clusterUpdateState);
//	(b) the five on the majority side promote its replica (FAIL, then an
//	    election the two other masters vote in);
//	(c) healed, it learns it lost its slots and replicates the new master
//	    (with its data), every node agrees on one master per slot, and
//	    redis-cli --cluster check is clean.
func TestClusterPartition(t *testing.T) {
	clusterSuite(t, "six servers in network namespaces, a partition and a failover, three times")
	for _, tc := range []struct {
		name string
		// kinds of the three masters then of their replicas, in order:
		// 'l' limitkv, 'r' redis-server. The first master is cut off.
		kinds string
	}{
		{"all limitkv", "llllll"},
		// The isolated master is limitkv, its replica Redis, elected by a
		// Redis master's vote and a limitkv master's.
		{"mixed", "lrlrlr"},
		// The other way: a Redis master cut off, its limitkv replica
		// elected.
		{"mixed, Redis cut off", "rlrlrl"},
	} {
		t.Run(tc.name, func(t *testing.T) { partition(t, tc.kinds) })
	}
}

const partitionNodeTimeout = 1000 // ms

func partition(t *testing.T, kinds string) {
	if strings.Contains(kinds, "r") {
		testredis.Require(t)
	}
	cli := testredis.RequireTool(t, "redis-cli")
	lab := newNetLab(t)
	var all []*clusterNode
	for i, k := range kinds {
		role := fmt.Sprintf("master%d", i)
		if i >= 3 {
			role = fmt.Sprintf("replica%d", i-3)
		}
		all = append(all, lab.startNode(t, role, k == 'l'))
	}
	masters, replicas := all[:3], all[3:]
	for i, m := range masters {
		m.c.MustDo(t, "CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1))
		from, to := i*5462, min((i+1)*5462, 16384)-1
		m.c.MustDo(t, "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(from), strconv.Itoa(to))
	}
	// A Redis node meets the others when there is one: the joining is
	// not what is tested here.
	meeter := all[0]
	for _, n := range all {
		if !n.lkv {
			meeter = n
			break
		}
	}
	for _, n := range all {
		if n != meeter {
			meeter.c.MustDo(t, "CLUSTER", "MEET", lab.ip(n), n.port, n.bus)
		}
	}
	waitFor(t, 30*time.Second, "six nodes to know each other", func() bool {
		for _, n := range all {
			nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
			if strings.Count(nodes, "\n") != len(all) || strings.Contains(nodes, "handshake") {
				return false
			}
		}
		return true
	})
	for i, r := range replicas {
		r.c.MustDo(t, "CLUSTER", "REPLICATE", masters[i].id)
	}
	for _, r := range replicas {
		waitFor(t, 20*time.Second, r.c.Name+"'s link to its master", func() bool {
			return strings.Contains(r.c.MustDo(t, "INFO", "replication").Str, "master_link_status:up")
		})
	}
	for _, n := range all {
		waitClusterState(t, n, "ok")
	}
	lab.waitCheck(t, cli, all)

	old, heir := masters[0], replicas[0]
	majority := all[1:]
	key := keyInSlots(t, old, 0, 5461)
	if r := old.c.MustDo(t, "SET", key, "before-the-cut"); r.Str != "OK" {
		t.Fatalf("SET on %s before the cut: %q", old.c.Name, r.Raw)
	}

	lab.cut(t, old)
	cut := time.Now()

	// (a) The first refused write, polled every 10 ms.
	var down time.Duration
	for {
		r := old.c.MustDo(t, "SET", key, "during-the-cut")
		if r.IsError() {
			if got := string(r.Raw); got != "-CLUSTERDOWN The cluster is down\r\n" {
				t.Fatalf("%s refused the write with %q", old.c.Name, got)
			}
			down = time.Since(cut)
			break
		}
		if time.Since(cut) > 10*time.Second {
			t.Fatalf("%s still takes writes %v after the cut", old.c.Name, time.Since(cut))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("(a) %s refuses writes with CLUSTERDOWN %v after the cut (node timeout %d ms)",
		old.c.Name, down.Round(time.Millisecond), partitionNodeTimeout)
	if limit := time.Duration(partitionNodeTimeout)*time.Millisecond + time.Second; down > limit {
		t.Errorf("CLUSTERDOWN came %v after the cut, over node timeout + 1 s (%v)", down, limit)
	}

	// (b) The majority promotes the replica.
	var promoted time.Duration
	waitFor(t, 20*time.Second, heir.c.Name+" to be master of 0-5461 on the majority side", func() bool {
		for _, n := range majority {
			line := nodesLine(n.c.MustDo(t, "CLUSTER", "NODES").Str, heir.id)
			if !strings.Contains(line, "master") || !strings.HasSuffix(line, " 0-5461") {
				return false
			}
		}
		promoted = time.Since(cut)
		return true
	})
	t.Logf("(b) the majority sees %s as master of 0-5461 %v after the cut", heir.c.Name, promoted.Round(time.Millisecond))
	for _, n := range majority {
		waitClusterState(t, n, "ok")
	}
	// The old master, still cut off, is still down for writes.
	if r := old.c.MustDo(t, "SET", key, "during-the-cut"); string(r.Raw) != "-CLUSTERDOWN The cluster is down\r\n" {
		t.Errorf("%s during the partition after the failover: %q", old.c.Name, r.Raw)
	}
	if r := heir.c.MustDo(t, "SET", key, "after-the-failover"); r.Str != "OK" {
		t.Fatalf("SET on the promoted %s: %q", heir.c.Name, r.Raw)
	}

	// (c) Healed, the old master turns replica of the new one.
	lab.heal(t, old)
	healed := time.Now()
	waitFor(t, 30*time.Second, old.c.Name+" to replicate "+heir.c.Name+" on every node", func() bool {
		for _, n := range all {
			nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
			if !strings.Contains(nodesLine(nodes, old.id), "slave "+heir.id) {
				return false
			}
		}
		return true
	})
	t.Logf("(c) every node sees %s as %s's replica %v after the heal", old.c.Name, heir.c.Name, time.Since(healed).Round(time.Millisecond))
	for _, n := range all {
		waitClusterState(t, n, "ok")
	}
	var view [16384]string
	for i, n := range all {
		owners, err := slotMasters(n.c.MustDo(t, "CLUSTER", "NODES").Str)
		if err != nil {
			t.Fatalf("%s: %v", n.c.Name, err)
		}
		if owners[0] != heir.id {
			t.Errorf("%s: slot 0 is %s's, not %s's", n.c.Name, owners[0], heir.id)
		}
		if i > 0 && owners != view {
			t.Errorf("%s does not agree with %s about the slots", n.c.Name, all[0].c.Name)
		}
		view = owners
	}
	waitFor(t, 20*time.Second, old.c.Name+"'s link to "+heir.c.Name, func() bool {
		info := old.c.MustDo(t, "INFO", "replication").Str
		return strings.Contains(info, "role:slave") && strings.Contains(info, "master_host:"+lab.ip(heir)+"\r\n") &&
			strings.Contains(info, "master_link_status:up")
	})
	old.c.MustDo(t, "READONLY")
	waitFor(t, 10*time.Second, "the new master's write on "+old.c.Name, func() bool {
		return old.c.MustDo(t, "GET", key).Str == "after-the-failover"
	})
	lab.waitCheck(t, cli, all)
}

// keyInSlots is a key whose slot is in [from, to].
func keyInSlots(t *testing.T, n *clusterNode, from, to int64) string {
	t.Helper()
	for i := 0; ; i++ {
		k := fmt.Sprintf("key:%d", i)
		if s := n.c.MustDo(t, "CLUSTER", "KEYSLOT", k).Int; s >= from && s <= to {
			return k
		}
	}
}

// slotMasters is, from a CLUSTER NODES reply, the ID of each slot's
// master; an error when a slot has none, or two.
func slotMasters(nodes string) ([16384]string, error) {
	var owners [16384]string
	for _, line := range strings.Split(strings.TrimSpace(nodes), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.Contains(f[2], "master") {
			continue
		}
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") {
				continue // a slot being migrated or imported
			}
			lo, hi, ok := strings.Cut(r, "-")
			if !ok {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a < 0 || b >= 16384 || a > b {
				return owners, fmt.Errorf("bad slot range %q in %q", r, line)
			}
			for s := a; s <= b; s++ {
				if owners[s] != "" {
					return owners, fmt.Errorf("slot %d has two masters, %s and %s", s, owners[s], f[0])
				}
				owners[s] = f[0]
			}
		}
	}
	for s, o := range owners {
		if o == "" {
			return owners, fmt.Errorf("slot %d has no master", s)
		}
	}
	return owners, nil
}

// netLab is the test's namespaces: the hub with the bridge (10.77.0.254,
// where redis-cli runs) and one per node.
type netLab struct {
	prefix string
	hub    string
	nodes  map[*clusterNode]int // the node's index: namespace, veth, address
	next   int
}

// netnsPrefix starts every namespace name this package makes, then the
// test process's pid: a run killed before its cleanup leaves namespaces a
// later run recognizes as stale.
const netnsPrefix = "lkvpart"

var netLabSeq atomic.Int32

// newNetLab makes the hub namespace, or skips the test saying why it
// cannot. Everything it and its nodes make goes at the end of the test.
func newNetLab(t *testing.T) *netLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root: run the partition tests as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the partition tests need iproute2's ip to make network namespaces: " + err.Error())
	}
	removeStaleNetns()
	l := &netLab{prefix: fmt.Sprintf("%s%d-%d", netnsPrefix, os.Getpid(), netLabSeq.Add(1)), nodes: map[*clusterNode]int{}}
	l.hub = l.prefix + "-hub"
	if out, err := exec.Command("ip", "netns", "add", l.hub).CombinedOutput(); err != nil {
		t.Skipf("cannot make a network namespace (ip netns add: %v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { delNetns(t, l.hub) })
	ipRun(t, "-n", l.hub, "link", "set", "lo", "up")
	ipRun(t, "-n", l.hub, "link", "add", "br0", "type", "bridge")
	ipRun(t, "-n", l.hub, "addr", "add", "10.77.0.254/24", "dev", "br0")
	ipRun(t, "-n", l.hub, "link", "set", "br0", "up")
	return l
}

// removeStaleNetns deletes the namespaces of test processes that are gone.
func removeStaleNetns() {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest, ok := strings.CutPrefix(name, netnsPrefix)
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		_ = exec.Command("ip", "netns", "del", name).Run()
	}
}

func ipRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func delNetns(t *testing.T, name string) {
	if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
		t.Errorf("ip netns del %s: %v: %s", name, err, out)
	}
}

func (l *netLab) ns(i int) string   { return fmt.Sprintf("%s-n%d", l.prefix, i) }
func (l *netLab) veth(i int) string { return fmt.Sprintf("v%d", i) }

// ip is n's address on the bridge, the one it announces.
func (l *netLab) ip(n *clusterNode) string { return fmt.Sprintf("10.77.0.%d", l.nodes[n]+1) }

// startNode starts a cluster node (limitkv when lkv, else redis-server)
// in a new namespace on the bridge, node timeout partitionNodeTimeout.
func (l *netLab) startNode(t *testing.T, name string, lkv bool) *clusterNode {
	t.Helper()
	i := l.next
	l.next++
	ns, veth, ip := l.ns(i), l.veth(i), fmt.Sprintf("10.77.0.%d", i+1)
	ipRun(t, "netns", "add", ns)
	t.Cleanup(func() { delNetns(t, ns) })
	ipRun(t, "-n", l.hub, "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
	ipRun(t, "-n", l.hub, "link", "set", veth, "master", "br0")
	ipRun(t, "-n", l.hub, "link", "set", veth, "up")
	ipRun(t, "-n", ns, "addr", "add", ip+"/24", "dev", "eth0")
	ipRun(t, "-n", ns, "link", "set", "eth0", "up")
	ipRun(t, "-n", ns, "link", "set", "lo", "up")

	bin := ""
	if lkv {
		bin = limitkvBinary(t)
		name = "limitkv-" + name
	} else {
		bin = testredis.Require(t)
		name = "redis-" + name
	}
	// testredis runs Exec with the server's arguments: this wrapper puts
	// the server in the namespace (ip netns exec execs it, so the pid is
	// the server's and Kill reaches it).
	wrapper := filepath.Join(t.TempDir(), "in-netns.sh")
	script := fmt.Sprintf("#!/bin/sh\nexec ip netns exec %s %s \"$@\"\n", ns, bin)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	bus, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := testredis.Start(testredis.Options{Exec: wrapper, NoWait: true, Args: []string{
		"--bind", ip, "127.0.0.1", "--protected-mode", "no",
		"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-port", strconv.Itoa(bus), "--cluster-announce-ip", ip,
		"--cluster-node-timeout", strconv.Itoa(partitionNodeTimeout), "--enable-debug-command", "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	// p.Addr is 127.0.0.1 in the node's namespace: only a socket made
	// there reaches it.
	deadline := time.Now().Add(20 * time.Second)
	var c *RawConn
	for c == nil {
		nc, err := dialNetns(ns, p.Addr)
		if err == nil {
			c = &RawConn{Name: name, Addr: p.Addr, Timeout: replyTimeout, nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}
			if r, err := c.Do("PING"); err != nil || r.Str != "PONG" {
				c.Close()
				c = nil
			}
		}
		if c == nil {
			if p.Exited() || time.Now().After(deadline) {
				t.Fatalf("%s in %s does not answer PING (%v); log:\n%s", name, ns, err, p.Log())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Cleanup(func() { c.Close() })
	n := &clusterNode{c: c, port: strconv.Itoa(p.Port), bus: strconv.Itoa(bus), proc: p, lkv: lkv}
	n.id = c.MustDo(t, "CLUSTER", "MYID").Str
	if len(n.id) != 40 {
		t.Fatalf("%s: CLUSTER MYID %q", name, n.id)
	}
	l.nodes[n] = i
	return n
}

// cut takes n off the bridge: its veth's hub end goes down.
func (l *netLab) cut(t *testing.T, n *clusterNode) {
	t.Helper()
	ipRun(t, "-n", l.hub, "link", "set", l.veth(l.nodes[n]), "down")
}

// heal puts n back on the bridge.
func (l *netLab) heal(t *testing.T, n *clusterNode) {
	t.Helper()
	ipRun(t, "-n", l.hub, "link", "set", l.veth(l.nodes[n]), "up")
}

// waitCheck waits until redis-cli --cluster check, run in the hub against
// the first node, finds every node agreeing and every slot covered.
func (l *netLab) waitCheck(t *testing.T, cli string, nodes []*clusterNode) {
	t.Helper()
	addr := net.JoinHostPort(l.ip(nodes[0]), nodes[0].port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := exec.Command("ip", "netns", "exec", l.hub, cli, "--cluster", "check", addr).CombinedOutput()
		s := string(out)
		if err == nil && strings.Contains(s, "[OK] All nodes agree about slots configuration.") &&
			strings.Contains(s, "[OK] All 16384 slots covered.") && !strings.Contains(s, "[WARNING]") &&
			!strings.Contains(s, "[ERR]") && strings.Count(s, "M: ")+strings.Count(s, "S: ") >= len(nodes) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-cli --cluster check: %v\n%s", err, out)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// dialNetns connects to addr from inside the namespace ns: a socket
// belongs to the namespace of the thread that made it, so a goroutine
// locked to its thread enters ns, dials, and leaves. Should it fail to
// leave, it exits still locked and Go ends that thread, rather than let
// it run other goroutines in ns.
func dialNetns(ns, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		target, err := os.Open(filepath.Join("/run/netns", ns))
		if err != nil {
			runtime.UnlockOSThread()
			ch <- result{nil, err}
			return
		}
		defer target.Close()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			ch <- result{nil, err}
			return
		}
		defer self.Close()
		if err := setns(target); err != nil {
			runtime.UnlockOSThread()
			ch <- result{nil, fmt.Errorf("setns %s: %w", ns, err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, dialTimeout)
		if back := setns(self); back != nil {
			if c != nil {
				c.Close()
			}
			ch <- result{nil, fmt.Errorf("setns back from %s: %w", ns, back)}
			return
		}
		runtime.UnlockOSThread()
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

func setns(f *os.File) error {
	return unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
}
