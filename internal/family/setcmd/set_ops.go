package setcmd

import (
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/set"
)

// SINTER (and SMEMBERS, which is SINTER of one key), SINTERCARD,
// SINTERSTORE, SUNION, SUNIONSTORE, SDIFF and SDIFFSTORE, after Redis's
// sinterGenericCommand and sunionDiffGenericCommand. Every source is
// looked up (lookupKeyRead) and type-checked before anything is computed,
// so one WRONGTYPE key fails the command even when another is missing.

func cmdSInter(x *engine.Ctx)      { sinterGeneric(x, x.Args[1:], nil, false, 0) }
func cmdSInterStore(x *engine.Ctx) { sinterGeneric(x, x.Args[2:], x.Args[1], false, 0) }

func cmdSInterCard(x *engine.Ctx) {
	args := x.Args
	numkeys, ok := num.ParseInt(args[1])
	if !ok || numkeys < 1 {
		x.W.Error(engine.ErrZNumKeysPositive)
		return
	}
	if numkeys > int64(len(args)-2) {
		x.W.Error(engine.ErrNumKeysTooBig)
		return
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(args); j++ {
		if engine.CEqualFold(args[j], "limit") && j+1 < len(args) {
			j++
			n, ok := num.ParseInt(args[j])
			if !ok || n < 0 {
				x.W.Error(engine.ErrZLimitNegative)
				return
			}
			limit = n
			continue
		}
		x.W.Error(engine.ErrSyntax)
		return
	}
	sinterGeneric(x, args[2:2+numkeys], nil, true, limit)
}

// setSources looks up and type-checks keys; missing keys are nil.
func setSources(x *engine.Ctx, keys [][]byte) ([]*set.Set, bool) {
	sets := make([]*set.Set, len(keys))
	for i, k := range keys {
		_, s, ok := setRead(x, k)
		if !ok {
			return nil, false
		}
		sets[i] = s
	}
	return sets, true
}

// sinterGeneric is sinterGenericCommand: the members of the smallest set
// that every other set holds, in the smallest set's order. A stored result
// starts as an intset.
func sinterGeneric(x *engine.Ctx, keys [][]byte, dst []byte, cardOnly bool, limit int64) {
	if dst != nil {
	}
	sets, ok := setSources(x, keys)
	if !ok {
		return
	}
	for _, s := range sets {
		if s == nil {
			switch {
			case dst != nil:
				setStoreResult(x, dst, set.New(), "sinterstore")
			case cardOnly:
				x.W.Int(0)
			default:
				x.W.Set(0)
			}
			return
		}
	}
	sortBySize(sets, false)
	first := sets[0]
	var res *set.Set
	var off int
	switch {
	case dst != nil:
		res = set.New()
	case !cardOnly:
		off = x.W.ArrayPlaceholder()
	}
	lim := maxIntset(x)
	card := int64(0)
	first.Each(func(m []byte) bool {
		for _, s := range sets[1:] {
			if s != first && !s.Has(m) {
				return true
			}
		}
		switch {
		case cardOnly:
			card++
			return limit == 0 || card < limit
		case dst != nil:
			res.Add(m, lim)
		default:
			x.W.Bulk(m)
			card++
		}
		return true
	})
	switch {
	case cardOnly:
		x.W.Int(card)
	case dst != nil:
		setStoreResult(x, dst, res, "sinterstore")
	default:
		x.W.PatchSet(off, int(card))
	}
}

func cmdSUnion(x *engine.Ctx)      { sunionDiffGeneric(x, x.Args[1:], nil, false) }
func cmdSUnionStore(x *engine.Ctx) { sunionDiffGeneric(x, x.Args[2:], x.Args[1], false) }
func cmdSDiff(x *engine.Ctx)       { sunionDiffGeneric(x, x.Args[1:], nil, true) }
func cmdSDiffStore(x *engine.Ctx)  { sunionDiffGeneric(x, x.Args[2:], x.Args[1], true) }

// setUnion adds every member of sets, in order, to a new intset.
func setUnion(sets []*set.Set, lim int64) *set.Set {
	res := set.New()
	for _, s := range sets {
		if s != nil {
			s.Each(func(m []byte) bool { res.Add(m, lim); return true })
		}
	}
	return res
}

// sunionDiffGeneric is sunionDiffGenericCommand. SDIFF picks between
// Redis's two algorithms by the same estimate of work, because they build
// the result differently (the second adds the whole first set before
// removing), and so may leave it in different encodings.
func sunionDiffGeneric(x *engine.Ctx, keys [][]byte, dst []byte, diff bool) {
	if dst != nil {
	}
	sets, ok := setSources(x, keys)
	if !ok {
		return
	}
	lim := maxIntset(x)
	var res *set.Set
	switch {
	case !diff:
		res = setUnion(sets, lim)
	case sets[0] == nil:
		res = set.New()
	default:
		res = setDiff(sets, lim)
	}
	if dst != nil {
		ev := "sunionstore"
		if diff {
			ev = "sdiffstore"
		}
		setStoreResult(x, dst, res, ev)
		return
	}
	replyMembers(x.W, res)
}

func setDiff(sets []*set.Set, lim int64) *set.Set {
	res := set.New()
	first := sets[0]
	for _, s := range sets[1:] {
		if s == first {
			return res // a set minus itself
		}
	}
	var one, two int64
	for _, s := range sets {
		if s != nil {
			one += int64(first.Len())
			two += int64(s.Len())
		}
	}
	if one/2 <= two {
		rest := append([]*set.Set(nil), sets[1:]...)
		sortBySize(rest, true)
		first.Each(func(m []byte) bool {
			for _, s := range rest {
				if s != nil && s.Has(m) {
					return true
				}
			}
			res.Add(m, lim)
			return true
		})
		return res
	}
	card := 0
	for i, s := range sets {
		if s == nil {
			continue
		}
		s.Each(func(m []byte) bool {
			if i == 0 {
				if res.Add(m, lim) {
					card++
				}
			} else if res.Remove(m) {
				card--
			}
			return true
		})
		if card == 0 {
			break
		}
	}
	return res
}

// setStoreResult stores a computed set under dst as Redis's setKey does
// (the old value and its TTL go, and watchers are told even when the
// value is the same) and replies its size; an empty result deletes dst
// instead and replies 0.
func setStoreResult(x *engine.Ctx, dst []byte, res *set.Set, event string) {
	if res.Len() == 0 {
		x.W.Int(0)
		if x.DB.Delete(dst, x.Now) {
			x.Modified(dst)
			x.Notify(config.EvGeneric, "del", dst)
		}
		return
	}
	x.DB.Get(dst, x.Now) // an expired dst is gone, not overwritten
	x.DB.Set(dst, res, false)
	x.Modified(dst)
	x.W.Int(int64(res.Len()))
	x.Notify(config.EvSet, event, dst)
}
