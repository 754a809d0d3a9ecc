package engine

import (
	"bytes"

	"github.com/limitkv/limitkv/internal/num"
)

// ErrMisconf refuses writes (and PING) after a failed background save
// while save points are set: stop-writes-on-bgsave-error's default.
const ErrMisconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."

// persistState is the part of persistence the engine reads or counts
// itself: every write adds to dirty, and nothing runs once the shutdown's
// save is done. The durability component owns the rest (the saves, their
// outcome, the AOF) and reads and settles these through the methods below.
// Guarded by the engine lock.
type persistState struct {
	dirty        int64 // writes since the last successful save (Redis's server.dirty)
	shutdownDone bool  // the shutdown save has run: Close must not save again
}

// DirtyCount is the number of writes since the last successful save
// (rdb_changes_since_last_save). Call with the lock held.
func (e *Engine) DirtyCount() int64 { return e.persist.dirty }

// AddDirty counts n more changes (FLUSHALL's keys, MIGRATE's deletions);
// a save subtracts what it covered. Call with the lock held.
func (e *Engine) AddDirty(n int64) { e.persist.dirty += n }

// ShutdownDone reports whether the shutdown's save has run (or was not
// wanted). Call with the lock held.
func (e *Engine) ShutdownDone() bool { return e.persist.shutdownDone }

// SetShutdownDone marks the shutdown's save as done, after which Exec
// runs nothing more (false: a test that shut the engine down goes on with
// it). Call with the lock held.
func (e *Engine) SetShutdownDone(done bool) { e.persist.shutdownDone = done }

// countChange adds what a write command changed to the dirty counter. It
// follows Redis's per-command accounting where the reply tells it (the
// count of keys, members or elements changed), counts nothing for a
// command that failed, blocked or changed nothing, and one otherwise;
// FLUSHDB and FLUSHALL count in their handlers. Commands whose Redis count
// the reply does not show (LTRIM, ZADD updating some members and adding
// others) are approximated.
// signalled is how many changes the handler signalled (Modified, Dirty),
// which is the count for the commands whose reply does not show it.
func (e *Engine) countChange(x *Ctx, mark int, signalled uint64) {
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
	case "setbit", "bitfield":
		// A bit set to what it was changes nothing; BITFIELD counts each
		// field it changed.
		if signalled == 0 {
			return
		}
		n = int64(signalled)
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
		// Added plus updated, which only CH's reply shows: the handler
		// signals each.
		if signalled == 0 {
			return
		}
		n = int64(signalled)
	case "ltrim":
		// The elements removed: the handler signals the key once and
		// each element after it.
		if signalled <= 1 {
			return
		}
		n = int64(signalled - 1)
	case "setnx", "msetnx", "expire", "pexpire", "expireat", "pexpireat", "persist", "renamenx",
		"zremrangebyscore", "zremrangebyrank", "zremrangebylex", "move", "copy":
		if zero {
			return
		}
	}
	e.persist.dirty += n
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
