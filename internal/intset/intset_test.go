package intset

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func members(s *Set) []int64 {
	var out []int64
	s.Each(func(v int64) bool { out = append(out, v); return true })
	return out
}

func TestAddWidths(t *testing.T) {
	for _, tc := range []struct {
		name  string
		add   []int64
		want  []int64
		width int
	}{
		{"empty", nil, nil, Width16},
		{"int16 sorted", []int64{5, -3, 7, 0, 5}, []int64{-3, 0, 5, 7}, Width16},
		{"int16 bounds", []int64{math.MaxInt16, math.MinInt16}, []int64{math.MinInt16, math.MaxInt16}, Width16},
		{"upgrade to 32 at the end", []int64{1, 2, math.MaxInt16 + 1}, []int64{1, 2, math.MaxInt16 + 1}, Width32},
		{"upgrade to 32 at the start", []int64{1, 2, math.MinInt16 - 1}, []int64{math.MinInt16 - 1, 1, 2}, Width32},
		{"upgrade to 64", []int64{1, math.MaxInt32 + 1, -1}, []int64{-1, 1, math.MaxInt32 + 1}, Width64},
		{"16 straight to 64, negative", []int64{3, math.MinInt64}, []int64{math.MinInt64, 3}, Width64},
		{"int64 bounds", []int64{math.MaxInt64, math.MinInt64, 0}, []int64{math.MinInt64, 0, math.MaxInt64}, Width64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Set
			for _, v := range tc.add {
				s.Add(v)
			}
			if got := members(&s); !slices.Equal(got, tc.want) {
				t.Fatalf("members %v, want %v", got, tc.want)
			}
			if s.Width() != tc.width {
				t.Fatalf("width %d, want %d", s.Width(), tc.width)
			}
			if s.BlobLen() != 8+len(tc.want)*tc.width {
				t.Fatalf("blob %d", s.BlobLen())
			}
		})
	}
}

func TestAddReportsNew(t *testing.T) {
	var s Set
	if !s.Add(7) || s.Add(7) || !s.Add(70000) || s.Add(70000) || s.Add(7) {
		t.Fatal("Add's report is wrong")
	}
}

func TestRemoveKeepsWidth(t *testing.T) {
	var s Set
	s.Add(1)
	s.Add(1 << 40)
	if !s.Remove(1<<40) || s.Remove(1<<40) || s.Remove(99) {
		t.Fatal("Remove's report is wrong")
	}
	if s.Width() != Width64 || s.Len() != 1 || !s.Find(1) {
		t.Fatalf("width %d len %d", s.Width(), s.Len())
	}
}

func TestFindOutsideWidth(t *testing.T) {
	var s Set
	s.Add(-1)
	for _, v := range []int64{math.MaxInt64, math.MinInt64, 1 << 20, 0} {
		if s.Find(v) {
			t.Errorf("Find(%d) in {-1}", v)
		}
	}
	if s.Remove(1 << 20) {
		t.Error("Remove of a wider absent value")
	}
}

func TestCloneIndependent(t *testing.T) {
	var s Set
	s.Add(1)
	c := s.Clone()
	c.Add(2)
	s.Remove(1)
	if s.Len() != 0 || c.Len() != 2 {
		t.Fatalf("clone shares storage: %d %d", s.Len(), c.Len())
	}
}

// TestModel drives random operations against a map and checks order,
// membership and width after each step.
func TestModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() int64 {
		switch r.IntN(4) {
		case 0:
			return int64(r.IntN(64)) - 32
		case 1:
			return int64(int16(r.Uint32()))
		case 2:
			return int64(int32(r.Uint32()))
		}
		return int64(r.Uint64())
	}
	for round := 0; round < 50; round++ {
		var s Set
		model := map[int64]bool{}
		widest := uint8(Width16)
		for step := 0; step < 400; step++ {
			v := gen()
			switch r.IntN(3) {
			case 0, 1:
				if got := s.Add(v); got == model[v] {
					t.Fatalf("Add(%d) = %v, present %v", v, got, model[v])
				}
				model[v] = true
				widest = max(widest, widthFor(v))
			default:
				if len(model) > 0 && r.IntN(2) == 0 {
					for k := range model {
						v = k
						break
					}
				}
				if got := s.Remove(v); got != model[v] {
					t.Fatalf("Remove(%d) = %v, present %v", v, got, model[v])
				}
				delete(model, v)
			}
			if s.Find(v) != model[v] {
				t.Fatalf("Find(%d) wrong", v)
			}
		}
		want := make([]int64, 0, len(model))
		for k := range model {
			want = append(want, k)
		}
		slices.Sort(want)
		if got := members(&s); !slices.Equal(got, want) {
			t.Fatalf("members differ from the model")
		}
		if s.Width() != int(widest) {
			t.Fatalf("width %d, want %d", s.Width(), widest)
		}
		for i, v := range want {
			if s.At(i) != v {
				t.Fatalf("At(%d)", i)
			}
		}
	}
}

// FuzzIntset reads the input as a program of 9-byte operations (an opcode
// byte and an int64) and checks the set against a map after each.
func FuzzIntset(f *testing.F) {
	op := func(code byte, v int64) []byte {
		b := []byte{code}
		return binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	f.Add(slices.Concat(op(0, 1), op(0, -1), op(1, 1)))
	f.Add(slices.Concat(op(0, 1), op(0, 1<<20), op(0, 1<<40), op(1, 1<<20)))
	f.Add(slices.Concat(op(0, math.MinInt64), op(0, math.MaxInt64), op(2, 0)))
	f.Fuzz(func(t *testing.T, prog []byte) {
		var s Set
		model := map[int64]bool{}
		for len(prog) >= 9 {
			code, v := prog[0]%3, int64(binary.LittleEndian.Uint64(prog[1:9]))
			prog = prog[9:]
			switch code {
			case 0:
				if s.Add(v) == model[v] {
					t.Fatalf("Add(%d)", v)
				}
				model[v] = true
			case 1:
				if s.Remove(v) != model[v] {
					t.Fatalf("Remove(%d)", v)
				}
				delete(model, v)
			default:
				if s.Find(v) != model[v] {
					t.Fatalf("Find(%d)", v)
				}
			}
		}
		if s.Len() != len(model) {
			t.Fatalf("Len %d, model %d", s.Len(), len(model))
		}
		prev := int64(math.MinInt64)
		for i := range s.Len() {
			v := s.At(i)
			if (i > 0 && v <= prev) || !model[v] {
				t.Fatalf("order or membership broken at %d", i)
			}
			prev = v
		}
	})
}
