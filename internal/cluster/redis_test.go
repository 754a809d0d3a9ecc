package cluster

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/testredis"
)

// clusterRedis is a real redis-server 7.0 cluster node.
type clusterRedis struct {
	*testredis.Proc
	bus int
	cli *testredis.Conn
	id  string
}

func startClusterRedis(t *testing.T) *clusterRedis {
	t.Helper()
	testredis.RequireVersion(t, "7.0.")
	bus := freePort(t)
	dir := t.TempDir()
	p := testredis.StartWith(t, testredis.Options{Dir: dir, Args: []string{
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
		"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", "1000"}})
	r := &clusterRedis{Proc: p, bus: bus, cli: testredis.DialRESP(t, p.Addr)}
	r.id, _ = r.cli.Do(t, "CLUSTER", "MYID").(string)
	return r
}

func (r *clusterRedis) nodes(t *testing.T) string {
	s, _ := r.cli.Do(t, "CLUSTER", "NODES").(string)
	return s
}

// TestMixedCluster puts a limitkv node and a Redis 7.0.15 node in one
// cluster, each way of meeting, and checks that they agree on who is who,
// on the slots each serves, on PUBLISH, and that we see Redis fail.
func TestMixedCluster(t *testing.T) {
	for _, tc := range []struct {
		name      string
		redisMeet bool // Redis sends the MEET (else we do)
	}{
		{"redis meets limitkv", true},
		{"limitkv meets redis", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startClusterRedis(t)
			n := startNode(t)
			if tc.redisMeet {
				r.cli.Do(t, "CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(n.port), strconv.Itoa(n.cport))
			} else {
				n.meet(t, r.Port, r.bus)
			}
			nid := n.id()
			eventually(t, 5*time.Second, "the nodes to know each other", func() bool {
				return known(n.nodes(), r.id) && known(r.nodes(t), nid)
			})
			if line := nodeLine(r.nodes(t), nid); !strings.Contains(line,
				fmt.Sprintf(" 127.0.0.1:%d@%d master - ", n.port, n.cport)) {
				t.Errorf("Redis sees us as %q", line)
			}
			if line := nodeLine(n.nodes(), r.id); !strings.Contains(line,
				fmt.Sprintf(" 127.0.0.1:%d@%d master - ", r.Port, r.bus)) {
				t.Errorf("we see Redis as %q", line)
			}

			// Slots both ways: Redis's ADDSLOTSRANGE reaches us by its
			// PINGs, ours (with an epoch, as a fresh cluster gets one)
			// reaches Redis by ours.
			r.cli.Do(t, "CLUSTER", "ADDSLOTSRANGE", "0", "8191")
			n.locked(func(st *clusterstate.State) {
				for j := 8192; j < clusterstate.Slots; j++ {
					st.AddSlot(st.Myself, j)
				}
				st.BumpConfigEpochWithoutConsensus()
				st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
			})
			eventually(t, 5*time.Second, "the slots to spread", func() bool {
				return strings.HasSuffix(nodeLine(n.nodes(), r.id), " 0-8191") &&
					strings.HasSuffix(nodeLine(r.nodes(t), nid), " 8192-16383")
			})
			eventually(t, 6*time.Second, "both to say the cluster is ok", func() bool {
				n.e.Lock()
				ok := n.st.Health == clusterstate.StateOK
				n.e.Unlock()
				info, _ := r.cli.Do(t, "CLUSTER", "INFO").(string)
				return ok && strings.Contains(info, "cluster_state:ok")
			})
			// The epochs were sorted out: distinct config epochs.
			n.e.Lock()
			ourEpoch, redisEpoch := n.st.Myself.ConfigEpoch, n.st.LookupID(r.id).ConfigEpoch
			n.e.Unlock()
			if ourEpoch == redisEpoch {
				eventually(t, 3*time.Second, "the epoch collision to be resolved", func() bool {
					n.e.Lock()
					defer n.e.Unlock()
					return n.st.Myself.ConfigEpoch != n.st.LookupID(r.id).ConfigEpoch
				})
			}

			// PUBLISH both ways.
			sub := testredis.DialRESP(t, r.Addr)
			sub.Do(t, "SUBSCRIBE", "news")
			n.e.Lock()
			n.PropagatePublish([]byte("news"), []byte("from limitkv"), false)
			n.e.Unlock()
			v, err := sub.Read(3 * time.Second)
			if err != nil {
				t.Fatalf("Redis's subscriber: %v", err)
			}
			if msg, _ := v.([]any); len(msg) != 3 || msg[2] != "from limitkv" {
				t.Errorf("Redis's subscriber got %v", v)
			}
			r.cli.Do(t, "PUBLISH", "news", "from redis")
			eventually(t, 3*time.Second, "Redis's PUBLISH to reach us", func() bool {
				n.e.Lock()
				defer n.e.Unlock()
				return n.st.MessagesReceived[clusterbus.TypePublish] > 0
			})

			// Redis drops what it cannot read with a line in its log.
			for _, bad := range []string{"invalid", "Bad message", "unknown", "mismatching"} {
				if strings.Contains(r.Log(), bad) {
					t.Errorf("Redis's log has %q:\n%s", bad, r.Log())
				}
			}

			// Redis dies: we flag it PFAIL after the node timeout.
			r.Kill()
			eventually(t, 5*time.Second, "Redis to be PFAIL", func() bool {
				return strings.Contains(nodeLine(n.nodes(), r.id), "fail?")
			})
		})
	}
}

// TestMixedGossip: nodes we never met reach us through Redis's gossip,
// and ours reach Redis the same way.
func TestMixedGossip(t *testing.T) {
	r1, r2 := startClusterRedis(t), startClusterRedis(t)
	n1, n2 := startNode(t), startNode(t)
	// Two pairs, joined by one MEET between them: every node must learn
	// the two it never met from gossip.
	r1.cli.Do(t, "CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(n1.port), strconv.Itoa(n1.cport))
	n2.meet(t, r2.Port, r2.bus)
	eventually(t, 5*time.Second, "the pairs", func() bool {
		return known(n1.nodes(), r1.id) && known(n2.nodes(), r2.id)
	})
	n1.meet(t, n2.port, n2.cport)
	ids := []string{r1.id, r2.id, n1.id(), n2.id()}
	eventually(t, 8*time.Second, "everyone to know everyone", func() bool {
		for _, nodes := range []string{r1.nodes(t), r2.nodes(t), n1.nodes(), n2.nodes()} {
			for _, id := range ids {
				if !known(nodes, id) || strings.Contains(nodeLine(nodes, id), "disconnected") {
					return false
				}
			}
		}
		return true
	})
}

// TestMixedFail: a Redis master dies; Redis and we, both masters with
// slots, agree it FAILs, which takes both our failure reports (gossip)
// and the FAIL message to reach the other.
func TestMixedFail(t *testing.T) {
	r1, r2 := startClusterRedis(t), startClusterRedis(t)
	n := startNode(t)
	r1.cli.Do(t, "CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(n.port), strconv.Itoa(n.cport))
	r1.cli.Do(t, "CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(r2.Port), strconv.Itoa(r2.bus))
	r1.cli.Do(t, "CLUSTER", "ADDSLOTSRANGE", "0", "5000")
	r2.cli.Do(t, "CLUSTER", "ADDSLOTSRANGE", "5001", "10000")
	n.locked(func(st *clusterstate.State) {
		for j := 10001; j < clusterstate.Slots; j++ {
			st.AddSlot(st.Myself, j)
		}
		st.BumpConfigEpochWithoutConsensus()
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
	})
	eventually(t, 8*time.Second, "every slot known everywhere", func() bool {
		for _, nodes := range []string{r1.nodes(t), r2.nodes(t), n.nodes()} {
			if !strings.HasSuffix(nodeLine(nodes, r1.id), " 0-5000") ||
				!strings.HasSuffix(nodeLine(nodes, r2.id), " 5001-10000") ||
				!strings.HasSuffix(nodeLine(nodes, n.id()), " 10001-16383") {
				return false
			}
		}
		return true
	})
	r2.Kill()
	eventually(t, 8*time.Second, "r2 to FAIL on both", func() bool {
		return strings.Contains(nodeLine(n.nodes(), r2.id), "master,fail ") &&
			strings.Contains(nodeLine(r1.nodes(t), r2.id), "master,fail ")
	})
}
