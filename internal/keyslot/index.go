package keyslot

// Index keeps the keys of a database by hash slot, as Redis 7.0's
// slot_to_keys does in cluster mode: CLUSTER COUNTKEYSINSLOT and
// GETKEYSINSLOT read it, and resharding (redis-cli --cluster reshard asks
// for a slot's keys batch after batch) needs both without a walk of the
// whole keyspace for every batch.
//
// The counts are always kept: a CRC16 per key created or deleted. The
// per-slot key lists cost a map entry and a node per key, which a rate
// limiter creating a key for every new user pays on every check (a
// quarter of the server's CPU at P16, most of it the collector's), so they
// are built only when first asked for, from a walk of the keyspace, and
// kept while they are asked for: the owner drops them (Release) once
// nobody has for a while (TakeUsed), a resharding done. A slot lists its keys newest first once built, the
// order in which Redis's list (new keys go to its head) hands them out;
// the keys found by the walk come in the walk's order reversed (the hash
// table's, so GETKEYSINSLOT may list a slot's older keys in another order
// than Redis).
type Index struct {
	count [Slots]int
	// walk, set by NewIndex, calls fn for every key of the database, to
	// build the lists.
	walk  func(fn func(key string))
	lists *lists // nil until Keys first needs them
	used  bool   // Keys ran since the last TakeUsed
}

type lists struct {
	head  [Slots]*node
	nodes map[string]*node
}

type node struct {
	key        string
	prev, next *node
}

// NewIndex returns an empty index; walk enumerates the database's keys
// when the lists are first needed.
func NewIndex(walk func(fn func(key string))) *Index { return &Index{walk: walk} }

// Add records key, which must not be in the index yet. Once the lists are
// built the index keeps key as given: it must not alias memory that is
// reused while the key is indexed (the keyspace hands over its entry's own
// key; an alias of a client's query buffer once turned into another key, of
// another slot).
func (x *Index) Add(key string) {
	s := Slot([]byte(key))
	x.count[s]++
	if x.lists != nil {
		x.lists.add(key, s)
	}
}

func (l *lists) add(key string, s uint16) {
	n := &node{key: key, next: l.head[s]}
	if n.next != nil {
		n.next.prev = n
	}
	l.head[s] = n
	l.nodes[key] = n
}

// Remove forgets key, which must be in the index.
func (x *Index) Remove(key string) {
	s := Slot([]byte(key))
	if x.count[s] > 0 {
		x.count[s]--
	}
	if x.lists == nil {
		return
	}
	l := x.lists
	n, ok := l.nodes[key]
	if !ok {
		return
	}
	delete(l.nodes, key)
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		l.head[s] = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	}
}

// Reset empties the index (the database was flushed or replaced).
func (x *Index) Reset() {
	x.count = [Slots]int{}
	x.lists = nil
}

// Count is how many keys slot holds.
func (x *Index) Count(slot int) int { return x.count[slot] }

// Keys appends up to max keys of slot to dst.
func (x *Index) Keys(dst []string, slot, max int) []string {
	if max <= 0 || x.count[slot] == 0 {
		return dst
	}
	if x.lists == nil {
		x.build()
	}
	x.used = true
	for n := x.lists.head[slot]; n != nil && max > 0; n = n.next {
		dst = append(dst, n.key)
		max--
	}
	return dst
}

// build makes the lists from a walk of the database.
func (x *Index) build() {
	l := &lists{nodes: make(map[string]*node)}
	if x.walk != nil {
		x.walk(func(key string) { l.add(key, Slot([]byte(key))) })
	}
	x.lists = l
}

// Built reports whether the per-slot lists are kept.
func (x *Index) Built() bool { return x.lists != nil }

// TakeUsed reports whether Keys listed keys since the last TakeUsed.
func (x *Index) TakeUsed() bool {
	used := x.used
	x.used = false
	return used
}

// Release drops the per-slot lists (the counts stay): the next Keys
// builds them again from a walk.
func (x *Index) Release() { x.lists = nil }
