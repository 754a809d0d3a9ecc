package cluster

import (
	"math/rand/v2"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
)

// header is clusterBuildMessageHdr: what every message says about this
// node. A replica speaks for its master's slots and configEpoch, flagged
// as a replica so that the receivers do not take it for their owner.
// Call with the lock held.
func (c *Cluster) header(t clusterbus.Type) clusterbus.Header {
	st := c.st
	me := st.Myself
	master := me
	if me.IsReplica() && me.Master() != nil {
		master = me.Master()
	}
	h := clusterbus.Header{
		Type:         t,
		Sender:       clusterbus.NodeName(me.Name()),
		MySlots:      clusterbus.SlotBitmap(master.Slots()),
		Port:         uint16(me.Port),
		PPort:        uint16(me.PPort),
		CPort:        uint16(me.CPort),
		Flags:        clusterbus.NodeFlags(me.Flags),
		State:        uint8(st.Health),
		CurrentEpoch: st.CurrentEpoch,
		ConfigEpoch:  master.ConfigEpoch,
		Offset:       uint64(c.replOffset()),
	}
	if m := me.Master(); m != nil {
		h.SlaveOf = clusterbus.NodeName(m.Name())
	}
	// An empty address makes the receivers take the connection's.
	if ip := c.announcedIP(); ip != "" {
		h.MyIP = clusterbus.MakeIP(ip)
	}
	// A master paused for a manual failover says so: its offset is then
	// final, and its replica waits for nothing else.
	if me.IsMaster() && c.fo.mfEnd != 0 {
		h.MFlags[0] |= clusterbus.MFlag0Paused
	}
	return h
}

// gossipEntry is clusterSetGossipEntry.
func gossipEntry(n *clusterstate.Node) clusterbus.Gossip {
	return clusterbus.Gossip{
		Node:         clusterbus.NodeName(n.Name()),
		PingSent:     uint32(n.PingSent / 1000),
		PongReceived: uint32(n.PongReceived / 1000),
		IP:           clusterbus.MakeIP(n.IP),
		Port:         uint16(n.Port),
		CPort:        uint16(n.CPort),
		Flags:        clusterbus.NodeFlags(n.Flags),
		PPort:        uint16(n.PPort),
	}
}

// sendPing is clusterSendPing: a PING, PONG or MEET on l with gossip about
// a tenth of the nodes (at least 3) picked at random, plus every node we
// think may be failing, so that failure reports reach a majority within
// the report validity window. Call with the lock held.
func (c *Cluster) sendPing(l *link, t clusterbus.Type) {
	if l == nil || l.freed {
		return
	}
	st := c.st
	me := st.Myself
	if !l.inbound && t == clusterbus.TypePing {
		l.node.PingSent = c.now()
	}
	nodes := st.Nodes()
	// Myself and the receiver are not worth gossiping to it.
	fresh := len(nodes) - 2
	wanted := min(max(len(nodes)/10, 3), fresh)
	var gossip []clusterbus.Gossip
	var picked []*clusterstate.Node
	for iter := wanted * 3; fresh > 0 && len(gossip) < wanted && iter > 0; iter-- {
		n := nodes[rand.IntN(len(nodes))]
		if n == me || n.TimedOut() { // PFAIL nodes all go below
			continue
		}
		// Handshake and address-less nodes are nobody's business, and a
		// node we cannot reach that serves nothing is news to no one.
		if n.Flags&(clusterstate.FlagHandshake|clusterstate.FlagNoAddr) != 0 ||
			(!n.Linked && n.NumSlots() == 0) {
			fresh-- // not exact, as in Redis: it only bounds the search
			continue
		}
		if contains(picked, n) {
			continue
		}
		picked = append(picked, n)
		gossip = append(gossip, gossipEntry(n))
		fresh--
	}
	for _, n := range nodes {
		if n.TimedOut() && n.Flags&(clusterstate.FlagHandshake|clusterstate.FlagNoAddr) == 0 {
			gossip = append(gossip, gossipEntry(n))
		}
	}
	body := &clusterbus.Ping{Gossip: gossip}
	if me.Hostname != "" {
		body.Exts = []clusterbus.Ext{clusterbus.HostnameExt(me.Hostname)}
	}
	c.send(l, &clusterbus.Message{Header: c.header(t), Body: body})
}

func contains(ns []*clusterstate.Node, n *clusterstate.Node) bool {
	for _, x := range ns {
		if x == n {
			return true
		}
	}
	return false
}

// broadcastPong is clusterBroadcastPong: a PONG to every node we have a
// link to (all), or only to the replicas of my shard (after a promotion,
// so they switch masters at once). Call with the lock held.
func (c *Cluster) broadcastPong(all bool) {
	if c.bus == nil {
		return
	}
	me := c.st.Myself
	for _, n := range c.st.Nodes() {
		l := c.bus.out[n]
		if l == nil || n == me || n.InHandshake() {
			continue
		}
		if !all {
			m := n.Master()
			if !n.IsReplica() || m == nil || (m != me && m != me.Master()) {
				continue
			}
		}
		c.sendPing(l, clusterbus.TypePong)
	}
}

// broadcast is clusterBroadcastMessage: one encoding of msg to every node
// but myself and those in handshake, on their outbound links.
func (c *Cluster) broadcast(msg *clusterbus.Message) {
	b := clusterbus.Encode(msg)
	for _, n := range c.st.Nodes() {
		if n.Flags&(clusterstate.FlagMyself|clusterstate.FlagHandshake) != 0 {
			continue
		}
		c.sendBytes(c.bus.out[n], b, msg.Type)
	}
}

// sendFail is clusterSendFail: every node is told that n failed.
func (c *Cluster) sendFail(n *clusterstate.Node) {
	c.broadcast(&clusterbus.Message{
		Header: c.header(clusterbus.TypeFail),
		Body:   &clusterbus.Fail{Node: clusterbus.NodeName(n.Name())},
	})
}

// sendUpdate is clusterSendUpdate: l's node learns n's slots and epoch,
// less the slots n stopped claiming, which we must not spread.
func (c *Cluster) sendUpdate(l *link, n *clusterstate.Node) {
	if l == nil {
		return
	}
	slots := n.Slots()
	for i := range slots {
		slots[i] &^= c.bus.notClaiming[i]
	}
	c.send(l, &clusterbus.Message{
		Header: c.header(clusterbus.TypeUpdate),
		Body: &clusterbus.Update{
			ConfigEpoch: n.ConfigEpoch,
			Node:        clusterbus.NodeName(n.Name()),
			Slots:       clusterbus.SlotBitmap(slots),
		},
	})
}
