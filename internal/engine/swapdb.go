package engine

import "github.com/limitkv/limitkv/internal/keyspace"

// SwapDB is Redis's swapdbCommand's work: the two databases' contents
// change places while clients, their watched keys and their blocked
// commands stay with the database number they chose. Watchers are
// invalidated before the swap by Redis's rules; XREADGROUP waiters whose
// stream leaves their database are queued to get -UNBLOCKED; after it,
// clients blocked on a key the swap brings in are served.
func (x *Ctx) SwapDB(a, b int) {
	if a == b {
		return
	}
	e := x.E
	e.touchWatchedOnSwap(a, b, x.Now)
	e.touchWatchedOnSwap(b, a, x.Now)
	e.scanDeletedStreams(a, b)
	e.scanDeletedStreams(b, a)
	e.Dbs[a], e.Dbs[b] = e.Dbs[b], e.Dbs[a]
	// Each database reports deletions under its new number.
	for _, i := range []int{a, b} {
		e.BindDB(i)
	}
	x.DB = e.Dbs[x.C.DB]
	e.signalSwapped(a, b)
}

// touchWatchedOnSwap is touchAllWatchedKeysInDb(emptied, replaced): for a
// key watched in database emptied that exists (even past its deadline) in
// either database, the watch fails, except that a watch taken on an
// expired key stays valid if the key is gone or still expired after the
// swap, and a missing key replaced by an expired one marks the watch as
// taken on an expired key.
func (e *Engine) touchWatchedOnSwap(emptied, replaced int, now int64) {
	if e.watching == 0 {
		return
	}
	ext := e.watches()
	expired := func(ent *keyspace.Entry) bool { return ent.Expiry() != 0 && now > ent.Expiry() }
	for id, clients := range ext.Watchers {
		if id.Db != emptied {
			continue
		}
		k := []byte(id.Key)
		inEmptied := e.Dbs[emptied].Peek(k) != nil
		repl := e.Dbs[replaced].Peek(k)
		if !inEmptied && repl == nil {
			continue
		}
		for _, c := range clients {
			ws := ext.Watches[c]
			if ws == nil {
				continue
			}
			for i := range ws.Keys {
				wk := &ws.Keys[i]
				if wk.Db != emptied || wk.Key != id.Key {
					continue
				}
				switch {
				case wk.Expired && repl == nil:
					wk.Expired = false
					continue
				case wk.Expired && expired(repl):
					continue
				case !wk.Expired && !inEmptied && expired(repl):
					wk.Expired = true
					continue
				}
				ws.Dirty = true
			}
		}
	}
}

// signalSwapped is scanDatabaseForReadyKeys for both databases: every key
// a client blocks on that now holds a value able to serve it is ready.
func (e *Engine) signalSwapped(a, b int) {
	for k := range e.waiting {
		if k.Db != a && k.Db != b {
			continue
		}
		if ent := e.Dbs[k.Db].Peek([]byte(k.Key)); ent != nil && WakesBlocked(ent) {
			e.ready = append(e.ready, k)
		}
	}
}
