package clusterstate

import (
	"reflect"
	"strings"
	"testing"
)

// texts is a state exercising every part of a node line: myself a, with
// slots in several runs, one slot both migrating and importing (shown as
// migrating) and one importing; b, a TLS master with a plaintext port and
// a hostname; c, b's replica; d, in handshake; e, named only as a
// placeholder, never described.
func texts(t *testing.T) (s *State, a, b, c, d *Node) {
	t.Helper()
	s, a, b, c = cluster(t)
	a.IP, a.Port, a.CPort = "10.0.0.1", 7000, 17000
	b.IP, b.Port, b.PPort, b.CPort, b.Hostname = "10.0.0.2", 7443, 7001, 17001, "b.example"
	c.IP, c.Port, c.CPort = "10.0.0.3", 7002, 17002
	a.ConfigEpoch, b.ConfigEpoch, c.ConfigEpoch = 3, 5, 9
	s.CurrentEpoch, s.LastVoteEpoch = 12, 4
	b.Linked, b.PingSent, b.PongReceived = true, 1700000000001, 1700000000002
	c.Flags |= FlagNoFailover | FlagPFail
	s.SetNodeAsReplica(c, b)
	for _, r := range []Range{{0, 99}, {101, 101}, {200, 8191}} {
		for j := r.Start; j <= r.End; j++ {
			s.AddSlot(a, j)
		}
	}
	for j := 8192; j < Slots; j++ {
		s.AddSlot(b, j)
	}
	s.SetMigrating(7, b)
	s.SetImporting(7, b)
	s.SetImporting(100, b)
	d = NewNode(nm('d'), FlagHandshake|FlagMeet, 1)
	d.IP, d.Port, d.CPort = "10.0.0.4", 7003, 17003
	s.AddNode(d)
	s.Todo = 0
	return s, a, b, c, d
}

const (
	aLine = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 10.0.0.1:7000@17000 myself,master - 0 0 3 connected 0-99 101 200-8191 [7->-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb] [100-<-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb]\n"
	bLine = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 10.0.0.2:7443@17001,b.example master - 1700000000001 1700000000002 5 connected 8192-16383\n"
	cLine = "cccccccccccccccccccccccccccccccccccccccc 10.0.0.3:7002@17002 slave,fail?,nofailover bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 0 0 5 disconnected\n"
	dLine = "dddddddddddddddddddddddddddddddddddddddd 10.0.0.4:7003@17003 handshake - 0 0 0 disconnected\n"
)

func TestNodesText(t *testing.T) {
	s, _, b, c, _ := texts(t)
	if got, want := s.ClusterNodes(false), aLine+bLine+cLine+dLine; got != want {
		t.Errorf("CLUSTER NODES:\n got: %q\nwant: %q", got, want)
	}
	// A plaintext client of a TLS cluster sees b's plaintext port.
	if got := s.ClusterNodes(true); !strings.Contains(got, " 10.0.0.2:7001@17001,b.example ") {
		t.Errorf("usePPort: %q", got)
	}
	if got, want := string(s.ConfigText()), aLine+bLine+cLine+"vars currentEpoch 12 lastVoteEpoch 4\n"; got != want {
		t.Errorf("nodes.conf:\n got: %q\nwant: %q", got, want)
	}
	if got := s.NodeDescription(c, false); got != strings.TrimSuffix(cLine, "\n") {
		t.Errorf("CLUSTER REPLICAS element: %q", got)
	}
	if got := s.NodeDescription(b, false); got != strings.TrimSuffix(bLine, "\n") {
		t.Errorf("one node's line: %q", got)
	}
	// Flags shown for nothing but MEET: noflags.
	e := NewNode(nm('e'), FlagMeet, 1)
	s.AddNode(e)
	if got := s.NodeDescription(e, false); got != "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee :0@0 noflags - 0 0 0 disconnected" {
		t.Errorf("a bare node: %q", got)
	}
}

func TestInfoText(t *testing.T) {
	s, a, b, _, _ := texts(t)
	s.DelSlot(5)
	b.Flags |= FlagPFail
	s.MessagesSent[0], s.MessagesSent[2], s.MessagesSent[10] = 8, 2, 1
	s.MessagesReceived[1] = 4
	s.LinksBufferLimitExceeded = 3
	want := "cluster_state:fail\r\n" +
		"cluster_slots_assigned:16284\r\n" +
		"cluster_slots_ok:8092\r\n" +
		"cluster_slots_pfail:8192\r\n" +
		"cluster_slots_fail:0\r\n" +
		"cluster_known_nodes:4\r\n" +
		"cluster_size:1\r\n" +
		"cluster_current_epoch:12\r\n" +
		"cluster_my_epoch:3\r\n" +
		"cluster_stats_messages_ping_sent:8\r\n" +
		"cluster_stats_messages_meet_sent:2\r\n" +
		"cluster_stats_messages_publishshard_sent:1\r\n" +
		"cluster_stats_messages_sent:11\r\n" +
		"cluster_stats_messages_pong_received:4\r\n" +
		"cluster_stats_messages_received:4\r\n" +
		"total_cluster_links_buffer_limit_exceeded:3\r\n"
	if got := s.Info(); got != want {
		t.Errorf("CLUSTER INFO:\n got: %q\nwant: %q", got, want)
	}
	// A replica reports its master's epoch, and FAIL slots count apart.
	b.Flags = FlagMaster | FlagFail
	s.DelNodeSlots(a)
	s.SetMyMaster(b)
	got := s.Info()
	for _, line := range []string{"cluster_slots_assigned:8192\r\n", "cluster_slots_ok:0\r\n", "cluster_slots_fail:8192\r\n", "cluster_my_epoch:5\r\n"} {
		if !strings.Contains(got, line) {
			t.Errorf("CLUSTER INFO of a replica lacks %q:\n%s", line, got)
		}
	}
}

func TestSlotsReply(t *testing.T) {
	s, a, b, c, _ := texts(t)
	c.Flags &^= FlagPFail
	for j := 0; j < 100; j++ {
		s.DelSlot(j)
	}
	aNode := SlotsNode{Endpoint: "10.0.0.1", Port: 7000, ID: a.ID()}
	bNode := SlotsNode{Endpoint: "10.0.0.2", Port: 7443, ID: b.ID(), Meta: []Field{{"hostname", "b.example"}}}
	cNode := SlotsNode{Endpoint: "10.0.0.3", Port: 7002, ID: c.ID()}
	for _, tc := range []struct {
		name    string
		o       ReplyOptions
		setup   func()
		want    []SlotsRange
		bWithEp func(SlotsNode) SlotsNode
	}{
		{name: "replica at offset 0 is not listed",
			want: []SlotsRange{{101, 101, []SlotsNode{aNode}}, {200, 8191, []SlotsNode{aNode}}, {8192, 16383, []SlotsNode{bNode}}}},
		{name: "replica listed", setup: func() { c.ReplOffset = 10 },
			want: []SlotsRange{{101, 101, []SlotsNode{aNode}}, {200, 8191, []SlotsNode{aNode}}, {8192, 16383, []SlotsNode{bNode, cNode}}}},
		{name: "failed replica not listed", setup: func() { c.Flags |= FlagFail },
			want: []SlotsRange{{101, 101, []SlotsNode{aNode}}, {200, 8191, []SlotsNode{aNode}}, {8192, 16383, []SlotsNode{bNode}}}},
	} {
		if tc.setup != nil {
			tc.setup()
		}
		if got := s.Slots(tc.o); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got: %+v\nwant: %+v", tc.name, got, tc.want)
		}
	}

	only := func(o ReplyOptions) SlotsNode { return s.Slots(o)[2].Nodes[0] }
	for _, tc := range []struct {
		o    ReplyOptions
		want SlotsNode
	}{
		{ReplyOptions{Endpoint: EndpointHostname}, SlotsNode{Endpoint: "b.example", Port: 7443, ID: b.ID(), Meta: []Field{{"ip", "10.0.0.2"}}}},
		{ReplyOptions{Endpoint: EndpointUnknown}, SlotsNode{NullEndpoint: true, Port: 7443, ID: b.ID(), Meta: []Field{{"ip", "10.0.0.2"}, {"hostname", "b.example"}}}},
		{ReplyOptions{TLSCluster: true, PlaintextClient: true}, SlotsNode{Endpoint: "10.0.0.2", Port: 7001, ID: b.ID(), Meta: []Field{{"hostname", "b.example"}}}},
		{ReplyOptions{TLSCluster: true}, bNode},
	} {
		if got := only(tc.o); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v:\n got: %+v\nwant: %+v", tc.o, got, tc.want)
		}
	}
	if got := s.Slots(ReplyOptions{Endpoint: EndpointHostname})[0].Nodes[0]; got.Endpoint != "?" {
		t.Errorf("hostname endpoint of a node without one: %q", got.Endpoint)
	}
}

func TestShardsReply(t *testing.T) {
	s, a, b, c, _ := texts(t)
	f := NewNode(nm('f'), FlagMaster, 1) // a master without slots is a shard too
	s.AddNode(f)
	b.ReplOffset, c.ReplOffset = 500, 0
	got := s.Shards(ReplyOptions{MyReplOffset: 77})
	want := []Shard{
		{[]int{0, 99, 101, 101, 200, 8191}, []ShardNode{{ID: a.ID(), Port: 7000, IP: "10.0.0.1", Endpoint: "10.0.0.1", Role: "master", ReplOffset: 77, Health: "online"}}},
		{[]int{8192, 16383}, []ShardNode{
			{ID: b.ID(), Port: 7443, IP: "10.0.0.2", Endpoint: "10.0.0.2", Hostname: "b.example", Role: "master", ReplOffset: 500, Health: "online"},
			{ID: c.ID(), Port: 7002, IP: "10.0.0.3", Endpoint: "10.0.0.3", Role: "replica", Health: "loading"},
		}},
		{[]int{}, []ShardNode{{ID: f.ID(), IP: "", Endpoint: "", Role: "master", Health: "online"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CLUSTER SHARDS:\n got: %+v\nwant: %+v", got, want)
	}
	c.Flags |= FlagFail
	got = s.Shards(ReplyOptions{TLSCluster: true, Endpoint: EndpointUnknown})
	if n := got[1].Nodes[0]; n.Port != 7001 || n.TLSPort != 7443 || n.Endpoint != "" {
		t.Errorf("TLS shard node: %+v", n)
	}
	if n := got[1].Nodes[1]; n.Health != "fail" || n.Port != 0 || n.TLSPort != 7002 {
		t.Errorf("failed replica in a TLS cluster: %+v", n)
	}
	if n := s.Shards(ReplyOptions{Endpoint: EndpointHostname})[0].Nodes[0]; n.Endpoint != "?" {
		t.Errorf("hostname endpoint: %q", n.Endpoint)
	}
}
