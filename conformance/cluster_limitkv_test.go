package conformance

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A cluster of limitkv nodes only, as redis-cli --cluster create makes it
// (six nodes, one replica each; TestClusterMixedCreate proves the making):
// redis-cli --cluster reshard moves 100 slots from one limitkv master to
// another while a ClusterClient writes plain keys and the seed's script,
// and nothing is lost or doubled; then one master is killed (kill -9), its
// limitkv replica is elected by the two masters left and serves the slots
// with every key, the survivors agree on the slots, and --cluster check is
// clean.
func TestClusterLimitkvReshardFailover(t *testing.T) {
	clusterSuite(t, "six servers, a reshard and a failover")
	m := startMixedCluster(t, "llllll", 1)
	masters := m.masters(t)
	if len(masters) != 3 {
		t.Fatalf("%d masters, want 3", len(masters))
	}
	from, to := masters[0], masters[1]
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.clusterAddrs(), MaxRedirects: 16})
	defer cc.Close()
	w := startClusterWriter(t, cc)
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	before := countTrue(ownedSlots(t, to))
	m.cliCluster(t, "reshard", from.proc.Addr, "--cluster-from", from.id, "--cluster-to", to.id,
		"--cluster-slots", "100", "--cluster-yes")
	t.Logf("reshard of 100 slots between limitkv masters under writes: %v", time.Since(start).Round(time.Millisecond))
	m.waitCheck(t, to)
	w.halt()
	if got := countTrue(ownedSlots(t, to)); got != before+100 {
		t.Errorf("%s serves %d slots after the reshard, %d before", to.c.Name, got, before)
	}
	w.verify(t)
	keys := int64(len(w.vals) + len(w.tenants))
	checkKeysInOwnSlots(t, masters, keys)
	sameSlotsEverywhere(t, m.nodes)

	// The failover: the master that received the slots dies once its
	// replica has every write (WAIT), so every key must survive.
	var heir *clusterNode
	for _, n := range m.nodes {
		if strings.Contains(string(n.c.MustDo(t, "INFO", "replication").Raw), "master_port:"+to.port+"\r\n") {
			heir = n
		}
	}
	if heir == nil {
		t.Fatalf("no replica of %s", to.c.Name)
	}
	if r := to.c.MustDo(t, "WAIT", "1", "5000"); r.Int != 1 {
		t.Fatalf("WAIT 1 on %s: %q", to.c.Name, r.Raw)
	}
	slots := countTrue(ownedSlots(t, to))
	to.proc.Kill()
	start = time.Now()
	var survivors []*clusterNode
	for _, n := range m.nodes {
		if n != to {
			survivors = append(survivors, n)
		}
	}
	waitFor(t, 30*time.Second, heir.c.Name+" elected in place of "+to.c.Name, func() bool {
		for _, n := range survivors {
			line := nodesLine(n.c.MustDo(t, "CLUSTER", "NODES").Str, heir.id)
			if !strings.Contains(line, "master") {
				return false
			}
		}
		return true
	})
	t.Logf("%s is master %v after kill -9 of %s (node timeout 2 s)", heir.c.Name, time.Since(start).Round(10*time.Millisecond), to.c.Name)
	for _, n := range survivors {
		waitClusterState(t, n, "ok")
	}
	if got := countTrue(ownedSlots(t, heir)); got != slots {
		t.Errorf("%s serves %d slots, its dead master %d", heir.c.Name, got, slots)
	}
	sameSlotsEverywhere(t, survivors)
	waitClusterCheck(t, m.cli, heir, to)
	cc.ReloadState(ctx)
	waitFor(t, 10*time.Second, "the client to reach "+heir.c.Name, func() bool {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() }) == nil
	})
	w.verify(t)
	checkKeysInOwnSlots(t, []*clusterNode{masters[0], heir, masters[2]}, keys)
}

// waitClusterCheck waits until redis-cli --cluster check, asked of n,
// finds the slots covered and agreed on by every node it reaches; dead,
// killed, is known to the others as a failed node, which check cannot
// connect to and leaves out of its listing.
func waitClusterCheck(t *testing.T, cli string, n, dead *clusterNode) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := exec.Command(cli, "--cluster", "check", n.proc.Addr).CombinedOutput()
		out := string(b)
		if err == nil && strings.Contains(out, "[OK] All nodes agree about slots configuration.") &&
			strings.Contains(out, "[OK] All 16384 slots covered.") && !strings.Contains(out, "[ERR]") &&
			!strings.Contains(out, "[WARNING]") && !strings.Contains(out, dead.id) {
			t.Logf("redis-cli --cluster check after the failover:\n%s", out)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-cli --cluster check without %s: %v\n%s", dead.c.Name, err, out)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// sameSlotsEverywhere checks that every node's CLUSTER NODES gives each
// master the same slots, and covers every slot once.
func sameSlotsEverywhere(t *testing.T, nodes []*clusterNode) {
	t.Helper()
	var first map[string]string
	for _, n := range nodes {
		view := map[string]string{}
		covered := 0
		for _, line := range strings.Split(strings.TrimSpace(n.c.MustDo(t, "CLUSTER", "NODES").Str), "\n") {
			f := strings.Fields(line)
			// A replica is a master without slots until the others hear
			// of its REPLICATE: the slots are what must agree.
			if len(f) < 9 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
				continue
			}
			view[f[0]] = strings.Join(f[8:], " ")
			for _, r := range f[8:] {
				lo, hi, _ := strings.Cut(r, "-")
				a, _ := strconv.Atoi(lo)
				b := a
				if hi != "" {
					b, _ = strconv.Atoi(hi)
				}
				covered += b - a + 1
			}
		}
		if covered != 16384 {
			t.Errorf("%s's CLUSTER NODES covers %d slots", n.c.Name, covered)
		}
		if first == nil {
			first = view
			continue
		}
		if fmt.Sprint(view) != fmt.Sprint(first) {
			t.Errorf("%s's masters and slots:\n%v\n%s's:\n%v", n.c.Name, view, nodes[0].c.Name, first)
		}
	}
}
