package stringcmd

import (
	"math"
	"math/big"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
)

// The string family, after Redis 7.0's t_string.c.
//
// A string value is a []byte whose backing array belongs to exactly one key:
// APPEND, SETRANGE and INCR/DECR modify it in place, so anything that
// duplicates a value (COPY, ...) must copy the bytes. Writers that do not
// store the way SET does record Redis's resulting encoding in Entry.Enc
// (APPEND and SETRANGE: raw; INCRBYFLOAT: embstr; INCR: back to default).
//
// Lookups follow Redis's split: commands that only read (GET, MGET, the GET
// part of SET/GETSET/GETDEL, GETEX, GETRANGE, STRLEN) go through x.Lookup,
// which counts keyspace hits and misses; the write-side lookups of SET, INCR,
// APPEND, ... (lookupKeyWrite) use x.DB.Get, which does not.

var StringCommands = []*engine.Command{
	{Name: "get", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdGet},
	{Name: "set", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdSet},
	{Name: "setnx", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdSetNX},
	{Name: "setex", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdSetEX},
	{Name: "psetex", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdPSetEX},
	{Name: "getset", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdGetSet},
	{Name: "getdel", Arity: 2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdGetDel},
	{Name: "getex", Arity: -2, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdGetEx},
	{Name: "mget", Arity: -2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Group: "string",
		Handler: cmdMGet},
	{Name: "mset", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 2, Group: "string",
		Handler: cmdMSet},
	{Name: "msetnx", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 2, Group: "string",
		Handler: cmdMSetNX},
	{Name: "incr", Arity: 2, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdIncr},
	{Name: "incrby", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdIncrBy},
	{Name: "decr", Arity: 2, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdDecr},
	{Name: "decrby", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdDecrBy},
	{Name: "incrbyfloat", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdIncrByFloat},
	{Name: "append", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdAppend},
	{Name: "strlen", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdStrlen},
	{Name: "getrange", Arity: 4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdGetRange},
	{Name: "setrange", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "string",
		Handler: cmdSetRange},
}

// Option flags of SET and GETEX (t_string.c's OBJ_*).
const (
	strNX uint16 = 1 << iota
	strXX
	strEX
	strPX
	strKeepTTL
	strGet
	strEXAT
	strPXAT
	strPersist

	strAnyExpire = strEX | strPX | strEXAT | strPXAT
)

// strCopy returns a fresh copy of b that never aliases the network buffer
// (and is non-nil even when empty, so an empty string is still a []byte).
func strCopy(b []byte) []byte {
	v := make([]byte, len(b))
	copy(v, b)
	return v
}

// parseStrOpts is parseExtendedStringArgumentsOrReply: the options of SET
// (isSet, from argument 3) or GETEX (from argument 2). Conflicting options
// are a syntax error; a repeated expiry option is accepted and the last one
// wins (its predecessors' values are never looked at), as in Redis. Option
// names end at a NUL, as Redis compares them as C strings.
func parseStrOpts(x *engine.Ctx, isSet bool) (flags uint16, expire []byte, ok bool) {
	j := 2
	if isSet {
		j = 3
	}
	args := x.Args
	for ; j < len(args); j++ {
		opt := args[j]
		hasNext := j < len(args)-1
		switch {
		case isSet && engine.CEqualFold(opt, "nx") && flags&strXX == 0:
			flags |= strNX
		case isSet && engine.CEqualFold(opt, "xx") && flags&strNX == 0:
			flags |= strXX
		case isSet && engine.CEqualFold(opt, "get"):
			flags |= strGet
		case isSet && engine.CEqualFold(opt, "keepttl") && flags&(strPersist|strAnyExpire) == 0:
			flags |= strKeepTTL
		case !isSet && engine.CEqualFold(opt, "persist") && flags&(strAnyExpire|strKeepTTL) == 0:
			flags |= strPersist
		case hasNext && engine.CEqualFold(opt, "ex") && flags&(strKeepTTL|strPersist|strAnyExpire&^strEX) == 0:
			flags |= strEX
			expire = args[j+1]
			j++
		case hasNext && engine.CEqualFold(opt, "px") && flags&(strKeepTTL|strPersist|strAnyExpire&^strPX) == 0:
			flags |= strPX
			expire = args[j+1]
			j++
		case hasNext && engine.CEqualFold(opt, "exat") && flags&(strKeepTTL|strPersist|strAnyExpire&^strEXAT) == 0:
			flags |= strEXAT
			expire = args[j+1]
			j++
		case hasNext && engine.CEqualFold(opt, "pxat") && flags&(strKeepTTL|strPersist|strAnyExpire&^strPXAT) == 0:
			flags |= strPXAT
			expire = args[j+1]
			j++
		default:
			x.W.Error(engine.ErrSyntax)
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// strExpireAt is getExpireMillisecondsOrReply: the absolute deadline in Unix
// ms for an EX/PX/EXAT/PXAT argument (flags says which), answering the error
// and returning false for a non-integer, a value <= 0, or a deadline that
// overflows. The overflow test after the addition relies on wrapping, as
// Redis does.
func strExpireAt(x *engine.Ctx, arg []byte, flags uint16) (int64, bool) {
	ms, ok := num.ParseInt(arg)
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return 0, false
	}
	seconds := flags&(strEX|strEXAT) != 0
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		x.W.Error(engine.ErrInvalidExpire(x.Cmd.Name))
		return 0, false
	}
	if seconds {
		ms *= 1000
	}
	if flags&(strEX|strPX) != 0 {
		ms += x.Now
	}
	if ms <= 0 {
		x.W.Error(engine.ErrInvalidExpire(x.Cmd.Name))
		return 0, false
	}
	return ms, true
}

// strReadReply is getGenericCommand: it answers the key's value, or nil when
// the key is missing, and reports false after answering WRONGTYPE. The
// entry is returned for the caller's write that follows.
func strReadReply(x *engine.Ctx, key []byte) (*keyspace.Entry, bool) {
	e, v, ok := strRead(x, key)
	switch {
	case !ok:
	case e == nil:
		x.W.Null()
	default:
		x.W.Bulk(v)
	}
	return e, ok
}

// strRead is lookupKeyRead plus checkType for a string: the entry (nil when
// the key is missing) and its value, or false after answering WRONGTYPE.
func strRead(x *engine.Ctx, key []byte) (*keyspace.Entry, []byte, bool) {
	e := x.Lookup(key)
	if e == nil {
		return nil, nil, true
	}
	v, ok := e.Val.([]byte)
	if !ok {
		x.W.Error(engine.ErrWrongType)
		return e, nil, false
	}
	return e, v, true
}

// strStore is setKey: it gives key the value val (already copied),
// replacing whatever was there, of any type, as a new object (default
// encoding). The caller has looked the key up at x.Now, so an expired key
// is gone. The deadline goes unless keepTTL.
func strStore(x *engine.Ctx, key, val []byte, keepTTL bool) *keyspace.Entry {
	e := x.DB.Set(key, val, keepTTL)
	x.Modified(key)
	return e
}

// Outcomes of strSetGeneric.
const (
	strSetDone    = iota // the key was set; the caller answers unless GET
	strSetAborted        // NX/XX refused; the caller answers unless GET
	strSetFailed         // an error was answered
)

// strSetGeneric is setGenericCommand, for SET, SETNX, SETEX and PSETEX. With
// strGet the old value (or nil) has been answered whatever the outcome.
func strSetGeneric(x *engine.Ctx, flags uint16, key, val, expire []byte) int {
	var at int64
	if flags&strAnyExpire != 0 {
		var ok bool
		if at, ok = strExpireAt(x, expire, flags); !ok {
			return strSetFailed
		}
	}
	var e *keyspace.Entry
	if flags&strGet != 0 {
		var ok bool
		if e, ok = strReadReply(x, key); !ok {
			return strSetFailed
		}
	} else {
		e = x.DB.Get(key, x.Now)
	}
	if (flags&strNX != 0 && e != nil) || (flags&strXX != 0 && e == nil) {
		return strSetAborted
	}
	// With an expiry the old deadline is replaced below, not removed first.
	e = strStore(x, key, strCopy(val), flags&(strKeepTTL|strAnyExpire) != 0)
	x.Notify(config.EvString, "set", key)
	if flags&strAnyExpire != 0 {
		// A deadline already past is kept as is: the key then expires
		// lazily, as in Redis (SET still answers OK).
		x.DB.SetExpiry(e, at)
		x.Notify(config.EvGeneric, "expire", key)
		// SET key value PXAT ms, whatever the form (SETEX, SET EX ... GET).
		x.Rewrite(engine.ArgSet, key, val, engine.ArgPXAT, engine.MsArg(at))
	}
	return strSetDone
}

func cmdGet(x *engine.Ctx) { strReadReply(x, x.Args[1]) }

func cmdSet(x *engine.Ctx) {
	flags, expire, ok := parseStrOpts(x, true)
	if !ok {
		return
	}
	switch strSetGeneric(x, flags, x.Args[1], x.Args[2], expire) {
	case strSetDone:
		if flags&strGet == 0 {
			x.W.OK()
		} else if flags&strAnyExpire == 0 && x.Propagating() {
			// Propagated without its GETs (an expiry rewrote it whole).
			args := make([][]byte, 0, len(x.Args))
			for i, a := range x.Args {
				if i < 3 || !engine.CEqualFold(a, "get") {
					args = append(args, a)
				}
			}
			x.Rewrite(args...)
		}
	case strSetAborted:
		if flags&strGet == 0 {
			x.W.Null()
		}
	}
}

func cmdSetNX(x *engine.Ctx) {
	switch strSetGeneric(x, strNX, x.Args[1], x.Args[2], nil) {
	case strSetDone:
		x.W.Int(1)
	case strSetAborted:
		x.W.Int(0)
	}
}

func cmdSetEX(x *engine.Ctx) {
	if strSetGeneric(x, strEX, x.Args[1], x.Args[3], x.Args[2]) == strSetDone {
		x.W.OK()
	}
}

func cmdPSetEX(x *engine.Ctx) {
	if strSetGeneric(x, strPX, x.Args[1], x.Args[3], x.Args[2]) == strSetDone {
		x.W.OK()
	}
}

func cmdGetSet(x *engine.Ctx) {
	if _, ok := strReadReply(x, x.Args[1]); !ok {
		return
	}
	strStore(x, x.Args[1], strCopy(x.Args[2]), false)
	x.Notify(config.EvString, "set", x.Args[1])
	x.Rewrite(engine.ArgSet, x.Args[1], x.Args[2])
}

func cmdGetDel(x *engine.Ctx) {
	e, ok := strReadReply(x, x.Args[1])
	if ok && e != nil {
		x.DB.Remove(e)
		x.Modified(x.Args[1])
		x.Notify(config.EvGeneric, "del", x.Args[1])
		x.Rewrite(engine.ArgDel, x.Args[1])
	}
}

// cmdGetEx checks in Redis's order: options, then the key (a missing key is
// nil whatever the expiry says), its type, and only then the expiry value.
func cmdGetEx(x *engine.Ctx) {
	flags, expire, ok := parseStrOpts(x, false)
	if !ok {
		return
	}
	e, v, ok := strRead(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Null()
		return
	}
	var at int64
	if flags&strAnyExpire != 0 {
		if at, ok = strExpireAt(x, expire, flags); !ok {
			return
		}
	}
	x.W.Bulk(v)
	switch {
	case flags&(strEXAT|strPXAT) != 0 && at <= x.Now:
		// An absolute deadline already reached deletes the key at once
		// (checkAlreadyExpired), unlike SET, which leaves it to expire.
		x.DB.Remove(e)
		x.Modified(x.Args[1])
		x.Notify(config.EvGeneric, "del", x.Args[1])
		x.Rewrite(engine.ArgDel, x.Args[1])
	case flags&strAnyExpire != 0:
		x.DB.SetExpiry(e, at)
		x.Modified(x.Args[1])
		x.Notify(config.EvGeneric, "expire", x.Args[1])
		x.Rewrite(engine.ArgPexpireat, x.Args[1], engine.MsArg(at))
	case flags&strPersist != 0:
		if x.DB.Persist(e) {
			x.Modified(x.Args[1])
			x.Notify(config.EvGeneric, "persist", x.Args[1])
			x.Rewrite(engine.ArgPersist, x.Args[1])
		}
	}
}

func cmdMGet(x *engine.Ctx) {
	keys := x.Args[1:]
	x.W.Array(len(keys))
	for _, k := range keys {
		e := x.Lookup(k)
		if e == nil {
			x.W.Null()
			continue
		}
		if v, ok := e.Val.([]byte); ok {
			x.W.Bulk(v)
		} else {
			x.W.Null()
		}
	}
}

func cmdMSet(x *engine.Ctx) {
	if !strMSetArgsOK(x) {
		return
	}
	strMSetAll(x)
	x.W.OK()
}

// cmdMSetNX sets nothing if any key exists, whatever its type.
func cmdMSetNX(x *engine.Ctx) {
	if !strMSetArgsOK(x) {
		return
	}
	for j := 1; j < len(x.Args); j += 2 {
		if x.DB.Get(x.Args[j], x.Now) != nil {
			x.W.Int(0)
			return
		}
	}
	strMSetAll(x)
	x.W.Int(1)
}

// strMSetArgsOK checks for key/value pairs; an odd count is the arity error
// the dispatcher's -3 cannot express.
func strMSetArgsOK(x *engine.Ctx) bool {
	if len(x.Args)%2 == 0 {
		x.W.Error(engine.ErrWrongArgs(x.Cmd.Name))
		return false
	}
	return true
}

// strMSetAll sets every pair in order, so a repeated key ends with its last value.
func strMSetAll(x *engine.Ctx) {
	for j := 1; j < len(x.Args); j += 2 {
		key := x.Args[j]
		x.DB.Get(key, x.Now) // lazy expiry and access time, as lookupKeyWrite
		strStore(x, key, strCopy(x.Args[j+1]), false)
		x.Notify(config.EvString, "set", key)
	}
}

func cmdIncr(x *engine.Ctx) { strIncrDecr(x, 1) }
func cmdDecr(x *engine.Ctx) { strIncrDecr(x, -1) }

func cmdIncrBy(x *engine.Ctx) {
	incr, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	strIncrDecr(x, incr)
}

func cmdDecrBy(x *engine.Ctx) {
	incr, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if incr == math.MinInt64 {
		x.W.Error(errDecrOverflow)
		return
	}
	strIncrDecr(x, -incr)
}

// strIncrDecr is incrDecrCommand. The new decimal text is written over the old
// value's bytes when they have room (at most 20 bytes are needed), so a
// counter costs no allocation beyond re-boxing the slice; the deadline stays.
func strIncrDecr(x *engine.Ctx, incr int64) {
	key := x.Args[1]
	e := x.DB.Get(key, x.Now)
	var (
		value int64
		old   []byte
	)
	if e != nil {
		var ok bool
		if old, ok = e.Val.([]byte); !ok {
			x.W.Error(engine.ErrWrongType)
			return
		}
		if value, ok = num.ParseInt(old); !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
	}
	if (incr < 0 && value < 0 && incr < math.MinInt64-value) ||
		(incr > 0 && value > 0 && incr > math.MaxInt64-value) {
		x.W.Error(engine.ErrOverflow)
		return
	}
	value += incr
	if e == nil {
		x.DB.Add(key, strconv.AppendInt(make([]byte, 0, 20), value, 10))
	} else {
		if cap(old) < 20 {
			old = make([]byte, 0, 20)
		}
		e.Val = strconv.AppendInt(old[:0], value, 10)
		e.Enc = keyspace.EncAuto // an integer object again, even after APPEND
	}
	x.Modified(key)
	x.Notify(config.EvString, "incrby", key)
	x.W.Int(value)
}

// cmdIncrByFloat does the arithmetic in x87 long double, as Redis does, and
// stores the sum as Redis prints it (%.17Lf, trailing zeros removed), which
// is also the reply. The deadline stays.
func cmdIncrByFloat(x *engine.Ctx) {
	key := x.Args[1]
	e := x.DB.Get(key, x.Now)
	value := new(big.Float).SetPrec(64)
	if e != nil {
		old, ok := e.Val.([]byte)
		if !ok {
			x.W.Error(engine.ErrWrongType)
			return
		}
		if value, ok = num.ParseLongDouble(old); !ok {
			x.W.Error(engine.ErrNotFloat)
			return
		}
	}
	incr, ok := num.ParseLongDouble(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotFloat)
		return
	}
	sum, ok := num.AddLongDouble(value, incr)
	if !ok {
		x.W.Error(engine.ErrNaNOrInf)
		return
	}
	v := num.AppendLongDoubleHuman(nil, sum)
	if e == nil {
		e = x.DB.Add(key, v)
	} else {
		e.Val = v
	}
	e.Enc = keyspace.EncEmbstr // created without integer detection
	x.Modified(key)
	x.Notify(config.EvString, "incrbyfloat", key)
	x.W.Bulk(v)
	// The result, not the increment: float formatting must not drift.
	x.Rewrite(engine.ArgSet, key, v, engine.ArgKeepTTL)
}

// strLenOK is checkStringLength: size+add must not exceed
// proto-max-bulk-len, nor overflow.
func strLenOK(x *engine.Ctx, size, add int64) bool {
	total := int64(uint64(size) + uint64(add))
	if total > x.E.Cfg.ProtoMaxBulkLen.Load() || total < size || total < add {
		x.W.Error(engine.ErrStringTooLong)
		return false
	}
	return true
}

// cmdAppend creates a missing key without the length check, as Redis, and
// with the default encoding (the argument goes through tryObjectEncoding).
func cmdAppend(x *engine.Ctx) {
	key, add := x.Args[1], x.Args[2]
	e := x.DB.Get(key, x.Now)
	if e == nil {
		x.DB.Add(key, strCopy(add))
		x.Modified(key)
		x.Notify(config.EvString, "append", key)
		x.W.Int(int64(len(add)))
		return
	}
	old, ok := e.Val.([]byte)
	if !ok {
		x.W.Error(engine.ErrWrongType)
		return
	}
	if !strLenOK(x, int64(len(old)), int64(len(add))) {
		return
	}
	v := append(old, add...)
	e.Val = v
	e.Enc = keyspace.EncRaw // modified in place, even by an empty append
	x.Modified(key)
	x.Notify(config.EvString, "append", key)
	x.W.Int(int64(len(v)))
}

func cmdStrlen(x *engine.Ctx) {
	if _, v, ok := strRead(x, x.Args[1]); ok {
		x.W.Int(int64(len(v))) // 0 for a missing key
	}
}

var strEmptyBulk = []byte{}

func cmdGetRange(x *engine.Ctx) {
	start, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	end, ok := num.ParseInt(x.Args[3])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	e, v, ok := strRead(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Bulk(strEmptyBulk)
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		x.W.Bulk(strEmptyBulk)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		x.W.Bulk(strEmptyBulk)
		return
	}
	x.W.Bulk(v[start : end+1])
}

// cmdSetRange checks in Redis's order: the offset, the key's type, an empty
// value (which changes nothing and creates nothing), then the final length.
func cmdSetRange(x *engine.Ctx) {
	key, val := x.Args[1], x.Args[3]
	offset, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if offset < 0 {
		x.W.Error(engine.ErrOffsetRange)
		return
	}
	e := x.DB.Get(key, x.Now)
	var old []byte
	if e != nil {
		if old, ok = e.Val.([]byte); !ok {
			x.W.Error(engine.ErrWrongType)
			return
		}
	}
	if len(val) == 0 {
		x.W.Int(int64(len(old)))
		return
	}
	if !strLenOK(x, offset, int64(len(val))) {
		return
	}
	end := int(offset) + len(val)
	v := old
	if end > len(v) {
		if end <= cap(v) {
			// The bytes past len may hold leftovers of an earlier value.
			clear(v[len(v):end])
			v = v[:end]
		} else {
			nv := make([]byte, end)
			copy(nv, v)
			v = nv
		}
	}
	copy(v[offset:], val)
	if e == nil {
		e = x.DB.Add(key, v)
	} else {
		e.Val = v
	}
	e.Enc = keyspace.EncRaw
	x.Modified(key)
	x.Notify(config.EvString, "setrange", key)
	x.W.Int(int64(len(v)))
}
