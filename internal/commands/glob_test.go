package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/glob"
)

// globOracle was produced by real Redis 7.0.15: for every pattern, the
// subjects of globSubjects that KEYS returned when the subject was the only
// key. One deliberate difference: KEYS and SCAN treat the pattern "*" as
// "everything" without matching, so Redis returns the empty key for it, while
// stringmatchlen itself does not match "" against "*"; the table holds the
// stringmatchlen answer.
var globSubjects = []string{"", "a", "b", "c", "d", "ab", "abc", "aXc", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "a\x00b", "hello", "hallo", "hllo", "heello", "x", "xa", "x[", "e", "A", "^", "f.txt", "aab", "axbyc", "acb", "a\\", "!"}

var globOracle = []struct {
	pattern string
	matches []string
}{
	{"", []string{""}},
	{"*", []string{"a", "b", "c", "d", "ab", "abc", "aXc", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "a\x00b", "hello", "hallo", "hllo", "heello", "x", "xa", "x[", "e", "A", "^", "f.txt", "aab", "axbyc", "acb", "a\\", "!"}},
	{"**", []string{"a", "b", "c", "d", "ab", "abc", "aXc", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "a\x00b", "hello", "hallo", "hllo", "heello", "x", "xa", "x[", "e", "A", "^", "f.txt", "aab", "axbyc", "acb", "a\\", "!"}},
	{"?", []string{"a", "b", "c", "d", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "x", "e", "A", "^", "!"}},
	{"a", []string{"a"}},
	{"a*", []string{"a", "ab", "abc", "aXc", "a\x00b", "aab", "axbyc", "acb", "a\\"}},
	{"*a", []string{"a", "xa"}},
	{"*a*", []string{"a", "ab", "abc", "aXc", "a\x00b", "hallo", "xa", "aab", "axbyc", "acb", "a\\"}},
	{"a?c", []string{"abc", "aXc"}},
	{"[abc]", []string{"a", "b", "c"}},
	{"[^abc]", []string{"d", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "x", "e", "A", "^", "!"}},
	{"[a-c]", []string{"a", "b", "c"}},
	{"[c-a]", []string{"a", "b", "c"}},
	{"[^a-c]", []string{"d", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "x", "e", "A", "^", "!"}},
	{"[a", []string{"a"}},
	{"[^", []string{"a", "b", "c", "d", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "x", "e", "A", "^", "!"}},
	{"[", []string{}},
	{"[]", []string{}},
	{"[]a]", []string{}},
	{"[a-]", []string{"a", "]", "^"}},
	{"[-a]", []string{"a", "-"}},
	{"[\\]]", []string{"]"}},
	{"[\\", []string{"\\"}},
	{"\\", []string{"\\"}},
	{"\\*", []string{"*"}},
	{"\\?", []string{"?"}},
	{"a\\", []string{"a\\"}},
	{"*\\", []string{"\\", "a\\"}},
	{"[a\\-c]", []string{"a", "c", "-"}},
	{"h[ae]llo", []string{"hello", "hallo"}},
	{"h*llo", []string{"hello", "hallo", "hllo", "heello"}},
	{"h?llo", []string{"hello", "hallo"}},
	{"*[", []string{}},
	{"[!a]", []string{"a", "!"}},
	{"a**b", []string{"ab", "a\x00b", "aab", "acb"}},
	{"*?", []string{"a", "b", "c", "d", "ab", "abc", "aXc", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "a\x00b", "hello", "hallo", "hllo", "heello", "x", "xa", "x[", "e", "A", "^", "f.txt", "aab", "axbyc", "acb", "a\\", "!"}},
	{"?*", []string{"a", "b", "c", "d", "ab", "abc", "aXc", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "a\x00b", "hello", "hallo", "hllo", "heello", "x", "xa", "x[", "e", "A", "^", "f.txt", "aab", "axbyc", "acb", "a\\", "!"}},
	{"[a-\xff]", []string{"a", "-", "]", "[", "\\", "*", "?", "\xff", "\x00", "A", "^", "!"}},
	{"[\x80-\xff]", []string{"\xff", "\x80"}},
	{"[\x00-a]", []string{"a", "-", "]", "[", "\\", "*", "?", "\x00", "A", "^", "!"}},
	{"a\x00b", []string{"a\x00b"}},
	{"[^\x00]", []string{"a", "b", "c", "d", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "x", "e", "A", "^", "!"}},
	{"***a", []string{"a", "xa"}},
	{"a*b*c", []string{"abc", "axbyc"}},
	{"*.txt", []string{"f.txt"}},
	{"\\\\", []string{"\\"}},
	{"[\\\\]", []string{"\\"}},
	{"[a-c-e]", []string{"a", "b", "c", "-", "e"}},
	{"[ab-]", []string{"a", "b", "]", "^"}},
	{"[^]", []string{"a", "b", "c", "d", "-", "]", "[", "\\", "*", "?", "\xff", "\x80", "\x00", "x", "e", "A", "^", "!"}},
	{"[^]]", []string{}},
	{"x[", []string{}},
	{"x[^", []string{"xa", "x["}},
	{"[a-c", []string{"a", "b", "c"}},
}

func TestGlobMatchesRedis(t *testing.T) {
	for _, tc := range globOracle {
		want := map[string]bool{}
		for _, m := range tc.matches {
			want[m] = true
		}
		for _, s := range globSubjects {
			if got := glob.Match([]byte(tc.pattern), s, false); got != want[s] {
				t.Errorf("globMatch(%q, %q) = %v, Redis says %v", tc.pattern, s, got, want[s])
			}
			if got := glob.Match([]byte(tc.pattern), []byte(s), false); got != want[s] {
				t.Errorf("globMatch(%q, []byte %q) = %v, Redis says %v", tc.pattern, s, got, want[s])
			}
		}
	}
}

func TestGlobNocase(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"MAXMEMORY-P*", "maxmemory-policy", true},
		{"[M]axmemory", "maxmemory", true},
		{"[A-Z]", "q", true},
		{"[a-z]", "Q", true},
		{"[^A-Z]", "q", false},
		{`\M`, "m", true}, // an escaped letter still folds
		{`\M`, `\m`, false},
		{"h?LLO", "HeLlo", true},
		{"\xc9", "\xe9", false}, // only ASCII letters fold, as C's tolower
	}
	for _, tc := range tests {
		if got := glob.Match([]byte(tc.pattern), tc.s, true); got != tc.want {
			t.Errorf("globMatch(%q, %q, nocase) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

// Redis gives up past 1000 nested stars rather than recursing further; a
// trailing star needs no recursion. Values checked against Redis 7.0.15.
func TestGlobNestingLimit(t *testing.T) {
	tests := []struct {
		chunk string
		n     int
		want  bool
	}{
		{"*a", 1000, true},
		{"*a", 1001, false},
		{"a*", 1001, true},
		{"a*", 1002, false},
	}
	for _, tc := range tests {
		p := []byte(strings.Repeat(tc.chunk, tc.n))
		if got := glob.Match(p, strings.Repeat("a", tc.n), false); got != tc.want {
			t.Errorf("%q x %d: got %v, want %v", tc.chunk, tc.n, got, tc.want)
		}
	}
}

// Adversarial patterns must not take exponential time: the skip flag cuts
// the search once the tail failed against every suffix.
func TestGlobPathologicalIsFast(t *testing.T) {
	p := []byte(strings.Repeat("*a", 30) + "b")
	s := strings.Repeat("a", 5000)
	if glob.Match(p, s, false) {
		t.Fatal("matched")
	}
}

// globRef is a plain recursive reading of Redis's rules without the
// skipLongerMatches shortcut or the nesting limit, written independently of
// globMatchImpl (a class is parsed into a predicate first), so the fuzzer can
// compare the two on short inputs.
func globRef(p []byte, s []byte, nocase bool) bool {
	at := func(i int) byte {
		if i < len(p) {
			return p[i]
		}
		return 0
	}
	low := func(c int) int { return glob.CLower(c) }
	if len(p) == 0 {
		return len(s) == 0
	}
	if len(s) == 0 {
		// Redis only strips stars that follow a consumed character; a
		// pattern facing an empty subject from the start matches only if empty.
		return false
	}
	var rest []byte
	switch p[0] {
	case '*':
		i := 0
		for i < len(p) && p[i] == '*' {
			i++
		}
		if i == len(p) {
			return true
		}
		for k := 0; k < len(s); k++ {
			if globRefAfter(p[i:], s[k:], nocase) {
				return true
			}
		}
		return false
	case '?':
		rest = p[1:]
	case '[':
		i := 1
		not := at(i) == '^'
		if not {
			i++
		}
		match := false
		c := s[0]
		for {
			if at(i) == '\\' && len(p)-i >= 2 {
				i++
				match = match || at(i) == c
			} else if at(i) == ']' {
				break
			} else if i == len(p) {
				i--
				break
			} else if len(p)-i >= 3 && at(i+1) == '-' {
				lo, hi, x := int(int8(at(i))), int(int8(at(i+2))), int(int8(c))
				if lo > hi {
					lo, hi = hi, lo
				}
				if nocase {
					lo, hi, x = low(lo), low(hi), low(x)
				}
				match = match || (x >= lo && x <= hi)
				i += 2
			} else if nocase {
				match = match || low(int(at(i))) == low(int(c))
			} else {
				match = match || at(i) == c
			}
			i++
		}
		if not {
			match = !match
		}
		if !match {
			return false
		}
		rest = p[i+1:]
	case '\\':
		i := 0
		if len(p) >= 2 {
			i = 1
		}
		if !eqByte(p[i], s[0], nocase) {
			return false
		}
		rest = p[i+1:]
	default:
		if !eqByte(p[0], s[0], nocase) {
			return false
		}
		rest = p[1:]
	}
	return globRefAfter(rest, s[1:], nocase)
}

// globRefAfter continues after one subject byte was consumed: if the subject
// is exhausted, leading stars of the rest are dropped (Redis's tail loop).
func globRefAfter(p, s []byte, nocase bool) bool {
	if len(s) == 0 {
		return len(bytes.TrimLeft(p, "*")) == 0
	}
	return globRef(p, s, nocase)
}

func eqByte(a, b byte, nocase bool) bool {
	if nocase {
		return glob.CLower(int(a)) == glob.CLower(int(b))
	}
	return a == b
}

func TestGlobReferenceAgreesWithOracle(t *testing.T) {
	for _, tc := range globOracle {
		want := map[string]bool{}
		for _, m := range tc.matches {
			want[m] = true
		}
		for _, s := range globSubjects {
			if got := globRef([]byte(tc.pattern), []byte(s), false); got != want[s] {
				t.Errorf("globRef(%q, %q) = %v, Redis says %v", tc.pattern, s, got, want[s])
			}
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, tc := range globOracle {
		for _, s := range []string{"", "a", "abc", "-", "]", "\\", "\xff"} {
			f.Add(tc.pattern, s, false)
		}
	}
	f.Add("[A-z]", "_", true)
	f.Add("*?*[^]", "ab", false)
	f.Fuzz(func(t *testing.T, pattern, s string, nocase bool) {
		if len(pattern) > 24 || len(s) > 24 {
			t.Skip()
		}
		got := glob.Match([]byte(pattern), s, nocase)
		if gb := glob.Match([]byte(pattern), []byte(s), nocase); gb != got {
			t.Fatalf("string and []byte subjects disagree on %q %q", pattern, s)
		}
		if want := globRef([]byte(pattern), []byte(s), nocase); got != want {
			t.Fatalf("globMatch(%q, %q, %v) = %v, reference says %v", pattern, s, nocase, got, want)
		}
		// A pattern without metacharacters is an equality test.
		if !strings.ContainsAny(pattern, "*?[\\") && !nocase && got != (pattern == s) {
			t.Fatalf("literal pattern %q vs %q: %v", pattern, s, got)
		}
	})
}
