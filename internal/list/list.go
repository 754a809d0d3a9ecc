// Package list is limitkv's list value, after Redis 7.0's quicklist: a
// doubly linked sequence of nodes, each a compact byte buffer of entries
// (encoding.go) bounded by list-max-listpack-size. Pushes and pops at
// either end touch one node; an index walks the nodes from the nearer end
// and then one node's entries, so LINDEX, LSET and LINSERT cost
// O(nodes + node size) as in Redis.
//
// Nodes are not compressed (list-compress-depth is accepted by the
// configuration but has no effect).
//
// Values passed to callbacks alias the list's buffers or a scratch buffer:
// they are valid only during the callback.
package list

import (
	"math"
	"unsafe"
)

// Fill is the node size limit, as list-max-listpack-size: a positive value
// is a number of entries, -1..-5 a size of 4, 8, 16, 32 or 64 KB.
type Fill int64

// DefaultFill is Redis's default, 8 KB nodes.
const DefaultFill Fill = -2

// sizeSafetyLimit bounds a node with an entry-count fill, as Redis's
// SIZE_SAFETY_LIMIT, so a large count does not make huge nodes.
const sizeSafetyLimit = 8192

// maxCountFill is the largest entry count a node takes (Redis's FILL_MAX).
const maxCountFill = 1<<15 - 1

func (f Fill) maxBytes() int {
	switch {
	case f > 0:
		return sizeSafetyLimit
	case f >= -5:
		return 4096 << (-f - 1)
	}
	return 64 << 10
}

func (f Fill) maxCount() int {
	if f > 0 {
		return int(min(f, maxCountFill))
	}
	return math.MaxInt32
}

type node struct {
	prev, next *node
	buf        []byte
	n          int // entries
}

// List is a list of byte strings. The zero value is not usable: call New.
type List struct {
	head, tail *node
	length     int
	nodes      int
	bytes      int // sum of the nodes' capacities, for MemoryUsage
	fill       Fill
}

// New returns an empty list whose nodes follow fill.
func New(fill Fill) *List {
	if fill == 0 {
		fill = 1 // Redis treats 0 as one entry per node
	}
	return &List{fill: fill}
}

// Len is the number of elements.
func (l *List) Len() int { return l.length }

// allows reports whether n can take one more entry of size sz.
func (l *List) allows(n *node, sz int) bool {
	if n == nil {
		return false
	}
	if n.n >= l.fill.maxCount() {
		return false
	}
	// A node always takes its first entry, however large; after that the
	// byte limit decides (a single large element lives alone).
	return len(n.buf)+sz <= l.fill.maxBytes()
}

func (l *List) newNode(capacity int) *node {
	n := &node{buf: make([]byte, 0, capacity)}
	l.nodes++
	l.bytes += cap(n.buf)
	return n
}

// seal trims a node that the list moved past to its size: appends grew
// its buffer by doubling, and a full node is not written again at that end.
func (l *List) seal(n *node) {
	if n == nil || cap(n.buf)-len(n.buf) <= len(n.buf)/16 {
		return
	}
	l.bytes -= cap(n.buf)
	n.buf = append(make([]byte, 0, len(n.buf)), n.buf...)
	l.bytes += cap(n.buf)
}

// grow makes n's buffer hold extra more bytes, keeping the byte count.
func (l *List) grow(n *node, extra int) {
	if cap(n.buf)-len(n.buf) >= extra {
		return
	}
	need := len(n.buf) + extra
	c := max(need, 2*cap(n.buf))
	if lim := l.fill.maxBytes(); c > lim && need <= lim {
		c = lim
	}
	if c < 32 {
		c = 32
	}
	l.bytes -= cap(n.buf)
	nb := make([]byte, len(n.buf), c)
	copy(nb, n.buf)
	n.buf = nb
	l.bytes += cap(n.buf)
}

func (l *List) linkFront(n *node) {
	n.next = l.head
	if l.head != nil {
		l.head.prev = n
	} else {
		l.tail = n
	}
	l.head = n
}

func (l *List) linkBack(n *node) {
	n.prev = l.tail
	if l.tail != nil {
		l.tail.next = n
	} else {
		l.head = n
	}
	l.tail = n
}

func (l *List) unlink(n *node) {
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		l.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		l.tail = n.prev
	}
	l.nodes--
	l.bytes -= cap(n.buf)
	n.prev, n.next, n.buf = nil, nil, nil
}

// PushFront inserts v at the head. v is copied.
func (l *List) PushFront(v []byte) {
	sz := entrySize(v)
	n := l.head
	if !l.allows(n, sz) {
		l.seal(n)
		n = l.newNode(0)
		l.linkFront(n)
	}
	l.insertAt(n, 0, v, sz)
}

// PushBack inserts v at the tail. v is copied.
func (l *List) PushBack(v []byte) {
	sz := entrySize(v)
	n := l.tail
	if !l.allows(n, sz) {
		l.seal(n)
		n = l.newNode(0)
		l.linkBack(n)
	}
	l.insertAt(n, len(n.buf), v, sz)
}

// insertAt writes v's entry (of size sz) at byte offset off of n.
func (l *List) insertAt(n *node, off int, v []byte, sz int) {
	l.grow(n, sz)
	old := len(n.buf)
	if off == old {
		n.buf = appendEntry(n.buf, v)
	} else {
		n.buf = n.buf[:old+sz]
		copy(n.buf[off+sz:], n.buf[off:old])
		// Encode into place: appendEntry writes to a slice ending at off.
		appendEntry(n.buf[off:off], v)
	}
	n.n++
	l.length++
}

// PopFront removes the head element and passes it to fn (if not nil); it
// reports false on an empty list.
func (l *List) PopFront(fn func(v []byte)) bool {
	n := l.head
	if n == nil {
		return false
	}
	d, _ := decodeAt(n.buf, 0)
	if fn != nil {
		var scratch [20]byte
		fn(d.value(scratch[:]))
	}
	l.deleteIn(n, 0, d.size, 1)
	return true
}

// PopBack removes the tail element and passes it to fn (if not nil); it
// reports false on an empty list.
func (l *List) PopBack(fn func(v []byte)) bool {
	n := l.tail
	if n == nil {
		return false
	}
	off := prevStart(n.buf, len(n.buf))
	d, _ := decodeAt(n.buf, off)
	if fn != nil {
		var scratch [20]byte
		fn(d.value(scratch[:]))
	}
	l.deleteIn(n, off, d.size, 1)
	return true
}

// deleteIn removes size bytes holding count entries at off of n, dropping
// the node if it empties.
func (l *List) deleteIn(n *node, off, size, count int) {
	n.n -= count
	l.length -= count
	if n.n == 0 {
		l.unlink(n)
		return
	}
	copy(n.buf[off:], n.buf[off+size:])
	n.buf = n.buf[:len(n.buf)-size]
	// A node that shrank to a small part of its buffer gives the rest back.
	if cap(n.buf) > 256 && len(n.buf) < cap(n.buf)/4 {
		l.bytes -= cap(n.buf)
		n.buf = append(make([]byte, 0, len(n.buf)*2), n.buf...)
		l.bytes += cap(n.buf)
	}
}

// locate finds element i (0 <= i < Len): its node, its byte offset and
// the node's entry index.
func (l *List) locate(i int) (*node, int) {
	var n *node
	var k int // index within n
	if i < l.length/2 {
		n = l.head
		for i >= n.n {
			i -= n.n
			n = n.next
		}
		k = i
	} else {
		j := l.length - 1 - i // from the tail
		n = l.tail
		for j >= n.n {
			j -= n.n
			n = n.prev
		}
		k = n.n - 1 - j
	}
	// Scan the node from its nearer end.
	if k <= n.n/2 {
		off := 0
		for ; k > 0; k-- {
			d, _ := decodeAt(n.buf, off)
			off += d.size
		}
		return n, off
	}
	off := len(n.buf)
	for j := n.n - k; j > 0; j-- {
		off = prevStart(n.buf, off)
	}
	return n, off
}

// norm turns a Redis index (negative from the end) into 0..Len-1.
func (l *List) norm(i int64) (int, bool) {
	if i < 0 {
		i += int64(l.length)
	}
	if i < 0 || i >= int64(l.length) {
		return 0, false
	}
	return int(i), true
}

// Index passes element i (negative: from the tail) to fn and reports
// whether it exists.
func (l *List) Index(i int64, fn func(v []byte)) bool {
	idx, ok := l.norm(i)
	if !ok {
		return false
	}
	n, off := l.locate(idx)
	d, _ := decodeAt(n.buf, off)
	var scratch [20]byte
	fn(d.value(scratch[:]))
	return true
}

// Set replaces element i (negative: from the tail) with v; it reports
// false if there is no such element.
func (l *List) Set(i int64, v []byte) bool {
	idx, ok := l.norm(i)
	if !ok {
		return false
	}
	n, off := l.locate(idx)
	d, _ := decodeAt(n.buf, off)
	l.replaceAt(n, off, d.size, v)
	return true
}

// replaceAt puts v in place of the entry of size old at off of n. If the
// node would outgrow its limit the entry moves to a node of its own
// (split at the point), as quicklistReplaceEntry does.
func (l *List) replaceAt(n *node, off, old int, v []byte) {
	sz := entrySize(v)
	if len(n.buf)-old+sz <= l.fill.maxBytes() || n.n == 1 {
		if sz != old {
			l.grow(n, sz-old)
			end := len(n.buf)
			n.buf = n.buf[:end+sz-old]
			copy(n.buf[off+sz:], n.buf[off+old:end])
		}
		appendEntry(n.buf[off:off], v)
		return
	}
	// Delete then insert where it was, letting insert split.
	l.deleteIn(n, off, old, 1)
	l.insertNear(n, off, v)
}

// insertNear inserts v at byte offset off of n (n still linked), splitting
// n when it is full.
func (l *List) insertNear(n *node, off int, v []byte) {
	sz := entrySize(v)
	if l.allows(n, sz) {
		l.insertAt(n, off, v, sz)
		return
	}
	// At an end of a full node, use the neighbour or a new node there.
	if off == 0 {
		if p := n.prev; p != nil && l.allows(p, sz) {
			l.insertAt(p, len(p.buf), v, sz)
			return
		}
		nn := l.newNode(0)
		l.linkBefore(n, nn)
		l.insertAt(nn, 0, v, sz)
		return
	}
	if off == len(n.buf) {
		if q := n.next; q != nil && l.allows(q, sz) {
			l.insertAt(q, 0, v, sz)
			return
		}
		nn := l.newNode(0)
		l.linkAfter(n, nn)
		l.insertAt(nn, 0, v, sz)
		return
	}
	// In the middle: split n at off; the tail half moves to a new node,
	// and the element goes to whichever half takes it.
	tail := l.newNode(len(n.buf) - off)
	tail.buf = append(tail.buf, n.buf[off:]...)
	cnt := 0
	for p := 0; p < len(tail.buf); cnt++ {
		d, _ := decodeAt(tail.buf, p)
		p += d.size
	}
	tail.n = cnt
	n.n -= cnt
	n.buf = n.buf[:off]
	l.seal(n)
	l.linkAfter(n, tail)
	if l.allows(n, sz) {
		l.insertAt(n, len(n.buf), v, sz)
	} else if l.allows(tail, sz) {
		l.insertAt(tail, 0, v, sz)
	} else {
		nn := l.newNode(0)
		l.linkAfter(n, nn)
		l.insertAt(nn, 0, v, sz)
	}
}

func (l *List) linkAfter(at, n *node) {
	n.prev, n.next = at, at.next
	if at.next != nil {
		at.next.prev = n
	} else {
		l.tail = n
	}
	at.next = n
}

func (l *List) linkBefore(at, n *node) {
	n.next, n.prev = at, at.prev
	if at.prev != nil {
		at.prev.next = n
	} else {
		l.head = n
	}
	at.prev = n
}

// Insert puts v before (or after) the first element equal to pivot,
// searching from the head, as LINSERT; it reports whether pivot was found.
func (l *List) Insert(pivot, v []byte, after bool) bool {
	for n := l.head; n != nil; n = n.next {
		for off := 0; off < len(n.buf); {
			d, _ := decodeAt(n.buf, off)
			if d.equal(pivot) {
				at := off
				if after {
					at += d.size
				}
				l.insertNear(n, at, v)
				return true
			}
			off += d.size
		}
	}
	return false
}

// Each calls fn for the elements from index start (0 <= start < Len)
// towards the tail (or the head when reverse), with each one's index,
// until fn returns false.
func (l *List) Each(start int, reverse bool, fn func(i int, v []byte) bool) {
	if start < 0 || start >= l.length {
		return
	}
	n, off := l.locate(start)
	var scratch [20]byte
	i := start
	if !reverse {
		for n != nil {
			for off < len(n.buf) {
				d, _ := decodeAt(n.buf, off)
				if !fn(i, d.value(scratch[:])) {
					return
				}
				off += d.size
				i++
			}
			n = n.next
			off = 0
		}
		return
	}
	for n != nil {
		for {
			d, _ := decodeAt(n.buf, off)
			if !fn(i, d.value(scratch[:])) {
				return
			}
			i--
			if off == 0 {
				break
			}
			off = prevStart(n.buf, off)
		}
		n = n.prev
		if n != nil {
			off = prevStart(n.buf, len(n.buf))
		}
	}
}

// DeleteRange removes count elements from index start (0 <= start,
// start+count <= Len), as quicklistDelRange.
func (l *List) DeleteRange(start, count int) {
	if count <= 0 {
		return
	}
	if start == 0 && count == l.length {
		*l = List{fill: l.fill}
		return
	}
	n, off := l.locate(start)
	for count > 0 {
		// Whole node from its start: unlink it.
		if off == 0 && count >= n.n {
			next := n.next
			count -= n.n
			l.length -= n.n
			l.unlink(n)
			n = next
			continue
		}
		end, k := off, 0
		for end < len(n.buf) && k < count {
			d, _ := decodeAt(n.buf, end)
			end += d.size
			k++
		}
		next := n.next
		l.deleteIn(n, off, end-off, k)
		count -= k
		n, off = next, 0
	}
}

// Remove deletes up to count elements equal to v (0: all), from the head,
// or from the tail when fromTail; it returns how many it removed (LREM).
func (l *List) Remove(v []byte, count int, fromTail bool) int {
	removed := 0
	if !fromTail {
		for n := l.head; n != nil; {
			next := n.next
			for off := 0; off < len(n.buf); {
				d, _ := decodeAt(n.buf, off)
				if d.equal(v) {
					last := n.n == 1
					l.deleteIn(n, off, d.size, 1)
					removed++
					if count > 0 && removed == count {
						return removed
					}
					if last {
						break
					}
					continue
				}
				off += d.size
			}
			n = next
		}
		return removed
	}
	for n := l.tail; n != nil; {
		prev := n.prev
		for end := len(n.buf); end > 0; {
			off := prevStart(n.buf, end)
			d, _ := decodeAt(n.buf, off)
			if d.equal(v) {
				last := n.n == 1
				l.deleteIn(n, off, d.size, 1)
				removed++
				if count > 0 && removed == count {
					return removed
				}
				if last {
					break
				}
			}
			end = off
		}
		n = prev
	}
	return removed
}

// Clone returns an independent copy (COPY).
func (l *List) Clone() *List {
	c := New(l.fill)
	for n := l.head; n != nil; n = n.next {
		nn := c.newNode(len(n.buf))
		nn.buf = append(nn.buf, n.buf...)
		nn.n = n.n
		c.linkBack(nn)
	}
	c.length = l.length
	return c
}

const (
	listSize = int(unsafe.Sizeof(List{}))
	nodeSize = int(unsafe.Sizeof(node{}))
)

// MemoryUsage estimates the heap bytes the list holds. Calibrated with
// TestMemoryPerElement.
func (l *List) MemoryUsage() int {
	return listSize + l.nodes*nodeSize + l.bytes
}

// Nodes is the number of nodes (for tests and DEBUG-style introspection).
func (l *List) Nodes() int { return l.nodes }
