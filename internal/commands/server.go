package commands

import (
	"strconv"
	"strings"
)

// Server administration: DBSIZE, FLUSHDB, FLUSHALL, TIME, SHUTDOWN, and the
// containers CLIENT (client_cmds.go), COMMAND (command_docs.go), CONFIG
// (config_cmds.go) and INFO (info.go).
//
// Documentation (COMMAND INFO/DOCS) for every command Redis has comes from
// Redis itself (commanddocs_gen.go), so the Summary/Since/Complexity fields
// are left empty here.
var serverCommands = []*Command{
	{Name: "dbsize", Arity: 1, Flags: FlagReadOnly | FlagFast, Group: "server", Handler: cmdDBSize},
	{Name: "flushdb", Arity: -1, Flags: FlagWrite, Group: "server", Handler: cmdFlushDB},
	{Name: "flushall", Arity: -1, Flags: FlagWrite, Group: "server", Handler: cmdFlushAll},
	{Name: "time", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, Group: "server", Handler: cmdTime},
	// FlagNoMulti makes the dispatcher run SHUTDOWN even inside MULTI, so the
	// handler can refuse it there as Redis's no-multi flag does.
	{Name: "shutdown", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagNoMulti | FlagAllowBusy,
		Group: "server", Handler: cmdShutdown},
	{Name: "info", Arity: -1, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdInfo},
	clientCommand,
	commandCommand,
	configCommand,
}

func cmdDBSize(x *Ctx) { x.W.Int(int64(x.DB.Len())) }

// flushArgs parses FLUSHDB/FLUSHALL's optional ASYNC|SYNC. limitkv always
// frees synchronously: there is nothing to gain from a background free in Go.
func flushArgs(x *Ctx) bool {
	switch len(x.Args) {
	case 1:
		return true
	case 2:
		if a := x.Arg(1); strings.EqualFold(a, "sync") || strings.EqualFold(a, "async") {
			return true
		}
	}
	x.W.Error(ErrSyntax)
	return false
}

func cmdFlushDB(x *Ctx) {
	if !flushArgs(x) {
		return
	}
	// Redis counts every key removed as a change.
	x.E.persist.dirty += int64(x.DB.Len())
	x.Dirty() // forceCommandPropagation: even an empty database's flush
	x.E.trackingFlushed()
	x.DB.Flush()
	x.W.OK()
}

func cmdFlushAll(x *Ctx) {
	if !flushArgs(x) {
		return
	}
	// flushAllDataAndResetRDB kills a background save (killRDBChild).
	x.E.abortBgsaveLocked()
	x.Dirty() // forceCommandPropagation: even an empty server's flush
	x.E.trackingFlushed()
	for i := range NumDBs {
		x.E.persist.dirty += int64(x.E.DB(i).Len())
		x.E.DB(i).Flush()
	}
	// flushAllDataAndResetRDB: with save points set, the now empty
	// dataset is saved at once, so a restart does not bring the keys back.
	if len(x.E.Cfg.SavePoints()) > 0 {
		x.E.saveLocked()
	}
	x.W.OK()
}

func cmdTime(x *Ctx) {
	now := x.E.Clock.Now()
	x.W.Array(2)
	x.W.BulkString(strconv.FormatInt(now.Unix(), 10))
	x.W.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}

// cmdShutdown parses the options as Redis 7.0 does and saves as
// prepareForShutdown does: with save points set unless NOSAVE, or with
// SAVE; a failed save refuses the shutdown unless FORCE. There are no
// replicas to wait for, so a shutdown never stays "in progress" for ABORT
// to cancel, and NOW changes nothing.
func cmdShutdown(x *Ctx) {
	if x.C.Multi != nil {
		x.C.Multi.dirty = true
		x.W.Error(ErrNotInMulti)
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
			x.W.Error(ErrSyntax)
			return
		}
	}
	if (abort && (nosave || save || other)) || (nosave && save) {
		x.W.Error(ErrSyntax)
		return
	}
	if abort {
		if !x.E.abortShutdownWait() {
			x.W.Error(ErrNoShutdown)
			return
		}
		x.W.OK()
		return
	}
	// Only SHUTDOWN NOSAVE may stop a server busy with a script: the
	// script's writes are half done, nothing may be saved.
	if x.E.busy.on && !nosave {
		x.W.Error(x.E.busy.busyError())
		return
	}
	stop := x.E.Shutdown
	if stop == nil {
		x.W.Error(ErrShutdownFailed)
		return
	}
	if x.E.busy.on {
		x.E.AbortScripts()
	}
	x.E.Log.Warn("user requested shutdown", "client", x.C.ID, "addr", x.C.Addr)
	if deadline, wait := x.E.beginShutdownWait(other); wait && x.Block(nil, 0) {
		// The replicas catch up first; the client waits for the outcome.
		go x.E.finishShutdownAfterWait(x.C, deadline, save, nosave, force, stop)
		return
	}
	if err := x.E.shutdownSaveLocked(save, nosave, force); err != nil {
		x.W.Error(ErrShutdownFailed)
		return
	}
	// Redis exits without replying. The hook may block (it may signal a
	// channel the main goroutine reads), and we hold the executor lock.
	x.C.CloseAfterReply = true
	go stop()
}
