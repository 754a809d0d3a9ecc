package keyslot

import (
	"fmt"
	"slices"
	"testing"
)

func TestIndex(t *testing.T) {
	x := NewIndex()
	// Keys sharing a tag share a slot; the slot lists them newest first.
	for _, k := range []string{"{u}a", "{u}b", "{u}c", "other"} {
		x.Add(k)
	}
	s := int(Slot([]byte("{u}")))
	for _, tc := range []struct {
		name   string
		remove string
		want   []string
	}{
		{"as added", "", []string{"{u}c", "{u}b", "{u}a"}},
		{"the middle removed", "{u}b", []string{"{u}c", "{u}a"}},
		{"the head removed", "{u}c", []string{"{u}a"}},
		{"an absent key removed", "{u}zz", []string{"{u}a"}},
		{"the last removed", "{u}a", nil},
	} {
		if tc.remove != "" {
			x.Remove(tc.remove)
		}
		if got := x.Keys(nil, s, 10); !slices.Equal(got, tc.want) {
			t.Errorf("%s: keys %q, want %q", tc.name, got, tc.want)
		}
		if x.Count(s) != len(tc.want) {
			t.Errorf("%s: count %d, want %d", tc.name, x.Count(s), len(tc.want))
		}
	}
	if x.Len() != 1 || x.Count(int(Slot([]byte("other")))) != 1 {
		t.Fatalf("the other slot: len %d", x.Len())
	}
}

func TestIndexKeysLimit(t *testing.T) {
	x := NewIndex()
	for i := range 100 {
		x.Add(fmt.Sprintf("{t}%d", i))
	}
	s := int(Slot([]byte("t")))
	if got := x.Keys(nil, s, 3); !slices.Equal(got, []string{"{t}99", "{t}98", "{t}97"}) {
		t.Fatalf("first 3: %q", got)
	}
	if got := x.Keys(nil, s, 0); len(got) != 0 {
		t.Fatalf("max 0: %q", got)
	}
	if x.Count(s) != 100 {
		t.Fatalf("count %d", x.Count(s))
	}
}
