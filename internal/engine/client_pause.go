package engine

import (
	"math"
	"time"
)

// Client pauses, as Redis 7.0's pauseClients: while a pause lasts, the
// commands it covers are not run but postponed (the dispatcher answers
// Paused, the connection waits without reading, as for a blocked client,
// and runs the same command again once released); everything else runs.
// ALL covers every command, WRITE those that write or may replicate
// (PUBLISH, PFCOUNT, EVAL of a script that may write, an EXEC that queued
// one of those). Monitors are never paused.
//
// Each purpose (CLIENT PAUSE, a shutdown waiting for its replicas, a
// failover) holds its own pause, so that ending one (CLIENT UNPAUSE, the
// failover done) leaves the others in force; the one in force is the
// strictest, to the latest end among those of that kind. A second pause of
// the same purpose keeps the longer end and the stricter kind.
//
// While paused the dataset stands still: the expiry cycle does nothing,
// keys past their deadline read as missing but stay (Redis's expireIfNeeded
// under a pause), and nothing is evicted (nor refused for memory).
//
// A pause ends at its deadline (real time, like a blocking command's
// timeout) through a timer, where Redis's cron notices it within 100 ms.

const (
	PauseOff = iota
	PauseWrite
	PauseAll
)

// Pause purposes, Redis's pause_purpose.
const (
	PauseByCommand = iota // CLIENT PAUSE
	PauseShutdown         // SHUTDOWN waiting for its replicas
	PauseFailover         // FAILOVER, CLUSTER FAILOVER
	numPausePurposes
)

type pauseEvent struct {
	set   bool
	kind  int
	endMs int64 // Unix ms
}

type pauseState struct {
	Kind    int // in force now
	endMs   int64
	ev      [numPausePurposes]pauseEvent
	timer   *time.Timer
	Waiting []*Client // postponed, in arrival order
}

func NowMsReal() int64 { return time.Now().UnixMilli() }

// PauseClients pauses clients for purpose until endMs (Unix ms, real time).
func (e *Engine) PauseClients(purpose int, endMs int64, kind int) {
	ev := &e.Cs.Pause.ev[purpose]
	if ev.set {
		ev.kind, ev.endMs = max(ev.kind, kind), max(ev.endMs, endMs)
	} else {
		*ev = pauseEvent{set: true, kind: kind, endMs: endMs}
	}
	e.UpdatePause()
}

// UnpauseClients ends purpose's pause, if it has one.
func (e *Engine) UnpauseClients(purpose int) {
	if e.Cs.Pause.ev[purpose].set {
		e.Cs.Pause.ev[purpose].set = false
		e.UpdatePause()
	}
}

// PausedFor reports whether purpose holds a pause (it may have expired).
func (e *Engine) PausedFor(purpose int) bool { return e.Cs.Pause.ev[purpose].set }

// UpdatePause works out the pause in force (Redis's
// updateClientPauseTypeAndEndTime); clients postponed by a stricter pause
// than the one left are released to try again.
func (e *Engine) UpdatePause() {
	p := &e.Cs.Pause
	old := p.Kind
	now := NowMsReal()
	p.Kind, p.endMs = PauseOff, 0
	for i := range p.ev {
		switch ev := &p.ev[i]; {
		case !ev.set:
		case ev.endMs < now:
			ev.set = false
		case ev.kind > p.Kind:
			p.Kind, p.endMs = ev.kind, ev.endMs
		case ev.kind == p.Kind:
			p.endMs = max(p.endMs, ev.endMs)
		}
	}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if p.Kind != PauseOff {
		// The next change may come from a weaker purpose's pause ending
		// first; waking at the earliest end of any keeps each one's end.
		next := p.endMs
		for _, ev := range p.ev {
			if ev.set {
				next = min(next, ev.endMs)
			}
		}
		wait := time.Duration(next-now+1) * time.Millisecond
		if next-now > math.MaxInt64/int64(time.Millisecond)-1 {
			wait = math.MaxInt64
		}
		p.timer = time.AfterFunc(wait, func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.UpdatePause()
		})
	}
	frozen := p.Kind != PauseOff
	for _, db := range e.Dbs {
		db.KeepExpired = frozen || e.IsReplica()
	}
	e.Cs.updateGate()
	if p.Kind < old {
		waiting := p.Waiting
		p.Waiting = nil
		for _, c := range waiting {
			if b := c.Blocked; b != nil && b.postponed {
				c.Blocked = nil
				c.NotifyOutput()
			}
		}
	}
}

// paused reports whether a pause is in force now, ending one whose time
// has come. Call with the lock held.
func (e *Engine) Paused() bool {
	p := &e.Cs.Pause
	if p.Kind == PauseOff {
		return false
	}
	if p.endMs < NowMsReal() {
		e.UpdatePause()
	}
	return p.Kind != PauseOff
}

// postpone holds x's command back if the pause in force covers it.
func (e *Engine) postpone(x *Ctx, cmd *Command) bool {
	c := x.C
	if c.Cs.Monitor || !e.Paused() {
		return false
	}
	if e.Cs.Pause.Kind == PauseWrite {
		_, w, mr := e.effectiveFlags(c, cmd, x.Args)
		if cmd.Name == "exec" && c.Multi != nil {
			w, mr = w || c.Multi.write, mr || c.Multi.mayRepl
		}
		if !w && !mr {
			return false
		}
	}
	c.Blocked = &BlockState{postponed: true, args: x.Args, W: x.W}
	e.Cs.Pause.Waiting = append(e.Cs.Pause.Waiting, c)
	return true
}

// dropPostponed forgets c's postponed command (it went away).
func (e *Engine) dropPostponed(c *Client) {
	w := e.Cs.Pause.Waiting
	for i, o := range w {
		if o == c {
			e.Cs.Pause.Waiting = append(w[:i], w[i+1:]...)
			return
		}
	}
}
