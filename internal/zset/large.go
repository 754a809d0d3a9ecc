package zset

import (
	"math"
	"unsafe"

	"github.com/google/btree"
)

// The large encoding ("skiplist" in Redis's OBJECT ENCODING): a B-tree of
// (score, member) items plus a member -> score map. Both share the member
// strings.

// btreeDegree: nodes hold up to 2*degree-1 items of 24 bytes.
const btreeDegree = 32

type item struct {
	member string
	score  float64
}

// less orders items as Redis's skiplist: by score, then member bytes.
// -0 and 0 are the same score.
func less(a, b item) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

type large struct {
	tag   byte // tagLarge, which no small buffer starts with (see Set)
	tree  *btree.BTreeG[item]
	dict  map[string]float64
	bytes int // sum of member lengths
}

func newLarge(sizeHint int) *large {
	return &large{
		// No free list: a set keeps no memory it does not use.
		tree: btree.NewWithFreeListG(btreeDegree, less, btree.NewFreeListG[item](0)),
		dict: make(map[string]float64, sizeHint),
	}
}

func (l *large) insert(member string, score float64) {
	l.tree.ReplaceOrInsert(item{member, score})
	l.dict[member] = score
	l.bytes += len(member)
}

func (l *large) delete(it item) {
	l.tree.Delete(it)
	delete(l.dict, it.member)
	l.bytes -= len(it.member)
}

// view is the bytes of a member string, for Visitors (read only).
func view(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func nextUp(f float64) float64 { return math.Nextafter(f, math.Inf(1)) }

// ascendScore calls fn on the items of score >= r's lower bound, in order,
// until it returns false.
func (l *large) ascendScore(r ScoreRange, fn func(item) bool) {
	switch {
	case !r.MinEx:
		l.tree.AscendGreaterOrEqual(item{score: r.Min}, fn)
	case r.Min < math.Inf(1):
		// "" is the least member, so (nextUp(min), "") is the first
		// item above min.
		l.tree.AscendGreaterOrEqual(item{score: nextUp(r.Min)}, fn)
	}
}

// descendScore calls fn on the items of score <= r's upper bound, in
// reverse order, until it returns false.
func (l *large) descendScore(r ScoreRange, fn func(item) bool) {
	var pivot item // the items wanted are those below pivot
	switch {
	case r.MaxEx:
		pivot.score = r.Max
	case r.Max == math.Inf(1):
		l.tree.Descend(fn)
		return
	default:
		pivot.score = nextUp(r.Max)
	}
	l.tree.DescendLessOrEqual(pivot, func(it item) bool {
		if it.member == "" && it.score == pivot.score {
			return true
		}
		return fn(it)
	})
}

// ascendLex calls fn on the items from the first whose member is >= r's
// lower bound, in order. With unequal scores, "first" is found as if every
// item had the least score.
func (l *large) ascendLex(r LexRange, fn func(item) bool) {
	switch r.Min.Kind {
	case LexMinusInf:
		l.tree.Ascend(fn)
		return
	case LexPlusInf:
		return
	}
	first, _ := l.tree.Min()
	pivot := item{member: r.Min.Value, score: first.score}
	l.tree.AscendGreaterOrEqual(pivot, func(it item) bool {
		if r.Min.Ex && it.member == pivot.member && it.score == pivot.score {
			return true
		}
		return fn(it)
	})
}

// descendLex calls fn on the items from the last whose member is <= r's
// upper bound, in reverse order (see ascendLex for unequal scores).
func (l *large) descendLex(r LexRange, fn func(item) bool) {
	switch r.Max.Kind {
	case LexPlusInf:
		l.tree.Descend(fn)
		return
	case LexMinusInf:
		return
	}
	last, _ := l.tree.Max()
	pivot := item{member: r.Max.Value, score: last.score}
	l.tree.DescendLessOrEqual(pivot, func(it item) bool {
		if r.Max.Ex && it.member == pivot.member && it.score == pivot.score {
			return true
		}
		return fn(it)
	})
}

// ranks calls fn on the items of ranks lo..hi (0 <= lo <= hi < n), in
// ascending order if !desc. It walks from whichever end is nearer, buffering
// the items when that end yields them in the wrong order.
func (l *large) ranks(lo, hi int, desc bool, fn func(item) bool) {
	n := l.tree.Len()
	cnt := hi - lo + 1
	fromStart, fromEnd := lo, n-1-hi // items to skip from each end
	direct, other := fromStart, fromEnd
	if desc {
		direct, other = fromEnd, fromStart
	}
	if other+2*cnt >= direct {
		skip := direct
		visit := func(it item) bool {
			if skip > 0 {
				skip--
				return true
			}
			cnt--
			return fn(it) && cnt > 0
		}
		if desc {
			l.tree.Descend(visit)
		} else {
			l.tree.Ascend(visit)
		}
		return
	}
	buf := make([]item, 0, cnt)
	skip := other
	collect := func(it item) bool {
		if skip > 0 {
			skip--
			return true
		}
		buf = append(buf, it)
		return len(buf) < cnt
	}
	if desc {
		l.tree.Ascend(collect)
	} else {
		l.tree.Descend(collect)
	}
	for i := len(buf) - 1; i >= 0; i-- {
		if !fn(buf[i]) {
			return
		}
	}
}

// rank is the number of items ordered before it (or after it when
// reverse), counted from that end: O(result).
func (l *large) rank(it item, reverse bool) int {
	r := 0
	count := func(item) bool { r++; return true }
	if reverse {
		l.tree.DescendGreaterThan(it, count)
	} else {
		l.tree.AscendLessThan(it, count)
	}
	return r
}
