package engine

import (
	"bytes"
	"sync"
	"time"

	"github.com/limitkv/limitkv/internal/num"
)

// Redis's texts.
const (
	ErrBgsaveInProgress = "ERR Background save already in progress"
	ErrBadDumpPayload   = "ERR DUMP payload version or checksum are wrong"
	ErrBadDataFormat    = "ERR Bad data format"
	ErrBusyKey          = "BUSYKEY Target key name already exists."
	ErrInvalidTTL       = "ERR Invalid TTL value, must be >= 0"
	ErrInvalidIdle      = "ERR Invalid IDLETIME value, must be >= 0"
	ErrInvalidFreq      = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	// ErrMisconf refuses writes (and PING) after a failed background save
	// while save points are set: stop-writes-on-bgsave-error's default.
	ErrMisconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
)

// persistState is the engine's persistence bookkeeping, guarded by the
// engine lock except where noted.
type PersistState struct {
	Dirty      int64     // writes since the last successful save (Redis's server.dirty)
	DirtyAtBg  int64     // dirty when the running BGSAVE took its snapshot
	LastSave   time.Time // last successful save (LASTSAVE), the start at first
	LastBgTry  time.Time
	LastBgOK   bool
	BgRunning  bool
	BgStart    time.Time
	LastBgSecs int64 // -1: none yet
	Scheduled  bool  // BGSAVE SCHEDULE (or BGSAVE in EXEC) waits for the cron
	Saves      int64 // rdb_saves
	// loaded at start (INFO rdb_last_load_keys_*)
	LoadKeys, LoadExpired int
	// lastLockHold is how long the last BGSAVE's start held the executor
	// lock (the walk's slices come after).
	LastLockHold time.Duration
	ShutdownDone bool // the shutdown save has run: Close must not save again

	// fileMu orders the renames of a synchronous save and of a background
	// save it aborted (bgsave.go), so the older snapshot never lands last.
	FileMu   sync.Mutex
	Bg       *BgSave       // the background save in progress (bgsave.go)
	LastWalk WalkStats     // the last successful one's slices
	BgSeq    int64         // numbers the background saves' temporary files
	BgDone   chan struct{} // closed when the running background save's goroutine ends
	// beforeRename is a test hook run between the temp file's fsync and
	// its rename.
	BeforeRename func()
}

func (p *PersistState) init(now time.Time) {
	p.LastSave, p.LastBgOK, p.LastBgSecs = now, true, -1
}

// countChange adds what a write command changed to the dirty counter. It
// follows Redis's per-command accounting where the reply tells it (the
// count of keys, members or elements changed), counts nothing for a
// command that failed, blocked or changed nothing, and one otherwise;
// FLUSHDB and FLUSHALL count in their handlers. Commands whose Redis count
// the reply does not show (LTRIM, ZADD updating some members and adding
// others) are approximated.
func (e *Engine) countChange(x *Ctx, mark int) {
	out := x.W.Bytes()
	if len(out) <= mark || out[mark] == '-' {
		return
	}
	reply := out[mark:]
	zero := bytes.Equal(reply, []byte(":0\r\n"))
	n := int64(1)
	switch x.Cmd.Name {
	case "flushdb", "flushall", "migrate": // counted by their handlers
		return
	case "del", "unlink", "sadd", "srem", "hdel", "zrem":
		n = replyInt(reply)
	case "lpush", "rpush", "lpushx", "rpushx":
		if zero {
			return
		}
		n = int64(len(x.Args) - 2)
	case "lpop", "rpop":
		if len(x.Args) == 3 && reply[0] == '*' {
			n = replyInt(reply)
		} else if isNullReply(reply) {
			return
		}
	case "hset", "hmset", "mset":
		n = int64(len(x.Args)-1) / 2
	case "set":
		if setWasNoop(x.Args, reply) {
			return
		}
	case "zadd":
		if zaddWasNoop(x.Args, reply) {
			return
		}
		n = max(replyInt(reply), 1) // added (or changed, with CH)
	case "setnx", "msetnx", "expire", "pexpire", "expireat", "pexpireat", "persist", "renamenx",
		"zremrangebyscore", "zremrangebyrank", "zremrangebylex", "move", "copy":
		if zero {
			return
		}
	}
	e.Persist.Dirty += n
}

// writesRefused reports whether a failed background save makes the server
// refuse writes (Redis's writeCommandsDeniedByDiskError).
func (e *Engine) WritesRefused() bool {
	return e.Cfg.StopWritesOnBgsaveError.Load() && !e.Persist.LastBgOK && len(e.Cfg.SavePoints()) > 0
}

// replyInt reads the integer of an integer reply, or the length of an
// array reply.
func replyInt(reply []byte) int64 {
	if len(reply) < 2 || (reply[0] != ':' && reply[0] != '*') {
		return 1
	}
	end := bytes.IndexByte(reply, '\r')
	if end < 0 {
		return 1
	}
	n, ok := num.ParseInt(reply[1:end])
	if !ok || n < 0 {
		return 0
	}
	return n
}
