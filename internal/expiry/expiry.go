// Package expiry keeps keys ordered by deadline so the active expiry cycle
// finds due keys without scanning the keyspace (the tidwall/buntdb approach),
// while lookups still check the deadline lazily on access.
//
// Deadlines are Unix milliseconds. A key is due once now > deadline, which is
// Redis's rule (a key whose deadline equals now is still alive).
package expiry

import "github.com/google/btree"

type item struct {
	at  int64
	key string
}

func less(a, b item) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.key < b.key
}

// Index is a deadline-ordered set of (deadline, key). Not safe for concurrent
// use: the executor owns it.
type Index struct {
	t *btree.BTreeG[item]
}

// New returns an empty index.
func New() *Index {
	// Degree 32 keeps nodes around a cache line multiple and the tree shallow
	// at millions of keys.
	return &Index{t: btree.NewG(32, less)}
}

// Add records key with deadline at.
func (x *Index) Add(key string, at int64) { x.t.ReplaceOrInsert(item{at, key}) }

// Remove forgets key, which was recorded with deadline at.
func (x *Index) Remove(key string, at int64) { x.t.Delete(item{at, key}) }

// Len is the number of keys with a deadline.
func (x *Index) Len() int { return x.t.Len() }

// Clear empties the index.
func (x *Index) Clear() { x.t.Clear(false) }

// Due appends to dst, in deadline order, at most max keys that are due at now.
// It does not remove them: the caller deletes each key, which removes it here.
func (x *Index) Due(now int64, max int, dst []string) []string {
	x.t.Ascend(func(it item) bool {
		if it.at >= now || len(dst) >= max {
			return false
		}
		dst = append(dst, it.key)
		return true
	})
	return dst
}

// Next reports the earliest deadline, if any.
func (x *Index) Next() (int64, bool) {
	it, ok := x.t.Min()
	return it.at, ok
}
