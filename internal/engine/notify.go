package engine

import (
	"strconv"
	"unsafe"
)

// Keyspace notifications, as Redis's notify.c: with notify-keyspace-events
// set, every Notify publishes the event on __keyspace@<db>__:<key> (message:
// the event name) and the key on __keyevent@<db>__:<event>, each only when
// its K or E flag is on and the event's class is selected.
//
// Off (the default) costs one atomic load per event: the flags live in the
// Config, which CONFIG SET changes outside the executor lock's knowledge.

// The K and E flags sit above the EventClass bits in Config.NotifyEvents.
const (
	notifyKeyspaceFlag = 1 << 14 // K
	notifyKeyeventFlag = 1 << 15 // E
	// notifyAll is A: every class but keymiss and new.
	notifyAll = int(EvGeneric | EvString | EvList | EvSet | EvHash | EvZSet | EvExpired | EvEvicted | EvStream | EvModule)
)

// parseNotifyFlags is keyspaceEventsStringToFlags. Like the C loop, it
// stops at a NUL byte.
func ParseNotifyFlags(s string) (int, bool) {
	f := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0:
			return f, true
		case 'A':
			f |= notifyAll
		case 'g':
			f |= int(EvGeneric)
		case '$':
			f |= int(EvString)
		case 'l':
			f |= int(EvList)
		case 's':
			f |= int(EvSet)
		case 'h':
			f |= int(EvHash)
		case 'z':
			f |= int(EvZSet)
		case 'x':
			f |= int(EvExpired)
		case 'e':
			f |= int(EvEvicted)
		case 'K':
			f |= notifyKeyspaceFlag
		case 'E':
			f |= notifyKeyeventFlag
		case 't':
			f |= int(EvStream)
		case 'm':
			f |= int(EvKeyMiss)
		case 'd':
			f |= int(EvModule)
		case 'n':
			f |= int(EvNew)
		default:
			return 0, false
		}
	}
	return f, true
}

// formatNotifyFlags is keyspaceEventsFlagsToString: Redis's canonical
// order, A for the full set, and K, E, m last.
func FormatNotifyFlags(f int) string {
	var b []byte
	if f&notifyAll == notifyAll {
		b = append(b, 'A')
	} else {
		for _, c := range []struct {
			bit EventClass
			ch  byte
		}{{EvGeneric, 'g'}, {EvString, '$'}, {EvList, 'l'}, {EvSet, 's'}, {EvHash, 'h'}, {EvZSet, 'z'},
			{EvExpired, 'x'}, {EvEvicted, 'e'}, {EvStream, 't'}, {EvModule, 'd'}, {EvNew, 'n'}} {
			if f&int(c.bit) != 0 {
				b = append(b, c.ch)
			}
		}
	}
	if f&notifyKeyspaceFlag != 0 {
		b = append(b, 'K')
	}
	if f&notifyKeyeventFlag != 0 {
		b = append(b, 'E')
	}
	if f&int(EvKeyMiss) != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

// notifyKeyspace is notifyKeyspaceEvent: key's event in database db. Call
// with the lock held.
func (e *Engine) NotifyKeyspace(class EventClass, event string, key []byte, db int) {
	f := int(e.Cfg.NotifyEvents.Load())
	if f&int(class) == 0 {
		return
	}
	e.publishKeyEvent(f, event, key, db)
}

// observed reports whether events of class are published: handlers with
// a fast path that cannot tell every change apart (ZADD without options)
// take it only when nobody listens.
func (e *Engine) Observed(class EventClass) bool {
	return e.Cfg.NotifyEvents.Load()&int32(class) != 0
}

// publishKeyEvent is the part of notifyKeyspace that runs only when the
// event is selected, kept apart so the check above stays inlinable.
func (e *Engine) publishKeyEvent(f int, event string, key []byte, db int) {
	var buf [64]byte
	if f&notifyKeyspaceFlag != 0 {
		ch := append(buf[:0], "__keyspace@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, key...)
		e.Publish(ch, []byte(event))
	}
	if f&notifyKeyeventFlag != 0 {
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
	db.OnExpire = func(key string) {
		// deleteExpiredKeyAndPropagate: the event, then signalModifiedKey
		// with no client. Its WATCH half is keyDeleted's, already run by
		// OnDelete: a key expired when watched must not count as changed
		// when it is reclaimed, which touching it again here would undo.
		k := bkey(key)
		e.NotifyKeyspace(EvExpired, "expired", k, i)
		e.trackingInvalidate(i, k, nil)
		e.propagateDeletion(i, k)
	}
	db.OnNew = func(key string) {
		// dbAdd's event; keys an RDB load brings in are not announced
		// (dbAddRDBLoad).
		if !e.loadingKeys {
			e.NotifyKeyspace(EvNew, "new", bkey(key), i)
		}
	}
}

// keyMiss is the keymiss event of a read lookup that found nothing
// (lookupKey without LOOKUP_NONOTIFY).
func (x *Ctx) KeyMiss(key []byte) { x.Notify(EvKeyMiss, "keymiss", key) }

// evicted reports key's eviction from database db, as performEvictions:
// signalModifiedKey, then the event.
func (e *Engine) evicted(db int, key string) {
	k := bkey(key)
	e.KeyModified(db, k, nil)
	e.NotifyKeyspace(EvEvicted, "evicted", k, db)
	e.propagateDeletion(db, k)
}

// bkey views a key the keyspace hands out as a string as the []byte the
// event functions take; they only read it.
func bkey(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
