package commands

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/zset"
)

func kAdvance(d time.Duration) step {
	return step{fn: func(t *testing.T, tt *tester) { tt.Clock.Add(d) }}
}

// kZset stores a sorted set directly, so these tests do not depend on ZADD.
func kZset(db int, key string, members ...string) step {
	return step{fn: func(t *testing.T, tt *tester) { putZset(tt, db, key, members...) }}
}

func putZset(tt *tester, db int, key string, members ...string) *zset.Set {
	z := zset.New()
	for i, m := range members {
		z.Add(m, float64(i), tt.E.Cfg.ZsetLimits())
	}
	d := tt.E.DB(db)
	if e := d.Peek([]byte(key)); e != nil {
		d.Remove(e)
	}
	d.Add([]byte(key), z)
	return z
}

// kLen checks the number of keys in db 0, expired ones not yet reclaimed included.
func kLen(want int) step {
	return step{fn: func(t *testing.T, tt *tester) {
		t.Helper()
		if got := tt.E.DB(0).Len(); got != want {
			t.Errorf("db len: got %d, want %d", got, want)
		}
	}}
}

func simple(s string) string { return "+" + s + "\r\n" }

var (
	kZero      = integer(0)
	kOne       = integer(1)
	kSyntax    = errReply(engine.ErrSyntax)
	kNotInt    = errReply(engine.ErrNotInt)
	kSame      = errReply(engine.ErrSameObject)
	kDBIndex   = errReply(engine.ErrDBIndex)
	kNoSuchKey = errReply(engine.ErrNoSuchKey)
)

func TestKeysDelExistsType(t *testing.T) {
	runCases(t, []cmdCase{
		{"del counts each key once", []step{
			cmd(okReply, "SET", "a", "1"), cmd(okReply, "SET", "b", "2"),
			cmd(integer(2), "DEL", "a", "b", "a", "c"),
			cmd(kZero, "DEL", "a"), kLen(0),
		}},
		{"unlink", []step{
			cmd(okReply, "SET", "a", "1"), kZset(0, "z", "m"),
			cmd(integer(2), "UNLINK", "a", "z", "nope"), kLen(0),
		}},
		{"exists counts repeats", []step{
			cmd(okReply, "SET", "a", "1"),
			cmd(integer(3), "EXISTS", "a", "a", "b", "a"),
			cmd(kZero, "EXISTS", "nope"),
		}},
		{"type", []step{
			cmd(okReply, "SET", "s", ""), kZset(0, "z", "m"),
			cmd(simple("string"), "TYPE", "s"),
			cmd(simple("zset"), "TYPE", "z"),
			cmd(simple("none"), "TYPE", "nope"),
		}},
		{"arity", []step{
			cmd(errReply(engine.ErrWrongArgs("del")), "DEL"),
			cmd(errReply(engine.ErrWrongArgs("exists")), "EXISTS"),
			cmd(errReply(engine.ErrWrongArgs("type")), "TYPE"),
			cmd(errReply(engine.ErrWrongArgs("type")), "TYPE", "a", "b"),
			cmd(errReply(engine.ErrWrongArgs("keys")), "KEYS", "a", "b"),
			cmd(errReply(engine.ErrWrongArgs("randomkey")), "RANDOMKEY", "a"),
		}},
	})
}

// keysReply returns the sorted elements of a flat array of bulk strings.
func keysReply(t *testing.T, raw string) []string {
	t.Helper()
	var out []string
	rest := raw
	if !strings.HasPrefix(rest, "*") {
		t.Fatalf("not an array: %q", raw)
	}
	i := strings.Index(rest, "\r\n")
	n, _ := strconv.Atoi(rest[1:i])
	rest = rest[i+2:]
	for range n {
		j := strings.Index(rest, "\r\n")
		l, _ := strconv.Atoi(rest[1:j])
		out = append(out, rest[j+2:j+2+l])
		rest = rest[j+2+l+2:]
	}
	if rest != "" {
		t.Fatalf("trailing bytes in %q", raw)
	}
	sort.Strings(out)
	return out
}

func TestKeysKeys(t *testing.T) {
	tt := newTester(t)
	for _, k := range []string{"", "a", "ab", "abc", "b", "h*llo", "x\x00y"} {
		tt.Expect(okReply, "SET", k, "v")
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"*", []string{"", "a", "ab", "abc", "b", "h*llo", "x\x00y"}}, // "*" returns even the empty key
		{"**", []string{"a", "ab", "abc", "b", "h*llo", "x\x00y"}},
		{"a*", []string{"a", "ab", "abc"}},
		{"?", []string{"a", "b"}},
		{"[ab]", []string{"a", "b"}},
		{"[^a]", []string{"b"}},
		{"a[a-c]", []string{"ab"}},
		{"h\\*llo", []string{"h*llo"}},
		{"x?y", []string{"x\x00y"}},
		{"", []string{""}},
		{"nomatch", nil},
	}
	for _, tc := range tests {
		if got := keysReply(t, tt.Do("KEYS", tc.pattern)); !slices.Equal(got, tc.want) {
			t.Errorf("KEYS %q = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestKeysKeysSkipsExpiredWithoutDeleting(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "SET", "live", "v")
	tt.Expect(okReply, "SET", "dying", "v", "PX", "10")
	tt.Clock.Add(10 * time.Millisecond)
	if got := keysReply(t, tt.Do("KEYS", "*")); !slices.Equal(got, []string{"dying", "live"}) {
		t.Fatalf("at the deadline: %q", got)
	}
	tt.Clock.Add(time.Millisecond)
	if got := keysReply(t, tt.Do("KEYS", "*")); !slices.Equal(got, []string{"live"}) {
		t.Fatalf("after the deadline: %q", got)
	}
	if n := tt.E.DB(0).Len(); n != 2 {
		t.Fatalf("KEYS deleted the expired key (len %d); Redis leaves it", n)
	}
}

func TestKeysParseScanCursor(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"+0", 0, true}, {"-0", 0, true}, {"00", 0, true},
		{"17", 17, true}, {"-1", 1<<64 - 1, true},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false},
		{"-18446744073709551615", 1, true}, {"-18446744073709551616", 0, false},
		{" 0", 0, false}, {"\t0", 0, false}, {"0 ", 0, false}, {"0x1", 0, false}, {"1.5", 0, false},
		{"-", 0, false}, {"+", 0, false}, {"+-1", 0, false}, {"abc", 0, false},
		{"5\x00abc", 5, true}, {"\x00", 0, true},
	}
	for _, tc := range tests {
		got, ok := engine.ParseScanCursor([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseScanCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// scanReply splits a SCAN reply into its cursor and keys.
func scanReply(t *testing.T, raw string) (string, []string) {
	t.Helper()
	if !strings.HasPrefix(raw, "*2\r\n$") {
		t.Fatalf("not a SCAN reply: %q", raw)
	}
	rest := raw[4:]
	j := strings.Index(rest, "\r\n")
	l, _ := strconv.Atoi(rest[1:j])
	cursor := rest[j+2 : j+2+l]
	return cursor, keysReply(t, rest[j+2+l+2:])
}

// scanAll loops SCAN to the end and returns every key seen, with duplicates.
func scanAll(t *testing.T, tt *tester, opts ...string) []string {
	t.Helper()
	cursor := "0"
	var all []string
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatal("SCAN never finished")
		}
		var keys []string
		cursor, keys = scanReply(t, tt.Do(append([]string{"SCAN", cursor}, opts...)...))
		all = append(all, keys...)
		if cursor == "0" {
			sort.Strings(all)
			return all
		}
	}
}

func TestKeysScan(t *testing.T) {
	tt := newTester(t)
	var want []string
	for i := range 1000 {
		k := fmt.Sprint("key:", i)
		tt.Expect(okReply, "SET", k, "v")
		want = append(want, k)
	}
	putZset(tt, 0, "zs", "m")
	want = append(want, "zs")
	sort.Strings(want)
	for _, count := range []string{"1", "10", "100", "5000"} {
		got := slices.Compact(scanAll(t, tt, "COUNT", count))
		if !slices.Equal(got, want) {
			t.Fatalf("COUNT %s: scanned %d keys, want %d", count, len(got), len(want))
		}
	}
	if got := scanAll(t, tt, "MATCH", "key:99*"); !slices.Equal(got, []string{"key:99", "key:990", "key:991", "key:992", "key:993", "key:994", "key:995", "key:996", "key:997", "key:998", "key:999"}) {
		t.Fatalf("MATCH: %q", got)
	}
	if got := scanAll(t, tt, "type", "ZSET", "count", "50"); !slices.Equal(got, []string{"zs"}) {
		t.Fatalf("TYPE zset: %q", got)
	}
	if got := scanAll(t, tt, "TYPE", "hash"); len(got) != 0 {
		t.Fatalf("TYPE hash: %q", got)
	}
	// The last MATCH wins, as in Redis.
	if got := scanAll(t, tt, "MATCH", "nothing", "MATCH", "zs"); !slices.Equal(got, []string{"zs"}) {
		t.Fatalf("repeated MATCH: %q", got)
	}
	// One big COUNT returns everything in one call, cursor 0.
	if cursor, keys := scanReply(t, tt.Do("SCAN", "0", "COUNT", "100000")); cursor != "0" || len(keys) != len(want) {
		t.Fatalf("COUNT 100000: cursor %s, %d keys", cursor, len(keys))
	}
}

func TestKeysScanErrors(t *testing.T) {
	runCases(t, []cmdCase{
		{"errors", []step{
			cmd(errReply(engine.ErrInvalidCursor), "SCAN", "x"),
			cmd(errReply(engine.ErrInvalidCursor), "SCAN", "x", "COUNT", "0"), // the cursor is checked first
			cmd(errReply(engine.ErrInvalidCursor), "SCAN", " 1"),
			cmd(kSyntax, "SCAN", "0", "COUNT", "0"),
			cmd(kSyntax, "SCAN", "0", "COUNT", "-1"),
			cmd(kNotInt, "SCAN", "0", "COUNT", "x"),
			cmd(kNotInt, "SCAN", "0", "COUNT", "99999999999999999999"),
			cmd(kSyntax, "SCAN", "0", "COUNT"),
			cmd(kSyntax, "SCAN", "0", "MATCH"),
			cmd(kSyntax, "SCAN", "0", "TYPE"),
			cmd(kSyntax, "SCAN", "0", "FOO", "bar"),
			cmd(kSyntax, "SCAN", "0", "COUNT", "1", "COUNT", "0"),
			cmd(errReply(engine.ErrWrongArgs("scan")), "SCAN"),
			cmd(array(bulk("0"), emptyList), "SCAN", "0", "COUNT\x00junk", "5"), // options end at NUL, like strcasecmp
			cmd(array(bulk("0"), emptyList), "SCAN", "-1"),
			cmd(array(bulk("0"), emptyList), "SCAN", "0", "COUNT", "9223372036854775807"),
		}},
	})
}

func TestKeysScanExpired(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "SET", "live", "v")
	tt.Expect(okReply, "SET", "dying", "v", "PX", "5")
	tt.Clock.Add(5 * time.Millisecond)
	if got := scanAll(t, tt); !slices.Equal(got, []string{"dying", "live"}) {
		t.Fatalf("at the deadline: %q", got)
	}
	tt.Clock.Add(time.Millisecond)
	// Redis's TYPE filter looks the key up first, which deletes it, and then
	// finds nothing to expire: TYPE none returns the expired key.
	if got := scanAll(t, tt, "TYPE", "none"); !slices.Equal(got, []string{"dying"}) {
		t.Fatalf("TYPE none after the deadline: %q", got)
	}
	if n := tt.E.DB(0).Len(); n != 1 {
		t.Fatalf("len %d after SCAN met the expired key", n)
	}
	tt.Expect(okReply, "SET", "dying2", "v", "PX", "5")
	tt.Clock.Add(6 * time.Millisecond)
	if got := scanAll(t, tt); !slices.Equal(got, []string{"live"}) {
		t.Fatalf("after the deadline: %q", got)
	}
	if n := tt.E.DB(0).Len(); n != 1 {
		t.Fatalf("SCAN left the expired key (len %d); Redis deletes it", n)
	}
}

func TestKeysRandomKey(t *testing.T) {
	tt := newTester(t)
	tt.Expect(nilReply, "RANDOMKEY")
	for i := range 50 {
		tt.Expect(okReply, "SET", fmt.Sprint("dying", i), "v", "PX", "10")
	}
	tt.Expect(okReply, "SET", "live", "v")
	tt.Clock.Add(11 * time.Millisecond)
	for range 20 {
		tt.Expect(bulk("live"), "RANDOMKEY")
	}
	tt.Expect(integer(1), "DEL", "live")
	tt.Expect(okReply, "SET", "d", "v", "PX", "1")
	tt.Clock.Add(2 * time.Millisecond)
	tt.Expect(nilReply, "RANDOMKEY") // every key expired: each draw deletes one until none is left
	if n := tt.E.DB(0).Len(); n != 0 {
		t.Fatalf("len %d", n)
	}
}

func TestKeysRename(t *testing.T) {
	runCases(t, []cmdCase{
		{"missing source", []step{
			cmd(kNoSuchKey, "RENAME", "a", "b"),
			cmd(kNoSuchKey, "RENAMENX", "a", "b"),
			cmd(kNoSuchKey, "RENAME", "a", "a"),
		}},
		{"same key", []step{
			cmd(okReply, "SET", "a", "1"),
			cmd(okReply, "RENAME", "a", "a"),
			cmd(kZero, "RENAMENX", "a", "a"),
			cmd(bulk("1"), "GET", "a"),
		}},
		{"moves value and ttl", []step{
			cmd(okReply, "SET", "a", "1", "PX", "5000"),
			cmd(okReply, "RENAME", "a", "b"),
			cmd(kZero, "EXISTS", "a"),
			cmd(bulk("1"), "GET", "b"),
			cmd(integer(5000), "PTTL", "b"),
		}},
		{"drops destination and its ttl", []step{
			cmd(okReply, "SET", "a", "1"),
			cmd(okReply, "SET", "b", "2", "EX", "100"),
			cmd(okReply, "RENAME", "a", "b"),
			cmd(integer(-1), "TTL", "b"),
			cmd(bulk("1"), "GET", "b"),
			kLen(1),
		}},
		{"destination of another type", []step{
			cmd(okReply, "SET", "a", "1"),
			kZset(0, "z", "m"),
			cmd(okReply, "RENAME", "z", "a"),
			cmd(simple("zset"), "TYPE", "a"),
		}},
		{"renamenx", []step{
			cmd(okReply, "SET", "a", "1"),
			cmd(okReply, "SET", "b", "2"),
			cmd(kZero, "RENAMENX", "a", "b"),
			cmd(bulk("2"), "GET", "b"),
			cmd(kOne, "RENAMENX", "a", "c"),
			cmd(bulk("1"), "GET", "c"),
		}},
		{"expired source", []step{
			cmd(okReply, "SET", "a", "1", "PX", "10"),
			kAdvance(11 * time.Millisecond),
			cmd(kNoSuchKey, "RENAME", "a", "b"),
		}},
		{"expired destination counts as absent", []step{
			cmd(okReply, "SET", "a", "1"),
			cmd(okReply, "SET", "b", "1", "PX", "10"),
			kAdvance(11 * time.Millisecond),
			cmd(kOne, "RENAMENX", "a", "b"),
		}},
	})
}

func TestKeysCopy(t *testing.T) {
	runCases(t, []cmdCase{
		{"basic", []step{
			cmd(okReply, "SET", "a", "hello", "PX", "3000"),
			cmd(kOne, "COPY", "a", "b"),
			cmd(bulk("hello"), "GET", "b"),
			cmd(integer(3000), "PTTL", "b"),
			cmd(kZero, "COPY", "a", "b"),
			cmd(kOne, "COPY", "a", "b", "REPLACE"),
			cmd(kZero, "COPY", "nope", "b"),
			cmd(kZero, "COPY", "nope", "nope2", "REPLACE"),
		}},
		{"replace drops ttl of destination", []step{
			cmd(okReply, "SET", "a", "x"),
			cmd(okReply, "SET", "b", "y", "EX", "100"),
			cmd(kOne, "COPY", "a", "b", "replace", "REPLACE"),
			cmd(integer(-1), "TTL", "b"),
		}},
		{"other db", []step{
			cmd(okReply, "SET", "a", "x"),
			cmd(kOne, "COPY", "a", "a", "DB", "3"),
			cmd(kZero, "COPY", "a", "a", "DB", "3"),
			cmd(okReply, "SELECT", "3"),
			cmd(bulk("x"), "GET", "a"),
			cmd(kOne, "COPY", "a", "b", "DB", "0"),
			cmd(okReply, "SELECT", "0"),
			cmd(bulk("x"), "GET", "b"),
		}},
		{"errors", []step{
			cmd(okReply, "SET", "a", "x"),
			cmd(kSame, "COPY", "a", "a"),
			cmd(kSame, "COPY", "a", "a", "DB", "0"),
			cmd(kSame, "COPY", "nope", "nope"), // checked before the lookup
			cmd(kDBIndex, "COPY", "a", "b", "DB", "16"),
			cmd(kDBIndex, "COPY", "a", "b", "DB", "-1"),
			cmd(kNotInt, "COPY", "a", "b", "DB", "x"),
			cmd(kNotInt, "COPY", "a", "b", "DB", "99999999999999999999"),
			cmd(errReply(engine.ErrIntRange32), "COPY", "a", "b", "DB", "2147483648"),
			cmd(kSyntax, "COPY", "a", "b", "DB"),
			cmd(kSyntax, "COPY", "a", "b", "FOO"),
			cmd(kDBIndex, "COPY", "a", "b", "DB", "99", "FOO"), // options are checked in order
			cmd(kSyntax, "COPY", "a", "b", "FOO", "DB", "99"),
			cmd(errReply(engine.ErrWrongArgs("copy")), "COPY", "a"),
			kLen(1),
		}},
	})
}

func TestKeysCopyIsDeep(t *testing.T) {
	tt := newTester(t)
	orig := putZset(tt, 0, "z", "a", "b")
	tt.Expect(kOne, "COPY", "z", "z2")
	cp := tt.E.DB(0).Peek([]byte("z2")).Val.(*zset.Set)
	cp.Add("c", 9, tt.E.Cfg.ZsetLimits())
	orig.Remove("a")
	if orig.Len() != 1 || cp.Len() != 3 {
		t.Fatalf("copy shares state: orig %d members, copy %d", orig.Len(), cp.Len())
	}
	tt.Expect(okReply, "SET", "s", "abc")
	tt.Expect(kOne, "COPY", "s", "s2")
	v := tt.E.DB(0).Peek([]byte("s2")).Val.([]byte)
	v[0] = 'X'
	tt.Expect(bulk("abc"), "GET", "s")
}

func TestKeysMove(t *testing.T) {
	runCases(t, []cmdCase{
		{"basic", []step{
			cmd(okReply, "SET", "a", "x", "PX", "4000"),
			cmd(kOne, "MOVE", "a", "1"),
			cmd(kZero, "EXISTS", "a"),
			cmd(kZero, "MOVE", "a", "1"),
			cmd(okReply, "SELECT", "1"),
			cmd(bulk("x"), "GET", "a"),
			cmd(integer(4000), "PTTL", "a"),
		}},
		{"destination exists", []step{
			cmd(okReply, "SET", "a", "x"),
			cmd(okReply, "SELECT", "2"),
			cmd(okReply, "SET", "a", "y"),
			cmd(okReply, "SELECT", "0"),
			cmd(kZero, "MOVE", "a", "2"),
			cmd(bulk("x"), "GET", "a"),
		}},
		{"errors", []step{
			cmd(okReply, "SET", "a", "x"),
			cmd(kSame, "MOVE", "a", "0"),
			cmd(kSame, "MOVE", "nope", "0"),
			cmd(kDBIndex, "MOVE", "a", "16"),
			cmd(kDBIndex, "MOVE", "a", "-1"),
			cmd(kNotInt, "MOVE", "a", "x"),
			cmd(kNotInt, "MOVE", "a", ""),
			cmd(errReply(engine.ErrIntRange32), "MOVE", "a", "-2147483649"),
			cmd(errReply(engine.ErrWrongArgs("move")), "MOVE", "a"),
			cmd(kZero, "MOVE", "nope", "1"),
		}},
	})
}

func TestKeysTouchAndIdletime(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "SET", "a", "x")
	tt.Expect(okReply, "SET", "b", "x")
	tt.Clock.Add(10 * time.Second)
	tt.Expect(integer(10), "OBJECT", "IDLETIME", "a")
	// Commands Redis runs without touching: TYPE, EXISTS, TTL, OBJECT.
	tt.Do("TYPE", "a")
	tt.Do("EXISTS", "a")
	tt.Do("TTL", "a")
	tt.Do("OBJECT", "ENCODING", "a")
	tt.Expect(integer(10), "OBJECT", "IDLETIME", "a")
	tt.Expect(integer(2), "TOUCH", "a", "nope", "a")
	tt.Expect(kZero, "OBJECT", "IDLETIME", "a")
	tt.Clock.Add(3 * time.Second)
	tt.Do("GET", "a")
	tt.Expect(kZero, "OBJECT", "IDLETIME", "a")
	tt.Expect(integer(13), "OBJECT", "IDLETIME", "b")
	// RENAME moves the object with its access time.
	tt.Expect(okReply, "RENAME", "b", "c")
	tt.Expect(kZero, "OBJECT", "IDLETIME", "c") // RENAME's own lookup touched it
}

func TestKeysObjectEncoding(t *testing.T) {
	tt := newTester(t)
	tests := []struct{ val, enc string }{
		{"0", "int"}, {"-5", "int"}, {"9223372036854775807", "int"}, {"-9223372036854775808", "int"},
		{"9223372036854775808", "embstr"}, {"12345678901234567890", "embstr"}, {"007", "embstr"},
		{"-0", "embstr"}, {"+1", "embstr"}, {" 1", "embstr"}, {"", "embstr"},
		{strings.Repeat("x", 44), "embstr"}, {strings.Repeat("x", 45), "raw"},
		{strings.Repeat("1", 45), "raw"},
	}
	for _, tc := range tests {
		tt.Expect(okReply, "SET", "k", tc.val)
		tt.Expect(bulk(tc.enc), "OBJECT", "ENCODING", "k")
	}
	tt.Expect(nilReply, "OBJECT", "ENCODING", "nope")
	// Encoding hints left by writers that Redis stores differently.
	db := tt.E.DB(0)
	hints := []struct {
		val  string
		enc  keyspace.StrEncoding
		want string
	}{
		{"5", keyspace.EncRaw, "raw"},
		{"5", keyspace.EncEmbstr, "embstr"},
		{strings.Repeat("x", 45), keyspace.EncEmbstr, "raw"},
		{"5", keyspace.EncIntUnshared, "int"},
	}
	for _, h := range hints {
		e := db.Set([]byte("h"), []byte(h.val), false)
		e.Enc = h.enc
		tt.Expect(bulk(h.want), "OBJECT", "ENCODING", "h")
	}
	z := putZset(tt, 0, "z", "a")
	tt.Expect(bulk("listpack"), "OBJECT", "ENCODING", "z")
	for i := range 200 {
		z.Add(fmt.Sprint("m", i), float64(i), tt.E.Cfg.ZsetLimits())
	}
	tt.Expect(bulk("skiplist"), "OBJECT", "ENCODING", "z")
	tt.Expect(kOne, "COPY", "z", "z2")
	tt.Expect(bulk("skiplist"), "OBJECT", "ENCODING", "z2")
}

func TestKeysObjectRefcountAndFreq(t *testing.T) {
	tt := newTester(t)
	runSteps(t, tt, []step{
		cmd(okReply, "SET", "small", "100"),
		cmd(integer(2147483647), "OBJECT", "REFCOUNT", "small"),
		cmd(okReply, "SET", "big", "10000"),
		cmd(kOne, "OBJECT", "REFCOUNT", "big"),
		cmd(okReply, "SET", "neg", "-1"),
		cmd(kOne, "OBJECT", "REFCOUNT", "neg"),
		cmd(okReply, "SET", "s", "abc"),
		cmd(kOne, "OBJECT", "REFCOUNT", "s"),
		cmd(nilReply, "OBJECT", "REFCOUNT", "nope"),
		// A copy of a shared integer is a private object.
		cmd(kOne, "COPY", "small", "small2"),
		cmd(kOne, "OBJECT", "REFCOUNT", "small2"),
		cmd(bulk("int"), "OBJECT", "ENCODING", "small2"),
		cmd(errReply(engine.ErrLFUNotSelected), "OBJECT", "FREQ", "s"),
		cmd(nilReply, "OBJECT", "FREQ", "nope"), // the lookup comes first
		cmd(nilReply, "OBJECT", "IDLETIME", "nope"),
	})
	tt.Expect(okReply, "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	runSteps(t, tt, []step{
		cmd(okReply, "SET", "f", "v"),
		cmd(integer(5), "OBJECT", "FREQ", "f"),
		cmd(bulk("v"), "GET", "f"),
		cmd(integer(6), "OBJECT", "FREQ", "f"),
		kAdvance(2 * time.Minute),
		cmd(integer(4), "OBJECT", "FREQ", "f"),
		cmd(errReply(engine.ErrLFUSelected), "OBJECT", "IDLETIME", "f"),
	})
	// With a memory limit and an LRU/LFU policy Redis stops sharing integers.
	tt.E.Cfg.MaxMemory.Store(1 << 30)
	tt.Expect(kOne, "OBJECT", "REFCOUNT", "small")
}

func TestKeysObjectHelpAndArity(t *testing.T) {
	tt := newTester(t)
	got := tt.Do("OBJECT", "HELP")
	if !strings.HasPrefix(got, "*15\r\n+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n") ||
		!strings.HasSuffix(got, "+HELP\r\n+    Prints this help.\r\n") {
		t.Fatalf("OBJECT HELP = %q", got)
	}
	tt.Expect(errReply(engine.ErrWrongArgs("object")), "OBJECT")
	tt.Expect(errReply(engine.ErrWrongArgs("object|encoding")), "OBJECT", "ENCODING")
	tt.Expect(errReply(engine.ErrWrongArgs("object|help")), "OBJECT", "HELP", "x")
	tt.Expect(errReply("ERR unknown subcommand 'foo'. Try OBJECT HELP."), "OBJECT", "foo", "k")
}

// Every command of these families treats a key as alive while now <= its
// deadline and as gone once now > deadline.
func TestKeysExpiryBoundaryForEveryCommand(t *testing.T) {
	type probe struct {
		args        []string
		alive, gone string
	}
	probes := []probe{
		{[]string{"GET", "k"}, bulk("v"), nilReply},
		{[]string{"EXISTS", "k"}, kOne, kZero},
		{[]string{"TYPE", "k"}, simple("string"), simple("none")},
		{[]string{"KEYS", "k"}, array(bulk("k")), emptyList},
		{[]string{"SCAN", "0", "MATCH", "k"}, array(bulk("0"), array(bulk("k"))), array(bulk("0"), emptyList)},
		{[]string{"RANDOMKEY"}, bulk("k"), nilReply},
		{[]string{"TTL", "k"}, kZero, integer(-2)},
		{[]string{"PTTL", "k"}, kZero, integer(-2)},
		{[]string{"EXPIRETIME", "k"}, integer(1_700_000_001), integer(-2)},
		{[]string{"TOUCH", "k"}, kOne, kZero},
		{[]string{"OBJECT", "ENCODING", "k"}, bulk("embstr"), nilReply},
		{[]string{"PERSIST", "k"}, kOne, kZero},
		{[]string{"EXPIRE", "k", "100"}, kOne, kZero},
		{[]string{"RENAME", "k", "k2"}, okReply, kNoSuchKey},
		{[]string{"COPY", "k", "k2"}, kOne, kZero},
		{[]string{"MOVE", "k", "1"}, kOne, kZero},
		{[]string{"DEL", "k"}, kOne, kZero},
	}
	for _, p := range probes {
		t.Run(strings.Join(p.args, " "), func(t *testing.T) {
			for _, gone := range []bool{false, true} {
				tt := newTester(t)
				tt.Expect(okReply, "SET", "k", "v", "PX", "1000")
				tt.Clock.Add(time.Second)
				want := p.alive
				if gone {
					tt.Clock.Add(time.Millisecond)
					want = p.gone
				}
				tt.Expect(want, p.args...)
			}
		})
	}
}
