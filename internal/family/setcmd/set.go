package setcmd

import (
	"bytes"
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
	"github.com/limitkv/limitkv/internal/set"
)

// The set family, after Redis 7.0's t_set.c. The value is internal/set
// (intset or hash table); this layer parses arguments in Redis's order of
// checks, looks keys up as Redis does (lookupKeyRead, counting keyspace
// hits and misses, for the commands that only read their keys and for the
// sources of SINTERSTORE, SUNIONSTORE and SDIFFSTORE; lookupKeyWrite, which
// does not count, for SADD, SREM, SMOVE and SPOP), and builds every
// computed result the way Redis does: as a new intset that converts when a
// member is not an integer or the result outgrows set-max-intset-entries.
// That construction decides the result's encoding (OBJECT ENCODING of a
// stored result, and of a set SPOP rebuilt) and, for an intset result, its
// ascending reply order, so the algorithms that build it (SDIFF's two,
// SPOP's three cases) follow Redis's choices exactly.
//
// Files: set.go (single-key commands, SMOVE, SPOP, SRANDMEMBER, SSCAN),
// set_ops.go (SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD).
//
// WATCH: a write signals the keys it changed (Ctx.Modified) where Redis
// calls signalModifiedKey: not when it changed nothing, and for SMOVE and
// the STORE forms only the keys they wrote.
// Sets never wake blocked clients: no blocking command waits for a set.
var SetCommands = []*engine.Command{
	{Name: "sadd", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSAdd},
	{Name: "srem", Arity: -3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSRem},
	{Name: "scard", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSCard},
	{Name: "sismember", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSIsMember},
	{Name: "smismember", Arity: -3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSMIsMember},
	{Name: "smembers", Arity: 2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSInter},
	{Name: "srandmember", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSRandMember},
	{Name: "spop", Arity: -2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSPop},
	{Name: "smove", Arity: 4, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 2, Step: 1, Group: "set",
		Handler: cmdSMove},
	{Name: "sinter", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: -1, Step: 1, Group: "set",
		Handler: cmdSInter},
	{Name: "sintercard", Arity: -3, Flags: engine.FlagReadOnly, Group: "set",
		Handler: cmdSInterCard},
	{Name: "sinterstore", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Group: "set",
		Handler: cmdSInterStore},
	{Name: "sunion", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: -1, Step: 1, Group: "set",
		Handler: cmdSUnion},
	{Name: "sunionstore", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Group: "set",
		Handler: cmdSUnionStore},
	{Name: "sdiff", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: -1, Step: 1, Group: "set",
		Handler: cmdSDiff},
	{Name: "sdiffstore", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Group: "set",
		Handler: cmdSDiffStore},
	{Name: "sscan", Arity: -3, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "set",
		Handler: cmdSScan},
}

// setOf, setRead and setWrite are valueOf, readAs and writeAs (types.go)
// for *set.Set.
func setOf(x *engine.Ctx, e *keyspace.Entry) (*set.Set, bool) { return engine.ValueOf[*set.Set](x, e) }
func setRead(x *engine.Ctx, key []byte) (*keyspace.Entry, *set.Set, bool) {
	return engine.ReadAs[*set.Set](x, key)
}
func setWrite(x *engine.Ctx, key []byte) (*keyspace.Entry, *set.Set, bool) {
	return engine.WriteAs[*set.Set](x, key)
}

func maxIntset(x *engine.Ctx) int64 { return x.E.Cfg.SetMaxIntsetEntries.Load() }

func cmdSAdd(x *engine.Ctx) {
	key := x.Args[1]
	_, s, ok := setWrite(x, key)
	if !ok {
		return
	}
	if s == nil {
		s = set.NewFor(x.Args[2])
		x.DB.Set(key, s, false)
	}
	added := 0
	lim := maxIntset(x)
	for _, m := range x.Args[2:] {
		if s.Add(m, lim) {
			added++
		}
	}
	if added == 0 {
	} else {
		x.Modified(key)
		x.Notify(config.EvSet, "sadd", key)
	}
	x.W.Int(int64(added))
}

func replyBool(w *resp.Writer, b bool) {
	if b {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

func cmdSIsMember(x *engine.Ctx) {
	_, s, ok := setRead(x, x.Args[1])
	if !ok {
		return
	}
	replyBool(x.W, s != nil && s.Has(x.Args[2]))
}

func cmdSMIsMember(x *engine.Ctx) {
	_, s, ok := setRead(x, x.Args[1])
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		replyBool(x.W, s != nil && s.Has(m))
	}
}

// cmdSMove is smoveCommand: a missing source answers 0 before the types
// are checked, and a move onto the same set only reports membership.
func cmdSMove(x *engine.Ctx) {
	src, dst, m := x.Args[1], x.Args[2], x.Args[3]
	se := x.DB.Get(src, x.Now)
	de := x.DB.Get(dst, x.Now)
	if se == nil {
		x.W.Int(0)
		return
	}
	ss, ok := setOf(x, se)
	if !ok {
		return
	}
	ds, ok := setOf(x, de)
	if !ok {
		return
	}
	if se == de {
		replyBool(x.W, ss.Has(m))
		return
	}
	if !ss.Remove(m) {
		x.W.Int(0)
		return
	}
	x.Notify(config.EvSet, "srem", src)
	if ss.Len() == 0 {
		x.DB.Remove(se)
		x.Notify(config.EvGeneric, "del", src)
	}
	if ds == nil {
		ds = set.NewFor(m)
		x.DB.Set(dst, ds, false)
	}
	x.Modified(src)
	if ds.Add(m, maxIntset(x)) {
		x.Modified(dst)
		x.Notify(config.EvSet, "sadd", dst)
	}
	x.W.Int(1)
}

// SPOP.

// spopMoveStrategyMul is Redis's SPOP_MOVE_STRATEGY_MUL: when fewer than
// 1/5 of the popped count would remain, SPOP builds the remainder as a new
// set instead of removing members one by one.
const spopMoveStrategyMul = 5

func cmdSPop(x *engine.Ctx) {
	args := x.Args
	if len(args) > 3 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	if len(args) == 3 {
		spopWithCount(x)
		return
	}
	e, s, ok := setWrite(x, args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Null()
		return
	}
	var buf [64]byte
	m := s.Random(buf[:0])
	s.Remove(m)
	x.Notify(config.EvSet, "spop", args[1])
	x.W.Bulk(m)
	x.Rewrite(engine.ArgSRem, args[1], m) // the member drawn, not the draw
	if s.Len() == 0 {
		x.DB.Remove(e)
		x.Notify(config.EvGeneric, "del", args[1])
	}
	x.Modified(args[1])
}

func spopWithCount(x *engine.Ctx) {
	key := x.Args[1]
	l, ok := num.ParseInt(x.Args[2])
	if !ok || l < 0 {
		x.W.Error(engine.ErrValueMustPositive)
		return
	}
	e, s, ok := setWrite(x, key)
	if !ok {
		return
	}
	if s == nil || l == 0 {
		x.W.Set(0)
		return
	}
	count, size := uint64(l), uint64(s.Len())
	x.Notify(config.EvSet, "spop", key)
	if count >= size {
		// Redis answers with SUNION of the set (a lookup that counts a
		// hit), so the reply is in the order of a freshly built set.
		x.Lookup(key)
		res := setUnion([]*set.Set{s}, maxIntset(x))
		replyMembers(x.W, res)
		x.DB.Remove(e)
		x.Notify(config.EvGeneric, "del", key)
		x.Modified(key)
		x.Rewrite(engine.ArgDel, key)
		return
	}
	// One SREM per member popped, as Redis 7.0 propagates them.
	x.NoPropagate()
	x.W.Set(int(count))
	remaining := size - count
	var buf []byte
	if remaining*spopMoveStrategyMul > count {
		for range count {
			buf = s.Random(buf[:0])
			s.Remove(buf)
			x.W.Bulk(buf)
			x.AlsoPropagate(engine.ArgSRem, key, buf)
		}
		x.Modified(key)
		return
	}
	// Few remain: draw them into a new set (whose encoding starts from the
	// first one drawn), reply what is left of the old one, and keep the new
	// one under the key with its TTL.
	var ns *set.Set
	lim := maxIntset(x)
	for range remaining {
		buf = s.Random(buf[:0])
		if ns == nil {
			ns = set.NewFor(buf)
		}
		ns.Add(buf, lim)
		s.Remove(buf)
	}
	s.Each(func(m []byte) bool { x.W.Bulk(m); x.AlsoPropagate(engine.ArgSRem, key, m); return true })
	e.Val = ns
	x.Modified(key)
}

// SRANDMEMBER.

// srandSubStrategyMul is Redis's SRANDMEMBER_SUB_STRATEGY_MUL.
const srandSubStrategyMul = 3

func cmdSRandMember(x *engine.Ctx) {
	args := x.Args
	if len(args) > 3 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	if len(args) == 3 {
		srandWithCount(x)
		return
	}
	_, s, ok := setRead(x, args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Null()
		return
	}
	var buf [64]byte
	x.W.Bulk(s.Random(buf[:0]))
}

// srandWithCount is srandmemberWithCountCommand. The shapes are Redis's;
// the random choices cannot be: a negative count gives that many
// independent picks, a positive one that many distinct members, or the
// whole set in its iteration order when the count covers it.
func srandWithCount(x *engine.Ctx) {
	l, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if l == math.MinInt64 {
		x.W.Error(engine.ErrZRandCountRange)
		return
	}
	_, s, ok := setRead(x, x.Args[1])
	if !ok {
		return
	}
	if s == nil || l == 0 {
		x.W.Array(0)
		return
	}
	size := s.Len()
	var buf []byte
	if l < 0 || l == 1 {
		count := uint64(1)
		if l < 0 {
			count = uint64(-l)
		}
		if count > engine.ZrandMaxPicks {
			x.W.Error(engine.ErrValueOutOfRange)
			return
		}
		x.W.Array(int(count))
		for range count {
			buf = s.Random(buf[:0])
			x.W.Bulk(buf)
		}
		return
	}
	if l >= int64(size) {
		// An array, not a set, as Redis's SRANDMEMBER replies.
		x.W.Array(s.Len())
		s.Each(func(m []byte) bool { x.W.Bulk(m); return true })
		return
	}
	count := int(l)
	x.W.Array(count)
	if count*srandSubStrategyMul > size {
		// Close to the whole set: take it all and drop random members.
		all := make([]string, 0, size)
		s.Each(func(m []byte) bool { all = append(all, string(m)); return true })
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		for _, m := range all[:count] {
			x.W.BulkString(m)
		}
		return
	}
	picked := make(map[string]struct{}, count)
	for len(picked) < count {
		buf = s.Random(buf[:0])
		if _, dup := picked[string(buf)]; dup {
			continue
		}
		picked[string(buf)] = struct{}{}
		x.W.Bulk(buf)
	}
}

// replyMembers writes every member of s as a set (an array in RESP2), in
// iteration order, as Redis's SUNION, SDIFF and SPOP reply.
func replyMembers(w *resp.Writer, s *set.Set) {
	w.Set(s.Len())
	s.Each(func(m []byte) bool { w.Bulk(m); return true })
}

// SSCAN.
//
// An intset is returned whole with cursor 0, as Redis returns a compact
// encoding. A hash table is walked with the reverse-binary cursor: like
// Redis's scanGenericCommand, a call visits buckets until it has COUNT
// members or has visited ten times COUNT buckets, then filters by MATCH.

func cmdSScan(x *engine.Ctx) {
	cursor, ok := engine.ParseScanCursor(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrInvalidCursor)
		return
	}
	_, s, ok := setRead(x, x.Args[1])
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
	var found [][]byte
	keep := func(m []byte) {
		if !o.UsePat || glob.Match(o.Pat, m, false) {
			found = append(found, bytes.Clone(m))
		}
	}
	next := uint64(0)
	if s.IsIntset() {
		s.Scan(0, keep)
	} else {
		// The count is compared before filtering, as in Redis.
		visited := 0
		count := func(m []byte) { visited++; keep(m) }
		maxIter := o.Count * 10
		next = cursor
		for {
			next = s.Scan(next, count)
			if next == 0 || maxIter == 0 || int64(visited) >= o.Count {
				break
			}
			maxIter--
		}
	}
	x.W.Array(2)
	var cbuf [20]byte
	x.W.Bulk(strconv.AppendUint(cbuf[:0], next, 10))
	x.W.Array(len(found))
	for _, m := range found {
		x.W.Bulk(m)
	}
}

// sortBySize orders sets by cardinality, stably, as Redis's qsort with
// glibc's merge sort does for these small arrays; nil sorts as empty.
func sortBySize(sets []*set.Set, desc bool) {
	size := func(s *set.Set) int {
		if s == nil {
			return 0
		}
		return s.Len()
	}
	slices.SortStableFunc(sets, func(a, b *set.Set) int {
		if desc {
			return size(b) - size(a)
		}
		return size(a) - size(b)
	})
}

func cmdSCard(x *engine.Ctx) { engine.CardGeneric[*set.Set](x) }

func cmdSRem(x *engine.Ctx) { engine.RemoveGeneric(x, config.EvSet, "srem", (*set.Set).Remove) }
