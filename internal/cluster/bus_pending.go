package cluster

import "github.com/limitkv/limitkv/internal/clusterstate"

// Placeholders for the bus's functions until it lands (bus.go's work).

// LinkInfo is one link as CLUSTER LINKS describes it.
type LinkInfo struct {
	Direction                           string
	Node                                string
	CreateTime                          int64
	Events                              string
	SendBufferAllocated, SendBufferUsed int64
}

func (c *Cluster) forgetNode(n *clusterstate.Node) { c.st.DelNode(n) }
func (c *Cluster) broadcastPong(all bool)          {}
func (c *Cluster) linksInfo() []LinkInfo           { return nil }
