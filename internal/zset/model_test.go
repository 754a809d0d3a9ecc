package zset

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// model is the obvious sorted set: a sorted slice.
type model struct{ items []item }

func (m *model) find(member string) int {
	for i, it := range m.items {
		if it.member == member {
			return i
		}
	}
	return -1
}

func (m *model) add(member string, score float64) bool {
	if i := m.find(member); i >= 0 {
		m.items = append(m.items[:i], m.items[i+1:]...)
		m.insert(member, score)
		return false
	}
	m.insert(member, score)
	return true
}

func (m *model) insert(member string, score float64) {
	it := item{member, score}
	i := sort.Search(len(m.items), func(i int) bool { return less(it, m.items[i]) })
	m.items = append(m.items, item{})
	copy(m.items[i+1:], m.items[i:])
	m.items[i] = it
}

func (m *model) remove(member string) bool {
	if i := m.find(member); i >= 0 {
		m.items = append(m.items[:i], m.items[i+1:]...)
		return true
	}
	return false
}

// filter returns the items (in order, reversed if asked) that keep says.
func (m *model) filter(reverse bool, keep func(int, item) bool) []item {
	var out []item
	for i, it := range m.items {
		if keep(i, it) {
			out = append(out, it)
		}
	}
	if reverse {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

func limit(items []item, offset, count int) []item {
	if offset >= len(items) {
		return nil
	}
	items = items[offset:]
	if count >= 0 && count < len(items) {
		items = items[:count]
	}
	return items
}

func (m *model) removeWhere(keep func(int, item) bool) int {
	var out []item
	n := 0
	for i, it := range m.items {
		if keep(i, it) {
			n++
		} else {
			out = append(out, it)
		}
	}
	m.items = out
	return n
}

// collect gathers what an iteration visits.
func collect(f func(Visitor)) []item {
	var out []item
	f(func(m []byte, sc float64) bool {
		out = append(out, item{string(m), sc})
		return true
	})
	return out
}

func sameItems(a, b []item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].member != b[i].member || a[i].score != b[i].score {
			return false
		}
	}
	return true
}

// modelRun drives a Set and a model with the same random operations and
// compares every answer. lexMode gives every member the same score, so lex
// ranges are meaningful.
type modelRun struct {
	t       *testing.T
	r       *rand.Rand
	seed    int64
	lexMode bool
	keepLg  bool // never ConvertToListpackIfNeeded
	lim     Limits
	maxLen  int
	addBias int // percent of steps forced to be Add
	every   int // compare the whole content every that many steps
	members []string
	scores  []float64
}

func newModelRun(t *testing.T, seed int64, lexMode bool) *modelRun {
	return newModelRunPool(t, seed, lexMode, 150)
}

func newModelRunPool(t *testing.T, seed int64, lexMode bool, pool int) *modelRun {
	r := rand.New(rand.NewSource(seed))
	mr := &modelRun{t: t, r: r, seed: seed, lexMode: lexMode, lim: DefaultLimits()}
	mr.members = []string{"", "a", "b", "ab", "abc", "b\x00", "\x00", "\xff", "z", "zz", "A", "1700000000000:ab12cd34"}
	for i := 0; i < pool; i++ {
		n := 1 + r.Intn(12)
		if r.Intn(20) == 0 {
			n = 60 + r.Intn(10) // around the default Limits.Value
		}
		b := make([]byte, n)
		for j := range b {
			const alpha = "abcxyz\x00\xff019:"
			b[j] = alpha[r.Intn(len(alpha))]
		}
		mr.members = append(mr.members, string(b))
	}
	mr.members = append(mr.members, packMembers(r)...)
	mr.scores = []float64{math.Inf(-1), math.Inf(1), 0, math.Copysign(0, -1), 1, -1, 1.5, 2, 3,
		0.1, 1e300, -1e300, 1700000000000, 1 << 53, 1<<53 + 2, -(1 << 53), 5e-324, math.MaxFloat64,
		limiterBase, limiterBase + 1, limiterBase + 3, limiterBase - 1000, limiterBase + 0.5,
		// Deltas between integer scores of every size, and the 2^53 bounds.
		limiterBase + 127, limiterBase + 128, limiterBase + 16384, limiterBase + 60000,
		1<<53 - 1, -(1 << 53) + 1, -(1<<53 + 2), 1 << 40, -(1 << 40), -5, -1000}
	return mr
}

const limiterBase = 1764470000123

// packMembers is a pool of members of the packed forms (the seed's
// "<ms>:<8 hex>", RL.CHECK's "<ms>-<seq>", digits and a rest) around a
// few timestamps, so that ties on the score are common, and near misses
// that must stay raw or take another form.
func packMembers(r *rand.Rand) []string {
	var ms []string
	for i := 0; i < 16; i++ {
		ts := strconv.FormatInt(limiterBase+int64(r.Intn(4)), 10)
		ms = append(ms, ts+":"+fmt.Sprintf("%08x", r.Uint32()), ts+"-"+strconv.Itoa(r.Intn(1<<uint(r.Intn(40)))))
		if i < 4 {
			ms = append(ms, ts+":0a1b2c3"+strconv.Itoa(i), ts+"-"+strconv.Itoa(i))
		}
	}
	return append(ms,
		"0123:0a1b2c3d", "-0:0a1b2c3d", "+5:0a1b2c3d", "1764470000123:0A1B2C3D", "1764470000123:0a1b2c3",
		"1764470000123:0a1b2c3d4", "1764470000123:", ":", ":0a1b2c3d", "99999999999999999999:0a1b2c3d",
		"9223372036854775807:ffffffff", "-9223372036854775808:00000000", "9223372036854775808:00000000",
		"-9223372036854775809-1", "9223372036854775807", "-9223372036854775808", "9007199254740993:00000000",
		"123", "0", "-0", "-", "--1", "1-", "1-0", "1-00", "1-01", "1-18446744073709551615",
		"1-18446744073709551616", "0:00000000", "-1:ffffffff", "5-", "5--3", "7abc", "7\x00\xff", "7\xff",
		"1764470000123:0a1b2c3d#2", "1764470000123:0a1b2c3d#3", "1764470000123:0a1b2c3d\x00", "12 ", "1e3",
		"1.5", "1764470000123-0", "-5-5", "-1764470000123-5", "1764470000123:0a1b2c3dxx",
		"1:"+strings.Repeat("x", 62), "1:"+strings.Repeat("x", 63), "1764470000123:"+strings.Repeat("y", 51))
}

// scoreFor is a score for member: with some chance its leading integer,
// or near it, as rate limiters stamp their members.
func (mr *modelRun) scoreFor(member string) float64 {
	p := parseMember(member)
	if mr.lexMode || p.kind == kindRaw || mr.r.Intn(3) == 0 {
		return mr.score()
	}
	return float64(p.d) + []float64{0, 0, 0, 1, -1, 3, -100, 1e6, 0.5}[mr.r.Intn(9)]
}

func (mr *modelRun) member() string { return mr.members[mr.r.Intn(len(mr.members))] }

func (mr *modelRun) score() float64 {
	if mr.lexMode {
		return 7
	}
	if mr.r.Intn(4) == 0 {
		return math.Round(mr.r.NormFloat64()*1000) / 8
	}
	return mr.scores[mr.r.Intn(len(mr.scores))]
}

func (mr *modelRun) scoreRange() ScoreRange {
	a, b := mr.score(), mr.score()
	if mr.lexMode {
		a, b = []float64{6, 7, 8}[mr.r.Intn(3)], []float64{6, 7, 8}[mr.r.Intn(3)]
	}
	if a > b && mr.r.Intn(4) != 0 {
		a, b = b, a
	}
	return ScoreRange{Min: a, Max: b, MinEx: mr.r.Intn(3) == 0, MaxEx: mr.r.Intn(3) == 0}
}

func (mr *modelRun) lexBound() LexBound {
	switch mr.r.Intn(8) {
	case 0:
		return LexBound{Kind: LexMinusInf, Ex: true}
	case 1:
		return LexBound{Kind: LexPlusInf, Ex: true}
	}
	v := mr.member()
	if mr.r.Intn(3) == 0 && len(v) > 0 {
		v = v[:mr.r.Intn(len(v))]
	}
	return LexBound{Value: v, Ex: mr.r.Intn(2) == 0}
}

func (mr *modelRun) lexRange() LexRange {
	r := LexRange{Min: mr.lexBound(), Max: mr.lexBound()}
	if cmpBounds(r.Min, r.Max) > 0 && mr.r.Intn(4) != 0 {
		r.Min, r.Max = r.Max, r.Min
	}
	return r
}

func (mr *modelRun) fail(step int, format string, args ...any) {
	mr.t.Helper()
	mr.t.Fatalf("seed %d (lex %v), step %d: %s", mr.seed, mr.lexMode, step, fmt.Sprintf(format, args...))
}

// run does steps operations on s, checking it against a model.
func (mr *modelRun) run(s *Set, steps int) {
	m := &model{}
	r := mr.r
	for step := 0; step < steps; step++ {
		n := len(m.items)
		op := r.Intn(100)
		if r.Intn(100) < mr.addBias {
			op = 0
		}
		switch {
		case op < 40:
			member := mr.member()
			score := mr.scoreFor(member)
			if got, want := s.Add(member, score, mr.lim), m.add(member, score); got != want {
				mr.fail(step, "Add(%q, %v) = %v; want %v", member, score, got, want)
			}
		case op < 50:
			member := mr.member()
			if got, want := s.Remove(member), m.remove(member); got != want {
				mr.fail(step, "Remove(%q) = %v; want %v", member, got, want)
			}
		case op < 55:
			member := mr.member()
			sc, ok := s.Score(member)
			i := m.find(member)
			if ok != (i >= 0) || (ok && sc != m.items[i].score) {
				mr.fail(step, "Score(%q) = %v, %v", member, sc, ok)
			}
		case op < 60:
			member := mr.member()
			rev := r.Intn(2) == 0
			rank, ok := s.Rank(member, rev)
			i := m.find(member)
			if rev && i >= 0 {
				i = n - 1 - i
			}
			if ok != (i >= 0) || (ok && rank != i) {
				mr.fail(step, "Rank(%q, %v) = %d, %v; want %d", member, rev, rank, ok, i)
			}
		case op < 65 && n > 0:
			start, stop := r.Intn(n), r.Intn(n)
			if start > stop {
				start, stop = stop, start
			}
			rev := r.Intn(2) == 0
			got := collect(func(v Visitor) { s.RangeByRank(start, stop, rev, v) })
			want := m.filter(false, func(i int, _ item) bool { return i >= start && i <= stop })
			if rev {
				want = m.filter(true, func(i int, _ item) bool { return n-1-i >= start && n-1-i <= stop })
			}
			if !sameItems(got, want) {
				mr.fail(step, "RangeByRank(%d, %d, %v) = %v; want %v", start, stop, rev, got, want)
			}
			if start == stop {
				mb, sc := s.At(start)
				if !rev && (mb != want[0].member || sc != want[0].score) {
					mr.fail(step, "At(%d) = %q %v", start, mb, sc)
				}
			}
		case op < 72:
			sr := mr.scoreRange()
			rev := r.Intn(2) == 0
			offset, count := 0, -1
			if r.Intn(2) == 0 {
				offset, count = r.Intn(5), r.Intn(6)-1
			}
			got := collect(func(v Visitor) { s.RangeByScore(sr, rev, offset, count, v) })
			want := limit(m.filter(rev, func(_ int, it item) bool { return sr.Contains(it.score) }), offset, count)
			if !sameItems(got, want) {
				mr.fail(step, "RangeByScore(%+v, %v, %d, %d) = %v; want %v", sr, rev, offset, count, got, want)
			}
			if c, w := s.CountByScore(sr), len(m.filter(false, func(_ int, it item) bool { return sr.Contains(it.score) })); c != w {
				mr.fail(step, "CountByScore(%+v) = %d; want %d", sr, c, w)
			}
		case op < 78 && mr.lexMode:
			lr := mr.lexRange()
			rev := r.Intn(2) == 0
			offset, count := 0, -1
			if r.Intn(2) == 0 {
				offset, count = r.Intn(5), r.Intn(6)-1
			}
			in := func(_ int, it item) bool { return !lr.Empty() && lr.Contains(it.member) }
			got := collect(func(v Visitor) { s.RangeByLex(lr, rev, offset, count, v) })
			want := limit(m.filter(rev, in), offset, count)
			if !sameItems(got, want) {
				mr.fail(step, "RangeByLex(%+v, %v, %d, %d) = %v; want %v", lr, rev, offset, count, got, want)
			}
			if c, w := s.CountByLex(lr), len(m.filter(false, in)); c != w {
				mr.fail(step, "CountByLex(%+v) = %d; want %d", lr, c, w)
			}
		case op < 82:
			sr := mr.scoreRange()
			if sr.Min < -1e299 && r.Intn(2) == 0 {
				sr.Min = math.Inf(-1) // the sliding window case
			}
			got := s.RemoveRangeByScore(sr)
			want := m.removeWhere(func(_ int, it item) bool { return sr.Contains(it.score) })
			if got != want {
				mr.fail(step, "RemoveRangeByScore(%+v) = %d; want %d", sr, got, want)
			}
		case op < 85 && mr.lexMode:
			lr := mr.lexRange()
			got := s.RemoveRangeByLex(lr)
			want := m.removeWhere(func(_ int, it item) bool { return !lr.Empty() && lr.Contains(it.member) })
			if got != want {
				mr.fail(step, "RemoveRangeByLex(%+v) = %d; want %d", lr, got, want)
			}
		case op < 88 && n > 0:
			start, stop := r.Intn(n+2)-1, r.Intn(n+2)-1
			if r.Intn(3) == 0 {
				start = 0
			} else if r.Intn(3) == 0 {
				stop = n - 1
			}
			got := s.RemoveRangeByRank(start, stop)
			want := m.removeWhere(func(i int, _ item) bool { return i >= start && i <= stop })
			if got != want {
				mr.fail(step, "RemoveRangeByRank(%d, %d) = %d; want %d", start, stop, got, want)
			}
		case op < 92:
			count := r.Intn(4)
			max := r.Intn(2) == 0
			var got []item
			fn := func(m []byte, sc float64) { got = append(got, item{string(m), sc}) }
			var k int
			if max {
				k = s.PopMax(count, fn)
			} else {
				k = s.PopMin(count, fn)
			}
			want := limit(m.filter(max, func(int, item) bool { return true }), 0, count)
			m.removeWhere(func(i int, _ item) bool {
				if max {
					return i >= n-len(want)
				}
				return i < len(want)
			})
			if k != len(want) || !sameItems(got, want) {
				mr.fail(step, "Pop(%d, max %v) = %d %v; want %v", count, max, k, got, want)
			}
		case op < 94 && n > 0:
			ranks := make([]int, r.Intn(5)+1)
			for i := range ranks {
				ranks[i] = r.Intn(n)
			}
			sort.Ints(ranks)
			var got []item
			s.Select(ranks, func(m []byte, sc float64) { got = append(got, item{string(m), sc}) })
			var want []item
			for _, k := range ranks {
				want = append(want, m.items[k])
			}
			if !sameItems(got, want) {
				mr.fail(step, "Select(%v) = %v; want %v", ranks, got, want)
			}
		case op < 95 && r.Intn(2) == 0:
			member, score := mr.member(), mr.score()
			if r.Intn(2) == 0 && n > 0 {
				it := m.items[r.Intn(n)]
				member, score = it.member, it.score
			}
			got := collect(func(v Visitor) { s.RangeAfter(score, member, v) })
			pivot := item{member, score}
			want := m.filter(false, func(_ int, it item) bool { return less(pivot, it) })
			if !sameItems(got, want) {
				mr.fail(step, "RangeAfter(%v, %q) = %v; want %v", score, member, got, want)
			}
		case op < 95:
			c := s.Clone()
			if !sameItems(collect(func(v Visitor) { c.RangeByRank(0, c.Len()-1, false, v) }), m.items) {
				mr.fail(step, "Clone differs")
			}
			if c.Len() > 0 {
				c.PopMin(1, nil) // must not affect s
			}
		case op < 96 && !mr.keepLg:
			s.ConvertToListpackIfNeeded(mr.lim)
		}
		mr.maxLen = max(mr.maxLen, s.Len())
		if s.Len() != len(m.items) {
			mr.fail(step, "Len() = %d; want %d", s.Len(), len(m.items))
		}
		if step%max(mr.every, 1) != 0 {
			continue
		}
		if got := collect(func(v Visitor) { s.RangeByRank(0, s.Len()-1, false, v) }); !sameItems(got, m.items) {
			mr.fail(step, "content %v; want %v", got, m.items)
		}
		if s.lg() == nil {
			if int64(s.Len()) > mr.lim.Entries {
				mr.fail(step, "listpack with %d entries", s.Len())
			}
			if err := checkCanonical(s); err != nil {
				mr.fail(step, "%v", err)
			}
		} else if len(s.lg().dict) != s.lg().tree.Len() {
			mr.fail(step, "dict %d, tree %d", len(s.lg().dict), s.lg().tree.Len())
		}
	}
}

func TestModel(t *testing.T) {
	steps := 3000
	if testing.Short() {
		steps = 500
	}
	for seed := int64(1); seed <= 6; seed++ {
		for _, lex := range []bool{false, true} {
			// small only
			mr := newModelRun(t, seed, lex)
			mr.lim = Limits{Entries: 1 << 30, Value: 1 << 30}
			mr.run(New(), steps)
			// large only
			s := New()
			s.toLarge(0)
			mr = newModelRun(t, seed, lex)
			mr.lim = Limits{Entries: 1 << 30, Value: 1 << 30}
			mr.keepLg = true
			mr.run(s, steps)
			// converting: small thresholds, default member length limit
			mr = newModelRun(t, seed, lex)
			mr.lim = Limits{Entries: 20, Value: 64}
			mr.run(New(), steps)
			// Redis defaults
			newModelRun(t, seed+100, lex).run(New(), steps)
		}
	}
	// Bigger sets: B-trees of several levels.
	for _, lex := range []bool{false, true} {
		mr := newModelRunPool(t, 1000, lex, 4000)
		mr.addBias = 95
		mr.every = 50
		mr.run(New(), 4*steps)
		t.Logf("lex %v: up to %d members", lex, mr.maxLen)
	}
}

// checkCanonical checks that a small set's bytes are exactly the encoding
// of its content (so each entry has the one representation its member and
// score give) and that the entry walkers agree.
func checkCanonical(s *Set) error {
	lp := s.lp()
	if s.Len() == 0 {
		if lp != nil {
			return fmt.Errorf("empty set holds %x", lp)
		}
		return nil
	}
	want := binary.AppendUvarint(nil, uint64(s.Len()))
	n := 0
	base := int64(noBase)
	var prev float64
	for off := firstEntry(lp); off < len(lp); n++ {
		var e entry
		e.read(lp, off, base)
		sc, next, nb := entryScore(lp, off, base)
		if next != e.next || nb != e.nb || nb != baseOf(sc) || sc != e.score || (sc == 0 && math.Signbit(sc)) {
			return fmt.Errorf("entry at %d (base %d): read %+v, entryScore %v %d %d", off, base, e, sc, next, nb)
		}
		if n > 0 && sc < prev {
			return fmt.Errorf("entry at %d: score %v after %v", off, sc, prev)
		}
		m := string(e.appendMember(nil, lp))
		p := parseMember(m)
		if (e.kind == kindRaw) != (p.kind == kindRaw) && e.kind != kindRaw {
			return fmt.Errorf("%q stored as kind %d, parses as %d", m, e.kind, p.kind)
		}
		size, dd, packed := layout(m, &p, sc, base)
		b := make([]byte, size)
		putEntry(b, m, &p, sc, dd, packed, base)
		want = append(want, b...)
		off, base, prev = e.next, nb, sc
	}
	if n != s.Len() {
		return fmt.Errorf("%d entries, count %d", n, s.Len())
	}
	if string(want) != string(lp) {
		return fmt.Errorf("encoding %x; canonical %x", lp, want)
	}
	return nil
}
