package clusterstate

// AddFailureReport is clusterNodeAddFailureReport: sender says failing is
// failing, at now. It returns true for a new report, false when it only
// refreshed sender's earlier one.
func (s *State) AddFailureReport(failing, sender *Node, now int64) bool {
	for i := range failing.failReports {
		if failing.failReports[i].Node == sender {
			failing.failReports[i].Time = now
			return false
		}
	}
	failing.failReports = append(failing.failReports, FailReport{sender, now})
	return true
}

// CleanupFailureReports is clusterNodeCleanupFailureReports: reports older
// than NodeTimeout*FailReportValidityMult are dropped. Only recent reports
// may add up to a FAIL, and a FAIL also needs our own PFAIL, older than the
// node timeout.
func (s *State) CleanupFailureReports(n *Node, now int64) {
	maxAge := s.NodeTimeout * FailReportValidityMult
	kept := n.failReports[:0]
	for _, fr := range n.failReports {
		if now-fr.Time <= maxAge {
			kept = append(kept, fr)
		}
	}
	clear(n.failReports[len(kept):])
	n.failReports = kept
}

// DelFailureReport is clusterNodeDelFailureReport: sender's gossip says n
// is fine again, so its report goes (and the expired ones with it). It
// returns whether there was one.
func (s *State) DelFailureReport(n, sender *Node, now int64) bool {
	if !n.delFailReport(sender) {
		return false
	}
	s.CleanupFailureReports(n, now)
	return true
}

func (n *Node) delFailReport(sender *Node) bool {
	for i, fr := range n.failReports {
		if fr.Node == sender {
			n.failReports = append(n.failReports[:i], n.failReports[i+1:]...)
			return true
		}
	}
	return false
}

// FailureReportsCount is clusterNodeFailureReportsCount: how many other
// nodes recently reported n failing (CLUSTER COUNT-FAILURE-REPORTS).
func (s *State) FailureReportsCount(n *Node, now int64) int {
	s.CleanupFailureReports(n, now)
	return len(n.failReports)
}

// MarkFailingIfNeeded is markNodeAsFailingIfNeeded: a node we see as PFAIL
// becomes FAIL once a majority of the masters (counting myself when a
// master) reported it. It returns true when it did; the component then
// broadcasts FAIL about n.
func (s *State) MarkFailingIfNeeded(n *Node, now int64) bool {
	quorum := s.Size/2 + 1
	if !n.TimedOut() || n.Failed() {
		return false
	}
	failures := s.FailureReportsCount(n, now)
	if s.Myself.IsMaster() {
		failures++
	}
	if failures < quorum {
		return false
	}
	n.Flags &^= FlagPFail
	n.Flags |= FlagFail
	n.FailTime = now
	s.Todo |= TodoUpdateState | TodoSaveConfig
	return true
}

// ClearFailureIfNeeded is clearNodeFailureIfNeeded, for a FAIL node we can
// reach again: a replica or a master without slots is cleared at once; a
// master still serving slots only after NodeTimeout*FailUndoTimeMult of
// FAIL, when apparently nobody failed it over. It returns whether the flag
// was cleared.
func (s *State) ClearFailureIfNeeded(n *Node, now int64) bool {
	if !n.Failed() {
		return false
	}
	if n.IsReplica() || n.numSlots == 0 {
		n.Flags &^= FlagFail
		s.Todo |= TodoUpdateState | TodoSaveConfig
		return true
	}
	if n.IsMaster() && n.numSlots > 0 && now-n.FailTime > s.NodeTimeout*FailUndoTimeMult {
		n.Flags &^= FlagFail
		s.Todo |= TodoUpdateState | TodoSaveConfig
		return true
	}
	return false
}

// The delays of clusterUpdateState, in ms.
const (
	maxRejoinDelay = 5000 // CLUSTER_MAX_REJOIN_DELAY
	minRejoinDelay = 500  // CLUSTER_MIN_REJOIN_DELAY
	writableDelay  = 2000 // CLUSTER_WRITABLE_DELAY
)

// UpdateState is clusterUpdateState: it recomputes Size and decides Health
// (every slot served by a non-FAIL node when RequireFullCoverage, and a
// majority of the slot-serving masters reachable). It returns true when
// Health changed (Redis logs "Cluster state changed: ok|fail").
//
// Like Redis, a master does not turn OK in the first 2 s after the first
// call (a rebooted master should hear the cluster's news before taking
// writes), nor within a rejoin delay (NodeTimeout, bounded to 0.5-5 s) of
// having been in a minority.
func (s *State) UpdateState(now int64) bool {
	s.Todo &^= TodoUpdateState
	if s.firstUpdate == 0 {
		s.firstUpdate = now
	}
	me := s.Myself
	if me.IsMaster() && s.Health == StateFail && now-s.firstUpdate < writableDelay {
		return false
	}
	health := StateOK
	if s.RequireFullCoverage {
		for _, n := range s.slots {
			if n == nil || n.Failed() {
				health = StateFail
				break
			}
		}
	}
	s.Size = 0
	reachable := 0
	for _, n := range s.order {
		if n.IsMaster() && n.numSlots > 0 {
			s.Size++
			if n.Flags&(FlagFail|FlagPFail) == 0 {
				reachable++
			}
		}
	}
	if reachable < s.Size/2+1 {
		health = StateFail
		s.amongMinorityTime = now
	}
	if health == s.Health {
		return false
	}
	rejoin := min(max(s.NodeTimeout, minRejoinDelay), maxRejoinDelay)
	if health == StateOK && me.IsMaster() && now-s.amongMinorityTime < rejoin {
		return false
	}
	s.Health = health
	return true
}
