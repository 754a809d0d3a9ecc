package cluster

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
)

// fakePeer is a cluster node made of clusterbus messages, to say exactly
// what a test wants to a limitkv node: its link to the node (out) and the
// node's link to it (in).
type fakePeer struct {
	t       *testing.T
	name    clusterbus.NodeName
	ln      net.Listener
	in, out net.Conn
}

// joinFake meets n with a fake master named name and completes the
// handshake: MEET from the fake, PING from n answered by a PONG.
func joinFake(t *testing.T, n *testNode, name string) *fakePeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &fakePeer{t: t, ln: ln}
	copy(p.name[:], name)
	p.out, err = net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(n.cport)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.out.Close() })
	p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypeMeet), Body: &clusterbus.Ping{}})
	p.expect(p.out, clusterbus.TypePong)
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(3 * time.Second))
	if p.in, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.in.Close() })
	p.expect(p.in, clusterbus.TypePing)
	p.send(p.in, &clusterbus.Message{Header: p.header(clusterbus.TypePong), Body: &clusterbus.Ping{}})
	eventually(t, 3*time.Second, "the fake to be known", func() bool { return known(n.nodes(), name) })
	return p
}

func (p *fakePeer) header(t clusterbus.Type) clusterbus.Header {
	return clusterbus.Header{
		Type: t, Sender: p.name, Port: 7000,
		CPort: uint16(p.ln.Addr().(*net.TCPAddr).Port),
		Flags: clusterbus.NodeMaster | clusterbus.NodeMyself,
	}
}

func (p *fakePeer) send(conn net.Conn, msg *clusterbus.Message) {
	p.t.Helper()
	_ = conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write(clusterbus.Encode(msg)); err != nil {
		p.t.Fatal(err)
	}
}

// expect reads conn until a message of type t comes.
func (p *fakePeer) expect(conn net.Conn, t clusterbus.Type) *clusterbus.Message {
	p.t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	for {
		msg, err := clusterbus.ReadMessage(conn, 1<<20)
		if err != nil {
			p.t.Fatalf("waiting for %v: %v", t, err)
		}
		if msg.Type == t {
			return msg
		}
	}
}

const (
	fakeName  = "ffffffffffffffffffffffffffffffffffffffff" // above any hex name
	otherName = "0123456789012345678901234567890123456789"
)

func TestProcessPacket(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, n *testNode, p *fakePeer)
	}{
		{"gossip introduces a node, FAIL fails it", func(t *testing.T, n *testNode, p *fakePeer) {
			var other clusterbus.NodeName
			copy(other[:], otherName)
			p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypePing), Body: &clusterbus.Ping{
				Gossip: []clusterbus.Gossip{{Node: other, IP: clusterbus.MakeIP("127.0.0.1"), Port: 7001, CPort: 1,
					Flags: clusterbus.NodeMaster}},
			}})
			p.expect(p.out, clusterbus.TypePong)
			if line := nodeLine(n.nodes(), otherName); !strings.Contains(line, "127.0.0.1:7001@1 master") {
				t.Fatalf("gossiped node: %q", line)
			}
			p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypeFail), Body: &clusterbus.Fail{Node: other}})
			eventually(t, 2*time.Second, "FAIL", func() bool {
				return strings.Contains(nodeLine(n.nodes(), otherName), "master,fail ")
			})
		}},
		{"UPDATE moves slots", func(t *testing.T, n *testNode, p *fakePeer) {
			u := &clusterbus.Update{ConfigEpoch: 5, Node: p.name}
			for j := uint16(0); j < 100; j++ {
				u.Slots.Set(j)
			}
			p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypeUpdate), Body: u})
			eventually(t, 2*time.Second, "the slots", func() bool {
				return strings.HasSuffix(nodeLine(n.nodes(), fakeName), " 5 connected 0-99")
			})
		}},
		{"a stale claim gets an UPDATE", func(t *testing.T, n *testNode, p *fakePeer) {
			n.locked(func(st *clusterstate.State) {
				st.AddSlot(st.Myself, 5)
				st.CurrentEpoch, st.Myself.ConfigEpoch = 10, 10
			})
			h := p.header(clusterbus.TypePing)
			h.ConfigEpoch = 1
			h.MySlots.Set(5)
			p.send(p.out, &clusterbus.Message{Header: h, Body: &clusterbus.Ping{}})
			msg := p.expect(p.in, clusterbus.TypeUpdate)
			u := msg.Body.(*clusterbus.Update)
			if u.Node.String() != n.id() || u.ConfigEpoch != 10 || !u.Slots.Has(5) || u.Slots.Count() != 1 {
				t.Errorf("UPDATE about %s epoch %d, %d slots", u.Node, u.ConfigEpoch, u.Slots.Count())
			}
			if line := nodeLine(n.nodes(), n.id()); !strings.HasSuffix(line, " 5") {
				t.Errorf("myself lost the slot: %q", line)
			}
		}},
		{"a config epoch collision moves the smaller name", func(t *testing.T, n *testNode, p *fakePeer) {
			h := p.header(clusterbus.TypePing)
			h.CurrentEpoch = 3
			p.send(p.out, &clusterbus.Message{Header: h, Body: &clusterbus.Ping{}})
			p.expect(p.out, clusterbus.TypePong)
			n.e.Lock()
			cur, mine := n.st.CurrentEpoch, n.st.Myself.ConfigEpoch
			n.e.Unlock()
			if cur != 4 || mine != 4 {
				t.Errorf("currentEpoch %d, configEpoch %d; want 4, 4", cur, mine)
			}
		}},
		{"a replica joins my shard and gets SPUBLISH", func(t *testing.T, n *testNode, p *fakePeer) {
			h := p.header(clusterbus.TypePing)
			h.Flags = clusterbus.NodeSlave | clusterbus.NodeMyself
			copy(h.SlaveOf[:], n.id())
			p.send(p.out, &clusterbus.Message{Header: h, Body: &clusterbus.Ping{}})
			p.expect(p.out, clusterbus.TypePong)
			if line := nodeLine(n.nodes(), fakeName); !strings.Contains(line, "slave "+n.id()) {
				t.Fatalf("replica: %q", line)
			}
			n.e.Lock()
			n.PropagatePublish([]byte("ch"), []byte("hello"), true)
			n.e.Unlock()
			msg := p.expect(p.in, clusterbus.TypePublishShard)
			if pub := msg.Body.(*clusterbus.Publish); string(pub.Channel) != "ch" || string(pub.Message) != "hello" {
				t.Errorf("got %q %q", pub.Channel, pub.Message)
			}
		}},
		{"PUBLISH from a known node is delivered, PONG broadcast", func(t *testing.T, n *testNode, p *fakePeer) {
			p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypePublish),
				Body: &clusterbus.Publish{Channel: []byte("c"), Message: []byte("m")}})
			eventually(t, 2*time.Second, "the PUBLISH", func() bool {
				n.e.Lock()
				defer n.e.Unlock()
				return n.st.MessagesReceived[clusterbus.TypePublish] == 1
			})
			n.e.Lock()
			n.broadcastPong(true)
			n.e.Unlock()
			p.expect(p.in, clusterbus.TypePong)
		}},
		{"DEBUG CLUSTERLINK KILL", func(t *testing.T, n *testNode, p *fakePeer) {
			// The fake's inbound link is tied to it by its next packet.
			p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypePing), Body: &clusterbus.Ping{}})
			p.expect(p.out, clusterbus.TypePong)
			kill := func(dir, node string) string {
				n.e.Lock()
				defer n.e.Unlock()
				return n.KillLink(dir, node)
			}
			closed := func(conn net.Conn) bool {
				_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
				for {
					if _, err := clusterbus.ReadMessage(conn, 1<<20); err != nil {
						return !errors.Is(err, os.ErrDeadlineExceeded)
					}
				}
			}
			for _, tc := range []struct{ dir, node, want string }{
				{"sideways", fakeName, "ERR Unknown direction sideways"},
				{"to", otherName, "ERR Unknown node " + otherName},
				{"TO", fakeName, ""},
				{"from", fakeName, ""},
			} {
				if got := kill(tc.dir, tc.node); got != tc.want {
					t.Errorf("%s %s: %q, want %q", tc.dir, tc.node, got, tc.want)
				}
			}
			if !closed(p.in) {
				t.Error("the link to the fake stayed open")
			}
			if !closed(p.out) {
				t.Error("the link from the fake stayed open")
			}
		}},
		{"CLUSTER LINKS and FORGET", func(t *testing.T, n *testNode, p *fakePeer) {
			// The fake's link was not tied to it by its MEET (it was
			// unknown then): the next packet does that.
			p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypePing), Body: &clusterbus.Ping{}})
			p.expect(p.out, clusterbus.TypePong)
			n.e.Lock()
			links := n.linksInfo()
			n.e.Unlock()
			if len(links) != 2 || links[0].Direction != "to" || links[1].Direction != "from" ||
				links[0].Node != fakeName || links[0].Events == "" {
				t.Fatalf("links %+v", links)
			}
			n.locked(func(st *clusterstate.State) { n.forgetNode(st.LookupID(fakeName)) })
			if nodeLine(n.nodes(), fakeName) != "" {
				t.Fatal("still listed")
			}
			n.e.Lock()
			left := len(n.bus.links)
			n.e.Unlock()
			if left != 0 {
				t.Errorf("%d links left", left)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := startNode(t)
			tc.run(t, n, joinFake(t, n, fakeName))
		})
	}
}

// TestReplicaHeader: a replica speaks for its master's slots and epoch.
func TestReplicaHeader(t *testing.T) {
	n := startNode(t)
	p := joinFake(t, n, fakeName)
	u := &clusterbus.Update{ConfigEpoch: 7, Node: p.name}
	u.Slots.Set(42)
	p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypeUpdate), Body: u})
	eventually(t, 2*time.Second, "the slot", func() bool {
		return strings.HasSuffix(nodeLine(n.nodes(), fakeName), " 42")
	})
	n.e.Lock()
	defer n.e.Unlock()
	if err := n.st.SetMyMaster(n.st.LookupID(fakeName)); err != nil {
		t.Fatal(err)
	}
	h := n.header(clusterbus.TypePing)
	if h.ConfigEpoch != 7 || h.SlaveOf != p.name || !h.MySlots.Has(42) || h.MySlots.Count() != 1 ||
		h.Flags&clusterbus.NodeSlave == 0 || h.Sender.String() != n.st.Myself.ID() {
		t.Errorf("header %+v", h)
	}
}

// TestHandshakeTimeout: a MEET nobody answers is given up after
// max(node timeout, 1 s).
func TestHandshakeTimeout(t *testing.T) {
	n := startNode(t)
	n.meet(t, freePort(t), freePort(t))
	eventually(t, 4*time.Second, "the handshake node to go", func() bool {
		n.e.Lock()
		defer n.e.Unlock()
		return n.st.NumNodes() == 1 && len(n.bus.links) == 0
	})
}

// TestSendbufLimit: a peer that stops reading loses its link once the
// bytes waiting for it pass cluster-link-sendbuf-limit.
func TestSendbufLimit(t *testing.T) {
	n := startNode(t, "cluster-link-sendbuf-limit", "1mb")
	p := joinFake(t, n, fakeName)
	_ = p // it reads nothing from now on
	big := make([]byte, 1<<20)
	n.e.Lock()
	for range 32 {
		n.PropagatePublish([]byte("c"), big, false)
	}
	n.e.Unlock()
	eventually(t, 3*time.Second, "the link to be freed", func() bool {
		n.e.Lock()
		defer n.e.Unlock()
		return n.st.LinksBufferLimitExceeded == 1
	})
}
