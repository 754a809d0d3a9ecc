package cluster

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/resp"
)

// voteFixture is a state seen by a master with slots 0-99 at epoch 5: a
// master m (slots 100-199, epoch 3, FAIL) with a replica r, and another
// master o (slots 200-299, epoch 7).
type voteFixture struct {
	c       *Cluster
	m, r, o *clusterstate.Node
	now     int64
}

func newVoteFixture() *voteFixture {
	const now = 1_700_000_000_000
	st := clusterstate.New(now)
	st.NodeTimeout = 1000
	st.CurrentEpoch = 7
	me := st.Myself
	me.ConfigEpoch = 5
	f := &voteFixture{c: &Cluster{st: st, bus: &bus{}}, now: now}
	add := func(name string, flags clusterstate.Flags, epoch uint64, from, to int) *clusterstate.Node {
		n := clusterstate.NewNode(clusterstate.Name([]byte(strings.Repeat(name, 40))), flags, now)
		n.ConfigEpoch = epoch
		_ = st.AddNode(n)
		for j := from; j < to; j++ {
			st.AddSlot(n, j)
		}
		return n
	}
	for j := 0; j < 100; j++ {
		st.AddSlot(me, j)
	}
	f.m = add("a", clusterstate.FlagMaster|clusterstate.FlagFail, 3, 100, 200)
	f.r = add("b", clusterstate.FlagSlave, 0, 0, 0)
	st.SetNodeAsReplica(f.r, f.m)
	f.o = add("c", clusterstate.FlagMaster, 7, 200, 300)
	return f
}

// request is r's FAILOVER_AUTH_REQUEST as a replica sends it: its
// master's slots and configEpoch, and the new epoch.
func (f *voteFixture) request() *clusterbus.Header {
	h := &clusterbus.Header{Type: clusterbus.TypeFailoverAuthRequest, CurrentEpoch: 7, ConfigEpoch: 3}
	for j := uint16(100); j < 200; j++ {
		h.MySlots.Set(j)
	}
	return h
}

// The vote rules of clusterSendFailoverAuthIfNeeded, each broken alone.
func TestAuthDenial(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node // the requester
		want  string
	}{
		{"granted", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node { return f.r }, ""},
		{"a replica has no vote", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			st := f.c.st
			st.DelNodeSlots(st.Myself)
			_ = st.SetMyMaster(f.o)
			return f.r
		}, notVoter},
		{"a master without slots has no vote", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			f.c.st.DelNodeSlots(f.c.st.Myself)
			return f.r
		}, notVoter},
		{"old epoch", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			h.CurrentEpoch = 6
			return f.r
		}, "reqEpoch (6) < curEpoch(7)"},
		{"one vote per epoch", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			f.c.st.LastVoteEpoch = 7
			return f.r
		}, "already voted for epoch 7"},
		{"a master asks", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node { return f.o }, "it is a master node"},
		{"unknown master", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			n := clusterstate.NewNode(clusterstate.Name([]byte(strings.Repeat("d", 40))), clusterstate.FlagSlave, f.now)
			_ = f.c.st.AddNode(n)
			return n
		}, "I don't know its master"},
		{"master up", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			f.m.Flags &^= clusterstate.FlagFail
			return f.r
		}, "its master is up"},
		{"master up, FORCEACK", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			f.m.Flags &^= clusterstate.FlagFail
			h.MFlags[0] |= clusterbus.MFlag0ForceAck
			return f.r
		}, ""},
		{"voted for this master lately", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			f.m.VotedTime = f.now - 500
			return f.r
		}, "can't vote about this master before 1500 milliseconds"},
		{"voted for this master long ago", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			f.m.VotedTime = f.now - 2001
			return f.r
		}, ""},
		{"a claimed slot has a newer owner", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			h.MySlots.Set(250) // o's, at epoch 7 > 3
			return f.r
		}, "slot 250 epoch (7) > reqEpoch (3)"},
		{"an unassigned slot may be claimed", func(f *voteFixture, h *clusterbus.Header) *clusterstate.Node {
			h.MySlots.Set(5000)
			return f.r
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newVoteFixture()
			h := f.request()
			n := tc.setup(f, h)
			if got := f.c.authDenial(n, h, f.now); got != tc.want {
				t.Errorf("authDenial = %q, want %q", got, tc.want)
			}
		})
	}
}

// The rank counts the replicas of our master with a greater offset that
// may fail over; the delay is 500 ms, the jitter, and a second per rank.
func TestReplicaRankAndDelay(t *testing.T) {
	st := clusterstate.New(1)
	e := newEngine(config.DefaultConfig())
	c := &Cluster{e: e, st: st}
	m := clusterstate.NewNode(clusterstate.Name([]byte(strings.Repeat("a", 40))), clusterstate.FlagMaster, 1)
	_ = st.AddNode(m)
	if err := st.SetMyMaster(m); err != nil {
		t.Fatal(err)
	}
	e.Lock()
	e.SetReplOffset(100)
	e.Unlock()
	for i, r := range []struct {
		off   int64
		flags clusterstate.Flags
	}{
		{150, 0},                           // ahead: counts
		{101, 0},                           // ahead: counts
		{100, 0},                           // level: does not
		{50, 0},                            // behind
		{500, clusterstate.FlagNoFailover}, // ahead but never runs
	} {
		n := clusterstate.NewNode(clusterstate.Name([]byte(strings.Repeat(strconv.Itoa(i), 40))), clusterstate.FlagSlave|r.flags, 1)
		n.ReplOffset = r.off
		_ = st.AddNode(n)
		st.SetNodeAsReplica(n, m)
	}
	e.Lock()
	rank := c.replicaRank()
	e.Unlock()
	if rank != 2 {
		t.Errorf("rank %d, want 2", rank)
	}
	for _, tc := range []struct {
		rank   int
		jitter int64
		want   int64
	}{{0, 0, 500}, {0, 499, 999}, {2, 0, 2500}, {2, 499, 2999}} {
		if got := electionDelay(tc.rank, tc.jitter); got != tc.want {
			t.Errorf("electionDelay(%d, %d) = %d, want %d", tc.rank, tc.jitter, got, tc.want)
		}
	}
	for _, tc := range []struct{ nt, timeout, retry int64 }{{15000, 30000, 60000}, {500, 2000, 4000}, {1000, 2000, 4000}} {
		if to, re := failoverTimes(tc.nt); to != tc.timeout || re != tc.retry {
			t.Errorf("failoverTimes(%d) = %d, %d", tc.nt, to, re)
		}
	}
}

// A limitkv master with slots votes over the bus for a fake replica of a
// fake failed master, once per epoch, and has the vote on disk first.
func TestVoteOverTheBus(t *testing.T) {
	n := startNode(t)
	n.locked(func(st *clusterstate.State) {
		st.AddSlot(st.Myself, 0)
		st.CurrentEpoch, st.Myself.ConfigEpoch = 4, 4
	})
	p := joinFake(t, n, fakeName)   // the replica
	mp := joinFake(t, n, otherName) // its master
	mp.send(mp.out, &clusterbus.Message{Header: mp.header(clusterbus.TypePing), Body: &clusterbus.Ping{}})
	mp.expect(mp.out, clusterbus.TypePong)
	h := p.header(clusterbus.TypePing)
	h.Flags = clusterbus.NodeSlave | clusterbus.NodeMyself
	copy(h.SlaveOf[:], otherName)
	p.send(p.out, &clusterbus.Message{Header: h, Body: &clusterbus.Ping{}})
	p.expect(p.out, clusterbus.TypePong)

	var master clusterbus.NodeName
	copy(master[:], otherName)
	ask := func() {
		req := p.header(clusterbus.TypeFailoverAuthRequest)
		req.Flags = clusterbus.NodeSlave | clusterbus.NodeMyself
		req.SlaveOf = master
		req.CurrentEpoch = 5
		p.send(p.out, &clusterbus.Message{Header: req})
	}
	// Its master is up: no vote.
	ask()
	time.Sleep(200 * time.Millisecond)
	n.locked(func(st *clusterstate.State) {
		if st.LastVoteEpoch != 0 {
			t.Fatalf("voted with the master up: lastVoteEpoch %d", st.LastVoteEpoch)
		}
	})
	p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypeFail), Body: &clusterbus.Fail{Node: master}})
	eventually(t, 2*time.Second, "the master FAIL", func() bool {
		return strings.Contains(nodeLine(n.nodes(), otherName), "fail")
	})
	ask()
	ack := p.expect(p.in, clusterbus.TypeFailoverAuthAck)
	if ack.Header.CurrentEpoch != 5 {
		t.Errorf("ACK's epoch %d", ack.Header.CurrentEpoch)
	}
	n.e.Lock()
	path := filepath.Join(*n.e.Cfg.Dir.Load(), "nodes.conf")
	n.e.Unlock()
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "lastVoteEpoch 5") {
		t.Errorf("nodes.conf after the vote (%v): %s", err, b)
	}
}

// logLines records a node's log messages.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.lines = append(l.lines, r.Message)
	l.mu.Unlock()
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

// has reports whether a line starting with prefix was logged.
func (l *logLines) has(prefix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// record makes n log into a logLines.
func (n *testNode) record() *logLines {
	l := &logLines{}
	n.e.Lock()
	n.log = slog.New(l)
	n.e.Unlock()
	return l
}

// do runs a command on the node as a client would.
func (n *testNode) do(args ...string) string {
	c := n.e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var w resp.Writer
	n.e.Lock()
	defer n.e.Unlock()
	n.e.Exec(c, bargs, &w)
	return string(w.Bytes())
}

// threeMastersAndReplica is an all-limitkv cluster: masters a, b and c
// with a third of the slots each (epochs 1, 2, 3) and r a replica of a.
func threeMastersAndReplica(t *testing.T) (a, b, c, r *testNode) {
	t.Helper()
	a, b, c = startNode(t), startNode(t), startNode(t)
	// Replication has no client port to reach in-process: the replica's
	// data is as old as the test, which the validity factor would refuse.
	r = startNode(t, "cluster-replica-validity-factor", "0")
	for _, n := range []*testNode{b, c, r} {
		a.meet(t, n.port, n.cport)
	}
	ids := []string{a.id(), b.id(), c.id(), r.id()}
	eventually(t, 10*time.Second, "four nodes to know each other", func() bool {
		for _, n := range []*testNode{a, b, c, r} {
			nodes := n.nodes()
			for _, id := range ids {
				if !known(nodes, id) {
					return false
				}
			}
		}
		return true
	})
	for i, n := range []*testNode{a, b, c} {
		from, to := i*5462, min((i+1)*5462, clusterstate.Slots)
		epoch := uint64(i + 1)
		n.locked(func(st *clusterstate.State) {
			for j := from; j < to; j++ {
				st.AddSlot(st.Myself, j)
			}
			st.Myself.ConfigEpoch, st.CurrentEpoch = epoch, epoch
			st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
		})
	}
	if got := r.do("CLUSTER", "REPLICATE", ids[0]); got != "+OK\r\n" {
		t.Fatalf("CLUSTER REPLICATE: %q", got)
	}
	eventually(t, 10*time.Second, "every node to see the slots and the replica", func() bool {
		for _, n := range []*testNode{a, b, c, r} {
			nodes := n.nodes()
			if !strings.Contains(nodeLine(nodes, ids[2]), "10924-16383") ||
				!strings.Contains(nodeLine(nodes, ids[3]), "slave "+ids[0]) {
				return false
			}
		}
		return true
	})
	return a, b, c, r
}

// Killing a master makes its replica master, with the slots and the
// election's epoch, within seconds; the old master, back, turns replica.
func TestFailoverElection(t *testing.T) {
	a, b, c, r := threeMastersAndReplica(t)
	aid, rid := a.id(), r.id()
	rlog, blog := r.record(), b.record()
	a.stopBus()
	start := time.Now()
	eventually(t, 15*time.Second, "r to be master with a's slots", func() bool {
		for _, n := range []*testNode{b, c, r} {
			if line := nodeLine(n.nodes(), rid); !strings.Contains(line, "master") || !strings.HasSuffix(line, " 0-5461") {
				return false
			}
		}
		return true
	})
	t.Logf("failover took %v after the master stopped (node timeout 1 s)", time.Since(start))
	for _, line := range []string{"Start of election delayed for ", "Starting a failover election for epoch ",
		"Failover election won: I'm the new master.", "configEpoch set to "} {
		if !rlog.has(line) {
			t.Errorf("r did not log %q", line)
		}
	}
	if !blog.has("Failover auth granted to " + rid + " for epoch ") {
		t.Errorf("b did not log its vote: %q", blog.all())
	}
	r.e.Lock()
	epoch, replica := r.st.Myself.ConfigEpoch, r.e.IsReplica()
	health := r.st.Health
	r.e.Unlock()
	if epoch <= 3 || replica {
		t.Errorf("r's configEpoch %d (want > 3), replicating %v", epoch, replica)
	}
	eventually(t, 5*time.Second, "the cluster ok on r", func() bool {
		r.e.Lock()
		defer r.e.Unlock()
		health = r.st.Health
		return health == clusterstate.StateOK
	})

	// a comes back where it was, and learns it lost its slots.
	lns, err := ListenOn("127.0.0.1")(a.cport)
	if err != nil {
		t.Fatal(err)
	}
	a.startBus(lns)
	eventually(t, 10*time.Second, "a to be r's replica", func() bool {
		return strings.Contains(nodeLine(a.nodes(), aid), "myself,slave "+rid) &&
			strings.Contains(nodeLine(b.nodes(), aid), "slave "+rid)
	})
}

// CLUSTER FAILOVER on a replica whose master is up: the default (the
// master pauses, the replica catches up and is elected) and TAKEOVER (no
// election) each swap the roles.
func TestManualFailover(t *testing.T) {
	for _, mode := range []string{"", "TAKEOVER", "FORCE"} {
		t.Run("mode="+mode, func(t *testing.T) {
			a, b, _, r := threeMastersAndReplica(t)
			aid, rid := a.id(), r.id()
			alog, rlog := a.record(), r.record()
			if got := a.do("CLUSTER", "FAILOVER"); got != "-ERR You should send CLUSTER FAILOVER to a replica\r\n" {
				t.Errorf("on a master: %q", got)
			}
			args := []string{"CLUSTER", "FAILOVER"}
			if mode != "" {
				args = append(args, mode)
			}
			start := time.Now()
			if got := r.do(args...); got != "+OK\r\n" {
				t.Fatalf("%v: %q", args, got)
			}
			eventually(t, 10*time.Second, "the roles to swap", func() bool {
				for _, n := range []*testNode{a, b, r} {
					nodes := n.nodes()
					if !strings.HasSuffix(nodeLine(nodes, rid), " 0-5461") ||
						!strings.Contains(nodeLine(nodes, aid), "slave "+rid) {
						return false
					}
				}
				return true
			})
			t.Logf("CLUSTER FAILOVER %s took %v", mode, time.Since(start))
			want := map[string][]string{
				"": {"Manual failover user request accepted.", "Received replication offset for paused master manual failover: ",
					"All master replication stream processed, manual failover can start.", "Failover election won"},
				"FORCE": {"Forced failover user request accepted.", "Failover election won"},
				// No "New configEpoch set to": a replica that took an epoch
				// in a collision while a master may hold the greatest one
				// already, which it then keeps, as in Redis.
				"TAKEOVER": {"Taking over the master (user request)."},
			}[mode]
			for _, line := range want {
				if !rlog.has(line) {
					t.Errorf("r did not log %q: %q", line, rlog.all())
				}
			}
			if paused := alog.has("Manual failover requested by replica " + rid); paused != (mode == "") {
				t.Errorf("a paused for the failover: %v", paused)
			}
			r.e.Lock()
			rEpoch := r.st.Myself.ConfigEpoch
			r.e.Unlock()
			if rEpoch <= 1 { // a's
				t.Errorf("r's configEpoch %d, not above its old master's", rEpoch)
			}
			a.e.Lock()
			paused := a.e.Cs.Pause.Kind
			a.e.Unlock()
			if paused != 0 {
				t.Errorf("the old master is still paused (%d)", paused)
			}
		})
	}
}
