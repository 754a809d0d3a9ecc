package lua

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
)

// The struct library Redis bundles (deps/lua/src/lua_struct.c, Roberto
// Ierusalimschy's struct 1.7 with Redis's offset check): pack, unpack and
// size of binary records, on x86-64's sizes (short 2, int 4, long and
// size_t 8, float 4, double 8; native order little endian; maximum
// alignment 8).

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	little bool
	align  int
}

func (vm *VM) openStruct(L *glua.LState) *glua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(vm.structPack))
	t.RawSetString("unpack", L.NewFunction(vm.structUnpack))
	t.RawSetString("size", L.NewFunction(vm.structSize))
	return t
}

// structFormat is luaL_checkstring for the format, cut at its first NUL
// as C reads it.
func structFormat(L *glua.LState) string {
	s, ok := luaString(L.Get(1))
	if !ok {
		typeError(L, 1, "string")
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// getnum reads the decimal number at fmt[*i], or returns df.
func (vm *VM) structGetnum(L *glua.LState, f string, i *int, df int) int {
	if *i >= len(f) || !isDigit(f[*i]) {
		return df
	}
	a := 0
	for *i < len(f) && isDigit(f[*i]) {
		d := int(f[*i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			vm.cjsonFail(L, "integral size overflow")
		}
		a = a*10 + d
		*i++
	}
	return a
}

func (vm *VM) structOptsize(L *glua.LState, opt byte, f string, i *int) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return vm.structGetnum(L, f, i, 1)
	case 'i', 'I':
		sz := vm.structGetnum(L, f, i, 4)
		if sz > structMaxIntSize {
			vm.cjsonFail(L, "integral size "+strconv.Itoa(sz)+" is larger than limit of "+strconv.Itoa(structMaxIntSize))
		}
		return sz
	}
	return 0
}

func structToAlign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

func (vm *VM) structControl(L *glua.LState, opt byte, f string, i *int, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := vm.structGetnum(L, f, i, structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			vm.cjsonFail(L, "alignment "+strconv.Itoa(a)+" is not a power of 2")
		}
		h.align = a
	default:
		cjsonArgError(L, 1, "invalid format option '"+string(opt)+"'")
	}
}

// structCheckNumber is luaL_checknumber in pack, whose stack holds a nil
// right after the arguments (the mark b_pack pushes before its buffer):
// a missing first value is "nil", a later one "no value".
func structCheckNumber(L *glua.LState, n int) float64 {
	f, ok := toNumber(L.Get(n))
	if !ok {
		structTypeError(L, n, "number")
	}
	return f
}

func structTypeError(L *glua.LState, n int, want string) {
	if n == L.GetTop()+1 {
		cjsonArgError(L, n, want+" expected, got nil")
	}
	typeError(L, n, want)
}

// cUint64 is C's conversion of a lua_Number to unsigned long as putinteger
// does it on x86-64: negative values through long.
func cUint64(n float64) uint64 {
	if math.IsNaN(n) {
		return 1 << 63 // cvttsd2si's "integer indefinite"
	}
	if n < 0 {
		return uint64(toInteger(n))
	}
	if n < 1<<63 {
		return uint64(int64(n))
	}
	if n < 1<<64 {
		return uint64(n)
	}
	return 0 // cvttsd2si overflows to 1<<63, and the high-bit fix-up clears it
}

func (vm *VM) structPack(L *glua.LState) int {
	f := structFormat(L)
	h := structHeader{little: true, align: 1}
	arg := 2
	var b []byte
	total := 0
	for i := 0; i < len(f); {
		opt := f[i]
		i++
		size := vm.structOptsize(L, opt, f, &i)
		pad := structToAlign(total, &h, opt, size)
		total += pad
		for ; pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			v := cUint64(structCheckNumber(L, arg))
			arg++
			var buf [structMaxIntSize]byte
			for k := 0; k < size; k++ {
				j := k
				if !h.little {
					j = size - 1 - k
				}
				if k < 8 {
					buf[j] = byte(v >> (8 * k))
				}
			}
			b = append(b, buf[:size]...)
		case 'x':
			b = append(b, 0)
		case 'f':
			bits := math.Float32bits(float32(structCheckNumber(L, arg)))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint32(b, bits)
			} else {
				b = binary.BigEndian.AppendUint32(b, bits)
			}
		case 'd':
			bits := math.Float64bits(structCheckNumber(L, arg))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint64(b, bits)
			} else {
				b = binary.BigEndian.AppendUint64(b, bits)
			}
		case 'c', 's':
			s, ok := luaString(L.Get(arg))
			if !ok {
				structTypeError(L, arg, "string")
			}
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				cjsonArgError(L, arg, "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
				size++
			}
		default:
			vm.structControl(L, opt, f, &i, &h)
		}
		total += size
	}
	L.Push(glua.LString(b))
	return 1
}

func structGetInteger(data []byte, little, signed bool, size int) float64 {
	var l uint64
	if !little {
		for k := 0; k < size; k++ {
			l = l<<8 | uint64(data[k])
		}
	} else {
		for k := size - 1; k >= 0; k-- {
			l = l<<8 | uint64(data[k])
		}
	}
	if !signed {
		return float64(l)
	}
	// The sign bit of a size over 8 bytes is past the 64 bits kept: C's
	// shift by that much is, on x86-64, by its value mod 64.
	mask := ^uint64(0) << uint((size*8-1)&63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func (vm *VM) structUnpack(L *glua.LState) int {
	f := structFormat(L)
	dv, ok := luaString(L.Get(2))
	if !ok {
		typeError(L, 2, "string")
	}
	data := []byte(dv)
	ld := len(data)
	pos := 1
	if v := L.Get(3); v != glua.LNil {
		n, ok := toNumber(v)
		if !ok {
			typeError(L, 3, "number")
		}
		pos = int(toInteger(n))
	}
	if pos <= 0 {
		cjsonArgError(L, 3, "offset must be 1 or greater")
	}
	pos--
	h := structHeader{little: true, align: 1}
	base := L.GetTop()
	n := 0
	for i := 0; i < len(f); {
		opt := f[i]
		i++
		size := vm.structOptsize(L, opt, f, &i)
		pos += structToAlign(pos, &h, opt, size)
		if !(size <= ld && pos <= ld-size) {
			cjsonArgError(L, 2, "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			L.Push(glua.LNumber(structGetInteger(data[pos:], h.little, opt >= 'a', size)))
			n++
		case 'x':
		case 'f':
			var bits uint32
			if h.little {
				bits = binary.LittleEndian.Uint32(data[pos:])
			} else {
				bits = binary.BigEndian.Uint32(data[pos:])
			}
			L.Push(glua.LNumber(math.Float32frombits(bits)))
			n++
		case 'd':
			var bits uint64
			if h.little {
				bits = binary.LittleEndian.Uint64(data[pos:])
			} else {
				bits = binary.BigEndian.Uint64(data[pos:])
			}
			L.Push(glua.LNumber(math.Float64frombits(bits)))
			n++
		case 'c':
			if size == 0 {
				var prev float64
				ok := false
				if n > 0 {
					prev, ok = toNumber(L.Get(-1))
				}
				if !ok {
					vm.cjsonFail(L, "format 'c0' needs a previous size")
				}
				size = int(cUint64(prev))
				L.Pop(1)
				n--
				if !(size >= 0 && size <= ld && pos <= ld-size) {
					cjsonArgError(L, 2, "data string too short")
				}
			}
			L.Push(glua.LString(data[pos : pos+size]))
			n++
		case 's':
			e := strings.IndexByte(dv[pos:], 0)
			if e < 0 {
				vm.cjsonFail(L, "unfinished string in data")
			}
			size = e + 1
			L.Push(glua.LString(data[pos : pos+e]))
			n++
		default:
			vm.structControl(L, opt, f, &i, &h)
		}
		pos += size
	}
	L.Push(glua.LNumber(pos + 1))
	return L.GetTop() - base
}

func isAlnum(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (vm *VM) structSize(L *glua.LState) int {
	f := structFormat(L)
	h := structHeader{little: true, align: 1}
	pos := 0
	for i := 0; i < len(f); {
		opt := f[i]
		i++
		size := vm.structOptsize(L, opt, f, &i)
		pos += structToAlign(pos, &h, opt, size)
		if opt == 's' {
			cjsonArgError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			cjsonArgError(L, 1, "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			vm.structControl(L, opt, f, &i, &h)
		}
		pos += size
	}
	L.Push(glua.LNumber(pos))
	return 1
}
