package expiry

import (
	"slices"
	"testing"
)

func TestDueOrderAndBoundary(t *testing.T) {
	x := New()
	x.Add("c", 30)
	x.Add("a", 10)
	x.Add("b", 10)
	x.Add("d", 40)
	tests := []struct {
		now  int64
		max  int
		want []string
	}{
		{now: 10, max: 10, want: nil},                // deadline == now is alive
		{now: 11, max: 10, want: []string{"a", "b"}}, // ties ordered by key
		{now: 31, max: 2, want: []string{"a", "b"}},  // bounded by max
		{now: 100, max: 10, want: []string{"a", "b", "c", "d"}},
	}
	for _, tc := range tests {
		got := x.Due(tc.now, tc.max, nil)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Due(%d, %d) = %v, want %v", tc.now, tc.max, got, tc.want)
		}
	}
	x.Remove("a", 10)
	x.Remove("c", 999) // wrong deadline: nothing removed
	if x.Len() != 3 {
		t.Fatalf("Len = %d, want 3", x.Len())
	}
	if at, ok := x.Next(); !ok || at != 10 {
		t.Fatalf("Next = %d %v", at, ok)
	}
	x.Clear()
	if _, ok := x.Next(); ok || x.Len() != 0 {
		t.Fatal("Clear left items")
	}
}
