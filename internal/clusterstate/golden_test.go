package clusterstate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/internal/testredis"
)

// goldenNode is one redis-server of the test cluster.
type goldenNode struct {
	p     *testredis.Proc
	cport int
	rdb   *redis.Client
	id    string
}

func (g *goldenNode) do(t *testing.T, args ...any) any {
	t.Helper()
	v, err := g.rdb.Do(context.Background(), args...).Result()
	if err != nil {
		t.Fatalf("%s %v: %v", g.p.Addr, args, err)
	}
	return v
}

func (g *goldenNode) text(t *testing.T, args ...any) string {
	t.Helper()
	return g.do(t, args...).(string)
}

// startGoldenCluster starts three cluster-mode redis-servers, the third
// announcing a hostname, meets them, gives the first two slots in several
// ranges, makes the third a replica of the first and opens slots in both
// directions:
//
//	node 0: 0-5000 5002-8000, slot 100 migrating to node 1, 9000 importing from node 1
//	node 1: 5001 8001-16383, slot 100 importing from node 0
//	node 2: replica of node 0, hostname n3.limitkv.test
func startGoldenCluster(t *testing.T) []*goldenNode {
	bin := testredis.RequireVersion(t, "7.0.")
	nodes := make([]*goldenNode, 3)
	for i := range nodes {
		cport, err := testredis.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-port", strconv.Itoa(cport), "--cluster-node-timeout", "2000"}
		if i == 2 {
			args = append(args, "--cluster-announce-hostname", "n3.limitkv.test")
		}
		p := testredis.StartWith(t, testredis.Options{Path: bin, Args: args})
		rdb := redis.NewClient(&redis.Options{Addr: p.Addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		t.Cleanup(func() { rdb.Close() })
		nodes[i] = &goldenNode{p: p, cport: cport, rdb: rdb}
		nodes[i].id = nodes[i].text(t, "CLUSTER", "MYID")
	}
	n0, n1, n2 := nodes[0], nodes[1], nodes[2]
	for _, n := range nodes[1:] {
		n0.do(t, "CLUSTER", "MEET", "127.0.0.1", n.p.Port, n.cport)
	}
	n0.do(t, "CLUSTER", "ADDSLOTSRANGE", 0, 5000, 5002, 8000)
	n1.do(t, "CLUSTER", "ADDSLOTSRANGE", 5001, 5001, 8001, 16383)
	waitFor(t, "the nodes to know each other", func() bool {
		for _, n := range nodes {
			out := n.text(t, "CLUSTER", "NODES")
			if strings.Count(out, "\n") != 3 || strings.Contains(out, "handshake") || strings.Contains(out, "noaddr") {
				return false
			}
		}
		return true
	})
	n2.do(t, "CLUSTER", "REPLICATE", n0.id)
	n0.do(t, "CLUSTER", "SETSLOT", 100, "MIGRATING", n1.id)
	n1.do(t, "CLUSTER", "SETSLOT", 100, "IMPORTING", n0.id)
	n0.do(t, "CLUSTER", "SETSLOT", 9000, "IMPORTING", n1.id)
	waitFor(t, "the cluster to settle", func() bool {
		for _, n := range nodes {
			out := n.text(t, "CLUSTER", "NODES")
			info := n.text(t, "CLUSTER", "INFO")
			if !strings.Contains(info, "cluster_state:ok\r\n") || strings.Count(out, "slave "+n0.id) != 1 ||
				strings.Contains(out, "disconnected") || !strings.Contains(out, ",n3.limitkv.test ") {
				return false
			}
		}
		return true
	})
	return nodes
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// maskTimes replaces the ping_sent and pong_received fields of every node
// line: they move with every PING.
var nodeTimes = regexp.MustCompile(`(?m)^(\S+ \S+ \S+ \S+) \d+ \d+ `)

func maskTimes(s string) string { return nodeTimes.ReplaceAllString(s, "$1 <ping> <pong> ") }

// snapshot is what one node shows at one moment: its nodes.conf just saved
// and its CLUSTER NODES and INFO right after.
type snapshot struct {
	conf        []byte
	nodes, info string
}

// takeSnapshot saves the node's config (the hostname, learnt from gossip,
// does not by itself make Redis save) and reads it back with CLUSTER
// NODES, retrying until nothing changed in between.
func takeSnapshot(t *testing.T, g *goldenNode) snapshot {
	t.Helper()
	for try := 0; ; try++ {
		g.do(t, "CLUSTER", "SAVECONFIG")
		conf, err := os.ReadFile(filepath.Join(g.p.Dir, "nodes.conf"))
		if err != nil {
			t.Fatal(err)
		}
		sn := snapshot{conf: conf, nodes: g.text(t, "CLUSTER", "NODES"), info: g.text(t, "CLUSTER", "INFO")}
		confNodes, _, _ := strings.Cut(string(conf), "vars ")
		if maskTimes(confNodes) == maskTimes(withoutHandshakes(sn.nodes)) || try == 20 {
			return sn
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// withoutHandshakes drops the handshake nodes' lines, which nodes.conf
// does not have.
func withoutHandshakes(nodes string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(nodes, "\n") {
		if !strings.Contains(line, " handshake ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestGoldenRedisCluster holds our nodes.conf loading and saving, and our
// CLUSTER NODES, INFO, SLOTS and SHARDS, to what three real Redis 7.0.15
// nodes write and answer for the same state.
func TestGoldenRedisCluster(t *testing.T) {
	nodes := startGoldenCluster(t)
	for i, g := range nodes {
		sn := takeSnapshot(t, g)
		t.Run(fmt.Sprintf("node%d", i), func(t *testing.T) {
			checkRoundTrip(t, sn.conf)
			s, err := Parse(sn.conf, LoadOptions{Verbatim: true})
			if err != nil {
				t.Fatal(err)
			}
			if s.Myself.ID() != g.id {
				t.Fatalf("myself is %s, want %s", s.Myself.ID(), g.id)
			}

			if got, want := maskTimes(s.ClusterNodes(false)), maskTimes(sn.nodes); got != want {
				t.Errorf("CLUSTER NODES:\n got: %q\nwant: %q", got, want)
			}

			copyStats(t, s, sn.info)
			const t0 = 1_800_000_000_000
			s.UpdateState(t0)
			s.UpdateState(t0 + writableDelay) // a master waits 2 s before turning ok
			if got := s.Info(); got != sn.info {
				t.Errorf("CLUSTER INFO:\n got: %q\nwant: %q", got, sn.info)
			}

			compareSlotsShards(t, g, s)
		})
	}
	t.Run("handshake", func(t *testing.T) { checkHandshake(t, nodes[0]) })
}

// checkRoundTrip: a file Redis wrote loads (Verbatim) and saves back byte
// for byte, through ConfigFile.Save on a copy; loaded as Redis loads it,
// the non-zero times become the load time and the other nodes are not
// linked yet.
func checkRoundTrip(t *testing.T, conf []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nodes.conf")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		t.Fatal(err)
	}
	cf, err := LockConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	s, err := cf.Load(LoadOptions{Verbatim: true})
	if err != nil {
		t.Fatal(err)
	}
	check(t, s)
	if err := cf.Save(s, true); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, conf) {
		t.Errorf("Load then Save changed the file:\n got: %q\nwant: %q", saved, conf)
	}

	const now = 1_811_111_111_111
	s, err = Parse(conf, LoadOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^(\S+ \S+ \S+ \S+) (\d+) (\d+) `).ReplaceAllStringFunc(string(conf), func(line string) string {
		f := strings.Fields(line)
		for j := 4; j <= 5; j++ {
			if f[j] != "0" {
				f[j] = strconv.Itoa(now)
			}
		}
		return strings.Join(f, " ") + " "
	})
	want = strings.ReplaceAll(want, " connected", " disconnected")
	want = regexp.MustCompile(`(?m)^(\S+ \S+ myself,.*) disconnected`).ReplaceAllString(want, "$1 connected")
	if got := string(s.ConfigText()); got != want {
		t.Errorf("loaded at now, saved:\n got: %q\nwant: %q", got, want)
	}
}

// copyStats sets the bus statistics from Redis's CLUSTER INFO, which the
// bus, not this package, counts.
func copyStats(t *testing.T, s *State, info string) {
	t.Helper()
	for _, line := range strings.Split(info, "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		if k == "total_cluster_links_buffer_limit_exceeded" {
			s.LinksBufferLimitExceeded = uint64(n)
		}
		name, ok := strings.CutPrefix(k, "cluster_stats_messages_")
		if !ok {
			continue
		}
		for typ, tn := range msgTypeNames {
			if name == tn+"_sent" {
				s.MessagesSent[typ] = n
			} else if name == tn+"_received" {
				s.MessagesReceived[typ] = n
			}
		}
	}
}

// compareSlotsShards renders our CLUSTER SLOTS and SHARDS as go-redis
// reads RESP2 and compares them with Redis's answers. The replication
// offsets, which the state does not learn from nodes.conf and which move
// (the master's replication PINGs), are taken from the very SHARDS reply
// compared.
func compareSlotsShards(t *testing.T, g *goldenNode, s *State) {
	t.Helper()
	for _, ep := range []struct {
		name string
		typ  EndpointType
	}{{"ip", EndpointIP}, {"hostname", EndpointHostname}, {"unknown-endpoint", EndpointUnknown}} {
		g.do(t, "CONFIG", "SET", "cluster-preferred-endpoint-type", ep.name)
		shards := g.do(t, "CLUSTER", "SHARDS")
		o := ReplyOptions{Endpoint: ep.typ, MyReplOffset: takeOffsets(s, g.id, shards)}
		if got, want := fmt.Sprint(renderShards(s.Shards(o))), fmt.Sprint(shards); got != want {
			t.Errorf("CLUSTER SHARDS (%s):\n got: %s\nwant: %s", ep.name, got, want)
		}
		if got, want := fmt.Sprint(renderSlots(s.Slots(o))), fmt.Sprint(g.do(t, "CLUSTER", "SLOTS")); got != want {
			t.Errorf("CLUSTER SLOTS (%s):\n got: %s\nwant: %s", ep.name, got, want)
		}
	}
	g.do(t, "CONFIG", "SET", "cluster-preferred-endpoint-type", "ip")
}

// takeOffsets sets each node's ReplOffset from a CLUSTER SHARDS reply and
// returns myself's.
func takeOffsets(s *State, myID string, shards any) (mine int64) {
	for _, sh := range shards.([]any) {
		for _, n := range sh.([]any)[3].([]any) {
			f := n.([]any)
			var id string
			var off int64
			for j := 0; j < len(f); j += 2 {
				switch f[j] {
				case "id":
					id = f[j+1].(string)
				case "replication-offset":
					off = f[j+1].(int64)
				}
			}
			s.LookupID(id).ReplOffset = off
			if id == myID {
				mine = off
			}
		}
	}
	return mine
}

// renderSlots is what the command layer will send, as go-redis reads it.
func renderSlots(rs []SlotsRange) []any {
	out := []any{}
	for _, r := range rs {
		e := []any{int64(r.Start), int64(r.End)}
		for _, n := range r.Nodes {
			var ep any = n.Endpoint
			if n.NullEndpoint {
				ep = nil
			}
			meta := []any{}
			for _, f := range n.Meta {
				meta = append(meta, f.Name, f.Value)
			}
			e = append(e, []any{ep, int64(n.Port), n.ID, meta})
		}
		out = append(out, e)
	}
	return out
}

func renderShards(shs []Shard) []any {
	out := []any{}
	for _, sh := range shs {
		slots := []any{}
		for _, v := range sh.Slots {
			slots = append(slots, int64(v))
		}
		nodes := []any{}
		for _, n := range sh.Nodes {
			m := []any{"id", n.ID}
			if n.Port != 0 {
				m = append(m, "port", int64(n.Port))
			}
			if n.TLSPort != 0 {
				m = append(m, "tls-port", int64(n.TLSPort))
			}
			m = append(m, "ip", n.IP, "endpoint", n.Endpoint)
			if n.Hostname != "" {
				m = append(m, "hostname", n.Hostname)
			}
			m = append(m, "role", n.Role, "replication-offset", n.ReplOffset, "health", n.Health)
			nodes = append(nodes, m)
		}
		out = append(out, []any{"slots", slots, "nodes", nodes})
	}
	return out
}

// checkHandshake meets an address where nothing listens: Redis lists the
// handshake node in CLUSTER NODES but leaves it out of nodes.conf, as ours
// does.
func checkHandshake(t *testing.T, g *goldenNode) {
	dead, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	g.do(t, "CLUSTER", "MEET", "127.0.0.1", dead, dead)
	sn := takeSnapshot(t, g)
	if bytes.Contains(sn.conf, []byte("handshake")) {
		t.Fatalf("Redis saved a handshake node:\n%s", sn.conf)
	}
	var hsLine string
	var rest []string
	for _, line := range strings.SplitAfter(sn.nodes, "\n") {
		if strings.Contains(line, " handshake ") {
			hsLine = line
		} else if line != "" {
			rest = append(rest, line)
		}
	}
	if hsLine == "" {
		t.Fatalf("no handshake node in CLUSTER NODES:\n%s", sn.nodes)
	}

	s, err := Parse(sn.conf, LoadOptions{Verbatim: true})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := s.StartHandshake("127.0.0.1", dead, dead, 1_800_000_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartHandshake("127.0.0.1", dead, dead, 1_800_000_000_000); err != ErrHandshakeInProgress {
		t.Fatalf("a second MEET: %v, want ErrHandshakeInProgress", err)
	}
	// Whether the bus's connection attempt is under way when Redis answers
	// is a matter of timing: take its word.
	hs.Linked = strings.Contains(hsLine, " connected")
	if got := string(s.ConfigText()); maskTimes(got) != maskTimes(string(sn.conf)) {
		t.Errorf("nodes.conf with a handshake node:\n got: %q\nwant: %q", got, sn.conf)
	}
	ours := strings.SplitAfter(s.ClusterNodes(false), "\n")
	// Redis lists its hash table's order, where the random name falls
	// anywhere; ours adds the node last.
	gotHS := strings.Replace(ours[len(ours)-2], hs.ID(), hsLine[:NameLen], 1)
	if maskTimes(gotHS) != maskTimes(hsLine) {
		t.Errorf("handshake node line:\n got: %q\nwant: %q", gotHS, hsLine)
	}
	if got, want := maskTimes(strings.Join(ours[:len(ours)-2], "")), maskTimes(strings.Join(rest, "")); got != want {
		t.Errorf("CLUSTER NODES besides the handshake node:\n got: %q\nwant: %q", got, want)
	}
}
