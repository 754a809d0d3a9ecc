package cluster

import (
	"errors"
	"fmt"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/keyslot"
)

// ErrKeysOutsideDB0 is verifyClusterConfigWithData's refusal: the server
// then exits, as Redis does.
var ErrKeysOutsideDB0 = errors.New("You can't have keys in a DB different than DB 0 when in Cluster mode. Exiting.")

// VerifyData is verifyClusterConfigWithData, once the dataset is loaded: a
// master may hold keys in database 0 only, and the slots of its keys must
// be its own or being imported. A slot with keys that nobody serves becomes
// this node's; one another node serves is set importing from it.
func (c *Cluster) VerifyData() error {
	e := c.e
	e.Lock()
	defer e.Unlock()
	st := c.st
	if st.Myself.IsReplica() {
		return nil // the replication stream decides
	}
	for i := 1; i < config.NumDBs; i++ {
		if e.DB(i).Len() != 0 {
			return ErrKeysOutsideDB0
		}
	}
	idx := e.SlotIndex()
	changed := false
	for s := 0; s < keyslot.Slots; s++ {
		if idx.Count(s) == 0 || st.SlotOwner(s) == st.Myself || st.ImportingFrom(s) != nil {
			continue
		}
		changed = true
		if owner := st.SlotOwner(s); owner == nil {
			c.log.Warn(fmt.Sprintf("I have keys for unassigned slot %d. Taking responsibility for it.", s))
			st.AddSlot(st.Myself, s)
		} else {
			c.log.Warn(fmt.Sprintf("I have keys for slot %d, but the slot is assigned to another node. Setting it to importing state.", s))
			st.SetImporting(s, owner)
		}
	}
	if changed {
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoFsyncConfig
		c.afterChange()
	}
	return nil
}
