package clusterstate

import "errors"

// SetNodeAsMaster is clusterSetNodeAsMaster: a node we believed a replica
// now acts as a master (its PING says so, or we won a failover).
func (s *State) SetNodeAsMaster(n *Node) {
	if n.IsMaster() {
		return
	}
	if n.master != nil {
		n.master.removeReplica(n)
		// A replica turned master (a failover) is a good target for
		// replica migration: its old master had replicas.
		if n != s.Myself {
			n.Flags |= FlagMigrateTo
		}
	}
	n.Flags &^= FlagSlave
	n.Flags |= FlagMaster
	n.master = nil
	s.Todo |= TodoSaveConfig | TodoUpdateState
}

// SetNodeAsReplica is what clusterProcessPacket does when a node's PING
// names a master: a master turned replica loses its slots and its master
// flags; then, if master is known (non-nil) and differs from the one we
// had, the node moves to master's replica list.
func (s *State) SetNodeAsReplica(n, master *Node) {
	if n.IsMaster() {
		s.DelNodeSlots(n)
		n.Flags &^= FlagMaster | FlagMigrateTo
		n.Flags |= FlagSlave
		s.Todo |= TodoSaveConfig | TodoUpdateState
	}
	if master != nil && n.master != master {
		s.linkMaster(n, master)
		s.Todo |= TodoSaveConfig
	}
}

// linkMaster makes n a replica of master in both directions (slaveof and
// clusterNodeAddSlave), leaving its previous master's list.
func (s *State) linkMaster(n, master *Node) {
	if n.master != nil {
		n.master.removeReplica(n)
	}
	n.master = master
	master.addReplica(n)
}

// ErrSetMaster is SetMyMaster's refusal: myself cannot replicate itself
// and must serve no slot (Redis asserts both; CLUSTER REPLICATE checks them
// first).
var ErrSetMaster = errors.New("clusterstate: myself cannot replicate itself or while serving slots")

// SetMyMaster is clusterSetMaster's part on the state (CLUSTER REPLICATE,
// and a master whose slots went to another): myself becomes a replica of
// n; a master turning replica also drops its migrating and importing
// slots. The component then points replication at n and resets any
// manual failover.
func (s *State) SetMyMaster(n *Node) error {
	me := s.Myself
	if n == me || me.numSlots != 0 {
		return ErrSetMaster
	}
	if me.IsMaster() {
		me.Flags &^= FlagMaster | FlagMigrateTo
		me.Flags |= FlagSlave
		s.CloseAllSlots()
	}
	s.linkMaster(me, n)
	return nil
}

// Reset is clusterReset's part on the state (CLUSTER RESET): myself turns
// master, no slot is open or assigned, every other node is forgotten, and
// a hard reset also zeroes the epochs and gives myself a new name. It
// returns whether myself was a replica: the component then stops
// replicating and empties the database, as Redis does.
func (s *State) Reset(hard bool) (wasReplica bool) {
	me := s.Myself
	if me.IsReplica() {
		wasReplica = true
		s.SetNodeAsMaster(me)
	}
	s.CloseAllSlots()
	for j := 0; j < Slots; j++ {
		s.DelSlot(j)
	}
	for _, n := range s.Nodes() {
		if n != me {
			s.DelNode(n)
		}
	}
	if hard {
		s.CurrentEpoch, s.LastVoteEpoch, me.ConfigEpoch = 0, 0, 0
		name := NewName()
		for s.nodes[name] != nil {
			name = NewName()
		}
		_ = s.RenameNode(me, name)
	}
	s.Todo |= TodoSaveConfig | TodoUpdateState | TodoFsyncConfig
	return wasReplica
}
