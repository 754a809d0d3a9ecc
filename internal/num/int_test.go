package num

import (
	"regexp"
	"strconv"
	"testing"
)

func TestParseInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"-7", -7, true},
		{"1700000000000", 1700000000000, true},
		{"999999999999999999", 999999999999999999, true},     // 18 digits: the unchecked path
		{"-999999999999999999", -999999999999999999, true},   // and negative
		{"9223372036854775807", 9223372036854775807, true},   // 19 digits: the checked path
		{"-9223372036854775808", -9223372036854775808, true}, // MinInt64
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"18446744073709551616", 0, false},
		{"99999999999999999999", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"-0", 0, false},
		{"00", 0, false},
		{"01", 0, false},
		{"+1", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"12a", 0, false},
		{"1/", 0, false}, // '/' and ':' sit either side of the digits
		{"1:", 0, false},
		{"123456789012345678901", 0, false},
	} {
		got, ok := ParseInt([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// redisInt is string2ll's grammar: 0, or an optional '-' and no leading
// zero.
var redisInt = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-1", "1700000000000", "9223372036854775807", "-9223372036854775808", "00", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseInt([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		wantOK := err == nil && redisInt.MatchString(s)
		if !wantOK {
			want = 0
		}
		if ok != wantOK || got != want {
			t.Fatalf("ParseInt(%q) = %d, %v; want %d, %v", s, got, ok, want, wantOK)
		}
	})
}
