package conncmd

import (
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
)

// Server administration: DBSIZE, FLUSHDB, FLUSHALL, TIME, SHUTDOWN, and the
// containers CLIENT (client_cmds.go), COMMAND (command_docs.go), CONFIG
// (config_cmds.go) and INFO (info.go).
//
// Documentation (COMMAND INFO/DOCS) for every command Redis has comes from
// Redis itself (commanddocs_gen.go), so the Summary/Since/Complexity fields
// are left empty here.
var ServerCommands = []*engine.Command{
	{Name: "dbsize", Arity: 1, Flags: engine.FlagReadOnly | engine.FlagFast, Group: "server", Handler: cmdDBSize},
	{Name: "flushdb", Arity: -1, Flags: engine.FlagWrite, Group: "server", Handler: cmdFlushDB},
	{Name: "flushall", Arity: -1, Flags: engine.FlagWrite, Group: "server", Handler: cmdFlushAll},
	{Name: "time", Arity: 1, Flags: engine.FlagLoading | engine.FlagStale | engine.FlagFast, Group: "server", Handler: cmdTime},
	// FlagNoMulti makes the dispatcher run SHUTDOWN even inside MULTI, so the
	// handler can refuse it there as Redis's no-multi flag does.
	{Name: "shutdown", Arity: -1, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale | engine.FlagNoMulti | engine.FlagAllowBusy,
		Group: "server", Handler: cmdShutdown},
	engine.CommandCommand,
}

func cmdDBSize(x *engine.Ctx) { x.W.Int(int64(x.DB.Len())) }

// flushArgs parses FLUSHDB/FLUSHALL's optional ASYNC|SYNC. limitkv always
// frees synchronously: there is nothing to gain from a background free in Go.
func flushArgs(x *engine.Ctx) bool {
	switch len(x.Args) {
	case 1:
		return true
	case 2:
		if a := x.Arg(1); strings.EqualFold(a, "sync") || strings.EqualFold(a, "async") {
			return true
		}
	}
	x.W.Error(engine.ErrSyntax)
	return false
}

func cmdFlushDB(x *engine.Ctx) {
	if !flushArgs(x) {
		return
	}
	// Redis counts every key removed as a change.
	x.E.Persist.Dirty += int64(x.DB.Len())
	x.Dirty() // forceCommandPropagation: even an empty database's flush
	x.E.TrackingFlushed()
	x.DB.Flush()
	x.W.OK()
}

func cmdFlushAll(x *engine.Ctx) {
	if !flushArgs(x) {
		return
	}
	// flushAllDataAndResetRDB kills a background save (killRDBChild).
	x.E.AbortBgsaveLocked()
	x.Dirty() // forceCommandPropagation: even an empty server's flush
	x.E.TrackingFlushed()
	for i := range config.NumDBs {
		x.E.Persist.Dirty += int64(x.E.DB(i).Len())
		x.E.DB(i).Flush()
	}
	// flushAllDataAndResetRDB: with save points set, the now empty
	// dataset is saved at once, so a restart does not bring the keys back.
	if len(x.E.Cfg.SavePoints()) > 0 {
		x.E.SaveLocked()
	}
	x.W.OK()
}

func cmdTime(x *engine.Ctx) {
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
		if !x.E.AbortShutdownWait() {
			x.W.Error(engine.ErrNoShutdown)
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
	if deadline, wait := x.E.BeginShutdownWait(other); wait && x.Block(nil, 0) {
		// The replicas catch up first; the client waits for the outcome.
		go x.E.FinishShutdownAfterWait(x.C, deadline, save, nosave, force, stop)
		return
	}
	if err := x.E.ShutdownSaveLocked(save, nosave, force); err != nil {
		x.W.Error(engine.ErrShutdownFailed)
		return
	}
	// Redis exits without replying. The hook may block (it may signal a
	// channel the main goroutine reads), and we hold the executor lock.
	x.C.CloseAfterReply = true
	go stop()
}
