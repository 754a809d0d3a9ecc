package cluster

import (
	"strings"

	"github.com/limitkv/limitkv/internal/clusterstate"
)

// LinkInfo is one link as CLUSTER LINKS describes it
// (addReplyClusterLinkDescription).
type LinkInfo struct {
	Direction  string // "to" for our link to the node, "from" for its link to us
	Node       string // the node's ID
	CreateTime int64  // ms
	// Events are the handlers a Redis link would have: "r" once connected
	// (it reads), "w" while it has bytes to write.
	Events                              string
	SendBufferAllocated, SendBufferUsed int64
}

// linksInfo is clusterGetLinksInfo: each node's outbound link, then its
// inbound one, in the nodes' order. Inbound links no packet has named yet
// are not listed. Call with the lock held.
func (c *Cluster) linksInfo() []LinkInfo {
	if c.bus == nil {
		return nil
	}
	var infos []LinkInfo
	for _, n := range c.st.Nodes() {
		if l := c.bus.out[n]; l != nil {
			infos = append(infos, l.info("to"))
		}
		if l := c.bus.in[n]; l != nil {
			infos = append(infos, l.info("from"))
		}
	}
	return infos
}

func (l *link) info(dir string) LinkInfo {
	l.mu.Lock()
	used := int64(len(l.sndbuf) + l.inflight)
	allocated := int64(cap(l.sndbuf) + l.inflight)
	l.mu.Unlock()
	events := ""
	if l.conn != nil {
		events = "r"
	}
	if used > 0 {
		events += "w"
	}
	return LinkInfo{
		Direction:           dir,
		Node:                l.node.ID(),
		CreateTime:          l.ctime,
		Events:              events,
		SendBufferAllocated: allocated,
		SendBufferUsed:      used,
	}
}

// forgetNode is clusterDelNode with freeClusterNode's part on the links:
// n's links close and n leaves the state (CLUSTER FORGET, a handshake
// that timed out or found a node we knew). Myself is never deleted. Call
// with the lock held.
func (c *Cluster) forgetNode(n *clusterstate.Node) {
	if n == c.st.Myself {
		return
	}
	if c.bus != nil {
		if l := c.bus.out[n]; l != nil {
			c.freeLink(l)
		}
		if l := c.bus.in[n]; l != nil {
			c.freeLink(l)
		}
	}
	c.st.DelNode(n)
}

// freeOrphanLinks closes the links of nodes no longer in the state: the
// CLUSTER RESET path deletes nodes in the state alone, and a link left
// behind would keep gossiping for a node we forgot.
func (c *Cluster) freeOrphanLinks() {
	b := c.bus
	for n, l := range b.out {
		if c.st.Lookup(n.Name()) != n {
			c.freeLink(l)
		}
	}
	for n, l := range b.in {
		if c.st.Lookup(n.Name()) != n {
			c.freeLink(l)
		}
	}
}

// KillLink is DEBUG CLUSTERLINK KILL (engine.Cluster): node's outbound
// link ("to"), its inbound one ("from"), or both ("all") are freed; the
// cron makes the outbound one again, and the peer its own. (Redis answers
// an unknown direction with its error and then OK, two replies: here only
// the error.)
func (c *Cluster) KillLink(direction, node string) string {
	n := c.st.LookupID(node)
	if n == nil {
		return "ERR Unknown node " + node
	}
	b := c.bus
	var kill []*link
	switch strings.ToLower(direction) {
	case "from":
		kill = append(kill, b.in[n])
	case "to":
		kill = append(kill, b.out[n])
	case "all":
		kill = append(kill, b.out[n], b.in[n])
	default:
		return "ERR Unknown direction " + direction
	}
	for _, l := range kill {
		if l != nil {
			c.freeLink(l)
		}
	}
	return ""
}
