package scripts

import (
	"regexp"
	"strings"
	"testing"
)

// The scripts must run on Redis, Valkey and Dragonfly alike: only commands
// all three have, called as redis.call, and TIME only behind now == '*'.
func TestScriptsArePortable(t *testing.T) {
	allowed := map[string]bool{
		"GET": true, "SET": true, "DEL": true, "EXISTS": true, "INCRBY": true, "PEXPIRE": true, "PTTL": true,
		"HMGET": true, "HSET": true, "ZADD": true, "ZREM": true, "ZCARD": true, "ZCOUNT": true, "ZSCORE": true,
		"ZRANGE": true, "ZRANGEBYSCORE": true, "ZREMRANGEBYSCORE": true, "TIME": true,
	}
	call := regexp.MustCompile(`redis\.(p?call)\('([A-Za-z]+)'`)
	for name, s := range map[string]string{
		"cell": Cell, "gcra": GCRA, "all": All, "token_bucket": TokenBucket, "fixed_window": FixedWindow,
		"sliding_window": SlidingWindow, "concurrency": Concurrency, "budget": Budget,
	} {
		if len(SHA1(s)) != 40 || !strings.Contains(s, "KEYS[1]") {
			t.Errorf("%s: not embedded", name)
		}
		calls := call.FindAllStringSubmatch(s, -1)
		if len(calls) == 0 {
			t.Errorf("%s: no commands found", name)
		}
		for _, c := range calls {
			if c[1] != "call" || !allowed[strings.ToUpper(c[2])] {
				t.Errorf("%s: %s(%s) is not in the portable set", name, c[1], c[2])
			}
		}
		if strings.Contains(s, "'TIME'") && !strings.Contains(s, "ARGV[1] == '*'") && !strings.Contains(s, "now == '*'") {
			t.Errorf("%s: reads TIME without the caller asking", name)
		}
		if strings.Contains(s, "redis.call(\"") {
			t.Errorf("%s: a call the check above cannot see", name)
		}
	}
}
