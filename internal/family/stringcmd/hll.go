package stringcmd

import (
	"math/rand/v2"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/hll"
	"github.com/limitkv/limitkv/internal/keyspace"
)

// The HyperLogLog family, after Redis 7.0's hyperloglog.c. An HLL is a
// plain string value (TYPE string, GET returns its bytes); internal/hll
// reads and edits those bytes exactly as Redis does.
//
// Encodings: Redis creates an HLL as a raw string, and every command that
// works on an existing one first unshares it (dbUnshareStringValue), which
// turns an embstr written by SET into a raw string, so each of them sets
// EncRaw; PFCOUNT of several keys does not.
//
// WATCH: Redis signals a modified key where it calls signalModifiedKey,
// which is not everywhere a write happens: PFADD only when a register
// changed (or the key was created), PFMERGE only its destination (always),
// PFCOUNT of one key when it recomputed and stored the cached cardinality
// (it is not a write command, so it touches the key itself), and PFDEBUG
// never, even when it converts the value to dense.
var HllCommands = []*engine.Command{
	{Name: "pfadd", Arity: -2, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hyperloglog",
		Handler: cmdPFAdd},
	{Name: "pfcount", Arity: -2, Flags: engine.FlagReadOnly | engine.FlagMayReplicate, FirstKey: 1, LastKey: -1, Step: 1, Group: "hyperloglog",
		Handler: cmdPFCount},
	{Name: "pfmerge", Arity: -2, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Group: "hyperloglog",
		Handler: cmdPFMerge},
	{Name: "pfdebug", Arity: 3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagAdmin, FirstKey: 2, LastKey: 2, Step: 1, Group: "hyperloglog",
		Handler: cmdPFDebug},
	{Name: "pfselftest", Arity: 1, Flags: engine.FlagAdmin, Group: "hyperloglog",
		Handler: cmdPFSelfTest},
}

// hllOf is isHLLObjectOrReply for an existing entry: the value, or false
// after answering WRONGTYPE (Redis's own wording for a string that is not
// an HLL).
func hllOf(x *engine.Ctx, e *keyspace.Entry) ([]byte, bool) {
	v, ok := e.Val.([]byte)
	if !ok {
		x.W.Error(engine.ErrWrongType)
		return nil, false
	}
	if !hll.Valid(v) {
		x.W.Error(errHLLNotHLL)
		return nil, false
	}
	return v, true
}

func hllMaxBytes(x *engine.Ctx) int { return int(x.E.Cfg.HllSparseMaxBytes.Load()) }

// hllStore puts an edited value back (the slice may have moved) as the raw
// string Redis holds after editing it in place.
func hllStore(e *keyspace.Entry, v []byte) {
	e.Val = v
	e.Enc = keyspace.EncRaw
}

func cmdPFAdd(x *engine.Ctx) {
	key := x.Args[1]
	e := x.DB.Get(key, x.Now)
	var v []byte
	updated := 0
	if e == nil {
		v = hll.New()
		e = x.DB.Add(key, v)
		updated++
	} else {
		var ok bool
		if v, ok = hllOf(x, e); !ok {
			return
		}
	}
	v, n, err := hll.Add(v, x.Args[2:], hllMaxBytes(x))
	hllStore(e, v)
	if err != nil {
		// The elements before the bad one stay added, unsignalled, as in
		// Redis; the error reply keeps the dispatcher from touching WATCH.
		x.W.Error(errHLLCorrupt)
		return
	}
	if updated += n; updated == 0 {
		x.W.Int(0)
		return
	}
	hll.Invalidate(v)
	x.Modified(key)
	x.Notify(config.EvString, "pfadd", key)
	x.W.Int(1)
}

func cmdPFCount(x *engine.Ctx) {
	if len(x.Args) > 2 {
		var regs hll.Regs
		for _, key := range x.Args[1:] {
			e := x.Lookup(key)
			if e == nil {
				continue
			}
			v, ok := hllOf(x, e)
			if !ok {
				return
			}
			if regs.Merge(v) != nil {
				x.W.Error(errHLLCorrupt)
				return
			}
		}
		x.W.Int(int64(regs.Count()))
		return
	}
	key := x.Args[1]
	e := x.Lookup(key)
	if e == nil {
		x.W.Int(0)
		return
	}
	v, ok := hllOf(x, e)
	if !ok {
		return
	}
	e.Enc = keyspace.EncRaw
	card, valid := hll.Cached(v)
	if !valid {
		var err error
		if card, err = hll.Count(v); err != nil {
			x.W.Error(errHLLCorrupt)
			return
		}
		hll.SetCached(v, card)
		x.Modified(key)
	}
	// Redis replies the unsigned count as a signed 64-bit integer.
	x.W.Int(int64(card))
}

func cmdPFMerge(x *engine.Ctx) {
	var regs hll.Regs
	dense := false
	for _, key := range x.Args[1:] {
		e := x.Lookup(key)
		if e == nil {
			continue
		}
		v, ok := hllOf(x, e)
		if !ok {
			return
		}
		if !hll.IsSparse(v) {
			dense = true
		}
		if regs.Merge(v) != nil {
			x.W.Error(errHLLCorrupt)
			return
		}
	}
	dst := x.Args[1]
	e := x.DB.Get(dst, x.Now)
	var v []byte
	if e == nil {
		v = hll.New()
		e = x.DB.Add(dst, v)
	} else {
		v = e.Val.([]byte) // merged above, so a valid HLL
	}
	v, err := hll.Store(v, &regs, dense, hllMaxBytes(x))
	hllStore(e, v)
	if err != nil {
		x.W.Error(errHLLCorrupt)
		return
	}
	// Only the destination is signalled, not the sources the key
	// positions name.
	x.Modified(dst)
	x.Notify(config.EvString, "pfadd", dst)
	x.W.OK()
}

func cmdPFDebug(x *engine.Ctx) {
	sub, key := x.Args[1], x.Args[2]
	e := x.DB.Get(key, x.Now)
	if e == nil {
		x.W.Error(errHLLNoKey)
		return
	}
	v, ok := hllOf(x, e)
	if !ok {
		return
	}
	e.Enc = keyspace.EncRaw
	switch {
	case engine.CEqualFold(sub, "getreg"):
		if hll.IsSparse(v) {
			d, err := hll.ToDense(v)
			if err != nil {
				x.W.Error(errHLLCorrupt)
				return
			}
			hllStore(e, d)
			x.Dirty() // propagated for the encoding change, as Redis forces it
			v = d
		}
		regs := hll.DenseRegisters(v)
		x.W.Array(len(regs))
		for _, r := range regs {
			x.W.Int(int64(r))
		}
	case engine.CEqualFold(sub, "decode"):
		if !hll.IsSparse(v) {
			x.W.Error(errHLLNotSparse)
			return
		}
		x.W.BulkString(hll.Decode(v))
	case engine.CEqualFold(sub, "encoding"):
		if hll.IsSparse(v) {
			x.W.Simple("sparse")
		} else {
			x.W.Simple("dense")
		}
	case engine.CEqualFold(sub, "todense"):
		if !hll.IsSparse(v) {
			x.W.Int(0)
			return
		}
		d, err := hll.ToDense(v)
		if err != nil {
			x.W.Error(errHLLCorrupt)
			return
		}
		hllStore(e, d)
		x.Dirty() // propagated for the encoding change, as Redis forces it
		x.W.Int(1)
	default:
		x.W.Error(errPFDebugUnknown(sub))
	}
}

func cmdPFSelfTest(x *engine.Ctx) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	if err := hll.SelfTest(hllMaxBytes(x), rng); err != nil {
		x.W.Error(err.Error())
		return
	}
	x.W.OK()
}
