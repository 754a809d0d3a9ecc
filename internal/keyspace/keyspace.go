// Package keyspace holds one logical database: keys, their values and their
// deadlines.
//
// The table is a chained hash table in the manner of Redis's dict rather than a
// Go map, for three reasons Go maps cannot meet: SCAN needs a cursor that
// survives inserts, deletes and resizes between calls (Redis's reverse-binary
// cursor, which guarantees every key present for the whole scan is returned),
// RANDOMKEY needs an O(1) random pick, and a resize must not stall the server:
// like Redis's dict, a resize allocates the new table and then moves a bucket
// or so per operation, so no single command pays for rehashing millions of
// keys. Deadlines are mirrored in a deadline-ordered index (internal/expiry)
// for the active expiry cycle; lookups check the deadline lazily, so an
// expired key is gone for every command even before the cycle reclaims it.
//
// A DB is not safe for concurrent use: the executor serialises all access.
package keyspace

import (
	"hash/maphash"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"unsafe"

	"github.com/limitkv/limitkv/internal/expiry"
)

// NoExpiry is the deadline of a key without a TTL.
const NoExpiry int64 = 0

// StrEncoding records how Redis would have encoded a string value. OBJECT
// ENCODING and OBJECT REFCOUNT report it, and in Redis it depends on the
// command that wrote the value, not only on its bytes: "5" stored by SET is
// the shared integer object, by APPEND a raw string, by INCRBYFLOAT an embstr.
// Commands that store a string the way SET does need not touch it.
type StrEncoding uint8

const (
	// EncAuto is what SET, MSET, INCR and most writers produce (Redis's
	// tryObjectEncoding): "int" for a canonical integer in int64 range (the
	// shared object, REFCOUNT 2147483647, for 0..9999), "embstr" up to 44
	// bytes, "raw" beyond.
	EncAuto StrEncoding = iota
	// EncRaw is a string modified in place (APPEND or SETRANGE on an existing
	// key, SETBIT...): always "raw".
	EncRaw
	// EncEmbstr is a string created without integer detection (INCRBYFLOAT):
	// "embstr" up to 44 bytes, else "raw".
	EncEmbstr
	// EncIntUnshared is an integer in a private object (COPY of a small
	// integer): "int" with REFCOUNT 1.
	EncIntUnshared
)

// Entry is one key. Handlers may change Val in place; deadlines change only
// through the DB so the expiry index stays in step.
//
// The key's bytes live in the same allocation, from the Entry's last bytes
// on (see newEntry), so a key costs one object rather than an Entry plus a
// string: with the 48-byte Entry, a 27-byte key such as
// "{t}:ratelimit:ai:user123456" takes one 80-byte object where the two
// used to take 64 + 32. An Entry is therefore only ever made by newEntry
// and never copied. The Entry keeps no hash of its key: the key is at
// hand to hash again the few times a bucket must be found from the entry
// (an unlink, a resize moving it, a snapshot guarding a deadline change),
// and the four bytes it took let a slotted entry (SetInSlot) hold its
// value in the same size class.
type Entry struct {
	Val  any
	next *Entry
	exp  int64 // Unix ms, NoExpiry for none
	// slack is how far (ms) the deadline recorded in the expiry index lags
	// exp: moving a deadline later, which every rate-limit check does,
	// changes only exp; the expiry cycle re-files the key when the old
	// deadline comes up.
	slack uint32

	// lru is Redis's robj.lru, 24 bits read as the policy in force reads
	// them (access.go): the LRU clock of the last access, or under an LFU
	// policy the minute of the last access and the logarithmic counter.
	// Keeping Redis's one field rather than a time and a counter makes
	// OBJECT, DEBUG OBJECT and a policy switch answer as Redis does.
	lru  uint32
	klen uint16 // the key's length, or longKey; slotted marks a slot

	// Enc is the string encoding Redis would report; see StrEncoding.
	Enc StrEncoding
	k0  [headKey]byte // the key's first bytes; the rest follows the Entry
}

// headKey is how many of the key's bytes the Entry itself holds.
const headKey = 5

// longKey in klen marks a key too long to keep inline: the Entry is the
// head of a longEntry, which holds the key as a string. Otherwise the
// slotted bit says the entry ends with a slot (after its key's room).
const (
	longKey = math.MaxUint16
	slotted = 1 << 15
)

type longEntry struct {
	Entry
	key string
}

// The inline variants: an Entry followed by room for the rest of the key,
// each sized to fill one of the allocator's size classes (48 + n bytes),
// and the slotted ones, which end with a slot.
type (
	entry16 struct {
		Entry
		k [16]byte
	}
	entry32 struct {
		Entry
		k [32]byte
	}
	entry48 struct {
		Entry
		k [48]byte
	}
	entry64 struct {
		Entry
		k [64]byte
	}
	entry80 struct {
		Entry
		k [80]byte
	}
	entry96 struct {
		Entry
		k [96]byte
	}
	entry128 struct {
		Entry
		k [128]byte
	}
	entry160 struct {
		Entry
		k [160]byte
	}
	entry208 struct {
		Entry
		k [208]byte
	}

	slotted8 struct {
		Entry
		k    [8]byte
		slot unsafe.Pointer
	}
	slotted24 struct {
		Entry
		k    [24]byte
		slot unsafe.Pointer
	}
	slotted40 struct {
		Entry
		k    [40]byte
		slot unsafe.Pointer
	}
	slotted56 struct {
		Entry
		k    [56]byte
		slot unsafe.Pointer
	}
	slotted72 struct {
		Entry
		k    [72]byte
		slot unsafe.Pointer
	}
	slotted104 struct {
		Entry
		k    [104]byte
		slot unsafe.Pointer
	}
	slotted152 struct {
		Entry
		k    [152]byte
		slot unsafe.Pointer
	}
)

// maxSlotted is the longest key a slotted entry holds.
const maxSlotted = headKey + 152

// newEntry allocates an Entry holding a copy of key.
func newEntry(key string) *Entry {
	var e *Entry
	switch n := len(key); {
	case n <= headKey+16:
		e = alloc[entry16]()
	case n <= headKey+32:
		e = alloc[entry32]()
	case n <= headKey+48:
		e = alloc[entry48]()
	case n <= headKey+64:
		e = alloc[entry64]()
	case n <= headKey+80:
		e = alloc[entry80]()
	case n <= headKey+96:
		e = alloc[entry96]()
	case n <= headKey+128:
		e = alloc[entry128]()
	case n <= headKey+160:
		e = alloc[entry160]()
	case n <= headKey+208:
		e = alloc[entry208]()
	default:
		p := &longEntry{key: strings.Clone(key)}
		p.klen = longKey
		return &p.Entry
	}
	e.klen = uint16(len(key))
	copy(e.keyRoom(len(key)), key)
	return e
}

// newSlotted allocates a slotted Entry holding a copy of key, which is at
// most maxSlotted bytes.
func newSlotted(key string) *Entry {
	var e *Entry
	switch n := len(key); {
	case n <= headKey+8:
		e = alloc[slotted8]()
	case n <= headKey+24:
		e = alloc[slotted24]()
	case n <= headKey+40:
		e = alloc[slotted40]()
	case n <= headKey+56:
		e = alloc[slotted56]()
	case n <= headKey+72:
		e = alloc[slotted72]()
	case n <= headKey+104:
		e = alloc[slotted104]()
	default:
		e = alloc[slotted152]()
	}
	e.klen = uint16(len(key)) | slotted
	copy(e.keyRoom(len(key)), key)
	return e
}

// alloc makes one variant.
func alloc[T entry16 | entry32 | entry48 | entry64 | entry80 | entry96 | entry128 | entry160 | entry208 |
	slotted8 | slotted24 | slotted40 | slotted56 | slotted72 | slotted104 | slotted152]() *Entry {
	return (*Entry)(unsafe.Pointer(new(T)))
}

// keyRoom is the n bytes from the Entry's k0 on, where an inline key lives
// (the variants all put the rest of the room right after the Entry).
func (e *Entry) keyRoom(n int) []byte {
	return unsafe.Slice(&e.k0[0], n)
}

// Key returns the entry's key. The string shares the entry's memory (it
// keeps the entry's object alive, not the other way round).
func (e *Entry) Key() string {
	if e.klen == longKey {
		return (*longEntry)(unsafe.Pointer(e)).key
	}
	return unsafe.String(&e.k0[0], int(e.klen&^slotted))
}

// keyIs reports whether e's key is key, checking the length first.
func (e *Entry) keyIs(key string) bool {
	if e.klen == longKey {
		return (*longEntry)(unsafe.Pointer(e)).key == key
	}
	return int(e.klen&^slotted) == len(key) && e.Key() == key
}

// Slot returns the entry's slot, or nil if it has none: one pointer-sized
// word inside the entry, zero when the entry is made, for a value that is
// one pointer (a handle such as a sorted set's) to live in, so that it
// needs no allocation of its own; Val then points at the slot. See
// SetInSlot.
func (e *Entry) Slot() *unsafe.Pointer {
	if e.klen == longKey || e.klen&slotted == 0 {
		return nil
	}
	n := int(e.klen &^ slotted)
	var room uintptr
	switch {
	case n <= headKey+8:
		room = unsafe.Offsetof(slotted8{}.slot)
	case n <= headKey+24:
		room = unsafe.Offsetof(slotted24{}.slot)
	case n <= headKey+40:
		room = unsafe.Offsetof(slotted40{}.slot)
	case n <= headKey+56:
		room = unsafe.Offsetof(slotted56{}.slot)
	case n <= headKey+72:
		room = unsafe.Offsetof(slotted72{}.slot)
	case n <= headKey+104:
		room = unsafe.Offsetof(slotted104{}.slot)
	default:
		room = unsafe.Offsetof(slotted152{}.slot)
	}
	return (*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(e), room))
}

// valInSlot reports whether e's value lives in its slot.
func (e *Entry) valInSlot() bool {
	s := e.Slot()
	if s == nil || e.Val == nil {
		return false
	}
	type eface struct{ typ, data unsafe.Pointer }
	return (*eface)(unsafe.Pointer(&e.Val)).data == unsafe.Pointer(s)
}

// Expiry returns the deadline in Unix ms, or NoExpiry.
func (e *Entry) Expiry() int64 { return e.exp }

const minBuckets = 16

// DB is one database.
//
// While a resize is in progress the entries live in two tables: ht[0], the
// old one, whose buckets below rehashIdx have already been emptied into
// ht[1], the new one. Every lookup, insert and delete moves one more bucket
// across (Redis's _dictRehashStep); when ht[0] is empty, ht[1] takes its
// place. Unlike Redis, a new key goes to whichever table currently owns its
// bucket, so a key is always in exactly one chain that its hash determines.
type DB struct {
	seed      maphash.Seed
	ht        [2][]*Entry
	used      [2]int
	rehashIdx int // -1 when not rehashing
	dropped   int // buckets of tables finished shrinks let go, until TakeDropped
	exp       *expiry.Index[Entry]
	// snap is the background save's walk in progress, if any: it holds
	// resizes back, and every operation first lets it save the bucket it
	// reaches (snapshot.go).
	snap *Snapshot

	// clock is the latest command time seen by a lookup; new entries take it
	// as their access time, since Set and Add are not given the time.
	clock int64

	// Access is how lookups record an access (access.go); nil is Redis's
	// default (LRU clock). The engine points every DB at one shared value
	// and changes it only with the executor lock held.
	Access *Access
	// FreezeAccess makes lookups leave access times and counters alone,
	// as Redis's do while it has a child (a background save) running.
	FreezeAccess bool
	// KeepExpired makes lookups report keys past their deadline as gone
	// without removing them, so the dataset stays as it is (CLIENT PAUSE).
	KeepExpired bool
	// NoExpire makes keys past their deadline live: a replica running its
	// master's commands (the master's DEL removes them).
	NoExpire bool

	// Expired counts keys removed because their deadline passed (INFO's expired_keys).
	Expired int64
	// OnDelete, if set, is called for every key removed for any reason, so
	// WATCH and blocked clients can react.
	OnDelete func(key string)
	// OnExpire, if set, is called after OnDelete for a key removed because
	// its deadline passed (lazily or by ExpireDue), and OnNew for every key
	// created (Set of a missing key, Add, MoveTo): keyspace notifications.
	OnExpire func(key string)
	OnNew    func(key string)
}

// New returns an empty DB.
func New() *DB {
	return &DB{seed: maphash.MakeSeed(), ht: [2][]*Entry{make([]*Entry, minBuckets)}, rehashIdx: -1, exp: expiry.New((*Entry).indexed)}
}

// Len is the number of keys, including expired keys not yet reclaimed.
func (db *DB) Len() int { return db.used[0] + db.used[1] }

// ExpiresLen is the number of keys with a deadline.
func (db *DB) ExpiresLen() int { return db.exp.Len() }

// Rehashing reports whether a resize is in progress.
func (db *DB) Rehashing() bool { return db.rehashIdx >= 0 }

// TakeDropped reports how many buckets the tables that finished shrinks
// replaced had, since the last call: memory that is garbage now, whether the
// shrink ended in a lookup's step or in RehashFor. (A growth's old table is
// not counted: its memory goes to the heap that grows.)
func (db *DB) TakeDropped() int {
	n := db.dropped
	db.dropped = 0
	return n
}

// Buckets reports the size of the main table and, while rehashing, of the
// table being filled (0 otherwise).
func (db *DB) Buckets() (int, int) { return len(db.ht[0]), len(db.ht[1]) }

// slot returns the table and bucket index that hold (or would hold) hash h.
// During a rehash a key lives in ht[0] until its bucket is moved and in ht[1]
// after, new keys included, so a lookup only ever searches one chain.
func (db *DB) slot(h uint64) (int, uint64) {
	i := h & uint64(len(db.ht[0])-1)
	if db.rehashIdx >= 0 && i < uint64(db.rehashIdx) {
		return 1, h & uint64(len(db.ht[1])-1)
	}
	return 0, i
}

// bucket returns the chain for hash h, for a caller that may change what
// it finds: a snapshot in progress saves the chain first.
func (db *DB) bucket(h uint64) **Entry {
	t, i := db.slot(h)
	if db.snap != nil {
		db.snap.guard(t, i)
	}
	return &db.ht[t][i]
}

func (db *DB) find(key []byte) (*Entry, uint64) {
	if db.rehashIdx >= 0 {
		db.rehashStep()
	}
	h := maphash.Bytes(db.seed, key)
	for e := *db.bucket(h); e != nil; e = e.next {
		if e.keyIs(bstr(key)) {
			return e, h
		}
	}
	return nil, h
}

// hashOf is the hash of e's key, which picks its bucket.
func (db *DB) hashOf(e *Entry) uint64 { return maphash.String(db.seed, e.Key()) }

// TouchMax is the most keys TouchAll looks at in one call.
const TouchMax = 32

// TouchAll reads, and so brings into the CPU's cache, the memory lookups
// of keys will: their buckets, their entries, and what their values' Touch
// methods read. It changes nothing (no rehash step, no access time). It
// goes level by level over all keys (every bucket, then every entry, then
// every value), so that the loads of one level are independent of each
// other and their cache misses overlap, where the commands of a pipelined
// batch, one after the other, would wait for each miss in turn. At most
// TouchMax keys are touched.
func (db *DB) TouchAll(keys [][]byte) uint64 {
	var heads [TouchMax]*Entry
	keys = keys[:min(len(keys), len(heads))]
	for i, k := range keys {
		t, b := db.slot(maphash.Bytes(db.seed, k))
		heads[i] = db.ht[t][b]
	}
	var sum uint64
	for i, k := range keys {
		e := heads[i]
		for e != nil && !e.keyIs(bstr(k)) {
			e = e.next
		}
		heads[i] = e
	}
	for _, e := range heads[:len(keys)] {
		if e != nil {
			if v, ok := e.Val.(interface{ Touch() uint64 }); ok {
				sum += v.Touch()
			}
		}
	}
	return sum
}

// Peek returns the entry for key without checking its deadline.
func (db *DB) Peek(key []byte) *Entry {
	e, _ := db.find(key)
	return e
}

// Get returns the live entry for key at time now, deleting it first if it has
// expired (Redis's lazy expiry), and records the access for OBJECT IDLETIME
// and FREQ.
func (db *DB) Get(key []byte, now int64) *Entry {
	e := db.GetNoTouch(key, now)
	if e != nil && !db.FreezeAccess {
		db.access().touch(e, now)
	}
	return e
}

// GetNoTouch is Get without recording an access, for commands Redis runs with
// LOOKUP_NOTOUCH (TYPE, EXISTS, TTL, OBJECT...).
func (db *DB) GetNoTouch(key []byte, now int64) *Entry {
	db.clock = now
	e, _ := db.find(key)
	if e == nil {
		return nil
	}
	if db.ExpireIfDue(e, now) {
		return nil
	}
	return e
}

// ExpireIfDue deletes e if its deadline passed at now, counting it as
// expired, and reports whether it did. For callers holding an entry from
// Scan, ForEach or Random rather than from a lookup.
func (db *DB) ExpireIfDue(e *Entry, now int64) bool {
	if e.exp == NoExpiry || now <= e.exp {
		return false
	}
	if db.NoExpire {
		return false
	}
	if db.KeepExpired {
		return true
	}
	db.remove(e)
	db.Expired++
	if db.OnExpire != nil {
		db.OnExpire(e.Key())
	}
	return true
}

// Set stores val under key, creating the key or replacing its value (a
// value that lived in the entry's slot is cleared there, so it must not be
// used after). A new
// key has no deadline; an existing key keeps its deadline only if keepTTL.
// The caller must have called Get first so an expired key is not revived.
// Either way the value counts as a new object: default string encoding and,
// unless an LFU policy is in force (Redis's dbOverwrite keeps the old
// counter then), a fresh access clock.
func (db *DB) Set(key []byte, val any, keepTTL bool) *Entry {
	e, h := db.find(key)
	if e != nil {
		if e.valInSlot() {
			// The old value goes, and what it held with it, rather than
			// staying reachable from the slot for the entry's life.
			*e.Slot() = nil
		}
		e.Val = val
		e.Enc = EncAuto
		if a := db.access(); !a.LFU {
			e.lru = a.fresh(db.clock)
		}
		if !keepTTL {
			db.Persist(e)
		}
		return e
	}
	return db.insert(bstr(key), h, val, false)
}

// SetInSlot is Set(key, nil, false) for a caller whose value is one
// pointer (a handle): when it creates the key, the entry has a slot
// (Entry.Slot) for the value to live in, saving the value an allocation
// of its own (a sorted set's 8-byte handle: 8 MB at a million rate-limit
// keys, as the key and the slot share the entry's size class). An existing
// key (expired but kept, say) keeps its entry, and its slot if it has one,
// emptied as Set empties it. The caller points Val at the slot or, without
// one, at a value of its own.
func (db *DB) SetInSlot(key []byte) *Entry {
	e, h := db.find(key)
	if e != nil {
		return db.Set(key, nil, false)
	}
	return db.insert(bstr(key), h, nil, len(key) <= maxSlotted)
}

// Add creates key, which must not exist, with val and no deadline.
// The key is copied.
func (db *DB) Add(key []byte, val any) *Entry {
	if db.rehashIdx >= 0 {
		db.rehashStep()
	}
	return db.insert(bstr(key), maphash.Bytes(db.seed, key), val, false)
}

func (db *DB) insert(key string, h uint64, val any, slot bool) *Entry {
	db.expandIfNeeded()
	db.guardSlot(h)
	var e *Entry
	if slot {
		e = newSlotted(key)
	} else {
		e = newEntry(key)
	}
	e.Val, e.lru = val, db.access().fresh(db.clock)
	t, i := db.slot(h)
	e.next = db.ht[t][i]
	db.ht[t][i] = e
	db.used[t]++
	if db.OnNew != nil {
		// The entry's own copy: key may alias a client's query buffer,
		// and OnNew's receivers keep it (the cluster's slot index).
		db.OnNew(e.Key())
	}
	return e
}

// Delete removes key if present (expired or not) and reports whether it was live at now.
func (db *DB) Delete(key []byte, now int64) bool {
	e := db.GetNoTouch(key, now)
	if e == nil {
		return false
	}
	db.remove(e)
	return true
}

// Remove deletes the entry e, which must belong to db.
func (db *DB) Remove(e *Entry) { db.remove(e) }

func (db *DB) remove(e *Entry) {
	db.unlink(e)
	if e.exp != NoExpiry {
		db.exp.Remove(e, e.indexed())
		e.exp, e.slack = NoExpiry, 0
	}
	if db.OnDelete != nil {
		db.OnDelete(e.Key())
	}
	db.shrinkIfNeeded()
}

// unlink takes e out of its chain, leaving the expiry index alone.
func (db *DB) unlink(e *Entry) {
	t, i := db.slot(db.hashOf(e))
	if db.snap != nil {
		db.snap.guard(t, i)
	}
	for p := &db.ht[t][i]; *p != nil; p = &(*p).next {
		if *p == e {
			*p = e.next
			db.used[t]--
			break
		}
	}
	e.next = nil
}

// expandIfNeeded starts doubling the table once it holds as many keys as
// buckets, as Redis's _dictExpandIfNeeded (never during a rehash). While a
// snapshot runs the table keeps its size up to forceResizeRatio keys per
// bucket; past that the snapshot is finished first.
func (db *DB) expandIfNeeded() {
	if db.rehashIdx >= 0 {
		return
	}
	n := db.used[0]
	if n < len(db.ht[0]) {
		return
	}
	if db.snap != nil {
		if n < forceResizeRatio*len(db.ht[0]) {
			return
		}
		db.snap.Finish() // its end starts the resize
		return
	}
	db.startResize(nextPow2(n + 1))
}

// shrinkIfNeeded starts shrinking a table less than 1/10 full, as Redis's
// tryResizeHashTables, to the smallest power of two that holds every key, so
// memory follows a keyspace that emptied.
func (db *DB) shrinkIfNeeded() {
	if db.rehashIdx >= 0 || db.snap != nil {
		return
	}
	size := len(db.ht[0])
	if size > minBuckets && db.used[0]*10 < size {
		db.startResize(nextPow2(db.used[0]))
	}
}

func nextPow2(n int) int {
	if n <= minBuckets {
		return minBuckets
	}
	return 1 << bits.Len(uint(n-1))
}

func (db *DB) startResize(size int) {
	if size == len(db.ht[0]) {
		return
	}
	db.ht[1] = make([]*Entry, size)
	db.used[1] = 0
	db.rehashIdx = 0
	if db.used[0] == 0 {
		db.finishRehash()
	}
}

// rehashStep moves one bucket of ht[0] into ht[1], visiting at most ten empty
// buckets to find it (Redis's dictRehash(d, 1)).
func (db *DB) rehashStep() { db.rehash(1) }

func (db *DB) rehash(n int) {
	if db.snap != nil {
		return // entries stay in their buckets until the snapshot ends
	}
	empty := n * 10
	old, nt := db.ht[0], db.ht[1]
	mask := uint64(len(nt) - 1)
	for ; n > 0 && db.used[0] > 0; n-- {
		for old[db.rehashIdx] == nil {
			db.rehashIdx++
			if empty--; empty == 0 {
				return
			}
		}
		for e := old[db.rehashIdx]; e != nil; {
			next := e.next
			i := db.hashOf(e) & mask
			e.next = nt[i]
			nt[i] = e
			db.used[0]--
			db.used[1]++
			e = next
		}
		old[db.rehashIdx] = nil
		db.rehashIdx++
	}
	if db.used[0] == 0 {
		db.finishRehash()
	}
}

func (db *DB) finishRehash() {
	if len(db.ht[1]) < len(db.ht[0]) {
		db.dropped += len(db.ht[0])
	}
	db.ht[0], db.ht[1] = db.ht[1], nil
	db.used[0], db.used[1] = db.used[1], 0
	db.rehashIdx = -1
	// Keys deleted during the rehash may leave the new table sparse too.
	db.shrinkIfNeeded()
}

// RehashFor moves up to buckets buckets of an ongoing resize, for a caller
// with idle time to spend (Redis's activerehashing). It reports whether the
// resize is still in progress. While a snapshot runs it does nothing.
func (db *DB) RehashFor(buckets int) bool {
	if db.rehashIdx < 0 {
		return false
	}
	db.rehash(buckets)
	return db.rehashIdx >= 0
}

// SetExpiry gives e the deadline at (Unix ms); NoExpiry removes it.
func (db *DB) SetExpiry(e *Entry, at int64) {
	if e.exp == at {
		return
	}
	if db.snap != nil {
		db.guardSlot(db.hashOf(e))
	}
	if e.exp != NoExpiry {
		if at > e.exp && at-e.indexed() <= math.MaxUint32 {
			e.slack = uint32(at - e.indexed())
			e.exp = at
			return
		}
		db.exp.Remove(e, e.indexed())
	}
	e.exp, e.slack = at, 0
	if at != NoExpiry {
		db.exp.Add(e, at)
	}
}

// indexed is the deadline under which the expiry index holds e, which
// reads it from e (so it changes only while e is out of the index).
func (e *Entry) indexed() int64 { return e.exp - int64(e.slack) }

// refile moves e in the expiry index to its real deadline.
func (db *DB) refile(e *Entry) {
	db.exp.Remove(e, e.indexed())
	e.slack = 0
	db.exp.Add(e, e.exp)
}

// Persist removes e's deadline and reports whether it had one.
func (db *DB) Persist(e *Entry) bool {
	if e.exp == NoExpiry {
		return false
	}
	db.SetExpiry(e, NoExpiry)
	return true
}

// MoveTo takes e out of db and stores its value under key in dst (which may
// be db itself, for RENAME), keeping the deadline, the encoding and the access
// statistics: Redis moves the value object itself. key must not exist in dst.
// OnDelete is called for e's old key.
func (db *DB) MoveTo(e *Entry, dst *DB, key []byte) *Entry {
	val, exp, enc, lru := e.Val, e.exp, e.Enc, e.lru
	db.remove(e)
	ne := dst.Add(key, val)
	ne.Enc, ne.lru = enc, lru
	dst.SetExpiry(ne, exp)
	return ne
}

// Flush deletes every key. A snapshot in progress keeps the old tables to
// itself and goes on walking them.
func (db *DB) Flush() {
	if db.OnDelete != nil {
		db.ForEach(func(e *Entry) bool { db.OnDelete(e.Key()); return true })
	}
	if db.snap != nil {
		db.snap.detach()
	}
	db.ht = [2][]*Entry{make([]*Entry, minBuckets)}
	db.used = [2]int{}
	db.rehashIdx = -1
	db.exp.Clear()
}

// ForEach calls fn for every entry, expired or not, until fn returns false.
// fn must not add or remove keys.
func (db *DB) ForEach(fn func(e *Entry) bool) {
	for t := range db.ht {
		for _, e := range db.ht[t] {
			for ; e != nil; e = e.next {
				if !fn(e) {
					return
				}
			}
		}
	}
}

// Scan visits the bucket at cursor and returns the next cursor (0 when the
// scan is complete); fn must not add or remove keys. The reverse-binary
// increment is Redis's dictScan: a key present from the first call to the
// last is visited at least once even when the table grows or shrinks in
// between, or is being rehashed during the scan. During a rehash the cursor
// is read against the smaller table and the call also visits every bucket of
// the larger table that the smaller bucket expands to.
func (db *DB) Scan(cursor uint64, fn func(e *Entry)) uint64 {
	v := cursor
	if db.rehashIdx < 0 {
		t0 := db.ht[0]
		m0 := uint64(len(t0) - 1)
		for e := t0[v&m0]; e != nil; e = e.next {
			fn(e)
		}
		v |= ^m0
		return bits.Reverse64(bits.Reverse64(v) + 1)
	}
	t0, t1 := db.ht[0], db.ht[1]
	if len(t0) > len(t1) {
		t0, t1 = t1, t0
	}
	m0, m1 := uint64(len(t0)-1), uint64(len(t1)-1)
	for e := t0[v&m0]; e != nil; e = e.next {
		fn(e)
	}
	for {
		for e := t1[v&m1]; e != nil; e = e.next {
			fn(e)
		}
		v |= ^m1
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

// Random returns a random entry, expired or not, or nil when empty. As in
// Redis's dictGetRandomKey, the pick is uniform over non-empty buckets, then
// over the chain.
func (db *DB) Random() *Entry {
	if db.Len() == 0 {
		return nil
	}
	var e *Entry
	if db.rehashIdx >= 0 {
		db.rehashStep()
	}
	if db.rehashIdx >= 0 {
		// Buckets of ht[0] below rehashIdx are empty: draw from the rest of
		// ht[0] and all of ht[1] as one range.
		s0 := uint64(len(db.ht[0]))
		span := s0 + uint64(len(db.ht[1])) - uint64(db.rehashIdx)
		for e == nil {
			h := uint64(db.rehashIdx) + rand.Uint64N(span)
			if h >= s0 {
				e = db.ht[1][h-s0]
			} else {
				e = db.ht[0][h]
			}
		}
	} else {
		mask := uint64(len(db.ht[0]) - 1)
		for e == nil {
			e = db.ht[0][rand.Uint64()&mask]
		}
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

// ExpireDue deletes at most max keys whose deadline passed at now, oldest
// first, and returns how many it visited. scratch is reused between calls.
func (db *DB) ExpireDue(now int64, max int, scratch []*Entry) (int, []*Entry) {
	scratch = db.exp.Due(now, max, scratch[:0])
	for _, e := range scratch {
		if e.slack != 0 && now <= e.exp {
			db.refile(e) // its deadline moved later: not due after all
			continue
		}
		db.remove(e)
		db.Expired++
		if db.OnExpire != nil {
			db.OnExpire(e.Key())
		}
	}
	n := len(scratch)
	clear(scratch) // keep no deleted entries alive
	return n, scratch
}

// NextDeadline reports the earliest deadline in db.
func (db *DB) NextDeadline() (int64, bool) { return db.exp.Next() }

// bstr views b as a string without copying, for lookups and for keys that
// newEntry copies anyway.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
