package engine

import "github.com/limitkv/limitkv/internal/stream"

// What the stream commands (internal/family/streamcmd) need from the
// engine beyond what every family uses.

// MustObey is Redis's mustObeyClient: the replication master's client or
// the one loading the AOF, whose commands were checked where they came
// from (XADD and XTRIM then trim without the LIMIT of "~").
func (c *Client) MustObey() bool { return c.IsMaster || c.AofLoading }

// XReadGroupWaiting reports whether a client blocked in XREADGROUP waits
// on key of database db: such a client is served (with an error) when the
// key is deleted or overwritten, as Redis signals a stream key on
// dbGenericDelete and dbOverwrite.
func (e *Engine) xreadGroupWaiting(db int, key string) bool {
	for _, c := range e.waiting[WaitKey{db, key}] {
		if b := c.Blocked; b != nil && len(b.args) > 0 && AsciiEq(b.args[0], "xreadgroup") {
			return true
		}
	}
	return false
}

// signalStreamGone queues key for the blocked clients' round if an
// XREADGROUP waits on it; see xreadGroupWaiting.
func (e *Engine) signalStreamGone(db int, key string) {
	if len(e.waiting) == 0 || !e.xreadGroupWaiting(db, key) {
		return
	}
	e.ready = append(e.ready, WaitKey{db, key})
}

// scanDeletedStreams is Redis's scanDatabaseForDeletedStreams(emptied,
// replacedWith) for SWAPDB, called before the swap: a key an XREADGROUP
// waits on in database emptied that holds a stream there but not in
// database replacedWith is queued, so that the waiter gets -UNBLOCKED once
// the swap has taken its stream away. A stream on the other side is left
// to the ready-key scan after the swap (it serves the waiter or fails it
// with -NOGROUP). FLUSHALL and FLUSHDB need no scan: their Flush reports
// every key to KeyDeleted, which signals the same keys.
func (e *Engine) scanDeletedStreams(emptied, replacedWith int) {
	if len(e.waiting) == 0 {
		return
	}
	isStream := func(db int, key string) bool {
		ent := e.Dbs[db].Peek([]byte(key)) // dictFind: expired or not
		if ent == nil {
			return false
		}
		_, ok := ent.Val.(*stream.Stream)
		return ok
	}
	for k := range e.waiting {
		if k.Db == emptied && e.xreadGroupWaiting(k.Db, k.Key) && isStream(emptied, k.Key) && !isStream(replacedWith, k.Key) {
			e.ready = append(e.ready, k)
		}
	}
}
