package zsetcmd

import (
	"math"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/zset"
)

// ZRANGE and its older forms, and ZRANGESTORE, after Redis 7.0's
// zrangeGenericCommand: options first (in any order), then the LIMIT and
// WITHSCORES combination errors, then the range, then the key.

// Range directions of zrangeGenericCommand.
const (
	zdirAuto = iota
	zdirForward
	zdirReverse
)

// zrangeAuto is the range kind before BYSCORE/BYLEX are seen.
const zrangeAuto = -1

func cmdZRange(x *engine.Ctx)           { zrangeGeneric(x, 1, false, zrangeAuto, zdirAuto) }
func cmdZRangeStore(x *engine.Ctx)      { zrangeGeneric(x, 2, true, zrangeAuto, zdirAuto) }
func cmdZRevRange(x *engine.Ctx)        { zrangeGeneric(x, 1, false, zrangeRank, zdirReverse) }
func cmdZRangeByScore(x *engine.Ctx)    { zrangeGeneric(x, 1, false, zrangeScore, zdirForward) }
func cmdZRevRangeByScore(x *engine.Ctx) { zrangeGeneric(x, 1, false, zrangeScore, zdirReverse) }
func cmdZRangeByLex(x *engine.Ctx)      { zrangeGeneric(x, 1, false, zrangeLex, zdirForward) }
func cmdZRevRangeByLex(x *engine.Ctx)   { zrangeGeneric(x, 1, false, zrangeLex, zdirReverse) }

// zrangeOut receives a range's members: the client's reply, or the set
// ZRANGESTORE builds.
type zrangeOut struct {
	x          *engine.Ctx
	withScores bool
	store      *zset.Set // ZRANGESTORE's result; nil when replying
	lim        zset.Limits
	n          int
	negZero    []string // stored members scored -0
}

func (o *zrangeOut) visit(m []byte, sc float64) bool {
	o.n++
	if o.store != nil {
		ms := string(m)
		o.store.Add(ms, sc, o.lim)
		if sc == 0 && math.Signbit(sc) {
			o.negZero = append(o.negZero, ms)
		}
		return true
	}
	engine.ZPairStart(o.x.W, o.withScores)
	o.x.W.Bulk(m)
	if o.withScores {
		zReplyScore(o.x.W, sc)
	}
	return true
}

func zrangeGeneric(x *engine.Ctx, argStart int, store bool, kind, dir int) {
	args := x.Args
	minIdx, maxIdx := argStart+1, argStart+2
	withScores := false
	offset, limit := int64(0), int64(-1)
	for j := argStart + 3; j < len(args); j++ {
		a := args[j]
		left := len(args) - j - 1
		switch {
		case !store && engine.CEqualFold(a, "withscores"):
			withScores = true
		case engine.CEqualFold(a, "limit") && left >= 2:
			var ok bool
			if offset, ok = num.ParseInt(args[j+1]); ok {
				limit, ok = num.ParseInt(args[j+2])
			}
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			j += 2
		case dir == zdirAuto && engine.CEqualFold(a, "rev"):
			dir = zdirReverse
		case kind == zrangeAuto && engine.CEqualFold(a, "bylex"):
			kind = zrangeLex
		case kind == zrangeAuto && engine.CEqualFold(a, "byscore"):
			kind = zrangeScore
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	if dir == zdirAuto {
		dir = zdirForward
	}
	if kind == zrangeAuto {
		kind = zrangeRank
	}
	// Redis tests the parsed count against its default: "LIMIT 5 -1" with
	// an index range passes and means nothing.
	if limit != -1 && kind == zrangeRank {
		x.W.Error(engine.ErrZRangeLimit)
		return
	}
	if withScores && kind == zrangeLex {
		x.W.Error(engine.ErrZRangeLexScores)
		return
	}
	reverse := dir == zdirReverse
	if reverse && kind != zrangeRank {
		minIdx, maxIdx = maxIdx, minIdx
	}
	var (
		start, end int64
		sr         zset.ScoreRange
		lr         zset.LexRange
		err        error
	)
	switch kind {
	case zrangeRank:
		var ok bool
		if start, ok = num.ParseInt(args[minIdx]); ok {
			end, ok = num.ParseInt(args[maxIdx])
		}
		if !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
	case zrangeScore:
		if sr, err = zset.ParseScoreRange(args[minIdx], args[maxIdx]); err != nil {
			x.W.Error(engine.ErrMinMaxFloat)
			return
		}
	default:
		if lr, err = zset.ParseLexRange(args[minIdx], args[maxIdx]); err != nil {
			x.W.Error(engine.ErrMinMaxLex)
			return
		}
	}

	_, s, ok := zsetRead(x, args[argStart])
	if !ok {
		return
	}
	out := zrangeOut{x: x, withScores: withScores, lim: x.E.Cfg.ZsetLimits()}
	if store {
		out.store = zset.New()
	}
	if s == nil {
		if store {
			zstoreResult(x, args[1], out.store, "zrangestore")
		} else {
			x.W.Array(0)
		}
		return
	}

	switch kind {
	case zrangeRank:
		lo, hi, ok := rankRange(start, end, s.Len())
		if !ok {
			if store {
				zstoreResult(x, args[1], out.store, "zrangestore")
			} else {
				x.W.Array(0)
			}
			return
		}
		if !store {
			engine.ZPairsHeader(x.W, hi-lo+1, withScores)
		}
		s.RangeByRank(lo, hi, reverse, out.visit)
		// Redis builds a result longer than zset-max-listpack-entries in a
		// skiplist from the start, where -0 scores stay -0.
		if store && int64(hi-lo+1) > out.lim.Entries {
			for _, m := range out.negZero {
				zsetNegZero(out.store, m, out.lim)
			}
		}
	case zrangeScore:
		var off int
		if !store {
			off = x.W.ArrayPlaceholder()
		}
		// Redis answers at once when the offset alone passes the end.
		if !(offset > 0 && offset >= int64(s.Len())) {
			s.RangeByScore(sr, reverse, int(offset), int(limit), out.visit)
		}
		if !store {
			x.W.PatchArray(off, zPairsCount(x.W, out.n, withScores))
		}
	default:
		var off int
		if !store {
			off = x.W.ArrayPlaceholder()
		}
		s.RangeByLex(lr, reverse, int(offset), int(limit), out.visit)
		if !store {
			x.W.PatchArray(off, zPairsCount(x.W, out.n, withScores))
		}
	}
	if store {
		zstoreResult(x, args[1], out.store, "zrangestore")
	}
}

// zstoreResult stores a computed set under dst as Redis's setKey does (the
// old value and its TTL go) and replies its size; an empty result deletes
// dst instead and replies 0.
func zstoreResult(x *engine.Ctx, dst []byte, res *zset.Set, event string) {
	if res.Len() == 0 {
		x.W.Int(0)
		if x.DB.Delete(dst, x.Now) {
			x.Modified(dst)
			x.Notify(config.EvGeneric, "del", dst)
		}
		return
	}
	existed := x.DB.Get(dst, x.Now) != nil
	x.DB.Set(dst, res, false)
	if !existed {
		zsetCreated(x, dst)
	}
	x.Modified(dst)
	x.W.Int(int64(res.Len()))
	x.Notify(config.EvZSet, event, dst)
}
