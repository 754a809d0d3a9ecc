package limiter

import (
	"slices"
	"testing"
)

// Fields stay in name order whatever order they are set in, past the three
// held inline too (a hand-edited hash), and a set of an existing name
// replaces its value.
func TestFields(t *testing.T) {
	cases := []struct {
		name  string
		pairs []string
		want  []Field
	}{
		{"empty", nil, nil},
		{"two reversed", []string{"ts", "1", "tokens", "2"}, []Field{{"tokens", "2"}, {"ts", "1"}}},
		{"three mixed", []string{"start", "1", "cur", "2", "prev", "3"}, []Field{{"cur", "2"}, {"prev", "3"}, {"start", "1"}}},
		{"replace", []string{"a", "1", "b", "2", "a", "3"}, []Field{{"a", "3"}, {"b", "2"}}},
		{"five, inserted at the front", []string{"e", "5", "d", "4", "c", "3", "b", "2", "a", "1"},
			[]Field{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}}},
		{"five, replace past the head", []string{"a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "e", "6"},
			[]Field{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "6"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := FieldsOf(c.pairs...)
			got := slices.Collect(f.All())
			if !slices.Equal(got, c.want) || f.Len() != len(c.want) {
				t.Fatalf("fields %v (len %d), want %v", got, f.Len(), c.want)
			}
			for _, w := range c.want {
				if v, ok := f.Lookup(w.Name); !ok || v != w.Value {
					t.Fatalf("Lookup(%q) = %q, %v", w.Name, v, ok)
				}
			}
			if _, ok := f.Lookup("zz"); ok {
				t.Fatal("Lookup of a missing field found one")
			}
			g := FieldsOf(c.pairs...)
			if !f.Equal(&g) {
				t.Fatal("two Fields of the same pairs differ")
			}
			g.Set("zz", "1")
			if f.Equal(&g) {
				t.Fatal("Fields with an extra field compare equal")
			}
		})
	}
}
