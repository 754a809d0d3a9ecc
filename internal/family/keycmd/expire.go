package keycmd

import (
	"math"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
)

// Expiry commands (Redis's expire.c): EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT,
// TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST.
//
// A key is alive while now <= deadline and gone once now > deadline; but a
// deadline set to now or earlier deletes the key at once, as Redis's
// checkAlreadyExpired does.
var ExpireCommands = []*engine.Command{
	{Name: "expire", Arity: -3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { expireGeneric(x, x.Now, true) }},
	{Name: "pexpire", Arity: -3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { expireGeneric(x, x.Now, false) }},
	{Name: "expireat", Arity: -3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { expireGeneric(x, 0, true) }},
	{Name: "pexpireat", Arity: -3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { expireGeneric(x, 0, false) }},
	{Name: "ttl", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { ttlGeneric(x, false, false) }},
	{Name: "pttl", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { ttlGeneric(x, true, false) }},
	{Name: "expiretime", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { ttlGeneric(x, false, true) }},
	{Name: "pexpiretime", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: func(x *engine.Ctx) { ttlGeneric(x, true, true) }},
	{Name: "persist", Arity: 2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic",
		Handler: cmdPersist},
}

// Options of the EXPIRE family.
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// parseExpireFlags is parseExtendedExpireArgumentsOrReply: any number of NX,
// XX, GT, LT (repeats allowed), then the incompatible pairs. It runs before
// the time is parsed, so an option error wins over a bad number.
func parseExpireFlags(x *engine.Ctx) (int, bool) {
	flags := 0
	for _, a := range x.Args[3:] {
		switch {
		case engine.CEqualFold(a, "nx"):
			flags |= expireNX
		case engine.CEqualFold(a, "xx"):
			flags |= expireXX
		case engine.CEqualFold(a, "gt"):
			flags |= expireGT
		case engine.CEqualFold(a, "lt"):
			flags |= expireLT
		default:
			x.W.Error(errUnsupportedOpt + string(engine.CString(a)))
			return 0, false
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		x.W.Error(engine.ErrExpireNXCombo)
		return 0, false
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		x.W.Error(engine.ErrExpireGTLT)
		return 0, false
	}
	return flags, true
}

// expireGeneric sets key's deadline to basetime + the argument (seconds or
// ms). The overflow checks are Redis's: the unit conversion and the addition
// must fit in a signed 64-bit millisecond count; negative times are allowed
// and delete the key.
func expireGeneric(x *engine.Ctx, basetime int64, seconds bool) {
	flags, ok := parseExpireFlags(x)
	if !ok {
		return
	}
	when, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			x.W.Error(engine.ErrInvalidExpire(x.Cmd.Name))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-basetime {
		x.W.Error(engine.ErrInvalidExpire(x.Cmd.Name))
		return
	}
	when += basetime

	e := x.DB.Get(x.Args[1], x.Now)
	if e == nil {
		x.W.Int(0)
		return
	}
	if flags != 0 {
		cur := e.Expiry()
		has := cur != keyspace.NoExpiry
		switch {
		case flags&expireNX != 0 && has,
			flags&expireXX != 0 && !has,
			// No deadline is an infinite one: never less than the new one...
			flags&expireGT != 0 && (!has || when <= cur),
			// ...and always greater.
			flags&expireLT != 0 && has && when >= cur:
			x.W.Int(0)
			return
		}
	}
	if when <= x.Now {
		x.DB.Remove(e)
		x.Modified(x.Args[1])
		x.Notify(config.EvGeneric, "del", x.Args[1])
		x.Rewrite(engine.ArgDel, x.Args[1]) // an explicit DEL, as Redis replicates it
	} else {
		x.DB.SetExpiry(e, when)
		x.Modified(x.Args[1])
		x.Notify(config.EvGeneric, "expire", x.Args[1])
		if x.Propagating() {
			// PEXPIREAT with the absolute time, the flags kept; a PEXPIREAT
			// keeps its name as spelled (a script's "pexpireat"), as Redis
			// rewrites only the other forms' argv[0].
			name := engine.ArgPexpireat
			if x.Cmd.Name == "pexpireat" {
				name = x.Args[0]
			}
			args := append([][]byte{name, x.Args[1], engine.MsArg(when)}, x.Args[3:]...)
			x.Rewrite(args...)
		}
	}
	x.W.Int(1)
}

// ttlGeneric answers TTL, PTTL, EXPIRETIME and PEXPIRETIME: -2 for a missing
// key, -1 for no deadline. Seconds are rounded to nearest as Redis's
// (ttl+500)/1000, whose addition Redis's compiler performs unsigned (the
// value is known non-negative), so a deadline near 2^63 ms rounds up instead
// of overflowing.
func ttlGeneric(x *engine.Ctx, ms, abs bool) {
	e := x.LookupNoTouch(x.Args[1])
	if e == nil {
		x.W.Int(-2)
		return
	}
	exp := e.Expiry()
	if exp == keyspace.NoExpiry {
		x.W.Int(-1)
		return
	}
	ttl := exp
	if !abs {
		ttl -= x.Now
	}
	ttl = max(ttl, 0)
	if ms {
		x.W.Int(ttl)
		return
	}
	x.W.Int(int64((uint64(ttl) + 500) / 1000))
}

func cmdPersist(x *engine.Ctx) {
	e := x.DB.Get(x.Args[1], x.Now)
	if e != nil && x.DB.Persist(e) {
		x.Modified(x.Args[1])
		x.Notify(config.EvGeneric, "persist", x.Args[1])
		x.W.Int(1)
		return
	}
	x.W.Int(0)
}
