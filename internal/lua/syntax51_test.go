package lua

import "testing"

// TestSyntax51 checks the Lua 5.1 syntax checker's words on a few errors
// (the conformance suite compares many more against Redis) and that it
// accepts valid chunks, the seed's sliding-window script among them.
func TestSyntax51(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"x =", "user_script:1: unexpected symbol near '<eof>'"},
		{"local function f()\n  return 1\n", "user_script:3: 'end' expected (to close 'function' at line 1) near '<eof>'"},
		{"goto x", "user_script:1: '=' expected near 'x'"},
		{"return 'abc\nx'", "user_script:1: unfinished string near ''abc'"},
		{"return 1e", "user_script:1: malformed number near '1e'"},
		{"f\n(1)", "user_script:2: ambiguous syntax (function call x new statement) near '('"},
		{"local t = {1, 2", "user_script:1: '}' expected near '<eof>'"},
		{";", "user_script:1: unexpected symbol near ';'"}, // Lua 5.1 has no empty statement
		{"return 0x1.8p1", "user_script:1: malformed number near '.8p1'"},
	} {
		if got := checkSyntax51(tc.src, chunkName); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.src, got, tc.want)
		}
	}
	for _, src := range []string{
		SlidingWindowScript,
		"", "return", "return;", "local a, b = ...", "return 0x1F, 0x1p4, 1e10, .5, 5., 3e-2",
		"local t = {[1] = 2, x = 3; 'y', f = function(...) return ... end,}",
		"for k, v in pairs({}) do break end while false do end repeat local x until x",
		"function a.b.c:d() return self end local function f(a, ...) end",
		"return [==[ ]] ]=] ]==], [[ [[ ]], 'a\\z\\65\\0677', \"\\\"\"",
		"--[==[ long\ncomment ]==] return not not - - #'x' .. 2 ^ -2",
		"a, b.c, d[1] = f(), g{1}, h'x' x:y() (f)()",
		"if a then elseif b then else end do end",
	} {
		if msg := checkSyntax51(src, chunkName); msg != "" {
			t.Errorf("%q refused: %s", src, msg)
		}
	}
}
