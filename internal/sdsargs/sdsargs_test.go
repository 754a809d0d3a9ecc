package sdsargs

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"#!lua name=x", []string{"#!lua", "name=x"}, true},
		{"  a   b  ", []string{"a", "b"}, true},
		{`"a b" 'c d'`, []string{"a b", "c d"}, true},
		{`"\x41\n\"" x`, []string{"A\n\"", "x"}, true},
		{`'it\'s'`, []string{"it's"}, true},
		{`"unbalanced`, nil, false},
		{`"a"b`, nil, false},
		{`'a'b`, nil, false},
		{"", nil, true},
	} {
		got, ok := Split(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
