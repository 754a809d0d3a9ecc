package cluster

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
)

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// cron is clusterCron's work, ten times a second: links are made and
// unmade, nodes pinged, and nodes that stopped answering flagged PFAIL.
// Call with the lock held.
func (c *Cluster) cron(now int64) {
	b := c.bus
	if b == nil || b.closing {
		return
	}
	st := c.st
	me := st.Myself
	b.iteration++
	// clusterUpdateMyselfHostname: CONFIG SET may have changed it.
	me.Hostname = c.e.Cfg.Stored("cluster-announce-hostname")
	// A handshake gets at least a second: with a tiny node timeout a
	// peer a little slow to answer would never be met.
	handshakeTimeout := max(st.NodeTimeout, 1000)
	c.freeOrphanLinks()
	limit := c.sendbufLimit()
	for _, n := range st.Nodes() {
		c.freeLinkOverLimit(b.out[n], limit)
		c.freeLinkOverLimit(b.in[n], limit)
		// clusterNodeCronHandleReconnect.
		if n.Flags&(clusterstate.FlagMyself|clusterstate.FlagNoAddr) != 0 {
			continue
		}
		if n.InHandshake() && now-n.Ctime > handshakeTimeout {
			c.forgetNode(n)
			continue
		}
		if b.out[n] == nil && n.IP != "" && n.CPort > 0 {
			c.connect(n, now)
		}
	}

	// About once a second, ping the node with the oldest pong of five
	// picked at random, so that every node is pinged now and then even
	// when none is overdue.
	if b.iteration%10 == 0 {
		nodes := st.Nodes()
		var minNode *clusterstate.Node
		for j := 0; j < 5; j++ {
			n := nodes[rand.IntN(len(nodes))]
			if b.out[n] == nil || n.PingSent != 0 ||
				n.Flags&(clusterstate.FlagMyself|clusterstate.FlagHandshake) != 0 {
				continue
			}
			if minNode == nil || n.PongReceived < minNode.PongReceived {
				minNode = n
			}
		}
		if minNode != nil {
			c.sendPing(b.out[minNode], clusterbus.TypePing)
		}
	}

	updateState := false
	timeout := st.NodeTimeout
	for _, n := range st.Nodes() {
		if n.Flags&(clusterstate.FlagMyself|clusterstate.FlagNoAddr|clusterstate.FlagHandshake) != 0 {
			continue
		}
		pingDelay := now - n.PingSent
		dataDelay := now - n.DataReceived
		l := b.out[n]
		// A link that carried nothing for half the timeout while a ping
		// waits may be the problem rather than the node: reconnect (once
		// per node timeout at most, by the link's age).
		if l != nil && now-l.ctime > timeout && n.PingSent != 0 &&
			pingDelay > timeout/2 && dataDelay > timeout/2 {
			c.freeLink(l)
			l = nil
		}
		// No node goes more than half the timeout without a ping.
		if l != nil && n.PingSent == 0 && now-n.PongReceived > timeout/2 {
			c.sendPing(l, clusterbus.TypePing)
			continue
		}
		// A master paused for its replica's manual failover pings it at
		// every turn: each ping brings the replica its offset.
		if l != nil && c.fo.mfEnd != 0 && me.IsMaster() && c.fo.mfReplica == n {
			c.sendPing(l, clusterbus.TypePing)
			continue
		}
		if n.PingSent == 0 {
			continue
		}
		// Any data counts as a sign of life: under heavy pub/sub, pongs
		// may lag behind the messages.
		if min(pingDelay, dataDelay) > timeout &&
			n.Flags&(clusterstate.FlagPFail|clusterstate.FlagFail) == 0 {
			c.log.Debug("*** NODE possibly failing", "node", n.ID())
			n.Flags |= clusterstate.FlagPFail
			updateState = true
		}
	}
	// The failover's steps, then replica migration (which counts the
	// orphaned masters itself), as clusterCron ends.
	c.failoverCron(now)
	c.releaseSlotLists()
	if updateState || st.Health == clusterstate.StateFail {
		st.Todo |= clusterstate.TodoUpdateState
	}
}

// sendbufLimit is cluster-link-sendbuf-limit in bytes, 0 for none.
func (c *Cluster) sendbufLimit() int64 {
	v, err := strconv.ParseInt(c.e.Cfg.Stored("cluster-link-sendbuf-limit"), 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// freeLinkOverLimit is freeClusterLinkOnBufferLimitReached. It counts the
// bytes waiting rather than Redis's allocation, which in Go depends on
// append's growth more than on the peer's backlog.
func (c *Cluster) freeLinkOverLimit(l *link, limit int64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if len(l.sndbuf) == 0 && cap(l.sndbuf) > 64<<10 {
		l.sndbuf = nil // resizeClusterLinkBuffer: a past burst's memory
	}
	used := int64(len(l.sndbuf) + l.inflight)
	l.mu.Unlock()
	if limit > 0 && used > limit {
		dir := "to"
		if l.inbound {
			dir = "from"
		}
		c.log.Warn("Freeing cluster link due to exceeding send buffer memory limit.",
			"direction", dir, "node", l.node.ID(), "used", used)
		c.freeLink(l)
		c.st.LinksBufferLimitExceeded++
	}
}

// slotListsIdle is how many cron turns (a minute) the slot index keeps its
// per-slot key lists after they were last asked for.
const slotListsIdle = 600

// releaseSlotLists drops the slot index's per-slot key lists, which
// GETKEYSINSLOT (a resharding's batches) and a lost slot's deletion build,
// once nothing asked for them for slotListsIdle turns and no slot is
// migrating or importing: kept, they cost a map entry and a node for every
// key created, the rate limiter's hot path. Redis keeps its lists always;
// limitkv builds them again from a walk of the keyspace when next asked.
func (c *Cluster) releaseSlotLists() {
	ix := c.e.SlotIndex()
	if ix == nil || !ix.Built() || ix.TakeUsed() {
		c.listsIdle = 0
		return
	}
	if c.listsIdle++; c.listsIdle < slotListsIdle {
		return
	}
	c.listsIdle = 0
	for j := 0; j < clusterstate.Slots; j++ {
		if c.st.MigratingTo(j) != nil || c.st.ImportingFrom(j) != nil {
			return // a resharding still going: the tool asks again soon
		}
	}
	ix.Release()
}
