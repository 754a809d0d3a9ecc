// Package zset is limitkv's sorted set: members (binary strings) ordered by
// (score, member bytes) exactly as Redis's skiplist orders them, in one of
// two encodings that mirror Redis 7.0's:
//
//   - small ("listpack"): one compact []byte of sorted entries (see
//     small.go), used while Len() <= Limits.Entries and every member is
//     at most Limits.Value bytes. Members of the rate limiters' forms
//     "<integer>:<8 hex digits>" and "<integer>-<integer>" are stored
//     packed, the integer relative to the score, and integer scores as
//     deltas from the previous one: a 22-byte member
//     "1764470000123:0a1b2c3d" scored with its timestamp costs 11 bytes
//     first in the set and 6 to 8 after one from the same minute (29 as
//     raw bytes); Visitors still see the exact member bytes.
//   - large ("skiplist"): a github.com/google/btree B-tree of (score,
//     member) items plus a map member -> score.
//
// A set starts small and converts to large when an Add crosses a threshold,
// never back, as in Redis (ZREM, ZREMRANGEBY*, ZPOP* keep the encoding).
// ConvertToListpackIfNeeded is Redis's conversion of a freshly stored
// result (ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE); ZRANGESTORE needs nothing,
// since a set built by Add from empty already has the right encoding.
//
// Complexity, n = Len(), k = members visited, returned or removed, r = the
// LIMIT offset:
//
//	operation                        small (listpack)  large (B-tree + map)
//	Len, Encoding, MemoryUsage       O(1)              O(1)
//	Score                            O(n)              O(1)
//	Add (insert or update)           O(n), one pass    O(log n)
//	Remove                           O(n)              O(log n)
//	Rank(m, false) / Rank(m, true)   O(n)              O(rank) / O(n-rank)
//	At(i)                            O(n)              O(min(i, n-i))
//	Select(ranks)                    O(n)              O(min(first, n-last) + span)
//	RangeByRank(start, stop)         O(n)              O(min(start, n-stop) + k)
//	RangeByScore, RangeByLex         O(n)              O(log n + r + k)
//	CountByScore, CountByLex         O(n)              O(log n + k)
//	RemoveRangeByScore, ...ByLex     O(n)              O(log n + k log n)
//	RemoveRangeByRank                O(n)              O(k log n) from either end,
//	                                                   else O(min(start, n-stop) + k log n)
//	RangeAfter(score, member)        O(n)              O(log n + k)
//	PopMin, PopMax                   O(n)              O(k log n)
//	Clone, ConvertToListpackIfNeeded O(n)              O(n)
//
// Small sets are scanned linearly (a few hundred nanoseconds at their
// default maximum size of 128), and every small-set removal is one memmove.
// A member lookup parses the query once and compares packed entries as
// numbers; visiting a packed member decodes it (tens of nanoseconds).
//
// Ranks on the large encoding: google/btree keeps no subtree counts, so a
// rank costs a walk from the nearer end (from the start for a forward rank,
// from the end for a reverse one) instead of Redis's O(log n): ZRANK,
// ZREVRANK, ZRANGE by index, ZREMRANGEBYRANK in the middle, ZRANDMEMBER and
// ZCOUNT/ZLEXCOUNT are O(rank) or O(count) there (about 4 ns per member
// walked: a ZRANK in the middle of 100,000 members is ~0.2-0.4 ms). This was
// chosen to keep to the well-tested library rather than maintain an
// order-statistic tree of our own; the operations a rate limiter uses (ZADD,
// ZREMRANGEBYSCORE from the low end, ZCARD, ZRANGE 0 0 / -1 -1, ZRANGEBYSCORE
// windows) stay O(log n + k), and limiter sets are small anyway. O(log n)
// ranks would need a counted B-tree (a fork of google/btree with per-child
// counts).
//
// A Set is not safe for concurrent use.
package zset

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/limitkv/limitkv/internal/num"
)

// Limits are the thresholds of the small encoding, Redis's
// zset-max-listpack-entries (Entries) and zset-max-listpack-value (Value).
// They belong to the server, not to the process (several embedded servers
// may run with different settings), and not to the Set (one exists per key,
// and 16 more bytes each would cost more than the thresholds are worth), so
// every call that may convert takes them: a change applies from the next
// conversion check on, as CONFIG SET does in Redis.
type Limits struct {
	Entries int64
	Value   int64
}

// DefaultLimits returns Redis's defaults, 128 entries of at most 64 bytes.
func DefaultLimits() Limits { return Limits{Entries: 128, Value: 64} }

// Set is a sorted set. The zero value is an empty set.
//
// A Set is 8 bytes, since one is allocated per key (an 8-byte object
// rather than a 16-byte one): a pointer to either the small encoding's
// buffer, which starts with its own length and capacity (see buf.go), or
// the large encoding, whose first byte tells it apart.
type Set struct {
	p unsafe.Pointer
}

// maxSmallBytes is the largest small buffer: beyond it a set converts to
// the large encoding whatever the thresholds say, as Redis's listpack
// safety limit (1 GiB) does; it also keeps the buffer's size in 32 bits.
// A variable only so that tests can lower it.
var maxSmallBytes = 1 << 30

// Touch reads the first bytes of the set's data (see keyspace.DB.Touch);
// the result means nothing.
func (s *Set) Touch() uint64 {
	if s.p == nil {
		return 0
	}
	return uint64(*(*byte)(s.p))
}

// lg returns the large encoding, nil while small.
func (s *Set) lg() *large {
	if s.p != nil && *(*byte)(s.p) == tagLarge {
		return (*large)(s.p)
	}
	return nil
}

func (s *Set) setLG(l *large) {
	if l == nil {
		*s = Set{}
		return
	}
	l.tag = tagLarge
	s.p = unsafe.Pointer(l)
}

// Visitor receives a member and its score during an iteration. member
// aliases the set's memory or, for a member stored packed, a decode buffer
// that the next member overwrites and that other calls reuse once the
// iteration ends: it is valid only until the Visitor returns, it must not
// be modified, and the set must not be modified during the iteration.
// Return false to stop.
type Visitor func(member []byte, score float64) bool

// New returns an empty set.
func New() *Set { return &Set{} }

// NewIn returns an empty set that lives at p, one pointer-sized word of the
// caller's that the collector sees as a pointer (a keyspace entry's slot),
// so the set takes no allocation of its own; with p nil, a set of its own.
func NewIn(p *unsafe.Pointer) *Set {
	if p == nil {
		return New()
	}
	*p = nil
	return (*Set)(unsafe.Pointer(p))
}

// A Set is exactly one pointer, which NewIn relies on.
var (
	_ [unsafe.Sizeof(Set{}) - unsafe.Sizeof(unsafe.Pointer(nil))]byte
	_ [unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(Set{})]byte
)

// Len is the number of members (ZCARD).
func (s *Set) Len() int {
	if s.lg() != nil {
		return len(s.lg().dict)
	}
	return s.smallCount()
}

// Encoding is what OBJECT ENCODING says: "listpack" or "skiplist".
func (s *Set) Encoding() string {
	if s.lg() != nil {
		return "skiplist"
	}
	return "listpack"
}

// Approximate heap bytes per member of the large encoding beyond the member
// bytes: B-tree items (24 bytes, nodes 1/2 to full), the map's slots
// (16-byte key + 8-byte value + control byte, 7/8 load) and the string's
// allocation rounding. Calibrated with TestMemoryPerMember.
const largeOverhead = 100

// MemoryUsage is an estimate of the heap bytes the set holds (MEMORY USAGE,
// INFO used_memory, maxmemory accounting).
func (s *Set) MemoryUsage() int {
	const setSize = int(unsafe.Sizeof(Set{}))
	if s.lg() != nil {
		return setSize + int(unsafe.Sizeof(large{})) + 64 + s.lg().bytes + len(s.lg().dict)*largeOverhead
	}
	return setSize + s.bufSize()
}

// Score returns member's score (ZSCORE). member is not retained.
func (s *Set) Score(member string) (float64, bool) {
	if s.lg() != nil {
		sc, ok := s.lg().dict[member]
		return sc, ok
	}
	_, _, sc, _, _, ok := s.smallFind(member)
	return sc, ok
}

// Add sets member's score, inserting it if absent; it reports whether the
// member was added. score must not be NaN. The set keeps member (when
// large), so it must not alias a buffer that is reused. ZADD's
// NX/XX/GT/LT/CH/INCR are the caller's, with Score. Adding a member over
// lim converts the set.
func (s *Set) Add(member string, score float64, lim Limits) (added bool) {
	added, _ = s.put(member, score, lim)
	return added
}

// Put is Add that also reports whether an existing member's score changed
// (ZADD's dirty count: members added plus updated).
func (s *Set) Put(member []byte, score float64, lim Limits) (added, changed bool) {
	if s.lg() == nil && s.roomFor(bstr(member), lim) {
		return s.put(bstr(member), score, lim)
	}
	return s.put(string(member), score, lim)
}

func (s *Set) put(member string, score float64, lim Limits) (added, changed bool) {
	if s.lg() != nil {
		l := s.lg()
		old, ok := l.dict[member]
		if ok {
			if old == score {
				return false, false
			}
			// Assigning to an existing string key stores the new key
			// string in a Go map, so the tree takes the caller's string
			// too and the old one is freed.
			l.tree.Delete(item{member, old})
			l.tree.ReplaceOrInsert(item{member, score})
			l.dict[member] = score
			return false, true
		}
		l.insert(member, score)
		return true, false
	}
	// One pass finds both the member and the place of (score, member).
	lp := s.lp()
	pos, posBase := -1, int64(noBase)
	var mt matcher
	mt.init(member)
	var e entry
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); off, b = e.next, e.nb {
		e.read(lp, off, b)
		if pos < 0 && (e.score > score || (e.score == score && e.cmpMember(lp, member, &mt.p) > 0)) {
			pos, posBase = off, b
		}
		if mt.match(lp, &e) {
			if e.score == score {
				return false, false
			}
			s.smallDelete(off, e.next, 1, b, e.nb)
			s.smallInsert(member, &mt.p, score, -1, 0)
			return false, true
		}
	}
	if !s.roomFor(member, lim) {
		s.toLarge(s.smallCount() + 1)
		s.lg().insert(member, score)
		return true, false
	}
	if pos < 0 {
		pos, posBase = len(lp), b // the end (smallInsert handles an empty set)
	}
	s.smallInsert(member, &mt.p, score, pos, posBase)
	return true, false
}

// AddBytes is Add for a member in a buffer the caller reuses: a small set
// copies the bytes into its encoding, so the member becomes a string only
// where the set keeps one (the large encoding). Adding to a rate limiter's
// window allocates nothing for the member.
func (s *Set) AddBytes(member []byte, score float64, lim Limits) (added bool) {
	if s.lg() == nil && s.roomFor(bstr(member), lim) {
		return s.Add(bstr(member), score, lim)
	}
	return s.Add(string(member), score, lim)
}

// roomFor reports whether a small set stays small with one more member.
func (s *Set) roomFor(member string, lim Limits) bool {
	const maxEntryOverhead = 32 // header, score and length varints, at most
	return int64(s.smallCount()+1) <= lim.Entries && int64(len(member)) <= lim.Value &&
		len(s.lp())+len(member)+maxEntryOverhead <= maxSmallBytes
}

// toLarge converts a small set to the large encoding.
func (s *Set) toLarge(sizeHint int) {
	l := newLarge(sizeHint)
	lp := s.lp()
	var e entry
	var buf [maxPacked]byte
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); off, b = e.next, e.nb {
		e.read(lp, off, b)
		var m string
		if e.kind == kindRaw {
			m = string(lp[e.ms:e.me])
		} else {
			m = string(e.appendMember(buf[:0], lp))
		}
		l.insert(m, e.score)
	}
	s.setLP(nil)
	s.setLG(l)
}

// ToSkiplist converts a small set to the large encoding for good, as
// Redis's SORT does (zsetConvert) before it reads a sorted set.
func (s *Set) ToSkiplist() {
	if s.lg() == nil {
		s.toLarge(s.Len())
	}
}

// ConvertToListpackIfNeeded turns a large set into the small encoding if it
// fits the thresholds, as Redis does for the result of ZUNIONSTORE,
// ZINTERSTORE and ZDIFFSTORE (zsetConvertToListpackIfNeeded). Redis bases
// the member-length test on every member it added while computing the
// result; here it is on the final members.
func (s *Set) ConvertToListpackIfNeeded(lim Limits) {
	l := s.lg()
	if l == nil || int64(len(l.dict)) > lim.Entries {
		return
	}
	maxLen := lim.Value
	size := uvarintLen(uint64(len(l.dict)))
	fits := true
	base := int64(noBase)
	l.tree.Ascend(func(it item) bool {
		if int64(len(it.member)) > maxLen {
			fits = false
			return false
		}
		sc := it.score
		if sc == 0 {
			sc = 0 // -0 is stored as 0
		}
		p := parseMember(it.member)
		sz, _, _ := layout(it.member, &p, sc, base)
		size += sz
		base = baseOf(sc)
		return true
	})
	if !fits || size > maxSmallBytes {
		return
	}
	s.setLG(nil)
	s.setLP(nil)
	if len(l.dict) == 0 {
		return
	}
	s.grow(size)
	s.setLP(s.lp()[:size])
	off := binary.PutUvarint(s.lp(), uint64(len(l.dict)))
	base = noBase
	l.tree.Ascend(func(it item) bool {
		sc := it.score
		if sc == 0 {
			sc = 0 // -0 is stored as 0
		}
		p := parseMember(it.member)
		sz, dd, packed := layout(it.member, &p, sc, base)
		putEntry(s.lp()[off:off+sz], it.member, &p, sc, dd, packed, base)
		off += sz
		base = baseOf(sc)
		return true
	})
}

// Clone returns an independent copy of the set.
func (s *Set) Clone() *Set {
	if s.lg() != nil {
		l := &large{tree: s.lg().tree.Clone(), dict: make(map[string]float64, len(s.lg().dict)), bytes: s.lg().bytes}
		for m, sc := range s.lg().dict {
			l.dict[m] = sc
		}
		c := &Set{}
		c.setLG(l)
		return c
	}
	c := &Set{}
	if lp := s.lp(); lp != nil {
		nb := newBuf(len(lp))[:len(lp)]
		copy(nb, lp)
		c.setLP(nb)
	}
	return c
}

// Remove deletes member (ZREM) and reports whether it was there. member is
// not retained.
func (s *Set) Remove(member string) bool {
	if s.lg() != nil {
		sc, ok := s.lg().dict[member]
		if !ok {
			return false
		}
		s.lg().delete(item{member, sc})
		return true
	}
	start, end, _, base, nb, ok := s.smallFind(member)
	if ok {
		s.smallDelete(start, end, 1, base, nb)
	}
	return ok
}

// Rank returns member's 0-based rank (ZRANK), or its rank from the highest
// score when reverse (ZREVRANK). member is not retained.
func (s *Set) Rank(member string, reverse bool) (int, bool) {
	if s.lg() != nil {
		sc, ok := s.lg().dict[member]
		if !ok {
			return 0, false
		}
		return s.lg().rank(item{member, sc}, reverse), true
	}
	lp := s.lp()
	var mt matcher
	mt.init(member)
	r := 0
	var e entry
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); off, b, r = e.next, e.nb, r+1 {
		e.read(lp, off, b)
		if mt.match(lp, &e) {
			if reverse {
				return s.smallCount() - 1 - r, true
			}
			return r, true
		}
	}
	return 0, false
}

// At returns the member of rank i, 0 <= i < Len() (ZRANDMEMBER), as a new
// string.
func (s *Set) At(i int) (string, float64) {
	var m string
	var sc float64
	s.RangeByRank(i, i, false, func(member []byte, score float64) bool {
		m, sc = string(member), score
		return false
	})
	return m, sc
}

// Select calls fn for each rank of ranks, which must be sorted ascending and
// within [0, Len()), in one pass over the set: O(n + len(ranks)) where At in
// a loop would be O(n) each on the large encoding (ZRANDMEMBER with a
// count). Repeated ranks are visited repeatedly.
func (s *Set) Select(ranks []int, fn func(member []byte, score float64)) {
	if len(ranks) == 0 {
		return
	}
	j := 0
	r := 0
	s.RangeByRank(ranks[0], ranks[len(ranks)-1], false, func(member []byte, score float64) bool {
		for j < len(ranks) && ranks[j] == r+ranks[0] {
			fn(member, score)
			j++
		}
		r++
		return j < len(ranks)
	})
}

// RangeByRank calls fn on ranks start..stop, both within [0, Len()) and
// start <= stop (the caller normalises negative indexes), in order. With
// reverse the ranks count from the highest score and the members come
// highest first (ZRANGE ... REV, ZREVRANGE).
func (s *Set) RangeByRank(start, stop int, reverse bool, fn Visitor) {
	n := s.Len()
	if start < 0 {
		start = 0
	}
	if stop >= n {
		stop = n - 1
	}
	if start > stop {
		return
	}
	if s.lg() != nil {
		lo, hi := start, stop
		if reverse {
			lo, hi = n-1-stop, n-1-start
		}
		s.lg().ranks(lo, hi, reverse, func(it item) bool { return fn(view(it.member), it.score) })
		return
	}
	lp := s.lp()
	var sc scratch
	defer sc.done()
	var e entry
	if !reverse {
		off := firstEntry(lp)
		b := int64(noBase)
		for r := 0; r < start; r++ {
			_, off, b = entryScore(lp, off, b)
		}
		for r := start; r <= stop; r, off, b = r+1, e.next, e.nb {
			e.read(lp, off, b)
			if !fn(sc.member(lp, &e), e.score) {
				return
			}
		}
		return
	}
	var few [16]entryPos // Go clears a stack array where it is declared
	ps := few[:0]
	if s.smallCount() > len(few) {
		var many [128]entryPos
		ps = many[:0]
	}
	ps = s.smallPositions(ps)
	for r := start; r <= stop; r++ {
		e.read(lp, int(ps[n-1-r].off), ps[n-1-r].base)
		if !fn(sc.member(lp, &e), e.score) {
			return
		}
	}
}

// RangeAfter calls fn on the members ordered after (score, member), in
// order: a resumable walk for ZSCAN-style cursors kept by the caller (the
// walk goes on correctly whatever was added or removed meanwhile). member
// is not retained. O(log n + k) on the large encoding.
func (s *Set) RangeAfter(score float64, member string, fn Visitor) {
	pivot := item{member, score}
	if s.lg() != nil {
		s.lg().tree.AscendGreaterOrEqual(pivot, func(it item) bool {
			if !less(pivot, it) {
				return true // pivot itself
			}
			return fn(view(it.member), it.score)
		})
		return
	}
	lp := s.lp()
	p := parseMember(member)
	var sc scratch
	defer sc.done()
	var e entry
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); {
		score, next, nb := entryScore(lp, off, b)
		if score >= pivot.score {
			// The member is decoded only for a visit or a tie.
			e.read(lp, off, b)
			if (score > pivot.score || e.cmpMember(lp, member, &p) > 0) && !fn(sc.member(lp, &e), score) {
				return
			}
		}
		off, b = next, nb
	}
}

// limiter applies a LIMIT offset count (count < 0: no limit) to a Visitor.
type limiter struct {
	offset, count int
	fn            Visitor
}

// visit returns whether to go on.
func (l *limiter) visit(member []byte, score float64) bool {
	if l.offset > 0 {
		l.offset--
		return true
	}
	if l.count == 0 {
		return false
	}
	if l.count > 0 {
		l.count--
	}
	return l.fn(member, score) && l.count != 0
}

// RangeByScore calls fn on the members with a score in r, lowest first, or
// highest first with reverse (ZRANGE ... BYSCORE [REV], ZRANGEBYSCORE,
// ZREVRANGEBYSCORE), skipping offset of them and stopping after count, as
// LIMIT: like Redis, a negative offset yields nothing and a negative count
// means all.
func (s *Set) RangeByScore(r ScoreRange, reverse bool, offset, count int, fn Visitor) {
	if r.Empty() || count == 0 || offset < 0 {
		return
	}
	lim := limiter{offset: offset, count: count, fn: fn}
	if s.lg() != nil {
		if reverse {
			s.lg().descendScore(r, func(it item) bool {
				return r.gteMin(it.score) && lim.visit(view(it.member), it.score)
			})
		} else {
			s.lg().ascendScore(r, func(it item) bool {
				return r.lteMax(it.score) && lim.visit(view(it.member), it.score)
			})
		}
		return
	}
	lp := s.lp()
	var sc scratch
	defer sc.done()
	var e entry
	if !reverse {
		b := int64(noBase)
		for off := firstEntry(lp); off < len(lp); off, b = e.next, e.nb {
			e.read(lp, off, b)
			if !r.lteMax(e.score) {
				return
			}
			if r.gteMin(e.score) {
				if lim.offset > 0 {
					lim.offset-- // skipped without decoding the member
				} else if !lim.visit(sc.member(lp, &e), e.score) {
					return
				}
			}
		}
		return
	}
	var few [16]entryPos // Go clears a stack array where it is declared
	ps := few[:0]
	if s.smallCount() > len(few) {
		var many [128]entryPos
		ps = many[:0]
	}
	ps = s.smallPositions(ps)
	for i := len(ps) - 1; i >= 0; i-- {
		e.read(lp, int(ps[i].off), ps[i].base)
		if !r.gteMin(e.score) {
			return
		}
		if r.lteMax(e.score) {
			if lim.offset > 0 {
				lim.offset--
			} else if !lim.visit(sc.member(lp, &e), e.score) {
				return
			}
		}
	}
}

// bstr views member bytes as a string for comparisons only.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// RangeByLex calls fn on the members in r, in member order, or reverse
// (ZRANGE ... BYLEX [REV], ZRANGEBYLEX, ZREVRANGEBYLEX), with LIMIT offset
// and count as RangeByScore. As in Redis the set is assumed to have equal
// scores. Otherwise the small encoding answers as Redis's listpack does:
// nothing unless the last member is >= r's minimum and the first <= r's
// maximum; else the run of members, in set order, from the first member
// >= the minimum (the last <= the maximum when reverse) to before the first
// one out of r. On the large encoding (where Redis's answer depends on the
// skiplist's random levels) the run starts as if all scores were equal to
// the lowest (highest when reverse).
func (s *Set) RangeByLex(r LexRange, reverse bool, offset, count int, fn Visitor) {
	if count == 0 || offset < 0 || !s.lexInRange(r) {
		return
	}
	lim := limiter{offset: offset, count: count, fn: fn}
	if s.lg() != nil {
		if reverse {
			s.lg().descendLex(r, func(it item) bool {
				return r.gteMin(it.member) && lim.visit(view(it.member), it.score)
			})
		} else {
			s.lg().ascendLex(r, func(it item) bool {
				return r.lteMax(it.member) && lim.visit(view(it.member), it.score)
			})
		}
		return
	}
	lp := s.lp()
	var sc scratch
	defer sc.done()
	var e entry
	if !reverse {
		started := false
		b := int64(noBase)
		for off := firstEntry(lp); off < len(lp); off, b = e.next, e.nb {
			e.read(lp, off, b)
			m := sc.member(lp, &e)
			if !started {
				started = r.gteMin(bstr(m))
			}
			if started {
				if !r.lteMax(bstr(m)) || !lim.visit(m, e.score) {
					return
				}
			}
		}
		return
	}
	var few [16]entryPos // Go clears a stack array where it is declared
	ps := few[:0]
	if s.smallCount() > len(few) {
		var many [128]entryPos
		ps = many[:0]
	}
	ps = s.smallPositions(ps)
	started := false
	for i := len(ps) - 1; i >= 0; i-- {
		e.read(lp, int(ps[i].off), ps[i].base)
		m := sc.member(lp, &e)
		if !started {
			started = r.lteMax(bstr(m))
		}
		if started {
			if !r.gteMin(bstr(m)) || !lim.visit(m, e.score) {
				return
			}
		}
	}
}

// lexInRange is Redis's zzlIsInLexRange / zslIsInLexRange: r is not
// empty, the last member is >= its minimum and the first <= its maximum.
func (s *Set) lexInRange(r LexRange) bool {
	if r.Empty() || s.Len() == 0 {
		return false
	}
	var first, last string
	if s.lg() != nil {
		f, _ := s.lg().tree.Min()
		l, _ := s.lg().tree.Max()
		first, last = f.member, l.member
	} else {
		lp := s.lp()
		var e entry
		var fbuf, lbuf [maxPacked]byte
		off := firstEntry(lp)
		e.read(lp, off, noBase)
		first = bstr(e.memberIn(lp, &fbuf))
		b := int64(noBase)
		for o, ob := off, b; o < len(lp); {
			off, b = o, ob
			_, o, ob = entryScore(lp, o, ob)
		}
		e.read(lp, off, b)
		last = bstr(e.memberIn(lp, &lbuf))
	}
	return r.gteMin(last) && r.lteMax(first)
}

// CountByScore is ZCOUNT.
func (s *Set) CountByScore(r ScoreRange) int {
	n := 0
	s.RangeByScore(r, false, 0, -1, func([]byte, float64) bool { n++; return true })
	return n
}

// CountByLex is ZLEXCOUNT.
func (s *Set) CountByLex(r LexRange) int {
	n := 0
	s.RangeByLex(r, false, 0, -1, func([]byte, float64) bool { n++; return true })
	return n
}

// smallRun finds the contiguous run of entries [from, to) (by rank) of a
// small set and deletes it, returning its length.
func (s *Set) smallRemoveRun(from, to int) int {
	if from >= to {
		return 0
	}
	lp := s.lp()
	start, end := -1, -1
	base, b := int64(noBase), int64(noBase)
	r := 0
	for off := firstEntry(lp); off < len(lp); r++ {
		if r == from {
			start, base = off, b
		}
		_, off, b = entryScore(lp, off, b)
		if r == to-1 {
			end = off
			break
		}
	}
	s.smallDelete(start, end, to-from, base, b)
	return to - from
}

// removeItems deletes collected items from a large set.
func (l *large) removeItems(items []item) int {
	for _, it := range items {
		l.delete(it)
	}
	return len(items)
}

// RemoveRangeByScore deletes the members with a score in r
// (ZREMRANGEBYSCORE) and returns how many.
func (s *Set) RemoveRangeByScore(r ScoreRange) int {
	if r.Empty() || s.Len() == 0 {
		return 0
	}
	if l := s.lg(); l != nil {
		// From the low end (the sliding-window case): no search, no buffer.
		if first, _ := l.tree.Min(); r.gteMin(first.score) {
			n := 0
			for l.tree.Len() > 0 {
				it, _ := l.tree.Min()
				if !r.lteMax(it.score) {
					break
				}
				l.tree.DeleteMin()
				delete(l.dict, it.member)
				l.bytes -= len(it.member)
				n++
			}
			return n
		}
		var items []item
		l.ascendScore(r, func(it item) bool {
			if !r.lteMax(it.score) {
				return false
			}
			items = append(items, it)
			return true
		})
		return l.removeItems(items)
	}
	from, to, rank := -1, 0, 0
	lp := s.lp()
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); rank++ {
		sc, next, nb := entryScore(lp, off, b)
		if !r.lteMax(sc) {
			break
		}
		if from < 0 && r.gteMin(sc) {
			from = rank
		}
		off, b = next, nb
	}
	if from < 0 {
		return 0
	}
	to = rank
	return s.smallRemoveRun(from, to)
}

// RemoveRangeByLex deletes the members in r (ZREMRANGEBYLEX; see
// RangeByLex for sets of unequal scores) and returns how many.
func (s *Set) RemoveRangeByLex(r LexRange) int {
	if !s.lexInRange(r) {
		return 0
	}
	if l := s.lg(); l != nil {
		var items []item
		l.ascendLex(r, func(it item) bool {
			if !r.lteMax(it.member) {
				return false
			}
			items = append(items, it)
			return true
		})
		return l.removeItems(items)
	}
	from, rank := -1, 0
	lp := s.lp()
	var e entry
	var buf [maxPacked]byte
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); rank++ {
		e.read(lp, off, b)
		m := bstr(e.memberIn(lp, &buf))
		if from < 0 {
			if r.gteMin(m) {
				from = rank
			}
		}
		if from >= 0 && !r.lteMax(m) {
			break
		}
		off, b = e.next, e.nb
	}
	if from < 0 {
		return 0
	}
	return s.smallRemoveRun(from, rank)
}

// RemoveRangeByRank deletes ranks start..stop (ZREMRANGEBYRANK; the caller
// normalises negative indexes, out-of-range parts are ignored) and returns
// how many.
func (s *Set) RemoveRangeByRank(start, stop int) int {
	n := s.Len()
	if start < 0 {
		start = 0
	}
	if stop >= n {
		stop = n - 1
	}
	if start > stop {
		return 0
	}
	if l := s.lg(); l != nil {
		cnt := stop - start + 1
		if start == 0 || stop == n-1 {
			for i := 0; i < cnt; i++ {
				var it item
				if start == 0 {
					it, _ = l.tree.DeleteMin()
				} else {
					it, _ = l.tree.DeleteMax()
				}
				delete(l.dict, it.member)
				l.bytes -= len(it.member)
			}
			return cnt
		}
		items := make([]item, 0, cnt)
		l.ranks(start, stop, false, func(it item) bool {
			items = append(items, it)
			return true
		})
		return l.removeItems(items)
	}
	return s.smallRemoveRun(start, stop+1)
}

// PopMin removes up to count members of the lowest scores (ZPOPMIN,
// BZPOPMIN, ZMPOP MIN), calling fn (if not nil) on each, lowest first; the
// member bytes are valid during the call only. It returns how many were
// removed.
func (s *Set) PopMin(count int, fn func(member []byte, score float64)) int {
	return s.pop(count, false, fn)
}

// PopMax is PopMin from the highest scores, highest first.
func (s *Set) PopMax(count int, fn func(member []byte, score float64)) int {
	return s.pop(count, true, fn)
}

func (s *Set) pop(count int, max bool, fn func([]byte, float64)) int {
	n := s.Len()
	if count > n {
		count = n
	}
	if count <= 0 {
		return 0
	}
	if l := s.lg(); l != nil {
		for i := 0; i < count; i++ {
			var it item
			if max {
				it, _ = l.tree.DeleteMax()
			} else {
				it, _ = l.tree.DeleteMin()
			}
			delete(l.dict, it.member)
			l.bytes -= len(it.member)
			if fn != nil {
				fn(view(it.member), it.score)
			}
		}
		return count
	}
	if fn != nil {
		s.RangeByRank(0, count-1, max, func(m []byte, sc float64) bool { fn(m, sc); return true })
	}
	if max {
		return s.smallRemoveRun(n-count, n)
	}
	return s.smallRemoveRun(0, count)
}

// String is a debugging form: "{a:1 b:2}".
func (s *Set) String() string {
	var b strings.Builder
	b.WriteByte('{')
	s.RangeByRank(0, s.Len()-1, false, func(m []byte, sc float64) bool {
		if b.Len() > 1 {
			b.WriteByte(' ')
		}
		b.Write(m)
		b.WriteByte(':')
		b.Write(num.AppendFloat(nil, sc))
		return true
	})
	b.WriteByte('}')
	return b.String()
}
