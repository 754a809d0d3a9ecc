package lua

import (
	"github.com/limitkv/limitkv/internal/limiter"
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

func TestRecognise(t *testing.T) {
	allowN, atMost, rlf := limiter.RedisRateAllowNScript, limiter.RedisRateAllowAtMostScript, limiter.RLFConsumeScript
	tests := []struct {
		name, src, want string
	}{
		{"seed", SlidingWindowScript, TwinSlidingLog},
		{"redis_rate allowN", allowN, TwinRedisRateAllowN},
		{"redis_rate allowAtMost", atMost, TwinRedisRateAllowMost},
		{"rate-limiter-flexible consume", rlf, TwinRLFConsume},
		{"allowN reindented, lower-case commands", strings.ReplaceAll(strings.ReplaceAll(allowN, "\n", "\n  "), `"SET"`, `"set"`), TwinRedisRateAllowN},
		{"allowN with other names", strings.ReplaceAll(allowN, "emission_interval", "ei"), TwinRedisRateAllowN},
		{"rlf on several lines, option in lower case", strings.ReplaceAll(strings.ReplaceAll(rlf, " local", "\nlocal"), "'EX'", "'ex'"), TwinRLFConsume},
		{"allowN with another epoch", strings.Replace(allowN, "1483228800", "1483228801", 1), ""},
		{"allowN without the replicate call", strings.Replace(allowN, "redis.replicate_commands()", "", 1), ""},
		{"allowN with ceil replaced", strings.Replace(allowN, "math.ceil(reset_after)", "math.floor(reset_after)", 1), ""},
		{"atMost with remaining < 0", strings.Replace(atMost, "remaining < 1", "remaining < 0", 1), ""},
		{"rlf with PX", strings.Replace(rlf, "'EX'", "'PX'", 1), ""},
		{"rlf with another multiplier", strings.Replace(rlf, "1000 * ARGV[2]", "100 * ARGV[2]", 1), ""},
		{"rlf starting the counter at 1", strings.Replace(rlf, "KEYS[1], 0", "KEYS[1], 1", 1), ""},
	}
	for _, tc := range tests {
		chunk, err := mustParseTry(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := Recognise(chunk); got != tc.want {
			t.Errorf("%s: Recognise = %q, want %q", tc.name, got, tc.want)
		}
	}
}
