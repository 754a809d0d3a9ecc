// Package set is the value of a Redis set: an intset (internal/intset)
// while every member is an integer in Redis's canonical form and the set
// is at most set-max-intset-entries long, a hash table after that. As in
// Redis 7.0, a set converts to the hash table once and never back; the
// only way to a smaller encoding is a new set (SPOP's and the STORE
// commands' results are built as new sets, which is why they may come out
// as intsets again).
//
// The hash table is a chained table of our own, in the manner of Redis's
// dict rather than a Go map, because SSCAN needs a cursor that survives
// inserts, deletes and resizes between calls: the reverse-binary cursor
// (see internal/keyspace) returns every member present for the whole scan
// at least once. Unlike Redis's dict (and internal/keyspace) a resize moves
// every member at once rather than incrementally: sets are rarely big
// enough for the pause to matter, and with no resize ever in progress the
// scan needs no two-table case.
//
// Members are handed in as []byte and copied when kept. A Set is not safe
// for concurrent use.
package set

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"unsafe"

	"github.com/limitkv/limitkv/internal/intset"
	"github.com/limitkv/limitkv/internal/num"
)

// MaxIntsetCap is Redis's cap on set-max-intset-entries: larger settings
// behave as this one (intset internals limit it to 2^30 members).
const MaxIntsetCap = 1 << 30

// Set is a Redis set. Exactly one of is and ht is in use: ht == nil means
// the intset encoding.
type Set struct {
	is intset.Set
	ht *table
}

// New returns an empty intset-encoded set, as Redis's createIntsetObject
// (the start of every computed result).
func New() *Set { return &Set{} }

// NewFor returns an empty set that can hold first without converting, as
// Redis's setTypeCreate: an intset when first is an integer, else a hash
// table.
func NewFor(first []byte) *Set {
	if _, ok := num.ParseInt(first); ok {
		return &Set{}
	}
	return &Set{ht: newTable(0)}
}

// Encoding is OBJECT ENCODING's answer: "intset" or "hashtable".
func (s *Set) Encoding() string {
	if s.ht == nil {
		return "intset"
	}
	return "hashtable"
}

// IsIntset reports whether the set is intset-encoded.
func (s *Set) IsIntset() bool { return s.ht == nil }

// Len is the number of members.
func (s *Set) Len() int {
	if s.ht == nil {
		return s.is.Len()
	}
	return s.ht.used
}

func capEntries(maxIntset int64) int {
	if maxIntset >= MaxIntsetCap || maxIntset < 0 {
		return MaxIntsetCap
	}
	return int(maxIntset)
}

// Add inserts member and reports whether it was absent. An intset
// converts when member is not an integer or when the set would pass
// maxIntset members (set-max-intset-entries).
func (s *Set) Add(member []byte, maxIntset int64) bool {
	if s.ht != nil {
		return s.ht.add(member)
	}
	v, ok := num.ParseInt(member)
	if !ok {
		s.convert()
		return s.ht.add(member)
	}
	if !s.is.Add(v) {
		return false
	}
	if s.is.Len() > capEntries(maxIntset) {
		s.convert()
	}
	return true
}

// convert moves an intset's members into a hash table sized for them.
func (s *Set) convert() {
	t := newTable(s.is.Len())
	var buf [20]byte
	s.is.Each(func(v int64) bool {
		t.add(strconv.AppendInt(buf[:0], v, 10))
		return true
	})
	s.is = intset.Set{}
	s.ht = t
}

// Remove deletes member and reports whether it was present.
func (s *Set) Remove(member []byte) bool {
	if s.ht != nil {
		return s.ht.remove(member)
	}
	v, ok := num.ParseInt(member)
	return ok && s.is.Remove(v)
}

// Has reports whether member is in the set.
func (s *Set) Has(member []byte) bool {
	if s.ht != nil {
		return s.ht.find(member) != nil
	}
	v, ok := num.ParseInt(member)
	return ok && s.is.Find(v)
}

// Each calls fn for every member until fn returns false: ascending for an
// intset, table order for a hash table. m is valid only during the call.
// fn must not modify the set.
func (s *Set) Each(fn func(m []byte) bool) {
	if s.ht != nil {
		for _, n := range s.ht.buckets {
			for ; n != nil; n = n.next {
				if !fn(n.bytes()) {
					return
				}
			}
		}
		return
	}
	var buf [20]byte
	s.is.Each(func(v int64) bool { return fn(strconv.AppendInt(buf[:0], v, 10)) })
}

// Random appends a uniformly chosen member to dst; the set must not be
// empty. The hash table's pick is Redis's dictGetRandomKey: a random
// non-empty bucket, then a random member of its chain.
func (s *Set) Random(dst []byte) []byte {
	if s.ht == nil {
		return strconv.AppendInt(dst, s.is.Random(), 10)
	}
	return append(dst, s.ht.random().member...)
}

// Scan visits the members of the bucket at cursor and returns the next
// cursor, 0 when the scan is done (see the package comment). An intset is
// visited whole and returns 0, as Redis scans a compact encoding in one
// call. m is valid only during the call; fn must not modify the set.
func (s *Set) Scan(cursor uint64, fn func(m []byte)) uint64 {
	if s.ht == nil {
		s.Each(func(m []byte) bool { fn(m); return true })
		return 0
	}
	b := s.ht.buckets
	mask := uint64(len(b) - 1)
	for n := b[cursor&mask]; n != nil; n = n.next {
		fn(n.bytes())
	}
	v := cursor | ^mask
	return bits.Reverse64(bits.Reverse64(v) + 1)
}

// Clone returns an independent copy with the same encoding.
func (s *Set) Clone() *Set {
	if s.ht == nil {
		return &Set{is: *s.is.Clone()}
	}
	t := newTable(s.ht.used)
	for _, n := range s.ht.buckets {
		for ; n != nil; n = n.next {
			t.insert(n.member, n.hash)
		}
	}
	return &Set{ht: t}
}

// Heap accounting for MemoryUsage, calibrated by TestMemoryPerMember and
// internal/commands's TestMemorySetEstimate: the Set and the table are
// one allocation each, a node is one 32-byte allocation (next, member
// string header, hash) and the member's bytes another, all rounded up to
// the allocator's size classes.
const (
	setSize   = int(unsafe.Sizeof(Set{}))
	tableSize = int(unsafe.Sizeof(table{}))
	nodeSize  = int(unsafe.Sizeof(node{}))
)

// MemoryUsage estimates the heap bytes the set holds (MEMORY USAGE, INFO
// used_memory, maxmemory).
func (s *Set) MemoryUsage() int {
	if s.ht == nil {
		return allocSize(setSize) + allocSize(s.is.MemoryUsage())
	}
	t := s.ht
	return allocSize(setSize) + allocSize(tableSize) + allocSize(8*len(t.buckets)) + t.used*allocSize(nodeSize) + t.bytes
}

// The hash table.

var seed = maphash.MakeSeed()

type node struct {
	next   *node
	member string
	hash   uint64
}

func (n *node) bytes() []byte { return unsafe.Slice(unsafe.StringData(n.member), len(n.member)) }

type table struct {
	buckets []*node // power-of-two length
	used    int
	bytes   int // allocated bytes of the member strings
}

// minBuckets is Redis's DICT_HT_INITIAL_SIZE.
const minBuckets = 4

func pow2(n int) int {
	if n <= minBuckets {
		return minBuckets
	}
	return 1 << bits.Len(uint(n-1))
}

func newTable(n int) *table { return &table{buckets: make([]*node, pow2(n))} }

func hashOf(m []byte) uint64 { return maphash.Bytes(seed, m) }

func (t *table) find(m []byte) *node {
	h := hashOf(m)
	for n := t.buckets[h&uint64(len(t.buckets)-1)]; n != nil; n = n.next {
		if n.hash == h && n.member == unsafe.String(unsafe.SliceData(m), len(m)) {
			return n
		}
	}
	return nil
}

// add inserts a copy of m unless present. The table doubles once it holds
// as many members as buckets, as Redis's dict does.
func (t *table) add(m []byte) bool {
	if t.find(m) != nil {
		return false
	}
	if t.used >= len(t.buckets) {
		t.resize(pow2(t.used + 1))
	}
	t.insert(string(m), hashOf(m))
	return true
}

func (t *table) insert(m string, h uint64) {
	i := h & uint64(len(t.buckets)-1)
	t.buckets[i] = &node{next: t.buckets[i], member: m, hash: h}
	t.used++
	t.bytes += allocSize(len(m))
}

// remove deletes m; a table left under a tenth full shrinks to fit, as
// Redis's setTypeRemove does (htNeedsResize, dictResize).
func (t *table) remove(m []byte) bool {
	h := hashOf(m)
	p := &t.buckets[h&uint64(len(t.buckets)-1)]
	for ; *p != nil; p = &(*p).next {
		n := *p
		if n.hash == h && n.member == unsafe.String(unsafe.SliceData(m), len(m)) {
			*p = n.next
			t.used--
			t.bytes -= allocSize(len(n.member))
			if size := len(t.buckets); size > minBuckets && t.used*100/size < 10 {
				t.resize(pow2(t.used))
			}
			return true
		}
	}
	return false
}

func (t *table) resize(size int) {
	if size == len(t.buckets) {
		return
	}
	nb := make([]*node, size)
	mask := uint64(size - 1)
	for _, n := range t.buckets {
		for n != nil {
			next := n.next
			i := n.hash & mask
			n.next = nb[i]
			nb[i] = n
			n = next
		}
	}
	t.buckets = nb
}

// random is dictGetFairRandomKey: a plain random bucket and a random
// node of its chain would favour members in short chains (a set of ten
// members in sixteen buckets failed Redis's chi-square test by far), so
// up to fairSample nodes are gathered from consecutive buckets starting
// at a random one, as dictGetSomeKeys does, and one of them is picked.
func (t *table) random() *node {
	var buf [fairSample]*node
	got := buf[:0]
	mask := uint64(len(t.buckets) - 1)
	i := rand.Uint64() & mask
	for steps := 0; len(got) < fairSample && steps < fairSample*10 && steps <= int(mask); steps++ {
		for n := t.buckets[i]; n != nil && len(got) < fairSample; n = n.next {
			got = append(got, n)
		}
		i = (i + 1) & mask
	}
	if len(got) > 0 {
		return got[rand.IntN(len(got))]
	}
	// A sparse table left nothing in reach: Redis's dictGetRandomKey.
	var n *node
	for n == nil {
		n = t.buckets[rand.Uint64()&mask]
	}
	l := 0
	for p := n; p != nil; p = p.next {
		l++
	}
	for k := rand.IntN(l); k > 0; k-- {
		n = n.next
	}
	return n
}

// fairSample is GETFAIR_NUM_ENTRIES.
const fairSample = 15

// sizeClasses are Go's small-object size classes (runtime/sizeclasses.go).
var sizeClasses = [...]int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792,
	2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240,
	10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// allocSize is what Go's allocator takes for an object of n bytes: its
// size class, or whole 8 KB pages for a large object.
func allocSize(n int) int {
	if n == 0 {
		return 0
	}
	if n > sizeClasses[len(sizeClasses)-1] {
		return (n + 8191) &^ 8191
	}
	i, _ := slices.BinarySearch(sizeClasses[:], n)
	return sizeClasses[i]
}
