package conformance

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Differential cases for the set family (Redis 7.0's t_set.c): every
// command, option and error path, the intset/hashtable encodings across
// conversions (including the encodings of computed results and of a set
// SPOP rebuilt), TTL interplay, WATCH after writes that change nothing,
// MULTI and EVAL. An intset lists its members in ascending order on both
// servers, so its replies are compared byte for byte; a hash table's order
// cannot match and is compared as a multiset. SPOP and SRANDMEMBER are
// random: their replies are checked by shape and membership, and the state
// they leave by SCARD.

// sBig is SADD of n members prefix0, prefix1, ...: integers when prefix is "".
func sBig(key, prefix string, n int) Cmd {
	args := []string{"SADD", key}
	for i := range n {
		args = append(args, prefix+strconv.Itoa(i))
	}
	c := C(args...)
	c.where = caller()
	return c
}

func sEnc(key string) Cmd {
	c := C("OBJECT", "ENCODING", key)
	c.where = caller()
	return c
}

// sAll is SMEMBERS as a multiset, for hash tables.
func sAll(key string) Cmd {
	c := C("SMEMBERS", key).Unordered()
	c.where = caller()
	return c
}

func sInts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// sShape checks a random pick on both servers: an array of n elements
// (n < 0: as many as Redis gave), all from universe, distinct if asked.
func sShape(n int, universe []string, distinct bool) func(rds, lkv *Reply) error {
	return func(rds, lkv *Reply) error {
		// SPOP answers a set in RESP3, SRANDMEMBER an array: same type on both.
		if !isArray(rds) || rds.Type != lkv.Type {
			return fmt.Errorf("not arrays of one type: %q / %q", rds.Raw, lkv.Raw)
		}
		want := n
		if want < 0 {
			want = len(rds.Elems)
		}
		for _, r := range []*Reply{rds, lkv} {
			if len(r.Elems) != want {
				return fmt.Errorf("%d elements, want %d: %q", len(r.Elems), want, r.Raw)
			}
			seen := map[string]bool{}
			for _, e := range r.Elems {
				if e.Type != '$' || !slices.Contains(universe, e.Str) {
					return fmt.Errorf("element %q not a member", e.Raw)
				}
				if distinct && seen[e.Str] {
					return fmt.Errorf("element %q twice", e.Str)
				}
				seen[e.Str] = true
			}
		}
		return nil
	}
}

// sOne checks a single random member (or both nil).
func sOne(universe []string) func(rds, lkv *Reply) error {
	return func(rds, lkv *Reply) error {
		for _, r := range []*Reply{rds, lkv} {
			if r.Type != '$' || r.Null || !slices.Contains(universe, r.Str) {
				return fmt.Errorf("not a member: %q", r.Raw)
			}
		}
		return nil
	}
}

// sScanWhole checks an SSCAN page expected to hold the whole set: same
// cursor, same members as a multiset.
func sScanWhole(rds, lkv *Reply) error {
	if rds.Type != '*' || lkv.Type != '*' || len(rds.Elems) != 2 || len(lkv.Elems) != 2 {
		return fmt.Errorf("shape: %q / %q", rds.Raw, lkv.Raw)
	}
	if rds.Elems[0].Str != lkv.Elems[0].Str {
		return fmt.Errorf("cursor %q / %q", rds.Elems[0].Str, lkv.Elems[0].Str)
	}
	a, b := []string{}, []string{}
	for _, e := range rds.Elems[1].Elems {
		a = append(a, e.Str)
	}
	for _, e := range lkv.Elems[1].Elems {
		b = append(b, e.Str)
	}
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		return fmt.Errorf("members differ: %q / %q", rds.Raw, lkv.Raw)
	}
	return nil
}

func sWatchCase(name string, setup []Cmd, between ...Cmd) Case {
	cmds := append([]Cmd{}, setup...)
	cmds = append(cmds, C("WATCH", "k", "d"))
	for _, b := range between {
		cmds = append(cmds, b.On(1))
	}
	cmds = append(cmds, C("MULTI"), C("PING"), C("EXEC"))
	return Case{Name: name, Cmds: cmds}
}

var sResetMax = C("CONFIG", "SET", "set-max-intset-entries", "512")

func TestSetBasics(t *testing.T) {
	runCases(t, []Case{
		{Name: "sadd counts new members", Cmds: []Cmd{C("SADD", "k", "a", "b", "a"), C("SADD", "k", "b", "c"), sAll("k"), C("SCARD", "k"), C("TYPE", "k")}},
		{Name: "intset order", Cmds: []Cmd{C("SADD", "k", "5", "-3", "100000", "0", "-9223372036854775808", "9223372036854775807", "7"), C("SMEMBERS", "k"), sEnc("k")}},
		{Name: "binary members", Cmds: []Cmd{C("SADD", "k", "\x00\xff\r\n", "", "a b"), sAll("k"), C("SISMEMBER", "k", ""), C("SISMEMBER", "k", "\x00\xff\r\n"), sEnc("k")}},
		{Name: "integer forms", Cmds: []Cmd{
			C("SADD", "k", "1"), C("SADD", "k", "01"), sEnc("k"), C("SADD", "i", "-0"), sEnc("i"), C("SADD", "j", "+1"), sEnc("j"),
			C("SADD", "l", " 1"), sEnc("l"), C("SADD", "m", "9223372036854775808"), sEnc("m"), C("SADD", "n", "-9223372036854775809"), sEnc("n"),
			C("SADD", "o", "1.0"), sEnc("o"), C("SADD", "p", "0x10"), sEnc("p"), C("SADD", "q", "1\x00"), sEnc("q"), C("SADD", "r", "0"), sEnc("r"),
			C("SADD", "s", "-"), sEnc("s"), C("SADD", "t", "12345678901234567890"), sEnc("t"), C("SADD", "u", "-9223372036854775808"), sEnc("u")}},
		{Name: "first member decides, later ones convert", Cmds: []Cmd{C("SADD", "k", "1", "2", "x"), sEnc("k"), sAll("k"), C("SADD", "h", "x", "1"), sEnc("h"), C("SREM", "k", "x"), sEnc("k")}},
		{Name: "membership in intset by text", Cmds: []Cmd{C("SADD", "k", "1", "2"), C("SISMEMBER", "k", "01"), C("SISMEMBER", "k", "1"), C("SISMEMBER", "k", "+1"),
			C("SMISMEMBER", "k", "1", "01", "2", "x", "99999999999999999999"), C("SREM", "k", "01", "1.0"), C("SCARD", "k")}},
		{Name: "srem", Cmds: []Cmd{C("SADD", "k", "a", "b", "c"), C("SREM", "k", "a", "x", "a"), sAll("k"), C("SREM", "k", "b", "c", "d"), C("EXISTS", "k"), C("SREM", "k", "a"), C("SREM", "nokey", "a")}},
		{Name: "srem intset to empty", Cmds: []Cmd{C("SADD", "k", "1", "2"), C("SREM", "k", "1", "2", "1"), C("EXISTS", "k")}},
		{Name: "missing keys", Cmds: []Cmd{C("SCARD", "k"), C("SISMEMBER", "k", "a"), C("SMISMEMBER", "k", "a", "b"), C("SMEMBERS", "k"), C("SRANDMEMBER", "k"),
			C("SRANDMEMBER", "k", "3"), C("SRANDMEMBER", "k", "-3"), C("SPOP", "k"), C("SPOP", "k", "2"), C("SSCAN", "k", "0"), C("SINTER", "k"), C("SUNION", "k"), C("SDIFF", "k"), C("SINTERCARD", "1", "k")}},
		{Name: "arity", Cmds: []Cmd{C("SADD"), C("SADD", "k"), C("SREM", "k"), C("SCARD"), C("SCARD", "k", "x"), C("SISMEMBER", "k"), C("SISMEMBER", "k", "a", "b"),
			C("SMISMEMBER", "k"), C("SMEMBERS"), C("SMEMBERS", "k", "x"), C("SRANDMEMBER"), C("SPOP"), C("SMOVE", "a", "b"), C("SMOVE", "a", "b", "c", "d"),
			C("SINTER"), C("SINTERCARD", "1"), C("SINTERSTORE", "d"), C("SUNION"), C("SUNIONSTORE", "d"), C("SDIFF"), C("SDIFFSTORE", "d"), C("SSCAN", "k"), C("EXISTS", "k")}},
		{Name: "wrongtype", Cmds: []Cmd{C("SET", "k", "x"), C("SADD", "k", "a"), C("SREM", "k", "a"), C("SCARD", "k"), C("SISMEMBER", "k", "a"), C("SMISMEMBER", "k", "a"),
			C("SMEMBERS", "k"), C("SRANDMEMBER", "k"), C("SRANDMEMBER", "k", "2"), C("SPOP", "k"), C("SPOP", "k", "2"), C("SPOP", "k", "0"), C("SSCAN", "k", "0"),
			C("SINTER", "k"), C("SINTERCARD", "1", "k"), C("SUNION", "k"), C("SDIFF", "k"), C("SINTERSTORE", "d", "k"), C("SUNIONSTORE", "d", "k"), C("SDIFFSTORE", "d", "k"),
			C("ZADD", "z", "1", "a"), C("SADD", "z", "a"), C("SCARD", "z"), C("SADD", "s", "a"), C("ZADD", "s", "1", "a"), C("ZCARD", "s"), C("GET", "s"), C("APPEND", "s", "x"), C("INCR", "s")}},
		{Name: "wrongtype anywhere fails multi-key commands", Cmds: []Cmd{C("SADD", "a", "1"), C("SET", "str", "x"), C("SINTER", "nokey", "str"), C("SINTER", "a", "str"),
			C("SUNION", "a", "str"), C("SDIFF", "a", "str"), C("SDIFF", "nokey", "str"), C("SINTERSTORE", "d", "nokey", "str"), C("SINTERCARD", "2", "nokey", "str"),
			C("SUNIONSTORE", "str", "a"), C("GET", "str"), C("SDIFFSTORE", "d", "a", "str"), C("EXISTS", "d")}},
		{Name: "type and copy keep encoding", Cmds: []Cmd{C("SADD", "k", "1", "2"), C("SADD", "h", "a", "b"), C("TYPE", "k"), C("TYPE", "h"),
			C("COPY", "k", "k2"), C("COPY", "h", "h2"), sEnc("k2"), sEnc("h2"), C("SMEMBERS", "k2"), sAll("h2"), C("SADD", "k2", "3"), C("SCARD", "k"),
			C("SREM", "h2", "a"), C("SCARD", "h"), C("RENAME", "h2", "h3"), sAll("h3"), C("OBJECT", "ENCODING", "nokey")}},
	})
}

func TestSetEncodings(t *testing.T) {
	runCases(t, []Case{
		{Name: "512 integers stay an intset, 513 convert", Cmds: []Cmd{sBig("k", "", 512), sEnc("k"), C("SMEMBERS", "k"), C("SADD", "k", "512"), sEnc("k"),
			C("SREM", "k", "512", "511", "510"), sEnc("k"), C("SCARD", "k")}},
		{Name: "513 at once", Cmds: []Cmd{sBig("k", "", 513), sEnc("k"), C("SCARD", "k")}},
		{Name: "non-integer member converts for good", Cmds: []Cmd{C("SADD", "k", "1", "2"), C("SADD", "k", "a"), sEnc("k"), C("SREM", "k", "a"), sEnc("k"), sAll("k"),
			C("SADD", "k", "3"), sEnc("k")}},
		{Name: "duplicate of a non-integer on intset still converts", Cmds: []Cmd{C("SADD", "k", "1"), C("SADD", "k", "1", "x"), sEnc("k"), C("SREM", "k", "x"), sEnc("k")}},
		{Name: "config threshold", Cmds: []Cmd{C("CONFIG", "GET", "set-max-intset-entries"), C("CONFIG", "SET", "set-max-intset-entries", "3"), C("CONFIG", "GET", "set-max-intset-entries"),
			C("SADD", "k", "1", "2", "3"), sEnc("k"), C("SADD", "k", "3"), sEnc("k"), C("SADD", "k", "4"), sEnc("k"),
			C("CONFIG", "SET", "set-max-intset-entries", "0"), C("SADD", "z", "1"), sEnc("z"),
			C("CONFIG", "SET", "set-max-intset-entries", "-1"), C("CONFIG", "SET", "set-max-intset-entries", "x"), C("CONFIG", "SET", "set-max-intset-entries", "1k"),
			C("CONFIG", "GET", "set-max-*"), C("CONFIG", "GET", "set-max-ziplist-entries"),
			C("CONFIG", "SET", "set-max-intset-entries", "9223372036854775807"), C("CONFIG", "GET", "set-max-intset-entries"), sBig("b", "", 600), sEnc("b"), sResetMax}},
		{Name: "widths", Cmds: []Cmd{C("SADD", "k", "1"), C("SADD", "k", "-40000"), C("SADD", "k", "5000000000"), C("SMEMBERS", "k"), C("SREM", "k", "5000000000"), C("SMEMBERS", "k"), sEnc("k")}},
	})
}

func TestSetMove(t *testing.T) {
	runCases(t, []Case{
		{Name: "move", Cmds: []Cmd{C("SADD", "s", "a", "b"), C("SADD", "d", "1"), C("SMOVE", "s", "d", "a"), sAll("s"), sAll("d"), sEnc("d"),
			C("SMOVE", "s", "d", "b"), C("EXISTS", "s"), sAll("d")}},
		{Name: "move creates destination by member", Cmds: []Cmd{C("SADD", "s", "1", "x"), C("SMOVE", "s", "d", "1"), sEnc("d"), C("SMOVE", "s", "e", "x"), sEnc("e")}},
		{Name: "move int into intset", Cmds: []Cmd{C("SADD", "s", "5", "x"), C("SADD", "d", "1"), C("SMOVE", "s", "d", "5"), C("SMEMBERS", "d"), sEnc("d")}},
		{Name: "member already in destination", Cmds: []Cmd{C("SADD", "s", "a"), C("SADD", "d", "a"), C("SMOVE", "s", "d", "a"), C("EXISTS", "s"), sAll("d")}},
		{Name: "absent member", Cmds: []Cmd{C("SADD", "s", "a"), C("SMOVE", "s", "d", "x"), C("EXISTS", "d"), C("SMOVE", "nokey", "d", "a")}},
		{Name: "same key", Cmds: []Cmd{C("SADD", "s", "a"), C("SMOVE", "s", "s", "a"), C("SMOVE", "s", "s", "x"), sAll("s")}},
		{Name: "types", Cmds: []Cmd{C("SET", "str", "x"), C("SADD", "s", "a"), C("SMOVE", "nokey", "str", "a"), C("SMOVE", "str", "s", "a"), C("SMOVE", "s", "str", "a"),
			C("SMOVE", "s", "str", "zz"), sAll("s"), C("SMOVE", "str", "str", "a")}},
		{Name: "destination keeps ttl", Cmds: []Cmd{C("SADD", "s", "a"), C("SADD", "d", "b"), C("EXPIRE", "d", "100"), C("SMOVE", "s", "d", "a"), C("TTL", "d").TTLApprox(1)}},
		{Name: "destination converts at threshold", Cmds: []Cmd{C("CONFIG", "SET", "set-max-intset-entries", "2"), C("SADD", "d", "1", "2"), C("SADD", "s", "3"),
			C("SMOVE", "s", "d", "3"), sEnc("d"), sResetMax}},
	})
}

func TestSetPop(t *testing.T) {
	abc := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	ints := sInts(600)
	return10 := C("SADD", "k", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
	runCases(t, []Case{
		{Name: "spop one", Cmds: []Cmd{return10, C("SPOP", "k").Check("member", sOne(abc)), C("SCARD", "k"), C("SADD", "i", "1"), C("SPOP", "i"), C("EXISTS", "i")}},
		{Name: "spop count errors", Cmds: []Cmd{return10, C("SPOP", "k", "-1"), C("SPOP", "k", "x"), C("SPOP", "k", "1.5"), C("SPOP", "k", "9223372036854775808"),
			C("SPOP", "k", "1", "2"), C("SPOP", "k", "count", "1"), C("SPOP", "nokey", "-1"), C("SCARD", "k")}},
		{Name: "spop zero", Cmds: []Cmd{return10, C("SPOP", "k", "0"), C("SCARD", "k")}},
		{Name: "spop small count", Cmds: []Cmd{return10, C("SPOP", "k", "3").Check("shape", sShape(3, abc, true)), C("SCARD", "k"), sEnc("k")}},
		{Name: "spop most (rebuild)", Cmds: []Cmd{return10, C("SPOP", "k", "9").Check("shape", sShape(9, abc, true)), C("SCARD", "k"), sEnc("k")}},
		{Name: "spop all of an intset is ordered", Cmds: []Cmd{C("SADD", "k", "3", "1", "2"), C("EXPIRE", "k", "100"), C("SPOP", "k", "3"), C("EXISTS", "k"),
			C("SADD", "k", "3", "1", "2"), C("SPOP", "k", "100"), C("EXISTS", "k")}},
		{Name: "spop all of a hash table of integers comes out ordered", Cmds: []Cmd{C("SADD", "k", "3", "1", "x", "2"), C("SREM", "k", "x"), sEnc("k"), C("SPOP", "k", "3")}},
		{Name: "spop all of a hash table", Cmds: []Cmd{return10, C("SPOP", "k", "10").Unordered(), C("EXISTS", "k")}},
		{Name: "spop rebuild turns a hash table of integers into an intset", Cmds: []Cmd{sBig("k", "", 600), sEnc("k"), C("EXPIRE", "k", "100"),
			C("SPOP", "k", "550").Check("shape", sShape(550, ints, true)), C("SCARD", "k"), sEnc("k"), C("TTL", "k").TTLApprox(1)}},
		{Name: "spop one by one leaves a hash table", Cmds: []Cmd{sBig("k", "", 600), C("SPOP", "k", "100").Check("shape", sShape(100, ints, true)), C("SCARD", "k"), sEnc("k")}},
		{Name: "spop rebuild of mixed members", Cmds: []Cmd{C("SADD", "k", "1", "2", "3", "4", "5", "6", "7", "8", "9", "x"),
			C("SPOP", "k", "9").Check("shape", sShape(9, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "x"}, true)), C("SCARD", "k")}},
		{Name: "spop intset rebuild", Cmds: []Cmd{sBig("k", "", 20), C("SPOP", "k", "19").Check("shape", sShape(19, ints, true)), sEnc("k"), C("SCARD", "k"),
			sBig("j", "", 20), C("SPOP", "j", "2").Check("shape", sShape(2, ints, true)), sEnc("j"), C("SCARD", "j")}},
	})
}

func TestSetRandMember(t *testing.T) {
	abc := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	ten := C("SADD", "k", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
	ints := sInts(600)
	runCases(t, []Case{
		{Name: "one", Cmds: []Cmd{ten, C("SRANDMEMBER", "k").Check("member", sOne(abc)), C("SRANDMEMBER", "k", "1").Check("shape", sShape(1, abc, true))}},
		{Name: "count errors", Cmds: []Cmd{ten, C("SRANDMEMBER", "k", "x"), C("SRANDMEMBER", "k", "1.0"), C("SRANDMEMBER", "k", "-9223372036854775808"),
			C("SRANDMEMBER", "k", "9223372036854775808"), C("SRANDMEMBER", "k", "1", "2"), C("SRANDMEMBER", "nokey", "x"), C("SRANDMEMBER", "nokey", "-9223372036854775808")}},
		{Name: "zero", Cmds: []Cmd{ten, C("SRANDMEMBER", "k", "0"), C("SRANDMEMBER", "k", "-0")}},
		{Name: "whole intset in order", Cmds: []Cmd{C("SADD", "k", "5", "-1", "3"), C("SRANDMEMBER", "k", "3"), C("SRANDMEMBER", "k", "9223372036854775807")}},
		{Name: "whole hash table", Cmds: []Cmd{ten, C("SRANDMEMBER", "k", "10").Unordered(), C("SRANDMEMBER", "k", "100").Unordered()}},
		{Name: "distinct picks", Cmds: []Cmd{ten, C("SRANDMEMBER", "k", "2").Check("shape", sShape(2, abc, true)), C("SRANDMEMBER", "k", "9").Check("shape", sShape(9, abc, true)),
			sBig("i", "", 600), C("SRANDMEMBER", "i", "5").Check("shape", sShape(5, ints, true)), C("SRANDMEMBER", "i", "500").Check("shape", sShape(500, ints, true))}},
		{Name: "repeated picks", Cmds: []Cmd{ten, C("SRANDMEMBER", "k", "-25").Check("shape", sShape(25, abc, false)), C("SADD", "i", "7"), C("SRANDMEMBER", "i", "-3"),
			C("SRANDMEMBER", "i", "-1")}},
		{Name: "no change", Cmds: []Cmd{ten, C("SRANDMEMBER", "k", "5").Check("shape", sShape(5, abc, true)), C("SCARD", "k")}},
		{Name: "huge negative count", Skip: "limitkv refuses a negative count over 2^26 picks with ERR value is out of range; Redis tries to build the reply (gigabytes)",
			Cmds: []Cmd{C("SADD", "k", "a"), C("SRANDMEMBER", "k", "-9223372036854775807")}},
	})
}

func TestSetOps(t *testing.T) {
	ab := []Cmd{C("SADD", "a", "1", "2", "3", "4"), C("SADD", "b", "3", "4", "5"), C("SADD", "c", "4", "x", "y")}
	with := func(cmds ...Cmd) []Cmd { return append(append([]Cmd{}, ab...), cmds...) }
	runCases(t, []Case{
		{Name: "sinter", Cmds: with(C("SINTER", "a", "b"), C("SINTER", "a", "b", "c"), C("SINTER", "a"), C("SINTER", "a", "a"), C("SINTER", "a", "nokey"), C("SINTER", "c", "c").Unordered())}, // c is a hash table
		{Name: "sinter from a hash table", Cmds: []Cmd{C("SADD", "h", "1", "2", "3", "x"), C("SADD", "i", "1", "2", "3", "4", "5"), C("SINTER", "h", "i").Unordered(), C("SINTER", "i", "h").Unordered()}},
		{Name: "sintercard", Cmds: with(C("SINTERCARD", "2", "a", "b"), C("SINTERCARD", "3", "a", "b", "c"), C("SINTERCARD", "1", "a", "LIMIT", "2"),
			C("SINTERCARD", "1", "a", "limit", "0"), C("SINTERCARD", "1", "a", "LIMIT", "1", "LIMIT", "3"), C("SINTERCARD", "2", "a", "nokey"), C("SINTERCARD", "2", "a", "a"))},
		{Name: "sintercard errors", Cmds: with(C("SINTERCARD", "0", "a"), C("SINTERCARD", "-1", "a"), C("SINTERCARD", "x", "a"), C("SINTERCARD", "3", "a", "b"),
			C("SINTERCARD", "1", "a", "LIMIT"), C("SINTERCARD", "1", "a", "LIMIT", "-1"), C("SINTERCARD", "1", "a", "LIMIT", "x"), C("SINTERCARD", "1", "a", "FOO", "1"),
			C("SINTERCARD", "1", "a", "b"), C("SINTERCARD", "9223372036854775808", "a"), C("SET", "s", "x"), C("SINTERCARD", "1", "s", "LIMIT", "-1"))},
		{Name: "sunion and sdiff of intsets are ordered", Cmds: with(C("SUNION", "a", "b"), C("SUNION", "b", "a", "nokey"), C("SDIFF", "a", "b"), C("SDIFF", "b", "a"),
			C("SDIFF", "a", "nokey"), C("SDIFF", "nokey", "a"), C("SDIFF", "a", "a"), C("SDIFF", "a", "b", "a"), C("SDIFF", "a"), C("SUNION", "nokey"))},
		{Name: "with a hash table", Cmds: with(C("SUNION", "a", "c").Unordered(), C("SDIFF", "c", "a").Unordered(), C("SDIFF", "a", "c"), C("SDIFF", "c", "b", "a").Unordered())},
		{Name: "sinterstore", Cmds: with(C("SINTERSTORE", "d", "a", "b"), C("SMEMBERS", "d"), sEnc("d"), C("SINTERSTORE", "d", "a", "c"), C("SMEMBERS", "d"), sEnc("d"),
			C("SINTERSTORE", "d", "a", "nokey"), C("EXISTS", "d"), C("SADD", "h", "1", "x"), C("SADD", "h2", "1", "x", "y"), C("SINTERSTORE", "d", "h", "h2"), sAll("d"), sEnc("d"),
			C("SINTERSTORE", "d", "h", "a"), sEnc("d"), C("SMEMBERS", "d"))},
		{Name: "sunionstore and sdiffstore", Cmds: with(C("SUNIONSTORE", "d", "a", "b"), C("SMEMBERS", "d"), sEnc("d"), C("SUNIONSTORE", "d", "a", "c"), sAll("d"), sEnc("d"),
			C("SDIFFSTORE", "d", "c", "a"), sAll("d"), sEnc("d"), C("SDIFFSTORE", "d", "c", "b", "a"), sEnc("d"), sAll("d"),
			C("SDIFFSTORE", "d", "a", "a"), C("EXISTS", "d"), C("SUNIONSTORE", "d", "nokey"), C("EXISTS", "d"))},
		{Name: "store over other types and ttl", Cmds: with(C("SET", "d", "x", "EX", "100"), C("SUNIONSTORE", "d", "a"), C("TYPE", "d"), C("TTL", "d"),
			C("ZADD", "z", "1", "m"), C("SINTERSTORE", "z", "a", "b"), C("TYPE", "z"), C("SET", "e", "x"), C("SDIFFSTORE", "e", "nokey"), C("EXISTS", "e"))},
		{Name: "store onto a source", Cmds: with(C("SUNIONSTORE", "a", "a", "b"), C("SMEMBERS", "a"), C("SDIFFSTORE", "a", "a", "b"), C("SMEMBERS", "a"),
			C("SINTERSTORE", "b", "b", "c"), C("SMEMBERS", "b"))},
		{Name: "results build as intsets", Cmds: []Cmd{C("CONFIG", "SET", "set-max-intset-entries", "3"), C("SADD", "a", "1", "2"), C("SADD", "b", "3", "4"),
			C("SUNIONSTORE", "d", "a", "b"), sEnc("d"), C("SUNION", "a", "b").Unordered(), C("SADD", "h", "1", "2", "3", "4", "5"), sEnc("h"),
			C("SREM", "h", "5"), C("SDIFFSTORE", "d", "h", "a"), sEnc("d"), C("SMEMBERS", "d"), C("SINTERSTORE", "d", "h", "h"), sEnc("d"), sResetMax}},
		// The first algorithm (first set small against the rest) adds only
		// the survivors; the second adds the whole first set, converting it
		// past the limit, then removes.
		{Name: "sdiff algorithms leave different encodings", Cmds: []Cmd{C("CONFIG", "SET", "set-max-intset-entries", "4"),
			C("SADD", "a", "1", "2", "3", "4", "5", "6"), C("SADD", "b", "3", "4", "5", "6"), C("SDIFFSTORE", "d", "a", "b"), sEnc("d"), C("SMEMBERS", "d"),
			C("SADD", "c", "1", "2", "3", "4", "5", "6", "7", "8"), C("SADD", "e", "8"), C("SADD", "f", "7", "6", "5", "4", "3"),
			C("SDIFFSTORE", "d2", "c", "e", "f"), sEnc("d2"), C("SMEMBERS", "d2"), C("SDIFF", "c", "e", "f"), sResetMax}},
		{Name: "intersection order follows the smallest set", Cmds: []Cmd{C("SADD", "a", "9", "1", "5", "3"), C("SADD", "b", "1", "3", "5", "9", "11"), C("SINTER", "b", "a"), C("SINTER", "a", "b")}},
	})
}

func TestSetScan(t *testing.T) {
	runCases(t, []Case{
		{Name: "intset whole with cursor 0", Cmds: []Cmd{sBig("k", "", 300), C("SSCAN", "k", "0"), C("SSCAN", "k", "123"), C("SSCAN", "k", "0", "COUNT", "1"),
			C("SSCAN", "k", "0", "MATCH", "1*"), C("SSCAN", "k", "0", "MATCH", "*", "COUNT", "5")}},
		{Name: "small hash table", Cmds: []Cmd{C("SADD", "k", "a", "b", "c"), C("SSCAN", "k", "0").Check("whole", sScanWhole), C("SSCAN", "k", "0", "MATCH", "a").Check("whole", sScanWhole),
			C("SSCAN", "k", "0", "MATCH", "z")}},
		{Name: "big count returns everything", Cmds: []Cmd{sBig("k", "m", 700), C("SSCAN", "k", "0", "COUNT", "1000").Check("whole", sScanWhole),
			C("SSCAN", "k", "0", "COUNT", "1000", "MATCH", "m1*").Check("whole", sScanWhole)}},
		{Name: "errors", Cmds: []Cmd{C("SADD", "k", "a"), C("SSCAN", "k", "x"), C("SADD", "i", "1"), C("SSCAN", "i", "-1"), C("SSCAN", "k", " 1"), C("SSCAN", "k", "18446744073709551616"),
			C("SSCAN", "k", "0", "COUNT"), C("SSCAN", "k", "0", "COUNT", "0"), C("SSCAN", "k", "0", "COUNT", "x"), C("SSCAN", "k", "0", "MATCH"), C("SSCAN", "k", "0", "TYPE", "set"),
			C("SSCAN", "k", "0", "FOO", "1"), C("SSCAN", "nokey", "x"), C("SSCAN", "nokey", "0", "COUNT", "0"), C("SET", "s", "x"), C("SSCAN", "s", "x"), C("SSCAN", "s", "0", "COUNT", "0")}},
	})
}

// TestSetScanIteration walks a hash-table set page by page on both servers
// while members are added and removed between calls, and checks SCAN's
// guarantee on limitkv: every member present for the whole walk is
// returned. The pages themselves cannot match Redis's.
func TestSetScanIteration(t *testing.T) {
	requireServers(t)
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.MustDo(t, "FLUSHALL")
		args := []string{"SADD", "k"}
		for i := range 1000 {
			args = append(args, "m"+strconv.Itoa(i))
		}
		c.MustDo(t, args...)
		seen := map[string]bool{}
		cursor := "0"
		for step := 0; ; step++ {
			r := c.MustDo(t, "SSCAN", "k", cursor, "COUNT", "7")
			if r.Type != '*' || len(r.Elems) != 2 {
				t.Fatalf("%s: SSCAN reply %q", c.Name, r.Raw)
			}
			for _, e := range r.Elems[1].Elems {
				seen[e.Str] = true
			}
			cursor = r.Elems[0].Str
			// Grow and shrink the table under the cursor: members
			// m0..m499 stay throughout, the others come and go.
			switch step % 6 {
			case 1:
				a := []string{"SADD", "k"}
				for i := range 2000 {
					a = append(a, "x"+strconv.Itoa(step)+"-"+strconv.Itoa(i))
				}
				c.MustDo(t, a...)
			case 4:
				a := []string{"SREM", "k"}
				for i := 500; i < 1000; i++ {
					a = append(a, "m"+strconv.Itoa(i))
				}
				for i := range 2000 {
					a = append(a, "x"+strconv.Itoa(step-3)+"-"+strconv.Itoa(i))
				}
				c.MustDo(t, a...)
			}
			if cursor == "0" {
				break
			}
			if step > 100000 {
				t.Fatalf("%s: scan does not end", c.Name)
			}
		}
		for i := range 500 {
			if !seen["m"+strconv.Itoa(i)] {
				t.Errorf("%s: m%d present throughout but never returned", c.Name, i)
			}
		}
	}
}

func TestSetTTLWatchMultiEval(t *testing.T) {
	k := []Cmd{C("SADD", "k", "a", "b")}
	runCases(t, []Case{
		{Name: "writes keep ttl", Cmds: []Cmd{C("SADD", "k", "a"), C("EXPIRE", "k", "100"), C("SADD", "k", "b"), C("SREM", "k", "a"), C("SPOP", "k", "0"), C("TTL", "k").TTLApprox(1)}},
		{Name: "expired set is missing", Cmds: []Cmd{C("SADD", "k", "1", "2"), C("PEXPIRE", "k", "30"), Sleep(60 * time.Millisecond), C("SCARD", "k"), C("SMEMBERS", "k"),
			C("SADD", "k", "3"), C("SMEMBERS", "k"), C("TTL", "k")}},
		{Name: "expired destination and source", Cmds: []Cmd{C("SADD", "s", "1"), C("SADD", "d", "2"), C("PEXPIRE", "d", "30"), C("PEXPIRE", "s", "30"), Sleep(60 * time.Millisecond),
			C("SMOVE", "s", "d", "1"), C("SADD", "s", "1"), C("SMOVE", "s", "d", "1"), C("SMEMBERS", "d"), C("TTL", "d")}},
		{Name: "multi", Cmds: []Cmd{C("MULTI"), C("SADD", "k", "1", "2"), C("SADD", "k", "x"), C("SCARD", "k"), C("SREM", "k", "1"), C("SISMEMBER", "k", "2"),
			C("SINTERSTORE", "d", "k", "k"), C("SET", "s", "x"), C("SADD", "s", "a"), C("SMOVE", "k", "e", "2"), C("EXEC"), sAll("d"), C("SMEMBERS", "e")}},
		{Name: "multi aborts on arity", Cmds: []Cmd{C("MULTI"), C("SADD", "k", "1"), C("SADD", "k"), C("EXEC"), C("EXISTS", "k")}},
		{Name: "eval", Cmds: []Cmd{
			C("EVAL", "redis.call('sadd', KEYS[1], '3', '1', '2'); return redis.call('smembers', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('smismember', KEYS[1], '1', 'x')", "1", "k"),
			C("EVAL", "return redis.call('sinterstore', KEYS[2], KEYS[1], KEYS[1])", "2", "k", "d"),
			C("EVAL", "return {redis.call('scard', KEYS[1]), redis.call('sismember', KEYS[1], '2')}", "1", "d"),
			C("EVAL", "return redis.pcall('sadd', KEYS[1])", "1", "k"),
			C("EVAL", "redis.call('set', 'str', 'x'); return redis.pcall('sadd', 'str', 'a')", "0"),
			C("EVAL", "return redis.call('srandmember', KEYS[1], 3)", "1", "k"),
			C("EVAL", "return redis.call('spop', KEYS[1], 3)", "1", "k"), C("EXISTS", "k"),
			C("EVAL", "return redis.call('sscan', KEYS[1], 0)", "1", "d"),
			C("EVAL", "return redis.call('sintercard', 1, KEYS[1], 'limit', 1)", "1", "d"),
			C("EVAL_RO", "return redis.call('smembers', KEYS[1])", "1", "d"),
			C("EVAL_RO", "return redis.pcall('sadd', KEYS[1], 'x')", "1", "d")}},
		sWatchCase("sadd existing", k, C("SADD", "k", "a")),
		sWatchCase("sadd new", k, C("SADD", "k", "c")),
		sWatchCase("sadd wrongtype", []Cmd{C("SET", "k", "x")}, C("SADD", "k", "c")),
		sWatchCase("srem absent", k, C("SREM", "k", "x")),
		sWatchCase("srem", k, C("SREM", "k", "a")),
		sWatchCase("srem deletes", k, C("SREM", "k", "a", "b")),
		sWatchCase("spop zero", k, C("SPOP", "k", "0")),
		sWatchCase("spop missing", nil, C("SPOP", "k")),
		sWatchCase("spop", k, C("SPOP", "k").Check("member", sOne([]string{"a", "b"}))),
		sWatchCase("spop count", k, C("SPOP", "k", "1").Check("shape", sShape(1, []string{"a", "b"}, true))),
		sWatchCase("spop all", k, C("SPOP", "k", "5").Unordered()),
		sWatchCase("srandmember", k, C("SRANDMEMBER", "k", "5").Unordered()),
		sWatchCase("smove absent member", k, C("SMOVE", "k", "d", "x")),
		sWatchCase("smove to existing member", append(k, C("SADD", "d", "a")), C("SMOVE", "k", "d", "a")),
		sWatchCase("smove dst only", []Cmd{C("SADD", "s", "a")}, C("SMOVE", "s", "d", "a")),
		sWatchCase("smove same key", k, C("SMOVE", "k", "k", "a")),
		sWatchCase("smove src side", k, C("SMOVE", "k", "other", "a")),
		sWatchCase("smove already there touches only src", []Cmd{C("SADD", "s", "a"), C("SADD", "d", "a")}, C("SMOVE", "s", "d", "a")),
		sWatchCase("sinterstore source only", k, C("SINTERSTORE", "x", "k")),
		sWatchCase("sinterstore empty on missing", nil, C("SINTERSTORE", "d", "nokey")),
		sWatchCase("sinterstore empty deletes", []Cmd{C("SET", "d", "x")}, C("SINTERSTORE", "d", "nokey")),
		sWatchCase("sunionstore same content", append(k, C("SADD", "d", "a", "b")), C("SUNIONSTORE", "d", "k")),
		sWatchCase("sdiffstore source only", k, C("SDIFFSTORE", "x", "k", "d")),
		sWatchCase("sdiffstore", k, C("SDIFFSTORE", "d", "k")),
		sWatchCase("sintercard", k, C("SINTERCARD", "1", "k")),
	})
}

// Sorted-set operations take plain sets as inputs, every member scoring 1.
func TestSetAsZsetSource(t *testing.T) {
	runCases(t, []Case{
		{Name: "zunion and zinter with sets", Cmds: []Cmd{C("SADD", "s", "a", "b", "c"), C("SADD", "i", "3", "1", "2"), C("ZADD", "z", "5", "a", "0.5", "x", "2", "1"),
			C("ZUNION", "2", "s", "z", "WITHSCORES"), C("ZUNION", "3", "s", "z", "i", "WEIGHTS", "2", "1", "3", "WITHSCORES"), C("ZINTER", "2", "s", "z", "WITHSCORES"),
			C("ZINTER", "2", "i", "z", "AGGREGATE", "MAX", "WITHSCORES"), C("ZDIFF", "2", "s", "z", "WITHSCORES"), C("ZDIFF", "2", "s", "s"), C("ZDIFF", "1", "i", "WITHSCORES"),
			C("ZINTERCARD", "2", "s", "z"), C("ZINTERCARD", "2", "s", "s", "LIMIT", "2"), C("ZUNIONSTORE", "d", "2", "s", "i"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			C("OBJECT", "ENCODING", "d"), C("ZINTERSTORE", "d", "1", "s", "WEIGHTS", "inf"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"), C("ZDIFFSTORE", "d", "2", "i", "s"),
			C("TYPE", "d"), C("SET", "str", "x"), C("ZUNION", "2", "s", "str"), C("ZUNION", "2", "nokey", "s")}},
		{Name: "big set source", Cmds: []Cmd{sBig("s", "m", 300), C("ZUNIONSTORE", "d", "1", "s"), C("OBJECT", "ENCODING", "d"), C("ZCARD", "d"),
			C("ZRANGE", "d", "0", "5", "WITHSCORES"), C("ZINTERCARD", "1", "s")}},
		{Name: "zrangestore and zrange refuse sets", Cmds: []Cmd{C("SADD", "s", "a"), C("ZRANGE", "s", "0", "-1"), C("ZRANGESTORE", "d", "s", "0", "-1"), C("ZCARD", "s"), C("ZMPOP", "1", "s", "MIN")}},
	})
}
