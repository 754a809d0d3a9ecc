package limitcmd

import (
	"errors"
	"math"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/limiter"
	"github.com/limitkv/limitkv/internal/zset"
)

// The bridge between the keyspace and internal/limiter: a key's value is
// read as a limiter.Value, decided on, and the value the decision leaves is
// written back as the plain commands (SET, HSET, ZADD, ZREM, PEXPIREAT,
// PERSIST, DEL) that turn the old value into the new one, so an AOF or a
// replica that is plain Redis ends up holding the same key. Nothing is
// propagated, signalled or notified for a value that did not change. The
// commands go through writeTwin (twin.go), which propagates the Lua twin's
// own commands instead wherever they leave the same value.

// errWrongType answers a key whose type no limiter keeps its state in
// (a list, a set...).
var errWrongType = errors.New(engine.ErrWrongType)

// readValue is the key's value as the limiters see it. With write it looks
// the key up as a write does (no hit/miss counted); a peek reads it as a
// read command (lookupKeyRead). A type no limiter uses is errWrongType.
func readValue(x *engine.Ctx, key []byte, write bool) (limiter.Value, error) {
	var ent *keyspace.Entry
	if write {
		ent = x.DB.Get(key, x.Now)
	} else {
		ent = x.Lookup(key)
	}
	if ent == nil {
		return limiter.Value{}, nil
	}
	v := limiter.Value{TTL: -1}
	if exp := ent.Expiry(); exp != keyspace.NoExpiry {
		v.TTL = max(0, exp-x.Now)
	}
	switch val := ent.Val.(type) {
	case []byte:
		v.Kind, v.Str = limiter.String, string(val)
	case *hash.Hash:
		v.Kind = limiter.Hash
		val.ForEach(func(f, value []byte) bool {
			v.Hash.Set(fieldName(f), string(value))
			return true
		})
	case *zset.Set:
		v.Kind, v.ZSet = limiter.ZSet, make([]limiter.ZMember, 0, val.Len())
		val.RangeByRank(0, val.Len()-1, false, func(m []byte, score float64) bool {
			v.ZSet = append(v.ZSet, limiter.ZMember{Member: string(m), Score: score})
			return true
		})
	default:
		return v, errWrongType
	}
	return v, nil
}

// fieldName is f as a string, without an allocation for the fields the
// limiters write (a switch on string(f) copies nothing).
func fieldName(f []byte) string {
	switch string(f) {
	case "tokens":
		return "tokens"
	case "ts":
		return "ts"
	case "start":
		return "start"
	case "cur":
		return "cur"
	case "prev":
		return "prev"
	case "used":
		return "used"
	}
	return string(f)
}

var (
	argHDel     = []byte("HDEL")
	argZAdd     = []byte("ZADD")
	argZRem     = []byte("ZREM")
	argPXATWord = engine.ArgPXAT
)

// writeValue makes key hold after, which a decision made from before (as
// readValue read it in this command), and propagates the change as plain
// commands; the command itself is never propagated (its "*" arguments
// would come out differently elsewhere). A value left with a TTL of 0
// expires at once, as PEXPIRE 0 deletes.
func writeValue(x *engine.Ctx, key []byte, before, after limiter.Value) {
	var prop propagator
	if x.Propagating() {
		prop = x.AlsoPropagate
	}
	applyValue(x, key, before, after, prop)
}

// propagator takes the commands a write propagates: x.AlsoPropagate, or
// nil when the caller propagates the twin's commands instead or nothing
// reads the write stream (the commands are then not even built).
type propagator func(args ...[]byte)

// applyValue is writeValue with the propagation going to prop.
func applyValue(x *engine.Ctx, key []byte, before, after limiter.Value, prop propagator) {
	x.NoPropagate()
	if after.Kind != limiter.Absent && after.TTL == 0 {
		after = limiter.Value{}
	}
	if after.Kind == limiter.Absent {
		if before.Kind != limiter.Absent && x.DB.Delete(key, x.Now) {
			x.Modified(key)
			x.Notify(config.EvGeneric, "del", key)
			if prop != nil {
				prop(engine.ArgDel, key)
			}
		}
		return
	}
	deadline := int64(keyspace.NoExpiry)
	if after.TTL > 0 {
		deadline = x.Now + after.TTL
	}
	fresh := before.Kind != after.Kind // the key is made anew: no TTL to keep
	changed := false
	switch after.Kind {
	case limiter.String:
		if before.Kind == limiter.String && before.Str == after.Str && sameTTL(before, after) {
			return
		}
		ent := x.DB.Set(key, []byte(after.Str), false)
		if after.TTL > 0 {
			x.DB.SetExpiry(ent, deadline)
			if prop != nil {
				prop(engine.ArgSet, key, []byte(after.Str), argPXATWord, engine.MsArg(deadline))
			}
		} else {
			if prop != nil {
				prop(engine.ArgSet, key, []byte(after.Str))
			}
		}
		x.Modified(key)
		x.Notify(config.EvString, "set", key)
		if after.TTL > 0 {
			x.Notify(config.EvGeneric, "expire", key)
		}
		return
	case limiter.Hash:
		changed, fresh = writeHash(x, key, before, after, fresh, prop)
	case limiter.ZSet:
		changed, fresh = writeZSet(x, key, before, after, fresh, prop)
	}
	ent := x.DB.Get(key, x.Now)
	if ent == nil { // an empty hash or sorted set is no key
		return
	}
	switch {
	case after.TTL > 0 && (fresh || !sameTTL(before, after)):
		x.DB.SetExpiry(ent, deadline)
		if prop != nil {
			prop(engine.ArgPexpireat, key, engine.MsArg(deadline))
		}
		x.Notify(config.EvGeneric, "expire", key)
		changed = true
	case after.TTL < 0 && !fresh && before.TTL >= 0:
		x.DB.Persist(ent)
		if prop != nil {
			prop(engine.ArgPersist, key)
		}
		x.Notify(config.EvGeneric, "persist", key)
		changed = true
	}
	if changed {
		x.Modified(key)
	}
}

// sameTTL: the two values expire at the same moment (TTLs are relative to
// the same command time).
func sameTTL(a, b limiter.Value) bool { return a.TTL == b.TTL || (a.TTL < 0 && b.TTL < 0) }

// dropOld deletes a key whose value cannot be edited into the new one,
// propagating the DEL; fresh is then true.
func dropOld(x *engine.Ctx, key []byte, before limiter.Value, prop propagator) {
	if before.Kind != limiter.Absent && x.DB.Delete(key, x.Now) {
		if prop != nil {
			prop(engine.ArgDel, key)
		}
		x.Notify(config.EvGeneric, "del", key)
	}
}

// writeHash edits the hash field by field when the old one has no field
// the new one lacks (HSET of what differs), else replaces it (DEL, HSET).
func writeHash(x *engine.Ctx, key []byte, before, after limiter.Value, fresh bool, prop propagator) (changed, isFresh bool) {
	var stale []string
	if !fresh {
		for f := range before.Hash.All() {
			if _, ok := after.Hash.Lookup(f.Name); !ok {
				stale = append(stale, f.Name) // in order: Fields are sorted
			}
		}
	}
	if len(stale) > 0 && len(stale) == before.Hash.Len() {
		fresh = true // nothing is kept: replace rather than HDEL all
	}
	if fresh {
		dropOld(x, key, before, prop)
	}
	ent := x.DB.Get(key, x.Now)
	var h *hash.Hash
	if ent != nil {
		h = ent.Val.(*hash.Hash)
	} else {
		h = hash.New()
		x.DB.Add(key, h)
	}
	if len(stale) > 0 && !fresh {
		args := [][]byte{argHDel, key}
		for _, f := range stale {
			h.Delete([]byte(f))
			args = append(args, []byte(f))
		}
		if prop != nil {
			prop(args...)
		}
		x.Notify(config.EvHash, "hdel", key)
		changed = true
	}
	lim := x.E.Cfg.HashLimits()
	var args [][]byte
	if prop != nil {
		args = [][]byte{engine.ArgHSet, key}
	}
	// Fields go in sorted order (Fields' own), as the twins' HSETs name
	// them, so the hash's compact encoding lists them as Redis's does.
	set := false
	for f := range after.Hash.All() {
		if old, ok := before.Hash.Lookup(f.Name); ok && !fresh && old == f.Value {
			continue
		}
		h.Set([]byte(f.Name), []byte(f.Value), lim)
		set = true
		if prop != nil {
			args = append(args, []byte(f.Name), []byte(f.Value))
		}
	}
	if set {
		if prop != nil {
			prop(args...)
		}
		x.Notify(config.EvHash, "hset", key)
		changed = true
	}
	return changed, fresh
}

// writeZSet edits the sorted set: ZREM of the members that went, ZADD of
// the new or rescored ones.
func writeZSet(x *engine.Ctx, key []byte, before, after limiter.Value, fresh bool, prop propagator) (changed, isFresh bool) {
	if fresh {
		dropOld(x, key, before, prop)
	}
	ent := x.DB.Get(key, x.Now)
	var z *zset.Set
	if ent != nil {
		z = ent.Val.(*zset.Set)
	} else {
		ent = x.DB.SetInSlot(key)
		z = zset.NewIn(ent.Slot())
		ent.Val = z
	}
	old := map[string]float64{}
	if !fresh {
		for _, m := range before.ZSet {
			old[m.Member] = m.Score
		}
	}
	now := map[string]bool{}
	for _, m := range after.ZSet {
		now[m.Member] = true
	}
	rem := [][]byte{argZRem, key}
	for _, m := range before.ZSet {
		if !fresh && !now[m.Member] {
			z.Remove(m.Member)
			rem = append(rem, []byte(m.Member))
		}
	}
	if len(rem) > 2 {
		if prop != nil {
			prop(rem...)
		}
		x.Notify(config.EvZSet, "zrem", key)
		changed = true
	}
	lim := x.E.Cfg.ZsetLimits()
	add := [][]byte{argZAdd, key}
	for _, m := range after.ZSet {
		if s, ok := old[m.Member]; ok && s == m.Score {
			continue
		}
		z.Add(m.Member, m.Score, lim)
		add = append(add, scoreArg(m.Score), []byte(m.Member))
	}
	if len(add) > 2 {
		if prop != nil {
			prop(add...)
		}
		x.Notify(config.EvZSet, "zadd", key)
		changed = true
	}
	if z.Len() == 0 {
		x.DB.Remove(ent)
		if !fresh {
			x.Notify(config.EvGeneric, "del", key)
		}
	}
	return changed, fresh
}

// scoreArg is a score as ZADD reads it back exactly.
func scoreArg(s float64) []byte {
	if s == math.Trunc(s) && math.Abs(s) < 1<<53 {
		return strconv.AppendInt(nil, int64(s), 10)
	}
	return strconv.AppendFloat(nil, s, 'g', 17, 64)
}
