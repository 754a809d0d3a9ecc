// Package expiry keeps keys ordered by deadline so the active expiry cycle
// finds due keys without scanning the keyspace (the tidwall/buntdb approach),
// while lookups still check the deadline lazily on access.
//
// Deadlines are Unix milliseconds. A key is due once now > deadline, which is
// Redis's rule (a key whose deadline equals now is still alive).
//
// The index is a sorted sequence of records cut into chunks of at most
// chunkMax, a two-level B+tree of sorts. It was a google/btree until the
// memory workload showed its cost: deadlines are nearly always "now plus a
// TTL", so almost every insert lands at the end, and a B-tree that splits
// full nodes in the middle leaves every node it passes half empty. Here an
// insert at the end of a full last chunk opens a new chunk instead, so
// append-mostly loads leave chunks full. An item is only the record's
// pointer: the deadline it is filed under is read from the record (the
// at function New takes, which must not change while the record is filed),
// so a key costs about 8 bytes here, where a (deadline, pointer) pair took
// 16. Each chunk keeps its last item's deadline, so finding the chunk reads
// no record; inside a chunk, the binary search reads about log2(chunkMax)
// records, except for the two common cases, which read one: an insert
// after everything (a new deadline) and a removal of a chunk's first item
// (the expiry cycle). Removing due items from the front reslices the first
// chunk, without moving the rest.
//
// Costs, n items, c = n/chunkMax chunks: Add and Remove O(log n) to find the
// place plus a move of at most chunkMax items, and O(c) pointer moves when a
// chunk is created or dropped (a few microseconds at ten million keys, once
// per chunkMax/2 middle inserts at worst); Due O(k); Next O(1).
package expiry

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"unsafe"
)

// chunkMax is the most items a chunk holds: 4 KiB of pointers with the
// allocator's 8-byte header (which objects over 512 bytes that hold
// pointers carry), so moving one inside a chunk is cheap, the chunk list
// stays short, and a chunk fills the 4096-byte size class (512 pointers
// took the 4864-byte class: 18% of the index's memory).
const chunkMax = 511

// item is a probe or a filed record with the deadline it is filed under.
type item[T any] struct {
	at int64
	v  *T
}

// compare orders by deadline, then by address: records do not move in
// memory (Go's collector does not relocate heap objects), so the address is
// a stable, unique tie-break that needs no access to the record.
func compare[T any](a, b item[T]) int {
	if c := cmp.Compare(a.at, b.at); c != 0 {
		return c
	}
	return cmp.Compare(uintptr(unsafe.Pointer(a.v)), uintptr(unsafe.Pointer(b.v)))
}

// chunk is a run of records in order, never empty, with the deadline of
// the last one.
type chunk[T any] struct {
	v    []*T
	last int64
}

func (c *chunk[T]) lastItem() item[T] { return item[T]{c.last, c.v[len(c.v)-1]} }

// Index is a deadline-ordered set of records. Not safe for concurrent use:
// the executor owns it.
type Index[T any] struct {
	chunks []chunk[T] // in order, none empty
	n      int
	at     func(*T) int64
}

// New returns an empty index. at reports the deadline a record is filed
// under, the one given to Add: its owner must not change it until Remove.
func New[T any](at func(*T) int64) *Index[T] { return &Index[T]{at: at} }

// Len is the number of records with a deadline.
func (x *Index[T]) Len() int { return x.n }

// Clear empties the index.
func (x *Index[T]) Clear() { x.chunks, x.n = nil, 0 }

func (x *Index[T]) item(v *T) item[T] { return item[T]{x.at(v), v} }

// chunkFor is the index of the chunk it belongs in: the first whose last
// item is not before it, or the last chunk.
func (x *Index[T]) chunkFor(it item[T]) int {
	i, _ := slices.BinarySearchFunc(x.chunks, it, func(c chunk[T], it item[T]) int {
		return compare(c.lastItem(), it)
	})
	return min(i, len(x.chunks)-1)
}

// search is the position of it in c, and whether it is there.
func (x *Index[T]) search(c []*T, it item[T]) (int, bool) {
	return slices.BinarySearchFunc(c, it, func(v *T, it item[T]) int {
		return compare(x.item(v), it)
	})
}

// Add records v with deadline at, which x.at(v) must report from now on.
// v must not be recorded already.
func (x *Index[T]) Add(v *T, at int64) {
	it := item[T]{at, v}
	x.n++
	if len(x.chunks) == 0 {
		x.chunks = append(x.chunks, newChunk(it))
		return
	}
	ci := x.chunkFor(it)
	c := &x.chunks[ci]
	var pos int
	if compare(c.lastItem(), it) < 0 {
		pos = len(c.v) // after everything: only possible in the last chunk
	} else {
		pos, _ = x.search(c.v, it)
	}
	if len(c.v) == chunkMax {
		if ci == len(x.chunks)-1 && pos == len(c.v) {
			// The common case, a deadline later than all: start a new
			// chunk and leave this one full.
			x.chunks = append(x.chunks, newChunk(it))
			return
		}
		// Split, at the insertion point in the last chunk (later items
		// usually keep arriving there) and in the middle elsewhere.
		at := len(c.v) / 2
		if ci == len(x.chunks)-1 && pos > at {
			at = pos
		}
		right := chunk[T]{v: make([]*T, len(c.v)-at, chunkMax), last: c.last}
		copy(right.v, c.v[at:])
		clear(c.v[at:])
		c.v = c.v[:at]
		c.last = x.at(c.v[at-1])
		x.chunks = slices.Insert(x.chunks, ci+1, right)
		c = &x.chunks[ci]
		if pos > at {
			c, pos = &x.chunks[ci+1], pos-at
		} // pos == at: the end of the left part, which now has room
	}
	if len(c.v) == cap(c.v) {
		// The front was resliced away by removals: move the items back
		// to a chunk of full capacity.
		nc := make([]*T, len(c.v), chunkMax)
		copy(nc, c.v)
		c.v = nc
	}
	if pos == len(c.v) {
		c.last = at
	}
	c.v = slices.Insert(c.v, pos, v)
}

func newChunk[T any](it item[T]) chunk[T] {
	c := make([]*T, 1, chunkMax)
	c[0] = it.v
	return chunk[T]{v: c, last: it.at}
}

// Remove forgets v, recorded with deadline at; it reports whether it was
// there.
func (x *Index[T]) Remove(v *T, at int64) bool {
	if len(x.chunks) == 0 {
		return false
	}
	it := item[T]{at, v}
	ci := x.chunkFor(it)
	c := &x.chunks[ci]
	var pos int
	if c.v[0] == v {
		if x.at(v) != at {
			return false
		}
	} else {
		var found bool
		if pos, found = x.search(c.v, it); !found {
			return false
		}
	}
	x.n--
	switch {
	case len(c.v) == 1:
		x.chunks = slices.Delete(x.chunks, ci, ci+1)
		return true
	case pos == 0:
		c.v[0] = nil
		c.v = c.v[1:] // no move: due items go from the front, one by one
	default:
		c.v = slices.Delete(c.v, pos, pos+1)
		if pos == len(c.v) {
			c.last = x.at(c.v[pos-1])
		}
	}
	// Merge a chunk that random removals have thinned out into its
	// neighbour, so that fill stays above a quarter.
	if len(c.v) < chunkMax/4 && ci+1 < len(x.chunks) && len(c.v)+len(x.chunks[ci+1].v) <= chunkMax/2 {
		next := &x.chunks[ci+1]
		m := make([]*T, 0, chunkMax)
		m = append(append(m, c.v...), next.v...)
		c.v, c.last = m, next.last
		x.chunks = slices.Delete(x.chunks, ci+1, ci+2)
	}
	return true
}

// Due appends to dst, in deadline order, at most max records that are due
// at now. It does not remove them: the caller deletes each record, which
// removes it here.
func (x *Index[T]) Due(now int64, max int, dst []*T) []*T {
	for _, c := range x.chunks {
		for _, v := range c.v {
			if len(dst) >= max || x.at(v) >= now {
				return dst
			}
			dst = append(dst, v)
		}
	}
	return dst
}

// Next reports the earliest deadline, if any.
func (x *Index[T]) Next() (int64, bool) {
	if len(x.chunks) == 0 {
		return 0, false
	}
	return x.at(x.chunks[0].v[0]), true
}

// Sample appends to dst min(n, Len) distinct records picked at random:
// every record when n covers them all, otherwise each drawn on its own (a
// random chunk, then a random item; duplicates are drawn again, a bounded
// number of times). Not a run of neighbours: neighbours share a deadline
// range, which would bias an eviction sample. Chunks hold between a few
// and chunkMax items, so the draw leans a little towards items of small
// chunks; the sampled eviction policies need no more.
func (x *Index[T]) Sample(n int, dst []*T) []*T {
	if n >= x.n {
		for _, c := range x.chunks {
			dst = append(dst, c.v...)
		}
		return dst
	}
	start := len(dst)
	var seen map[*T]bool
	if n > 16 {
		seen = make(map[*T]bool, n)
	}
	for tries := 4 * n; len(dst)-start < n && tries > 0; tries-- {
		c := x.chunks[rand.IntN(len(x.chunks))].v
		v := c[rand.IntN(len(c))]
		if seen != nil {
			if seen[v] {
				continue
			}
			seen[v] = true
		} else if slices.Contains(dst[start:], v) {
			continue
		}
		dst = append(dst, v)
	}
	return dst
}
