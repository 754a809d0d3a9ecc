package clusterstate

import "bytes"

// MaxEpoch is clusterGetMaxEpoch: the greatest configEpoch known, or the
// current epoch if greater.
func (s *State) MaxEpoch() uint64 {
	m := s.CurrentEpoch
	for _, n := range s.order {
		m = max(m, n.ConfigEpoch)
	}
	return m
}

// BumpConfigEpochWithoutConsensus is clusterBumpConfigEpochWithoutConsensus
// (CLUSTER BUMPEPOCH, closing an imported slot, CLUSTER FAILOVER TAKEOVER):
// unless myself already has the greatest non-zero epoch, myself takes a
// new one, CurrentEpoch+1, without asking the other masters. It returns
// whether it did (Redis logs "New configEpoch set to N"); the new
// configuration must reach the disk (Todo) before packets carry it.
//
// Skipping consensus can make two masters pick the same epoch; the
// collision handling below separates them again.
func (s *State) BumpConfigEpochWithoutConsensus() bool {
	me := s.Myself
	if me.ConfigEpoch != 0 && me.ConfigEpoch == s.MaxEpoch() {
		return false
	}
	s.CurrentEpoch++
	me.ConfigEpoch = s.CurrentEpoch
	s.Todo |= TodoSaveConfig | TodoFsyncConfig
	return true
}

// HandleConfigEpochCollision is clusterHandleConfigEpochCollision: sender,
// a master, has myself's configEpoch. The node with the smaller name moves
// on to CurrentEpoch+1, so the one with the greatest name never moves and
// any number of colliding masters end with distinct epochs. It returns
// true when myself moved: Redis saves and fsyncs nodes.conf at once then
// (and logs "WARNING: configEpoch collision with node %.40s. configEpoch
// set to %llu"), before answering the packet; Todo records it too.
func (s *State) HandleConfigEpochCollision(sender *Node) bool {
	me := s.Myself
	if sender.ConfigEpoch != me.ConfigEpoch || !sender.IsMaster() || !me.IsMaster() {
		return false
	}
	if bytes.Compare(sender.name[:], me.name[:]) <= 0 {
		return false
	}
	s.CurrentEpoch++
	me.ConfigEpoch = s.CurrentEpoch
	s.Todo |= TodoSaveConfig | TodoFsyncConfig
	return true
}
