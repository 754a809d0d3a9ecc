package hashcmd

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/glob"

	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/resp"
)

// The hash family, after Redis 7.0's t_hash.c. The data structure is
// internal/hash; this layer parses arguments in Redis's order of checks,
// looks keys up as Redis does (lookupKeyRead, which counts keyspace hits
// and misses, for the readers; lookupKeyWrite, which does not, for the
// writers) and applies Redis's conversion triggers: HSET and HMSET check
// all their arguments' lengths before writing (hashTypeTryConversion),
// HSETNX only when it writes, HINCRBY and HINCRBYFLOAT only through the
// per-write check (hashTypeSet).
//
// Writes and WATCH: HSETNX of an existing field and HDEL of absent fields
// signal nothing, as in Redis; HSET, HINCRBY and HINCRBYFLOAT always
// signal (Ctx.Modified), even when the value stays the same. Hashes
// never wake blocked clients.
var HashCommands = []*engine.Command{
	{Name: "hset", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHSet},
	{Name: "hsetnx", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHSetNX},
	{Name: "hmset", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHMSet},
	{Name: "hget", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHGet},
	{Name: "hmget", Arity: -3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHMGet},
	{Name: "hgetall", Arity: 2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHGetAll},
	{Name: "hdel", Arity: -3, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHDel},
	{Name: "hexists", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHExists},
	{Name: "hlen", Arity: 2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHLen},
	{Name: "hstrlen", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHStrLen},
	{Name: "hkeys", Arity: 2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHKeys},
	{Name: "hvals", Arity: 2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHVals},
	{Name: "hincrby", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHIncrBy},
	{Name: "hincrbyfloat", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHIncrByFloat},
	{Name: "hrandfield", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHRandField},
	{Name: "hscan", Arity: -3, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash",
		Handler: cmdHScan},
}

func hashRead(x *engine.Ctx, key []byte) (*keyspace.Entry, *hash.Hash, bool) {
	return engine.ReadAs[*hash.Hash](x, key)
}
func hashWrite(x *engine.Ctx, key []byte) (*keyspace.Entry, *hash.Hash, bool) {
	return engine.WriteAs[*hash.Hash](x, key)
}

// hashWriteOrCreate is hashTypeLookupWriteOrCreate: a missing key gets a
// new empty hash at once, before the command checks anything else, as in
// Redis (no command can then fail and leave it empty: see the callers).
func hashWriteOrCreate(x *engine.Ctx, key []byte) (*hash.Hash, bool) {
	_, h, ok := hashWrite(x, key)
	if !ok {
		return nil, false
	}
	if h == nil {
		h = hash.New()
		x.DB.Add(key, h)
	}
	return h, true
}

func cmdHSet(x *engine.Ctx)  { hsetGeneric(x, false) }
func cmdHMSet(x *engine.Ctx) { hsetGeneric(x, true) }

// hsetGeneric is hsetCommand: HSET answers the number of new fields,
// HMSET +OK.
func hsetGeneric(x *engine.Ctx, hmset bool) {
	args := x.Args
	if len(args)%2 == 1 {
		x.W.Error(engine.ErrWrongArgs(x.Cmd.Name))
		return
	}
	h, ok := hashWriteOrCreate(x, args[1])
	if !ok {
		return
	}
	lim := x.E.Cfg.HashLimits()
	h.TryConversion(args[2:], lim)
	created := 0
	for i := 2; i < len(args); i += 2 {
		if !h.Set(args[i], args[i+1], lim) {
			created++
		}
	}
	x.Modified(args[1])
	x.Notify(config.EvHash, "hset", args[1])
	if hmset {
		x.W.OK()
		return
	}
	x.W.Int(int64(created))
}

func cmdHSetNX(x *engine.Ctx) {
	h, ok := hashWriteOrCreate(x, x.Args[1])
	if !ok {
		return
	}
	if h.Exists(x.Args[2]) {
		x.W.Int(0)
		return
	}
	lim := x.E.Cfg.HashLimits()
	h.TryConversion(x.Args[2:4], lim)
	h.Set(x.Args[2], x.Args[3], lim)
	x.W.Int(1)
	x.Modified(x.Args[1])
	x.Notify(config.EvHash, "hset", x.Args[1])
}

func cmdHIncrBy(x *engine.Ctx) {
	incr, ok := num.ParseInt(x.Args[3])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	h, ok := hashWriteOrCreate(x, x.Args[1])
	if !ok {
		return
	}
	var buf [24]byte
	value := int64(0)
	if cur, found := h.Get(x.Args[2], buf[:0]); found {
		if value, ok = num.ParseInt(cur); !ok {
			x.W.Error(errHashNotInt)
			return
		}
	}
	if (incr < 0 && value < 0 && incr < math.MinInt64-value) || (incr > 0 && value > 0 && incr > math.MaxInt64-value) {
		x.W.Error(engine.ErrOverflow)
		return
	}
	value += incr
	h.Set(x.Args[2], strconv.AppendInt(buf[:0], value, 10), x.E.Cfg.HashLimits())
	x.W.Int(value)
	x.Modified(x.Args[1])
	x.Notify(config.EvHash, "hincrby", x.Args[1])
}

// cmdHIncrByFloat adds in x87 long double and stores the sum as Redis
// prints it (ld2string's human form), as INCRBYFLOAT does.
func cmdHIncrByFloat(x *engine.Ctx) {
	incr, ok := num.ParseLongDouble(x.Args[3])
	if !ok {
		x.W.Error(engine.ErrNotFloat)
		return
	}
	if incr.IsInf() {
		x.W.Error(errHashIncrNaNInf)
		return
	}
	h, ok := hashWriteOrCreate(x, x.Args[1])
	if !ok {
		return
	}
	var buf [24]byte
	value := new(big.Float).SetPrec(64)
	if cur, found := h.Get(x.Args[2], buf[:0]); found {
		if value, ok = num.ParseLongDouble(cur); !ok {
			x.W.Error(errHashNotFloat)
			return
		}
	}
	sum, ok := num.AddLongDouble(value, incr)
	if !ok {
		x.W.Error(engine.ErrNaNOrInf)
		return
	}
	v := num.AppendLongDoubleHuman(nil, sum)
	h.Set(x.Args[2], v, x.E.Cfg.HashLimits())
	x.W.Bulk(v)
	x.Modified(x.Args[1])
	x.Notify(config.EvHash, "hincrbyfloat", x.Args[1])
	x.Rewrite(engine.ArgHSet, x.Args[1], x.Args[2], v) // the result, as INCRBYFLOAT
}

func cmdHGet(x *engine.Ctx) {
	_, h, ok := hashRead(x, x.Args[1])
	if !ok {
		return
	}
	hashReplyField(x.W, h, x.Args[2])
}

// hashReplyField is addHashFieldToReply: the value, or a null bulk for a
// missing key or field.
func hashReplyField(w *resp.Writer, h *hash.Hash, field []byte) {
	if h == nil {
		w.Null()
		return
	}
	var buf [24]byte
	if v, ok := h.Get(field, buf[:0]); ok {
		w.Bulk(v)
		return
	}
	w.Null()
}

func cmdHMGet(x *engine.Ctx) {
	_, h, ok := hashRead(x, x.Args[1])
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, f := range x.Args[2:] {
		hashReplyField(x.W, h, f)
	}
}

func cmdHStrLen(x *engine.Ctx) {
	_, h, ok := hashRead(x, x.Args[1])
	if !ok {
		return
	}
	if h == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(h.ValueLen(x.Args[2])))
}

func cmdHExists(x *engine.Ctx) {
	_, h, ok := hashRead(x, x.Args[1])
	if !ok {
		return
	}
	if h != nil && h.Exists(x.Args[2]) {
		x.W.Int(1)
		return
	}
	x.W.Int(0)
}

// What genericHgetallCommand replies.
const (
	hashFields = 1 << iota
	hashValues
)

func cmdHKeys(x *engine.Ctx)   { hgetallGeneric(x, hashFields) }
func cmdHVals(x *engine.Ctx)   { hgetallGeneric(x, hashValues) }
func cmdHGetAll(x *engine.Ctx) { hgetallGeneric(x, hashFields|hashValues) }

func hgetallGeneric(x *engine.Ctx, what int) {
	_, h, ok := hashRead(x, x.Args[1])
	if !ok {
		return
	}
	both := what == hashFields|hashValues
	if h == nil {
		if both {
			x.W.Map(0) // HGETALL: Redis's empty map in RESP3
		} else {
			x.W.Array(0)
		}
		return
	}
	if both {
		x.W.Map(h.Len())
	} else {
		x.W.Array(h.Len())
	}
	h.ForEach(func(f, v []byte) bool {
		if what&hashFields != 0 {
			x.W.Bulk(f)
		}
		if what&hashValues != 0 {
			x.W.Bulk(v)
		}
		return true
	})
}

// HSCAN. A small hash is returned whole with cursor 0, as Redis does; a
// large one is walked with the table's reverse-binary cursor, so every
// field present for the whole scan is returned. As Redis's
// scanGenericCommand, a call visits buckets until it has COUNT items
// (a field and its value count as two) or has visited 10*COUNT buckets,
// and MATCH filters the fields afterwards.
func cmdHScan(x *engine.Ctx) {
	cursor, ok := engine.ParseScanCursor(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrInvalidCursor)
		return
	}
	_, h, ok := hashRead(x, x.Args[1])
	if !ok {
		return
	}
	if h == nil {
		x.W.Array(2)
		x.W.BulkString("0")
		x.W.Array(0)
		return
	}
	o, ok := engine.ParseScanOptions(x, 3, false)
	if !ok {
		return
	}
	var body resp.Writer
	n := int64(0)
	items := int64(0)
	visit := func(f, v []byte) {
		items += 2
		if o.UsePat && !glob.Match(o.Pat, f, false) {
			return
		}
		body.Bulk(f)
		body.Bulk(v)
		n += 2
	}
	if h.Encoding() == "listpack" {
		cursor = h.Scan(0, visit)
	} else {
		maxIter := o.Count * 10 // wraps for huge COUNTs exactly as Redis's long does
		for {
			cursor = h.Scan(cursor, visit)
			if cursor == 0 {
				break
			}
			left := maxIter
			maxIter--
			if left == 0 || items >= o.Count {
				break
			}
		}
	}
	var cbuf [20]byte
	x.W.Array(2)
	x.W.Bulk(strconv.AppendUint(cbuf[:0], cursor, 10))
	x.W.Array(int(n))
	x.W.Raw(body.Bytes())
}

// HRANDFIELD: the argument checks of hrandfieldCommand, with the count
// limits and errors of ZRANDMEMBER (the same code in Redis).
func cmdHRandField(x *engine.Ctx) {
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
		withValues := false
		if len(args) > 4 || (len(args) == 4 && !engine.CEqualFold(args[3], "withvalues")) {
			x.W.Error(engine.ErrSyntax)
			return
		} else if len(args) == 4 {
			withValues = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				x.W.Error(engine.ErrValueOutOfRange)
				return
			}
		}
		hrandWithCount(x, l, withValues)
		return
	}
	_, h, ok := hashRead(x, args[1])
	if !ok {
		return
	}
	if h == nil {
		x.W.Null()
		return
	}
	h.NewPicker().Random(func(f, _ []byte) bool { x.W.Bulk(f); return true })
}

// hrandWithCount is hrandfieldWithCountCommand. The reply shapes are
// Redis's; the random choices cannot be. A negative count draws that many
// independent pairs; a positive one that many distinct pairs, or the whole
// hash in its iteration order (insertion order when small, as Redis) when
// the count covers it.
func hrandWithCount(x *engine.Ctx, l int64, withValues bool) {
	_, h, ok := hashRead(x, x.Args[1])
	if !ok {
		return
	}
	if h == nil || l == 0 {
		x.W.Array(0)
		return
	}
	emit := func(f, v []byte) bool {
		engine.ZPairStart(x.W, withValues)
		x.W.Bulk(f)
		if withValues {
			x.W.Bulk(v)
		}
		return true
	}
	size := h.Len()
	if l < 0 || l == 1 {
		count := uint64(1)
		if l < 0 {
			count = uint64(-l)
		}
		if count > engine.ZrandMaxPicks {
			x.W.Error(engine.ErrValueOutOfRange)
			return
		}
		engine.ZPairsHeader(x.W, int(count), withValues)
		p := h.NewPicker()
		for range count {
			p.Random(emit)
		}
		return
	}
	count := int(min(l, int64(size)))
	engine.ZPairsHeader(x.W, count, withValues)
	if count == size {
		h.ForEach(emit)
		return
	}
	if h.Encoding() == "listpack" {
		// Distinct positions, replied in listpack order as
		// lpRandomPairsUnique does.
		p := h.NewPicker()
		pick := make([]bool, size)
		for _, i := range rand.Perm(size)[:count] {
			pick[i] = true
		}
		for i, in := range pick {
			if in {
				p.At(i, emit)
			}
		}
		return
	}
	if count*3 > size {
		// Redis copies the hash and removes random pairs; choosing the
		// pairs to keep is the same draw.
		keep := make([]bool, size)
		for _, i := range rand.Perm(size)[:count] {
			keep[i] = true
		}
		i := 0
		h.ForEach(func(f, v []byte) bool {
			if keep[i] {
				emit(f, v)
			}
			i++
			return true
		})
		return
	}
	seen := make(map[string]struct{}, count)
	p := h.NewPicker()
	for len(seen) < count {
		p.Random(func(f, v []byte) bool {
			if _, dup := seen[string(f)]; !dup {
				seen[string(f)] = struct{}{}
				emit(f, v)
			}
			return true
		})
	}
}

func cmdHLen(x *engine.Ctx) { engine.CardGeneric[*hash.Hash](x) }

func cmdHDel(x *engine.Ctx) { engine.RemoveGeneric(x, config.EvHash, "hdel", (*hash.Hash).Delete) }
