package cluster

import (
	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
)

// PropagatePublish is clusterPropagatePublish (engine.Cluster): a PUBLISH
// goes to every node, an SPUBLISH only to the nodes serving this node's
// slots (my master and its replicas, or my replicas), the only ones whose
// clients may subscribe to the channel. Call with the lock held.
func (c *Cluster) PropagatePublish(channel, message []byte, shard bool) {
	if c.bus == nil {
		return
	}
	t := clusterbus.TypePublish
	if shard {
		t = clusterbus.TypePublishShard
	}
	msg := &clusterbus.Message{
		Header: c.header(t),
		Body:   &clusterbus.Publish{Channel: channel, Message: message},
	}
	if !shard {
		c.broadcast(msg)
		return
	}
	me := c.st.Myself
	primary := me
	if !me.IsMaster() {
		primary = me.Master()
	}
	// A replica that does not know its master has no shard to tell.
	if primary == nil {
		return
	}
	var b []byte
	for _, n := range append([]*clusterstate.Node{primary}, primary.Replicas()...) {
		if n.IsMyself() || n.InHandshake() {
			continue
		}
		l := c.bus.out[n]
		if l == nil {
			continue
		}
		if b == nil {
			b = clusterbus.Encode(msg)
		}
		c.sendBytes(l, b, t)
	}
}
