package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// Replica migration across implementations. Two masters: "rich" has two
// replicas, "poor" one. kill -9 of poor's replica leaves poor orphaned;
// once it has been orphaned for 5 s (CLUSTER_SLAVE_MIGRATION_DELAY), the
// replica of rich with the smaller node ID, and only it, becomes poor's
// replica, with poor's data; rich keeps the other (cluster-migration-barrier
// 1). redis-cli --cluster check is clean after the dead node is forgotten.
//
// Two layouts: limitkv replicas of a Redis master moving to a limitkv
// master (limitkv decides), and Redis replicas of a limitkv master moving
// to a Redis master (Redis decides from what limitkv gossips).
func TestClusterMixedReplicaMigration(t *testing.T) {
	clusterSuite(t, "five servers and a replica migration, twice")
	testredis.Require(t)
	for _, tc := range []struct {
		name string
		// kinds of rich, poor, rich's two replicas and poor's replica:
		// 'l' limitkv, 'r' redis-server.
		kinds string
	}{
		{"limitkv replicas move from Redis to limitkv", "rlllr"},
		{"Redis replicas move from limitkv to Redis", "lrrrl"},
	} {
		t.Run(tc.name, func(t *testing.T) { replicaMigration(t, tc.kinds) })
	}
}

func replicaMigration(t *testing.T, kinds string) {
	names := []string{"rich", "poor", "rich-replica-1", "rich-replica-2", "poor-replica"}
	var all []*clusterNode
	for i, k := range kinds {
		kind := "redis"
		if k == 'l' {
			kind = "limitkv"
		}
		all = append(all, startClusterNode(t, kind+"-"+names[i], k == 'l'))
	}
	rich, poor, r1, r2, dead := all[0], all[1], all[2], all[3], all[4]
	for i, m := range []*clusterNode{rich, poor} {
		m.c.MustDo(t, "CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1))
		m.c.MustDo(t, "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(i*8192), strconv.Itoa(i*8192+8191))
	}
	// A Redis node meets the others in both layouts, as in
	// TestClusterMixedFailover: the joining is not what is tested here.
	meeter := rich
	if meeter.lkv {
		meeter = poor
	}
	for _, n := range all {
		if n != meeter {
			meeter.c.MustDo(t, "CLUSTER", "MEET", "127.0.0.1", n.port, n.bus)
		}
	}
	var view string // the last view short of the goal, for the failure
	waitFor(t, 20*time.Second, "five nodes to know each other", func() bool {
		for _, n := range all {
			nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
			if strings.Count(nodes, "\n") != len(all) || strings.Contains(nodes, "handshake") {
				if view != n.c.Name+":\n"+nodes {
					view = n.c.Name + ":\n" + nodes
					t.Log(view)
				}
				return false
			}
		}
		return true
	})
	for _, r := range []*clusterNode{r1, r2} {
		r.c.MustDo(t, "CLUSTER", "REPLICATE", rich.id)
	}
	dead.c.MustDo(t, "CLUSTER", "REPLICATE", poor.id)
	for _, n := range all[2:] {
		waitFor(t, 20*time.Second, n.c.Name+"'s link to its master", func() bool {
			return strings.Contains(n.c.MustDo(t, "INFO", "replication").Str, "master_link_status:up")
		})
	}
	for _, n := range all {
		waitClusterState(t, n, "ok")
	}
	// Every node must know the roles before the kill: a node that learned
	// of poor's replica only after its FAIL would never see poor as a
	// master that had replicas.
	waitFor(t, 10*time.Second, "every node to see the three replicas", func() bool {
		for _, n := range all {
			nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
			if !strings.Contains(nodesLine(nodes, r1.id), "slave "+rich.id) ||
				!strings.Contains(nodesLine(nodes, r2.id), "slave "+rich.id) ||
				!strings.Contains(nodesLine(nodes, dead.id), "slave "+poor.id) {
				return false
			}
		}
		return true
	})
	mover, stayer := r1, r2
	if r2.id < r1.id {
		mover, stayer = r2, r1
	}
	key := ""
	for i := 0; key == ""; i++ {
		if k := fmt.Sprintf("key:%d", i); poor.c.MustDo(t, "CLUSTER", "KEYSLOT", k).Int >= 8192 {
			key = k
		}
	}
	poor.c.MustDo(t, "SET", key, "written-on-poor")

	dead.proc.Kill()
	killed := time.Now()
	survivors := all[:4]
	waitFor(t, 30*time.Second, mover.c.Name+" to replicate poor", func() bool {
		for _, n := range survivors {
			nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
			if !strings.Contains(nodesLine(nodes, mover.id), "slave "+poor.id) ||
				!strings.Contains(nodesLine(nodes, stayer.id), "slave "+rich.id) {
				return false
			}
		}
		return true
	})
	took := time.Since(killed)
	t.Logf("%s replicates the orphaned %s %v after kill -9 of its replica (node timeout 2 s, migration delay 5 s)",
		mover.c.Name, poor.c.Name, took.Round(10*time.Millisecond))
	// The FAIL takes a node timeout, then the orphan must stay orphaned
	// for the delay: sooner means the delay was skipped.
	if took < 5*time.Second {
		t.Errorf("migrated %v after the kill, before the 5 s delay", took)
	}
	if log := mover.proc.Log(); !strings.Contains(log, "Migrating to orphaned master "+poor.id) {
		t.Errorf("%s did not log its migration:\n%s", mover.c.Name, log)
	}
	if strings.Contains(stayer.proc.Log(), "Migrating to orphaned master") {
		t.Errorf("%s migrated too:\n%s", stayer.c.Name, stayer.proc.Log())
	}
	waitFor(t, 20*time.Second, mover.c.Name+"'s link to poor", func() bool {
		info := mover.c.MustDo(t, "INFO", "replication").Str
		return strings.Contains(info, "master_port:"+poor.port+"\r\n") && strings.Contains(info, "master_link_status:up")
	})
	mover.c.MustDo(t, "READONLY")
	waitFor(t, 10*time.Second, "poor's key on "+mover.c.Name, func() bool {
		return mover.c.MustDo(t, "GET", key).Str == "written-on-poor"
	})
	// Still true a few cron turns later: nobody else moved.
	time.Sleep(time.Second)
	for _, n := range survivors {
		nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
		if !strings.Contains(nodesLine(nodes, stayer.id), "slave "+rich.id) {
			t.Errorf("%s sees %s: %s", n.c.Name, stayer.c.Name, nodesLine(nodes, stayer.id))
		}
	}

	// The dead node is forgotten, as an admin removing it would: the
	// check then looks at the four nodes left.
	for _, n := range survivors {
		n.c.MustDo(t, "CLUSTER", "FORGET", dead.id)
	}
	m := &mixedCluster{cli: testredis.RequireTool(t, "redis-cli"), nodes: survivors}
	m.waitCheck(t, poor)
}

// A master whose every slot goes to another node follows that node when
// cluster-allow-replica-migration is yes, and stays a master without
// slots when no (clusterUpdateSlotsConfigWith, and CLUSTER SETSLOT NODE
// giving away the last slot). Each case is run with the emptied master a
// limitkv node and a Redis one, the other node the other kind: the same
// outcome on both is Redis's behaviour.
func TestClusterEmptiedMasterFollows(t *testing.T) {
	clusterSuite(t, "two servers, eight times")
	testredis.Require(t)
	for _, allow := range []string{"yes", "no"} {
		// gossip: only the taker runs SETSLOT and its pings, with the
		// greater epoch, take the slots from the emptied master. setslot:
		// the emptied master gives its slots away itself first.
		for _, via := range []string{"gossip", "setslot"} {
			for _, lkvEmptied := range []bool{true, false} {
				kind := "redis"
				if lkvEmptied {
					kind = "limitkv"
				}
				name := fmt.Sprintf("allow=%s/via=%s/emptied=%s", allow, via, kind)
				t.Run(name, func(t *testing.T) { emptiedMaster(t, allow, via, lkvEmptied) })
			}
		}
	}
}

func emptiedMaster(t *testing.T, allow, via string, lkvEmptied bool) {
	kind := func(lkv bool) string {
		if lkv {
			return "limitkv"
		}
		return "redis"
	}
	a := startClusterNode(t, kind(lkvEmptied)+"-emptied", lkvEmptied)
	b := startClusterNode(t, kind(!lkvEmptied)+"-taker", !lkvEmptied)
	a.c.MustDo(t, "CONFIG", "SET", "cluster-allow-replica-migration", allow)
	a.c.MustDo(t, "CLUSTER", "SET-CONFIG-EPOCH", "1")
	a.c.MustDo(t, "CLUSTER", "ADDSLOTSRANGE", "0", "9")
	b.c.MustDo(t, "CLUSTER", "SET-CONFIG-EPOCH", "2")
	b.c.MustDo(t, "CLUSTER", "ADDSLOTSRANGE", "10", "16383")
	meeter, other := a, b
	if meeter.lkv {
		meeter, other = b, a
	}
	meeter.c.MustDo(t, "CLUSTER", "MEET", "127.0.0.1", other.port, other.bus)
	waitFor(t, 20*time.Second, "the two nodes to know each other's slots", func() bool {
		return strings.HasSuffix(nodesLine(a.c.MustDo(t, "CLUSTER", "NODES").Str, b.id), " 10-16383") &&
			strings.HasSuffix(nodesLine(b.c.MustDo(t, "CLUSTER", "NODES").Str, a.id), " 0-9")
	})
	order := []*clusterNode{b}
	if via == "setslot" {
		order = []*clusterNode{a, b}
	}
	for _, n := range order {
		for s := 0; s < 10; s++ {
			if r := n.c.MustDo(t, "CLUSTER", "SETSLOT", strconv.Itoa(s), "NODE", b.id); r.Str != "OK" {
				t.Fatalf("%s CLUSTER SETSLOT %d NODE: %q", n.c.Name, s, r.Raw)
			}
		}
	}
	waitFor(t, 20*time.Second, "both nodes to see every slot on "+b.c.Name, func() bool {
		for _, n := range []*clusterNode{a, b} {
			if !strings.HasSuffix(nodesLine(n.c.MustDo(t, "CLUSTER", "NODES").Str, b.id), " 0-16383") {
				return false
			}
		}
		return true
	})
	if allow == "yes" {
		waitFor(t, 10*time.Second, a.c.Name+" to replicate "+b.c.Name, func() bool {
			return strings.Contains(nodesLine(a.c.MustDo(t, "CLUSTER", "NODES").Str, a.id), "myself,slave "+b.id) &&
				strings.Contains(nodesLine(b.c.MustDo(t, "CLUSTER", "NODES").Str, a.id), "slave "+b.id) &&
				strings.Contains(a.c.MustDo(t, "INFO", "replication").Str, "master_port:"+b.port+"\r\n")
		})
		return
	}
	// A few pings later it is still a master, without slots.
	time.Sleep(2 * time.Second)
	if line := nodesLine(a.c.MustDo(t, "CLUSTER", "NODES").Str, a.id); !strings.Contains(line, "myself,master - ") ||
		!strings.HasSuffix(line, " connected") {
		t.Errorf("%s with cluster-allow-replica-migration no: %s", a.c.Name, line)
	}
	if info := a.c.MustDo(t, "INFO", "replication").Str; !strings.Contains(info, "role:master") {
		t.Errorf("%s replicates:\n%s", a.c.Name, info)
	}
}
