package zsetcmd

import (
	"math"
	"slices"
	"strings"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/set"
	"github.com/limitkv/limitkv/internal/zset"
)

// ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, after Redis
// 7.0's zunionInterDiffGenericCommand. Order matters for the sums: Redis
// sorts the inputs by size with glibc's qsort, a stable merge sort for
// such small arrays, and folds each member's weighted scores in that order,
// so the same floating-point additions happen here in the same order.
//
// Redis also accepts plain sets as inputs, every member with score 1:
// such a source is copied into a sorted set for the call (once per set,
// so that the same key given twice is still one source for ZDIFF).

// Operations.
const (
	zopUnion = iota
	zopInter
	zopDiff
)

// Aggregates.
const (
	zaggSum = iota
	zaggMin
	zaggMax
)

func cmdZUnion(x *engine.Ctx)      { zsetOpGeneric(x, false, zopUnion, false) }
func cmdZInter(x *engine.Ctx)      { zsetOpGeneric(x, false, zopInter, false) }
func cmdZDiff(x *engine.Ctx)       { zsetOpGeneric(x, false, zopDiff, false) }
func cmdZUnionStore(x *engine.Ctx) { zsetOpGeneric(x, true, zopUnion, false) }
func cmdZInterStore(x *engine.Ctx) { zsetOpGeneric(x, true, zopInter, false) }
func cmdZDiffStore(x *engine.Ctx)  { zsetOpGeneric(x, true, zopDiff, false) }
func cmdZInterCard(x *engine.Ctx)  { zsetOpGeneric(x, false, zopInter, true) }

type zsrc struct {
	s      *zset.Set // nil for a missing key
	weight float64
}

func (z zsrc) len() int {
	if z.s == nil {
		return 0
	}
	return z.s.Len()
}

// zaggregate is zunionInterAggregate: SUM turns NaN (inf + -inf) into 0.
func zaggregate(target *float64, val float64, agg int) {
	switch agg {
	case zaggSum:
		*target += val
		if math.IsNaN(*target) {
			*target = 0
		}
	case zaggMin:
		if val < *target {
			*target = val
		}
	default:
		if val > *target {
			*target = val
		}
	}
}

var zstoreEvents = map[int]string{zopUnion: "zunionstore", zopInter: "zinterstore", zopDiff: "zdiffstore"}

func zsetOpGeneric(x *engine.Ctx, store bool, op int, cardOnly bool) {
	args := x.Args
	numIdx := 1
	if store {
		numIdx = 2
	}
	setnum, ok := num.ParseInt(args[numIdx])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if setnum < 1 {
		x.W.Error(engine.ErrZAtLeastOneKeyPfx + x.Cmd.Name + "' command")
		return
	}
	if setnum > int64(len(args)-(numIdx+1)) {
		x.W.Error(engine.ErrSyntax)
		return
	}
	src := make([]zsrc, setnum)
	j := numIdx + 1
	var fromSets map[*set.Set]*zset.Set
	for i := range src {
		// Types are checked as the keys are looked up, before the options.
		var s *zset.Set
		if e := x.Lookup(args[j]); e != nil {
			switch v := e.Val.(type) {
			case *zset.Set:
				s = v
			case *set.Set:
				if fromSets == nil {
					fromSets = make(map[*set.Set]*zset.Set)
				}
				if s = fromSets[v]; s == nil {
					s = zsetOfSet(v)
					fromSets[v] = s
				}
			default:
				x.W.Error(engine.ErrWrongType)
				return
			}
		}
		src[i] = zsrc{s: s, weight: 1}
		j++
	}
	agg := zaggSum
	withScores := false
	limit := int64(0)
	for j < len(args) {
		remaining := len(args) - j
		a := args[j]
		switch {
		case op != zopDiff && !cardOnly && remaining >= len(src)+1 && engine.CEqualFold(a, "weights"):
			j++
			for i := range src {
				w, ok := num.ParseFloat(args[j])
				if !ok {
					x.W.Error(engine.ErrZWeightNotFloat)
					return
				}
				src[i].weight = w
				j++
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && engine.CEqualFold(a, "aggregate"):
			switch b := args[j+1]; {
			case engine.CEqualFold(b, "sum"):
				agg = zaggSum
			case engine.CEqualFold(b, "min"):
				agg = zaggMin
			case engine.CEqualFold(b, "max"):
				agg = zaggMax
			default:
				x.W.Error(engine.ErrSyntax)
				return
			}
			j += 2
		case !store && !cardOnly && engine.CEqualFold(a, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && engine.CEqualFold(a, "limit"):
			n, ok := num.ParseInt(args[j+1])
			if !ok || n < 0 {
				x.W.Error(engine.ErrZLimitNegative)
				return
			}
			limit = n
			j += 2
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	if op != zopDiff {
		slices.SortStableFunc(src, func(a, b zsrc) int { return a.len() - b.len() })
	}

	if cardOnly {
		x.W.Int(zinterCard(src, limit))
		return
	}
	var res []zpair
	switch op {
	case zopUnion:
		res = zunion(src, agg)
	case zopInter:
		res = zinter(src, agg)
	default:
		res = zdiff(src)
	}
	if store {
		zstoreResult(x, args[1], zsetFromPairs(res, x.E.Cfg.ZsetLimits()), zstoreEvents[op])
		return
	}
	if op != zopDiff {
		zsortPairs(res)
	}
	engine.ZPairsHeader(x.W, len(res), withScores)
	for _, p := range res {
		engine.ZPairStart(x.W, withScores)
		x.W.BulkString(p.member)
		if withScores {
			zReplyScore(x.W, p.score)
		}
	}
}

// zsetOfSet is a set's members with score 1, for use as a source.
func zsetOfSet(s *set.Set) *zset.Set {
	z := zset.New()
	lim := zset.DefaultLimits()
	s.Each(func(m []byte) bool { z.AddBytes(m, 1, lim); return true })
	return z
}

// zpair is a member of a computed result.
type zpair struct {
	member string
	score  float64
}

// zsortPairs orders a result as a sorted set orders its members.
func zsortPairs(p []zpair) {
	slices.SortFunc(p, func(a, b zpair) int {
		switch {
		case a.score < b.score:
			return -1
		case a.score > b.score:
			return 1
		}
		return strings.Compare(a.member, b.member)
	})
}

// zsetFromPairs builds the set a store command saves. Redis computes the
// result in a skiplist and converts it to a listpack if it fits, which
// turns -0 scores into 0; a result left in the skiplist keeps them.
func zsetFromPairs(p []zpair, lim zset.Limits) *zset.Set {
	s := zset.New()
	for _, e := range p {
		s.Add(e.member, e.score, lim)
	}
	if s.Encoding() == "skiplist" {
		for _, e := range p {
			if e.score == 0 && math.Signbit(e.score) {
				zsetNegZero(s, e.member, lim)
			}
		}
	}
	return s
}

// zsetNegZero gives member of a large set the score -0 where the small
// encoding, which stores -0 as 0, lost it on the way (Add keeps a score
// equal to the old one, so the member is re-added).
func zsetNegZero(s *zset.Set, member string, lim zset.Limits) {
	if sc, ok := s.Score(member); ok && sc == 0 && !math.Signbit(sc) {
		s.Remove(member)
		s.Add(member, math.Copysign(0, -1), lim)
	}
}

// zweighted is a member's weighted score; 0 * inf gives 0, not NaN.
func zweighted(w, sc float64) float64 {
	v := w * sc
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func zunion(src []zsrc, agg int) []zpair {
	// The map only indexes res: a Go map assignment to an existing string
	// key replaces the stored key, which must never become a view of a
	// source set's memory.
	idx := make(map[string]int, src[len(src)-1].len())
	var res []zpair
	for _, z := range src {
		if z.len() == 0 {
			continue
		}
		z.s.RangeByRank(0, z.len()-1, false, func(m []byte, sc float64) bool {
			v := zweighted(z.weight, sc)
			if i, ok := idx[engine.Zview(m)]; ok {
				zaggregate(&res[i].score, v, agg)
			} else {
				ms := string(m)
				idx[ms] = len(res)
				res = append(res, zpair{ms, v})
			}
			return true
		})
	}
	return res
}

func zinter(src []zsrc, agg int) []zpair {
	var res []zpair
	zinterEach(src, agg, func(m []byte, sc float64) bool {
		res = append(res, zpair{string(m), sc})
		return true
	})
	return res
}

// zinterCard counts the intersection, stopping at limit (0: no limit).
func zinterCard(src []zsrc, limit int64) int64 {
	var n int64
	zinterEach(src, zaggSum, func([]byte, float64) bool {
		n++
		return limit == 0 || n < limit
	})
	return n
}

// zinterEach calls fn on each member of the intersection with its
// aggregated score, until fn returns false.
func zinterEach(src []zsrc, agg int, fn func(m []byte, sc float64) bool) {
	first := src[0]
	if first.len() == 0 {
		return
	}
	first.s.RangeByRank(0, first.len()-1, false, func(m []byte, sc float64) bool {
		score := zweighted(first.weight, sc)
		for _, z := range src[1:] {
			if z.s == nil {
				return true
			}
			v, ok := z.s.Score(engine.Zview(m))
			if !ok {
				return true
			}
			zaggregate(&score, v*z.weight, agg)
		}
		return fn(m, score)
	})
}

// zdiff returns the members of the first set found in no other, in the
// first set's order.
func zdiff(src []zsrc) []zpair {
	var res []zpair
	first := src[0]
	if first.len() == 0 {
		return res
	}
	first.s.RangeByRank(0, first.len()-1, false, func(m []byte, sc float64) bool {
		for _, z := range src[1:] {
			if z.s == first.s {
				return true
			}
			if z.s != nil {
				if _, ok := z.s.Score(engine.Zview(m)); ok {
					return true
				}
			}
		}
		res = append(res, zpair{string(m), sc})
		return true
	})
	return res
}
