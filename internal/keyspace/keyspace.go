// Package keyspace holds one logical database: keys, their values and their
// deadlines.
//
// The table is a chained hash table in the manner of Redis's dict rather than a
// Go map, for two reasons Go maps cannot meet: SCAN needs a cursor that
// survives inserts, deletes and resizes between calls (Redis's reverse-binary
// cursor, which guarantees every key present for the whole scan is returned),
// and RANDOMKEY needs an O(1) random pick. Deadlines are mirrored in a
// deadline-ordered index (internal/expiry) for the active expiry cycle; lookups
// check the deadline lazily, so an expired key is gone for every command even
// before the cycle reclaims it.
//
// A DB is not safe for concurrent use: the executor serialises all access.
package keyspace

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"

	"github.com/limitkv/limitkv/internal/expiry"
)

// NoExpiry is the deadline of a key without a TTL.
const NoExpiry int64 = 0

// Entry is one key. Handlers may change Val in place; deadlines change only
// through the DB so the expiry index stays in step.
type Entry struct {
	key  string
	Val  any
	exp  int64 // Unix ms, NoExpiry for none
	hash uint64
	next *Entry
}

// Key returns the entry's key.
func (e *Entry) Key() string { return e.key }

// Expiry returns the deadline in Unix ms, or NoExpiry.
func (e *Entry) Expiry() int64 { return e.exp }

const minBuckets = 16

// DB is one database.
type DB struct {
	seed    maphash.Seed
	buckets []*Entry
	n       int
	exp     *expiry.Index

	// Expired counts keys removed because their deadline passed (INFO's expired_keys).
	Expired int64
	// OnDelete, if set, is called for every key removed for any reason, so
	// WATCH and blocked clients can react.
	OnDelete func(key string)
}

// New returns an empty DB.
func New() *DB {
	return &DB{seed: maphash.MakeSeed(), buckets: make([]*Entry, minBuckets), exp: expiry.New()}
}

// Len is the number of keys, including expired keys not yet reclaimed.
func (db *DB) Len() int { return db.n }

// ExpiresLen is the number of keys with a deadline.
func (db *DB) ExpiresLen() int { return db.exp.Len() }

func (db *DB) find(key []byte) (*Entry, uint64) {
	h := maphash.Bytes(db.seed, key)
	for e := db.buckets[h&uint64(len(db.buckets)-1)]; e != nil; e = e.next {
		if e.hash == h && e.key == string(key) {
			return e, h
		}
	}
	return nil, h
}

// Peek returns the entry for key without checking its deadline.
func (db *DB) Peek(key []byte) *Entry {
	e, _ := db.find(key)
	return e
}

// Get returns the live entry for key at time now, deleting it first if it has
// expired (Redis's lazy expiry).
func (db *DB) Get(key []byte, now int64) *Entry {
	e, _ := db.find(key)
	if e == nil {
		return nil
	}
	if e.exp != NoExpiry && now > e.exp {
		db.remove(e)
		db.Expired++
		return nil
	}
	return e
}

// Set stores val under key, creating the key or replacing its value. A new
// key has no deadline; an existing key keeps its deadline only if keepTTL.
// The caller must have called Get first so an expired key is not revived.
func (db *DB) Set(key []byte, val any, keepTTL bool) *Entry {
	e, h := db.find(key)
	if e != nil {
		e.Val = val
		if !keepTTL {
			db.Persist(e)
		}
		return e
	}
	return db.insert(string(key), h, val)
}

// Add creates key, which must not exist, with val and no deadline.
func (db *DB) Add(key string, val any) *Entry {
	return db.insert(key, maphash.String(db.seed, key), val)
}

func (db *DB) insert(key string, h uint64, val any) *Entry {
	if db.n >= len(db.buckets) {
		db.resize(len(db.buckets) * 2)
	}
	i := h & uint64(len(db.buckets)-1)
	e := &Entry{key: key, Val: val, hash: h, next: db.buckets[i]}
	db.buckets[i] = e
	db.n++
	return e
}

// Delete removes key if present (expired or not) and reports whether it was live at now.
func (db *DB) Delete(key []byte, now int64) bool {
	e := db.Get(key, now)
	if e == nil {
		return false
	}
	db.remove(e)
	return true
}

// Remove deletes the entry e, which must belong to db.
func (db *DB) Remove(e *Entry) { db.remove(e) }

func (db *DB) remove(e *Entry) {
	i := e.hash & uint64(len(db.buckets)-1)
	for p := &db.buckets[i]; *p != nil; p = &(*p).next {
		if *p == e {
			*p = e.next
			break
		}
	}
	e.next = nil
	if e.exp != NoExpiry {
		db.exp.Remove(e.key, e.exp)
		e.exp = NoExpiry
	}
	db.n--
	if db.OnDelete != nil {
		db.OnDelete(e.key)
	}
	// Shrink below 1/8 full, as Redis does below 10%, so memory follows a
	// keyspace that emptied.
	if len(db.buckets) > minBuckets && db.n < len(db.buckets)/8 {
		db.resize(len(db.buckets) / 2)
	}
}

func (db *DB) resize(size int) {
	if size < minBuckets {
		size = minBuckets
	}
	nb := make([]*Entry, size)
	mask := uint64(size - 1)
	for _, e := range db.buckets {
		for e != nil {
			next := e.next
			i := e.hash & mask
			e.next = nb[i]
			nb[i] = e
			e = next
		}
	}
	db.buckets = nb
}

// SetExpiry gives e the deadline at (Unix ms); NoExpiry removes it.
func (db *DB) SetExpiry(e *Entry, at int64) {
	if e.exp == at {
		return
	}
	if e.exp != NoExpiry {
		db.exp.Remove(e.key, e.exp)
	}
	e.exp = at
	if at != NoExpiry {
		db.exp.Add(e.key, at)
	}
}

// Persist removes e's deadline and reports whether it had one.
func (db *DB) Persist(e *Entry) bool {
	if e.exp == NoExpiry {
		return false
	}
	db.SetExpiry(e, NoExpiry)
	return true
}

// Flush deletes every key.
func (db *DB) Flush() {
	if db.OnDelete != nil {
		db.ForEach(func(e *Entry) bool { db.OnDelete(e.key); return true })
	}
	db.buckets = make([]*Entry, minBuckets)
	db.n = 0
	db.exp.Clear()
}

// ForEach calls fn for every entry, expired or not, until fn returns false.
// fn must not add or remove keys.
func (db *DB) ForEach(fn func(e *Entry) bool) {
	for _, e := range db.buckets {
		for ; e != nil; e = e.next {
			if !fn(e) {
				return
			}
		}
	}
}

// Scan visits the bucket at cursor and returns the next cursor (0 when the
// scan is complete). The reverse-binary increment is Redis's: a key present
// from the first call to the last is visited at least once even when the
// table grows or shrinks in between.
func (db *DB) Scan(cursor uint64, fn func(e *Entry)) uint64 {
	mask := uint64(len(db.buckets) - 1)
	for e := db.buckets[cursor&mask]; e != nil; e = e.next {
		fn(e)
	}
	cursor |= ^mask
	cursor = bits.Reverse64(cursor)
	cursor++
	return bits.Reverse64(cursor)
}

// Random returns a random entry, expired or not, or nil when empty. As in
// Redis, the pick is uniform over buckets, then over the chain.
func (db *DB) Random() *Entry {
	if db.n == 0 {
		return nil
	}
	mask := uint64(len(db.buckets) - 1)
	for {
		e := db.buckets[rand.Uint64()&mask]
		if e == nil {
			continue
		}
		l := 0
		for p := e; p != nil; p = p.next {
			l++
		}
		for k := rand.IntN(l); k > 0; k-- {
			e = e.next
		}
		return e
	}
}

// ExpireDue deletes at most max keys whose deadline passed at now, oldest
// first, and returns how many it deleted. scratch is reused between calls.
func (db *DB) ExpireDue(now int64, max int, scratch []string) (int, []string) {
	scratch = db.exp.Due(now, max, scratch[:0])
	for _, k := range scratch {
		h := maphash.String(db.seed, k)
		for e := db.buckets[h&uint64(len(db.buckets)-1)]; e != nil; e = e.next {
			if e.hash == h && e.key == k {
				db.remove(e)
				db.Expired++
				break
			}
		}
	}
	return len(scratch), scratch
}

// NextDeadline reports the earliest deadline in db.
func (db *DB) NextDeadline() (int64, bool) { return db.exp.Next() }
