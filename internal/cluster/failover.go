package cluster

// Failover, as cluster.c's "SLAVE node specific functions" and "CLUSTER
// manual failover" sections: a master's vote (sendFailoverAuthIfNeeded), a
// replica's election (handleReplicaFailover) and promotion
// (replaceYourMaster), and the manual failover of CLUSTER FAILOVER on both
// sides. Everything runs under the engine's lock, from the cron, from
// afterChange (Redis's clusterBeforeSleep) and from the bus.

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
)

const (
	// mfTimeout is CLUSTER_MF_TIMEOUT: how long a manual failover may take
	// before it is given up, in ms.
	mfTimeout = 5000
	// mfPauseMult is CLUSTER_MF_PAUSE_MULT: the master keeps its writes
	// paused for twice the manual failover's time, so that they stay
	// paused for as long as the replica may still win.
	mfPauseMult = 2
	// cantFailoverRelogPeriod is CLUSTER_CANT_FAILOVER_RELOG_PERIOD, in s.
	cantFailoverRelogPeriod = 60 * 5
)

// cantFailover is a CLUSTER_CANT_FAILOVER_* reason.
type cantFailover int

const (
	cantNone cantFailover = iota
	cantDataAge
	cantWaitingDelay
	cantExpired
	cantWaitingVotes
)

// failoverState is clusterState's failover fields: this replica's
// election, and the manual failover on either side.
type failoverState struct {
	authTime    int64  // failover_auth_time: when the election starts, or started (ms)
	authCount   int    // votes received for authEpoch
	authSent    bool   // the vote requests went out
	authRank    int    // our rank among our master's replicas when scheduled
	authEpoch   uint64 // the epoch the election runs in
	cantReason  cantFailover
	lastCantLog int64 // clusterLogCantFailover's static lastlog_time (s)

	mfEnd      int64 // a manual failover is under way until then (ms); 0 when none
	mfCanStart bool  // the replica may start the election
	// mfReplica is, on a master, the replica that asked for the manual
	// failover: the master has paused its writes for it.
	mfReplica      *clusterstate.Node
	mfMasterOffset int64 // the paused master's offset, once mfOffsetKnown
	mfOffsetKnown  bool

	// promoting is set while replaceYourMaster waits, without the lock,
	// for the replication link to stop: another ACK processed meanwhile
	// must not start a second promotion (and a second new replication ID).
	promoting bool
}

// notVoter is authDenial's answer for a node that has no vote at all,
// which Redis does not log.
const notVoter = "-"

// authDenial is clusterSendFailoverAuthIfNeeded's checks: why this node
// refuses its vote to n's FAILOVER_AUTH_REQUEST h, or "" when it grants
// it. The reasons are Redis's log text.
func (c *Cluster) authDenial(n *clusterstate.Node, h *clusterbus.Header, now int64) string {
	st := c.st
	me := st.Myself
	// The cluster's size is its masters with slots, and the quorum a
	// majority of them: only they vote.
	if me.IsReplica() || me.NumSlots() == 0 {
		return notVoter
	}
	// The request's epoch updated ours when it was newer, so lower is all
	// it can be here.
	if h.CurrentEpoch < st.CurrentEpoch {
		return fmt.Sprintf("reqEpoch (%d) < curEpoch(%d)", h.CurrentEpoch, st.CurrentEpoch)
	}
	if st.LastVoteEpoch == st.CurrentEpoch {
		return fmt.Sprintf("already voted for epoch %d", st.CurrentEpoch)
	}
	master := n.Master()
	switch {
	case n.IsMaster():
		return "it is a master node"
	case master == nil:
		return "I don't know its master"
	case !master.Failed() && h.MFlags[0]&clusterbus.MFlag0ForceAck == 0:
		// A manual failover's request says FORCEACK: its master agreed.
		return "its master is up"
	}
	// Not needed for safety, but two replicas of one master racing would
	// each split the votes: one vote per master per two node timeouts
	// lets the first one win.
	if wait := st.NodeTimeout * 2; now-master.VotedTime < wait {
		return fmt.Sprintf("can't vote about this master before %d milliseconds", wait-(now-master.VotedTime))
	}
	// The replica speaks for its master's slots with its master's epoch:
	// a slot we know a newer owner of means its view is stale.
	for j := 0; j < clusterstate.Slots; j++ {
		if !h.MySlots.Has(uint16(j)) || c.slotUnclaimed(j) {
			continue
		}
		if e := st.SlotOwner(j).ConfigEpoch; e > h.ConfigEpoch {
			return fmt.Sprintf("slot %d epoch (%d) > reqEpoch (%d)", j, e, h.ConfigEpoch)
		}
	}
	return ""
}

// sendFailoverAuthIfNeeded is clusterSendFailoverAuthIfNeeded: n asks for
// our vote with h; we grant it (one vote per epoch) or log why not.
func (c *Cluster) sendFailoverAuthIfNeeded(n *clusterstate.Node, h *clusterbus.Header) {
	st := c.st
	now := c.now()
	switch reason := c.authDenial(n, h, now); reason {
	case notVoter:
		return
	case "":
	default:
		c.log.Warn(fmt.Sprintf("Failover auth denied to %.40s: %s", n.ID(), reason))
		return
	}
	st.LastVoteEpoch = st.CurrentEpoch
	n.Master().VotedTime = now
	// The vote must be on disk before it leaves: a master restarted
	// without it could vote twice in one epoch, and two replicas win.
	// Redis gets this from saving before its event loop writes; our
	// links write on their own goroutines, so save now. A node that
	// cannot save does not vote (Redis would exit).
	if err := c.cf.Save(st, true); err != nil {
		c.log.Warn("Can't save the failover vote: not granting it", "err", err)
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoFsyncConfig
		return
	}
	c.send(c.bus.out[n], &clusterbus.Message{Header: c.header(clusterbus.TypeFailoverAuthAck)})
	c.log.Warn(fmt.Sprintf("Failover auth granted to %.40s for epoch %d", n.ID(), st.CurrentEpoch))
}

// processFailoverMessage is clusterProcessPacket's part for
// FAILOVER_AUTH_REQUEST (a replica asks for our vote), FAILOVER_AUTH_ACK
// (a vote for our election) and MFSTART (our replica asks us to let it
// take over).
func (c *Cluster) processFailoverMessage(l *link, msg *clusterbus.Message, sender *clusterstate.Node, senderCurrentEpoch uint64) {
	if sender == nil {
		return // we do not know that node
	}
	st := c.st
	switch msg.Type {
	case clusterbus.TypeFailoverAuthRequest:
		c.sendFailoverAuthIfNeeded(sender, &msg.Header)
	case clusterbus.TypeFailoverAuthAck:
		// Only a voter's ACK counts, and only one sent in our election's
		// epoch or later (an older one answers an older election).
		if sender.IsMaster() && sender.NumSlots() > 0 && senderCurrentEpoch >= c.fo.authEpoch {
			c.fo.authCount++
			st.Todo |= clusterstate.TodoHandleFailover // the quorum may be here
		}
	case clusterbus.TypeMFStart:
		if sender.Master() != st.Myself {
			return
		}
		c.resetManualFailover()
		now := c.now()
		c.fo.mfEnd = now + mfTimeout
		c.fo.mfReplica = sender
		c.e.PauseClients(engine.PauseFailover, engine.NowMsReal()+mfTimeout*mfPauseMult, engine.PauseWrite)
		c.log.Warn(fmt.Sprintf("Manual failover requested by replica %.40s.", sender.ID()))
		// This ping carries our offset, taken with the writes paused, and
		// the PAUSED flag: the replica can start as soon as it caught up.
		c.sendPing(l, clusterbus.TypePing)
	}
}

// notePausedOffset is clusterProcessPacket's manual failover step on a
// replica: our master's header says it paused, so its offset is final.
func (c *Cluster) notePausedOffset(sender *clusterstate.Node, h *clusterbus.Header) {
	me := c.st.Myself
	if c.fo.mfEnd == 0 || !me.IsReplica() || me.Master() != sender ||
		h.MFlags[0]&clusterbus.MFlag0Paused == 0 || c.fo.mfOffsetKnown {
		return
	}
	c.fo.mfMasterOffset, c.fo.mfOffsetKnown = sender.ReplOffset, true
	c.st.Todo |= clusterstate.TodoHandleManualFailover
	c.log.Warn(fmt.Sprintf("Received replication offset for paused master manual failover: %d", c.fo.mfMasterOffset))
}

// replicaRank is clusterGetSlaveRank: how many of our master's other
// replicas (that may fail over) have more of its data than we do. Rank 0
// starts its election first.
func (c *Cluster) replicaRank() int {
	me := c.st.Myself
	m := me.Master()
	if m == nil {
		return 0
	}
	mine := c.replOffset()
	rank := 0
	for _, r := range m.Replicas() {
		if r != me && !r.CantFailover() && r.ReplOffset > mine {
			rank++
		}
	}
	return rank
}

// electionDelay is when, from the moment a replica decides to run, its
// election starts: 500 ms for the FAIL to reach every master, a random
// 0-499 ms so that equal replicas do not collide, and a second per rank
// so that the best replica asks first.
func electionDelay(rank int, jitter int64) int64 { return 500 + jitter + int64(rank)*1000 }

// failoverTimes are the election's timeout (the time it may take to be
// won) and its retry time, max(node timeout*2, 2 s) and twice that.
func failoverTimes(nodeTimeout int64) (timeout, retry int64) {
	timeout = max(nodeTimeout*2, 2000)
	return timeout, timeout * 2
}

// dataAge is clusterHandleSlaveFailover's data_age: how long we have not
// heard from our master, in ms counted in whole seconds as Redis does.
func (c *Cluster) dataAge(now int64) int64 {
	age, ok := durability.Of(c.e).MasterDataAge()
	if !ok {
		return now // never connected since the last sync: "since EVER"
	}
	return int64(age/time.Second) * 1000
}

// handleReplicaFailover is clusterHandleSlaveFailover: a replica whose
// master (serving slots) is FAIL, or which runs a manual failover, checks
// that its data is recent enough, waits its delay, asks the masters for
// their votes in a new epoch and, with a majority, takes its master's
// place.
func (c *Cluster) handleReplicaFailover(now int64) {
	st := c.st
	me := st.Myself
	fo := &c.fo
	authAge := now - fo.authTime
	needed := st.Size/2 + 1
	manual := fo.mfEnd != 0 && fo.mfCanStart
	timeout, retry := failoverTimes(st.NodeTimeout)

	m := me.Master()
	if me.IsMaster() || m == nil || (!m.Failed() && !manual) ||
		(me.CantFailover() && !manual) || m.NumSlots() == 0 {
		fo.cantReason = cantNone
		return
	}

	// Being cut off from the master for as long as it took to flag it
	// FAIL is expected; beyond that, cluster-replica-validity-factor says
	// how stale a replica may be and still take over (0: any).
	dataAge := c.dataAge(now)
	if dataAge > st.NodeTimeout {
		dataAge -= st.NodeTimeout
	}
	factor, _ := strconv.ParseInt(c.e.Cfg.Stored("cluster-replica-validity-factor"), 10, 64)
	if factor != 0 && dataAge > c.e.Cfg.ReplPingPeriod.Load()*1000+st.NodeTimeout*factor && !manual {
		c.logCantFailover(cantDataAge, now)
		return
	}

	if authAge > retry {
		fo.authTime = now + electionDelay(0, rand.Int64N(500))
		fo.authCount, fo.authSent = 0, false
		fo.authRank = c.replicaRank()
		fo.authTime += int64(fo.authRank) * 1000
		if fo.mfEnd != 0 {
			// The master agreed (or FORCE said not to ask): no one to
			// wait for.
			fo.authTime, fo.authRank = now, 0
			st.Todo |= clusterstate.TodoHandleFailover
		}
		c.log.Warn(fmt.Sprintf("Start of election delayed for %d milliseconds (rank #%d, offset %d).",
			fo.authTime-now, fo.authRank, c.replOffset()))
		// Our offset reaches our master's other replicas, which may then
		// see that they rank lower than they thought.
		c.broadcastPong(false)
		return
	}

	// A better replica may have spoken since we scheduled: step back.
	if !fo.authSent && fo.mfEnd == 0 {
		if rank := c.replicaRank(); rank > fo.authRank {
			added := int64(rank-fo.authRank) * 1000
			fo.authTime += added
			fo.authRank = rank
			c.log.Warn(fmt.Sprintf("Replica rank updated to #%d, added %d milliseconds of delay.", rank, added))
		}
	}
	if now < fo.authTime {
		c.logCantFailover(cantWaitingDelay, now)
		return
	}
	if authAge > timeout {
		c.logCantFailover(cantExpired, now)
		return
	}

	if !fo.authSent {
		st.CurrentEpoch++
		fo.authEpoch = st.CurrentEpoch
		c.log.Warn(fmt.Sprintf("Starting a failover election for epoch %d.", st.CurrentEpoch))
		c.requestFailoverAuth()
		fo.authSent = true
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoUpdateState | clusterstate.TodoFsyncConfig
		return
	}

	if fo.authCount < needed {
		c.logCantFailover(cantWaitingVotes, now)
		return
	}
	c.log.Warn("Failover election won: I'm the new master.")
	if me.ConfigEpoch < fo.authEpoch {
		me.ConfigEpoch = fo.authEpoch
		c.log.Warn(fmt.Sprintf("configEpoch set to %d after successful failover", me.ConfigEpoch))
	}
	c.replaceYourMaster()
}

// requestFailoverAuth is clusterRequestFailoverAuth: every node hears our
// request (only masters answer). A manual failover's says FORCEACK, as
// its master is up by design.
func (c *Cluster) requestFailoverAuth() {
	h := c.header(clusterbus.TypeFailoverAuthRequest)
	if c.fo.mfEnd != 0 {
		h.MFlags[0] |= clusterbus.MFlag0ForceAck
	}
	c.broadcast(&clusterbus.Message{Header: h})
}

// logCantFailover is clusterLogCantFailover: why this replica does not
// fail over, said once per reason (again after five minutes), and not in
// the first seconds after the FAIL, when waiting is normal.
func (c *Cluster) logCantFailover(reason cantFailover, now int64) {
	fo := &c.fo
	if reason == fo.cantReason && now/1000-fo.lastCantLog < cantFailoverRelogPeriod {
		return
	}
	fo.cantReason = reason
	if m := c.st.Myself.Master(); m != nil && m.Failed() && now-m.FailTime < c.st.NodeTimeout+5000 {
		return
	}
	var msg string
	switch reason {
	case cantDataAge:
		msg = "Disconnected from master for longer than allowed. Please check the 'cluster-replica-validity-factor' configuration option."
	case cantWaitingDelay:
		msg = "Waiting the delay before I can start a new failover."
	case cantExpired:
		msg = "Failover attempt expired."
	case cantWaitingVotes:
		msg = "Waiting for votes, but majority still not reached."
	default:
		msg = "Unknown reason code."
	}
	fo.lastCantLog = now / 1000
	c.log.Warn("Currently unable to failover: " + msg)
}

// replaceYourMaster is clusterFailoverReplaceYourMaster: this replica
// becomes a master with its data, takes its master's slots, and tells
// every node at once. The caller gave myself its new configEpoch.
func (c *Cluster) replaceYourMaster() {
	st := c.st
	me := st.Myself
	if me.IsMaster() || me.Master() == nil || c.fo.promoting {
		return
	}
	// Stopping the replication link waits for its goroutine without the
	// lock, so the state may move meanwhile: read it after. Should we no
	// longer be a replica by then, the cron restarts replication.
	c.fo.promoting = true
	durability.Of(c.e).UnsetMaster()
	c.fo.promoting = false
	old := me.Master()
	if me.IsMaster() || old == nil {
		return
	}
	st.SetNodeAsMaster(me)
	for j := 0; j < clusterstate.Slots; j++ {
		if old.HasSlot(j) {
			st.DelSlot(j)
			st.AddSlot(me, j)
		}
	}
	if st.UpdateState(c.now()) {
		c.logStateChange()
	}
	// The new epoch and slots reach the disk before any PONG claims them.
	if err := c.cf.Save(st, true); err != nil {
		c.log.Warn("Can't update cluster config file, retrying", "err", err)
		st.Todo |= clusterstate.TodoSaveConfig | clusterstate.TodoFsyncConfig
	}
	c.broadcastPong(true)
	c.resetManualFailover()
}

// resetManualFailover is resetManualFailover: no manual failover is under
// way. A master that paused its writes for one resumes them (a CLIENT
// PAUSE given meanwhile stays: it is a pause of its own).
func (c *Cluster) resetManualFailover() {
	if c.fo.mfReplica != nil {
		c.e.UnpauseClients(engine.PauseFailover)
	}
	c.fo.mfEnd, c.fo.mfCanStart, c.fo.mfReplica = 0, false, nil
	c.fo.mfMasterOffset, c.fo.mfOffsetKnown = -1, false
}

// handleManualFailover is clusterHandleManualFailover: once the replica
// has processed all its paused master sent, the election may start.
func (c *Cluster) handleManualFailover() {
	fo := &c.fo
	if fo.mfEnd == 0 || fo.mfCanStart || !fo.mfOffsetKnown {
		return
	}
	if fo.mfMasterOffset == c.replOffset() {
		fo.mfCanStart = true
		c.log.Warn("All master replication stream processed, manual failover can start.")
		c.st.Todo |= clusterstate.TodoHandleFailover
		return
	}
	c.st.Todo |= clusterstate.TodoHandleManualFailover
}

// failoverCron is clusterCron's last steps but the state's: replication
// of myself's master, the manual failover's timeout, and a replica's
// failover, then its migration to an orphaned master (migration.go).
func (c *Cluster) failoverCron(now int64) {
	me := c.st.Myself
	// A replica by the state that does not replicate (it loaded nodes.conf
	// as one, or a promotion was undone under it) starts to.
	if m := me.Master(); me.IsReplica() && !c.e.IsReplica() && m != nil && m.HasAddr() && m.IP != "" {
		durability.Of(c.e).SetMaster(m.IP, m.Port)
	}
	if c.fo.mfEnd != 0 && c.fo.mfEnd < now {
		c.log.Warn("Manual failover timed out.")
		c.resetManualFailover()
	}
	if me.IsReplica() {
		c.handleManualFailover()
		c.handleReplicaFailover(now)
		c.handleReplicaMigration(now)
	}
}

// handleFailoverTodo is clusterBeforeSleep's failover part, for the bits
// of todo.
func (c *Cluster) handleFailoverTodo(todo clusterstate.Todo) {
	switch {
	case todo&clusterstate.TodoHandleManualFailover != 0:
		if c.st.Myself.IsReplica() {
			c.handleManualFailover()
			c.handleReplicaFailover(c.now())
		}
	case todo&clusterstate.TodoHandleFailover != 0:
		c.handleReplicaFailover(c.now())
	}
}

// manualFailover is CLUSTER FAILOVER's work once its checks passed:
// TAKEOVER promotes at once with an epoch of our own, FORCE elects
// without the master, and the default asks the master to pause first.
func (c *Cluster) manualFailover(force, takeover bool) {
	c.resetManualFailover()
	c.fo.mfEnd = c.now() + mfTimeout
	me := c.st.Myself
	switch {
	case takeover:
		// No vote: this replica picks an epoch itself, which may collide
		// with another's (the collision handling then separates them).
		c.log.Warn("Taking over the master (user request).")
		if c.st.BumpConfigEpochWithoutConsensus() {
			c.log.Warn(fmt.Sprintf("New configEpoch set to %d", me.ConfigEpoch))
		}
		c.replaceYourMaster()
	case force:
		c.log.Warn("Forced failover user request accepted.")
		c.fo.mfCanStart = true
	default:
		c.log.Warn("Manual failover user request accepted.")
		c.send(c.bus.out[me.Master()], &clusterbus.Message{Header: c.header(clusterbus.TypeMFStart)})
	}
}
