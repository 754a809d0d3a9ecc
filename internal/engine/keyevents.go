package engine

import (
	"github.com/limitkv/limitkv/internal/config"
)

// Key events: what a command tells the rest of the server about the keys
// it changed, in the places Redis calls signalModifiedKey and
// notifyKeyspaceEvent. Handlers call these explicitly, once the change is
// made; nothing is inferred from replies.

// Modified is Redis's signalModifiedKey: key's value (or its TTL) changed in
// the client's selected database.
// It is also what tells the write stream that the command changed
// something (propagate.go).
func (x *Ctx) Modified(key []byte) { x.E.Prop.changes++; x.E.KeyModified(x.C.DB, key, x.C) }

// Notify is Redis's notifyKeyspaceEvent for key in the client's selected
// database.
func (x *Ctx) Notify(class config.EventClass, event string, key []byte) {
	x.E.NotifyKeyspace(class, event, key, x.C.DB)
}

// keyModified is where every modification of a key arrives: by is the
// client whose command made it (nil: the server itself, e.g. eviction). It
// invalidates the WATCHes of key, as signalModifiedKey's touchWatchedKey;
// deletions reach WATCH through keyDeleted as well, which also keeps
// Redis's rule for keys already expired when watched (so expiry itself
// calls only trackingInvalidate: see bindDB).
func (e *Engine) KeyModified(db int, key []byte, by *Client) {
	// An overwrite of a stream must reach XREADGROUP waiters (dbOverwrite).
	if len(e.waiting) != 0 {
		e.signalStreamGone(db, string(key))
	}
	if e.watching != 0 {
		e.watches().Touch(db, key)
	}
	e.trackingInvalidate(db, key, by)
}
