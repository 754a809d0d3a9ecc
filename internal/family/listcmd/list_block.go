package listcmd

import (
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/list"
)

// LMOVE, RPOPLPUSH, LMPOP and the blocking BLPOP, BRPOP, BLMOVE,
// BRPOPLPUSH and BLMPOP, after Redis 7.0's lmoveGenericCommand,
// mpopGenericCommand and blockingPopGenericCommand.
//
// As for the sorted-set pops (zset_pop.go), a blocked client is served by
// running its command again when a key it waits for is created; that run
// (x.C.blocked set) reads only the key whose write woke it (x.readyKey) and
// leaves the client blocked if that key holds another type, as Redis serves
// list waiters only from a list. A served BLMOVE whose destination holds
// another type gets WRONGTYPE and is unblocked, as in Redis. A move that
// creates its destination signals it, so a woken BLMOVE can wake the
// clients waiting on its destination in the same round.

// listWhere reads LEFT or RIGHT (Redis's getListPositionFromObjectOrReply);
// it reports the head as true.
func listWhere(x *engine.Ctx, arg []byte) (front, ok bool) {
	switch {
	case engine.CEqualFold(arg, "left"):
		return true, true
	case engine.CEqualFold(arg, "right"):
		return false, true
	}
	x.W.Error(engine.ErrSyntax)
	return false, false
}

func cmdLMove(x *engine.Ctx) {
	from, ok := listWhere(x, x.Args[3])
	if !ok {
		return
	}
	to, ok := listWhere(x, x.Args[4])
	if !ok {
		return
	}
	lmoveGeneric(x, from, to)
}

func cmdRPopLPush(x *engine.Ctx) { lmoveGeneric(x, false, true) }

// lmoveGeneric pops from Args[1] and pushes onto Args[2], which may be the
// same key (a rotation: the list never empties on the way).
func lmoveGeneric(x *engine.Ctx, from, to bool) {
	src, dst := x.Args[1], x.Args[2]
	se, sl, ok := listWrite(x, src)
	if !ok {
		return
	}
	if sl == nil {
		x.W.Null()
		return
	}
	_, dl, ok := listWrite(x, dst)
	if !ok {
		return
	}
	var v []byte
	lpop(sl, from, func(b []byte) { v = append([]byte(nil), b...) })
	if dl == nil {
		_, dl = listCreate(x, dst)
	}
	x.Modified(dst)
	lpush(dl, v, to)
	x.Notify(config.EvList, pushEvent(to), dst)
	x.W.Bulk(v)
	// The source's pop: listElementsRemoved's order, except that a
	// blocked client being served does not signal it.
	lRemoved(x, se, sl, src, from)
}

// lmpopArgs is the parsed tail of LMPOP and BLMPOP.
type lmpopArgs struct {
	keys  [][]byte
	front bool
	count int64
}

// parseLMPop is the parsing part of lmpopGenericCommand, numkeys at numIdx.
func parseLMPop(x *engine.Ctx, numIdx int) (lmpopArgs, bool) {
	p, ok := engine.ParseMPop(x, numIdx, listWhere)
	return lmpopArgs{keys: p.Keys, front: p.Side, count: p.Count}, ok
}

func cmdLMPop(x *engine.Ctx) {
	p, ok := parseLMPop(x, 1)
	if !ok {
		return
	}
	for _, key := range p.keys {
		e := x.DB.Get(key, x.Now)
		if e == nil {
			continue
		}
		l, ok := listOf(x, e)
		if !ok {
			return
		}
		lmpopReply(x, key, e, l, p.front, p.count)
		return
	}
	x.W.NullArray()
}

// lmpopReply answers LMPOP and BLMPOP: the key, then the popped elements.
func lmpopReply(x *engine.Ctx, key []byte, e *keyspace.Entry, l *list.List, front bool, count int64) {
	n := int(min(count, int64(l.Len())))
	// Propagated as [LR]POP key count, the count what there was to pop.
	x.Rewrite(engine.PopName(front, argLPop, argRPop), key, engine.MsArg(int64(n)))
	x.W.Array(2)
	x.W.Bulk(key)
	x.W.Array(n)
	for range n {
		lpop(l, front, x.W.Bulk)
	}
	lRemoved(x, e, l, key, front)
}

// lblockFind returns the first of keys holding a list (Redis deletes empty
// lists, so it has elements), or nil if there is none. A key of another type
// answers WRONGTYPE, except when a blocked client is being served (see the
// file comment).
func lblockFind(x *engine.Ctx, keys [][]byte) (*keyspace.Entry, *list.List, []byte, bool) {
	serving := x.C.Blocked != nil
	for _, key := range keys {
		if serving && string(key) != x.ReadyKey {
			continue
		}
		e := x.DB.Get(key, x.Now)
		if e == nil {
			continue
		}
		l, isList := e.Val.(*list.List)
		if !isList {
			if serving {
				continue
			}
			x.W.Error(engine.ErrWrongType)
			return nil, nil, nil, false
		}
		if l.Len() > 0 {
			return e, l, key, true
		}
	}
	return nil, nil, nil, true
}

func cmdBLPop(x *engine.Ctx) { bpopGeneric(x, true) }
func cmdBRPop(x *engine.Ctx) { bpopGeneric(x, false) }

func bpopGeneric(x *engine.Ctx, front bool) {
	args := x.Args
	timeout, errMsg := engine.ParseBlockTimeout(args[len(args)-1])
	if errMsg != "" {
		x.W.Error(errMsg)
		return
	}
	keys := args[1 : len(args)-1]
	e, l, key, ok := lblockFind(x, keys)
	if !ok {
		return
	}
	if l != nil {
		x.W.Array(2)
		x.W.Bulk(key)
		lpop(l, front, x.W.Bulk)
		lRemoved(x, e, l, key, front)
		x.Rewrite(engine.PopName(front, argLPop, argRPop), key) // the non-blocking form
		return
	}
	if !x.Block(keys, timeout) {
		x.W.NullArray()
	}
}

func cmdBLMPop(x *engine.Ctx) {
	p, ok := parseLMPop(x, 2)
	if !ok {
		return
	}
	timeout, errMsg := engine.ParseBlockTimeout(x.Args[1])
	if errMsg != "" {
		x.W.Error(errMsg)
		return
	}
	e, l, key, ok := lblockFind(x, p.keys)
	if !ok {
		return
	}
	if l != nil {
		lmpopReply(x, key, e, l, p.front, p.count)
		return
	}
	if !x.Block(p.keys, timeout) {
		x.W.NullArray()
	}
}

func cmdBLMove(x *engine.Ctx) {
	from, ok := listWhere(x, x.Args[3])
	if !ok {
		return
	}
	to, ok := listWhere(x, x.Args[4])
	if !ok {
		return
	}
	timeout, errMsg := engine.ParseBlockTimeout(x.Args[5])
	if errMsg != "" {
		x.W.Error(errMsg)
		return
	}
	blmoveGeneric(x, from, to, timeout)
}

func cmdBRPopLPush(x *engine.Ctx) {
	timeout, errMsg := engine.ParseBlockTimeout(x.Args[3])
	if errMsg != "" {
		x.W.Error(errMsg)
		return
	}
	blmoveGeneric(x, false, true, timeout)
}

func blmoveGeneric(x *engine.Ctx, from, to bool, timeout time.Duration) {
	src := x.Args[1]
	e := x.DB.Get(src, x.Now)
	if e != nil {
		if _, isList := e.Val.(*list.List); !isList {
			if x.C.Blocked != nil {
				// Being served after a write of another type: keep waiting.
				x.Block(x.Args[1:2], timeout)
				return
			}
			x.W.Error(engine.ErrWrongType)
			return
		}
		lmoveGeneric(x, from, to)
		// LMOVE / RPOPLPUSH; a served client's sides as Redis spells them.
		switch {
		case x.Cmd.Name == "brpoplpush":
			x.Rewrite(argRPopLPush, x.Args[1], x.Args[2])
		case x.Rerun:
			x.Rewrite(argLMove, x.Args[1], x.Args[2], engine.PopName(from, argLeft, argRight), engine.PopName(to, argLeft, argRight))
		default:
			x.Rewrite(argLMove, x.Args[1], x.Args[2], x.Args[3], x.Args[4])
		}
		return
	}
	if !x.Block(x.Args[1:2], timeout) {
		x.W.Null()
	}
}

var (
	argLPop      = []byte("LPOP")
	argRPop      = []byte("RPOP")
	argLMove     = []byte("LMOVE")
	argRPopLPush = []byte("RPOPLPUSH")
	argLeft      = []byte("left") // shared.left: a served BLMOVE spells its sides so
	argRight     = []byte("right")
)
