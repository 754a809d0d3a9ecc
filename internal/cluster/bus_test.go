package cluster

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/testredis"
)

// testNode is an in-process limitkv cluster node: an engine with its
// cluster component, its cron ticking as the server's would.
type testNode struct {
	*Cluster
	port, cport int
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startNode opens a cluster node on 127.0.0.1 with cluster-node-timeout
// 1000 and the given extra directives.
func startNode(t *testing.T, directives ...string) *testNode {
	t.Helper()
	cfg := config.DefaultConfig()
	port, cport := freePort(t), freePort(t)
	cfg.Port = port
	if err := cfg.SetDir(t.TempDir(), ""); err != nil {
		t.Fatal(err)
	}
	set := append([]string{"cluster-enabled", "yes", "cluster-node-timeout", "1000",
		"cluster-port", strconv.Itoa(cport)}, directives...)
	for i := 0; i+1 < len(set); i += 2 {
		if known, errstr := cfg.ApplyDirective(set[i], []string{set[i+1]}, nil); !known || errstr != "" {
			t.Fatalf("%s %s: known %v, %s", set[i], set[i+1], known, errstr)
		}
	}
	e := newEngine(cfg)
	c, err := Open(e, nil, ListenOn("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				c.Cron()
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return &testNode{Cluster: c, port: port, cport: cport}
}

// locked runs f under the engine's lock, then the clusterBeforeSleep work.
func (n *testNode) locked(f func(st *clusterstate.State)) {
	n.e.Lock()
	defer n.e.Unlock()
	f(n.st)
	n.afterChange()
}

func (n *testNode) meet(t *testing.T, port, cport int) {
	t.Helper()
	n.locked(func(st *clusterstate.State) {
		if _, err := st.StartHandshake("127.0.0.1", port, cport, n.now()); err != nil {
			t.Fatal(err)
		}
	})
}

func (n *testNode) id() string {
	n.e.Lock()
	defer n.e.Unlock()
	return n.st.Myself.ID()
}

func (n *testNode) nodes() string {
	n.e.Lock()
	defer n.e.Unlock()
	return n.st.ClusterNodes(false)
}

// nodeLine is the CLUSTER NODES line of id, "" when not listed.
func nodeLine(nodes, id string) string {
	for _, line := range strings.Split(nodes, "\n") {
		if strings.HasPrefix(line, id+" ") {
			return line
		}
	}
	return ""
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// known reports whether nodes lists id as a node past its handshake.
func known(nodes, id string) bool {
	line := nodeLine(nodes, id)
	return line != "" && !strings.Contains(line, "handshake")
}

func TestTwoNodesHandshake(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hostname string
	}{
		{"plain", ""},
		{"hostname", "node-a.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var extra []string
			if tc.hostname != "" {
				extra = []string{"cluster-announce-hostname", tc.hostname}
			}
			a, b := startNode(t, extra...), startNode(t)
			a.meet(t, b.port, b.cport)
			aid, bid := a.id(), b.id()
			eventually(t, 5*time.Second, "both nodes to know each other", func() bool {
				an, bn := a.nodes(), b.nodes()
				return known(an, bid) && known(bn, aid) &&
					strings.Count(an, "\n") == 2 && strings.Count(bn, "\n") == 2
			})
			if line := nodeLine(b.nodes(), aid); !strings.Contains(line, "connected") ||
				!strings.Contains(line, fmt.Sprintf("127.0.0.1:%d@%d", a.port, a.cport)) {
				t.Errorf("b sees a as %q", line)
			}
			if tc.hostname != "" {
				eventually(t, 3*time.Second, "the hostname to travel", func() bool {
					return strings.Contains(nodeLine(b.nodes(), aid), ","+tc.hostname+" ")
				})
			}
			// Both directions carry links once each side dialed the other.
			eventually(t, 3*time.Second, "links both ways", func() bool {
				a.e.Lock()
				defer a.e.Unlock()
				dirs := map[string]bool{}
				for _, li := range a.linksInfo() {
					if li.Node == bid {
						dirs[li.Direction] = true
					}
				}
				return dirs["to"] && dirs["from"]
			})
			a.e.Lock()
			sent, received := a.st.MessagesSent, a.st.MessagesReceived
			a.e.Unlock()
			if sent[2] != 1 || received[1] == 0 { // one MEET, answered
				t.Errorf("a's counts: sent %v received %v", sent, received)
			}
		})
	}
}

// TestFailureDetection: a node that stops answering is PFAIL after the
// node timeout and, with the other master's report, FAIL.
func TestFailureDetection(t *testing.T) {
	a, b, c := startNode(t), startNode(t), startNode(t)
	a.meet(t, b.port, b.cport)
	a.meet(t, c.port, c.cport)
	cid := c.id()
	eventually(t, 5*time.Second, "three nodes to know each other", func() bool {
		return known(a.nodes(), cid) && known(b.nodes(), cid) && known(b.nodes(), a.id()) &&
			known(c.nodes(), b.id())
	})
	// Masters with slots: only their reports count.
	a.locked(func(st *clusterstate.State) { st.AddSlot(st.Myself, 0); st.BumpConfigEpochWithoutConsensus() })
	b.locked(func(st *clusterstate.State) { st.AddSlot(st.Myself, 1); st.BumpConfigEpochWithoutConsensus() })
	c.locked(func(st *clusterstate.State) { st.AddSlot(st.Myself, 2); st.BumpConfigEpochWithoutConsensus() })
	eventually(t, 5*time.Second, "the slots to spread", func() bool {
		return strings.HasSuffix(nodeLine(a.nodes(), cid), " 2")
	})
	c.stopBus()
	eventually(t, 6*time.Second, "c to be FAIL on a and b", func() bool {
		return strings.Contains(nodeLine(a.nodes(), cid), "fail ") &&
			strings.Contains(nodeLine(b.nodes(), cid), "fail ")
	})
}
