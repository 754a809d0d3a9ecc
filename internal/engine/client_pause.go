package engine

import (
	"math"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/num"
)

// CLIENT PAUSE timeout [WRITE|ALL] and CLIENT UNPAUSE, as Redis 7.0's
// pauseClients: while a pause lasts, the commands it covers are not run
// but postponed (the dispatcher answers Paused, the connection waits
// without reading, as for a blocked client, and runs the same command again
// once released); everything else runs. ALL covers every command, WRITE
// those that write or may replicate (PUBLISH, PFCOUNT, EVAL of a script
// that may write, an EXEC that queued one of those). Monitors are never
// paused. A second pause keeps the longer end and the stricter kind.
//
// While paused the dataset stands still: the expiry cycle does nothing,
// keys past their deadline read as missing but stay (Redis's expireIfNeeded
// under a pause), and nothing is evicted (nor refused for memory).
//
// The pause ends at its deadline (real time, like a blocking command's
// timeout) through a timer, where Redis's cron notices it within 100 ms.

const (
	pauseOff = iota
	pauseWrite
	pauseAll
)

type pauseState struct {
	kind    int   // in force now
	Set     bool  // CLIENT PAUSE's pause exists (it may have expired)
	setKind int   // its kind
	endMs   int64 // and end (Unix ms)
	timer   *time.Timer
	Waiting []*Client // postponed, in arrival order
}

func nowMsReal() int64 { return time.Now().UnixMilli() }

func CmdClientPause(x *Ctx) {
	kind := pauseAll
	if len(x.Args) > 4 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
		return
	}
	if len(x.Args) == 4 {
		switch strings.ToLower(x.Arg(3)) {
		case "write":
			kind = pauseWrite
		case "all":
		default:
			x.W.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	ms, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		x.W.Error("ERR timeout is negative")
		return
	}
	end := int64(0)
	if ms > 0 {
		end = ms + nowMsReal() // wraps past the int64 range, as Redis's does
	}
	x.E.pauseClients(end, kind)
	x.W.OK()
}

func CmdClientUnpause(x *Ctx) {
	p := &x.E.Cs.Pause
	if p.Set {
		p.Set = false
		x.E.UpdatePause()
	}
	x.W.OK()
}

func (e *Engine) pauseClients(endMs int64, kind int) {
	p := &e.Cs.Pause
	if p.Set {
		p.setKind = max(p.setKind, kind)
		p.endMs = max(p.endMs, endMs)
	} else {
		p.Set, p.setKind, p.endMs = true, kind, endMs
	}
	e.UpdatePause()
}

// updatePause works out the pause in force (Redis's
// updateClientPauseTypeAndEndTime); clients postponed by a stricter pause
// than the one left are released to try again.
func (e *Engine) UpdatePause() {
	p := &e.Cs.Pause
	old := p.kind
	if p.Set && p.endMs < nowMsReal() {
		p.Set = false
	}
	p.kind = pauseOff
	if p.Set {
		p.kind = p.setKind
	}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if p.Set {
		wait := time.Duration(p.endMs-nowMsReal()+1) * time.Millisecond
		if p.endMs-nowMsReal() > math.MaxInt64/int64(time.Millisecond)-1 {
			wait = math.MaxInt64
		}
		p.timer = time.AfterFunc(wait, func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.UpdatePause()
		})
	}
	frozen := p.kind != pauseOff
	for _, db := range e.Dbs {
		db.KeepExpired = frozen || e.IsReplica()
	}
	e.Cs.updateGate()
	if p.kind < old {
		waiting := p.Waiting
		p.Waiting = nil
		for _, c := range waiting {
			if b := c.Blocked; b != nil && b.postponed {
				c.Blocked = nil
				c.notify()
			}
		}
	}
}

// paused reports whether a pause is in force now, ending one whose time
// has come. Call with the lock held.
func (e *Engine) paused() bool {
	p := &e.Cs.Pause
	if p.kind == pauseOff {
		return false
	}
	if p.endMs < nowMsReal() {
		e.UpdatePause()
	}
	return p.kind != pauseOff
}

// postpone holds x's command back if the pause in force covers it.
func (e *Engine) postpone(x *Ctx, cmd *Command) bool {
	c := x.C
	if c.Cs.Monitor || !e.paused() {
		return false
	}
	if e.Cs.Pause.kind == pauseWrite {
		_, w, mr := e.effectiveFlags(c, cmd, x.Args)
		if cmd.Name == "exec" && c.Multi != nil {
			for _, q := range c.Multi.cmds {
				_, qw, qm := e.effectiveFlags(c, q.cmd, q.args)
				w, mr = w || qw, mr || qm
			}
		}
		if !w && !mr {
			return false
		}
	}
	c.Blocked = &blockState{postponed: true, args: x.Args, w: x.W}
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
