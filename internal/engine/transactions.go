package engine

import (
	"bytes"
	"strings"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/resp"
)

// The transaction family, after Redis 7.0's multi.c: MULTI, EXEC, DISCARD,
// WATCH, UNWATCH. The dispatcher queues commands while c.Multi is set and
// marks the transaction dirty on queue-time errors; EXEC runs the queue
// through the same path as any command.
//
// WATCH follows Redis 7.0.15, checked command by command: a watched key is
// invalidated by any write that changed it (from any client, the watcher
// included, in the watched database only), by its deletion (DEL, overwrite
// by RENAME, FLUSHDB/FLUSHALL, expiry, lazy or active), and by its deadline
// passing before EXEC. Writes that changed nothing (SET NX that did not set,
// DEL of a missing key, EXPIRE of a missing key, ZREM of a missing member...)
// and writes answered with an error do not invalidate. Handlers say what
// they changed with Ctx.Modified (signalModifiedKey), deletions arrive
// through the keyspace's delete hook (keyDeleted); nothing is read from
// replies.
var transactionCommands = []*Command{
	{Name: "multi", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy | FlagNoMulti, Group: "transactions",
		Handler: cmdMulti},
	{Name: "exec", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagSkipSlowlog | FlagNoMulti, Group: "transactions",
		Handler: cmdExec},
	{Name: "discard", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy | FlagNoMulti, Group: "transactions",
		Handler: cmdDiscard},
	{Name: "watch", Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy | FlagNoMulti, FirstKey: 1, LastKey: -1, Step: 1, Group: "transactions",
		Handler: cmdWatch},
	{Name: "unwatch", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy, Group: "transactions",
		Handler: cmdUnwatch},
}

// watchTable is the engine state of the transaction family, made on first
// use so an engine that never watches pays nothing.
type watchTable struct {
	// watchers lists, per watched key, the clients watching it.
	Watchers map[WaitKey][]*Client
	Watches  map[*Client]*watchState
}

type watchState struct {
	Keys  []watchedKey
	Dirty bool // a watched key changed: EXEC will fail
}

type watchedKey struct {
	Db  int
	Key string
	// expired: the key had expired (but not been reclaimed yet) when WATCH
	// ran, so its later reclamation is no change, as in Redis.
	Expired bool
}

// watches is the WATCHed keys and who watches them, made on first use.
func (e *Engine) watches() *watchTable {
	if e.watch == nil {
		e.watch = &watchTable{
			Watchers: make(map[WaitKey][]*Client),
			Watches:  make(map[*Client]*watchState),
		}
	}
	return e.watch
}

func cmdMulti(x *Ctx) {
	if x.C.Multi != nil {
		x.W.Error(ErrMultiNested)
		return
	}
	x.C.Multi = &MultiState{}
	x.W.OK()
}

func cmdDiscard(x *Ctx) {
	if x.C.Multi == nil {
		x.W.Error(ErrDiscardNoMulti)
		return
	}
	x.C.Multi = nil
	x.E.UnwatchAll(x.C)
	x.W.OK()
}

func cmdExec(x *Ctx) {
	c, e := x.C, x.E
	m := c.Multi
	if m == nil {
		x.W.Error(ErrExecNoMulti)
		return
	}
	if m.Dirty {
		c.Multi = nil
		e.UnwatchAll(c)
		x.W.Error(ErrExecAbort)
		return
	}
	if e.watchFailed(c, x.Now) {
		c.Multi = nil
		e.UnwatchAll(c)
		x.W.NullArray()
		return
	}
	// Unwatch first, as Redis does: the transaction's own writes must not
	// count against it, and watching is over anyway.
	e.UnwatchAll(c)
	x.W.Array(len(m.cmds))
	// c.Multi stays set while the queue runs, so blocking commands answer
	// as on timeout instead of blocking.
	for _, q := range m.cmds {
		// Rules may have changed since the command was queued.
		if u := c.User; u != nil && !u.Unrestricted && e.aclExecDenied(x, q.cmd, q.args) {
			continue
		}
		x.Run(q.cmd, q.args, x.W)
	}
	c.Multi = nil
}

// execAbort answers an EXEC that was refused before running inside MULTI
// (wrong arity, ...): Redis discards the transaction and words the error
// "EXECABORT Transaction discarded because of: <msg without its code>".
// The dispatcher calls it instead of reject for EXEC.
func (e *Engine) execAbort(x *Ctx, msg string) {
	c := x.C
	c.Multi = nil
	e.UnwatchAll(c)
	// Redis's own-worded rejections carry no code there ("wrong number of
	// arguments ..."); shared errors keep theirs ("NOAUTH ...", "OOM ...").
	msg = strings.TrimPrefix(msg, "ERR ")
	x.W.Error("EXECABORT Transaction discarded because of: " + msg)
}

// Run executes an already resolved command for x's client, writing its
// reply to w, through the same path as a top-level command (stats, WATCH
// invalidation, panic recovery). EXEC and scripts use it.
func (x *Ctx) Run(cmd *Command, args [][]byte, w *resp.Writer) {
	inner := Ctx{E: x.E, C: x.C, W: w, DB: x.E.Dbs[x.C.DB], Now: x.Now, Args: args, Cmd: cmd}
	x.E.Call(&inner)
}

func cmdWatch(x *Ctx) {
	if x.C.Multi != nil {
		x.W.Error(ErrWatchInMulti)
		return
	}
	ext := x.E.watches()
	c := x.C
	ws := ext.Watches[c]
	if ws == nil {
		ws = &watchState{}
		ext.Watches[c] = ws
	}
next:
	for _, k := range x.Args[1:] {
		for _, w := range ws.Keys {
			if w.Db == c.DB && w.Key == string(k) {
				continue next
			}
		}
		wk := watchedKey{Db: c.DB, Key: string(k)}
		if ent := x.DB.Peek(k); ent != nil && ent.Expiry() != 0 && x.Now > ent.Expiry() {
			wk.Expired = true
		}
		ws.Keys = append(ws.Keys, wk)
		id := WaitKey{wk.Db, wk.Key}
		ext.Watchers[id] = append(ext.Watchers[id], c)
		x.E.watching++
	}
	x.W.OK()
}

func cmdUnwatch(x *Ctx) {
	x.E.UnwatchAll(x.C)
	x.W.OK()
}

// watchFailed reports whether EXEC must fail: a watched key changed, or its
// deadline passed since WATCH (Redis's isWatchedKeyExpired).
func (e *Engine) watchFailed(c *Client, now int64) bool {
	if e.watching == 0 {
		return false
	}
	ws := e.watches().Watches[c]
	if ws == nil {
		return false
	}
	if ws.Dirty {
		return true
	}
	for _, w := range ws.Keys {
		if w.Expired {
			continue
		}
		if ent := e.Dbs[w.Db].Peek([]byte(w.Key)); ent != nil && ent.Expiry() != 0 && now > ent.Expiry() {
			return true
		}
	}
	return false
}

// unwatchAll forgets c's watched keys (UNWATCH, EXEC, DISCARD, RESET, and
// when the connection closes).
func (e *Engine) UnwatchAll(c *Client) {
	if e.watching == 0 {
		return
	}
	ext := e.watches()
	ws := ext.Watches[c]
	if ws == nil {
		return
	}
	for _, w := range ws.Keys {
		id := WaitKey{w.Db, w.Key}
		list := ext.Watchers[id]
		for i, o := range list {
			if o == c {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(ext.Watchers, id)
		} else {
			ext.Watchers[id] = list
		}
		e.watching--
	}
	delete(ext.Watches, c)
}

// touch invalidates the transactions of the clients watching key in db.
func (ext *watchTable) Touch(db int, key []byte) {
	for _, c := range ext.Watchers[WaitKey{db, string(key)}] {
		if ws := ext.Watches[c]; ws != nil {
			ws.Dirty = true
		}
	}
}

// keyDeleted is called for every key removed from database db, for any
// reason (DEL, overwrite by RENAME, expiry, FLUSH).
func (e *Engine) KeyDeleted(db int, key string) {
	e.signalStreamGone(db, key) // dbGenericDelete's signal to XREADGROUP waiters
	if e.watching == 0 {
		return
	}
	ext := e.watches()
	for _, c := range ext.Watchers[WaitKey{db, key}] {
		ws := ext.Watches[c]
		if ws == nil {
			continue
		}
		for i := range ws.Keys {
			w := &ws.Keys[i]
			if w.Db != db || w.Key != key {
				continue
			}
			if w.Expired {
				// Reclaiming a key that had already expired when watched
				// changes nothing logically; later changes count again.
				w.Expired = false
			} else {
				ws.Dirty = true
			}
		}
	}
}

// isNullReply reports whether reply is a null in either protocol.
func isNullReply(reply []byte) bool {
	return bytes.Equal(reply, []byte("$-1\r\n")) || bytes.Equal(reply, []byte("_\r\n"))
}

// setWasNoop tells from SET's options and reply whether it set nothing.
func setWasNoop(args [][]byte, reply []byte) bool {
	var nx, xx, get bool
	for _, a := range args[3:] {
		switch strings.ToLower(string(a)) {
		case "nx":
			nx = true
		case "xx":
			xx = true
		case "get":
			get = true
		}
	}
	isNil := isNullReply(reply)
	if !get {
		return isNil
	}
	// With GET the reply is the old value: NX did nothing if there was one,
	// XX did nothing if there was none.
	return (nx && !isNil) || (xx && isNil)
}

// TouchWatched invalidates the transactions watching key in db, for a
// write that bypasses the keyspace's own signals (DEBUG POPULATE).
func (e *Engine) TouchWatched(db int, key []byte) {
	if e.watching != 0 {
		e.watches().Touch(db, key)
	}
}

// WritesUnseen reports whether nobody but the dirty counter can tell an
// update of an existing member from an addition: no WATCH, no client-side
// caching, no keyspace events of class. A write may then skip the lookup
// it needs to tell them apart (ZADD's plain form, which learns from the
// insertion itself whether a score changed).
func (e *Engine) WritesUnseen(class config.EventClass) bool {
	return e.watching == 0 && e.Trk.Clients == 0 && !e.Observed(class)
}

// WatchedKeys is how many keys are WATCHed, counting each client's.
func (e *Engine) WatchedKeys() int { return e.watching }
