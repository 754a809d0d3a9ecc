package clusterstate

import (
	"fmt"
	"strconv"
	"strings"
)

// NodesDescription is clusterGenNodesDescription: one line per node, in the
// listing order, skipping the nodes with any of the filter flags:
//
//	<id> <ip>:<port>@<cport>[,<hostname>] <flags> <master-id|-> <ping_sent> <pong_received> <configEpoch> <connected|disconnected> <slot|start-end>... [<slot>->-<id>]... [<slot>-<-<id>]...
//
// A replica shows its master's configEpoch; only myself's line lists the
// migrating and importing slots. usePPort shows a TLS node's plaintext
// port (a plaintext client of a TLS cluster asks).
func (s *State) NodesDescription(filter Flags, usePPort bool) []byte {
	ranges := s.nodeRanges()
	var b []byte
	for _, n := range s.order {
		if n.Flags&filter != 0 {
			continue
		}
		b = s.appendNode(b, n, ranges[n], usePPort)
		b = append(b, '\n')
	}
	return b
}

// nodeRanges is the slot ranges of every node, from one walk of the owner
// table (clusterGenNodesSlotsInfo), for the texts listing every node.
func (s *State) nodeRanges() map[*Node][]Range {
	m := map[*Node][]Range{}
	for _, r := range s.OwnerRanges() {
		m[r.Node] = append(m[r.Node], r.Range)
	}
	return m
}

// ClusterNodes is the text of CLUSTER NODES (sent as a verbatim string):
// every node, handshake nodes included.
func (s *State) ClusterNodes(usePPort bool) string {
	return string(s.NodesDescription(0, usePPort))
}

// NodeDescription is clusterGenNodeDescription for one node, without the
// newline: each element of CLUSTER REPLICAS.
func (s *State) NodeDescription(n *Node, usePPort bool) string {
	return string(s.appendNode(nil, n, n.slots.Ranges(), usePPort))
}

// ConfigText is the content clusterSaveConfig writes to nodes.conf: the
// nodes but those in handshake, then the epochs' vars line.
func (s *State) ConfigText() []byte {
	b := s.NodesDescription(FlagHandshake, false)
	b = append(b, "vars currentEpoch "...)
	b = strconv.AppendUint(b, s.CurrentEpoch, 10)
	b = append(b, " lastVoteEpoch "...)
	b = strconv.AppendUint(b, s.LastVoteEpoch, 10)
	return append(b, '\n')
}

func (s *State) appendNode(b []byte, n *Node, ranges []Range, usePPort bool) []byte {
	port := n.Port
	if usePPort && n.PPort != 0 {
		port = n.PPort
	}
	b = append(b, n.name[:]...)
	b = append(b, ' ')
	b = append(b, n.IP...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(port), 10)
	b = append(b, '@')
	b = strconv.AppendInt(b, int64(n.CPort), 10)
	if n.Hostname != "" {
		b = append(b, ',')
		b = append(b, n.Hostname...)
	}
	b = append(b, ' ')
	b = n.Flags.appendText(b)
	b = append(b, ' ')
	if n.master != nil {
		b = append(b, n.master.name[:]...)
	} else {
		b = append(b, '-')
	}
	epoch := n.ConfigEpoch
	if n.IsReplica() && n.master != nil {
		epoch = n.master.ConfigEpoch
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, n.PingSent, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, n.PongReceived, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, epoch, 10)
	if n.Linked || n.IsMyself() {
		b = append(b, " connected"...)
	} else {
		b = append(b, " disconnected"...)
	}
	for _, r := range ranges {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(r.Start), 10)
		if r.End != r.Start {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(r.End), 10)
		}
	}
	if n.IsMyself() {
		for j := 0; j < Slots; j++ {
			// A slot both migrating and importing shows as migrating only.
			if m := s.migratingTo[j]; m != nil {
				b = fmt.Appendf(b, " [%d->-%s]", j, m.name[:])
			} else if m := s.importingFrom[j]; m != nil {
				b = fmt.Appendf(b, " [%d-<-%s]", j, m.name[:])
			}
		}
	}
	return b
}

// msgTypeNames is clusterGetMessageTypeString, by message type number.
var msgTypeNames = [MsgTypeCount]string{
	"ping", "pong", "meet", "fail", "publish", "auth-req", "auth-ack",
	"update", "mfstart", "module", "publishshard",
}

// Info is the text of CLUSTER INFO (sent as a verbatim string): the state
// and slot counts, the epochs, then the bus statistics (only the message
// types with a non-zero count are listed).
func (s *State) Info() string {
	var assigned, ok, pfail, fail int
	for _, n := range s.slots {
		switch {
		case n == nil:
			continue
		case n.Failed():
			fail++
		case n.TimedOut():
			pfail++
		default:
			ok++
		}
		assigned++
	}
	me := s.Myself
	myEpoch := me.ConfigEpoch
	if me.IsReplica() && me.master != nil {
		myEpoch = me.master.ConfigEpoch
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cluster_state:%s\r\n"+
		"cluster_slots_assigned:%d\r\n"+
		"cluster_slots_ok:%d\r\n"+
		"cluster_slots_pfail:%d\r\n"+
		"cluster_slots_fail:%d\r\n"+
		"cluster_known_nodes:%d\r\n"+
		"cluster_size:%d\r\n"+
		"cluster_current_epoch:%d\r\n"+
		"cluster_my_epoch:%d\r\n",
		s.Health, assigned, ok, pfail, fail, len(s.nodes), s.Size, s.CurrentEpoch, myEpoch)
	for _, dir := range []struct {
		name   string
		counts *[MsgTypeCount]int64
	}{{"sent", &s.MessagesSent}, {"received", &s.MessagesReceived}} {
		var total int64
		for t, c := range dir.counts {
			if c == 0 {
				continue
			}
			total += c
			fmt.Fprintf(&b, "cluster_stats_messages_%s_%s:%d\r\n", msgTypeNames[t], dir.name, c)
		}
		fmt.Fprintf(&b, "cluster_stats_messages_%s:%d\r\n", dir.name, total)
	}
	fmt.Fprintf(&b, "total_cluster_links_buffer_limit_exceeded:%d\r\n", s.LinksBufferLimitExceeded)
	return b.String()
}
