package lua

import (
	"github.com/limitkv/limitkv/internal/third_party/gopherlua/ast"
	"github.com/limitkv/limitkv/internal/third_party/gopherlua/parse"
	"strings"
	"testing"
)

func TestIsSlidingWindow(t *testing.T) {
	seed := SlidingWindowScript
	renamed := `local k = KEYS[1]  -- the key
local t = tonumber(ARGV[1]) local w = tonumber(ARGV[2])
local lim = tonumber(ARGV[3]); local id = ARGV[4]
--[[ prune ]] redis.call("zremrangebyscore", k, 0, t - w)
local n = redis.call('ZCARD', k)
if n >= lim then
    return n
end
redis.call('ZADD', k, t, id)
redis.call('PEXPIRE', k, w + 1e3)
return n`
	tests := []struct {
		name string
		src  string
		want bool
	}{
		{"verbatim", seed, true},
		{"without final newline", strings.TrimSuffix(seed, "\n"), true},
		{"indented, comments stripped", strings.ReplaceAll(strings.ReplaceAll(seed, "\n", "\n    "), "-- ", "--[[x]] -- "), true},
		{"renamed locals, other spellings", renamed, true},
		{"pcall instead of call", strings.Replace(seed, "redis.call('ZADD'", "redis.pcall('ZADD'", 1), false},
		{"other comparison", strings.Replace(seed, "count >= limit", "count > limit", 1), false},
		{"other buffer", strings.Replace(seed, "window + 1000", "window + 2000", 1), false},
		{"extra statement", "redis.call('INCR', 'x')\n" + seed, false},
		{"member from another arg", strings.Replace(seed, "ARGV[4]", "ARGV[5]", 1), false},
		{"two locals merged into one name", strings.ReplaceAll(seed, "window", "now"), false},
		{"a local shadowing a global", strings.Replace(seed, "local member = ARGV[4]", "local tonumber = ARGV[4]", 1), false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		chunk, err := mustParseTry(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := IsSlidingWindow(chunk); got != tc.want {
			t.Errorf("%s: IsSlidingWindow = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func mustParseTry(src string) (chunk []ast.Stmt, err error) {
	return parse.Parse(strings.NewReader(src), chunkName)
}
