package lua

import (
	"encoding/binary"
	"math"
	"strconv"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
)

// The cmsgpack library Redis bundles (deps/lua/src/lua_cmsgpack.c,
// lua-cmsgpack 0.4.0 built for Lua 5.1 on a 64-bit machine): pack,
// unpack, unpack_one and unpack_limit.
//
// Tables are packed as arrays when their keys are exactly 1..N, as maps
// otherwise; a map's pairs come in the interpreter's iteration order,
// which for gopher-lua is not Lua 5.1's, so maps of more than one pair
// can pack to their pairs in another order than on Redis.

const (
	msgpackMaxNesting = 16
)

func (vm *VM) openCmsgpack(L *glua.LState) *glua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(vm.msgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *glua.LState) int {
		return vm.msgpackUnpack(L, 0, 0)
	}))
	t.RawSetString("unpack_one", L.NewFunction(func(L *glua.LState) int {
		offset := optInteger(L, 2, 0)
		L.SetTop(1)
		return vm.msgpackUnpack(L, 1, offset)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *glua.LState) int {
		limit := checkInteger(L, 2)
		offset := optInteger(L, 3, 0)
		L.SetTop(1)
		return vm.msgpackUnpack(L, limit, offset)
	}))
	t.RawSetString("_NAME", glua.LString("cmsgpack"))
	t.RawSetString("_VERSION", glua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", glua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", glua.LString("MessagePack C implementation for Lua"))
	return t
}

// typeError is luaL_typerror, naming a missing argument "no value".
func typeError(L *glua.LState, n int, want string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	cjsonArgError(L, n, want+" expected, got "+got)
}

// checkInteger is luaL_checkinteger (numbers and numeric strings,
// truncated toward zero).
func checkInteger(L *glua.LState, n int) int64 {
	var f float64
	ok := false
	if n <= L.GetTop() {
		f, ok = toNumber(L.Get(n))
	}
	if !ok {
		typeError(L, n, "number")
	}
	return toInteger(f)
}

// optInteger is luaL_optinteger.
func optInteger(L *glua.LState, n int, def int64) int64 {
	if n > L.GetTop() || L.Get(n) == glua.LNil {
		return def
	}
	return checkInteger(L, n)
}

func (vm *VM) msgpackPack(L *glua.LState) int {
	n := L.GetTop()
	if n == 0 {
		cjsonArgError(L, 0, "MessagePack pack needs input.")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = vm.msgpackEncode(b, L.Get(i), 0)
	}
	L.Push(glua.LString(b))
	return 1
}

func (vm *VM) msgpackEncode(b []byte, v glua.LValue, level int) []byte {
	switch v := v.(type) {
	case glua.LString:
		return msgpackBytes(b, string(v))
	case glua.LBool:
		if v {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case glua.LNumber:
		f := float64(v)
		if !math.IsInf(f, 0) && float64(toInteger(f)) == f {
			return msgpackInt(b, toInteger(f))
		}
		return msgpackDouble(b, f)
	case *glua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		// A read-only library table packs as the table it stands for.
		if real, ok := vm.proxies[v]; ok {
			v = real
		}
		if n, ok := tableIsArray(v); ok {
			b = msgpackHeader(b, 0x90, 0xdc, 0xdd, uint64(n))
			for j := 1; j <= n; j++ {
				b = vm.msgpackEncode(b, v.RawGetInt(j), level+1)
			}
			return b
		}
		n := 0
		v.ForEach(func(glua.LValue, glua.LValue) { n++ })
		b = msgpackHeader(b, 0x80, 0xde, 0xdf, uint64(n))
		v.ForEach(func(k, val glua.LValue) {
			b = vm.msgpackEncode(b, k, level+1)
			b = vm.msgpackEncode(b, val, level+1)
		})
		return b
	}
	return append(b, 0xc0)
}

// tableIsArray is table_is_an_array: every key a positive number that an
// int holds exactly, the largest equal to the count.
func tableIsArray(t *glua.LTable) (int, bool) {
	count, max := 0, int32(0)
	ok := true
	t.ForEach(func(k, _ glua.LValue) {
		if !ok {
			return
		}
		n, isNum := k.(glua.LNumber)
		f := float64(n)
		if !isNum || f <= 0 || !(f < 2147483648 && float64(int32(f)) == f) {
			ok = false
			return
		}
		if int32(f) > max {
			max = int32(f)
		}
		count++
	})
	return count, ok && int(max) == count
}

func msgpackBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb)
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	return append(b, s...)
}

func msgpackDouble(b []byte, d float64) []byte {
	if f := float32(d); float64(f) == d {
		b = append(b, 0xca)
		return binary.BigEndian.AppendUint32(b, math.Float32bits(f))
	}
	b = append(b, 0xcb)
	return binary.BigEndian.AppendUint64(b, math.Float64bits(d))
}

func msgpackInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(b, byte(n))
	case n >= 0 && n <= 0xff:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		return append(b, 0xcd, byte(n>>8), byte(n))
	case n >= 0 && n <= 0xffffffff:
		b = append(b, 0xce)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	case n >= 0:
		b = append(b, 0xcf)
		return binary.BigEndian.AppendUint64(b, uint64(n))
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return append(b, 0xd1, byte(n>>8), byte(n))
	case n >= -2147483648:
		b = append(b, 0xd2)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	b = append(b, 0xd3)
	return binary.BigEndian.AppendUint64(b, uint64(n))
}

// msgpackHeader writes an array or map header: fix form up to 15, then
// 16 and 32 bits.
func msgpackHeader(b []byte, fix, h16, h32 byte, n uint64) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 65535:
		return append(b, h16, byte(n>>8), byte(n))
	}
	b = append(b, h32)
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

type msgpackErr int

const (
	msgpackOK msgpackErr = iota
	msgpackEOF
	msgpackBadFmt
)

// msgpackCursor decodes values onto the Lua stack, counting the stack
// slots a C function would hold (sp) to fail where Lua 5.1's stack check
// does.
type msgpackCursor struct {
	vm  *VM
	L   *glua.LState
	p   []byte
	err msgpackErr
	sp  int
}

func (c *msgpackCursor) need(n int) bool {
	if len(c.p) < n {
		c.err = msgpackEOF
		return false
	}
	return true
}

func (c *msgpackCursor) checkStack() {
	if c.sp+1 > luaMaxCStack {
		c.vm.cjsonFail(c.L, "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)")
	}
}

// decode returns the next value (nil on error, with c.err set).
func (c *msgpackCursor) decode() glua.LValue {
	if !c.need(1) {
		return nil
	}
	c.checkStack()
	p := c.p
	be := binary.BigEndian
	num := func(n int, v float64) glua.LValue {
		if !c.need(n) {
			return nil
		}
		c.p = c.p[n:]
		return glua.LNumber(v)
	}
	str := func(hdr, l int) glua.LValue {
		if !c.need(hdr + l) {
			return nil
		}
		s := glua.LString(c.p[hdr : hdr+l])
		c.p = c.p[hdr+l:]
		return s
	}
	switch t := p[0]; t {
	case 0xcc:
		if !c.need(2) {
			return nil
		}
		return num(2, float64(p[1]))
	case 0xd0:
		if !c.need(2) {
			return nil
		}
		return num(2, float64(int8(p[1])))
	case 0xcd:
		if !c.need(3) {
			return nil
		}
		return num(3, float64(be.Uint16(p[1:])))
	case 0xd1:
		if !c.need(3) {
			return nil
		}
		return num(3, float64(int16(be.Uint16(p[1:]))))
	case 0xce:
		if !c.need(5) {
			return nil
		}
		return num(5, float64(be.Uint32(p[1:])))
	case 0xd2:
		if !c.need(5) {
			return nil
		}
		return num(5, float64(int32(be.Uint32(p[1:]))))
	case 0xcf, 0xd3:
		// lua_pushinteger of an unsigned 64-bit value: past 2^63 it
		// wraps to a negative lua_Integer.
		if !c.need(9) {
			return nil
		}
		return num(9, float64(int64(be.Uint64(p[1:]))))
	case 0xc0:
		c.p = c.p[1:]
		return glua.LNil
	case 0xc3, 0xc2:
		c.p = c.p[1:]
		return glua.LBool(t == 0xc3)
	case 0xca:
		if !c.need(5) {
			return nil
		}
		return num(5, float64(math.Float32frombits(be.Uint32(p[1:]))))
	case 0xcb:
		if !c.need(9) {
			return nil
		}
		return num(9, math.Float64frombits(be.Uint64(p[1:])))
	case 0xd9:
		if !c.need(2) {
			return nil
		}
		return str(2, int(p[1]))
	case 0xda:
		if !c.need(3) {
			return nil
		}
		return str(3, int(be.Uint16(p[1:])))
	case 0xdb:
		if !c.need(5) {
			return nil
		}
		l := uint64(be.Uint32(p[1:]))
		c.p = c.p[5:]
		if uint64(len(c.p)) < l {
			c.err = msgpackEOF
			return nil
		}
		return str(0, int(l))
	case 0xdc, 0xde:
		if !c.need(3) {
			return nil
		}
		c.p = c.p[3:]
		return c.aggregate(t == 0xde, uint64(be.Uint16(p[1:])))
	case 0xdd, 0xdf:
		if !c.need(5) {
			return nil
		}
		c.p = c.p[5:]
		return c.aggregate(t == 0xdf, uint64(be.Uint32(p[1:])))
	}
	t := p[0]
	switch {
	case t&0x80 == 0:
		c.p = c.p[1:]
		return glua.LNumber(t)
	case t&0xe0 == 0xe0:
		c.p = c.p[1:]
		return glua.LNumber(int8(t))
	case t&0xe0 == 0xa0:
		return str(1, int(t&0x1f))
	case t&0xf0 == 0x90:
		c.p = c.p[1:]
		return c.aggregate(false, uint64(t&0xf))
	case t&0xf0 == 0x80:
		c.p = c.p[1:]
		return c.aggregate(true, uint64(t&0xf))
	}
	c.err = msgpackBadFmt
	return nil
}

// aggregate decodes an array (keys 1..n, nils left out) or a map; a nil
// or NaN key fails as lua_settable fails.
func (c *msgpackCursor) aggregate(isMap bool, n uint64) glua.LValue {
	t := c.L.NewTable()
	c.sp++ // the table
	defer func() { c.sp-- }()
	for i := uint64(1); i <= n; i++ {
		var k glua.LValue = glua.LNumber(float64(i))
		if isMap {
			if k = c.decode(); c.err != msgpackOK {
				return nil
			}
		}
		c.sp++ // the key
		v := c.decode()
		c.sp--
		if c.err != msgpackOK {
			return nil
		}
		switch kk := k.(type) {
		case *glua.LNilType:
			c.L.Error(glua.LString("table index is nil"), 0)
		case glua.LNumber:
			if math.IsNaN(float64(kk)) {
				c.L.Error(glua.LString("table index is NaN"), 0)
			}
		}
		if v != glua.LNil {
			t.RawSet(k, v)
		}
	}
	return t
}

// msgpackUnpack is mp_unpack_full: limit values (0 and offset 0: all of
// them) from byte offset on; with a limit or an offset, the offset after
// them (-1 at the end of the input) comes first.
func (vm *VM) msgpackUnpack(L *glua.LState, limit, offset int64) int {
	s, ok := luaString(L.Get(1))
	if !ok {
		typeError(L, 1, "string")
	}
	all := limit == 0 && offset == 0
	switch {
	case offset < 0 || limit < 0:
		vm.cjsonFail(L, "Invalid request to unpack with offset of "+strconv.Itoa(int(int32(offset)))+" and limit of "+strconv.Itoa(int(int32(len(s))))+".")
	case offset > int64(len(s)):
		vm.cjsonFail(L, "Start offset "+strconv.Itoa(int(int32(offset)))+" greater than input length "+strconv.Itoa(int(int32(len(s))))+".")
	}
	if all {
		limit = math.MaxInt32
	}
	c := &msgpackCursor{vm: vm, L: L, p: []byte(s[offset:]), sp: 1}
	var vals []glua.LValue
	for cnt := int64(0); len(c.p) > 0 && cnt < limit; cnt++ {
		v := c.decode()
		switch c.err {
		case msgpackEOF:
			vm.cjsonFail(L, "Missing bytes in input.")
		case msgpackBadFmt:
			vm.cjsonFail(L, "Bad data format in input.")
		}
		vals = append(vals, v)
		c.sp++
	}
	if !all {
		next := int64(-1)
		if len(c.p) > 0 {
			next = int64(len(s) - len(c.p))
		}
		L.Push(glua.LNumber(next))
	}
	for _, v := range vals {
		L.Push(v)
	}
	if all {
		return len(vals)
	}
	return len(vals) + 1
}
