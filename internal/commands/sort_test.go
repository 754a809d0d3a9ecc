package commands

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
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
		s, e := sortWindow(c.off, c.cnt, c.n)
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
		var args [][]byte
		for _, a := range bytes.Fields([]byte(c.args)) {
			args = append(args, a)
		}
		var got []int
		for _, k := range sortGetKeys(args, false) {
			got = append(got, k.pos)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: keys at %v, want %v", c.args, got, c.want)
		}
		if ro := sortGetKeys(args, true); len(ro) != 1 || ro[0].pos != 1 {
			t.Errorf("%q as SORT_RO: keys %v", c.args, ro)
		}
	}
}

// TestSortPartial checks the pqsort port against a full sort: with a total
// order, the window [l, r] must hold exactly the fully sorted elements.
func TestSortPartial(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	o := &sortOpts{}
	cmp := func(a, b *sortItem) int { return sortCompare(o, a, b) }
	for range 2000 {
		n := 1 + r.IntN(120)
		v := make([]sortItem, n)
		for i := range v {
			v[i] = sortItem{obj: []byte(fmt.Sprint(i)), score: float64(r.IntN(20))}
		}
		o.desc = r.IntN(2) == 0
		want := slices.Clone(v)
		sort.SliceStable(want, func(i, j int) bool { return cmp(&want[i], &want[j]) < 0 })
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo)
		sortPartial(v, cmp, lo, hi)
		for i := lo; i <= hi; i++ {
			if !bytes.Equal(v[i].obj, want[i].obj) {
				t.Fatalf("n %d window [%d, %d] desc %v: element %d is %s, want %s", n, lo, hi, o.desc, i, v[i].obj, want[i].obj)
			}
		}
	}
}

func TestSortCompare(t *testing.T) {
	it := func(obj, cmp string, score float64) *sortItem {
		s := &sortItem{obj: []byte(obj), score: score}
		if cmp != "-" {
			s.cmp, s.has = []byte(cmp), true
		}
		return s
	}
	for _, c := range []struct {
		o    sortOpts
		a, b *sortItem
		want int
	}{
		{sortOpts{}, it("b", "-", 1), it("a", "-", 2), -1},
		{sortOpts{}, it("b", "-", 1), it("a", "-", 1), 1}, // numeric tie: the elements
		{sortOpts{desc: true}, it("b", "-", 1), it("a", "-", 1), -1},
		{sortOpts{alpha: true}, it("a\x00b", "-", 0), it("a\x00c", "-", 0), 0}, // strcoll stops at NUL
		{sortOpts{alpha: true, storeCompare: true}, it("a\x00b", "-", 0), it("a\x00c", "-", 0), -1},
		{sortOpts{alpha: true, by: []byte("w_*")}, it("a", "-", 0), it("b", "x", 0), -1}, // missing first
		{sortOpts{alpha: true, by: []byte("w_*")}, it("a", "-", 0), it("b", "-", 0), 0},
		{sortOpts{alpha: true, by: []byte("w_*")}, it("a", "y", 0), it("b", "x", 0), 1},
		{sortOpts{alpha: true}, it("\xff", "-", 0), it("a", "-", 0), 1},                 // unsigned bytes
		{sortOpts{alpha: true, by: []byte("w_*")}, it("a", "-", 0), it("b", "", 0), -1}, // empty is not missing
	} {
		if got := sortCompare(&c.o, c.a, c.b); got != c.want {
			t.Errorf("%+v: compare(%q, %q) = %d, want %d", c.o, c.a.obj, c.b.obj, got, c.want)
		}
	}
}
