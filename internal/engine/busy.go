package engine

import (
	"runtime"
	"sync/atomic"
	"time"
)

// A script (EVAL, and later FCALL) that runs past busy-reply-threshold is
// not stopped, as in Redis 7.0 (script.c's scriptInterrupt): the server
// keeps serving other clients while it runs, answering BUSY to everything
// but the commands flagged allow-busy (SCRIPT KILL, FUNCTION KILL,
// SHUTDOWN NOSAVE, MULTI, AUTH, ...), which run.
//
// The script runs holding the executor lock, often on the event loop's own
// goroutine. About every lua.BusyTick the interpreter calls the script
// host's Busy (scriptHost.Busy below), which is processEventsWhileBlocked:
//   - it calls the caller's Client.WhileBusy, which the event loop sets on
//     its clients: it reads and answers the loop's other connections right
//     there, on the loop goroutine (internal/server/busy_linux.go);
//   - it then lets go of the executor lock for a moment, so that the
//     goroutines waiting for it (goroutine-front connections, and the event
//     loop when the script runs on another goroutine) take their turn. Go's
//     mutex hands itself to waiters that have waited over a millisecond, so
//     they all go before the script takes it back.
//
// Whoever holds the lock while busy.on is set runs commands through
// dispatch, which answers BUSY to every command not flagged allow-busy,
// and does nothing that would change the data behind the script's back:
// blocked clients are not served, the expiry and persistence crons skip
// their turn. The engine state a script sees therefore changes only
// through allow-busy commands (WATCH, MULTI, AUTH, client state), as in
// Redis.
type busyState struct {
	// Guarded by the executor lock.
	On     bool    // a script has passed the threshold and is running
	caller *Client // its client
	eval   bool    // it is an EVAL script (false: a function)
	Wrote  bool    // the running script called a write command
	Kill   bool    // SCRIPT KILL / FUNCTION KILL asked to stop it

	// abort stops any script at its next busy tick, whatever it wrote
	// (SHUTDOWN NOSAVE, the server closing). Set from any goroutine.
	abort atomic.Bool
}

// busyError is the BUSY reply for the script in execution.
func (b *busyState) BusyError() string {
	if b.eval {
		return ErrBusyEval
	}
	return ErrBusyFunction
}

// Busy reports whether a script is running past busy-reply-threshold. Call
// with the lock held.
func (e *Engine) Busy() bool { return e.BusyScript.On }

// BusyClient is the client whose script is running past the threshold
// (nil if none): a front must not read its further commands meanwhile
// (Redis's protectClient). Call with the lock held.
func (e *Engine) BusyClient() *Client {
	if !e.BusyScript.On {
		return nil
	}
	return e.BusyScript.caller
}

// AbortScripts stops the script in execution, if it is past the threshold
// or once it is, even one that has written: for a server that is going
// away (SHUTDOWN NOSAVE, Close), which would otherwise wait for a script
// that may never end. Safe from any goroutine; it is final.
func (e *Engine) AbortScripts() { e.BusyScript.abort.Store(true) }

// killScript is Redis's scriptKill: SCRIPT KILL (eval) and FUNCTION KILL
// (!eval) ask the busy script to stop at its next tick, unless it has
// written (its writes could not be undone) or is of the other kind.
func (e *Engine) killScript(x *Ctx, eval bool) {
	b := &e.BusyScript
	switch {
	case !b.On:
		x.W.Error(ErrNotBusy)
	case b.Wrote:
		x.W.Error(ErrUnkillable)
	case eval && !b.eval:
		x.W.Error(ErrBusyFunction)
	case !eval && b.eval:
		x.W.Error(ErrBusyEval)
	default:
		b.Kill = true
		x.W.OK()
	}
}

// KillFunction is FUNCTION KILL's action, for the functions family.
func (x *Ctx) KillFunction() { x.E.killScript(x, false) }

func CmdScriptKill(x *Ctx) { x.E.killScript(x, true) }

// busyBegin is called as a script starts (the lock is held for the whole
// run): nothing it wrote yet.
func (e *Engine) BusyBegin() { e.BusyScript.Wrote = false }

// busyEnd is called when the script has returned: the server is no longer
// busy. It reports whether the script was stopped for a shutdown, whose
// caller Redis never answers.
func (e *Engine) BusyEnd() (aborted bool) {
	b := &e.BusyScript
	if !b.On {
		return false
	}
	aborted = b.abort.Load() && !b.Kill
	b.On, b.caller, b.Kill = false, nil, false
	return aborted
}

// BusyTick is a running script's busy tick (the scripting component's
// lua.BusyHost): it serves the other clients and reports whether the
// script is to stop. function: an FCALL, whose kill is FUNCTION KILL.
func (x *Ctx) BusyTick(function, first bool) bool {
	e := x.E
	b := &e.BusyScript
	if first {
		b.On, b.caller, b.eval = true, x.C, !function
		kill := "SCRIPT KILL"
		if function {
			kill = "FUNCTION KILL"
		}
		e.Log.Warn("Slow script detected: still in execution after " +
			time.Duration(e.Cfg.BusyThreshold.Load()*int64(time.Millisecond)).String() +
			". You can try killing the script using the " + kill + " command.")
	}
	if f := x.C.WhileBusy; f != nil {
		f()
	}
	e.mu.Unlock()
	runtime.Gosched()
	e.mu.Lock()
	return b.Kill || b.abort.Load()
}
