package durability

import (
	"strings"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/redislog"
)

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]: Redis 7.0's
// coordinated switch of a master and one of its replicas (replication.c's
// failoverCommand and updateFailoverStatus). The master pauses writes,
// waits until a replica (the named one, or any) has acked its whole
// stream, then becomes that replica's replica, sending PSYNC with a
// FAILOVER argument: the replica, if its replication id is the master's,
// makes itself a master first and then answers the PSYNC, so the old
// master continues partially from it. The pause ends once the PSYNC is
// answered; a refusal, a timeout (without FORCE) or FAILOVER ABORT puts
// the old master back as it was.

var failoverCommands = []*engine.Command{
	{Name: "failover", Arity: -1, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagStale, Group: "server", Handler: cmdFailover},
}

// The states INFO's master_failover_state names.
const (
	noFailover = iota
	failoverWaitForSync
	failoverInProgress
)

type failoverState struct {
	state      int
	endMs      int64 // 0: no timeout
	force      bool
	host       string // the target; "" while any replica will do
	port       int
	targetSeen bool // a target was named or found
}

func (f *failoverState) String() string {
	switch f.state {
	case failoverInProgress:
		return "failover-in-progress"
	case failoverWaitForSync:
		return "waiting-for-sync"
	}
	return "no-failover"
}

var (
	logFailoverRequestedTo  = redislog.Msg{Level: redislog.LevelNotice, Format: "FAILOVER requested to %s:%d."}
	logFailoverRequestedAny = redislog.Msg{Level: redislog.LevelNotice, Format: "FAILOVER requested to any replica."}
	logFailoverSynced       = redislog.Msg{Level: redislog.LevelNotice, Format: "Failover target %s:%d is synced, failing over."}
	logFailoverForced       = redislog.Msg{Level: redislog.LevelNotice, Format: "FAILOVER to %s:%d time out exceeded, failing over."}
	logFailoverAbortedTo    = redislog.Msg{Level: redislog.LevelNotice, Format: "FAILOVER to %s:%d aborted: %s"}
	logFailoverAbortedAny   = redislog.Msg{Level: redislog.LevelNotice, Format: "FAILOVER to any replica aborted: %s"}
	logFailoverReceived     = redislog.Msg{Level: redislog.LevelWarning, Format: "Failover request received for replid %s."}
	logFailoverMasterMode   = redislog.Msg{Level: redislog.LevelNotice, Format: "MASTER MODE enabled (failover request from '%s')"}
)

func cmdFailover(x *engine.Ctx) {
	e, d := x.E, Of(x.E)
	f := &d.repl.failover
	if e.Cfg.ClusterEnabled() {
		x.W.Error("ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.")
		return
	}
	if len(x.Args) == 2 && engine.CEqualFold(x.Args[1], "abort") {
		if f.state == noFailover {
			x.W.Error("ERR No failover in progress.")
			return
		}
		d.abortFailover("Failover manually aborted")
		x.W.OK()
		return
	}
	var timeout, port int64
	var host string
	hostSet, force := false, false
	for j := 1; j < len(x.Args); j++ {
		switch {
		case engine.CEqualFold(x.Args[j], "timeout") && j+1 < len(x.Args) && timeout == 0:
			v, ok := num.ParseInt(x.Args[j+1])
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			if v <= 0 {
				x.W.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout = v
			j++
		case engine.CEqualFold(x.Args[j], "to") && j+2 < len(x.Args) && !hostSet:
			v, ok := num.ParseInt(x.Args[j+2])
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			host, port, hostSet = string(x.Args[j+1]), v, true
			j += 2
		case engine.CEqualFold(x.Args[j], "force") && !force:
			force = true
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	switch {
	case f.state != noFailover:
		x.W.Error("ERR FAILOVER already in progress.")
		return
	case e.IsReplica():
		x.W.Error("ERR FAILOVER is not valid when server is a replica.")
		return
	case len(d.repl.replicas) == 0:
		x.W.Error("ERR FAILOVER requires connected replicas.")
		return
	case force && (timeout == 0 || !hostSet):
		x.W.Error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
		return
	}
	*f = failoverState{}
	if hostSet {
		rp := d.findReplica(host, port)
		if rp == nil {
			x.W.Error("ERR FAILOVER target HOST and PORT is not a replica.")
			return
		}
		if rp.state != replicaOnline {
			x.W.Error("ERR FAILOVER target replica is not online.")
			return
		}
		f.host, f.port, f.targetSeen = host, int(port), true
		logFailoverRequestedTo.Log(e.Log, host, port)
	} else {
		logFailoverRequestedAny.Log(e.Log)
	}
	if timeout > 0 {
		f.endMs = e.Clock.Now().UnixMilli() + timeout
	}
	f.force, f.state = force, failoverWaitForSync
	e.PauseClients(engine.PauseFailover, 1<<62, engine.PauseWrite)
	x.W.OK()
}

// findReplica is findReplica: the replica known by host (the address it
// announced, or its connection's) and the port it listens on.
func (d *Component) findReplica(host string, port int64) *replica {
	for _, rp := range d.repl.replicas {
		if strings.EqualFold(host, ip(rp)) && int64(rp.conf.port) == port {
			return rp
		}
	}
	return nil
}

// updateFailover is updateFailoverStatus, run by the cron (every 100 ms):
// the timeout, and the switch once the target has acked everything. Call
// with the lock held.
func (d *Component) updateFailover() {
	e := d.e
	f := &d.repl.failover
	if f.state != failoverWaitForSync {
		return
	}
	if f.endMs != 0 && f.endMs <= e.Clock.Now().UnixMilli() {
		if f.force {
			logFailoverForced.Log(e.Log, f.host, f.port)
			f.state = failoverInProgress
			d.setMaster(f.host, f.port)
		} else {
			d.abortFailover("Replica never caught up before timeout")
		}
		return
	}
	off := e.ReplOffset()
	var target *replica
	if f.targetSeen {
		target = d.findReplica(f.host, int64(f.port))
	} else {
		for _, rp := range d.repl.replicas {
			if rp.ackOff == off {
				target = rp
				f.host, f.port, f.targetSeen = ip(rp), rp.conf.port, true
				break
			}
		}
	}
	if target != nil && target.ackOff == off {
		f.state = failoverInProgress
		logFailoverSynced.Log(e.Log, f.host, f.port)
		d.setMaster(f.host, f.port)
	}
}

// clearFailover is clearFailoverState: no failover, writes resume.
func (d *Component) clearFailover() {
	d.repl.failover = failoverState{}
	d.e.UnpauseClients(engine.PauseFailover)
}

// abortFailover is abortFailover: an old master that had started
// following its replica is a master again.
func (d *Component) abortFailover(why string) {
	e := d.e
	f := &d.repl.failover
	if f.state == noFailover {
		return
	}
	if f.targetSeen {
		logFailoverAbortedTo.Log(e.Log, f.host, f.port, why)
	} else {
		logFailoverAbortedAny.Log(e.Log, why)
	}
	if f.state == failoverInProgress {
		d.unsetMaster()
	}
	d.clearFailover()
}

// psyncFailover is the replica's side of PSYNC replid offset FAILOVER:
// it becomes a master if replid is its own, so that the PSYNC that
// follows continues from the old history. False: the reply is written.
func (d *Component) psyncFailover(x *engine.Ctx) bool {
	e := d.e
	logFailoverReceived.Log(e.Log, string(x.Args[1]))
	if !e.IsReplica() {
		x.W.Error("ERR PSYNC FAILOVER can't be sent to a master.")
		return false
	}
	if string(x.Args[1]) != e.ReplicationID() {
		x.W.Error("ERR PSYNC FAILOVER replid must match my replid.")
		return false
	}
	d.unsetMaster()
	logFailoverMasterMode.Log(e.Log, x.C.Addr)
	return true
}

// failoverPsyncArgs is what the old master adds to its PSYNC while its
// failover is in progress.
func (d *Component) failoverPsyncArgs() []string {
	if d.repl.failover.state == failoverInProgress {
		return []string{"FAILOVER"}
	}
	return nil
}

// failoverPsyncAnswered settles a failover in progress once the new
// master answered the PSYNC (ok: with CONTINUE or FULLRESYNC). It runs on
// the replication goroutine, which an abort (unsetMaster) waits for, so the
// abort goes on a goroutine of its own.
func (d *Component) failoverPsyncAnswered(ok bool, stop chan struct{}) {
	e := d.e
	if d.repl.failover.state != failoverInProgress {
		return
	}
	if ok {
		d.clearFailover()
		return
	}
	go func() {
		e.LockBare()
		defer e.UnlockBare()
		if d.repl.stop == stop && d.repl.failover.state == failoverInProgress {
			d.abortFailover("Failover target rejected psync request")
		}
	}()
}

// failoverInfo is INFO's master_failover_state.
func (d *Component) failoverInfo() string { return d.repl.failover.String() }
