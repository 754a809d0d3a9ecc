package engine

import (
	"strconv"
	"unsafe"

	"github.com/limitkv/limitkv/internal/config"
)

// Keyspace notifications, as Redis's notify.c: with notify-keyspace-events
// set, every Notify publishes the event on __keyspace@<db>__:<key> (message:
// the event name) and the key on __keyevent@<db>__:<event>, each only when
// its K or E flag is on and the event's class is selected.
//
// Off (the default) costs one atomic load per event: the flags live in the
// Config, which CONFIG SET changes outside the executor lock's knowledge.

// notifyKeyspace is notifyKeyspaceEvent: key's event in database db. Call
// with the lock held.
func (e *Engine) NotifyKeyspace(class config.EventClass, event string, key []byte, db int) {
	f := int(e.Cfg.NotifyEvents.Load())
	if f&int(class) == 0 {
		return
	}
	e.publishKeyEvent(f, event, key, db)
}

// observed reports whether events of class are published: handlers with
// a fast path that cannot tell every change apart (ZADD without options)
// take it only when nobody listens.
func (e *Engine) Observed(class config.EventClass) bool {
	return e.Cfg.NotifyEvents.Load()&int32(class) != 0
}

// publishKeyEvent is the part of notifyKeyspace that runs only when the
// event is selected, kept apart so the check above stays inlinable.
func (e *Engine) publishKeyEvent(f int, event string, key []byte, db int) {
	var buf [64]byte
	if f&config.NotifyKeyspaceFlag != 0 {
		ch := append(buf[:0], "__keyspace@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, key...)
		e.Publish(ch, []byte(event))
	}
	if f&config.NotifyKeyeventFlag != 0 {
		ch := append(buf[:0], "__keyevent@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, event...)
		e.Publish(ch, key)
	}
}

// bindDB connects database number i's hooks: deletions reach WATCH,
// expiries and creations become notifications. Called again for both
// databases SWAPDB exchanges, since a database reports under its number.
func (e *Engine) BindDB(i int) {
	db := e.Dbs[i]
	db.OnDelete = func(key string) { e.KeyDeleted(i, key) }
	if idx := e.slotIndex; i == 0 && idx != nil {
		db.OnDelete = func(key string) {
			idx.Remove(key)
			e.KeyDeleted(i, key)
		}
	}
	db.OnExpire = func(key string) {
		// deleteExpiredKeyAndPropagate: the event, then signalModifiedKey
		// with no client. Its WATCH half is keyDeleted's, already run by
		// OnDelete: a key expired when watched must not count as changed
		// when it is reclaimed, which touching it again here would undo.
		k := bkey(key)
		e.NotifyKeyspace(config.EvExpired, "expired", k, i)
		e.trackingInvalidate(i, k, nil)
		e.propagateDeletion(i, k)
	}
	db.OnNew = func(key string) {
		// dbAdd's event; keys an RDB load brings in are not announced
		// (dbAddRDBLoad).
		if !e.LoadingKeys {
			e.NotifyKeyspace(config.EvNew, "new", bkey(key), i)
		}
	}
	if idx := e.slotIndex; i == 0 && idx != nil {
		onNew := db.OnNew
		db.OnNew = func(key string) {
			idx.Add(key)
			onNew(key)
		}
	}
}

// keyMiss is the keymiss event of a read lookup that found nothing
// (lookupKey without LOOKUP_NONOTIFY).
func (x *Ctx) KeyMiss(key []byte) { x.Notify(config.EvKeyMiss, "keymiss", key) }

// evicted reports key's eviction from database db, as performEvictions:
// signalModifiedKey, then the event.
func (e *Engine) evicted(db int, key string) {
	k := bkey(key)
	e.KeyModified(db, k, nil)
	e.NotifyKeyspace(config.EvEvicted, "evicted", k, db)
	e.propagateDeletion(db, k)
}

// bkey views a key the keyspace hands out as a string as the []byte the
// event functions take; they only read it.
func bkey(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
