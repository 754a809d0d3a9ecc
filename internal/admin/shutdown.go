package admin

import (
	"strings"

	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
)

// cmdShutdown parses the options as Redis 7.0 does and saves as
// prepareForShutdown does: with save points set unless NOSAVE, or with
// SAVE; a failed save refuses the shutdown unless FORCE. There are no
// replicas to wait for, so a shutdown never stays "in progress" for ABORT
// to cancel, and NOW changes nothing.
func cmdShutdown(x *engine.Ctx) {
	if x.C.Multi != nil {
		x.C.Multi.Dirty = true
		x.W.Error(engine.ErrNotInMulti)
		return
	}
	var nosave, save, abort, other, force bool
	for _, a := range x.Args[1:] {
		switch strings.ToLower(string(a)) {
		case "nosave":
			nosave = true
		case "save":
			save = true
		case "now":
			other = true
		case "force":
			other, force = true, true
		case "abort":
			abort = true
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	if (abort && (nosave || save || other)) || (nosave && save) {
		x.W.Error(engine.ErrSyntax)
		return
	}
	if abort {
		if !durability.AbortShutdownWait(x.E) {
			x.W.Error(ErrNoShutdown)
			return
		}
		x.W.OK()
		return
	}
	// Only SHUTDOWN NOSAVE may stop a server busy with a script: the
	// script's writes are half done, nothing may be saved.
	if x.E.BusyScript.On && !nosave {
		x.W.Error(x.E.BusyScript.BusyError())
		return
	}
	stop := x.E.Shutdown
	if stop == nil {
		x.W.Error(engine.ErrShutdownFailed)
		return
	}
	if x.E.BusyScript.On {
		x.E.AbortScripts()
	}
	x.E.Log.Warn("user requested shutdown", "client", x.C.ID, "addr", x.C.Addr)
	if deadline, wait := durability.BeginShutdownWait(x.E, other); wait && x.Block(nil, 0) {
		// The replicas catch up first; the client waits for the outcome.
		go durability.FinishShutdownAfterWait(x.E, x.C, deadline, save, nosave, force, stop)
		return
	}
	if err := durability.ShutdownSaveLocked(x.E, save, nosave, force); err != nil {
		x.W.Error(engine.ErrShutdownFailed)
		return
	}
	// Redis exits without replying. The hook may block (it may signal a
	// channel the main goroutine reads), and we hold the executor lock.
	x.C.CloseAfterReply = true
	go stop()
}
