package durability

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/propagate"
	"github.com/limitkv/limitkv/internal/resp"
)

// What the master learns from its replicas' ACKs (REPLCONF ACK): WAIT's
// answers, min-replicas-to-write's good replicas, and a shutdown's wait
// for lagging replicas (replication.c's replicationCountAcksByOffset,
// processClientsWaitingReplicas, refreshGoodSlavesCount; server.c's
// isReadyToShutdown and finishShutdown).

// replconfAck records a replica's REPLCONF ACK and answers the WAITs it
// satisfies. Call with the lock held.
func (d *Component) replconfAck(c *engine.Client, off int64) {
	rp := replicaOf(c)
	if rp == nil {
		return
	}
	if off > rp.ackOff {
		rp.ackOff = off
	}
	rp.ackTime = d.e.Clock.Now()
	if rp.streamOnAck && rp.state == replicaOnline {
		rp.streamOnAck = false
		rp.c.Out.Raw(rp.pending)
		rp.pending = nil
		rp.c.NotifyOutput()
	}
	d.serveWaiters()
}

// countAcks is replicationCountAcksByOffset.
func (d *Component) countAcks(off int64) int64 {
	n := int64(0)
	for _, rp := range d.repl.replicas {
		if rp.state == replicaOnline && rp.ackOff >= off {
			n++
		}
	}
	return n
}

// goodReplicas is refreshGoodSlavesCount's figure: online replicas whose
// last ACK is at most min-replicas-max-lag seconds old.
func (d *Component) goodReplicas() int64 {
	e := d.e
	maxLag := e.Cfg.MinReplicasMaxLag.Load()
	now := e.Clock.Now()
	n := int64(0)
	for _, rp := range d.repl.replicas {
		if rp.state == replicaOnline && int64(now.Sub(rp.ackTime)/time.Second) <= maxLag {
			n++
		}
	}
	return n
}

// NoGoodReplicas is checkGoodReplicasStatus's refusal: a master with
// min-replicas-to-write and -max-lag set and fewer good replicas than the
// minimum refuses writes.
func (d *Component) NoGoodReplicas() bool {
	e := d.e
	min := e.Cfg.MinReplicasToWrite.Load()
	return min > 0 && e.Cfg.MinReplicasMaxLag.Load() > 0 && !e.IsReplica() && d.goodReplicas() < min
}

func cmdWait(x *engine.Ctx) {
	e, d := x.E, Of(x.E)
	if e.IsReplica() {
		x.W.Error(errWaitReplica)
		return
	}
	n, ok := num.ParseInt(x.Args[1])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	ms, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		x.W.Error(engine.ErrTimeoutNegative)
		return
	}
	if ms > 0 && ms > math.MaxInt64-e.Clock.Now().UnixMilli() {
		x.W.Error("ERR timeout is out of range")
		return
	}
	off := x.C.Woff
	acked := d.countAcks(off)
	if acked >= n || !x.Block(nil, time.Duration(ms)*time.Millisecond) {
		x.W.Int(acked)
		return
	}
	x.Blocking.Wait = &waitState{off: off, n: n}
	d.repl.waiters = append(d.repl.waiters, x.C)
	// Ask every replica for an ACK now rather than at its next second
	// (replicationRequestAckFromSlaves), once the command is done.
	e.RequestAcksAfterCommand()
}

// requestAcks sends REPLCONF GETACK * down the stream.
func (d *Component) requestAcks() {
	if len(d.repl.replicas) > 0 && !d.e.IsReplica() {
		d.replFeedBytes(getAckCmd)
	}
}

// getAckCmd asks every replica for an ACK (REPLCONF GETACK *).
var getAckCmd = propagate.AppendCommand(nil, [][]byte{[]byte("REPLCONF"), []byte("GETACK"), []byte("*")})

// waitTimeoutReply is WAIT's answer when it times out or is unblocked: the
// replicas that acked by then.
func (d *Component) waitTimeoutReply(b *engine.BlockState, w *resp.Writer) {
	w.Int(d.countAcks(waitOf(b).off))
}

// serveWaiters answers the WAITs whose replicas have acked
// (processClientsWaitingReplicas).
func (d *Component) serveWaiters() {
	r := &d.repl
	keep := r.waiters[:0]
	for _, c := range r.waiters {
		ws := waitOf(c.Blocked)
		if ws == nil {
			continue // unblocked otherwise (timeout, CLIENT UNBLOCK, gone)
		}
		acked := d.countAcks(ws.off)
		if acked < ws.n {
			keep = append(keep, c)
			continue
		}
		d.answerBlocked(c, func(w *resp.Writer) { w.Int(acked) })
	}
	clear(r.waiters[len(keep):])
	r.waiters = keep
}

// answerWaiters ends every WAIT with the count it has (the server turned
// replica: no more ACKs will come for its offsets).
func (d *Component) answerWaiters() {
	r := &d.repl
	for _, c := range r.waiters {
		if b := c.Blocked; b != nil && b.Wait != nil {
			d.answerBlocked(c, func(w *resp.Writer) { d.waitTimeoutReply(b, w) })
		}
	}
	clear(r.waiters)
	r.waiters = r.waiters[:0]
}

var errShutdownAborted = errors.New("shutdown aborted while waiting for replicas")

// replicasLagging is !isReadyToShutdown: some replica has not acked the
// whole stream.
func (d *Component) replicasLagging() bool {
	for _, rp := range d.repl.replicas {
		if rp.ackOff != d.e.ReplOffset() {
			return true
		}
	}
	return false
}

// beginShutdownWait is prepareForShutdown's wait for lagging replicas:
// unless now (SHUTDOWN NOW/FORCE) or shutdown-timeout is 0, writes are
// paused, the replicas asked for an ACK, and the deadline returned. Call
// with the lock held.
func BeginShutdownWait(e *engine.Engine, now bool) (time.Time, bool) {
	d := Of(e)
	t := e.Cfg.ShutdownTimeout.Load()
	if now || t == 0 || d.repl.shutdownWaiting || !d.replicasLagging() {
		return time.Time{}, false
	}
	if !e.Paused() {
		d.replFeedBytes(getAckCmd)
	}
	e.PauseClients(engine.PauseShutdown, engine.NowMsReal()+t*1000+1000, engine.PauseWrite)
	d.repl.shutdownWaiting, d.repl.shutdownAbort = true, false
	e.Log.Info("Waiting for replicas before shutting down.")
	return time.Now().Add(time.Duration(t) * time.Second), true
}

// awaitReplicas waits, without the lock, until every replica has acked the
// stream or the deadline passes (true), or SHUTDOWN ABORT came (false, and
// the pause is lifted).
func (d *Component) awaitReplicas(deadline time.Time) bool {
	e := d.e
	for {
		e.LockBare()
		r := &d.repl
		if r.shutdownAbort {
			r.shutdownWaiting, r.shutdownAbort = false, false
			e.UnpauseClients(engine.PauseShutdown)
			e.UnlockBare()
			e.Log.Info("Shutdown manually aborted.")
			return false
		}
		if !d.replicasLagging() || !time.Now().Before(deadline) {
			r.shutdownWaiting = false
			d.logLaggingReplicas()
			e.UnlockBare()
			return true
		}
		e.UnlockBare()
		time.Sleep(10 * time.Millisecond)
	}
}

// logLaggingReplicas is finishShutdown's report.
func (d *Component) logLaggingReplicas() {
	e := d.e
	r := &d.repl
	lagging := 0
	for _, rp := range r.replicas {
		if rp.ackOff != e.ReplOffset() {
			lagging++
			e.Log.Warn("Lagging replica reported offset behind master", "addr", rp.c.Addr, "behind", e.ReplOffset()-rp.ackOff)
		}
	}
	if len(r.replicas) > 0 {
		e.Log.Info(strconv.Itoa(len(r.replicas)-lagging) + " of " + strconv.Itoa(len(r.replicas)) + " replicas are in sync when shutting down.")
	}
}

// abortShutdownWait is SHUTDOWN ABORT: false if no shutdown waits.
func AbortShutdownWait(e *engine.Engine) bool {
	d := Of(e)
	if !d.repl.shutdownWaiting {
		return false
	}
	d.repl.shutdownAbort = true
	return true
}

// finishShutdownAfterWait ends a SHUTDOWN that waited for its replicas:
// the save and the stop, or the error to the client that asked.
func FinishShutdownAfterWait(e *engine.Engine, c *engine.Client, deadline time.Time, save, nosave, force bool, stop func()) {
	d := Of(e)
	ok := d.awaitReplicas(deadline)
	e.LockBare()
	defer e.UnlockBare()
	var err error
	if ok {
		err = ShutdownSaveLocked(e, save, nosave, force)
	}
	if !ok || err != nil {
		d.answerBlocked(c, func(w *resp.Writer) { w.Error(engine.ErrShutdownFailed) })
		return
	}
	if c.Blocked != nil {
		c.CloseAfterReply = true // no reply: the connection closes, as Redis exits
		d.answerBlocked(c, func(*resp.Writer) {})
	}
	go stop()
}

// answerBlocked ends c's wait (WAIT, a SHUTDOWN waiting for replicas) with
// the reply reply writes, as a served blocking command ends. Nothing
// happens if c no longer waits (it went away). Call with the lock held.
func (d *Component) answerBlocked(c *engine.Client, reply func(w *resp.Writer)) {
	b := c.Blocked
	if b == nil {
		return
	}
	mark := b.W.Len()
	reply(b.W)
	c.BlockedReplyDone(b.W, mark)
	d.e.Unblock(c)
	c.NotifyOutput()
}
