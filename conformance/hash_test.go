package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Conformance of the hash family: every command and option, every error
// path, both encodings (listpack up to 512 fields and 64-byte strings,
// hashtable beyond: Redis 7.0's defaults) and the conversion triggers of
// t_hash.c, TTL interplay, WATCH no-ops, MULTI and EVAL. HGETALL of a
// listpack hash is compared byte for byte (insertion order); of a
// hashtable, as pairs in any order (dict order cannot be matched). The
// randomized differential test is hash_random_test.go; the real rate-limit
// libraries' scripts are in lib_hash_test.go.

// hBig is an HSET of n fields "<prefix><i>" with values "v<i>".
func hBig(key, prefix string, n int) Cmd {
	args := []string{"HSET", key}
	for i := range n {
		args = append(args, prefix+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	c := C(args...)
	c.where = caller()
	return c
}

func hEnc(key string) Cmd {
	c := C("OBJECT", "ENCODING", key)
	c.where = caller()
	return c
}

// hAll is HGETALL, compared exactly: for listpack hashes.
func hAll(key string) Cmd {
	c := C("HGETALL", key)
	c.where = caller()
	return c
}

// hWatchCase is zsWatchCase for hashes.
func hWatchCase(name string, setup []Cmd, between ...Cmd) Case {
	return zsWatchCase(name, setup, between...)
}

// hRandCheck compares HRANDFIELD replies whose content is random: same
// length as Redis's, every field one of the hash's (fields maps field ->
// value, checked when withValues), and distinct when distinct.
func hRandCheck(fields map[string]string, withValues, distinct bool) func(rds, lkv *Reply) error {
	return func(rds, lkv *Reply) error {
		if rds.Type == '$' && lkv.Type == '$' && !rds.Null && !lkv.Null {
			if _, ok := fields[lkv.Str]; !ok {
				return fmt.Errorf("field %q is not in the hash", lkv.Str)
			}
			return nil
		}
		if rds.Type != '*' || lkv.Type != '*' {
			if string(rds.Raw) != string(lkv.Raw) {
				return fmt.Errorf("replies differ: %q vs %q", rds.Raw, lkv.Raw)
			}
			return nil
		}
		if len(rds.Elems) != len(lkv.Elems) {
			return fmt.Errorf("length %d, redis %d", len(lkv.Elems), len(rds.Elems))
		}
		if withValues && rds.Type == '*' && len(flatPairs(rds)) != len(flatPairs(lkv)) {
			return fmt.Errorf("pairs nested on one side only: %q vs %q", rds.Raw, lkv.Raw)
		}
		elems := flatPairs(lkv)
		step := 1
		if withValues {
			step = 2
		}
		seen := map[string]bool{}
		for i := 0; i < len(elems); i += step {
			f := elems[i].Str
			v, ok := fields[f]
			if !ok {
				return fmt.Errorf("field %q is not in the hash", f)
			}
			if withValues && elems[i+1].Str != v {
				return fmt.Errorf("field %q with value %q, want %q", f, elems[i+1].Str, v)
			}
			if distinct && seen[f] {
				return fmt.Errorf("field %q twice", f)
			}
			seen[f] = true
		}
		return nil
	}
}

func hFields(prefix string, n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[prefix+strconv.Itoa(i)] = "v" + strconv.Itoa(i)
	}
	return m
}

func TestHashHSet(t *testing.T) {
	runCases(t, []Case{
		{Name: "set and get", Cmds: []Cmd{C("HSET", "k", "a", "1", "b", "2"), C("HSET", "k", "a", "3", "c", "4"), hAll("k"), C("HLEN", "k"), C("HGET", "k", "a")}},
		{Name: "same field twice", Cmds: []Cmd{C("HSET", "k", "a", "1", "a", "2"), hAll("k"), C("HSET", "k", "b", "x", "a", "y", "b", "z"), hAll("k")}},
		{Name: "insertion order survives updates and deletes", Cmds: []Cmd{C("HSET", "k", "c", "1", "a", "2", "b", "3"), C("HSET", "k", "a", "long value here"),
			C("HDEL", "k", "c"), C("HSET", "k", "c", "again", "a", "5"), hAll("k"), C("HKEYS", "k"), C("HVALS", "k")}},
		{Name: "binary and empty", Cmds: []Cmd{C("HSET", "k", "", "", "\x00\r\n", "\xff\x00", "f", ""), hAll("k"), C("HGET", "k", ""), C("HSTRLEN", "k", "\x00\r\n"),
			C("HEXISTS", "k", ""), C("HGET", "k", "\x00")}},
		{Name: "integer-like strings", Cmds: []Cmd{C("HSET", "k", "0", "0", "-0", "-0", "007", "007", "1", "+1", "-1", " 1", "9223372036854775807", "-9223372036854775808",
			"9223372036854775808", "-9223372036854775809", "12345678901234567890", "1.0", "1e3", "0x10"), hAll("k"), C("HGET", "k", "0"), C("HGET", "k", "-0"),
			C("HGET", "k", "007"), C("HGET", "k", "7"), C("HSTRLEN", "k", "9223372036854775807"), C("HSTRLEN", "k", "-1"), C("HSTRLEN", "k", "12345678901234567890"),
			C("HMGET", "k", "1", "01", "-1", "-01", "9223372036854775808")}},
		{Name: "hmset", Cmds: []Cmd{C("HMSET", "k", "a", "1", "b", "2"), C("HMSET", "k", "a", "x"), hAll("k"), C("HMSET", "k", "a"), C("HMSET", "k", "a", "1", "b")}},
		{Name: "arity", Cmds: []Cmd{C("HSET"), C("HSET", "k"), C("HSET", "k", "f"), C("HSET", "k", "f", "v", "g"), C("HMSET", "k", "f"), C("hSeT", "k", "f", "v", "g"),
			C("EXISTS", "k")}},
		{Name: "wrong type", Cmds: []Cmd{C("SET", "s", "v"), C("HSET", "s", "a", "1"), C("HMSET", "s", "a", "1"), C("HSET", "s", "a", "1", "b"), C("HSETNX", "s", "a", "1"),
			C("HGET", "s", "a"), C("HMGET", "s", "a"), C("HDEL", "s", "a"), C("HLEN", "s"), C("HSTRLEN", "s", "a"), C("HEXISTS", "s", "a"), C("HKEYS", "s"),
			C("HVALS", "s"), C("HGETALL", "s"), C("HINCRBY", "s", "a", "1"), C("HINCRBY", "s", "a", "x"), C("HINCRBYFLOAT", "s", "a", "1"), C("HINCRBYFLOAT", "s", "a", "x"),
			C("HRANDFIELD", "s"), C("HRANDFIELD", "s", "0"), C("HRANDFIELD", "s", "x"), C("HRANDFIELD", "s", "1", "WITHVALUES"), C("HSCAN", "s", "0"), C("HSCAN", "s", "x"),
			C("HSCAN", "s", "0", "COUNT", "0"), C("GET", "s"), C("HSET", "h", "a", "1"), C("GET", "h"), C("INCR", "h"), C("ZADD", "h", "1", "a"), C("TYPE", "h")}},
		{Name: "type and generic commands", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("TYPE", "k"), C("COPY", "k", "c"), hAll("c"), hEnc("c"), C("HSET", "c", "b", "2"),
			hAll("k"), C("RENAME", "k", "r"), hAll("r"), C("EXISTS", "k"), C("DEL", "r"), C("EXISTS", "r"), C("SCAN", "0", "TYPE", "hash")}},
	})
}

func TestHashHSetNX(t *testing.T) {
	runCases(t, []Case{
		{Name: "new and existing", Cmds: []Cmd{C("HSETNX", "k", "a", "1"), C("HSETNX", "k", "a", "2"), C("HSETNX", "k", "b", "3"), hAll("k")}},
		{Name: "arity", Cmds: []Cmd{C("HSETNX", "k"), C("HSETNX", "k", "a"), C("HSETNX", "k", "a", "b", "c"), C("EXISTS", "k")}},
	})
}

func TestHashReads(t *testing.T) {
	runCases(t, []Case{
		{Name: "missing key", Cmds: []Cmd{C("HGET", "no", "a"), C("HMGET", "no", "a", "b"), C("HLEN", "no"), C("HSTRLEN", "no", "a"), C("HEXISTS", "no", "a"),
			C("HKEYS", "no"), C("HVALS", "no"), C("HGETALL", "no"), C("EXISTS", "no")}},
		{Name: "missing field", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HGET", "k", "b"), C("HMGET", "k", "b", "a", "b"), C("HSTRLEN", "k", "b"), C("HEXISTS", "k", "b")}},
		{Name: "arity", Cmds: []Cmd{C("HGET", "k"), C("HGET", "k", "a", "b"), C("HMGET", "k"), C("HLEN"), C("HLEN", "k", "a"), C("HSTRLEN", "k"), C("HEXISTS", "k"),
			C("HKEYS"), C("HVALS", "k", "a"), C("HGETALL"), C("HGETALL", "k", "x")}},
		{Name: "hstrlen", Cmds: []Cmd{C("HSET", "k", "a", "hello", "n", "-12345", "z", "0", "e", ""), C("HSTRLEN", "k", "a"), C("HSTRLEN", "k", "n"),
			C("HSTRLEN", "k", "z"), C("HSTRLEN", "k", "e")}},
		{Name: "large hash", Cmds: []Cmd{hBig("k", "f", 600), C("HLEN", "k"), C("HGET", "k", "f599"), C("HMGET", "k", "f0", "nope", "f300"), C("HSTRLEN", "k", "f10"),
			C("HEXISTS", "k", "f5"), C("HEXISTS", "k", "f600"), C("HGETALL", "k").PairsUnordered(), C("HKEYS", "k").Unordered(), C("HVALS", "k").Unordered()}},
		{Name: "keyspace hits and misses", Cmds: []Cmd{C("CONFIG", "RESETSTAT"), C("HSET", "k", "a", "1"), C("HGET", "k", "a"), C("HGET", "no", "a"), C("HMGET", "no", "a"),
			C("HDEL", "no", "a"), C("HINCRBY", "k", "n", "1"), C("HSCAN", "no", "0"), C("HRANDFIELD", "no"), C("INFO", "stats").Check("hits/misses", infoStatsEqual("keyspace_hits", "keyspace_misses"))}},
	})
}

// infoStatsEqual compares the named fields of two INFO replies.
func infoStatsEqual(names ...string) func(rds, lkv *Reply) error {
	get := func(r *Reply, name string) string {
		for _, line := range strings.Split(r.Str, "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				return v
			}
		}
		return "<missing>"
	}
	return func(rds, lkv *Reply) error {
		for _, n := range names {
			if a, b := get(rds, n), get(lkv, n); a != b {
				return fmt.Errorf("%s: redis %s, limitkv %s", n, a, b)
			}
		}
		return nil
	}
}

func TestHashHDel(t *testing.T) {
	runCases(t, []Case{
		{Name: "delete", Cmds: []Cmd{C("HSET", "k", "a", "1", "b", "2", "c", "3"), C("HDEL", "k", "a", "x"), C("HDEL", "k", "a"), hAll("k"), C("HDEL", "k", "b", "b", "c"),
			C("EXISTS", "k")}},
		{Name: "last field removes the key and stops", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HDEL", "k", "a", "a", "b"), C("EXISTS", "k"), C("HDEL", "k", "a")}},
		{Name: "large", Cmds: []Cmd{hBig("k", "f", 600), C("HDEL", "k", "f1", "f2", "f599", "nope"), C("HLEN", "k"), hEnc("k"), C("HGET", "k", "f1")}},
		{Name: "arity", Cmds: []Cmd{C("HDEL"), C("HDEL", "k")}},
	})
}

func TestHashHIncrBy(t *testing.T) {
	runCases(t, []Case{
		{Name: "incr", Cmds: []Cmd{C("HINCRBY", "k", "n", "5"), C("HINCRBY", "k", "n", "-7"), C("HINCRBY", "k", "n", "0"), C("HGET", "k", "n"), hAll("k"), hEnc("k")}},
		{Name: "increment parse", Cmds: []Cmd{C("HINCRBY", "k", "n", "x"), C("HINCRBY", "k", "n", "1.5"), C("HINCRBY", "k", "n", " 1"), C("HINCRBY", "k", "n", "+1"),
			C("HINCRBY", "k", "n", "01"), C("HINCRBY", "k", "n", ""), C("HINCRBY", "k", "n", "9223372036854775808"), C("EXISTS", "k"),
			C("HINCRBY", "k", "n", "-9223372036854775808"), C("HGET", "k", "n")}},
		{Name: "bad stored values", Cmds: []Cmd{C("HSET", "k", "s", "abc", "f", "1.5", "sp", " 1", "z", "007", "big", "9223372036854775808", "e", ""),
			C("HINCRBY", "k", "s", "1"), C("HINCRBY", "k", "f", "1"), C("HINCRBY", "k", "sp", "1"), C("HINCRBY", "k", "z", "1"), C("HINCRBY", "k", "big", "1"),
			C("HINCRBY", "k", "e", "1"), hAll("k")}},
		{Name: "overflow", Cmds: []Cmd{C("HSET", "k", "max", "9223372036854775807", "min", "-9223372036854775808"), C("HINCRBY", "k", "max", "1"), C("HINCRBY", "k", "max", "0"),
			C("HINCRBY", "k", "max", "-9223372036854775808"), C("HINCRBY", "k", "min", "-1"), C("HINCRBY", "k", "min", "9223372036854775807"), hAll("k")}},
		{Name: "arity", Cmds: []Cmd{C("HINCRBY", "k", "n"), C("HINCRBY", "k", "n", "1", "2")}},
		{Name: "large hash", Cmds: []Cmd{hBig("k", "f", 600), C("HINCRBY", "k", "n", "3"), C("HINCRBY", "k", "n", "3"), C("HINCRBY", "k", "f1", "1"), C("HGET", "k", "n")}},
	})
}

func TestHashHIncrByFloat(t *testing.T) {
	runCases(t, []Case{
		{Name: "incr", Cmds: []Cmd{C("HINCRBYFLOAT", "k", "f", "1.5"), C("HINCRBYFLOAT", "k", "f", "0.1"), C("HINCRBYFLOAT", "k", "f", "-1.6"), C("HINCRBYFLOAT", "k", "g", "0.1"),
			C("HINCRBYFLOAT", "k", "g", "0.2"), C("HINCRBYFLOAT", "k", "h", "3.0"), C("HINCRBYFLOAT", "k", "h", "1e5"), C("HINCRBYFLOAT", "k", "i", "-0"),
			C("HINCRBYFLOAT", "k", "j", "0x10"), C("HINCRBYFLOAT", "k", "l", "5.0e3"), C("HINCRBYFLOAT", "k", "m", "1e-20"), C("HINCRBYFLOAT", "k", "o", "123456789012345678"),
			hAll("k"), hEnc("k")}},
		{Name: "on integers", Cmds: []Cmd{C("HSET", "k", "n", "10", "neg", "-3"), C("HINCRBYFLOAT", "k", "n", "0.5"), C("HINCRBYFLOAT", "k", "neg", "3"), C("HINCRBY", "k", "neg", "1"),
			hAll("k")}},
		{Name: "errors", Cmds: []Cmd{C("HINCRBYFLOAT", "k", "f", "x"), C("HINCRBYFLOAT", "k", "f", "nan"), C("HINCRBYFLOAT", "k", "f", "inf"), C("HINCRBYFLOAT", "k", "f", "-inf"),
			C("HINCRBYFLOAT", "k", "f", ""), C("HINCRBYFLOAT", "k", "f", " 1"), C("HINCRBYFLOAT", "k", "f", "1 "), C("HINCRBYFLOAT", "k", "f", "1e5000"), C("EXISTS", "k"),
			C("HSET", "k", "s", "abc", "sp", " 1", "inf", "inf", "e", "", "big", "1e4000"), C("HINCRBYFLOAT", "k", "s", "1"), C("HINCRBYFLOAT", "k", "sp", "1"),
			C("HINCRBYFLOAT", "k", "inf", "1"), C("HINCRBYFLOAT", "k", "e", "1"), hAll("k"), C("HINCRBYFLOAT", "k", "big", "1"), hEnc("k"),
			C("HGETALL", "k").PairsUnordered()}},
		{Name: "beyond double range stays long double", Cmds: []Cmd{C("HINCRBYFLOAT", "k", "f", "1e308"), C("HINCRBYFLOAT", "k", "f", "1e308"), hEnc("k"), C("HGET", "k", "f"),
			C("HINCRBYFLOAT", "k", "f", "-1e308"), C("HGET", "k", "f")}},
		{Name: "arity", Cmds: []Cmd{C("HINCRBYFLOAT", "k", "f"), C("HINCRBYFLOAT", "k", "f", "1", "2")}},
	})
}

func TestHashHRandField(t *testing.T) {
	small, large := hFields("f", 5), hFields("f", 600)
	rc := func(fields map[string]string, wv, distinct bool, args ...string) Cmd {
		c := C(args...).Check("hrandfield", hRandCheck(fields, wv, distinct))
		c.where = caller()
		return c
	}
	runCases(t, []Case{
		{Name: "missing key", Cmds: []Cmd{C("HRANDFIELD", "no"), C("HRANDFIELD", "no", "0"), C("HRANDFIELD", "no", "5"), C("HRANDFIELD", "no", "-5", "WITHVALUES")}},
		{Name: "errors", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HRANDFIELD", "k", "x"), C("HRANDFIELD", "k", "1.5"), C("HRANDFIELD", "k", "1", "WITHSCORES"),
			C("HRANDFIELD", "k", "1", "WITHVALUES", "x"), C("HRANDFIELD", "k", "x", "WITHVALUES"), C("HRANDFIELD", "k", "-9223372036854775808"),
			C("HRANDFIELD", "k", "-9223372036854775807", "WITHVALUES"), C("HRANDFIELD", "k", "4611686018427387904", "WITHVALUES"),
			C("HRANDFIELD", "k", "-4611686018427387904", "WITHVALUES"), C("HRANDFIELD", "k", "4611686018427387903", "WITHVALUES"),
			C("HRANDFIELD", "k", "9223372036854775807"), C("HRANDFIELD", "k", "9223372036854775808"), C("HRANDFIELD"), C("HRANDFIELD", "k", "1", "withvalues"),
			C("HRANDFIELD", "no", "1", "x")}},
		{Name: "single field", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HRANDFIELD", "k"), C("HRANDFIELD", "k", "1"), C("HRANDFIELD", "k", "-3"), C("HRANDFIELD", "k", "-3", "WITHVALUES"),
			C("HRANDFIELD", "k", "0"), C("HRANDFIELD", "k", "0", "WITHVALUES")}},
		{Name: "small whole hash in order", Cmds: []Cmd{hBig("k", "f", 5), C("HRANDFIELD", "k", "5"), C("HRANDFIELD", "k", "6", "WITHVALUES"), C("HRANDFIELD", "k", "100")}},
		{Name: "small random", Cmds: []Cmd{hBig("k", "f", 5), rc(small, false, false, "HRANDFIELD", "k"), rc(small, false, true, "HRANDFIELD", "k", "1"),
			rc(small, false, true, "HRANDFIELD", "k", "2"), rc(small, true, true, "HRANDFIELD", "k", "4", "WITHVALUES"),
			rc(small, false, false, "HRANDFIELD", "k", "-20"), rc(small, true, false, "HRANDFIELD", "k", "-2000", "WITHVALUES")}},
		{Name: "large whole hash", Cmds: []Cmd{hBig("k", "f", 600), C("HRANDFIELD", "k", "600").Unordered(), C("HRANDFIELD", "k", "1000", "WITHVALUES").PairsUnordered()}},
		{Name: "large random", Cmds: []Cmd{hBig("k", "f", 600), rc(large, false, false, "HRANDFIELD", "k"), rc(large, true, true, "HRANDFIELD", "k", "1", "WITHVALUES"),
			rc(large, false, true, "HRANDFIELD", "k", "10"), rc(large, true, true, "HRANDFIELD", "k", "300", "WITHVALUES"),
			rc(large, false, true, "HRANDFIELD", "k", "599"), rc(large, true, false, "HRANDFIELD", "k", "-1500", "WITHVALUES")}},
	})
}

// TestHashKnownDivergences records where limitkv cannot or does not answer
// as Redis does.
func TestHashKnownDivergences(t *testing.T) {
	runCases(t, []Case{
		{Name: "hashtable order", Skip: "by design: HGETALL/HKEYS/HVALS/HSCAN of a hashtable come in dict order, which depends on Redis's siphash seed; compared as multisets elsewhere",
			Cmds: []Cmd{hBig("k", "f", 600), C("HKEYS", "k"), C("HSCAN", "k", "0")}},
		{Name: "huge negative hrandfield count", Skip: "limitkv refuses more than 2^26 picks with ERR value is out of range (as for ZRANDMEMBER); Redis builds the reply and may exhaust its memory",
			Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HRANDFIELD", "k", "-100000000")}},
		{Name: "random choices", Skip: "HRANDFIELD's picks are random on both servers; checked for shape and membership elsewhere",
			Cmds: []Cmd{hBig("k", "f", 50), C("HRANDFIELD", "k", "5")}},
	})
}

func TestHashHScan(t *testing.T) {
	runCases(t, []Case{
		{Name: "missing key", Cmds: []Cmd{C("HSCAN", "no", "0"), C("HSCAN", "no", "0", "COUNT", "0"), C("HSCAN", "no", "0", "bogus"), C("HSCAN", "no", "x")}},
		{Name: "small is whole", Cmds: []Cmd{C("HSET", "k", "a", "1", "b", "2", "ab", "3", "-5", "-5"), C("HSCAN", "k", "0"), C("HSCAN", "k", "17"), C("HSCAN", "k", "0", "COUNT", "1"),
			C("HSCAN", "k", "0", "MATCH", "a*"), C("HSCAN", "k", "0", "MATCH", "*", "COUNT", "2"), C("HSCAN", "k", "0", "MATCH", "nope"), C("HSCAN", "k", "0", "match", "-?")}},
		{Name: "errors", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HSCAN", "k", "x"), C("HSCAN", "k", "-1"), C("HSCAN", "k", " 1"), C("HSCAN", "k", "18446744073709551616"),
			C("HSCAN", "k", "0", "COUNT"), C("HSCAN", "k", "0", "COUNT", "0"), C("HSCAN", "k", "0", "COUNT", "-1"), C("HSCAN", "k", "0", "COUNT", "x"),
			C("HSCAN", "k", "0", "MATCH"), C("HSCAN", "k", "0", "TYPE", "hash"), C("HSCAN", "k", "0", "NOVALUES"), C("HSCAN", "k"), C("HSCAN")}},
		{Name: "large page shapes", Cmds: []Cmd{hBig("k", "f", 600), C("HSCAN", "k", "0", "COUNT", "5000").Check("one page covers all", hscanAllCheck(600)),
			C("HSCAN", "k", "0", "MATCH", "f1*", "COUNT", "5000").Check("match", hscanAllCheck(111))}},
	})
}

// hscanAllCheck checks a final page that returned n distinct pairs.
func hscanAllCheck(n int) func(rds, lkv *Reply) error {
	return func(rds, lkv *Reply) error {
		for _, r := range []*Reply{rds, lkv} {
			if r.Type != '*' || len(r.Elems) != 2 || r.Elems[0].Str != "0" || len(r.Elems[1].Elems) != 2*n {
				return fmt.Errorf("not a final page of %d pairs: %.200q", n, r.Raw)
			}
		}
		return nil
	}
}

// TestHashHScanLarge iterates a hashtable-encoded hash to the end on both
// servers, with fields added and removed between calls: every field
// present for the whole scan must be returned, none that never existed.
func TestHashHScanLarge(t *testing.T) {
	requireServers(t)
	rds, lkv := dialPair(t)
	for _, count := range []string{"1", "10", "100"} {
		t.Run("count "+count, func(t *testing.T) {
			for _, c := range []*RawConn{rds, lkv} {
				c.MustDo(t, "FLUSHALL")
				args := []string{"HSET", "k"}
				for i := range 1000 {
					args = append(args, "f"+strconv.Itoa(i), strconv.Itoa(i))
				}
				c.MustDo(t, args...)
				cursor, calls := "0", 0
				seen := map[string]bool{}
				for {
					r := c.MustDo(t, "HSCAN", "k", cursor, "COUNT", count)
					if r.Type != '*' || len(r.Elems) != 2 {
						t.Fatalf("%s: %q", c.Name, r.Raw)
					}
					for i := 0; i < len(r.Elems[1].Elems); i += 2 {
						f, v := r.Elems[1].Elems[i].Str, r.Elems[1].Elems[i+1].Str
						if "f"+v != f && !strings.HasPrefix(f, "g") {
							t.Fatalf("%s: pair %q %q", c.Name, f, v)
						}
						seen[f] = true
					}
					calls++
					// Grow (resize) and shrink the hash during the scan:
					// the g fields come and go, the f fields below 500 stay.
					switch calls {
					case 3:
						grow := []string{"HSET", "k"}
						for i := range 3000 {
							grow = append(grow, "g"+strconv.Itoa(i), "x")
						}
						c.MustDo(t, grow...)
					case 6:
						del := []string{"HDEL", "k"}
						for i := range 3000 {
							del = append(del, "g"+strconv.Itoa(i))
						}
						for i := 500; i < 1000; i++ {
							del = append(del, "f"+strconv.Itoa(i))
						}
						c.MustDo(t, del...)
					}
					cursor = r.Elems[0].Str
					if cursor == "0" {
						break
					}
				}
				for i := range 500 {
					if f := "f" + strconv.Itoa(i); !seen[f] {
						t.Errorf("%s: field %s, present for the whole scan, never returned", c.Name, f)
					}
				}
			}
		})
	}
}

// TestHashEncoding checks OBJECT ENCODING around Redis's conversion
// triggers (hashTypeTryConversion, hashTypeSet): 512 fields, 64 bytes.
func TestHashEncoding(t *testing.T) {
	long := strings.Repeat("x", 65)
	l64 := strings.Repeat("y", 64)
	runCases(t, []Case{
		{Name: "defaults", Cmds: []Cmd{C("CONFIG", "GET", "hash-max-listpack-entries"), C("CONFIG", "GET", "hash-max-listpack-value"),
			C("CONFIG", "GET", "hash-max-ziplist-entries"), C("CONFIG", "GET", "hash-max-ziplist-value"), C("CONFIG", "GET", "hash-max-*").PairsUnordered()}},
		{Name: "512 fields", Cmds: []Cmd{hBig("k", "f", 512), hEnc("k"), C("HSET", "k", "f0", "new"), hEnc("k"), hAll("k"), C("HSET", "k", "x", "1"), hEnc("k"),
			C("HDEL", "k", "x", "f1", "f2"), hEnc("k"), C("HLEN", "k")}},
		{Name: "513 fields at once", Cmds: []Cmd{hBig("k", "f", 513), hEnc("k")}},
		{Name: "hsetnx and hincrby at the entry limit", Cmds: []Cmd{hBig("a", "f", 512), C("HSETNX", "a", "f1", "x"), hEnc("a"), C("HSETNX", "a", "new", "x"), hEnc("a"),
			hBig("b", "f", 512), C("HINCRBY", "b", "n", "1"), hEnc("b"), hBig("c", "f", 512), C("HINCRBYFLOAT", "c", "n", "1"), hEnc("c")}},
		{Name: "64 byte strings", Cmds: []Cmd{C("HSET", "k", l64, l64), hEnc("k"), C("HSET", "k", "a", long), hEnc("k"),
			C("HSET", "f", long, "1"), hEnc("f"), C("HSET", "v", "a", "1", "b", long), hEnc("v"), C("HGETALL", "k").PairsUnordered()}},
		{Name: "hset on existing field with long value", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HSET", "k", "a", long), hEnc("k")}},
		{Name: "hset converts before writing", Cmds: []Cmd{C("HSET", "k", "a", "1", "b", "2"), C("HSET", "k", "c", "3", long, "4"), hEnc("k"), C("HGETALL", "k").PairsUnordered()}},
		{Name: "hsetnx checks only when it writes", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HSETNX", "k", "a", long), hEnc("k"), C("HSETNX", "k", "b", long), hEnc("k"),
			C("HSET", "j", "a", "1"), C("HSETNX", "j", long, "1"), hEnc("j")}},
		{Name: "hincrby with a long field", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("HINCRBY", "k", long, "1"), hEnc("k"), C("HINCRBY", "k2", l64, "1"), hEnc("k2")}},
		{Name: "hincrbyfloat result length", Cmds: []Cmd{C("HINCRBYFLOAT", "k", "f", "1e60"), hEnc("k"), C("HINCRBYFLOAT", "k", "f", "1e10"), hEnc("k"),
			C("HINCRBYFLOAT", "j", "f", "1e70"), hEnc("j"), C("HGET", "j", "f"), C("HINCRBYFLOAT", "i", long, "1"), hEnc("i")}},
		{Name: "stays hashtable when shrinking", Cmds: []Cmd{hBig("k", "f", 600), C("HDEL", "k", "f0", "f1"), hEnc("k"), C("HSET", "k2", "a", long), C("HDEL", "k2", "a"),
			C("EXISTS", "k2"), C("HSET", "k3", "a", long, "b", "1"), C("HDEL", "k3", "a"), hEnc("k3"), C("HGETALL", "k3")}},
		{Name: "copy keeps encoding", Cmds: []Cmd{hBig("k", "f", 600), C("COPY", "k", "c"), hEnc("c"), C("HLEN", "c"), C("HSET", "s", "a", "1"), C("COPY", "s", "d"), hEnc("d")}},
		{Name: "config set thresholds", Cmds: []Cmd{C("CONFIG", "SET", "hash-max-listpack-entries", "4"), hBig("k", "f", 4), hEnc("k"), C("HSET", "k", "x", "1"), hEnc("k"),
			C("CONFIG", "SET", "hash-max-listpack-value", "2"), C("HSET", "v", "ab", "cd"), hEnc("v"), C("HSET", "w", "abc", "1"), hEnc("w"),
			C("CONFIG", "SET", "hash-max-ziplist-entries", "0"), C("CONFIG", "GET", "hash-max-listpack-entries"), C("HSET", "z", "a", "1"), hEnc("z"),
			C("CONFIG", "SET", "hash-max-ziplist-value", "0"), C("CONFIG", "GET", "hash-max-ziplist-value"),
			C("CONFIG", "SET", "hash-max-listpack-entries", "10"), C("HSET", "e", "", ""), hEnc("e"), C("HSETNX", "e", "x", ""), hEnc("e"), C("HSETNX", "e", "y", "1"), hEnc("e"),
			C("HINCRBY", "e2", "", "1"), hEnc("e2"), C("HINCRBYFLOAT", "e3", "", "0"), hEnc("e3"),
			C("CONFIG", "SET", "hash-max-listpack-entries", "-1"), C("CONFIG", "SET", "hash-max-listpack-value", "x"), C("CONFIG", "SET", "hash-max-listpack-value", "1kb"),
			C("CONFIG", "GET", "hash-max-listpack-value"),
			C("CONFIG", "SET", "hash-max-listpack-entries", "512"), C("CONFIG", "SET", "hash-max-listpack-value", "64")}},
		{Name: "wrong types", Cmds: []Cmd{C("HSET", "h", "a", "1"), hEnc("h"), hEnc("nokey")}},
	})
}

func TestHashTTL(t *testing.T) {
	runCases(t, []Case{
		{Name: "writes keep the ttl", Cmds: []Cmd{C("HSET", "k", "a", "1", "b", "2"), C("EXPIRE", "k", "100"), C("HSET", "k", "c", "3"), C("HDEL", "k", "a"),
			C("HINCRBY", "k", "n", "1"), C("HINCRBYFLOAT", "k", "n", "1.5"), C("HSETNX", "k", "d", "1"), C("HMSET", "k", "e", "1"), C("TTL", "k").TTLApprox(1)}},
		{Name: "emptied key loses ttl", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("EXPIRE", "k", "100"), C("HDEL", "k", "a"), C("TTL", "k"), C("HSET", "k", "a", "1"), C("TTL", "k")}},
		{Name: "expired hash", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("PEXPIRE", "k", "30"), Sleep(60 * time.Millisecond), C("HGET", "k", "a"), C("HLEN", "k"),
			C("HGETALL", "k"), C("HSCAN", "k", "0"), C("HRANDFIELD", "k"), C("HEXISTS", "k", "a"), C("HINCRBY", "k", "a", "1"), C("TTL", "k")}},
		{Name: "expired hash then write", Cmds: []Cmd{C("HSET", "k", "a", "1"), C("PEXPIRE", "k", "30"), Sleep(60 * time.Millisecond), C("HSETNX", "k", "a", "2"),
			hAll("k"), C("TTL", "k"), C("SET", "s", "v", "PX", "30"), Sleep(60 * time.Millisecond), C("HSET", "s", "a", "1"), C("TYPE", "s")}},
	})
}

func TestHashWatch(t *testing.T) {
	h := []Cmd{C("HSET", "k", "a", "1", "b", "2")}
	runCases(t, []Case{
		hWatchCase("hset same value", h, C("HSET", "k", "a", "1")),
		hWatchCase("hset", h, C("HSET", "k", "c", "1")),
		hWatchCase("hmset", h, C("HMSET", "k", "a", "1")),
		hWatchCase("hset other key", h, C("HSET", "k2", "a", "1")),
		hWatchCase("hset error", h, C("HSET", "k", "a")),
		hWatchCase("hsetnx existing", h, C("HSETNX", "k", "a", "9")),
		hWatchCase("hsetnx new", h, C("HSETNX", "k", "z", "9")),
		hWatchCase("hsetnx creates", nil, C("HSETNX", "k", "z", "9")),
		hWatchCase("hdel missing field", h, C("HDEL", "k", "x", "y")),
		hWatchCase("hdel missing key", nil, C("HDEL", "k", "x")),
		hWatchCase("hdel", h, C("HDEL", "k", "x", "a")),
		hWatchCase("hdel last", []Cmd{C("HSET", "k", "a", "1")}, C("HDEL", "k", "a")),
		hWatchCase("hincrby zero", h, C("HINCRBY", "k", "a", "0")),
		hWatchCase("hincrby error", h, C("HINCRBY", "k", "a", "x")),
		hWatchCase("hincrby not integer", []Cmd{C("HSET", "k", "a", "x")}, C("HINCRBY", "k", "a", "1")),
		hWatchCase("hincrbyfloat zero", h, C("HINCRBYFLOAT", "k", "a", "0")),
		hWatchCase("hincrbyfloat error", h, C("HINCRBYFLOAT", "k", "a", "inf")),
		hWatchCase("wrong type", []Cmd{C("SET", "k", "v")}, C("HSET", "k", "a", "1")),
		hWatchCase("reads", h, C("HGET", "k", "a"), C("HGETALL", "k"), C("HRANDFIELD", "k").Ignore(), C("HSCAN", "k", "0"), C("HLEN", "k"), C("HMGET", "k", "a"),
			C("HKEYS", "k"), C("HVALS", "k"), C("HSTRLEN", "k", "a"), C("HEXISTS", "k", "a")),
	})
}

func TestHashMultiEval(t *testing.T) {
	runCases(t, []Case{
		{Name: "multi", Cmds: []Cmd{C("MULTI"), C("HSET", "k", "a", "1"), C("HINCRBY", "k", "a", "2"), C("HINCRBYFLOAT", "k", "a", "0.5"), C("HINCRBY", "k", "a", "1"),
			C("HGETALL", "k"), C("HSETNX", "k", "a", "z"), C("HDEL", "k", "a"), C("EXISTS", "k"), C("EXEC")}},
		{Name: "multi queue errors", Cmds: []Cmd{C("MULTI"), C("HSET", "k", "a"), C("HSET", "k", "a", "1"), C("HGET", "k"), C("EXEC"), C("EXISTS", "k")}},
		{Name: "multi odd hset args is a runtime error", Cmds: []Cmd{C("MULTI"), C("HSET", "k", "a", "1", "b"), C("HSET", "k", "c", "1"), C("EXEC"), hAll("k")}},
		{Name: "multi wrong type", Cmds: []Cmd{C("SET", "s", "v"), C("MULTI"), C("HSET", "s", "a", "1"), C("HGET", "s", "a"), C("SET", "t", "x"), C("EXEC"), C("GET", "t")}},
		{Name: "eval", Cmds: []Cmd{
			C("EVAL", "return redis.call('hset', KEYS[1], 'a', '1', 'b', '2')", "1", "k"),
			C("EVAL", "return redis.call('hgetall', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('hget', KEYS[1], 'nope')", "1", "k"),
			C("EVAL", "return {redis.call('hmget', KEYS[1], 'a', 'nope', 'b')}", "1", "k"),
			C("EVAL", "return redis.call('hmget', KEYS[1], 'a', 'nope', 'b')", "1", "k"),
			C("EVAL", "return redis.call('hincrby', KEYS[1], 'a', 5)", "1", "k"),
			C("EVAL", "return redis.call('hincrbyfloat', KEYS[1], 'a', '0.25')", "1", "k"),
			C("EVAL", "return redis.call('hlen', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('hexists', KEYS[1], 'a')", "1", "k"),
			C("EVAL", "return redis.call('hstrlen', KEYS[1], 'a')", "1", "k"),
			C("EVAL", "return redis.call('hkeys', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('hvals', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('hscan', KEYS[1], 0)", "1", "k"),
			C("EVAL", "return redis.call('hrandfield', KEYS[1], 10, 'withvalues')", "1", "k"),
			C("EVAL", "return redis.call('hsetnx', KEYS[1], 'a', 'x')", "1", "k"),
			C("EVAL", "return redis.call('hdel', KEYS[1], 'a', 'b')", "1", "k"),
			C("EVAL", "return redis.call('exists', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('hgetall', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('hrandfield', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('hset', KEYS[1], 'a')", "1", "k"),
			C("EVAL", "return redis.pcall('hincrby', KEYS[1], 'a', 'x')", "1", "k"),
			C("EVAL", "redis.call('set', KEYS[1], 'v') return redis.pcall('hget', KEYS[1], 'a')", "1", "k"),
			C("EVAL", "return redis.call('hincrby', KEYS[1], 'a', 1)", "1", "k"),
			C("EVAL", "redis.call('del', KEYS[1]) redis.call('hset', KEYS[1], 'n', '1') return redis.call('hincrbyfloat', KEYS[1], 'n', 1.5)", "1", "k"),
			C("EVAL", "return redis.call('hget', KEYS[1], 'n') + 1", "1", "k"),
			C("EVAL_RO", "return redis.call('hset', KEYS[1], 'a', '1')", "1", "k"),
			C("EVAL_RO", "return redis.call('hgetall', KEYS[1])", "1", "k"),
		}},
	})
}
