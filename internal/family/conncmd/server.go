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
	x.E.AddDirty(int64(x.DB.Len()))
	x.Dirty() // forceCommandPropagation: even an empty database's flush
	x.E.TrackingFlushed()
	// Flush reports every key to KeyDeleted, which queues those an
	// XREADGROUP waits on: signalFlushedDb's scanDatabaseForDeletedStreams.
	x.DB.Flush()
	x.W.OK()
}

func cmdFlushAll(x *engine.Ctx) {
	if !flushArgs(x) {
		return
	}
	// flushAllDataAndResetRDB kills a background save (killRDBChild).
	x.E.Dur.AbortBgsave()
	x.Dirty() // forceCommandPropagation: even an empty server's flush
	x.E.TrackingFlushed()
	for i := range config.NumDBs {
		x.E.AddDirty(int64(x.E.DB(i).Len()))
		x.E.DB(i).Flush() // XREADGROUP waiters: as in cmdFlushDB
	}
	// flushAllDataAndResetRDB: with save points set, the now empty
	// dataset is saved at once, so a restart does not bring the keys back.
	if len(x.E.Cfg.SavePoints()) > 0 {
		x.E.Dur.Save()
	}
	x.W.OK()
}

func cmdTime(x *engine.Ctx) {
	now := x.E.Clock.Now()
	x.W.Array(2)
	x.W.BulkString(strconv.FormatInt(now.Unix(), 10))
	x.W.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}
