package commands

import (
	"bytes"
	"fmt"
	"github.com/limitkv/limitkv/internal/keyspec"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/limitkv/limitkv/internal/family/keycmd"
)

func TestSortWindow(t *testing.T) {
	const maxI, minI = int64(^uint64(0) >> 1), -int64(^uint64(0)>>1) - 1
	for _, c := range []struct {
		off, cnt   int64
		n          int
		start, end int
	}{
		{0, -1, 5, 0, 4}, {0, 0, 5, 0, -1}, {1, 2, 5, 1, 2}, {3, 10, 5, 3, 4}, {5, 1, 5, 4, 3}, {100, 1, 5, 4, 3},
		{-3, 2, 5, 0, 1}, {2, -7, 5, 2, 4}, {maxI, maxI, 5, 4, 3}, {minI, minI, 5, 0, 4}, {0, maxI, 5, 0, 4},
		{0, -1, 0, -1, -2}, {0, 0, 0, -1, -2}, {3, 3, 0, -1, -2},
	} {
		s, e := keycmd.SortWindow(c.off, c.cnt, c.n)
		if s != c.start || e != c.end {
			t.Errorf("sortWindow(%d, %d, %d) = %d, %d; want %d, %d", c.off, c.cnt, c.n, s, e, c.start, c.end)
		}
	}
}

func TestSortGetKeys(t *testing.T) {
	for _, c := range []struct {
		args string
		want []int
	}{
		{"sort k", []int{1}},
		{"sort k store d", []int{1, 3}},
		{"sort k store d store e", []int{1, 5}},
		{"sort k store", []int{1}},
		{"sort k limit store x store d", []int{1, 6}},
		{"sort k get store by store", []int{1}},
		{"sort k store store d", []int{1, 4}},
	} {
		args := bytes.Fields([]byte(c.args))
		var got []int
		for _, k := range keyspec.SortGetKeys(args, false) {
			got = append(got, k.Pos)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: keys at %v, want %v", c.args, got, c.want)
		}
		if ro := keyspec.SortGetKeys(args, true); len(ro) != 1 || ro[0].Pos != 1 {
			t.Errorf("%q as SORT_RO: keys %v", c.args, ro)
		}
	}
}

// TestSortPartial checks the pqsort port against a full sort: with a total
// order, the window [l, r] must hold exactly the fully sorted elements.
func TestSortPartial(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	o := &keycmd.SortOpts{}
	cmp := func(a, b *keycmd.SortItem) int { return keycmd.SortCompare(o, a, b) }
	for range 2000 {
		n := 1 + r.IntN(120)
		v := make([]keycmd.SortItem, n)
		for i := range v {
			v[i] = keycmd.SortItem{Obj: []byte(fmt.Sprint(i)), Score: float64(r.IntN(20))}
		}
		o.Desc = r.IntN(2) == 0
		want := slices.Clone(v)
		sort.SliceStable(want, func(i, j int) bool { return cmp(&want[i], &want[j]) < 0 })
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo)
		keycmd.SortPartial(v, cmp, lo, hi)
		for i := lo; i <= hi; i++ {
			if !bytes.Equal(v[i].Obj, want[i].Obj) {
				t.Fatalf("n %d window [%d, %d] desc %v: element %d is %s, want %s", n, lo, hi, o.Desc, i, v[i].Obj, want[i].Obj)
			}
		}
	}
}

func TestSortCompare(t *testing.T) {
	it := func(obj, cmp string, score float64) *keycmd.SortItem {
		s := &keycmd.SortItem{Obj: []byte(obj), Score: score}
		if cmp != "-" {
			s.Cmp, s.Has = []byte(cmp), true
		}
		return s
	}
	for _, c := range []struct {
		o    keycmd.SortOpts
		a, b *keycmd.SortItem
		want int
	}{
		{keycmd.SortOpts{}, it("b", "-", 1), it("a", "-", 2), -1},
		{keycmd.SortOpts{}, it("b", "-", 1), it("a", "-", 1), 1}, // numeric tie: the elements
		{keycmd.SortOpts{Desc: true}, it("b", "-", 1), it("a", "-", 1), -1},
		{keycmd.SortOpts{Alpha: true}, it("a\x00b", "-", 0), it("a\x00c", "-", 0), 0}, // strcoll stops at NUL
		{keycmd.SortOpts{Alpha: true, StoreCompare: true}, it("a\x00b", "-", 0), it("a\x00c", "-", 0), -1},
		{keycmd.SortOpts{Alpha: true, By: []byte("w_*")}, it("a", "-", 0), it("b", "x", 0), -1}, // missing first
		{keycmd.SortOpts{Alpha: true, By: []byte("w_*")}, it("a", "-", 0), it("b", "-", 0), 0},
		{keycmd.SortOpts{Alpha: true, By: []byte("w_*")}, it("a", "y", 0), it("b", "x", 0), 1},
		{keycmd.SortOpts{Alpha: true}, it("\xff", "-", 0), it("a", "-", 0), 1},                 // unsigned bytes
		{keycmd.SortOpts{Alpha: true, By: []byte("w_*")}, it("a", "-", 0), it("b", "", 0), -1}, // empty is not missing
	} {
		if got := keycmd.SortCompare(&c.o, c.a, c.b); got != c.want {
			t.Errorf("%+v: compare(%q, %q) = %d, want %d", c.o, c.a.Obj, c.b.Obj, got, c.want)
		}
	}
}
