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
	PauseOff = iota
	PauseWrite
	pauseAll
)

type pauseState struct {
	Kind    int   // in force now
	Set     bool  // CLIENT PAUSE's pause exists (it may have expired)
	setKind int   // its kind
	endMs   int64 // and end (Unix ms)
	timer   *time.Timer
	Waiting []*Client // postponed, in arrival order
}

func NowMsReal() int64 { return time.Now().UnixMilli() }

func CmdClientPause(x *Ctx) {
	kind := pauseAll
	if len(x.Args) > 4 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
		return
	}
	if len(x.Args) == 4 {
		switch strings.ToLower(x.Arg(3)) {
		case "write":
			kind = PauseWrite
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
		end = ms + NowMsReal() // wraps past the int64 range, as Redis's does
	}
	x.E.PauseClients(end, kind)
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

func (e *Engine) PauseClients(endMs int64, kind int) {
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
	old := p.Kind
	if p.Set && p.endMs < NowMsReal() {
		p.Set = false
	}
	p.Kind = PauseOff
	if p.Set {
		p.Kind = p.setKind
	}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if p.Set {
		wait := time.Duration(p.endMs-NowMsReal()+1) * time.Millisecond
		if p.endMs-NowMsReal() > math.MaxInt64/int64(time.Millisecond)-1 {
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
