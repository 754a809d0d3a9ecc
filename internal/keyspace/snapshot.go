package keyspace

// A point-in-time walk of a DB for a background save, without fork.
//
// Go cannot fork, so the copy-on-write a forked Redis child gets from the
// kernel is done per bucket, as Dragonfly does: while a snapshot runs, the
// table does not resize (Redis's child has the same rule for its own
// reasons), so every key stays in the bucket it was in when the snapshot
// began. The walk hands the snapshot's owner each bucket's chain in table
// order, a bounded number of buckets per call, so the lock is taken and
// released many times. Any operation that reaches a bucket the walk has not
// visited (a lookup, an insert, a removal, a deadline change) first hands
// over that bucket's current contents and marks it done, so by the time a
// command may change a key or its value, the key as it was at the start has
// already been saved, and keys created later are never saved. Lookups count
// as writes here: entries a lookup returns are changed in place by
// commands, and a read guarded too costs only the early save of a bucket
// that would have been saved anyway.
//
// The cost is one bit per bucket (the done set) and, when no snapshot runs,
// one nil check per operation; Entry does not grow.

// forceResizeRatio is how full (keys per bucket) the table may grow while
// a snapshot holds its size: past it the snapshot finishes at once, under
// the caller's lock, and the table resizes (Redis's dict_force_resize_ratio).
const forceResizeRatio = 5

// Snapshot is a walk in progress over one DB's keys as they were when
// BeginSnapshot was called. It is driven under the same serialisation as
// the DB (the executor lock).
type Snapshot struct {
	db    *DB // nil once ended, aborted or detached by Flush
	tabs  [2][]*Entry
	pos   int // buckets before pos (ht[0]'s, then ht[1]'s) are walked
	total int
	done  []uint64 // buckets at or after pos already saved by a guard
	save  func(*Entry)
	ended bool
}

// BeginSnapshot starts a snapshot of db; save is called once for every
// key present now (expired keys not yet reclaimed included), with the key
// and value as they are now, never for a key added later. It is called
// from Walk and from db's own operations, always with the DB's lock held,
// and must not change the DB. Only one snapshot of a DB may run at a time.
func (db *DB) BeginSnapshot(save func(*Entry)) *Snapshot {
	if db.snap != nil {
		panic("keyspace: a snapshot is already running")
	}
	s := &Snapshot{db: db, tabs: db.ht, save: save}
	s.total = len(s.tabs[0]) + len(s.tabs[1])
	if db.rehashIdx >= 0 {
		s.pos = db.rehashIdx // the buckets before it are empty
	}
	s.done = make([]uint64, (s.total+63)/64)
	db.snap = s
	return s
}

// Snapshotting reports whether a snapshot of db is running (resizes wait).
func (db *DB) Snapshotting() bool { return db.snap != nil }

// Walk saves the next buckets buckets the walk has not reached (fewer at
// the end) and reports whether the snapshot is complete. It returns the
// number of keys saved by this call.
func (s *Snapshot) Walk(buckets int) (keys int, complete bool) {
	for ; buckets > 0 && s.pos < s.total; buckets-- {
		id := s.pos
		s.pos++
		if s.done[id>>6]&(1<<(id&63)) != 0 {
			continue
		}
		keys += s.saveChain(s.chain(id))
	}
	if s.pos == s.total {
		s.end()
	}
	return keys, s.ended
}

// Finish saves everything the walk has not reached yet.
func (s *Snapshot) Finish() {
	for !s.ended {
		s.Walk(1 << 16)
	}
}

// Complete reports whether every key has been saved.
func (s *Snapshot) Complete() bool { return s.ended }

// Abort stops the snapshot: nothing more is saved, and the DB may resize
// again.
func (s *Snapshot) Abort() {
	s.pos = s.total
	s.end()
}

func (s *Snapshot) chain(id int) *Entry {
	if id < len(s.tabs[0]) {
		return s.tabs[0][id]
	}
	return s.tabs[1][id-len(s.tabs[0])]
}

func (s *Snapshot) saveChain(e *Entry) int {
	n := 0
	for ; e != nil; e = e.next {
		s.save(e)
		n++
	}
	return n
}

func (s *Snapshot) end() {
	if s.ended {
		return
	}
	s.ended = true
	s.done = nil
	s.tabs = [2][]*Entry{}
	db := s.db
	s.db = nil
	if db == nil {
		return
	}
	db.snap = nil
	// What the snapshot held back: a resize the table is due.
	if db.rehashIdx < 0 {
		db.expandIfNeeded()
		db.shrinkIfNeeded()
	}
}

// guard saves bucket i of table t before anything reaches it, unless the
// walk has done so already.
func (s *Snapshot) guard(t int, i uint64) {
	id := int(i)
	if t == 1 {
		id += len(s.tabs[0])
	}
	if id < s.pos || s.done[id>>6]&(1<<(id&63)) != 0 {
		return
	}
	s.done[id>>6] |= 1 << (id & 63)
	s.saveChain(s.chain(id))
}

// guardSlot guards the bucket that holds (or would hold) hash h.
func (db *DB) guardSlot(h uint64) {
	if db.snap != nil {
		t, i := db.slot(h)
		db.snap.guard(t, i)
	}
}

// detach is Flush's part: the DB drops its tables, which from now on only
// the snapshot reads, so the walk goes on over them while the DB starts
// afresh, untouched by the snapshot.
func (s *Snapshot) detach() {
	if s.db != nil {
		s.db.snap = nil
		s.db = nil
	}
}
