package zsetcmd

import (
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/zset"
)

// ZPOPMIN, ZPOPMAX, ZMPOP and the blocking BZPOPMIN, BZPOPMAX, BZMPOP, after
// Redis 7.0's genericZpopCommand and blockingGenericZpopCommand.
//
// A blocked client is served by running its command again when a key it
// waits for is created (client.go). That run is told apart by x.C.blocked:
// it skips keys of another type instead of answering WRONGTYPE, since Redis
// leaves such a client blocked until one of its keys holds a sorted set.
// As in Redis, that run serves the client from the key whose write woke it
// (x.readyKey), not from the first non-empty key of its list: they differ
// when one transaction or script fills two of its keys, the later-listed
// first.

func cmdZPopMin(x *engine.Ctx) { zpopMinMax(x, false) }
func cmdZPopMax(x *engine.Ctx) { zpopMinMax(x, true) }

func zpopMinMax(x *engine.Ctx, max bool) {
	args := x.Args
	if len(args) > 3 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	count := int64(-1)
	if len(args) == 3 {
		n, ok := num.ParseInt(args[2])
		if !ok || n < 0 {
			x.W.Error(engine.ErrValueMustPositive)
			return
		}
		count = n
	}
	e, s, ok := zsetWrite(x, args[1])
	if !ok {
		return
	}
	if s == nil || count == 0 {
		x.W.Array(0)
		return
	}
	// RESP3 nests the pairs only when a count was given, as Redis 7.0.
	nested := x.W.RESP3() && count != -1
	if count == -1 {
		count = 1
	}
	n := int(min(count, int64(s.Len())))
	if nested {
		x.W.Array(n)
	} else {
		x.W.Array(2 * n)
	}
	zpop(x, e, s, max, n, nested, args[1])
}

// zpop pops n members from e's set s and writes each as member, score (an
// array of the two when nested); it deletes the key if the set empties.
func zpop(x *engine.Ctx, e *keyspace.Entry, s *zset.Set, max bool, n int, nested bool, key []byte) {
	if n > 0 {
		if max {
			x.Notify(config.EvZSet, "zpopmax", key)
		} else {
			x.Notify(config.EvZSet, "zpopmin", key)
		}
		x.Modified(key)
	}
	fn := func(m []byte, sc float64) {
		if nested {
			x.W.Array(2)
		}
		x.W.Bulk(m)
		zReplyScore(x.W, sc)
	}
	if max {
		s.PopMax(n, fn)
	} else {
		s.PopMin(n, fn)
	}
	if s.Len() == 0 {
		x.DB.Remove(e)
		x.Notify(config.EvGeneric, "del", key)
	}
}

// zmpopArgs is the parsed tail of ZMPOP and BZMPOP.
type zmpopArgs struct {
	keys  [][]byte
	max   bool
	count int64
}

// parseZMPop is the parsing part of zmpopGenericCommand, numkeys at numIdx.
func parseZMPop(x *engine.Ctx, numIdx int) (zmpopArgs, bool) {
	p, ok := engine.ParseMPop(x, numIdx, zsetWhere)
	return zmpopArgs{keys: p.Keys, max: p.Side, count: p.Count}, ok
}

// zsetWhere reads ZMPOP's MIN (false) or MAX (true).
func zsetWhere(x *engine.Ctx, arg []byte) (bool, bool) {
	switch {
	case engine.CEqualFold(arg, "min"):
		return false, true
	case engine.CEqualFold(arg, "max"):
		return true, true
	}
	x.W.Error(engine.ErrSyntax)
	return false, false
}

func cmdZMPop(x *engine.Ctx) {
	p, ok := parseZMPop(x, 1)
	if !ok {
		return
	}
	for _, key := range p.keys {
		e := x.DB.Get(key, x.Now)
		if e == nil {
			continue
		}
		s, ok := zsetOf(x, e)
		if !ok {
			return
		}
		zmpopReply(x, key, e, s, p.max, p.count)
		return
	}
	x.W.NullArray()
}

// zmpopReply answers ZMPOP and BZMPOP: the key, then the popped pairs.
func zmpopReply(x *engine.Ctx, key []byte, e *keyspace.Entry, s *zset.Set, max bool, count int64) {
	n := int(min(count, int64(s.Len())))
	x.W.Array(2)
	x.W.Bulk(key)
	x.W.Array(n)
	zpop(x, e, s, max, n, true, key)
	x.Rewrite(engine.PopName(max, argZPopMax, argZPopMin), key, engine.MsArg(int64(n)))
}

func cmdBZPopMin(x *engine.Ctx) { bzpopGeneric(x, false) }
func cmdBZPopMax(x *engine.Ctx) { bzpopGeneric(x, true) }

func bzpopGeneric(x *engine.Ctx, max bool) {
	args := x.Args
	timeout, errMsg := engine.ParseBlockTimeout(args[len(args)-1])
	if errMsg != "" {
		x.W.Error(errMsg)
		return
	}
	keys := args[1 : len(args)-1]
	e, s, key, ok := zblockFind(x, keys)
	if !ok {
		return
	}
	if s != nil {
		x.W.Array(3)
		x.W.Bulk(key)
		zpop(x, e, s, max, 1, false, key)
		x.Rewrite(engine.PopName(max, argZPopMax, argZPopMin), key)
		return
	}
	if !x.Block(keys, timeout) {
		// Inside MULTI or a script: nothing popped, nothing changed.
		x.W.NullArray()
	}
}

func cmdBZMPop(x *engine.Ctx) {
	p, ok := parseZMPop(x, 2)
	if !ok {
		return
	}
	timeout, errMsg := engine.ParseBlockTimeout(x.Args[1])
	if errMsg != "" {
		x.W.Error(errMsg)
		return
	}
	e, s, key, ok := zblockFind(x, p.keys)
	if !ok {
		return
	}
	if s != nil {
		zmpopReply(x, key, e, s, p.max, p.count)
		return
	}
	if !x.Block(p.keys, timeout) {
		x.W.NullArray()
	}
}

// zblockFind returns the first of keys holding a non-empty sorted set, or a
// nil set if there is none. A key of another type answers WRONGTYPE, except
// when a blocked client is being served (see the file comment).
func zblockFind(x *engine.Ctx, keys [][]byte) (*keyspace.Entry, *zset.Set, []byte, bool) {
	serving := x.C.Blocked != nil
	for _, key := range keys {
		if serving && string(key) != x.ReadyKey {
			continue
		}
		e := x.DB.Get(key, x.Now)
		if e == nil {
			continue
		}
		s, isZ := e.Val.(*zset.Set)
		if !isZ {
			if serving {
				continue
			}
			x.W.Error(engine.ErrWrongType)
			return nil, nil, nil, false
		}
		if s.Len() > 0 {
			return e, s, key, true
		}
	}
	return nil, nil, nil, true
}

var (
	argZPopMin = []byte("ZPOPMIN")
	argZPopMax = []byte("ZPOPMAX")
)
