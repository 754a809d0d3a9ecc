package cluster

import (
	"fmt"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
)

// setMaster is clusterSetMaster: this node becomes a replica of n (in the
// state, and by replicating from it). Call with the lock held.
func (c *Cluster) setMaster(n *clusterstate.Node) {
	if err := c.st.SetMyMaster(n); err != nil {
		c.log.Warn("clusterSetMaster: " + err.Error())
		return
	}
	durability.Of(c.e).SetMaster(n.IP, n.Port)
	c.resetManualFailover()
	c.st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState
}

// replOffset is what this node's PING header carries as its replication
// offset: master_repl_offset on a master, the processed offset on a
// replica. Call with the lock held.
func (c *Cluster) replOffset() int64 { return c.e.ReplOffset() }

// reset is clusterReset (CLUSTER RESET): the other nodes' links go with
// them, then the state is reset; a replica stops replicating and empties
// its data. Call with the lock held.
func (c *Cluster) reset(hard bool) {
	me := c.st.Myself
	for _, n := range c.st.Nodes() {
		if n != me {
			c.forgetNode(n)
		}
	}
	c.resetManualFailover()
	if c.st.Reset(hard) {
		c.unsetMaster()
	}
	if hard {
		c.log.Warn("configEpoch set to 0 via CLUSTER RESET HARD")
		c.log.Info(fmt.Sprintf("Node hard reset, now I'm %s", me.ID()))
	}
}

// unsetMaster is replicationUnsetMaster with emptyData after it: a replica
// turned master by CLUSTER RESET keeps nothing of its old master's data.
func (c *Cluster) unsetMaster() {
	durability.Of(c.e).UnsetMaster()
	for i := 0; i < config.NumDBs; i++ {
		c.e.DB(i).Flush()
	}
}
