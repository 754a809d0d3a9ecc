package bitops

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bitAt is the naive reading of bit i of b.
func bitAt(b []byte, i int64) int {
	if i>>3 >= int64(len(b)) {
		return 0
	}
	return int(b[i>>3]>>(7-i&7)) & 1
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		switch r.IntN(4) {
		case 0:
			b[i] = 0
		case 1:
			b[i] = 0xff
		default:
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

func TestCountAndPosAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		b := randBytes(r, 1+r.IntN(70))
		nbits := int64(len(b)) * 8
		s := r.Int64N(nbits)
		e := s + r.Int64N(nbits-s)
		var want int64
		wantPos := [2]int64{-1, -1}
		for i := s; i <= e; i++ {
			v := bitAt(b, i)
			want += int64(v)
			if wantPos[v] < 0 {
				wantPos[v] = i
			}
		}
		if got := Count(b, s, e); got != want {
			t.Fatalf("Count(%x, %d, %d) = %d, want %d", b, s, e, got, want)
		}
		for bit := 0; bit < 2; bit++ {
			if got := Pos(b, bit, s, e); got != wantPos[bit] {
				t.Fatalf("Pos(%x, %d, %d, %d) = %d, want %d", b, bit, s, e, got, wantPos[bit])
			}
		}
	}
}

func TestCountEdges(t *testing.T) {
	tests := []struct {
		b    []byte
		s, e int64
		want int64
	}{
		{[]byte{0xff}, 0, 7, 8},
		{[]byte{0xff}, 3, 3, 1},
		{[]byte{0x80, 0x01}, 0, 15, 2},
		{[]byte{0x80, 0x01}, 1, 14, 0},
		{bytes.Repeat([]byte{0xff}, 100), 5, 794, 790},
	}
	for _, tc := range tests {
		if got := Count(tc.b, tc.s, tc.e); got != tc.want {
			t.Errorf("Count(%x, %d, %d) = %d, want %d", tc.b, tc.s, tc.e, got, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 500; iter++ {
		srcs := make([][]byte, 1+r.IntN(4))
		for i := range srcs {
			srcs[i] = randBytes(r, r.IntN(40))
		}
		for op := And; op <= Not; op++ {
			got := Apply(op, srcs)
			n := 0
			for _, s := range srcs {
				n = max(n, len(s))
			}
			if n == 0 {
				if got != nil {
					t.Fatalf("op %d on empty sources = %x", op, got)
				}
				continue
			}
			want := make([]byte, n)
			for j := range want {
				at := func(s []byte) byte {
					if j < len(s) {
						return s[j]
					}
					return 0
				}
				v := at(srcs[0])
				if op == Not {
					v = ^v
				}
				for _, s := range srcs[1:] {
					switch op {
					case And:
						v &= at(s)
					case Or:
						v |= at(s)
					case Xor:
						v ^= at(s)
					}
				}
				want[j] = v
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("op %d of %x = %x, want %x", op, srcs, got, want)
			}
		}
	}
}

func TestBitfieldGetSet(t *testing.T) {
	b := make([]byte, 3)
	SetUnsigned(b, 5, 8, 0xab)
	if b[0] != 0x05 || b[1] != 0x58 {
		t.Fatalf("SetUnsigned: %x", b)
	}
	if v := GetUnsigned(b, 5, 8); v != 0xab {
		t.Fatalf("GetUnsigned = %x", v)
	}
	if v := GetSigned(b, 5, 8); v != -0x55 {
		t.Fatalf("GetSigned = %d", v)
	}
	if v := GetUnsigned(b, 20, 16); v != 0 {
		t.Fatalf("read past the end = %d", v)
	}
	SetSigned(b, 0, 24, -1)
	if v := GetUnsigned(b, 16, 16); v != 0xff00 {
		t.Fatalf("partial read past the end = %x", v)
	}
	w := make([]byte, 9)
	SetSigned(w, 3, 64, math.MinInt64+5)
	if v := GetSigned(w, 3, 64); v != math.MinInt64+5 {
		t.Fatalf("i64 round trip = %d", v)
	}
}

func TestIncr(t *testing.T) {
	tests := []struct {
		signed     bool
		value      int64
		incr       int64
		width      int
		ow         Overflow
		want       int64
		wantDir    int
		comparable bool // want holds for the mode (Fail's value is not checked)
	}{
		{false, 250, 10, 8, Wrap, 4, 1, true},
		{false, 250, 10, 8, Sat, 255, 1, true},
		{false, 5, -10, 8, Wrap, 251, -1, true},
		{false, 5, -10, 8, Sat, 0, -1, true},
		{false, -1, 0, 8, Sat, 255, 1, true}, // SET u8 -1: a huge unsigned value
		{false, -1, 0, 8, Wrap, 255, 1, true},
		{false, 5, -5, 8, Wrap, 0, 0, true},
		{true, 120, 10, 8, Wrap, -126, 1, true},
		{true, 120, 10, 8, Sat, 127, 1, true},
		{true, -120, -10, 8, Sat, -128, -1, true},
		{true, -120, -10, 8, Wrap, 126, -1, true},
		{true, math.MinInt64, 0, 8, Sat, 127, 1, true}, // Redis's wrapping test
		{true, math.MinInt64 + 127, 0, 8, Sat, 127, 1, true},
		{true, math.MinInt64 + 128, 0, 8, Sat, -128, -1, true},
		{true, math.MaxInt64, 1, 64, Wrap, math.MinInt64, 1, true},
		{true, math.MaxInt64, 1, 64, Sat, math.MaxInt64, 1, true},
		{true, math.MinInt64, -1, 64, Sat, math.MinInt64, -1, true},
		{true, -1, math.MinInt64, 64, Sat, math.MinInt64, -1, true},
		{true, 0, math.MinInt64, 64, Sat, math.MinInt64, 0, true},
		{true, 0, -1, 1, Sat, -1, 0, true},
		{true, 0, 1, 1, Sat, 0, 1, true},
		{true, 0, 1, 1, Wrap, -1, 1, true},
	}
	for _, tc := range tests {
		var got int64
		var dir int
		if tc.signed {
			got, dir = IncrSigned(tc.value, tc.incr, tc.width, tc.ow)
		} else {
			var u uint64
			u, dir = IncrUnsigned(uint64(tc.value), tc.incr, tc.width, tc.ow)
			got = int64(u)
		}
		if dir != tc.wantDir || (tc.comparable && got != tc.want) {
			t.Errorf("%+v: got %d dir %d", tc, got, dir)
		}
	}
}

// lcsBrute is the LCS length by plain recursion with memo, for small inputs.
func lcsBrute(a, b []byte) int {
	memo := map[[2]int]int{}
	var f func(i, j int) int
	f = func(i, j int) int {
		if i == len(a) || j == len(b) {
			return 0
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		v := max(f(i+1, j), f(i, j+1))
		if a[i] == b[j] {
			v = max(v, 1+f(i+1, j+1))
		}
		memo[[2]int{i, j}] = v
		return v
	}
	return f(0, 0)
}

func TestLCS(t *testing.T) {
	seq, runs := LCS([]byte("ohmytext"), []byte("mynewtext"))
	if string(seq) != "mytext" {
		t.Fatalf("LCS = %q", seq)
	}
	want := []Match{{4, 7, 5, 8}, {2, 3, 0, 1}}
	if len(runs) != len(want) || runs[0] != want[0] || runs[1] != want[1] {
		t.Fatalf("runs = %v, want %v", runs, want)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 300; iter++ {
		a := make([]byte, r.IntN(12))
		b := make([]byte, r.IntN(12))
		for i := range a {
			a[i] = 'a' + byte(r.IntN(3))
		}
		for i := range b {
			b[i] = 'a' + byte(r.IntN(3))
		}
		n := lcsBrute(a, b)
		seq, runs := LCS(a, b)
		if len(seq) != n || LCSLen(a, b) != n {
			t.Fatalf("LCS(%q, %q): %q, LCSLen %d, want length %d", a, b, seq, LCSLen(a, b), n)
		}
		// The runs, read backwards, spell the subsequence, at increasing
		// positions in both strings.
		var spelled []byte
		lastA, lastB := -1, -1
		for i := len(runs) - 1; i >= 0; i-- {
			m := runs[i]
			if m.AStart <= lastA || m.BStart <= lastB || m.Len() != m.BEnd-m.BStart+1 ||
				!bytes.Equal(a[m.AStart:m.AEnd+1], b[m.BStart:m.BEnd+1]) {
				t.Fatalf("LCS(%q, %q): bad runs %v", a, b, runs)
			}
			spelled = append(spelled, a[m.AStart:m.AEnd+1]...)
			lastA, lastB = m.AEnd, m.BEnd
		}
		if !bytes.Equal(spelled, seq) {
			t.Fatalf("LCS(%q, %q): runs %v spell %q, not %q", a, b, runs, spelled, seq)
		}
	}
}

// The model behind FuzzBitfield: a bitmap as a slice of bits, and the
// arithmetic of BITFIELD in big integers, with Redis's two quirks stated
// outright (see IncrSigned and IncrUnsigned).
type modelBits []bool

func (m *modelBits) grow(n uint64) {
	for uint64(len(*m)) < n {
		*m = append(*m, false)
	}
}

func (m modelBits) get(off uint64, width int, signed bool) *big.Int {
	v := new(big.Int)
	for j := 0; j < width; j++ {
		v.Lsh(v, 1)
		if p := off + uint64(j); p < uint64(len(m)) && m[p] {
			v.SetBit(v, 0, 1)
		}
	}
	if signed && v.Bit(width-1) == 1 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(width)))
	}
	return v
}

func (m modelBits) set(off uint64, width int, v *big.Int) {
	mod := new(big.Int).Lsh(big.NewInt(1), uint(width))
	u := new(big.Int).Mod(v, mod)
	for j := 0; j < width; j++ {
		m[off+uint64(j)] = u.Bit(width-1-j) == 1
	}
}

// modelOp is one BITFIELD SET (set) or INCRBY in the model: the value to
// store or nil for FAIL, and the reply.
func (m *modelBits) op(set, signed bool, width int, off uint64, arg int64, ow Overflow) (reply *big.Int, ok bool) {
	m.grow((off + uint64(width) + 7) &^ 7)
	old := m.get(off, width, signed)
	var lo, hi *big.Int
	if signed {
		lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(width-1)))
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(width-1)), big.NewInt(1))
	} else {
		lo = big.NewInt(0)
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(width)), big.NewInt(1))
	}
	var target *big.Int
	if set {
		if signed {
			target = big.NewInt(arg)
		} else {
			target = new(big.Int).SetUint64(uint64(arg)) // Redis reads the value as unsigned
		}
	} else {
		target = new(big.Int).Add(old, big.NewInt(arg))
	}
	up, down := target.Cmp(hi) > 0, target.Cmp(lo) < 0
	if set && signed && width < 64 && arg <= math.MinInt64+hi.Int64() {
		up, down = true, false // Redis's wrapping comparison
	}
	store := target
	if up || down {
		switch ow {
		case Fail:
			return nil, false
		case Sat:
			store = hi
			if down {
				store = lo
			}
		}
	}
	m.set(off, width, store)
	if set {
		return old, true
	}
	return m.get(off, width, signed), true
}

func (m modelBits) bytes() []byte {
	b := make([]byte, (len(m)+7)/8)
	for i, v := range m {
		if v {
			b[i/8] |= 0x80 >> (i % 8)
		}
	}
	return b
}

// FuzzBitfield runs a sequence of BITFIELD operations decoded from the
// input on a byte slice with this package's functions, and on the model,
// and requires the same replies and the same bytes.
func FuzzBitfield(f *testing.F) {
	f.Add([]byte{0, 8, 0, 0x7f, 1, 8, 0, 5})
	f.Add([]byte{0x13, 64, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 64, 3, 1})
	f.Add([]byte{0x22, 63, 200, 1, 0x31, 7, 9, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		var buf []byte
		var model modelBits
		for len(data) >= 3 {
			kind, wb, ob := data[0], data[1], data[2]
			data = data[3:]
			signed := kind&1 == 0
			width := int(wb)%64 + 1
			if !signed && width == 64 {
				width = 63
			}
			off := uint64(ob)
			var arg int64
			if n := min(len(data), int(kind>>4)&7+1); n > 0 {
				for i := 0; i < n; i++ {
					arg = arg<<8 | int64(data[i])
				}
				if kind&0x80 != 0 {
					arg = -arg
				}
				if n == 8 && kind&8 != 0 {
					arg = math.MinInt64 + int64(data[0])
				}
				data = data[n:]
			}
			ow := Overflow(kind >> 1 & 3 % 3)
			op := kind >> 3 & 1 // 0: SET, 1: INCRBY
			if kind>>1&3 == 3 {
				// GET, past the end too.
				var got int64
				if signed {
					got = GetSigned(buf, off, width)
				} else {
					got = int64(GetUnsigned(buf, off, width))
				}
				if want := model.get(off, width, signed); want.Int64() != got || !want.IsInt64() {
					t.Fatalf("GET %v%d @%d = %d, model %v", signed, width, off, got, want)
				}
				continue
			}
			need := int((off+uint64(width)-1)>>3 + 1)
			if len(buf) < need {
				buf = append(buf, make([]byte, need-len(buf))...)
			}
			var reply int64
			ok := true
			if signed {
				old := GetSigned(buf, off, width)
				base, incr := old, arg
				if op == 0 {
					base, incr = arg, 0
				}
				v, dir := IncrSigned(base, incr, width, ow)
				if dir != 0 && ow == Fail {
					ok = false
				} else {
					SetSigned(buf, off, width, v)
					reply = v
					if op == 0 {
						reply = old
					}
				}
			} else {
				old := GetUnsigned(buf, off, width)
				base, incr := old, arg
				if op == 0 {
					base, incr = uint64(arg), 0
				}
				v, dir := IncrUnsigned(base, incr, width, ow)
				if dir != 0 && ow == Fail {
					ok = false
				} else {
					SetUnsigned(buf, off, width, v)
					reply = int64(v)
					if op == 0 {
						reply = int64(old)
					}
				}
			}
			want, wantOK := model.op(op == 0, signed, width, off, arg, ow)
			if ok != wantOK || (ok && (!want.IsInt64() || want.Int64() != reply)) {
				t.Fatalf("op %d signed %v width %d off %d arg %d ow %d: %d %v, model %v %v", op, signed, width, off, arg, ow, reply, ok, want, wantOK)
			}
			if mb := model.bytes(); !bytes.Equal(mb, buf[:len(mb)]) || len(bytes.TrimRight(buf[len(mb):], "\x00")) != 0 {
				t.Fatalf("bytes %x, model %x", buf, mb)
			}
		}
	})
}
