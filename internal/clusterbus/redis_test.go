package clusterbus

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/keyslot"
	"github.com/limitkv/limitkv/internal/testredis"
)

// The conformance tests put a real Redis 7.0.15 and nodes made of this
// package's bytes in one cluster. Redis drops a message it finds
// malformed without a word, so every answer it gives, and every change
// CLUSTER NODES shows, proves it read our bytes as we meant them.

// maxFrame bounds what the tests read: Redis sends nothing near it.
const maxFrame = 1 << 20

// captureEnv names a directory where the tests write the first message of
// each kind Redis sends (testdata/redis-7.0.15 was made so).
const captureEnv = "LIMITKV_CLUSTERBUS_CAPTURE"

func capture(t *testing.T, name string, raw []byte) {
	dir := os.Getenv(captureEnv)
	if dir == "" {
		return
	}
	p := filepath.Join(dir, name+".bin")
	if _, err := os.Stat(p); err == nil {
		return
	}
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Error(err)
	}
}

// clusterRedis is a redis-server in cluster mode.
type clusterRedis struct {
	*testredis.Proc
	bus  int // cluster bus port
	cli  *testredis.Conn
	name NodeName // CLUSTER MYID
}

func startClusterRedis(t *testing.T, args ...string) *clusterRedis {
	t.Helper()
	testredis.RequireVersion(t, "7.0.")
	bus, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := testredis.StartWith(t, testredis.Options{Dir: dir, Args: append([]string{
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
		"--cluster-port", strconv.Itoa(bus)}, args...)})
	r := &clusterRedis{Proc: p, bus: bus, cli: testredis.DialRESP(t, p.Addr)}
	id, _ := r.cli.Do(t, "CLUSTER", "MYID").(string)
	if r.name, err = ParseNodeName(id); err != nil {
		t.Fatal(err)
	}
	return r
}

// info returns one field of an INFO-style reply (CLUSTER INFO, INFO).
func (r *clusterRedis) info(t *testing.T, field string, cmd ...string) string {
	t.Helper()
	s, _ := r.cli.Do(t, cmd...).(string)
	for _, line := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("%v has no %s", cmd, field)
	return ""
}

// nodeLine polls CLUSTER NODES until a line satisfies ok, and returns it.
func (r *clusterRedis) nodeLine(t *testing.T, what string, ok func(line string) bool) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, _ := r.cli.Do(t, "CLUSTER", "NODES").(string)
		for _, line := range strings.Split(s, "\n") {
			if ok(line) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("CLUSTER NODES never showed %s:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fakeNode is a cluster node made of this package: a name, a client port
// nobody listens on (Redis only records it) and a bus port.
type fakeNode struct {
	name     NodeName
	port     int
	ln       net.Listener
	cport    int
	hostname string
}

func newFakeNode(t *testing.T, hostname string) *fakeNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return &fakeNode{name: NewNodeName(), port: port, ln: ln, cport: ln.Addr().(*net.TCPAddr).Port, hostname: hostname}
}

func (n *fakeNode) header(ty Type) Header {
	return Header{Type: ty, Sender: n.name, Port: uint16(n.port), CPort: uint16(n.cport), Flags: NodeMaster}
}

// ping is a PING, PONG or MEET about n, with its hostname.
func (n *fakeNode) ping(ty Type, gossip ...Gossip) *Message {
	p := &Ping{Gossip: gossip}
	if n.hostname != "" {
		p.Exts = []Ext{HostnameExt(n.hostname)}
	}
	return &Message{Header: n.header(ty), Body: p}
}

// frame is a message and the bytes it came in, or the error reading it.
type frame struct {
	*Message
	raw []byte
	err error
}

func send(t *testing.T, c net.Conn, m *Message) {
	t.Helper()
	_ = c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write(Encode(m)); err != nil {
		t.Fatal(err)
	}
}

// recv reads one message, which must decode and re-encode to its bytes.
func recv(t *testing.T, c net.Conn) frame {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	f, err := readFrame(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readFrame(c net.Conn) (frame, error) {
	raw, err := ReadFrame(c, nil, maxFrame)
	if err != nil {
		return frame{}, err
	}
	m, err := Decode(raw)
	if err != nil {
		return frame{}, fmt.Errorf("Redis sent %d bytes we reject: %w", len(raw), err)
	}
	if again := Encode(m); string(again) != string(raw) {
		return frame{}, fmt.Errorf("a %s from Redis re-encodes differently", m.Type)
	}
	return frame{Message: m, raw: raw}, nil
}

func dialBus(t *testing.T, r *clusterRedis) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.bus)), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRedisAnswersMeet sends Redis a MEET of our making: it must answer
// with a PONG we decode, describing it as CLUSTER MYID, CLUSTER INFO and
// INFO do, and add us as a node in handshake at the address and ports
// the MEET's header announced.
func TestRedisAnswersMeet(t *testing.T) {
	const hostname = "redis-under-test.example"
	r := startClusterRedis(t, "--cluster-announce-hostname", hostname)
	us := newFakeNode(t, "limitkv-meet.example")
	c := dialBus(t, r)
	meet := us.ping(TypeMeet)
	meet.MyIP = MakeIP("127.0.0.2") // announced: Redis takes it over the socket's address
	send(t, c, meet)

	pong := recv(t, c)
	capture(t, "pong-hostname", pong.raw)
	h := pong.Header
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"type", h.Type, TypePong},
		{"sender", h.Sender, r.name},
		{"port", int(h.Port), r.Port},
		{"cport", int(h.CPort), r.bus},
		{"pport", h.PPort, uint16(0)},
		{"flags", h.Flags, NodeMyself | NodeMaster},
		{"slaveof", h.SlaveOf.IsZero(), true},
		{"myip", h.MyIP.String(), ""}, // no cluster-announce-ip
		{"currentEpoch", strconv.FormatUint(h.CurrentEpoch, 10), r.info(t, "cluster_current_epoch", "CLUSTER", "INFO")},
		{"configEpoch", strconv.FormatUint(h.ConfigEpoch, 10), r.info(t, "cluster_my_epoch", "CLUSTER", "INFO")},
		{"offset", strconv.FormatUint(h.Offset, 10), r.info(t, "master_repl_offset", "INFO", "replication")},
		{"state", h.State == StateOK, r.info(t, "cluster_state", "CLUSTER", "INFO") == "ok"},
		{"slots", h.MySlots.Count(), 0},
		{"count", h.Count, uint16(0)}, // no other node to gossip about
		{"extensions", h.Extensions, uint16(1)},
		{"mflags", h.MFlags, [3]byte{MFlag0ExtData}},
		{"hostname", pong.Body.(*Ping).Hostname(), hostname},
	} {
		if f.got != f.want {
			t.Errorf("PONG %s: %v, want %v", f.name, f.got, f.want)
		}
	}
	addr := fmt.Sprintf(" 127.0.0.2:%d@%d ", us.port, us.cport)
	r.nodeLine(t, "our node in handshake at "+addr, func(l string) bool {
		return strings.Contains(l, addr) && strings.Contains(l, "handshake")
	})
}

// TestRedisJoinsUs has Redis meet two nodes of ours, A and B, as CLUSTER
// MEET makes it, then talks with them over the bus: gossip, Pub/Sub both
// ways, an UPDATE, and a FAIL about B once B stops answering.
func TestRedisJoinsUs(t *testing.T) {
	r := startClusterRedis(t, "--cluster-node-timeout", "2000")
	// An epoch and a slot of its own, for the UPDATE and SSUBSCRIBE.
	const shardChannel = "shard-news"
	slot := keyslot.Slot([]byte(shardChannel))
	r.cli.Do(t, "CLUSTER", "SET-CONFIG-EPOCH", "5")
	r.cli.Do(t, "CLUSTER", "ADDSLOTS", strconv.Itoa(int(slot)))

	a, b := newFakeNode(t, "node-a.example"), newFakeNode(t, "")
	var aMsgs <-chan frame
	aIn := dialBus(t, r) // A's own connection to Redis, as every node opens one
	owner := t           // the connections live as long as the whole test

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"meet A", func(t *testing.T) { aMsgs = join(t, owner, r, a, slot, true) }},
		{"meet B", func(t *testing.T) { join(t, owner, r, b, slot, false) }},
		{"hostname", func(t *testing.T) {
			// Redis reads extensions only from a node it knows, which the
			// first PONG (still under the random name) is not: A tells its
			// hostname in a PING of its own.
			send(t, aIn, a.ping(TypePing))
			if pong := recv(t, aIn); pong.Type != TypePong || pong.Sender != r.name {
				t.Fatalf("answer to A's PING: %s from %s", pong.Type, pong.Sender)
			}
			want := fmt.Sprintf("%s 127.0.0.1:%d@%d,%s master - ", a.name, a.port, a.cport, a.hostname)
			r.nodeLine(t, want, func(l string) bool { return strings.HasPrefix(l, want) })
		}},
		{"gossip", func(t *testing.T) { checkGossip(t, r, aIn, a, b) }},
		{"publish to Redis", func(t *testing.T) { publishToRedis(t, r, aIn, a, shardChannel) }},
		{"publish from Redis", func(t *testing.T) {
			r.cli.Do(t, "PUBLISH", "from-redis", "hello\x00bus")
			f := waitFor(t, aMsgs, "PUBLISH", func(f frame) bool { return f.Type == TypePublish })
			capture(t, "publish", f.raw)
			p := f.Body.(*Publish)
			if f.Sender != r.name || string(p.Channel) != "from-redis" || string(p.Message) != "hello\x00bus" {
				t.Errorf("PUBLISH from %s: %q %q", f.Sender, p.Channel, p.Message)
			}
		}},
		{"update", func(t *testing.T) {
			// A claims Redis's slot at an older config epoch (0 < 5):
			// Redis tells it who owns the slot.
			claim := a.ping(TypePing)
			claim.MySlots.Set(slot)
			send(t, aIn, claim)
			recv(t, aIn)
			f := waitFor(t, aMsgs, "UPDATE", func(f frame) bool { return f.Type == TypeUpdate })
			capture(t, "update", f.raw)
			u := f.Body.(*Update)
			if u.Node != r.name || u.ConfigEpoch != 5 || !u.Slots.Has(slot) || u.Slots.Count() != 1 {
				t.Errorf("UPDATE about %s epoch %d, %d slots (has %d: %v)", u.Node, u.ConfigEpoch,
					u.Slots.Count(), slot, u.Slots.Has(slot))
			}
		}},
		{"fail", func(t *testing.T) { failB(t, r, aIn, aMsgs, a, b) }},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			return
		}
	}
}

// join has Redis meet n (CLUSTER MEET), accepts the bus connection Redis
// opens, checks the MEET on it and answers with n's PONG, which ends the
// handshake: CLUSTER NODES then lists n under its own name. The returned
// channel carries what Redis sends on that connection afterwards; n
// answers PINGs on it when answer is set. The connection is closed when
// owner ends.
func join(t, owner *testing.T, r *clusterRedis, n *fakeNode, slot uint16, answer bool) <-chan frame {
	r.cli.Do(t, "CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(n.port), strconv.Itoa(n.cport))
	addr := fmt.Sprintf(" 127.0.0.1:%d@%d ", n.port, n.cport)
	random := r.nodeLine(t, "a node in handshake at"+addr, func(l string) bool {
		return strings.Contains(l, addr) && strings.Contains(l, "handshake")
	})
	_ = n.ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
	c, err := n.ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	owner.Cleanup(func() { c.Close() })
	meet := recv(t, c)
	name := "meet"
	if meet.Count > 0 {
		name = "meet-gossip"
	}
	capture(t, name, meet.raw)
	h := meet.Header
	if h.Type != TypeMeet || h.Sender != r.name || h.Flags != NodeMyself|NodeMaster || h.ConfigEpoch != 5 ||
		int(h.Port) != r.Port || int(h.CPort) != r.bus || h.MySlots.Count() != 1 || !h.MySlots.Has(slot) {
		t.Fatalf("first message: %s from %s, flags %d, epoch %d, ports %d@%d, %d slots",
			h.Type, h.Sender, h.Flags, h.ConfigEpoch, h.Port, h.CPort, h.MySlots.Count())
	}
	// Gossip in a MEET can only be about a node Redis already knows.
	for _, g := range meet.Body.(*Ping).Gossip {
		if g.IP.String() != "127.0.0.1" || g.Flags&NodeMaster == 0 {
			t.Errorf("gossip entry in the MEET: %s at %s:%d@%d flags %d", g.Node, g.IP, g.Port, g.CPort, g.Flags)
		}
	}
	send(t, c, n.ping(TypePong))
	r.nodeLine(t, "the node renamed to "+n.name.String(), func(l string) bool {
		return strings.HasPrefix(l, n.name.String()+addr) && !strings.Contains(l, "handshake")
	})
	if s, _ := r.cli.Do(t, "CLUSTER", "NODES").(string); strings.Contains(s, random[:NameLen]) {
		t.Errorf("the handshake name %s is still listed", random[:NameLen])
	}
	return serve(c, n, answer)
}

// serve reads what Redis sends on c, answering PINGs when answer is set,
// until c closes. A message we cannot read ends it with an error frame.
func serve(c net.Conn, n *fakeNode, answer bool) <-chan frame {
	ch := make(chan frame, 256)
	_ = c.SetReadDeadline(time.Time{})
	go func() {
		defer close(ch)
		for {
			f, err := readFrame(c)
			if err != nil {
				if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
					select {
					case ch <- frame{err: err}:
					default:
					}
				}
				return
			}
			if answer && f.Type == TypePing {
				_, _ = c.Write(Encode(n.ping(TypePong)))
			}
			select {
			case ch <- f:
			default: // the test stopped listening
			}
		}
	}()
	return ch
}

// waitFor returns the first message on ch that ok accepts.
func waitFor(t *testing.T, ch <-chan frame, what string, ok func(frame) bool) frame {
	t.Helper()
	timeout := time.After(6 * time.Second)
	for {
		select {
		case f, open := <-ch:
			if !open {
				t.Fatalf("connection closed before a %s", what)
			}
			if f.err != nil {
				t.Fatalf("before a %s: %v", what, f.err)
			}
			if f.Type == TypePing { // Redis's own PINGs come only on its links
				capture(t, "ping", f.raw)
			}
			if ok(f) {
				return f
			}
		case <-timeout:
			t.Fatalf("no %s from Redis", what)
		}
	}
}

// checkGossip pings Redis as A until a PONG carries gossip (Redis picks
// its entries at random, among A and B) and checks the entries against
// what Redis knows of the nodes.
func checkGossip(t *testing.T, r *clusterRedis, aIn net.Conn, a, b *fakeNode) {
	now := uint32(time.Now().Unix())
	for try := 0; try < 50; try++ {
		send(t, aIn, a.ping(TypePing))
		pong := recv(t, aIn)
		if pong.Count == 0 {
			continue
		}
		capture(t, "pong-gossip", pong.raw)
		for _, g := range pong.Body.(*Ping).Gossip {
			n := a
			if g.Node == b.name {
				n = b
			} else if g.Node != a.name {
				t.Fatalf("gossip about %s, neither A nor B", g.Node)
			}
			if g.IP.String() != "127.0.0.1" || int(g.Port) != n.port || int(g.CPort) != n.cport || g.PPort != 0 ||
				g.Flags != NodeMaster || g.PongReceived+60 < now || g.PongReceived > now+60 {
				t.Errorf("gossip %+v, want %s at 127.0.0.1:%d@%d, master, pong near %d", g, n.name, n.port, n.cport, now)
			}
		}
		return
	}
	t.Fatal("50 PONGs without gossip")
}

// publishToRedis sends PUBLISH and PUBLISHSHARD as A: Redis's subscribers
// must get them.
func publishToRedis(t *testing.T, r *clusterRedis, aIn net.Conn, a *fakeNode, shardChannel string) {
	for _, tc := range []struct {
		ty              Type
		sub, kind, chnl string
	}{
		{TypePublish, "SUBSCRIBE", "message", "news"},
		{TypePublishShard, "SSUBSCRIBE", "smessage", shardChannel},
	} {
		sub := testredis.DialRESP(t, r.Addr)
		sub.Do(t, tc.sub, tc.chnl)
		send(t, aIn, &Message{Header: a.header(tc.ty),
			Body: &Publish{Channel: []byte(tc.chnl), Message: []byte("from A\r\n\x00")}})
		got, err := sub.Read(3 * time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.ty, err)
		}
		if fmt.Sprint(got) != fmt.Sprint([]any{tc.kind, tc.chnl, "from A\r\n\x00"}) {
			t.Errorf("%s: the subscriber got %q", tc.ty, got)
		}
	}
}

// failB waits until Redis suspects B (which has not answered its PINGs),
// checks that PONGs now gossip about B as PFAIL, then has A report B: with
// A's report and its own vote Redis has a majority of the one master
// with slots, marks B failed and broadcasts a FAIL, which reaches A.
func failB(t *testing.T, r *clusterRedis, aIn net.Conn, aMsgs <-chan frame, a, b *fakeNode) {
	prefix := b.name.String() + " "
	r.nodeLine(t, "B suspected (fail?)", func(l string) bool {
		return strings.HasPrefix(l, prefix) && strings.Contains(l, "fail?")
	})
	// Redis counts PFAIL nodes, which every PING and PONG then gossips
	// about, at its next cron tick (every 100 ms).
	var report *Gossip
	for try := 0; report == nil && try < 50; try++ {
		send(t, aIn, a.ping(TypePing))
		pong := recv(t, aIn)
		for i, g := range pong.Body.(*Ping).Gossip {
			if g.Node == b.name {
				report = &pong.Body.(*Ping).Gossip[i]
				capture(t, "pong-pfail", pong.raw)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if report == nil || report.Flags != NodeMaster|NodePFail || report.PingSent == 0 {
		t.Fatalf("PONG gossip about B: %+v, want it flagged PFAIL with a PING pending", report)
	}
	send(t, aIn, a.ping(TypePing, *report))
	recv(t, aIn)
	f := waitFor(t, aMsgs, "FAIL", func(f frame) bool { return f.Type == TypeFail })
	capture(t, "fail", f.raw)
	if got := f.Body.(*Fail).Node; got != b.name || f.Sender != r.name {
		t.Errorf("FAIL from %s about %s, want about B %s", f.Sender, got, b.name)
	}
	r.nodeLine(t, "B failed", func(l string) bool {
		return strings.HasPrefix(l, prefix) && strings.Contains(l, " master,fail ")
	})
}
