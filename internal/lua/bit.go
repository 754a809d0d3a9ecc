package lua

import (
	"math"
	"math/bits"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
)

// openBit builds LuaBitOp's bit library, which Redis bundles: 32-bit
// operations on numbers, results as signed 32-bit integers.
func openBit(L *glua.LState) *glua.LTable {
	t := L.NewTable()
	fold := func(op func(a, b int32) int32) glua.LGFunction {
		return func(L *glua.LState) int {
			r := bitArg(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				r = op(r, bitArg(L, i))
			}
			L.Push(glua.LNumber(r))
			return 1
		}
	}
	shift := func(op func(a int32, n uint) int32) glua.LGFunction {
		return func(L *glua.LState) int {
			a, n := bitArg(L, 1), uint(bitArg(L, 2))&31
			L.Push(glua.LNumber(op(a, n)))
			return 1
		}
	}
	fns := map[string]glua.LGFunction{
		"tobit": func(L *glua.LState) int { L.Push(glua.LNumber(bitArg(L, 1))); return 1 },
		"bnot":  func(L *glua.LState) int { L.Push(glua.LNumber(^bitArg(L, 1))); return 1 },
		"band":  fold(func(a, b int32) int32 { return a & b }),
		"bor":   fold(func(a, b int32) int32 { return a | b }),
		"bxor":  fold(func(a, b int32) int32 { return a ^ b }),
		"lshift": shift(func(a int32, n uint) int32 {
			return int32(uint32(a) << n)
		}),
		"rshift": shift(func(a int32, n uint) int32 {
			return int32(uint32(a) >> n)
		}),
		"arshift": shift(func(a int32, n uint) int32 { return a >> n }),
		"rol": shift(func(a int32, n uint) int32 {
			return int32(bits.RotateLeft32(uint32(a), int(n)))
		}),
		"ror": shift(func(a int32, n uint) int32 {
			return int32(bits.RotateLeft32(uint32(a), -int(n)))
		}),
		"bswap": func(L *glua.LState) int {
			L.Push(glua.LNumber(int32(bits.ReverseBytes32(uint32(bitArg(L, 1))))))
			return 1
		},
		"tohex": func(L *glua.LState) int {
			b := uint32(bitArg(L, 1))
			n := int32(8)
			if L.GetTop() >= 2 && L.Get(2) != glua.LNil {
				n = bitArg(L, 2)
			}
			digits := "0123456789abcdef"
			if n < 0 {
				n, digits = -n, "0123456789ABCDEF"
			}
			if n > 8 {
				n = 8
			}
			buf := make([]byte, n)
			for i := n - 1; i >= 0; i-- {
				buf[i] = digits[b&15]
				b >>= 4
			}
			L.Push(glua.LString(buf))
			return 1
		},
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// bitArg normalises a number to 32 bits as LuaBitOp does: adding 2^52+2^51
// leaves the integer part, rounded to nearest even, in the low 32 bits.
func bitArg(L *glua.LState, i int) int32 {
	v := L.Get(i)
	var f float64
	switch v := v.(type) {
	case glua.LNumber:
		f = float64(v)
	case glua.LString:
		n, ok := parseLuaNumber(string(v))
		if !ok {
			L.TypeError(i, glua.LTNumber)
		}
		f = n
	default:
		L.TypeError(i, glua.LTNumber)
	}
	return int32(uint32(math.Float64bits(f + 6755399441055744.0)))
}
