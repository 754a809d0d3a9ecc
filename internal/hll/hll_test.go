package hll

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// emptySparse is the value Redis's PFADD creates before adding anything.
const emptySparse = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"

func header(enc byte) []byte {
	return append([]byte("HYLL"), enc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

func TestNew(t *testing.T) {
	if got := New(); string(got) != emptySparse {
		t.Fatalf("New() = %q", got)
	}
	if c, ok := Cached(New()); c != 0 || !ok {
		t.Fatalf("Cached(New()) = %d, %v", c, ok)
	}
}

func TestValid(t *testing.T) {
	dense := append(header(Dense), make([]byte, DenseSize-HeaderSize)...)
	for _, tc := range []struct {
		name string
		v    []byte
		want bool
	}{
		{"empty sparse", []byte(emptySparse), true},
		{"header only", header(Sparse), true},
		{"short", header(Sparse)[:15], false},
		{"bad magic", append([]byte("HYLX"), header(Sparse)[4:]...), false},
		{"lower case magic", append([]byte("hyll"), header(Sparse)[4:]...), false},
		{"unknown encoding", header(2), false},
		{"dense", dense, true},
		{"dense short", dense[:DenseSize-1], false},
		{"dense long", append(dense, 0), false},
		{"dense header only", header(Dense), false},
	} {
		if got := Valid(tc.v); got != tc.want {
			t.Errorf("%s: Valid = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPatLen pins the hash: "a" lands in register 12711 with a run of 2,
// as Redis's PFADD k a stores (XZERO:12711 VAL:2,1 XZERO:3672).
func TestPatLen(t *testing.T) {
	if i, c := patLen([]byte("a")); i != 12711 || c != 2 {
		t.Fatalf("patLen(a) = %d, %d", i, c)
	}
	v, n, err := Add(New(), [][]byte{[]byte("a")}, DefaultSparseMaxBytes)
	if err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if want := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x71\xa6\x84\x4e\x57"; string(v) != want {
		t.Fatalf("PFADD a: %q, want %q", v, want)
	}
}

// TestSparseEdits: the run-length edits, by their decoded form.
func TestSparseEdits(t *testing.T) {
	type set struct {
		i int
		c uint8
	}
	for _, tc := range []struct {
		name string
		sets []set
		want string
	}{
		{"first register", []set{{0, 1}}, "v:1,1 Z:16383"},
		{"last register", []set{{16383, 5}}, "Z:16383 v:5,1"},
		{"inside a short zero run", []set{{10, 3}}, "z:10 v:3,1 Z:16373"},
		{"long runs stay xzero", []set{{100, 3}}, "Z:100 v:3,1 Z:16283"},
		{"zero run of 64 is short", []set{{64, 1}}, "z:64 v:1,1 Z:16319"},
		{"zero run of 65 is long", []set{{65, 1}}, "Z:65 v:1,1 Z:16318"},
		{"neighbours merge", []set{{5, 2}, {6, 2}}, "z:5 v:2,2 Z:16377"},
		{"merge both sides", []set{{5, 2}, {7, 2}, {6, 2}}, "z:5 v:2,3 Z:16376"},
		{"merge stops at four", []set{{1, 2}, {2, 2}, {3, 2}, {4, 2}, {5, 2}}, "z:1 v:2,4 v:2,1 Z:16378"},
		{"lower value is no change", []set{{5, 4}, {5, 3}}, "z:5 v:4,1 Z:16378"},
		{"higher value in place", []set{{5, 4}, {5, 6}}, "z:5 v:6,1 Z:16378"},
		{"split a val run", []set{{5, 2}, {6, 2}, {7, 2}, {6, 3}}, "z:5 v:2,1 v:3,1 v:2,1 Z:16376"},
		{"lone zero becomes val", []set{{5, 2}, {7, 2}, {6, 9}}, "z:5 v:2,1 v:9,1 v:2,1 Z:16376"},
		{"value 32 still sparse", []set{{3, 32}}, "z:3 v:32,1 Z:16380"},
	} {
		s := load(New())
		for _, st := range tc.sets {
			var err error
			if s, _, err = s.set(st.i, st.c, DefaultSparseMaxBytes); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		if got := Decode(s.bytes()); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestPromotion(t *testing.T) {
	// A register above the VAL range.
	s, n, err := load(New()).set(7, 33, DefaultSparseMaxBytes)
	if err != nil || n != 1 || IsSparse(s.bytes()) || len(s.bytes()) != DenseSize {
		t.Fatalf("count 33: n=%d err=%v", n, err)
	}
	if r := DenseRegisters(s.bytes()); r[7] != 33 {
		t.Fatalf("register 7 = %d", r[7])
	}
	// The size limit: growth past maxBytes promotes, an in-place edit does not.
	s, _, _ = load(New()).set(100, 1, 20) // 18 -> 21 bytes: over 20
	if IsSparse(s.bytes()) {
		t.Fatal("grew past the limit and stayed sparse")
	}
	s, _, _ = load(New()).set(0, 1, 20) // 18 -> 19
	if !IsSparse(s.bytes()) {
		t.Fatal("promoted within the limit")
	}
	if s, _, _ = s.set(0, 5, 0); !IsSparse(s.bytes()) {
		t.Fatal("an edit in place promoted")
	}
}

func TestCount(t *testing.T) {
	v := New()
	if c, err := Count(v); c != 0 || err != nil {
		t.Fatalf("empty: %d %v", c, err)
	}
	var elems [][]byte
	for i := range 1000 {
		elems = append(elems, []byte("el"+strconv.Itoa(i)))
	}
	v, _, _ = Add(v, elems, DefaultSparseMaxBytes)
	sc, err := Count(v)
	if err != nil || sc < 950 || sc > 1050 {
		t.Fatalf("1000 elements: %d %v", sc, err)
	}
	d, err := ToDense(v)
	if err != nil {
		t.Fatal(err)
	}
	if dc, _ := Count(d); dc != sc {
		t.Fatalf("dense %d, sparse %d", dc, sc)
	}
	var r Regs
	if err := r.Merge(v); err != nil || r.Count() != sc {
		t.Fatalf("merged count %d (%v), want %d", r.Count(), err, sc)
	}
}

// TestEstimateDegenerate: every register at 51 or above makes Redis's
// estimate infinite, which its rounding turns into 1<<63.
func TestEstimateDegenerate(t *testing.T) {
	var h [64]int
	h[q+1] = Registers
	if got := estimate(&h); got != 1<<63 {
		t.Fatalf("all 51: %d", got)
	}
	h = [64]int{}
	h[63] = Registers
	if got := estimate(&h); got != 1<<63 {
		t.Fatalf("all 63: %d", got)
	}
	h = [64]int{}
	h[0] = Registers
	if got := estimate(&h); got != 0 {
		t.Fatalf("all 0: %d", got)
	}
}

func TestCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     string
		countErr bool
	}{
		{"no registers", "", true},
		{"one short", "\x7f\xfe", true},
		{"one over", "\x7f\xff\x00", true},
		{"val overflow", "\x7f\xfe\x83", true},
		{"half xzero reads the terminator", "\x40\xfe\x7f", false},
		{"zero runs", strings.Repeat("\x3f", 256), false},
	} {
		v := append(header(Sparse), tc.body...)
		_, err := Count(v)
		if (err != nil) != tc.countErr {
			t.Errorf("%s: Count err %v", tc.name, err)
		}
		var r Regs
		if err := r.Merge(v); (err != nil) != tc.countErr {
			t.Errorf("%s: Merge err %v", tc.name, err)
		}
		if _, err := ToDense(v); (err != nil) != tc.countErr {
			t.Errorf("%s: ToDense err %v", tc.name, err)
		}
	}
	// A body that covers no register cannot take any.
	if _, _, err := Add(header(Sparse), [][]byte{[]byte("a")}, DefaultSparseMaxBytes); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Add to an empty body: %v", err)
	}
	// One that covers some takes what lands there, and keeps it when a
	// later element fails.
	short := append(header(Sparse), "\x7f\xfe"...) // registers 0..16382
	_, n, err := Add(short, [][]byte{[]byte("a"), regElem(16383)}, DefaultSparseMaxBytes)
	if n != 1 || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("partial add: n=%d err=%v", n, err)
	}
}

// regElem finds an element that hashes to register i.
func regElem(i int) []byte {
	for n := 0; ; n++ {
		e := []byte("r" + strconv.Itoa(n))
		if j, _ := patLen(e); j == i {
			return e
		}
	}
}

// TestTerminator: splitting half an XZERO at the end of a corrupt body
// writes the string's terminating byte, which a later edit then reads.
func TestTerminator(t *testing.T) {
	v := append(header(Sparse), "\x40\xfe\x7f"...) // XZERO:255, then 16129 with the NUL
	if got := Decode(v); got != "Z:255 Z:16129" {
		t.Fatalf("decode %q", got)
	}
	s, n, err := load(v).set(300, 1, DefaultSparseMaxBytes)
	if err != nil || n != 1 {
		t.Fatal(n, err)
	}
	out := s.bytes()
	// XZERO:255 | ZERO:45 VAL:1,1 XZERO:16083 (its second byte past the end)
	if want := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x40\xfe\x2c\x80\x7e"; string(out) != want {
		t.Fatalf("after the split: %q", out)
	}
	if term(out) != 0xd2 {
		t.Fatalf("terminator %#x, want the XZERO's low byte 0xd2", term(out))
	}
	if got := Decode(out); got != "Z:255 z:45 v:1,1 Z:16083" {
		t.Fatalf("decode after: %q", got)
	}
	for _, b := range out[len(out)+1 : cap(out)] {
		if b != 0 {
			t.Fatal("spare capacity past the terminator not cleared")
		}
	}
}

// TestModel: random additions and merges against a plain register array.
// Whatever the encoding, the value must decode to the model's registers,
// a sparse value must respect the limit it grew under, and counts agree.
func TestModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		maxBytes := []int{0, 20, 300, 3000, 20000}[round%5]
		var model Regs
		v := New()
		for step := range 300 {
			var elems [][]byte
			for range 1 + rng.IntN(20) {
				elems = append(elems, []byte("m"+strconv.Itoa(rng.IntN(100000))))
			}
			for _, e := range elems {
				i, c := patLen(e)
				model[i] = max(model[i], c)
			}
			var err error
			if v, _, err = Add(v, elems, maxBytes); err != nil {
				t.Fatal(err)
			}
			if IsSparse(v) && len(v) > max(maxBytes, len(emptySparse)) {
				t.Fatalf("round %d step %d: sparse %d bytes over %d", round, step, len(v), maxBytes)
			}
			var got Regs
			if err := got.Merge(v); err != nil {
				t.Fatal(err)
			}
			if got != model {
				t.Fatalf("round %d step %d: registers differ from the model", round, step)
			}
		}
		c, _ := Count(v)
		if c != model.Count() {
			t.Fatalf("count %d, model %d", c, model.Count())
		}
		// Store (PFMERGE) into an empty and into a sparse destination.
		for _, dense := range []bool{false, true} {
			dst, err := Store(New(), &model, dense, maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			var got Regs
			if err := got.Merge(dst); err != nil || got != model {
				t.Fatalf("store (dense %v): registers differ (%v)", dense, err)
			}
			if _, ok := Cached(dst); ok {
				t.Fatal("store left the cache valid")
			}
			if ref := storeFromStart(New(), &model, dense, maxBytes); !bytes.Equal(dst, ref) {
				t.Fatalf("store (dense %v) differs from scanning from the start each time", dense)
			}
		}
	}
}

func TestSelfTest(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("ten million additions")
	}
	if err := SelfTest(DefaultSparseMaxBytes, rand.New(rand.NewPCG(3, 4))); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeDense(t *testing.T) {
	v, _ := ToDense(New())
	if !bytes.Equal(v[:4], []byte("HYLL")) || IsSparse(v) || len(v) != DenseSize {
		t.Fatal("ToDense of an empty HLL")
	}
	if c, ok := Cached(v); c != 0 || !ok {
		t.Fatal("ToDense lost the cached cardinality")
	}
}

// storeFromStart is Store without the resumed scans: every register set
// scans the body from its start, as Redis does.
func storeFromStart(dst []byte, r *Regs, dense bool, maxBytes int) []byte {
	s := load(dst)
	if dense {
		s, _ = s.toDense()
	}
	for i, x := range r {
		if x != 0 {
			s, _, _ = s.set(i, x, maxBytes)
		}
	}
	Invalidate(s.b)
	return s.bytes()
}

// TestStoreResumes: Store into hand-made sparse destinations (runs of ZERO,
// of VAL, mergeable neighbours) gives the bytes of from-the-start scans.
func TestStoreResumes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		var body []byte
		covered := 0
		for covered < Registers {
			switch n := min(Registers-covered, 1+rng.IntN(64)); rng.IntN(3) {
			case 0:
				body = append(body, byte(n-1))
				covered += n
			case 1:
				n = min(Registers-covered, 1+rng.IntN(4))
				body = append(body, valOp(uint8(1+rng.IntN(32)), n))
				covered += n
			default:
				n = min(Registers-covered, 1+rng.IntN(3000))
				body = append(body, byte((n-1)>>8)|0x40, byte(n-1))
				covered += n
			}
		}
		dst := append(header(Sparse), body...)
		var r Regs
		for range rng.IntN(3000) {
			r[rng.IntN(Registers)] = uint8(1 + rng.IntN(34))
		}
		maxBytes := []int{0, 3000, 100000}[round%3]
		got, err := Store(append([]byte(nil), dst...), &r, false, maxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if want := storeFromStart(append([]byte(nil), dst...), &r, false, maxBytes); !bytes.Equal(got, want) {
			t.Fatalf("round %d: resumed scans give different bytes", round)
		}
	}
}
