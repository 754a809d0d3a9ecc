package clusterstate

// SlotOwner is the node serving slot, nil when unassigned.
func (s *State) SlotOwner(slot int) *Node { return s.slots[slot] }

// AddSlot is clusterAddSlot: n serves slot, which must be unassigned
// (false otherwise, changing nothing).
func (s *State) AddSlot(n *Node, slot int) bool {
	if s.slots[slot] != nil {
		return false
	}
	s.setSlotBit(n, slot)
	s.slots[slot] = n
	return true
}

// DelSlot is clusterDelSlot: slot becomes unassigned; false if it was.
func (s *State) DelSlot(slot int) bool {
	n := s.slots[slot]
	if n == nil {
		return false
	}
	if s.OnShardSlotDeleted != nil && s.inShardOf(n) {
		s.OnShardSlotDeleted(slot)
	}
	n.slots.Clear(slot)
	n.numSlots--
	s.slots[slot] = nil
	return true
}

// DelNodeSlots is clusterDelNodeSlots: every slot of n becomes unassigned.
// It returns how many.
func (s *State) DelNodeSlots(n *Node) int {
	deleted := 0
	for j := 0; j < Slots; j++ {
		if n.slots.Has(j) {
			s.DelSlot(j)
			deleted++
		}
	}
	return deleted
}

// inShardOf reports whether myself is n or one of the nodes serving n's
// slots (clusterGetNodesServingMySlots). Redis asserts that a replica
// owning a slot has a known master; a replica without one stands alone.
func (s *State) inShardOf(n *Node) bool {
	primary := n
	if !n.IsMaster() && n.master != nil {
		primary = n.master
	}
	if primary == s.Myself {
		return true
	}
	for _, r := range primary.replicas {
		if r == s.Myself {
			return true
		}
	}
	return false
}

// setSlotBit is clusterNodeSetSlotBit.
func (s *State) setSlotBit(n *Node, slot int) {
	if n.slots.Has(slot) {
		return
	}
	n.slots.Set(slot)
	n.numSlots++
	// A master's first slot makes it a target for replica migration, but
	// only in a cluster where some master has replicas (redis#3043): in a
	// replica-less cluster there is nothing to migrate.
	if n.numSlots == 1 && s.mastersHaveReplicas() {
		n.Flags |= FlagMigrateTo
	}
}

// mastersHaveReplicas is clusterMastersHaveSlaves.
func (s *State) mastersHaveReplicas() bool {
	for _, n := range s.order {
		if !n.IsReplica() && len(n.replicas) > 0 {
			return true
		}
	}
	return false
}

// MigratingTo is the node slot is being migrated to, or nil.
func (s *State) MigratingTo(slot int) *Node { return s.migratingTo[slot] }

// ImportingFrom is the node slot is being imported from, or nil.
func (s *State) ImportingFrom(slot int) *Node { return s.importingFrom[slot] }

// SetMigrating marks slot as migrating to n (CLUSTER SETSLOT MIGRATING);
// nil clears the mark.
func (s *State) SetMigrating(slot int, n *Node) { s.migratingTo[slot] = n }

// SetImporting marks slot as imported from n (CLUSTER SETSLOT IMPORTING);
// nil clears the mark.
func (s *State) SetImporting(slot int, n *Node) { s.importingFrom[slot] = n }

// CloseAllSlots is clusterCloseAllSlots: no slot is migrating or importing.
func (s *State) CloseAllSlots() {
	s.migratingTo = [Slots]*Node{}
	s.importingFrom = [Slots]*Node{}
}

// OwnedRange is a run of consecutive slots with one owner.
type OwnedRange struct {
	Range
	Node *Node
}

// OwnerRanges walks the owner table as clusterGenNodesSlotsInfo and CLUSTER
// SLOTS do: the maximal runs of assigned slots with the same owner, in
// slot order.
func (s *State) OwnerRanges() []OwnedRange {
	var rs []OwnedRange
	var n *Node
	start := 0
	for i := 0; i <= Slots; i++ {
		var cur *Node
		if i < Slots {
			cur = s.slots[i]
		}
		if i < Slots && cur == n {
			continue
		}
		if n != nil {
			rs = append(rs, OwnedRange{Range{start, i - 1}, n})
		}
		n, start = cur, i
	}
	return rs
}
