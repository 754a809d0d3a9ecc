// Package hll is Redis 7.0's HyperLogLog, byte for byte: the same string
// layout (the "HYLL" header, the sparse ZERO/XZERO/VAL run-length form and
// the dense 6-bit registers), the same hash, the same in-place edits of the
// sparse form and the same cardinality estimator, so that a value built by a
// history of commands here is the string Redis would hold after the same
// history, and counts the same.
//
// Values are plain byte strings owned by the caller; functions that edit one
// return the (possibly reallocated) result. Nothing here validates beyond
// what Redis validates: a string with a good header but a corrupt body is
// worked on as Redis works on it, and reported corrupt only where Redis
// notices (ErrCorrupt).
package hll

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Layout constants.
const (
	HeaderSize = 16
	P          = 14
	Registers  = 1 << P // 16384
	q          = 64 - P // hash bits left for the run of zeroes
	regBits    = 6
	regMax     = 1<<regBits - 1
	DenseSize  = HeaderSize + (Registers*regBits+7)/8 // 12304

	Dense  = 0 // header encoding byte
	Sparse = 1

	sparseValMax   = 32
	sparseValLen   = 4
	sparseZeroMax  = 64
	sparseXZeroMax = 16384

	// DefaultSparseMaxBytes is hll-sparse-max-bytes's default.
	DefaultSparseMaxBytes = 3000
)

// ErrCorrupt is Redis's "Corrupted HLL object detected": a sparse body
// that does not decode to exactly Registers registers.
var ErrCorrupt = errors.New("corrupted HLL object")

// Valid reports whether v passes Redis's header check (isHLLObjectOrReply):
// the magic, a known encoding, and the exact length for a dense value. A
// sparse body is not looked at.
func Valid(v []byte) bool {
	if len(v) < HeaderSize || string(v[:4]) != "HYLL" || v[4] > Sparse {
		return false
	}
	return v[4] != Dense || len(v) == DenseSize
}

// IsSparse reports the encoding of a valid value.
func IsSparse(v []byte) bool { return v[4] == Sparse }

// New returns an empty HLL: sparse, every register in XZERO runs, the
// cached cardinality a valid 0.
func New() []byte {
	v := make([]byte, HeaderSize+2, 32)
	copy(v, "HYLL")
	v[4] = Sparse
	setXZero(v[HeaderSize:], Registers)
	return v
}

// Cached returns the cardinality cached in the header and whether it is
// valid (its top bit clear).
func Cached(v []byte) (uint64, bool) {
	c := binary.LittleEndian.Uint64(v[8:16])
	return c, v[15]&0x80 == 0
}

// SetCached stores a computed cardinality in the header. A value with the
// top bit set (Redis's answer for a degenerate dense value) reads back as
// invalid, as it does in Redis.
func SetCached(v []byte, card uint64) { binary.LittleEndian.PutUint64(v[8:16], card) }

// Invalidate marks the cached cardinality stale.
func Invalidate(v []byte) { v[15] |= 0x80 }

// MurmurHash64A is Redis's endian-neutral variant of MurmurHash2 64.
func MurmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ (uint64(len(key)) * m)
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[n:]
	switch len(tail) {
	case 7:
		h ^= uint64(tail[6]) << 48
		fallthrough
	case 6:
		h ^= uint64(tail[5]) << 40
		fallthrough
	case 5:
		h ^= uint64(tail[4]) << 32
		fallthrough
	case 4:
		h ^= uint64(tail[3]) << 24
		fallthrough
	case 3:
		h ^= uint64(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint64(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint64(tail[0])
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen is the register an element maps to and the length of the run of
// zeroes (plus the final one) in the rest of its hash.
func patLen(ele []byte) (int, uint8) {
	h := MurmurHash64A(ele, 0xadc83b19)
	index := int(h & (Registers - 1))
	h >>= P
	h |= 1 << q // bounds the count at q+1
	return index, uint8(bits.TrailingZeros64(h) + 1)
}

// Dense registers: 6 bits each, packed from the low bits of each byte up.
// The register at the very end spills into the byte after the array, which
// in Redis is the string's terminating NUL; its bits there are always zero,
// so reads treat the missing byte as 0 and writes skip it.

func getReg(r []byte, i int) uint8 {
	b := i * regBits / 8
	fb := uint(i * regBits & 7)
	b0 := uint(r[b])
	var b1 uint
	if b+1 < len(r) {
		b1 = uint(r[b+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & regMax)
}

func setReg(r []byte, i int, v uint8) {
	b := i * regBits / 8
	fb := uint(i * regBits & 7)
	val := uint(v)
	r[b] &^= byte(regMax << fb)
	r[b] |= byte(val << fb)
	if b+1 < len(r) {
		r[b+1] &^= byte(regMax >> (8 - fb))
		r[b+1] |= byte(val >> (8 - fb))
	}
}

// denseSet raises register i of a dense value to count and reports whether
// it did.
func denseSet(v []byte, i int, count uint8) bool {
	r := v[HeaderSize:]
	if count > getReg(r, i) {
		setReg(r, i, count)
		return true
	}
	return false
}

// Sparse opcodes.

func isZero(c byte) bool  { return c&0xc0 == 0 }
func isXZero(c byte) bool { return c&0xc0 == 0x40 }
func isVal(c byte) bool   { return c&0x80 != 0 }
func zeroLen(c byte) int  { return int(c&0x3f) + 1 }
func xzeroLen(c, d byte) int {
	return (int(c&0x3f)<<8 | int(d)) + 1
}
func valValue(c byte) uint8 { return (c>>2)&0x1f + 1 }
func valLen(c byte) int     { return int(c&3) + 1 }
func valOp(val uint8, n int) byte {
	return byte((int(val)-1)<<2|(n-1)) | 0x80
}

// after is the byte after p, reading Redis's terminating byte (see sds)
// past the end.
func after(v []byte, p int) byte {
	if p+1 < len(v) {
		return v[p+1]
	}
	return term(v)
}

// term is the terminating byte of a stored value: the first byte of its
// spare capacity, which this package leaves holding what Redis's
// terminator holds, or 0 for a value without spare capacity.
func term(v []byte) byte {
	if cap(v) > len(v) {
		return v[:len(v)+1][len(v)]
	}
	return 0
}

func setXZero(p []byte, n int) {
	n--
	p[0] = byte(n>>8) | 0x40
	p[1] = byte(n)
}

// sds is a value being edited the way Redis edits its sds string. b[n] is
// the terminating byte, normally 0, which Redis reads when a corrupt body
// ends in the first half of an XZERO opcode, and which one of its in-place
// edits (splitting that half opcode) overwrites; the changed byte then
// stays with the string until something rewrites it. A stored value keeps
// it in the first byte of its spare capacity, and every byte after that is
// left zero, so that a string command that appends in place (terminating
// its result with a zero, as Redis does) finds zeroes there.
type sds struct {
	b []byte // len(b) >= n+1
	n int
	// marks, when not nil, are the opcodes the last sparseSet scanned
	// past (their offsets and first registers), for a caller setting
	// registers in ascending order (Store): the next scan starts at the
	// last of them, the previous edit's prev opcode, instead of at the
	// start of the body. Nothing before that opcode changed, and the
	// opcode itself is still one starting at the same register, so the
	// scan finds what a scan from the start would.
	marks []mark
}

type mark struct{ pos, first int }

func load(v []byte) *sds {
	s := &sds{n: len(v)}
	if cap(v) > len(v) {
		s.b = v[:len(v)+1]
	} else {
		s.b = make([]byte, len(v)+1, grown(len(v)+1))
		copy(s.b, v)
	}
	return s
}

// bytes is the value to store: its spare capacity past the terminator is
// cleared (the edits leave stale bytes there).
func (s *sds) bytes() []byte {
	clear(s.b[s.n+1 : cap(s.b)])
	return s.b[:s.n:cap(s.b)]
}

// at reads byte i, where i may be the terminator.
func (s *sds) at(i int) byte { return s.b[i] }

// room makes sure n+1+extra bytes are addressable.
func (s *sds) room(extra int) {
	need := s.n + 1 + extra
	if need <= len(s.b) {
		return
	}
	if need > cap(s.b) {
		nb := make([]byte, need, grown(need))
		copy(nb, s.b)
		s.b = nb
		return
	}
	s.b = s.b[:need]
}

// grown is the capacity to allocate for n bytes: a sparse value grows by
// at most 3 bytes an element, so an eighth of spare room makes
// reallocation rare while costing less than Redis's doubling sds does.
func grown(n int) int { return n + n/8 + 16 }

// incrLen is sdsIncrLen: the new length, terminated by a zero byte.
func (s *sds) incrLen(d int) {
	s.n += d
	s.b[s.n] = 0
}

// toDense converts a sparse value, failing on a body that does not decode
// to exactly Registers registers. The header (cached cardinality and the
// unused bytes included) is kept.
func (s *sds) toDense() (*sds, error) {
	if s.b[4] == Dense {
		return s, nil
	}
	d := &sds{b: make([]byte, DenseSize+1), n: DenseSize}
	copy(d.b, s.b[:HeaderSize])
	d.b[4] = Dense
	r := d.b[HeaderSize:DenseSize]
	idx := 0
	for p := HeaderSize; p < s.n; {
		c := s.at(p)
		switch {
		case isZero(c):
			idx += zeroLen(c)
			p++
		case isXZero(c):
			idx += xzeroLen(c, s.at(p+1))
			p += 2
		default:
			n, val := valLen(c), valValue(c)
			if n+idx > Registers {
				p = s.n // overflow: stop, and fail below
				idx = -1
				break
			}
			for ; n > 0; n-- {
				setReg(r, idx, val)
				idx++
			}
			p++
		}
	}
	if idx != Registers {
		return nil, ErrCorrupt
	}
	return d, nil
}

// sparseSet raises register index of a sparse value to count: 1 if it
// changed, 0 if the register was already as high, and ErrCorrupt when the
// body does not cover the register (or the value must become dense and
// cannot). It edits the run-length body in place exactly as Redis's
// hllSparseSet does, so that the bytes agree, and promotes the value to
// dense when the register is too high for a VAL opcode or the body would
// grow past maxBytes.
func (s *sds) sparseSet(index int, count uint8, maxBytes int) (*sds, int, error) {
	if count > sparseValMax {
		return s.promote(index, count)
	}
	s.room(3)
	const sparse = HeaderSize
	end := s.n
	p, first, prev, span := sparse, 0, -1, 0
	if n := len(s.marks); n > 0 {
		// Resume at the previous edit's prev opcode: everything before it
		// is as that scan found it.
		p, first = s.marks[n-1].pos, s.marks[n-1].first
		s.marks = s.marks[:n-1]
		if n > 1 {
			prev = s.marks[n-2].pos
		}
	}
	for p < end {
		c := s.at(p)
		oplen := 1
		switch {
		case isZero(c):
			span = zeroLen(c)
		case isVal(c):
			span = valLen(c)
		default:
			span = xzeroLen(c, s.at(p+1))
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		if s.marks != nil {
			s.marks = append(s.marks, mark{p, first})
		}
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return s, 0, ErrCorrupt
	}
	op := s.at(p)
	next := p + 1
	if isXZero(op) {
		next = p + 2
	}
	if next >= end {
		next = -1
	}

	var runlen int
	switch {
	case isZero(op):
		runlen = zeroLen(op)
	case isXZero(op):
		runlen = xzeroLen(op, s.at(p+1))
	default:
		runlen = valLen(op)
		if valValue(op) >= count {
			return s, 0, nil
		}
	}
	if runlen == 1 && !isXZero(op) {
		// A lone VAL or ZERO becomes a VAL in place.
		s.b[p] = valOp(count, 1)
	} else {
		// Split the run into [before] VAL [after].
		var seq [5]byte
		n := 0
		last := first + span - 1
		if isVal(op) {
			cur := valValue(op)
			if index != first {
				seq[n] = valOp(cur, index-first)
				n++
			}
			seq[n] = valOp(count, 1)
			n++
			if index != last {
				seq[n] = valOp(cur, last-index)
				n++
			}
		} else {
			zeros := func(l int) {
				if l > sparseZeroMax {
					setXZero(seq[n:], l)
					n += 2
				} else {
					seq[n] = byte(l - 1)
					n++
				}
			}
			if index != first {
				zeros(index - first)
			}
			seq[n] = valOp(count, 1)
			n++
			if index != last {
				zeros(last - index)
			}
		}
		oldlen := 1
		if isXZero(op) {
			oldlen = 2
		}
		delta := n - oldlen
		if delta > 0 && s.n+delta > maxBytes {
			return s.promote(index, count)
		}
		if delta != 0 && next >= 0 {
			copy(s.b[next+delta:], s.b[next:end])
		}
		s.incrLen(delta)
		// With a corrupt body ending in half an XZERO this writes over the
		// terminator, as in Redis.
		copy(s.b[p:], seq[:n])
		end += delta
	}

	// Merge adjacent VALs of one value, scanning a few opcodes from the
	// one before the edit.
	p = sparse
	if prev >= 0 {
		p = prev
	}
	for scan := 5; p < end && scan > 0; {
		scan--
		c := s.at(p)
		if isXZero(c) {
			p += 2
			continue
		}
		if isZero(c) {
			p++
			continue
		}
		if p+1 < end && isVal(s.at(p+1)) {
			d := s.at(p + 1)
			if v := valValue(c); v == valValue(d) {
				if l := valLen(c) + valLen(d); l <= sparseValLen {
					s.b[p+1] = valOp(v, l)
					copy(s.b[p:], s.b[p+1:end+1])
					s.incrLen(-1)
					end--
					continue
				}
			}
		}
		p++
	}
	Invalidate(s.b)
	return s, 1, nil
}

func (s *sds) promote(index int, count uint8) (*sds, int, error) {
	d, err := s.toDense()
	if err != nil {
		return s, 0, err
	}
	denseSet(d.b[:DenseSize], index, count)
	return d, 1, nil
}

// set raises register index in either encoding.
func (s *sds) set(index int, count uint8, maxBytes int) (*sds, int, error) {
	if s.b[4] == Dense {
		if denseSet(s.b[:DenseSize], index, count) {
			return s, 1, nil
		}
		return s, 0, nil
	}
	return s.sparseSet(index, count, maxBytes)
}

// Add is PFADD's work on an existing valid value: each element in turn
// raises its register. It returns the value (edited in place when it has
// room, possibly promoted to dense) and how many elements changed it. On
// ErrCorrupt the edits made by the elements before the bad one stay, as in
// Redis; the cached cardinality is left to the caller, who invalidates it
// when anything changed.
func Add(v []byte, elems [][]byte, maxBytes int) ([]byte, int, error) {
	s := load(v)
	updated := 0
	for _, e := range elems {
		i, c := patLen(e)
		var n int
		var err error
		if s, n, err = s.set(i, c, maxBytes); err != nil {
			return s.bytes(), updated, err
		}
		updated += n
	}
	return s.bytes(), updated, nil
}

// ToDense is PFDEBUG TODENSE's conversion of a valid value; a dense value
// comes back unchanged.
func ToDense(v []byte) ([]byte, error) {
	if v[4] == Dense {
		return v, nil
	}
	d, err := load(v).toDense()
	if err != nil {
		return v, err
	}
	return d.bytes(), nil
}

// DenseRegisters returns the registers of a dense value.
func DenseRegisters(v []byte) [Registers]uint8 {
	var out [Registers]uint8
	r := v[HeaderSize:DenseSize]
	for i := range out {
		out[i] = getReg(r, i)
	}
	return out
}

// Regs is an unpacked register array, for merging several values (PFMERGE
// and PFCOUNT of several keys).
type Regs [Registers]uint8

// Merge raises r to the registers of a valid value, or fails on a corrupt
// sparse body (r is then partly merged).
func (r *Regs) Merge(v []byte) error {
	if v[4] == Dense {
		reg := v[HeaderSize:DenseSize]
		for i := range r {
			if x := getReg(reg, i); x > r[i] {
				r[i] = x
			}
		}
		return nil
	}
	i := 0
	for p := HeaderSize; p < len(v); {
		c := v[p]
		switch {
		case isZero(c):
			i += zeroLen(c)
			p++
		case isXZero(c):
			i += xzeroLen(c, after(v, p))
			p += 2
		default:
			n, val := valLen(c), valValue(c)
			if n+i > Registers {
				return ErrCorrupt
			}
			for ; n > 0; n-- {
				r[i] = max(r[i], val)
				i++
			}
			p++
		}
	}
	if i != Registers {
		return ErrCorrupt
	}
	return nil
}

// Count estimates the cardinality of the merged registers.
func (r *Regs) Count() uint64 {
	var h [64]int
	for _, x := range r {
		h[x]++
	}
	return estimate(&h)
}

// Store is PFMERGE's write: the destination (a valid value, or New() for a
// missing key), made dense first when dense is set, gets every non-zero
// register of r through the same per-register edits Redis makes, so the
// sparse bytes agree. The cached cardinality is invalidated.
func Store(dst []byte, r *Regs, dense bool, maxBytes int) ([]byte, error) {
	s := load(dst)
	if dense {
		var err error
		if s, err = s.toDense(); err != nil {
			return dst, err
		}
	}
	if s.b[4] == Sparse {
		s.marks = make([]mark, 0, 64)
	}
	for i, x := range r {
		if x == 0 {
			continue
		}
		// Errors cannot happen on a value that merged cleanly; Redis ignores
		// them too.
		s, _, _ = s.set(i, x, maxBytes)
	}
	Invalidate(s.b)
	return s.bytes(), nil
}

// Count computes the cardinality of a valid value from its registers (the
// cache is neither read nor written), or fails on a corrupt sparse body.
func Count(v []byte) (uint64, error) {
	var h [64]int
	if v[4] == Dense {
		r := v[HeaderSize:DenseSize]
		for i := 0; i < Registers; i++ {
			h[getReg(r, i)]++
		}
		return estimate(&h), nil
	}
	idx := 0
	for p := HeaderSize; p < len(v); {
		c := v[p]
		switch {
		case isZero(c):
			n := zeroLen(c)
			idx += n
			h[0] += n
			p++
		case isXZero(c):
			n := xzeroLen(c, after(v, p))
			idx += n
			h[0] += n
			p += 2
		default:
			n := valLen(c)
			idx += n
			h[valValue(c)] += n
			p++
		}
	}
	if idx != Registers {
		return 0, ErrCorrupt
	}
	return estimate(&h), nil
}

// estimate is Ertl's improved estimator over the register histogram, in
// Redis's order of floating-point operations. Registers above q+1 (which
// only a hand-made dense value can hold) count nowhere, as in Redis.
func estimate(h *[64]int) uint64 {
	const m = float64(Registers)
	z := m * tau((m-float64(h[q+1]))/m)
	for j := q; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += float64(m * sigma(float64(h[0])/m))
	return llround(0.721347520444481703680 * m * m / z)
}

// llround is the C rounding Redis applies, including x86-64's answer for a
// value out of range (an infinite estimate, when every register is above
// zero and none below q+1): the most negative 64-bit integer, reinterpreted.
func llround(x float64) uint64 {
	if !(x < 1<<63) {
		return 1 << 63
	}
	return uint64(int64(math.Round(x)))
}

// sigma and tau are the helper series of Ertl's "New cardinality
// estimation algorithms for HyperLogLog sketches". Every product is
// rounded on its own (the explicit conversions stop the compiler fusing a
// multiply and add), as C compiles them.
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y := 1.0
	z := x
	for {
		x = float64(x * x)
		zp := z
		z += float64(x * y)
		y += y
		if zp == z {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y := 1.0
	z := 1 - x
	for {
		x = math.Sqrt(x)
		zp := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if zp == z {
			return z / 3
		}
	}
}

// Decode is PFDEBUG DECODE's listing of a sparse body: "z:N" for ZERO,
// "Z:N" for XZERO, "v:VALUE,N" for VAL, space separated.
func Decode(v []byte) string {
	out := make([]byte, 0, 8*(len(v)-HeaderSize))
	for p := HeaderSize; p < len(v); {
		c := v[p]
		switch {
		case isZero(c):
			out = append(out, "z:"...)
			out = strconv.AppendInt(out, int64(zeroLen(c)), 10)
			p++
		case isXZero(c):
			out = append(out, "Z:"...)
			out = strconv.AppendInt(out, int64(xzeroLen(c, after(v, p))), 10)
			p += 2
		default:
			out = append(out, "v:"...)
			out = strconv.AppendInt(out, int64(valValue(c)), 10)
			out = append(out, ',')
			out = strconv.AppendInt(out, int64(valLen(c)), 10)
			p++
		}
		out = append(out, ' ')
	}
	return strings.TrimRight(string(out), " ")
}
