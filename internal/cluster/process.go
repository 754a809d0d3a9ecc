package cluster

import (
	"fmt"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
)

// senderOf is getNodeFromLinkAndMsg. A link's node is the sender unless it
// is still in handshake (its name is our random one, not the peer's). An
// inbound link learns its node from the first packet of a node we know.
func (c *Cluster) senderOf(l *link, h *clusterbus.Header) *clusterstate.Node {
	if l.node != nil && !l.node.InHandshake() {
		return l.node
	}
	sender := c.st.Lookup(clusterstate.Name(h.Sender))
	if sender != nil && l.node == nil {
		c.setInboundLink(sender, l)
	}
	return sender
}

// processPacket is clusterProcessPacket for a decoded message (Decode did
// its length checks). It may free l; the caller checks l.freed. Call with
// the lock held.
func (c *Cluster) processPacket(l *link, msg *clusterbus.Message) {
	st := c.st
	h := &msg.Header
	now := c.now()
	if h.Type < clusterbus.TypeCount {
		st.MessagesReceived[h.Type]++
	}
	sender := c.senderOf(l, h)
	if sender != nil {
		// Traffic of any kind proves the node alive (see the cron).
		sender.DataReceived = now
	}
	// The epochs of a node still in handshake are not trusted yet.
	var senderCurrentEpoch, senderConfigEpoch uint64
	if sender != nil && !sender.InHandshake() {
		senderCurrentEpoch, senderConfigEpoch = h.CurrentEpoch, h.ConfigEpoch
		if senderCurrentEpoch > st.CurrentEpoch {
			st.CurrentEpoch = senderCurrentEpoch
		}
		if senderConfigEpoch > sender.ConfigEpoch {
			sender.ConfigEpoch = senderConfigEpoch
			st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoFsyncConfig
		}
		sender.ReplOffset = int64(h.Offset)
		sender.ReplOffsetTime = now
		c.notePausedOffset(sender, h)
	}

	switch h.Type {
	case clusterbus.TypePing, clusterbus.TypePong, clusterbus.TypeMeet:
		ping, _ := msg.Body.(*clusterbus.Ping)
		if ping == nil {
			ping = &clusterbus.Ping{}
		}
		c.processPing(l, h, ping, sender, senderConfigEpoch, now)
	case clusterbus.TypeFail:
		f, _ := msg.Body.(*clusterbus.Fail)
		if sender == nil || f == nil {
			c.log.Info(fmt.Sprintf("Ignoring FAIL message from unknown node %.40s", h.Sender.String()))
			return
		}
		failing := st.Lookup(clusterstate.Name(f.Node))
		if failing != nil && failing.Flags&(clusterstate.FlagFail|clusterstate.FlagMyself) == 0 {
			c.log.Info(fmt.Sprintf("FAIL message received from %.40s about %.40s", h.Sender.String(), f.Node.String()))
			failing.Flags |= clusterstate.FlagFail
			failing.Flags &^= clusterstate.FlagPFail
			failing.FailTime = now
			st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
		}
	case clusterbus.TypePublish, clusterbus.TypePublishShard:
		p, _ := msg.Body.(*clusterbus.Publish)
		if sender == nil || p == nil {
			return // we do not know that node
		}
		if h.Type == clusterbus.TypePublish {
			c.e.Publish(p.Channel, p.Message)
		} else {
			c.e.SPublish(p.Channel, p.Message)
		}
	case clusterbus.TypeUpdate:
		u, _ := msg.Body.(*clusterbus.Update)
		if sender == nil || u == nil {
			return
		}
		n := st.Lookup(clusterstate.Name(u.Node))
		if n == nil || n.ConfigEpoch >= u.ConfigEpoch {
			return // a node we do not know, or nothing new
		}
		if n.IsReplica() {
			st.SetNodeAsMaster(n)
		}
		n.ConfigEpoch = u.ConfigEpoch
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoFsyncConfig
		c.updateSlotsConfigWith(n, u.ConfigEpoch, u.Slots)
	case clusterbus.TypeFailoverAuthRequest, clusterbus.TypeFailoverAuthAck, clusterbus.TypeMFStart:
		c.processFailoverMessage(l, msg, sender, senderCurrentEpoch)
	case clusterbus.TypeModule:
		// No module API: Redis hands the payload to the module that
		// registered the type, and without one it goes nowhere.
	default:
		c.log.Warn(fmt.Sprintf("Received unknown packet type: %d", h.Type))
	}
}

// processPing is the PING, PONG and MEET part of clusterProcessPacket.
func (c *Cluster) processPing(l *link, h *clusterbus.Header, ping *clusterbus.Ping, sender *clusterstate.Node, senderConfigEpoch uint64, now int64) {
	st := c.st
	me := st.Myself
	if h.Type == clusterbus.TypePing || h.Type == clusterbus.TypeMeet {
		// Whoever MEETs us dialed our official address, so the socket's
		// own end tells us what it is; a PING does it when we have none.
		if (h.Type == clusterbus.TypeMeet || me.IP == "") && c.announcedIP() == "" && l.conn != nil {
			if ip, ok := addrIP(l.conn.LocalAddr()); ok && ip != me.IP {
				me.IP = ip
				c.log.Warn("IP address for this node updated to " + ip)
				st.Todo |= clusterstate.TodoSaveConfig
			}
		}
		// A MEET from a node we do not know adds it, in handshake: the
		// PONGs to come will say who it is.
		if sender == nil && h.Type == clusterbus.TypeMeet {
			if ip, ok := nodeIP(l, h.MyIP); ok {
				n := clusterstate.NewNode(clusterstate.NewName(), clusterstate.FlagHandshake, now)
				n.IP, n.Port, n.PPort, n.CPort = ip, int(h.Port), int(h.PPort), int(h.CPort)
				if st.AddNode(n) == nil {
					st.Todo |= clusterstate.TodoSaveConfig
				}
			}
			// The message type vouches for the sender's gossip.
			c.processGossip(l, h, ping, now)
		}
		c.sendPing(l, clusterbus.TypePong)
	}

	if !l.inbound {
		n := l.node
		if n.InHandshake() {
			if sender != nil {
				// A handshake with a node we knew under another address:
				// keep the node we have, with the address that worked,
				// and drop the handshake (and this link with it).
				if c.updateAddressIfNeeded(sender, l, h) {
					st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
				}
				c.forgetNode(n)
				return
			}
			// Redis takes any 40 bytes; a name nodes.conf could not load
			// back would make this node fail at its next start.
			name, ok := clusterstate.ParseName(h.Sender.String())
			if !ok || st.RenameNode(n, name) != nil {
				c.freeLink(l)
				return
			}
			c.log.Debug("Handshake with node completed.", "node", n.ID())
			n.Flags &^= clusterstate.FlagHandshake
			n.Flags |= clusterstate.Flags(h.Flags) & (clusterstate.FlagMaster | clusterstate.FlagSlave)
			st.Todo |= clusterstate.TodoSaveConfig
		} else if n.Name() != clusterstate.Name(h.Sender) {
			// Another node answers at this address now: the one we knew
			// is somewhere else, which gossip will tell.
			c.log.Debug("PONG contains mismatching sender ID", "node", n.ID())
			n.Flags |= clusterstate.FlagNoAddr
			n.IP, n.Port, n.PPort, n.CPort = "", 0, 0, 0
			c.freeLink(l)
			st.Todo |= clusterstate.TodoSaveConfig
			return
		}
	}
	// Nothing a peer says about myself under my name is news (Redis would
	// even turn myself into its replica).
	if sender == me {
		return
	}

	// NOFAILOVER is the sender's live setting: the latest word counts.
	if sender != nil {
		sender.Flags = sender.Flags&^clusterstate.FlagNoFailover | clusterstate.Flags(h.Flags)&clusterstate.FlagNoFailover
	}
	if sender != nil && h.Type == clusterbus.TypePing && !sender.InHandshake() &&
		c.updateAddressIfNeeded(sender, l, h) {
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
	}

	if !l.inbound && h.Type == clusterbus.TypePong {
		n := l.node
		n.PongReceived = now
		n.PingSent = 0
		// PFAIL undoes itself; FAIL only under clearNodeFailureIfNeeded's
		// conditions.
		if n.TimedOut() {
			n.Flags &^= clusterstate.FlagPFail
			st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
		} else if n.Failed() {
			st.ClearFailureIfNeeded(n, now)
		}
	}
	if sender == nil {
		return
	}

	// Role switches: the header names the sender's master, or none.
	if h.SlaveOf.IsZero() {
		st.SetNodeAsMaster(sender)
	} else {
		st.SetNodeAsReplica(sender, st.Lookup(clusterstate.Name(h.SlaveOf)))
	}

	// After the roles: the slots checks need the sender's MASTER flag.
	var senderMaster *clusterstate.Node
	if sender.IsMaster() {
		senderMaster = sender
	} else {
		senderMaster = sender.Master()
	}
	dirty := senderMaster != nil && senderMaster.Slots() != clusterstate.Bitmap(h.MySlots)
	if dirty && sender.IsMaster() {
		c.updateSlotsConfigWith(sender, senderConfigEpoch, h.MySlots)
	}
	// The reverse: the sender claims slots we know a newer owner of
	// (a master back from a partition, unaware it was failed over).
	if dirty {
		for j := 0; j < clusterstate.Slots; j++ {
			if !h.MySlots.Has(uint16(j)) {
				continue
			}
			owner := st.SlotOwner(j)
			if owner == sender || c.slotUnclaimed(j) {
				continue
			}
			if owner.ConfigEpoch > senderConfigEpoch {
				c.log.Debug("Node has old slots configuration, sending an UPDATE", "node", sender.ID(), "about", owner.ID())
				c.sendUpdate(c.bus.out[sender], owner)
				// One UPDATE at a time, as Redis: the next PING brings
				// the rest.
				break
			}
		}
	}

	if me.IsMaster() && sender.IsMaster() && senderConfigEpoch == me.ConfigEpoch {
		if st.HandleConfigEpochCollision(sender) {
			c.log.Warn(fmt.Sprintf("WARNING: configEpoch collision with node %.40s. configEpoch set to %d", sender.ID(), me.ConfigEpoch))
			// The new epoch must reach the disk before any message carries
			// it: afterChange saves it before the lock is released, and
			// messages are only built under the lock.
		}
	}

	c.processGossip(l, h, ping, now)
	// clusterProcessPingExtensions: no hostname extension means none.
	sender.Hostname = ping.Hostname()
}

// slotUnclaimed is isSlotUnclaimed.
func (c *Cluster) slotUnclaimed(slot int) bool {
	return c.st.SlotOwner(slot) == nil || c.bus.notClaiming.Has(slot)
}

// updateAddressIfNeeded is nodeUpdateAddressIfNeeded: a node that pings us
// from another address than the one we know has moved. Our link to the old
// address goes, and the cron dials the new one.
func (c *Cluster) updateAddressIfNeeded(n *clusterstate.Node, l *link, h *clusterbus.Header) bool {
	// Only a link other than our own to n tells where n is now.
	if l == c.bus.out[n] {
		return false
	}
	ip, ok := nodeIP(l, h.MyIP)
	if !ok {
		return false // the next PING tries again
	}
	port, pport, cport := int(h.Port), int(h.PPort), int(h.CPort)
	if n.Port == port && n.CPort == cport && n.PPort == pport && n.IP == ip {
		return false
	}
	n.IP, n.Port, n.PPort, n.CPort = ip, port, pport, cport
	if old := c.bus.out[n]; old != nil {
		c.freeLink(old)
	}
	n.Flags &^= clusterstate.FlagNoAddr
	c.log.Warn(fmt.Sprintf("Address updated for node %.40s, now %s:%d", n.ID(), n.IP, n.Port))
	// Replicating from n would follow it here (replicationSetMaster).
	return true
}

// processGossip is clusterProcessGossipSection: failure reports from
// masters, pong times, new addresses of nodes we cannot reach, and the
// nodes we did not know.
func (c *Cluster) processGossip(l *link, h *clusterbus.Header, ping *clusterbus.Ping, now int64) {
	st := c.st
	me := st.Myself
	sender := l.node
	if sender == nil {
		sender = st.Lookup(clusterstate.Name(h.Sender))
	}
	const failing = clusterbus.NodeFail | clusterbus.NodePFail
	for i := range ping.Gossip {
		g := &ping.Gossip[i]
		n := st.Lookup(clusterstate.Name(g.Node))
		if n == nil {
			// Only a node we trust may introduce others, and it must say
			// where they are. The new node is trusted as it is named (not
			// met by address, which another cluster may have reused).
			if sender == nil || g.Flags&clusterbus.NodeNoAddr != 0 {
				continue
			}
			name, ok := clusterstate.ParseName(g.Node.String())
			if !ok || st.BlacklistExists(name, now) {
				continue
			}
			n = clusterstate.NewNode(name, clusterstate.Flags(g.Flags)&^clusterstate.FlagMyself, now)
			n.IP, n.Port, n.PPort, n.CPort = g.IP.String(), int(g.Port), int(g.PPort), int(g.CPort)
			_ = st.AddNode(n)
			continue
		}
		// Only masters' reports count toward a FAIL.
		if sender != nil && sender.IsMaster() && n != me {
			if g.Flags&failing != 0 {
				if st.AddFailureReport(n, sender, now) {
					c.log.Debug("Node reported node as not reachable.", "sender", sender.ID(), "node", n.ID())
				}
				c.markFailingIfNeeded(n, now)
			} else if st.DelFailureReport(n, sender, now) {
				c.log.Debug("Node reported node is back online.", "sender", sender.ID(), "node", n.ID())
			}
		}
		// A node fine by us and by the sender takes the sender's newer
		// pong time, unless it lies in the future (500 ms of skew allowed):
		// this keeps healthy nodes from all being pinged at once.
		if g.Flags&failing == 0 && n.PingSent == 0 && st.FailureReportsCount(n, now) == 0 {
			pong := int64(g.PongReceived) * 1000
			if pong <= now+500 && pong > n.PongReceived {
				n.PongReceived = pong
			}
		}
		// A node we cannot reach, at a new address someone can: try there.
		if n.Flags&(clusterstate.FlagFail|clusterstate.FlagPFail) != 0 &&
			g.Flags&(clusterbus.NodeNoAddr|failing) == 0 {
			ip := g.IP.String()
			if !clusterstate.EqualFoldASCII(n.IP, ip) || n.Port != int(g.Port) || n.CPort != int(g.CPort) {
				if old := c.bus.out[n]; old != nil {
					c.freeLink(old)
				}
				n.IP, n.Port, n.PPort, n.CPort = ip, int(g.Port), int(g.PPort), int(g.CPort)
				n.Flags &^= clusterstate.FlagNoAddr
			}
		}
	}
}

// markFailingIfNeeded is markNodeAsFailingIfNeeded: when the reports make
// a majority, n is FAIL and every node is told at once, so that the
// cluster agrees before a replica starts an election.
func (c *Cluster) markFailingIfNeeded(n *clusterstate.Node, now int64) {
	if !c.st.MarkFailingIfNeeded(n, now) {
		return
	}
	c.log.Info(fmt.Sprintf("Marking node %.40s as failing (quorum reached).", n.ID()))
	c.sendFail(n)
}

// updateSlotsConfigWith is clusterUpdateSlotsConfigWith: sender (the
// sender of a PING, or the node an UPDATE is about) claims slots with
// epoch. Slots it claims with a newer epoch than their owner's, or that
// nobody claims, become its own; myself, left without slots by it, becomes
// its replica.
func (c *Cluster) updateSlotsConfigWith(sender *clusterstate.Node, epoch uint64, slots clusterbus.SlotBitmap) {
	st := c.st
	me := st.Myself
	if sender == me {
		c.log.Warn("Discarding UPDATE message about myself.")
		return
	}
	curMaster := me
	if !me.IsMaster() {
		curMaster = me.Master()
	}
	var newMaster *clusterstate.Node
	var dirtySlots []int // slots we lose while still holding keys in them
	senderSlots, migratedOurSlots := 0, 0
	ix := c.e.SlotIndex()
	for j := 0; j < clusterstate.Slots; j++ {
		if !slots.Has(uint16(j)) {
			if st.SlotOwner(j) == sender {
				// Kept bound: unbinding would fail the cluster, and a few
				// redirects are better than errors. It is only marked, so
				// that no UPDATE spreads this claim.
				c.bus.notClaiming.Set(j)
			}
			continue
		}
		senderSlots++
		owner := st.SlotOwner(j)
		if owner == sender {
			c.bus.notClaiming.Clear(j)
			continue
		}
		// A slot being imported changes hands by hand only (the resharding
		// tool closes it).
		if st.ImportingFrom(j) != nil {
			continue
		}
		if !c.slotUnclaimed(j) && owner.ConfigEpoch >= epoch {
			continue
		}
		if owner == me && ix != nil && ix.Count(j) > 0 {
			dirtySlots = append(dirtySlots, j)
		}
		if owner != nil && owner == curMaster {
			newMaster = sender
			migratedOurSlots++
		}
		st.DelSlot(j)
		st.AddSlot(sender, j)
		c.bus.notClaiming.Clear(j)
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState | clusterstate.TodoFsyncConfig
	}

	allowMigration := c.e.Cfg.Stored("cluster-allow-replica-migration") == "yes"
	switch {
	case newMaster != nil && curMaster.NumSlots() == 0 &&
		(allowMigration || senderSlots == migratedOurSlots):
		// We (or our master) were failed over: follow the new master.
		c.log.Warn(fmt.Sprintf("Configuration change detected. Reconfiguring myself as a replica of %.40s", sender.ID()))
		c.setMaster(sender)
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState | clusterstate.TodoFsyncConfig
	case me.Master() != nil && me.Master().Master() != nil && me.Master().Master() != me:
		// Our master turned replica when its last slot went: replicate
		// from the grandmaster, as nothing else would move us. (A replica
		// of a replica of myself is left to the admin, as in Redis.)
		grand := me.Master().Master()
		c.log.Warn(fmt.Sprintf("I'm a sub-replica! Reconfiguring myself as a replica of grandmaster %.40s", grand.ID()))
		c.setMaster(grand)
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState | clusterstate.TodoFsyncConfig
	case len(dirtySlots) > 0:
		// Still a master, but some lost slots hold keys: they must go, or
		// the keys would shadow the new owner's; the DELs reach the
		// replicas and the AOF.
		for _, j := range dirtySlots {
			c.e.DelKeysInSlot(j)
		}
	}
}
