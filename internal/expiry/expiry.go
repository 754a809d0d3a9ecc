// Package expiry keeps keys ordered by deadline so the active expiry cycle
// finds due keys without scanning the keyspace (the tidwall/buntdb approach),
// while lookups still check the deadline lazily on access.
//
// Deadlines are Unix milliseconds. A key is due once now > deadline, which is
// Redis's rule (a key whose deadline equals now is still alive).
//
// The index is a sorted sequence of (deadline, *T) items cut into chunks of
// at most chunkMax, a two-level B+tree of sorts. It was a google/btree until
// the memory workload showed its cost: deadlines are nearly always "now plus
// a TTL", so almost every insert lands at the end, and a B-tree that splits
// full nodes in the middle leaves every node it passes half empty (48 bytes
// per key for 24-byte items). Here an insert at the end of a full last chunk
// opens a new chunk instead, so append-mostly loads leave chunks full, and
// items hold the key's record pointer rather than a copy of its name: 16
// bytes per item, about 17 per key in all. Removing due items from the
// front reslices the first chunk, without moving the rest.
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

// chunkMax is the most items a chunk holds: 8 KiB of items, so moving one
// inside a chunk is cheap and the chunk list stays short.
const chunkMax = 512

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

// Index is a deadline-ordered set of (deadline, record). Not safe for
// concurrent use: the executor owns it.
type Index[T any] struct {
	chunks [][]item[T] // in order, none empty
	n      int
}

// New returns an empty index.
func New[T any]() *Index[T] { return &Index[T]{} }

// Len is the number of records with a deadline.
func (x *Index[T]) Len() int { return x.n }

// Clear empties the index.
func (x *Index[T]) Clear() { x.chunks, x.n = nil, 0 }

// chunkFor is the index of the chunk it belongs in: the first whose last
// item is not before it, or the last chunk.
func (x *Index[T]) chunkFor(it item[T]) int {
	i, _ := slices.BinarySearchFunc(x.chunks, it, func(c []item[T], it item[T]) int {
		return compare(c[len(c)-1], it)
	})
	return min(i, len(x.chunks)-1)
}

// Add records v with deadline at. v must not be recorded already.
func (x *Index[T]) Add(v *T, at int64) {
	it := item[T]{at, v}
	x.n++
	if len(x.chunks) == 0 {
		x.chunks = append(x.chunks, newChunk(it))
		return
	}
	ci := x.chunkFor(it)
	c := x.chunks[ci]
	pos, _ := slices.BinarySearchFunc(c, it, compare[T])
	if len(c) == chunkMax {
		if ci == len(x.chunks)-1 && pos == len(c) {
			// The common case, a deadline later than all: start a new
			// chunk and leave this one full.
			x.chunks = append(x.chunks, newChunk(it))
			return
		}
		// Split, at the insertion point in the last chunk (later items
		// usually keep arriving there) and in the middle elsewhere.
		at := len(c) / 2
		if ci == len(x.chunks)-1 && pos > at {
			at = pos
		}
		right := make([]item[T], len(c)-at, chunkMax)
		copy(right, c[at:])
		clear(c[at:])
		c = c[:at]
		x.chunks[ci] = c
		x.chunks = slices.Insert(x.chunks, ci+1, right)
		if pos > at {
			ci, c, pos = ci+1, right, pos-at
		} // pos == at: the end of the left part, which now has room
	}
	if len(c) == cap(c) {
		// The front was resliced away by removals: move the items back
		// to a chunk of full capacity.
		nc := make([]item[T], len(c), chunkMax)
		copy(nc, c)
		c = nc
	}
	x.chunks[ci] = slices.Insert(c, pos, it)
}

func newChunk[T any](it item[T]) []item[T] {
	c := make([]item[T], 1, chunkMax)
	c[0] = it
	return c
}

// Remove forgets v, recorded with deadline at; it reports whether it was
// there.
func (x *Index[T]) Remove(v *T, at int64) bool {
	if len(x.chunks) == 0 {
		return false
	}
	it := item[T]{at, v}
	ci := x.chunkFor(it)
	c := x.chunks[ci]
	pos, found := slices.BinarySearchFunc(c, it, compare[T])
	if !found {
		return false
	}
	x.n--
	switch {
	case len(c) == 1:
		x.chunks = slices.Delete(x.chunks, ci, ci+1)
		return true
	case pos == 0:
		c[0] = item[T]{}
		c = c[1:] // no move: due items go from the front, one by one
	default:
		c = slices.Delete(c, pos, pos+1)
	}
	x.chunks[ci] = c
	// Merge a chunk that random removals have thinned out into its
	// neighbour, so that fill stays above a quarter.
	if len(c) < chunkMax/4 && ci+1 < len(x.chunks) && len(c)+len(x.chunks[ci+1]) <= chunkMax/2 {
		m := make([]item[T], 0, chunkMax)
		m = append(append(m, c...), x.chunks[ci+1]...)
		x.chunks[ci] = m
		x.chunks = slices.Delete(x.chunks, ci+1, ci+2)
	}
	return true
}

// Due appends to dst, in deadline order, at most max records that are due
// at now. It does not remove them: the caller deletes each record, which
// removes it here.
func (x *Index[T]) Due(now int64, max int, dst []*T) []*T {
	for _, c := range x.chunks {
		for _, it := range c {
			if it.at >= now || len(dst) >= max {
				return dst
			}
			dst = append(dst, it.v)
		}
	}
	return dst
}

// Next reports the earliest deadline, if any.
func (x *Index[T]) Next() (int64, bool) {
	if len(x.chunks) == 0 {
		return 0, false
	}
	return x.chunks[0][0].at, true
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
			for _, it := range c {
				dst = append(dst, it.v)
			}
		}
		return dst
	}
	start := len(dst)
	var seen map[*T]bool
	if n > 16 {
		seen = make(map[*T]bool, n)
	}
	for tries := 4 * n; len(dst)-start < n && tries > 0; tries-- {
		c := x.chunks[rand.IntN(len(x.chunks))]
		v := c[rand.IntN(len(c))].v
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
