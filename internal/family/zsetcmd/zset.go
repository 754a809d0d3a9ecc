package zsetcmd

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/glob"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/resp"
	"github.com/limitkv/limitkv/internal/zset"
)

// The sorted-set family, after Redis 7.0's t_zset.c. The data structure is
// internal/zset; this layer parses arguments in Redis's order of checks,
// looks keys up the way Redis does (lookupKeyRead for commands that only
// read, which counts keyspace hits and misses; lookupKeyWrite, which does
// not, for the others), and words every reply as Redis does.
//
// Files: zset.go (single-key commands, ZRANDMEMBER, ZSCAN), zset_range.go
// (ZRANGE and its variants, ZRANGESTORE), zset_store.go (ZUNION, ZINTER,
// ZDIFF, their STORE forms, ZINTERCARD), zset_pop.go (ZPOPMIN/MAX, ZMPOP and
// the blocking pops).
//
// Writes and WATCH: a write that changed nothing signals nothing, as Redis
// calls no signalModifiedKey then (ZADD of a member at its score, ZINCRBY by
// 0, ZREM of absent members, ...). Blocked clients: Redis wakes clients
// blocked on a key only when the key is created (dbAdd), so the writers
// signal a key they create, not one they update or overwrite.
var ZsetCommands = []*engine.Command{
	{Name: "zadd", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZAdd},
	{Name: "zincrby", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZIncrBy},
	{Name: "zrem", Arity: -3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRem},
	{Name: "zcard", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZCard},
	{Name: "zscore", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZScore},
	{Name: "zmscore", Arity: -3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZMScore},
	{Name: "zcount", Arity: 4, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZCount},
	{Name: "zlexcount", Arity: 4, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZLexCount},
	{Name: "zrange", Arity: -4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRange},
	{Name: "zrangestore", Arity: -5, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Group: "sorted-set",
		Handler: cmdZRangeStore},
	{Name: "zrangebyscore", Arity: -4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRangeByScore},
	{Name: "zrevrangebyscore", Arity: -4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRevRangeByScore},
	{Name: "zrangebylex", Arity: -4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRangeByLex},
	{Name: "zrevrangebylex", Arity: -4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRevRangeByLex},
	{Name: "zrevrange", Arity: -4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRevRange},
	{Name: "zrank", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRank},
	{Name: "zrevrank", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRevRank},
	{Name: "zremrangebyscore", Arity: 4, Flags: engine.FlagWrite, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRemRangeByScore},
	{Name: "zremrangebyrank", Arity: 4, Flags: engine.FlagWrite, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRemRangeByRank},
	{Name: "zremrangebylex", Arity: 4, Flags: engine.FlagWrite, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRemRangeByLex},
	{Name: "zpopmin", Arity: -2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZPopMin},
	{Name: "zpopmax", Arity: -2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZPopMax},
	{Name: "zmpop", Arity: -4, Flags: engine.FlagWrite, Group: "sorted-set",
		Handler: cmdZMPop},
	{Name: "bzpopmin", Arity: -3, Flags: engine.FlagWrite | engine.FlagNoScript | engine.FlagBlocking | engine.FlagFast, FirstKey: 1, LastKey: -2, Step: 1, Group: "sorted-set",
		Handler: cmdBZPopMin},
	{Name: "bzpopmax", Arity: -3, Flags: engine.FlagWrite | engine.FlagNoScript | engine.FlagBlocking | engine.FlagFast, FirstKey: 1, LastKey: -2, Step: 1, Group: "sorted-set",
		Handler: cmdBZPopMax},
	{Name: "bzmpop", Arity: -5, Flags: engine.FlagWrite | engine.FlagBlocking, Group: "sorted-set",
		Handler: cmdBZMPop},
	{Name: "zrandmember", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZRandMember},
	{Name: "zscan", Arity: -3, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZScan},
	{Name: "zunion", Arity: -3, Flags: engine.FlagReadOnly, Group: "sorted-set",
		Handler: cmdZUnion},
	{Name: "zinter", Arity: -3, Flags: engine.FlagReadOnly, Group: "sorted-set",
		Handler: cmdZInter},
	{Name: "zdiff", Arity: -3, Flags: engine.FlagReadOnly, Group: "sorted-set",
		Handler: cmdZDiff},
	{Name: "zunionstore", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZUnionStore},
	{Name: "zinterstore", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZInterStore},
	{Name: "zdiffstore", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "sorted-set",
		Handler: cmdZDiffStore},
	{Name: "zintercard", Arity: -3, Flags: engine.FlagReadOnly, Group: "sorted-set",
		Handler: cmdZInterCard},
}

// zReplyScore writes a score as Redis's addReplyDouble does: a bulk string
// in RESP2, a double in RESP3.
func zReplyScore(w *resp.Writer, sc float64) { w.Double(sc) }

// zPairsCount is the header count zPairsHeader writes, for placeholders.
func zPairsCount(w *resp.Writer, n int, withScores bool) int {
	if withScores && !w.RESP3() {
		return 2 * n
	}
	return n
}

// zsetOf, zsetRead and zsetWrite are valueOf, readAs and writeAs (types.go)
// for *zset.Set.
func zsetOf(x *engine.Ctx, e *keyspace.Entry) (*zset.Set, bool) {
	return engine.ValueOf[*zset.Set](x, e)
}
func zsetRead(x *engine.Ctx, key []byte) (*keyspace.Entry, *zset.Set, bool) {
	return engine.ReadAs[*zset.Set](x, key)
}
func zsetWrite(x *engine.Ctx, key []byte) (*keyspace.Entry, *zset.Set, bool) {
	return engine.WriteAs[*zset.Set](x, key)
}

// zsetCreated signals a sorted set just created under key to the clients
// blocked on it, as Redis's dbAdd does.
func zsetCreated(x *engine.Ctx, key []byte) {
	x.SignalReady(key)
}

// zDropIfEmpty deletes a key whose set was emptied, as every Redis writer
// does before returning.
func zDropIfEmpty(x *engine.Ctx, e *keyspace.Entry, s *zset.Set) {
	if s.Len() == 0 {
		x.DB.Remove(e)
	}
}

// ZADD input flags, as Redis's ZADD_IN_*.
const (
	zaddNX = 1 << iota
	zaddXX
	zaddGT
	zaddLT
	zaddIncr
	zaddCH
)

func cmdZAdd(x *engine.Ctx) { zaddGeneric(x, 0) }

func cmdZIncrBy(x *engine.Ctx) { zaddGeneric(x, zaddIncr) }

// zaddGeneric is zaddGenericCommand: ZADD, and ZINCRBY as ZADD INCR.
func zaddGeneric(x *engine.Ctx, flags int) {
	args := x.Args
	key := args[1]
	si := 2
	for ; si < len(args); si++ {
		a := args[si]
		switch {
		case engine.CEqualFold(a, "nx"):
			flags |= zaddNX
		case engine.CEqualFold(a, "xx"):
			flags |= zaddXX
		case engine.CEqualFold(a, "ch"):
			flags |= zaddCH
		case engine.CEqualFold(a, "incr"):
			flags |= zaddIncr
		case engine.CEqualFold(a, "gt"):
			flags |= zaddGT
		case engine.CEqualFold(a, "lt"):
			flags |= zaddLT
		default:
			goto parsed
		}
	}
parsed:
	nx, xx, gt, lt := flags&zaddNX != 0, flags&zaddXX != 0, flags&zaddGT != 0, flags&zaddLT != 0
	incr, ch := flags&zaddIncr != 0, flags&zaddCH != 0
	elements := len(args) - si
	if elements == 0 || elements%2 != 0 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	elements /= 2
	switch {
	case nx && xx:
		x.W.Error(engine.ErrZAddNXXX)
		return
	case (gt && nx) || (lt && nx) || (gt && lt):
		x.W.Error(engine.ErrZAddGTLTNX)
		return
	case incr && elements > 1:
		x.W.Error(engine.ErrZAddIncrPair)
		return
	}
	// Every score is checked before anything changes; the loop below parses
	// them again rather than keeping them in an allocated slice.
	for j := si; j < len(args); j += 2 {
		if _, ok := num.ParseFloat(args[j]); !ok {
			x.W.Error(engine.ErrNotFloat)
			return
		}
	}

	_, s, ok := zsetWrite(x, key)
	if !ok {
		return
	}
	if s == nil {
		if xx {
			if incr {
				x.W.Null()
			} else {
				x.W.Int(0)
			}
			return
		}
		ent := x.DB.SetInSlot(key) // the set's handle lives in the entry
		s = zset.NewIn(ent.Slot())
		ent.Val = s
		zsetCreated(x, key)
	}

	var added, updated, processed int
	var score float64
	// The plain form needs no lookup before Add: its reply counts only
	// additions, and nobody watches, tracks or listens for updates.
	plain := flags == 0 && x.E.WritesUnseen(config.EvZSet)
	lim := x.E.Cfg.ZsetLimits()
	for j := si; j < len(args); j += 2 {
		score, _ = num.ParseFloat(args[j])
		m := args[j+1]
		if plain {
			switch a, c := s.Put(m, score, lim); {
			case a:
				added++
			case c:
				updated++ // for server.dirty; the reply counts only the added
			}
			continue
		}
		cur, exists := s.Score(engine.Zview(m))
		if !exists {
			if xx {
				continue
			}
			s.AddBytes(m, score, lim)
			added++
			processed++
			continue
		}
		if nx {
			continue
		}
		if incr {
			score += cur
			if math.IsNaN(score) {
				x.W.Error(engine.ErrZAddNaN)
				return
			}
		}
		if (lt && score >= cur) || (gt && score <= cur) {
			continue
		}
		processed++
		if score != cur {
			s.AddBytes(m, score, lim)
			updated++
		}
	}
	if added+updated == 0 {
	}
	defer func() {
		// After the reply, as Redis's cleanup label.
		if added+updated > 0 {
			x.Modified(key)
			for range added + updated - 1 {
				x.Dirty() // server.dirty += added+updated
			}
			if incr {
				x.Notify(config.EvZSet, "zincr", key)
			} else {
				x.Notify(config.EvZSet, "zadd", key)
			}
		}
	}()
	switch {
	case incr && processed > 0:
		zReplyScore(x.W, score)
	case incr:
		x.W.Null()
	case ch:
		x.W.Int(int64(added + updated))
	default:
		x.W.Int(int64(added))
	}
}

func cmdZScore(x *engine.Ctx) {
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Null()
		return
	}
	sc, found := s.Score(engine.Zview(x.Args[2]))
	if !found {
		x.W.Null()
		return
	}
	zReplyScore(x.W, sc)
}

func cmdZMScore(x *engine.Ctx) {
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if s == nil {
			x.W.Null()
			continue
		}
		if sc, found := s.Score(engine.Zview(m)); found {
			zReplyScore(x.W, sc)
		} else {
			x.W.Null()
		}
	}
}

// rankRange turns ZRANGE-style indexes (negative from the end) into an
// inclusive range of ranks within a set of n members, as Redis clamps them;
// ok is false when the range is empty.
func rankRange(start, end int64, n int) (lo, hi int, ok bool) {
	l := int64(n)
	if start < 0 {
		start += l
	}
	if end < 0 {
		end += l
	}
	start = max(start, 0)
	end = min(end, l-1)
	if start > end {
		return 0, 0, false
	}
	return int(start), int(end), true
}

func cmdZCount(x *engine.Ctx) {
	zcountGeneric(x, zset.ParseScoreRange, engine.ErrMinMaxFloat, (*zset.Set).CountByScore)
}

func cmdZLexCount(x *engine.Ctx) {
	zcountGeneric(x, zset.ParseLexRange, engine.ErrMinMaxLex, (*zset.Set).CountByLex)
}

// zcountGeneric is ZCOUNT and ZLEXCOUNT: the range is parsed (and refused
// with badRange) before the key is looked at, as in Redis.
func zcountGeneric[R any](x *engine.Ctx, parse func(min, max []byte) (R, error), badRange string, count func(*zset.Set, R) int) {
	r, err := parse(x.Args[2], x.Args[3])
	if err != nil {
		x.W.Error(badRange)
		return
	}
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(count(s, r)))
}

func cmdZRank(x *engine.Ctx)    { zrankGeneric(x, false) }
func cmdZRevRank(x *engine.Ctx) { zrankGeneric(x, true) }

func zrankGeneric(x *engine.Ctx, reverse bool) {
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Null()
		return
	}
	r, found := s.Rank(engine.Zview(x.Args[2]), reverse)
	if !found {
		x.W.Null()
		return
	}
	x.W.Int(int64(r))
}

// zrem range kinds.
const (
	zrangeRank = iota
	zrangeScore
	zrangeLex
)

func cmdZRemRangeByRank(x *engine.Ctx)  { zremrangeGeneric(x, zrangeRank) }
func cmdZRemRangeByScore(x *engine.Ctx) { zremrangeGeneric(x, zrangeScore) }
func cmdZRemRangeByLex(x *engine.Ctx)   { zremrangeGeneric(x, zrangeLex) }

// zremrangeGeneric is zremrangeGenericCommand: the range is parsed before
// the key is looked up.
var zremrangeEvents = map[int]string{zrangeRank: "zremrangebyrank", zrangeScore: "zremrangebyscore", zrangeLex: "zremrangebylex"}

func zremrangeGeneric(x *engine.Ctx, kind int) {
	var (
		start, end int64
		sr         zset.ScoreRange
		lr         zset.LexRange
		err        error
	)
	switch kind {
	case zrangeRank:
		var ok1, ok2 bool
		start, ok1 = num.ParseInt(x.Args[2])
		if ok1 {
			end, ok2 = num.ParseInt(x.Args[3])
		}
		if !ok1 || !ok2 {
			x.W.Error(engine.ErrNotInt)
			return
		}
	case zrangeScore:
		if sr, err = zset.ParseScoreRange(x.Args[2], x.Args[3]); err != nil {
			x.W.Error(engine.ErrMinMaxFloat)
			return
		}
	default:
		if lr, err = zset.ParseLexRange(x.Args[2], x.Args[3]); err != nil {
			x.W.Error(engine.ErrMinMaxLex)
			return
		}
	}
	e, s, ok := zsetWrite(x, x.Args[1])
	if !ok {
		return
	}
	deleted := 0
	if s != nil {
		switch kind {
		case zrangeRank:
			if lo, hi, ok := rankRange(start, end, s.Len()); ok {
				deleted = s.RemoveRangeByRank(lo, hi)
			}
		case zrangeScore:
			deleted = s.RemoveRangeByScore(sr)
		default:
			deleted = s.RemoveRangeByLex(lr)
		}
		zDropIfEmpty(x, e, s)
	}
	if deleted == 0 {
	} else {
		x.Modified(x.Args[1])
		x.Notify(config.EvZSet, zremrangeEvents[kind], x.Args[1])
		if s.Len() == 0 {
			x.Notify(config.EvGeneric, "del", x.Args[1])
		}
	}
	x.W.Int(int64(deleted))
}

// ZRANDMEMBER.

func cmdZRandMember(x *engine.Ctx) {
	args := x.Args
	if len(args) >= 3 {
		l, ok := num.ParseInt(args[2])
		if !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
		if l == math.MinInt64 {
			x.W.Error(engine.ErrZRandCountRange)
			return
		}
		withScores := false
		if len(args) > 4 || (len(args) == 4 && !engine.CEqualFold(args[3], "withscores")) {
			x.W.Error(engine.ErrSyntax)
			return
		} else if len(args) == 4 {
			withScores = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				x.W.Error(engine.ErrValueOutOfRange)
				return
			}
		}
		zrandWithCount(x, l, withScores)
		return
	}
	_, s, ok := zsetRead(x, args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Null()
		return
	}
	m, _ := s.At(rand.IntN(s.Len()))
	x.W.BulkString(m)
}

// zrandWithCount is zrandmemberWithCountCommand. The shapes are Redis's; the
// random choices are not (they cannot be): a positive count gives that many
// distinct members, or the whole set from the highest score down as Redis
// iterates it when the count covers the set; a negative count gives that
// many independent picks.
func zrandWithCount(x *engine.Ctx, l int64, withScores bool) {
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	if s == nil || l == 0 {
		x.W.Array(0)
		return
	}
	size := s.Len()
	if l < 0 || l == 1 {
		count := uint64(1)
		if l < 0 {
			count = uint64(-l)
		}
		if count > engine.ZrandMaxPicks {
			x.W.Error(engine.ErrValueOutOfRange)
			return
		}
		engine.ZPairsHeader(x.W, int(count), withScores)
		var z zrandPicker
		for count > 0 {
			k := int(min(count, zrandSampleLimit))
			count -= uint64(k)
			ranks := z.ranks[:0]
			for range k {
				ranks = append(ranks, rand.IntN(size))
			}
			z.ranks = ranks
			z.emit(x, s, withScores)
		}
		return
	}
	count := int(min(l, int64(size)))
	engine.ZPairsHeader(x.W, count, withScores)
	if count == size {
		s.RangeByRank(0, size-1, true, func(m []byte, sc float64) bool {
			engine.ZPairStart(x.W, withScores)
			x.W.Bulk(m)
			if withScores {
				zReplyScore(x.W, sc)
			}
			return true
		})
		return
	}
	var z zrandPicker
	if count*3 > size {
		z.ranks = rand.Perm(size)[:count]
	} else {
		seen := make(map[int]struct{}, count)
		z.ranks = make([]int, 0, count)
		for len(z.ranks) < count {
			r := rand.IntN(size)
			if _, dup := seen[r]; dup {
				continue
			}
			seen[r] = struct{}{}
			z.ranks = append(z.ranks, r)
		}
	}
	z.emit(x, s, withScores)
}

// zrandSampleLimit bounds the picks drawn at once for a negative count, so
// a large count streams into the reply instead of filling a huge slice
// first (Redis's ZRANDMEMBER_RANDOM_SAMPLE_LIMIT).
const zrandSampleLimit = 1000

// zrandPicker reads the members of randomly drawn ranks in one ordered pass
// over the set and replies them in the order they were drawn.
type zrandPicker struct {
	ranks   []int // drawn ranks, in reply order
	order   []int // indexes into ranks, by rank
	sorted  []int
	members [][]byte
	scores  []float64
}

func (z *zrandPicker) emit(x *engine.Ctx, s *zset.Set, withScores bool) {
	k := len(z.ranks)
	z.order = z.order[:0]
	for i := range k {
		z.order = append(z.order, i)
	}
	slices.SortFunc(z.order, func(a, b int) int { return z.ranks[a] - z.ranks[b] })
	z.sorted = z.sorted[:0]
	for _, i := range z.order {
		z.sorted = append(z.sorted, z.ranks[i])
	}
	for len(z.members) < k {
		z.members = append(z.members, nil)
		z.scores = append(z.scores, 0)
	}
	i := 0
	s.Select(z.sorted, func(m []byte, sc float64) {
		p := z.order[i]
		z.members[p] = append(z.members[p][:0], m...)
		z.scores[p] = sc
		i++
	})
	for p := range k {
		engine.ZPairStart(x.W, withScores)
		x.W.Bulk(z.members[p])
		if withScores {
			zReplyScore(x.W, z.scores[p])
		}
	}
}

// ZSCAN.
//
// A small (listpack) set is returned whole with cursor 0, as Redis does. A
// large set is walked in score order with a stateless cursor: the cursor is
// the last score returned, mapped to a uint64 that keeps float order (never
// 0: that would be a NaN), and the next call resumes at the first score
// above it. A call returns at least COUNT members and then finishes the run
// of members sharing the last score, so the guarantee of SCAN holds: every
// member present with the same score for the whole iteration is returned,
// exactly once. A set whose members all share one score (a lexicographic
// index) is therefore returned in one call.

func ZscanCursor(score float64) uint64 {
	b := math.Float64bits(score)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func ZscanScore(c uint64) float64 {
	if c>>63 == 1 {
		return math.Float64frombits(c &^ (1 << 63))
	}
	return math.Float64frombits(^c)
}

func cmdZScan(x *engine.Ctx) {
	cursor, ok := engine.ParseScanCursor(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrInvalidCursor)
		return
	}
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Array(2)
		x.W.BulkString("0")
		x.W.Array(0)
		return
	}
	o, ok := engine.ParseScanOptions(x, 3, false)
	if !ok {
		return
	}
	count, pat, usePat := o.Count, o.Pat, o.UsePat

	x.W.Array(2)
	next := uint64(0)
	r := zset.AllScores
	whole := s.Encoding() == "listpack"
	if !whole && cursor != 0 {
		r.Min, r.MinEx = ZscanScore(cursor), true
	}
	if math.IsNaN(r.Min) {
		x.W.BulkString("0")
		x.W.Array(0)
		return
	}
	// The cursor is written after the walk; the members go to a second
	// writer first.
	var body resp.Writer
	n := 0
	taken := int64(0)
	last := 0.0
	s.RangeByScore(r, false, 0, -1, func(m []byte, sc float64) bool {
		if !whole && taken >= count && sc != last {
			next = ZscanCursor(last)
			return false
		}
		taken++
		last = sc
		if usePat && !glob.Match(pat, m, false) {
			return true
		}
		body.Bulk(m)
		zReplyScore(&body, sc)
		n += 2
		return true
	})
	var cbuf [20]byte
	x.W.Bulk(strconv.AppendUint(cbuf[:0], next, 10))
	x.W.Array(n)
	x.W.Raw(body.Bytes())
}

func cmdZCard(x *engine.Ctx) { engine.CardGeneric[*zset.Set](x) }

func cmdZRem(x *engine.Ctx) {
	engine.RemoveGeneric(x, config.EvZSet, "zrem", func(s *zset.Set, m []byte) bool { return s.Remove(engine.Zview(m)) })
}
