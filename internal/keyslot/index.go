package keyslot

// Index keeps the keys of a database by hash slot, as Redis 7.0's
// slot_to_keys does in cluster mode: CLUSTER COUNTKEYSINSLOT and
// GETKEYSINSLOT read it, and resharding (redis-cli --cluster reshard asks
// for a slot's keys batch after batch) needs both without a walk of the
// whole keyspace. A slot lists its keys newest first, the order in which
// Redis's list (new keys go to its head) hands them out.
//
// A key costs a map entry and a list node; the index exists only on nodes
// in cluster mode.
type Index struct {
	count [Slots]int
	head  [Slots]*node
	nodes map[string]*node
}

type node struct {
	key        string
	prev, next *node
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{nodes: make(map[string]*node)} }

// Add records key, which must not be in the index yet. The index keeps
// key as given: it must not alias memory that is reused while the key is
// indexed (the keyspace hands over its entry's own key; an alias of a
// client's query buffer once turned into another key, of another slot).
func (x *Index) Add(key string) {
	s := Slot([]byte(key))
	n := &node{key: key, next: x.head[s]}
	if n.next != nil {
		n.next.prev = n
	}
	x.head[s] = n
	x.nodes[key] = n
	x.count[s]++
}

// Remove forgets key; a key not in the index is ignored.
func (x *Index) Remove(key string) {
	n, ok := x.nodes[key]
	if !ok {
		return
	}
	delete(x.nodes, key)
	s := Slot([]byte(key))
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		x.head[s] = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	}
	x.count[s]--
}

// Count is how many keys slot holds.
func (x *Index) Count(slot int) int { return x.count[slot] }

// Keys appends up to max keys of slot to dst, newest first.
func (x *Index) Keys(dst []string, slot, max int) []string {
	for n := x.head[slot]; n != nil && max > 0; n = n.next {
		dst = append(dst, n.key)
		max--
	}
	return dst
}

// Len is how many keys the index holds.
func (x *Index) Len() int { return len(x.nodes) }
