package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// Failover across implementations. Four masters, two of each (a quarter
// of the slots each), a limitkv replica of a Redis master and a Redis
// replica of a limitkv master. With four masters a failover needs three
// votes: the three masters left, so each vote is proven by the election.
//
//  1. kill -9 of the Redis master: its limitkv replica is elected, the
//     Redis master left among the voters.
//  2. kill -9 of the limitkv master: its Redis replica is elected by the
//     promoted limitkv replica, the other limitkv master and Redis.
//
// Each new master serves its slots with the data it replicated, and every
// node agrees.
func TestClusterMixedFailover(t *testing.T) {
	clusterSuite(t, "six servers and two failovers")
	testredis.Require(t)
	r1 := startClusterNode(t, "redis-m1", false)
	l1 := startClusterNode(t, "limitkv-m1", true)
	r2 := startClusterNode(t, "redis-m2", false)
	l2 := startClusterNode(t, "limitkv-m2", true)
	lr := startClusterNode(t, "limitkv-replica-of-redis", true)
	rl := startClusterNode(t, "redis-replica-of-limitkv", false)
	masters := []*clusterNode{r1, l1, r2, l2}
	all := []*clusterNode{r1, l1, r2, l2, lr, rl}
	for i, m := range masters {
		m.c.MustDo(t, "CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1))
		m.c.MustDo(t, "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(i*4096), strconv.Itoa(i*4096+4095))
	}
	for _, n := range all[1:] {
		r1.c.MustDo(t, "CLUSTER", "MEET", "127.0.0.1", n.port, n.bus)
	}
	waitFor(t, 20*time.Second, "six nodes to know each other", func() bool {
		for _, n := range all {
			nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
			if strings.Count(nodes, "\n") != 6 || strings.Contains(nodes, "handshake") {
				return false
			}
		}
		return true
	})
	lr.c.MustDo(t, "CLUSTER", "REPLICATE", r1.id)
	rl.c.MustDo(t, "CLUSTER", "REPLICATE", l1.id)
	for _, n := range []*clusterNode{lr, rl} {
		waitFor(t, 20*time.Second, n.c.Name+"'s link to its master", func() bool {
			return strings.Contains(n.c.MustDo(t, "INFO", "replication").Str, "master_link_status:up")
		})
	}
	for _, n := range all {
		waitClusterState(t, n, "ok")
	}
	// A key in each shard to fail over, written on its master and seen on
	// the replica.
	keyIn := func(m *clusterNode, from int) string {
		for i := 0; ; i++ {
			k := fmt.Sprintf("key:%d", i)
			if s := int(m.c.MustDo(t, "CLUSTER", "KEYSLOT", k).Int); s >= from && s < from+4096 {
				return k
			}
		}
	}
	k1, k2 := keyIn(r1, 0), keyIn(l1, 4096)
	r1.c.MustDo(t, "SET", k1, "from-redis")
	l1.c.MustDo(t, "SET", k2, "from-limitkv")
	lr.c.MustDo(t, "READONLY")
	rl.c.MustDo(t, "READONLY")
	waitFor(t, 10*time.Second, "the keys on the replicas", func() bool {
		return lr.c.MustDo(t, "GET", k1).Str == "from-redis" && rl.c.MustDo(t, "GET", k2).Str == "from-limitkv"
	})

	// A manual failover each way: CLUSTER FAILOVER on the limitkv replica
	// (the Redis master pauses and sends its offset), then back on the
	// Redis replica it leaves behind (limitkv's master does).
	manual := func(replica, master *clusterNode, slots string) {
		t.Helper()
		waitFor(t, 20*time.Second, replica.c.Name+"'s link to its master", func() bool {
			return strings.Contains(replica.c.MustDo(t, "INFO", "replication").Str, "master_link_status:up")
		})
		start := time.Now()
		if r := replica.c.MustDo(t, "CLUSTER", "FAILOVER"); r.Str != "OK" {
			t.Fatalf("%s CLUSTER FAILOVER: %q", replica.c.Name, r.Raw)
		}
		waitFor(t, 15*time.Second, replica.c.Name+" and "+master.c.Name+" to swap", func() bool {
			for _, n := range all {
				nodes := n.c.MustDo(t, "CLUSTER", "NODES").Str
				if !strings.HasSuffix(nodesLine(nodes, replica.id), " "+slots) ||
					!strings.Contains(nodesLine(nodes, master.id), "slave "+replica.id) {
					return false
				}
			}
			return true
		})
		t.Logf("CLUSTER FAILOVER on %s took %v", replica.c.Name, time.Since(start).Round(10*time.Millisecond))
		if !strings.Contains(master.proc.Log(), "Manual failover requested by replica "+replica.id) {
			t.Errorf("%s did not pause for the manual failover:\n%s", master.c.Name, master.proc.Log())
		}
	}
	manual(lr, r1, "0-4095")
	manual(r1, lr, "0-4095")
	for _, n := range all {
		waitClusterState(t, n, "ok")
	}
	waitFor(t, 20*time.Second, "lr's link to r1 again", func() bool {
		return strings.Contains(lr.c.MustDo(t, "INFO", "replication").Str, "master_link_status:up")
	})

	failover := func(dead, heir *clusterNode, slots string, survivors []*clusterNode, voters []*clusterNode) {
		t.Helper()
		dead.proc.Kill()
		start := time.Now()
		waitFor(t, 30*time.Second, heir.c.Name+" to take over "+slots, func() bool {
			for _, n := range survivors {
				line := nodesLine(n.c.MustDo(t, "CLUSTER", "NODES").Str, heir.id)
				if !strings.Contains(line, "master") || !strings.HasSuffix(line, " "+slots) {
					return false
				}
			}
			return true
		})
		t.Logf("%s is master %v after kill -9 of %s (node timeout 2 s)", heir.c.Name, time.Since(start).Round(10*time.Millisecond), dead.c.Name)
		for _, v := range voters {
			if !strings.Contains(v.proc.Log(), "Failover auth granted to "+heir.id) {
				t.Errorf("%s did not log its vote for %s:\n%s", v.c.Name, heir.c.Name, v.proc.Log())
			}
		}
		for _, n := range survivors {
			waitClusterState(t, n, "ok")
		}
	}

	failover(r1, lr, "0-4095", []*clusterNode{l1, r2, l2, lr, rl}, []*clusterNode{l1, r2, l2})
	if got := lr.c.MustDo(t, "GET", k1).Str; got != "from-redis" {
		t.Errorf("%s on the promoted limitkv: %q", k1, got)
	}
	lr.c.MustDo(t, "SET", k1, "written-after")

	failover(l1, rl, "4096-8191", []*clusterNode{r2, l2, lr, rl}, []*clusterNode{r2, l2, lr})
	if got := rl.c.MustDo(t, "GET", k2).Str; got != "from-limitkv" {
		t.Errorf("%s on the promoted Redis: %q", k2, got)
	}
}

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// nodesLine is the CLUSTER NODES line of id.
func nodesLine(nodes, id string) string {
	for _, line := range strings.Split(nodes, "\n") {
		if strings.HasPrefix(line, id+" ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
