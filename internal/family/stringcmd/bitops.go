package stringcmd

import (
	"github.com/limitkv/limitkv/internal/bitops"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
)

// The bitmap family, after Redis 7.0's bitops.c: SETBIT, GETBIT, BITCOUNT,
// BITPOS, BITOP, BITFIELD and BITFIELD_RO. Bitmaps are plain string values;
// the bit algorithms are internal/bitops.
//
// Writers that address bits (SETBIT, BITFIELD with a SET or INCRBY) make the
// string long enough first, zero-filled, and leave it "raw", even when no
// bit changed, as Redis's lookupStringForBitCommand does; BITOP stores a new
// raw string. WATCH follows Redis's signalModifiedKey calls: SETBIT only when
// the bit changed or the string was created or grew, BITFIELD only when a
// field's value changed (or the string was created or grew and a write was
// applied), BITOP only its destination.
//
// SUBSTR and LCS, string commands of t_string.c that limitkv lacked, are
// here too: LCS is the other user of internal/bitops.
var BitopsCommands = []*engine.Command{
	{Name: "setbit", Arity: 4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Handler: cmdSetBit},
	{Name: "getbit", Arity: 3, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Handler: cmdGetBit},
	{Name: "bitcount", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Handler: cmdBitCount},
	{Name: "bitpos", Arity: -3, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Handler: cmdBitPos},
	{Name: "bitop", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 2, LastKey: -1, Step: 1, Group: "bitmap", Handler: cmdBitOp},
	{Name: "bitfield", Arity: -2, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Handler: cmdBitField},
	{Name: "bitfield_ro", Arity: -2, Flags: engine.FlagReadOnly | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Handler: cmdBitFieldRO},
	{Name: "substr", Arity: 4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Handler: cmdGetRange},
	{Name: "lcs", Arity: -3, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 2, Step: 1, Group: "string", Handler: cmdLCS},
}

// bitOffsetArg is getBitOffsetFromArgument: a bit offset, which BITFIELD
// (hash) may give as #N, N fields of width bits (the product wraps as in
// Redis's 64-bit arithmetic). An offset whose byte would not fit in
// proto-max-bulk-len is refused, before anything is allocated.
func bitOffsetArg(x *engine.Ctx, arg []byte, hash bool, width int) (uint64, bool) {
	useHash := hash && width > 0 && len(arg) > 0 && arg[0] == '#'
	if useHash {
		arg = arg[1:]
	}
	off, ok := num.ParseInt(arg)
	if ok && useHash {
		off *= int64(width)
	}
	if !ok || off < 0 || off>>3 >= x.E.Cfg.ProtoMaxBulkLen.Load() {
		x.W.Error(engine.ErrBitOffset)
		return 0, false
	}
	return uint64(off), true
}

// bitWriteTarget is lookupStringForBitCommand: the string at key, created
// or zero-extended so that bit maxbit exists, and marked raw. grown reports
// that the string was created or made longer. It answers WRONGTYPE and
// returns false for another type.
func bitWriteTarget(x *engine.Ctx, key []byte, maxbit uint64) (e *keyspace.Entry, v []byte, grown, ok bool) {
	need := int(maxbit>>3) + 1
	e = x.DB.Get(key, x.Now)
	if e == nil {
		v = make([]byte, need)
		e = x.DB.Add(key, v)
		e.Enc = keyspace.EncRaw
		return e, v, true, true
	}
	if v, ok = e.Val.([]byte); !ok {
		x.W.Error(engine.ErrWrongType)
		return nil, nil, false, false
	}
	if need > len(v) {
		grown = true
		if need <= cap(v) {
			// The bytes past len may hold leftovers of an earlier value.
			clear(v[len(v):need])
			v = v[:need]
		} else {
			// Room to spare, as sdsMakeRoomFor: SETBIT at increasing
			// offsets must not copy the whole bitmap each time.
			room := need * 2
			if need >= 1<<20 {
				room = need + 1<<20
			}
			nv := make([]byte, need, room)
			copy(nv, v)
			v = nv
		}
		e.Val = v
	}
	e.Enc = keyspace.EncRaw
	return e, v, grown, true
}

func cmdSetBit(x *engine.Ctx) {
	off, ok := bitOffsetArg(x, x.Args[2], false, 0)
	if !ok {
		return
	}
	on, ok := num.ParseInt(x.Args[3])
	if !ok || on&^1 != 0 {
		x.W.Error(engine.ErrBitValue)
		return
	}
	_, v, grown, ok := bitWriteTarget(x, x.Args[1], off)
	if !ok {
		return
	}
	i, mask := off>>3, byte(0x80)>>(off&7)
	old := v[i]&mask != 0
	if on == 1 {
		v[i] |= mask
	} else {
		v[i] &^= mask
	}
	if grown || old != (on == 1) {
		x.Modified(x.Args[1])
		x.Notify(config.EvString, "setbit", x.Args[1])
	}
	if old {
		x.W.Int(1)
	} else {
		x.W.Int(0)
	}
}

func cmdGetBit(x *engine.Ctx) {
	off, ok := bitOffsetArg(x, x.Args[2], false, 0)
	if !ok {
		return
	}
	_, v, ok := strRead(x, x.Args[1])
	if !ok {
		return
	}
	if i := off >> 3; i < uint64(len(v)) && v[i]&(0x80>>(off&7)) != 0 {
		x.W.Int(1)
		return
	}
	x.W.Int(0)
}

// bitRangeArgs is a BITCOUNT or BITPOS range in bit positions, or empty
// when it holds no bit.
type bitRangeArgs struct {
	start, end int64 // bit positions, valid when !empty
	empty      bool
}

// clampBitRange is the index arithmetic shared by BITCOUNT and BITPOS:
// negative indexes count from the end, then both are clamped into the
// string (of n bytes, or 8n bits when isBit).
func clampBitRange(start, end, n int64, isBit bool) bitRangeArgs {
	total := n
	if isBit {
		total = n << 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return bitRangeArgs{empty: true}
	}
	if !isBit {
		start, end = start<<3, end<<3+7
	}
	return bitRangeArgs{start: start, end: end}
}

// bitUnitArg reads BYTE or BIT, answering a syntax error otherwise.
func bitUnitArg(x *engine.Ctx, arg []byte) (isBit, ok bool) {
	switch {
	case engine.CEqualFold(arg, "bit"):
		return true, true
	case engine.CEqualFold(arg, "byte"):
		return false, true
	}
	x.W.Error(engine.ErrSyntax)
	return false, false
}

// cmdBitCount checks in Redis's order: the key (a missing key counts 0
// whatever the arguments), its type, start and end, a range negative at
// both ends and reversed (0, before the unit is even read), the unit.
func cmdBitCount(x *engine.Ctx) {
	e, v, ok := strRead(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	var r bitRangeArgs
	switch len(x.Args) {
	case 4, 5:
		start, ok1 := num.ParseInt(x.Args[2])
		if !ok1 {
			x.W.Error(engine.ErrNotInt)
			return
		}
		end, ok2 := num.ParseInt(x.Args[3])
		if !ok2 {
			x.W.Error(engine.ErrNotInt)
			return
		}
		if start < 0 && end < 0 && start > end {
			x.W.Int(0)
			return
		}
		isBit := false
		if len(x.Args) == 5 {
			if isBit, ok = bitUnitArg(x, x.Args[4]); !ok {
				return
			}
		}
		r = clampBitRange(start, end, int64(len(v)), isBit)
	case 2:
		r = clampBitRange(0, -1, int64(len(v)), false)
	default:
		// A lone start (or too many arguments) is Redis 7.0's syntax error.
		x.W.Error(engine.ErrSyntax)
		return
	}
	if r.empty {
		x.W.Int(0)
		return
	}
	x.W.Int(bitops.Count(v, r.start, r.end))
}

// cmdBitPos checks in Redis's order: the bit, the key (a missing key is an
// endless run of zeros: 0 for a clear bit, -1 for a set one), its type,
// start, the unit, end. Looking for a clear bit in a string that has none,
// without an explicit end, answers the first bit past the string, as Redis
// treats the string as zero-padded; with an explicit end it answers -1.
func cmdBitPos(x *engine.Ctx) {
	bit, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if bit != 0 && bit != 1 {
		x.W.Error(errBitArg)
		return
	}
	e, v, ok := strRead(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(-bit) // 0 for a clear bit, -1 for a set one
		return
	}
	n := int64(len(v))
	var r bitRangeArgs
	endGiven := false
	switch len(x.Args) {
	case 4, 5, 6:
		start, ok := num.ParseInt(x.Args[3])
		if !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
		isBit := false
		if len(x.Args) == 6 {
			if isBit, ok = bitUnitArg(x, x.Args[5]); !ok {
				return
			}
		}
		end := n - 1
		if len(x.Args) >= 5 {
			if end, ok = num.ParseInt(x.Args[4]); !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			endGiven = true
		}
		r = clampBitRange(start, end, n, isBit)
	case 3:
		r = clampBitRange(0, -1, n, false)
	default:
		x.W.Error(engine.ErrSyntax)
		return
	}
	if r.empty {
		x.W.Int(-1)
		return
	}
	pos := bitops.Pos(v, int(bit), r.start, r.end)
	if pos < 0 && bit == 0 && !endGiven {
		pos = r.end + 1
	}
	x.W.Int(pos)
}

// cmdBitOp stores the result as a new raw string (its deadline gone, as
// any SET), or deletes the destination when every source is empty or
// missing; it answers the result's length. Only the destination counts as
// written for WATCH.
func cmdBitOp(x *engine.Ctx) {
	var op bitops.Op
	name := x.Args[1]
	switch {
	case engine.CEqualFold(name, "and"):
		op = bitops.And
	case engine.CEqualFold(name, "or"):
		op = bitops.Or
	case engine.CEqualFold(name, "xor"):
		op = bitops.Xor
	case engine.CEqualFold(name, "not"):
		op = bitops.Not
	default:
		x.W.Error(engine.ErrSyntax)
		return
	}
	if op == bitops.Not && len(x.Args) != 4 {
		x.W.Error(errBitOpNot)
		return
	}
	dest := x.Args[2]
	srcs := make([][]byte, 0, len(x.Args)-3)
	for _, k := range x.Args[3:] {
		_, v, ok := strRead(x, k)
		if !ok {
			return
		}
		srcs = append(srcs, v)
	}
	res := bitops.Apply(op, srcs)
	if res == nil {
		// The deletion, if there was a key, is reported by keyDeleted.
		if x.DB.Delete(dest, x.Now) {
			x.Modified(dest)
			x.Notify(config.EvGeneric, "del", dest)
		}
	} else {
		x.DB.Get(dest, x.Now) // lazy expiry, as lookupKeyWrite
		x.DB.Set(dest, res, false).Enc = keyspace.EncRaw
		x.Modified(dest)
		x.Notify(config.EvString, "set", dest)
	}
	x.W.Int(int64(len(res)))
}

// A BITFIELD operation, parsed.
type bitfieldOp struct {
	off    uint64
	arg    int64 // SET's value or INCRBY's increment
	kind   byte  // 'g', 's' or 'i'
	ow     bitops.Overflow
	width  int
	signed bool
}

func cmdBitField(x *engine.Ctx)   { bitfieldGeneric(x, false) }
func cmdBitFieldRO(x *engine.Ctx) { bitfieldGeneric(x, true) }

// bitfieldTypeArg is getBitfieldTypeFromArgument: i1..i64 or u1..u63 (the
// width read up to a NUL, as Redis reads a C string).
func bitfieldTypeArg(x *engine.Ctx, arg []byte) (signed bool, width int, ok bool) {
	if len(arg) > 0 && (arg[0] == 'i' || arg[0] == 'u') {
		signed = arg[0] == 'i'
		w, ok := num.ParseInt(engine.Cstr(arg[1:]))
		if ok && w >= 1 && (w <= 63 || (signed && w == 64)) {
			return signed, int(w), true
		}
	}
	x.W.Error(errBitfieldType)
	return false, 0, false
}

// bitfieldGeneric parses every operation before it looks at the key, so
// an error anywhere changes nothing. Operations run in order on the same
// string, each seeing the previous ones' writes. With only GETs it is a
// read: a missing key stays missing and reads as zeros.
func bitfieldGeneric(x *engine.Ctx, readOnly bool) {
	args := x.Args
	ops := make([]bitfieldOp, 0, (len(args)-2)/3)
	ow := bitops.Wrap
	writes := false
	var highest uint64
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		var kind byte
		switch sub := args[j]; {
		case engine.CEqualFold(sub, "get") && rem >= 2:
			kind = 'g'
		case engine.CEqualFold(sub, "set") && rem >= 3:
			kind = 's'
		case engine.CEqualFold(sub, "incrby") && rem >= 3:
			kind = 'i'
		case engine.CEqualFold(sub, "overflow") && rem >= 1:
			j++
			switch t := args[j]; {
			case engine.CEqualFold(t, "wrap"):
				ow = bitops.Wrap
			case engine.CEqualFold(t, "sat"):
				ow = bitops.Sat
			case engine.CEqualFold(t, "fail"):
				ow = bitops.Fail
			default:
				x.W.Error(errBitfieldOverflow)
				return
			}
			continue
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
		signed, width, ok := bitfieldTypeArg(x, args[j+1])
		if !ok {
			return
		}
		off, ok := bitOffsetArg(x, args[j+2], true, width)
		if !ok {
			return
		}
		op := bitfieldOp{off: off, kind: kind, ow: ow, width: width, signed: signed}
		if kind != 'g' {
			writes = true
			highest = max(highest, off+uint64(width)-1)
			if op.arg, ok = num.ParseInt(args[j+3]); !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			j++
		}
		ops = append(ops, op)
		j += 2
	}
	var v []byte
	grown := false
	var ok bool
	switch {
	case !writes:
		_, v, ok = strRead(x, args[1])
	case readOnly:
		x.W.Error(errBitfieldRO)
		return
	default:
		_, v, grown, ok = bitWriteTarget(x, args[1], highest)
	}
	if !ok {
		return
	}
	x.W.Array(len(ops))
	changes := 0
	for _, op := range ops {
		switch {
		case op.kind == 'g' && op.signed:
			x.W.Int(bitops.GetSigned(v, op.off, op.width))
		case op.kind == 'g':
			x.W.Int(int64(bitops.GetUnsigned(v, op.off, op.width)))
		case op.signed:
			old := bitops.GetSigned(v, op.off, op.width)
			base, incr := old, op.arg
			if op.kind == 's' {
				base, incr = op.arg, 0
			}
			nv, dir := bitops.IncrSigned(base, incr, op.width, op.ow)
			if dir != 0 && op.ow == bitops.Fail {
				x.W.Null()
				continue
			}
			bitops.SetSigned(v, op.off, op.width, nv)
			if op.kind == 's' {
				x.W.Int(old)
			} else {
				x.W.Int(nv)
			}
			if grown || nv != old {
				changes++
			}
		default:
			old := bitops.GetUnsigned(v, op.off, op.width)
			base, incr := old, op.arg
			if op.kind == 's' {
				base, incr = uint64(op.arg), 0
			}
			nv, dir := bitops.IncrUnsigned(base, incr, op.width, op.ow)
			if dir != 0 && op.ow == bitops.Fail {
				x.W.Null()
				continue
			}
			bitops.SetUnsigned(v, op.off, op.width, nv)
			if op.kind == 's' {
				x.W.Int(int64(old))
			} else {
				x.W.Int(int64(nv))
			}
			if grown || nv != old {
				changes++
			}
		}
	}
	if changes > 0 {
		x.Modified(x.Args[1])
		x.Notify(config.EvString, "setbit", x.Args[1])
		for range changes - 1 {
			x.Dirty() // server.dirty += changes
		}
	}
}

// lcsReturnTable is the LCS table size (bytes) from which the memory is
// handed back to the OS after the command (see Engine.returnMemory).
const lcsReturnTable = 64 << 20

// cmdLCS checks in Redis's order: both keys' types (one error text for
// either), the options, LEN with IDX, the strings' lengths and then the
// table's size: Redis refuses a table of more than proto-max-bulk-len
// bytes (4 per cell), which bounds the memory one call can take.
func cmdLCS(x *engine.Ctx) {
	ea := x.Lookup(x.Args[1])
	eb := x.Lookup(x.Args[2])
	var a, b []byte
	var ok bool
	if ea != nil {
		if a, ok = ea.Val.([]byte); !ok {
			x.W.Error(errLCSType)
			return
		}
	}
	if eb != nil {
		if b, ok = eb.Val.([]byte); !ok {
			x.W.Error(errLCSType)
			return
		}
	}
	var getLen, getIdx, withLen bool
	var minLen int64
	for j := 3; j < len(x.Args); j++ {
		opt := x.Args[j]
		switch {
		case engine.CEqualFold(opt, "idx"):
			getIdx = true
		case engine.CEqualFold(opt, "len"):
			getLen = true
		case engine.CEqualFold(opt, "withmatchlen"):
			withLen = true
		case engine.CEqualFold(opt, "minmatchlen") && j < len(x.Args)-1:
			j++
			if minLen, ok = num.ParseInt(x.Args[j]); !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			minLen = max(minLen, 0)
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	if getLen && getIdx {
		x.W.Error(errLCSLenIdx)
		return
	}
	const u32max = 1<<32 - 1
	if len(a) >= u32max-1 || len(b) >= u32max-1 {
		x.W.Error(errLCSTooLong)
		return
	}
	table := bitops.LCSCells(len(a), len(b)) * 4
	if table > uint64(x.E.Cfg.ProtoMaxBulkLen.Load()) {
		x.W.Error(engine.ErrLCSMemory)
		return
	}
	if getLen {
		x.W.Int(int64(bitops.LCSLen(a, b)))
		return
	}
	seq, runs := bitops.LCS(a, b)
	if table >= lcsReturnTable {
		// Redis frees the table at once; here it is garbage the heap
		// would otherwise keep until it is reused or scavenged.
		x.E.ReturnMemorySoon()
	}
	if !getIdx {
		x.W.Bulk(seq)
		return
	}
	// Redis's map of matches, then len (a flat array in RESP2).
	x.W.Map(2)
	x.W.BulkString("matches")
	n := 0
	for _, m := range runs {
		if minLen == 0 || int64(m.Len()) >= minLen {
			n++
		}
	}
	x.W.Array(n)
	for _, m := range runs {
		if minLen != 0 && int64(m.Len()) < minLen {
			continue
		}
		if withLen {
			x.W.Array(3)
		} else {
			x.W.Array(2)
		}
		x.W.Array(2)
		x.W.Int(int64(m.AStart))
		x.W.Int(int64(m.AEnd))
		x.W.Array(2)
		x.W.Int(int64(m.BStart))
		x.W.Int(int64(m.BEnd))
		if withLen {
			x.W.Int(int64(m.Len()))
		}
	}
	x.W.BulkString("len")
	x.W.Int(int64(len(seq)))
}
