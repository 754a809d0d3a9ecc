package listcmd

import (
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/list"
	"github.com/limitkv/limitkv/internal/num"
)

// The list family, after Redis 7.0's t_list.c. The data structure is
// internal/list (a quicklist: every list reports OBJECT ENCODING
// "quicklist" in 7.0). This layer parses arguments in Redis's order of
// checks (some commands look the key up before parsing an index, so a
// missing key wins over a bad index), looks keys up as Redis does
// (lookupKeyRead, which counts hits and misses, for LLEN, LRANGE, LINDEX and
// LPOS; lookupKeyWrite for the others) and words every reply as Redis does.
//
// Files: list.go (the non-blocking commands), list_block.go (LMOVE,
// RPOPLPUSH, LMPOP and the blocking pops and moves).
//
// Writes and WATCH: a write signals its key (Ctx.Modified) where Redis
// calls signalModifiedKey, so one that changed nothing does not (LPUSHX on
// a missing key, LINSERT without its pivot, LREM removing nothing, pops of
// nothing). LTRIM of an existing key invalidates watchers even when it trims
// nothing, as Redis signals it unconditionally. Blocked clients are woken
// when a list is created (Redis's dbAdd), so the writers signal a key they
// create.
var ListCommands = []*engine.Command{
	{Name: "lpush", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLPush},
	{Name: "rpush", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdRPush},
	{Name: "lpushx", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLPushX},
	{Name: "rpushx", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdRPushX},
	{Name: "lpop", Arity: -2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLPop},
	{Name: "rpop", Arity: -2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdRPop},
	{Name: "llen", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLLen},
	{Name: "lrange", Arity: 4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLRange},
	{Name: "lindex", Arity: 3, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLIndex},
	{Name: "lset", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLSet},
	{Name: "linsert", Arity: 5, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLInsert},
	{Name: "lrem", Arity: 4, Flags: engine.FlagWrite, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLRem},
	{Name: "ltrim", Arity: 4, Flags: engine.FlagWrite, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLTrim},
	{Name: "lpos", Arity: -3, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "list",
		Handler: cmdLPos},
	{Name: "lmove", Arity: 5, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Group: "list",
		Handler: cmdLMove},
	{Name: "rpoplpush", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Group: "list",
		Handler: cmdRPopLPush},
	{Name: "lmpop", Arity: -4, Flags: engine.FlagWrite, Group: "list",
		Handler: cmdLMPop},
	{Name: "blpop", Arity: -3, Flags: engine.FlagWrite | engine.FlagNoScript | engine.FlagBlocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "list",
		Handler: cmdBLPop},
	{Name: "brpop", Arity: -3, Flags: engine.FlagWrite | engine.FlagNoScript | engine.FlagBlocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "list",
		Handler: cmdBRPop},
	{Name: "blmove", Arity: 6, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagNoScript | engine.FlagBlocking, FirstKey: 1, LastKey: 2, Step: 1, Group: "list",
		Handler: cmdBLMove},
	{Name: "brpoplpush", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagNoScript | engine.FlagBlocking, FirstKey: 1, LastKey: 2, Step: 1, Group: "list",
		Handler: cmdBRPopLPush},
	{Name: "blmpop", Arity: -5, Flags: engine.FlagWrite | engine.FlagBlocking, Group: "list",
		Handler: cmdBLMPop},
}

// listOf, listRead and listWrite are valueOf, readAs and writeAs (types.go)
// for *list.List.
func listOf(x *engine.Ctx, e *keyspace.Entry) (*list.List, bool) {
	return engine.ValueOf[*list.List](x, e)
}
func listRead(x *engine.Ctx, key []byte) (*keyspace.Entry, *list.List, bool) {
	return engine.ReadAs[*list.List](x, key)
}
func listWrite(x *engine.Ctx, key []byte) (*keyspace.Entry, *list.List, bool) {
	return engine.WriteAs[*list.List](x, key)
}

// listCreate stores a new empty list under key and signals it to the
// clients blocked on it, as Redis's dbAdd does. The caller fills it before
// the command returns.
func listCreate(x *engine.Ctx, key []byte) (*keyspace.Entry, *list.List) {
	l := list.New(x.E.Cfg.ListFill())
	e := x.DB.Set(key, l, false)
	x.SignalReady(key)
	return e, l
}

// lRemoved is listElementsRemoved: the pop's event, the deletion of an
// emptied list, then signalModifiedKey, which a blocked client being
// served skips (the push that woke it signalled the key).
func lRemoved(x *engine.Ctx, e *keyspace.Entry, l *list.List, key []byte, front bool) {
	x.Notify(config.EvList, popEvent(front), key)
	lDelIfEmpty(x, e, l, key)
	if x.C.Blocked == nil {
		x.Modified(key)
	} else {
		x.Dirty() // not signalled, but propagated (as LPOP/RPOP, its rewrite)
	}
}

// lDelIfEmpty deletes an emptied list with its del event.
func lDelIfEmpty(x *engine.Ctx, e *keyspace.Entry, l *list.List, key []byte) {
	if l.Len() == 0 {
		x.DB.Remove(e)
		x.Notify(config.EvGeneric, "del", key)
	}
}

func popEvent(front bool) string {
	if front {
		return "lpop"
	}
	return "rpop"
}

func pushEvent(front bool) string {
	if front {
		return "lpush"
	}
	return "rpush"
}

func lpush(l *list.List, v []byte, front bool) {
	if front {
		l.PushFront(v)
	} else {
		l.PushBack(v)
	}
}

func cmdLPush(x *engine.Ctx)  { pushGeneric(x, true, false) }
func cmdRPush(x *engine.Ctx)  { pushGeneric(x, false, false) }
func cmdLPushX(x *engine.Ctx) { pushGeneric(x, true, true) }
func cmdRPushX(x *engine.Ctx) { pushGeneric(x, false, true) }

func pushGeneric(x *engine.Ctx, front, xx bool) {
	key := x.Args[1]
	_, l, ok := listWrite(x, key)
	if !ok {
		return
	}
	if l == nil {
		if xx {
			x.W.Int(0)
			return
		}
		_, l = listCreate(x, key)
	}
	for _, v := range x.Args[2:] {
		lpush(l, v, front)
	}
	x.Modified(key)
	x.Notify(config.EvList, pushEvent(front), key)
	x.W.Int(int64(l.Len()))
}

func cmdLInsert(x *engine.Ctx) {
	args := x.Args
	var after bool
	switch {
	case engine.CEqualFold(args[2], "after"):
		after = true
	case engine.CEqualFold(args[2], "before"):
	default:
		x.W.Error(engine.ErrSyntax)
		return
	}
	_, l, ok := listWrite(x, args[1])
	if !ok {
		return
	}
	if l == nil {
		x.W.Int(0)
		return
	}
	if !l.Insert(args[3], args[4], after) {
		x.W.Int(-1)
		return
	}
	x.Modified(args[1])
	x.Notify(config.EvList, "linsert", args[1])
	x.W.Int(int64(l.Len()))
}

func cmdLIndex(x *engine.Ctx) {
	_, l, ok := listRead(x, x.Args[1])
	if !ok {
		return
	}
	if l == nil {
		x.W.Null()
		return
	}
	i, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if !l.Index(i, x.W.Bulk) {
		x.W.Null()
	}
}

func cmdLSet(x *engine.Ctx) {
	_, l, ok := listWrite(x, x.Args[1])
	if !ok {
		return
	}
	if l == nil {
		x.W.Error(engine.ErrNoSuchKey)
		return
	}
	i, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if !l.Set(i, x.Args[3]) {
		x.W.Error(engine.ErrIndexOutOfRange)
		return
	}
	x.Modified(x.Args[1])
	x.Notify(config.EvList, "lset", x.Args[1])
	x.W.OK()
}

func cmdLPop(x *engine.Ctx) { popGeneric(x, true) }
func cmdRPop(x *engine.Ctx) { popGeneric(x, false) }

// popGeneric is LPOP and RPOP: without a count a bulk reply (null for a
// missing key), with one an array (a null array for a missing key, an
// empty one for a count of 0).
func popGeneric(x *engine.Ctx, front bool) {
	args := x.Args
	if len(args) > 3 {
		x.W.Error(engine.ErrWrongArgs(x.Cmd.Name))
		return
	}
	hasCount := len(args) == 3
	var count int64
	if hasCount {
		n, ok := num.ParseInt(args[2])
		if !ok || n < 0 {
			x.W.Error(engine.ErrValueMustPositive)
			return
		}
		count = n
	}
	e, l, ok := listWrite(x, args[1])
	if !ok {
		return
	}
	if l == nil {
		if hasCount {
			x.W.NullArray()
		} else {
			x.W.Null()
		}
		return
	}
	if hasCount && count == 0 {
		x.W.Array(0)
		return
	}
	if !hasCount {
		lpop(l, front, x.W.Bulk)
	} else {
		n := int(min(count, int64(l.Len())))
		x.W.Array(n)
		for range n {
			lpop(l, front, x.W.Bulk)
		}
	}
	lRemoved(x, e, l, args[1], front)
}

func lpop(l *list.List, front bool, fn func([]byte)) bool {
	if front {
		return l.PopFront(fn)
	}
	return l.PopBack(fn)
}

// rangeReply writes elements start..end (Redis's indexes: negative from
// the end, clamped) as addListRangeReply does.
func rangeReply(x *engine.Ctx, l *list.List, start, end int64) {
	n := int64(l.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= n {
		x.W.Array(0)
		return
	}
	if end >= n {
		end = n - 1
	}
	count := int(end - start + 1)
	x.W.Array(count)
	l.Each(int(start), false, func(_ int, v []byte) bool {
		x.W.Bulk(v)
		count--
		return count > 0
	})
}

func cmdLRange(x *engine.Ctx) {
	start, ok1 := num.ParseInt(x.Args[2])
	end, ok2 := num.ParseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Error(engine.ErrNotInt)
		return
	}
	_, l, ok := listRead(x, x.Args[1])
	if !ok {
		return
	}
	if l == nil {
		x.W.Array(0)
		return
	}
	rangeReply(x, l, start, end)
}

func cmdLTrim(x *engine.Ctx) {
	start, ok1 := num.ParseInt(x.Args[2])
	end, ok2 := num.ParseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Error(engine.ErrNotInt)
		return
	}
	e, l, ok := listWrite(x, x.Args[1])
	if !ok {
		return
	}
	if l == nil {
		x.W.OK()
		return
	}
	n := int64(l.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	var ltrim, rtrim int64
	if start > end || start >= n {
		ltrim, rtrim = n, 0
	} else {
		if end >= n {
			end = n - 1
		}
		ltrim, rtrim = start, n-end-1
	}
	l.DeleteRange(0, int(ltrim))
	l.DeleteRange(l.Len()-int(rtrim), int(rtrim))
	x.Notify(config.EvList, "ltrim", x.Args[1])
	lDelIfEmpty(x, e, l, x.Args[1])
	x.Modified(x.Args[1])
	for range ltrim + rtrim {
		x.Dirty() // server.dirty += ltrim + rtrim, beside the signal's one
	}
	if ltrim+rtrim == 0 {
		x.NoPropagate() // signalled, but server.dirty += 0
	}
	x.W.OK()
}

func cmdLPos(x *engine.Ctx) {
	args := x.Args
	ele := args[2]
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case engine.CEqualFold(args[j], "rank") && more > 0:
			j++
			n, ok := num.ParseInt(args[j])
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			if n == 0 {
				x.W.Error(engine.ErrLPosRank)
				return
			}
			rank = n
		case engine.CEqualFold(args[j], "count") && more > 0:
			j++
			n, ok := num.ParseInt(args[j])
			if !ok || n < 0 {
				x.W.Error(errLPosCount)
				return
			}
			count = n
		case engine.CEqualFold(args[j], "maxlen") && more > 0:
			j++
			n, ok := num.ParseInt(args[j])
			if !ok || n < 0 {
				x.W.Error(errLPosMaxLen)
				return
			}
			maxlen = n
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	fromTail := false
	if rank < 0 {
		// As in C, negating LONG_MIN leaves it negative: it then matches
		// from the first match on.
		rank = -rank
		fromTail = true
	}
	_, l, ok := listRead(x, args[1])
	if !ok {
		return
	}
	if l == nil {
		if count != -1 {
			x.W.Array(0)
		} else {
			x.W.Null()
		}
		return
	}
	hdr := -1
	if count != -1 {
		hdr = x.W.ArrayPlaceholder()
	}
	llen := int64(l.Len())
	var index, matches, arraylen int64
	matchIndex := int64(-1)
	start := 0
	if fromTail {
		start = l.Len() - 1
	}
	l.Each(start, fromTail, func(_ int, v []byte) bool {
		if maxlen != 0 && index >= maxlen {
			return false
		}
		if string(v) == string(ele) {
			matches++
			matchIndex = index
			if fromTail {
				matchIndex = llen - index - 1
			}
			if matches >= rank {
				if hdr < 0 {
					return false
				}
				arraylen++
				x.W.Int(matchIndex)
				if count != 0 && matches-rank+1 >= count {
					return false
				}
			}
		}
		index++
		matchIndex = -1
		return true
	})
	switch {
	case hdr >= 0:
		x.W.PatchArray(hdr, int(arraylen))
	case matchIndex != -1:
		x.W.Int(matchIndex)
	default:
		x.W.Null()
	}
}

func cmdLRem(x *engine.Ctx) {
	toRemove, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	e, l, ok := listWrite(x, x.Args[1])
	if !ok {
		return
	}
	if l == nil {
		x.W.Int(0)
		return
	}
	fromTail := toRemove < 0
	limit := 0 // all
	switch {
	case toRemove > 0:
		limit = int(min(toRemove, int64(l.Len())))
	case toRemove < 0 && toRemove != -toRemove: // LONG_MIN stays negative in C: no limit
		limit = int(min(-toRemove, int64(l.Len())))
	}
	removed := l.Remove(x.Args[3], limit, fromTail)
	if removed == 0 {
	} else {
		x.Modified(x.Args[1])
		x.Notify(config.EvList, "lrem", x.Args[1])
	}
	lDelIfEmpty(x, e, l, x.Args[1])
	x.W.Int(int64(removed))
}

func cmdLLen(x *engine.Ctx) { engine.CardGeneric[*list.List](x) }
