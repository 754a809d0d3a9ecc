package conformance

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TTL checks for the string family: TTL may differ by one second across the
// two servers (rounding at a second boundary), PTTL by the few milliseconds
// between the two servers' reads.
func strTTL(key string) Cmd  { return C("TTL", key).TTLApprox(1) }
func strPTTL(key string) Cmd { return C("PTTL", key).TTLApprox(250) }

func TestStringsGetSet(t *testing.T) {
	runCases(t, []Case{
		{Name: "get missing", Cmds: []Cmd{C("GET", "k")}},
		{Name: "set get", Cmds: []Cmd{C("SET", "k", "v"), C("GET", "k"), C("set", "k", "w"), C("get", "k")}},
		{Name: "binary", Cmds: []Cmd{C("SET", "k\x00\xff", "a\x00\r\nb\xfe"), C("GET", "k\x00\xff"), C("STRLEN", "k\x00\xff")}},
		{Name: "empty value and key", Cmds: []Cmd{C("SET", "k", ""), C("GET", "k"), C("SET", "", "x"), C("GET", "")}},
		{Name: "integer looking values", Cmds: []Cmd{
			C("SET", "a", "123"), C("GET", "a"), C("SET", "b", "0123"), C("GET", "b"), C("SET", "c", "-0"), C("GET", "c"),
			C("SET", "d", "9223372036854775808"), C("GET", "d"), C("SET", "e", "1.50"), C("GET", "e")}},
		{Name: "large value", Cmds: []Cmd{C("SET", "k", strings.Repeat("abc", 40000)), C("GET", "k"), C("STRLEN", "k")}},
		{Name: "overwrite clears ttl", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), strTTL("k"), C("SET", "k", "w"), C("TTL", "k")}},
		{Name: "arity", Cmds: []Cmd{C("GET"), C("GET", "a", "b"), C("SET", "k"), C("SET")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("GET", "z")}},
		{Name: "set replaces zset", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("SET", "z", "v"), C("TYPE", "z"), C("GET", "z"), C("ZADD", "z", "1", "a")}},
		{Name: "set keepttl replaces zset keeping ttl", Cmds: []Cmd{
			C("ZADD", "z", "1", "a"), C("EXPIRE", "z", "100"), C("SET", "z", "v", "KEEPTTL"), C("TYPE", "z"), strTTL("z")}},
		{Name: "expired key", Cmds: []Cmd{C("SET", "k", "v", "PX", "30"), C("GET", "k"), Sleep(60 * time.Millisecond),
			C("GET", "k"), C("EXISTS", "k"), C("SET", "k", "w", "NX"), C("GET", "k"), C("TTL", "k")}},
	})
}

func TestStringsSetOptions(t *testing.T) {
	now := time.Now()
	exat := strconv.FormatInt(now.Unix()+100, 10)
	pxat := strconv.FormatInt(now.UnixMilli()+50000, 10)
	runCases(t, []Case{
		{Name: "ex", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), strTTL("k"), strPTTL("k"), C("GET", "k")}},
		{Name: "px", Cmds: []Cmd{C("SET", "k", "v", "PX", "100000"), strTTL("k"), strPTTL("k")}},
		{Name: "exat", Cmds: []Cmd{C("SET", "k", "v", "EXAT", exat), strTTL("k"), strPTTL("k")}},
		{Name: "pxat", Cmds: []Cmd{C("SET", "k", "v", "PXAT", pxat), strTTL("k"), strPTTL("k")}},
		{Name: "lower and mixed case", Cmds: []Cmd{C("set", "k", "v", "ex", "10"), strTTL("k"), C("set", "k", "v", "pX", "5000"), strPTTL("k"),
			C("set", "k", "v", "ExAt", exat), strTTL("k"), C("set", "k", "v", "pxAT", pxat), strPTTL("k"), C("set", "k", "w", "Nx"), C("set", "k", "w", "xX")}},
		{Name: "ex 1", Cmds: []Cmd{C("SET", "k", "v", "EX", "1"), strTTL("k"), strPTTL("k")}},
		{Name: "px 1 expires", Cmds: []Cmd{C("SET", "k", "v", "PX", "1"), Sleep(10 * time.Millisecond), C("GET", "k")}},
		{Name: "exat in the past", Cmds: []Cmd{C("SET", "k", "v", "EXAT", "1"), C("GET", "k"), C("EXISTS", "k"), C("TTL", "k")}},
		{Name: "pxat in the past", Cmds: []Cmd{C("SET", "k", "v"), C("SET", "k", "w", "PXAT", "1"), C("GET", "k"), C("PTTL", "k")}},
		{Name: "pxat max", Cmds: []Cmd{C("SET", "k", "v", "PXAT", "9223372036854775807"), strPTTL("k"), C("GET", "k")}},
		{Name: "exat max", Cmds: []Cmd{C("SET", "k", "v", "EXAT", "9223372036854775"), strPTTL("k")}},
		{Name: "keepttl", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), C("SET", "k", "w", "KEEPTTL"), strTTL("k"), C("GET", "k"),
			C("SET", "k", "x", "keepttl", "XX"), strTTL("k"), C("SET", "n", "v", "KEEPTTL"), C("TTL", "n")}},
		{Name: "nx", Cmds: []Cmd{C("SET", "k", "v", "NX"), C("SET", "k", "w", "NX"), C("GET", "k"), C("SET", "k", "w", "NX", "EX", "10"), C("TTL", "k")}},
		{Name: "xx", Cmds: []Cmd{C("SET", "k", "v", "XX"), C("EXISTS", "k"), C("SET", "k", "v"), C("SET", "k", "w", "XX", "PX", "100000"),
			C("GET", "k"), strPTTL("k")}},
		{Name: "nx xx on zset", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("SET", "z", "v", "NX"), C("TYPE", "z"), C("SET", "z", "v", "XX"), C("TYPE", "z")}},
		{Name: "repeated options", Cmds: []Cmd{C("SET", "k", "v", "NX", "NX"), C("SET", "k", "v", "XX", "XX"), C("SET", "k", "v", "KEEPTTL", "KEEPTTL"),
			C("SET", "k", "v", "GET", "GET"), C("SET", "k", "v", "EX", "10", "EX", "20"), strTTL("k"),
			C("SET", "k", "v", "PX", "abc", "PX", "30000"), strTTL("k"), C("SET", "k", "v", "EX", "0", "EX", "40"), strTTL("k")}},
		{Name: "conflicts", Cmds: []Cmd{
			C("SET", "k", "v", "NX", "XX"), C("SET", "k", "v", "XX", "NX"),
			C("SET", "k", "v", "EX", "10", "PX", "10"), C("SET", "k", "v", "PX", "10", "EX", "10"),
			C("SET", "k", "v", "EX", "10", "EXAT", "10"), C("SET", "k", "v", "EXAT", "10", "PXAT", "10"),
			C("SET", "k", "v", "PXAT", "10", "PX", "10"), C("SET", "k", "v", "EX", "10", "KEEPTTL"),
			C("SET", "k", "v", "KEEPTTL", "EX", "10"), C("SET", "k", "v", "KEEPTTL", "PXAT", "10"),
			C("SET", "k", "v", "GET", "EX", "10", "KEEPTTL"), C("EXISTS", "k")}},
		{Name: "syntax errors", Cmds: []Cmd{
			C("SET", "k", "v", "EX"), C("SET", "k", "v", "PX"), C("SET", "k", "v", "EXAT"), C("SET", "k", "v", "PXAT"),
			C("SET", "k", "v", "NX", "EX"), C("SET", "k", "v", "foo"), C("SET", "k", "v", ""), C("SET", "k", "v", "PERSIST"),
			C("SET", "k", "v", "NXX"), C("SET", "k", "v", "N"), C("SET", "k", "v", "EX", "10", "foo"), C("SET", "k", "v", "GETT"),
			C("SET", "k", "v", "10"), C("EXISTS", "k")}},
		{Name: "syntax error before bad number", Cmds: []Cmd{C("SET", "k", "v", "EX", "abc", "foo"), C("SET", "k", "v", "EX", "0", "NX", "XX")}},
		{Name: "options are C strings", Cmds: []Cmd{
			C("SET", "k", "v", "nx\x00junk"), C("SET", "k", "w", "NX\x00"), C("GET", "k"), C("SET", "k", "v", "ex\x00", "100"), strTTL("k"),
			C("SET", "k", "v", "KEEPTTL\x00x"), strTTL("k"), C("SET", "k", "v", "\x00nx"), C("SET", "k", "v", "n\x00x")}},
		{Name: "invalid expire", Cmds: []Cmd{
			C("SET", "k", "v", "EX", "0"), C("SET", "k", "v", "EX", "-1"), C("SET", "k", "v", "PX", "0"), C("SET", "k", "v", "PX", "-100"),
			C("SET", "k", "v", "EXAT", "0"), C("SET", "k", "v", "PXAT", "-1"), C("SET", "k", "v", "EX", "-9223372036854775808"),
			C("EXISTS", "k")}},
		{Name: "expire overflow", Cmds: []Cmd{
			C("SET", "k", "v", "EX", "9223372036854775807"), C("SET", "k", "v", "EX", "9223372036854776"),
			C("SET", "k", "v", "EX", "9223372036854775"), C("SET", "k", "v", "EX", "9223372036854774"),
			C("SET", "k", "v", "PX", "9223372036854775807"), C("SET", "k", "v", "PX", "9223370000000000000"),
			C("SET", "k", "v", "EXAT", "9223372036854776"), C("SET", "k", "v", "EXAT", "9223372036854775807"),
			C("EXISTS", "k")}},
		{Name: "expire not integer", Cmds: []Cmd{
			C("SET", "k", "v", "EX", "abc"), C("SET", "k", "v", "EX", "1.5"), C("SET", "k", "v", "EX", " 1"), C("SET", "k", "v", "EX", "01"),
			C("SET", "k", "v", "PX", "+5"), C("SET", "k", "v", "PX", "9223372036854775808"), C("SET", "k", "v", "EXAT", ""),
			C("SET", "k", "v", "PXAT", "1e3"), C("EXISTS", "k")}},
		{Name: "get", Cmds: []Cmd{C("SET", "k", "v", "GET"), C("GET", "k"), C("SET", "k", "w", "GET"), C("GET", "k"), C("SET", "k", "", "get"), C("GET", "k")}},
		{Name: "get wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("SET", "z", "v", "GET"), C("TYPE", "z"),
			C("SET", "z", "v", "GET", "NX"), C("SET", "z", "v", "GET", "XX"), C("SET", "z", "v", "XX", "GET", "EX", "10"), C("TYPE", "z"), C("TTL", "z")}},
		{Name: "get nx", Cmds: []Cmd{C("SET", "k", "v", "NX", "GET"), C("SET", "k", "w", "NX", "GET"), C("GET", "k")}},
		{Name: "get xx", Cmds: []Cmd{C("SET", "k", "v", "XX", "GET"), C("EXISTS", "k"), C("SET", "k", "v"), C("SET", "k", "w", "XX", "GET"), C("GET", "k")}},
		{Name: "get with expiry", Cmds: []Cmd{C("SET", "k", "v", "GET", "EX", "100"), strTTL("k"), C("SET", "k", "w", "PX", "50000", "GET"), strPTTL("k"),
			C("SET", "k", "x", "GET", "KEEPTTL"), strPTTL("k"), C("SET", "k", "y", "GET"), C("TTL", "k")}},
		{Name: "get with bad expiry", Cmds: []Cmd{C("SET", "k", "v"), C("SET", "k", "w", "GET", "EX", "0"), C("SET", "k", "w", "GET", "EX", "x"), C("GET", "k")}},
		{Name: "bad expiry before wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("SET", "z", "v", "GET", "PX", "0"), C("SET", "z", "v", "GET", "PX", "x")}},
		{Name: "get on expired key", Cmds: []Cmd{C("SET", "k", "v", "PX", "20"), Sleep(40 * time.Millisecond), C("SET", "k", "w", "GET"), C("GET", "k"), C("TTL", "k")}},
	})
}

func TestStringsSetVariants(t *testing.T) {
	runCases(t, []Case{
		{Name: "setnx", Cmds: []Cmd{C("SETNX", "k", "v"), C("SETNX", "k", "w"), C("GET", "k"), C("ZADD", "z", "1", "a"), C("SETNX", "z", "v"), C("TYPE", "z")}},
		{Name: "setnx arity", Cmds: []Cmd{C("SETNX", "k"), C("SETNX", "k", "v", "NX")}},
		{Name: "setex", Cmds: []Cmd{C("SETEX", "k", "100", "v"), C("GET", "k"), strTTL("k"), strPTTL("k"), C("SETEX", "k", "200", "w"), strTTL("k")}},
		{Name: "setex replaces zset", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("SETEX", "z", "100", "v"), C("TYPE", "z"), strTTL("z")}},
		{Name: "setex errors", Cmds: []Cmd{C("SETEX", "k", "0", "v"), C("SETEX", "k", "-1", "v"), C("SETEX", "k", "abc", "v"), C("SETEX", "k", "1.5", "v"),
			C("SETEX", "k", "9223372036854775807", "v"), C("SETEX", "k", "9223372036854775", "v"), C("EXISTS", "k")}},
		{Name: "setex arity", Cmds: []Cmd{C("SETEX", "k", "10"), C("SETEX", "k", "10", "v", "x")}},
		{Name: "psetex", Cmds: []Cmd{C("PSETEX", "k", "100000", "v"), C("GET", "k"), strTTL("k"), strPTTL("k")}},
		{Name: "psetex errors", Cmds: []Cmd{C("PSETEX", "k", "0", "v"), C("PSETEX", "k", "-5", "v"), C("PSETEX", "k", "x", "v"),
			C("PSETEX", "k", "9223372036854775807", "v"), C("EXISTS", "k")}},
		{Name: "psetex expires", Cmds: []Cmd{C("PSETEX", "k", "20", "v"), Sleep(40 * time.Millisecond), C("GET", "k")}},
		{Name: "psetex arity", Cmds: []Cmd{C("PSETEX", "k", "10"), C("PSETEX")}},
		{Name: "getset", Cmds: []Cmd{C("GETSET", "k", "v"), C("GETSET", "k", "w"), C("GET", "k")}},
		{Name: "getset clears ttl", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), C("GETSET", "k", "w"), C("TTL", "k")}},
		{Name: "getset wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("GETSET", "z", "v"), C("TYPE", "z")}},
		{Name: "getset arity", Cmds: []Cmd{C("GETSET", "k"), C("GETSET", "k", "v", "w")}},
		{Name: "getdel", Cmds: []Cmd{C("GETDEL", "k"), C("SET", "k", "v"), C("GETDEL", "k"), C("EXISTS", "k"), C("GETDEL", "k")}},
		{Name: "getdel wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("GETDEL", "z"), C("TYPE", "z")}},
		{Name: "getdel arity", Cmds: []Cmd{C("GETDEL"), C("GETDEL", "a", "b")}},
		{Name: "getdel binary", Cmds: []Cmd{C("SET", "k", "\x00\r\n"), C("GETDEL", "k")}},
	})
}

func TestStringsGetEx(t *testing.T) {
	now := time.Now()
	exat := strconv.FormatInt(now.Unix()+300, 10)
	pxat := strconv.FormatInt(now.UnixMilli()+250000, 10)
	runCases(t, []Case{
		{Name: "plain", Cmds: []Cmd{C("GETEX", "k"), C("SET", "k", "v", "EX", "100"), C("GETEX", "k"), strTTL("k")}},
		{Name: "ex", Cmds: []Cmd{C("SET", "k", "v"), C("GETEX", "k", "EX", "100"), strTTL("k"), strPTTL("k")}},
		{Name: "px", Cmds: []Cmd{C("SET", "k", "v"), C("GETEX", "k", "px", "100000"), strTTL("k"), strPTTL("k")}},
		{Name: "exat", Cmds: []Cmd{C("SET", "k", "v"), C("GETEX", "k", "EXAT", exat), strTTL("k"), strPTTL("k")}},
		{Name: "pxat", Cmds: []Cmd{C("SET", "k", "v"), C("GETEX", "k", "PxAt", pxat), strTTL("k"), strPTTL("k")}},
		{Name: "persist", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), C("GETEX", "k", "PERSIST"), C("TTL", "k"), C("GETEX", "k", "persist"), C("TTL", "k")}},
		{Name: "exat in the past deletes", Cmds: []Cmd{C("SET", "k", "v"), C("GETEX", "k", "EXAT", "1"), C("EXISTS", "k"), C("GETEX", "k")}},
		{Name: "pxat in the past deletes", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), C("GETEX", "k", "PXAT", "1000"), C("EXISTS", "k")}},
		{Name: "pxat max", Cmds: []Cmd{C("SET", "k", "v"), C("GETEX", "k", "PXAT", "9223372036854775807"), strPTTL("k")}},
		{Name: "missing key", Cmds: []Cmd{C("GETEX", "k", "EX", "10"), C("GETEX", "k", "PERSIST"), C("GETEX", "k", "EX", "abc"), C("GETEX", "k", "PX", "0"),
			C("GETEX", "k", "EXAT", "1"), C("EXISTS", "k")}},
		{Name: "expired key", Cmds: []Cmd{C("SET", "k", "v", "PX", "20"), Sleep(40 * time.Millisecond), C("GETEX", "k", "PERSIST"), C("EXISTS", "k")}},
		{Name: "syntax", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"),
			C("GETEX", "k", "PERSIST", "EX", "10"), C("GETEX", "k", "EX", "10", "PERSIST"), C("GETEX", "k", "EX", "10", "PX", "10"),
			C("GETEX", "k", "PXAT", "10", "EXAT", "10"), C("GETEX", "k", "EX"), C("GETEX", "k", "PXAT"), C("GETEX", "k", "KEEPTTL"),
			C("GETEX", "k", "NX"), C("GETEX", "k", "XX"), C("GETEX", "k", "GET"), C("GETEX", "k", "foo"), C("GETEX", "k", ""),
			C("GETEX", "k", "persist\x00x"), strTTL("k")}},
		{Name: "syntax on missing and wrong type", Cmds: []Cmd{C("GETEX", "nokey", "foo"), C("ZADD", "z", "1", "a"), C("GETEX", "z", "foo")}},
		{Name: "repeated", Cmds: []Cmd{C("SET", "k", "v"), C("GETEX", "k", "EX", "10", "EX", "20"), strTTL("k"),
			C("GETEX", "k", "PERSIST", "PERSIST"), C("TTL", "k"), C("GETEX", "k", "EX", "x", "EX", "30"), strTTL("k")}},
		{Name: "invalid expire", Cmds: []Cmd{C("SET", "k", "v"),
			C("GETEX", "k", "EX", "0"), C("GETEX", "k", "EX", "-1"), C("GETEX", "k", "PX", "0"), C("GETEX", "k", "EXAT", "0"), C("GETEX", "k", "PXAT", "-1"),
			C("GETEX", "k", "EX", "9223372036854775"), C("GETEX", "k", "PX", "9223372036854775807"), C("GETEX", "k", "EXAT", "9223372036854776"),
			C("GETEX", "k", "EX", "abc"), C("GETEX", "k", "PX", "1.5"), C("TTL", "k"), C("GET", "k")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("GETEX", "z"), C("GETEX", "z", "EX", "abc"), C("GETEX", "z", "EX", "0"), C("GETEX", "z", "PERSIST")}},
		{Name: "arity", Cmds: []Cmd{C("GETEX")}},
	})
}

func TestStringsMulti(t *testing.T) {
	runCases(t, []Case{
		{Name: "mget", Cmds: []Cmd{C("SET", "a", "1"), C("SET", "c", ""), C("ZADD", "z", "1", "a"), C("MGET", "a", "b", "c", "z", "a")}},
		{Name: "mget single", Cmds: []Cmd{C("MGET", "nokey"), C("SET", "k", "v"), C("MGET", "k")}},
		{Name: "mget expired", Cmds: []Cmd{C("SET", "a", "1", "PX", "20"), C("SET", "b", "2"), Sleep(40 * time.Millisecond), C("MGET", "a", "b")}},
		{Name: "mget arity", Cmds: []Cmd{C("MGET")}},
		{Name: "mset", Cmds: []Cmd{C("MSET", "a", "1", "b", "2"), C("MGET", "a", "b"), C("MSET", "a", "3", "a", "4"), C("GET", "a")}},
		{Name: "mset clears ttl and replaces zset", Cmds: []Cmd{C("SET", "a", "1", "EX", "100"), C("ZADD", "z", "1", "a"),
			C("MSET", "a", "x", "z", "y"), C("TTL", "a"), C("TYPE", "z"), C("MGET", "a", "z")}},
		{Name: "mset arity", Cmds: []Cmd{C("MSET"), C("MSET", "a"), C("MSET", "a", "1", "b"), C("EXISTS", "a")}},
		{Name: "msetnx", Cmds: []Cmd{C("MSETNX", "a", "1", "b", "2"), C("MSETNX", "b", "3", "c", "4"), C("MGET", "a", "b", "c")}},
		{Name: "msetnx same key twice", Cmds: []Cmd{C("MSETNX", "d", "1", "d", "2"), C("GET", "d")}},
		{Name: "msetnx zset blocks", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("MSETNX", "z", "1", "y", "2"), C("TYPE", "z"), C("EXISTS", "y")}},
		{Name: "msetnx expired key", Cmds: []Cmd{C("SET", "a", "1", "PX", "20"), Sleep(40 * time.Millisecond), C("MSETNX", "a", "2"), C("GET", "a")}},
		{Name: "msetnx arity", Cmds: []Cmd{C("MSETNX"), C("MSETNX", "a"), C("MSETNX", "a", "1", "b"), C("EXISTS", "a")}},
	})
}

func TestStringsIncrDecr(t *testing.T) {
	var notInts []Cmd
	for _, v := range []string{" 1", "1 ", "01", "+1", "-0", "1.0", "", "abc", "9223372036854775808", "-9223372036854775809",
		"1e3", "0x10", "\x001", "1\x00", "00", "-", "- 1", "123456789012345678901"} {
		notInts = append(notInts, C("SET", "a", v), C("INCR", "a"), C("DECR", "a"), C("INCRBY", "a", "1"), C("DECRBY", "a", "1"), C("GET", "a"))
	}
	runCases(t, []Case{
		{Name: "incr", Cmds: []Cmd{C("INCR", "n"), C("INCR", "n"), C("GET", "n"), C("incr", "n")}},
		{Name: "decr", Cmds: []Cmd{C("DECR", "n"), C("DECR", "n"), C("GET", "n")}},
		{Name: "incrby decrby", Cmds: []Cmd{C("INCRBY", "n", "10"), C("DECRBY", "n", "15"), C("INCRBY", "n", "-3"), C("DECRBY", "n", "-100"),
			C("INCRBY", "n", "0"), C("GET", "n")}},
		{Name: "values", Cmds: []Cmd{C("SET", "n", "-1"), C("INCR", "n"), C("INCR", "n"), C("SET", "n", "0"), C("DECR", "n"),
			C("SET", "n", "9999"), C("INCR", "n"), C("GET", "n"), C("SET", "n", "-10000"), C("INCR", "n"), C("GET", "n")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("SET", "n", "5", "EX", "100"), C("INCR", "n"), strTTL("n"), C("DECRBY", "n", "3"), strTTL("n")}},
		{Name: "not integer", Cmds: notInts},
		{Name: "bad increment", Cmds: []Cmd{C("INCRBY", "n", "abc"), C("INCRBY", "n", "1.5"), C("INCRBY", "n", " 1"), C("INCRBY", "n", ""),
			C("DECRBY", "n", "9223372036854775808"), C("INCRBY", "n", "+1"), C("EXISTS", "n")}},
		{Name: "overflow", Cmds: []Cmd{
			C("SET", "n", "9223372036854775807"), C("INCR", "n"), C("INCRBY", "n", "1"), C("DECRBY", "n", "-1"), C("DECR", "n"),
			C("SET", "n", "-9223372036854775808"), C("DECR", "n"), C("DECRBY", "n", "1"), C("INCRBY", "n", "-1"),
			C("INCRBY", "n", "9223372036854775807"), C("GET", "n")}},
		{Name: "overflow on missing key", Cmds: []Cmd{C("DECRBY", "m", "9223372036854775807"), C("DECRBY", "m", "2"), C("GET", "m")}},
		{Name: "decrby llong min", Cmds: []Cmd{C("DECRBY", "n", "-9223372036854775808"), C("EXISTS", "n"),
			C("INCRBY", "n", "-9223372036854775808"), C("GET", "n"), C("DECRBY", "n", "-9223372036854775808")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("INCR", "z"), C("DECR", "z"), C("INCRBY", "z", "1"), C("DECRBY", "z", "1"),
			C("INCRBY", "z", "x"), C("DECRBY", "z", "-9223372036854775808")}},
		{Name: "arity", Cmds: []Cmd{C("INCR"), C("INCR", "a", "b"), C("DECR"), C("INCRBY", "a"), C("DECRBY", "a", "1", "2")}},
		{Name: "expired key restarts", Cmds: []Cmd{C("SET", "n", "10", "PX", "20"), Sleep(40 * time.Millisecond), C("INCR", "n"), C("TTL", "n")}},
	})
}

func TestStringsIncrByFloat(t *testing.T) {
	long5119 := "0." + strings.Repeat("0", 5116) + "1"
	long5120 := "0." + strings.Repeat("0", 5117) + "1"
	runCases(t, []Case{
		{Name: "basic", Cmds: []Cmd{C("INCRBYFLOAT", "f", "1.5"), C("INCRBYFLOAT", "f", "1e3"), C("INCRBYFLOAT", "f", "-1501.5"),
			C("INCRBYFLOAT", "f", "0x10"), C("INCRBYFLOAT", "f", "1.1"), C("GET", "f")}},
		{Name: "precision", Cmds: []Cmd{C("INCRBYFLOAT", "f", "0.1"), C("INCRBYFLOAT", "f", "0.2"), C("INCRBYFLOAT", "f", "-0.3"),
			C("SET", "g", "10.5"), C("INCRBYFLOAT", "g", "0.1"), C("SET", "h", "3.0e3"), C("INCRBYFLOAT", "h", "2.0e2"),
			C("SET", "i", "1"), C("INCRBYFLOAT", "i", "0.0000000000000000001"), C("INCRBYFLOAT", "i", "1e-20")}},
		{Name: "formats", Cmds: []Cmd{C("INCRBYFLOAT", "a", "10.50"), C("INCRBYFLOAT", "b", "5.0e3"), C("INCRBYFLOAT", "c", "-0"),
			C("INCRBYFLOAT", "d", "-0.0"), C("INCRBYFLOAT", "e", "1e-30"), C("INCRBYFLOAT", "e2", "-1e-30"), C("INCRBYFLOAT", "f", "123456789012345678901234567890"),
			C("INCRBYFLOAT", "g", "0x1.8p1"), C("INCRBYFLOAT", "h", ".5"), C("INCRBYFLOAT", "i", "5."), C("INCRBYFLOAT", "j", "1E2"),
			C("INCRBYFLOAT", "k", "3"), C("MGET", "a", "c", "d", "f", "k")}},
		{Name: "huge", Cmds: []Cmd{C("SET", "f", "1e308"), C("INCRBYFLOAT", "f", "1e308"), C("GET", "f"),
			C("INCRBYFLOAT", "g", "1e4000"), C("STRLEN", "g"), C("INCRBYFLOAT", "g", "1e4000"),
			C("INCRBYFLOAT", "h", "1.18e4932"), C("INCRBYFLOAT", "h", "1e4932"), C("GET", "h")}},
		{Name: "tiny", Cmds: []Cmd{C("INCRBYFLOAT", "f", "1e-4940"), C("INCRBYFLOAT", "g", "1e-5000"), C("INCRBYFLOAT", "h", "0x1p-16445"), C("EXISTS", "g")}},
		{Name: "integer and stored float values", Cmds: []Cmd{C("SET", "f", "1"), C("INCRBYFLOAT", "f", "1"), C("INCR", "f"),
			C("INCRBYFLOAT", "f", "0.5"), C("INCR", "f"), C("GET", "f"), C("SET", "g", "1.5e2"), C("INCRBYFLOAT", "g", "0")}},
		{Name: "bad values", Cmds: []Cmd{
			C("SET", "f", "abc"), C("INCRBYFLOAT", "f", "1"), C("SET", "f", " 1.5"), C("INCRBYFLOAT", "f", "1"),
			C("SET", "f", "1.5 "), C("INCRBYFLOAT", "f", "1"), C("SET", "f", ""), C("INCRBYFLOAT", "f", "1"),
			C("SET", "f", "nan"), C("INCRBYFLOAT", "f", "1"), C("SET", "f", "1\x00"), C("INCRBYFLOAT", "f", "1"), C("GET", "f")}},
		{Name: "bad increments", Cmds: []Cmd{
			C("INCRBYFLOAT", "g", "abc"), C("INCRBYFLOAT", "g", " 1"), C("INCRBYFLOAT", "g", "1 "), C("INCRBYFLOAT", "g", "nan"),
			C("INCRBYFLOAT", "g", ""), C("INCRBYFLOAT", "g", "1e"), C("INCRBYFLOAT", "g", "0x"), C("INCRBYFLOAT", "g", "1_0"),
			C("INCRBYFLOAT", "g", "1e5000"), C("INCRBYFLOAT", "g", "--1"), C("EXISTS", "g")}},
		{Name: "long increments", Cmds: []Cmd{C("INCRBYFLOAT", "g", long5120), C("INCRBYFLOAT", "g", long5119), C("GET", "g")}},
		{Name: "infinity", Cmds: []Cmd{C("INCRBYFLOAT", "f", "inf"), C("INCRBYFLOAT", "f", "-Infinity"), C("EXISTS", "f"),
			C("SET", "f", "inf"), C("INCRBYFLOAT", "f", "0"), C("INCRBYFLOAT", "f", "-inf"), C("SET", "f", "1.1e4932"), C("INCRBYFLOAT", "f", "1.1e4932"), C("GET", "f")}},
		{Name: "wrong type before bad increment", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("INCRBYFLOAT", "z", "abc"), C("INCRBYFLOAT", "z", "1")}},
		{Name: "bad value before bad increment", Cmds: []Cmd{C("SET", "f", "x"), C("INCRBYFLOAT", "f", "y")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("SET", "f", "1", "EX", "100"), C("INCRBYFLOAT", "f", "0.25"), strTTL("f")}},
		{Name: "arity", Cmds: []Cmd{C("INCRBYFLOAT", "f"), C("INCRBYFLOAT", "f", "1", "2")}},
	})
}

func TestStringsAppendStrlen(t *testing.T) {
	runCases(t, []Case{
		{Name: "append", Cmds: []Cmd{C("APPEND", "k", "abc"), C("APPEND", "k", "def"), C("APPEND", "k", ""), C("GET", "k"), C("STRLEN", "k")}},
		{Name: "append empty creates", Cmds: []Cmd{C("APPEND", "k", ""), C("EXISTS", "k"), C("GET", "k"), C("STRLEN", "k")}},
		{Name: "append binary", Cmds: []Cmd{C("APPEND", "k", "\x00"), C("APPEND", "k", "\r\n\xff"), C("GET", "k")}},
		{Name: "append to integer", Cmds: []Cmd{C("SET", "k", "12"), C("APPEND", "k", "34"), C("INCR", "k"), C("INCR", "n"), C("APPEND", "n", "0"), C("GET", "n")}},
		{Name: "append keeps ttl", Cmds: []Cmd{C("SET", "k", "a", "EX", "100"), C("APPEND", "k", "b"), strTTL("k")}},
		{Name: "append wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("APPEND", "z", "x"), C("APPEND", "z", "")}},
		{Name: "append arity", Cmds: []Cmd{C("APPEND", "k"), C("APPEND", "k", "a", "b")}},
		{Name: "strlen", Cmds: []Cmd{C("STRLEN", "k"), C("SET", "k", "a\x00b"), C("STRLEN", "k"), C("SET", "k", ""), C("STRLEN", "k"),
			C("SET", "k", "12345"), C("STRLEN", "k"), C("INCRBY", "k", "-100000"), C("STRLEN", "k")}},
		{Name: "strlen wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("STRLEN", "z")}},
		{Name: "strlen arity", Cmds: []Cmd{C("STRLEN"), C("STRLEN", "a", "b")}},
	})
}

func TestStringsGetRange(t *testing.T) {
	cmds := []Cmd{C("SET", "s", "Hello World")}
	for _, r := range [][2]string{
		{"0", "4"}, {"-5", "-1"}, {"-1", "-5"}, {"5", "2"}, {"0", "-100"}, {"-100", "-100"}, {"-100", "100"}, {"100", "200"},
		{"0", "9223372036854775807"}, {"-9223372036854775808", "-1"}, {"-9223372036854775808", "9223372036854775807"},
		{"10", "10"}, {"11", "11"}, {"0", "0"}, {"-1", "-1"}, {"-11", "-11"}, {"-12", "0"}, {"3", "-3"}, {"-3", "3"},
	} {
		cmds = append(cmds, C("GETRANGE", "s", r[0], r[1]))
	}
	runCases(t, []Case{
		{Name: "ranges", Cmds: cmds},
		{Name: "empty value", Cmds: []Cmd{C("SET", "e", ""), C("GETRANGE", "e", "0", "-1"), C("GETRANGE", "e", "0", "0"), C("GETRANGE", "e", "-1", "0"),
			C("GETRANGE", "e", "-1", "-1")}},
		{Name: "missing key", Cmds: []Cmd{C("GETRANGE", "k", "0", "-1"), C("GETRANGE", "k", "5", "1")}},
		{Name: "integer value", Cmds: []Cmd{C("SET", "n", "12345"), C("GETRANGE", "n", "1", "-2"), C("INCR", "n"), C("GETRANGE", "n", "-1", "-1")}},
		{Name: "binary", Cmds: []Cmd{C("SET", "b", "\x00\x01\x02\r\n"), C("GETRANGE", "b", "1", "3")}},
		{Name: "bad numbers", Cmds: []Cmd{C("GETRANGE", "k", "a", "1"), C("GETRANGE", "k", "0", "b"), C("SET", "s", "abc"), C("GETRANGE", "s", "0", "1.5"),
			C("GETRANGE", "s", "9223372036854775808", "1"), C("GETRANGE", "s", " 0", "1")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("GETRANGE", "z", "0", "1"), C("GETRANGE", "z", "x", "1")}},
		{Name: "arity", Cmds: []Cmd{C("GETRANGE", "k", "0"), C("GETRANGE", "k", "0", "1", "2")}},
	})
}

func TestStringsSetRange(t *testing.T) {
	runCases(t, []Case{
		{Name: "overwrite", Cmds: []Cmd{C("SET", "k", "Hello World"), C("SETRANGE", "k", "6", "Redis"), C("GET", "k"),
			C("SETRANGE", "k", "10", "XYZ"), C("GET", "k"), C("SETRANGE", "k", "0", "h"), C("GET", "k")}},
		{Name: "zero padding", Cmds: []Cmd{C("SETRANGE", "k", "3", "x"), C("GET", "k"), C("SETRANGE", "k", "6", "yz"), C("GET", "k"),
			C("SETRANGE", "k", "20", "!"), C("GET", "k")}},
		{Name: "empty value", Cmds: []Cmd{C("SETRANGE", "k", "5", ""), C("EXISTS", "k"), C("SET", "k", "abc"), C("SETRANGE", "k", "100", ""),
			C("SETRANGE", "k", "0", ""), C("GET", "k")}},
		{Name: "integer value", Cmds: []Cmd{C("SET", "k", "12345"), C("SETRANGE", "k", "1", "9"), C("INCR", "k"), C("SETRANGE", "k", "5", "0"), C("GET", "k")}},
		{Name: "bad offset", Cmds: []Cmd{C("SETRANGE", "k", "-1", "x"), C("SETRANGE", "k", "-1", ""), C("SETRANGE", "k", "abc", "x"),
			C("SETRANGE", "k", "9223372036854775808", "x"), C("SETRANGE", "k", "1.5", "x"), C("SETRANGE", "k", "-9223372036854775808", "x"), C("EXISTS", "k")}},
		{Name: "too long", Cmds: []Cmd{
			C("SETRANGE", "k", "536870912", "x"), C("SETRANGE", "k", "536870911", "xy"), C("SETRANGE", "k", "9223372036854775807", "abc"),
			C("SETRANGE", "k", "9223372036854775800", "abcdefghijk"), C("SETRANGE", "k", "536870912", ""), C("EXISTS", "k"),
			C("SET", "k", "abc"), C("SETRANGE", "k", "536870912", "x"), C("SETRANGE", "k", "9223372036854775807", "x"),
			C("SETRANGE", "k", "536870912", ""), C("GET", "k")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("SETRANGE", "z", "0", "x"), C("SETRANGE", "z", "0", ""),
			C("SETRANGE", "z", "-1", "x"), C("SETRANGE", "z", "x", "x"), C("SETRANGE", "z", "536870912", "x")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("SET", "k", "abc", "EX", "100"), C("SETRANGE", "k", "1", "x"), strTTL("k")}},
		{Name: "expired key", Cmds: []Cmd{C("SET", "k", "abc", "PX", "20"), Sleep(40 * time.Millisecond), C("SETRANGE", "k", "1", "x"), C("GET", "k"), C("TTL", "k")}},
		{Name: "arity", Cmds: []Cmd{C("SETRANGE", "k", "0"), C("SETRANGE", "k", "0", "a", "b")}},
	})
}

// TestStringsEncoding checks the encoding each string command leaves behind
// (OBJECT ENCODING / REFCOUNT), which in Redis depends on the writer.
func TestStringsEncoding(t *testing.T) {
	enc := func(k string) []Cmd { return []Cmd{C("OBJECT", "ENCODING", k), C("OBJECT", "REFCOUNT", k)} }
	var cmds []Cmd
	add := func(c ...Cmd) { cmds = append(cmds, c...) }
	add(C("SET", "a", "12"))
	add(enc("a")...)
	add(C("APPEND", "a", ""))
	add(enc("a")...)
	add(C("INCR", "a"))
	add(enc("a")...)
	add(C("SETRANGE", "b", "0", "12"))
	add(enc("b")...)
	add(C("SET", "c", "5"), C("SETRANGE", "c", "0", ""))
	add(enc("c")...)
	add(C("SETRANGE", "c", "0", "6"))
	add(enc("c")...)
	add(C("INCRBYFLOAT", "d", "1"))
	add(enc("d")...)
	add(C("INCRBYFLOAT", "d", "1e50"))
	add(enc("d")...)
	add(C("APPEND", "e", "123"))
	add(enc("e")...)
	add(C("APPEND", "e2", strings.Repeat("x", 50)))
	add(enc("e2")...)
	add(C("SET", "f", "5"), C("INCRBY", "f", "20000"))
	add(enc("f")...)
	add(C("GETSET", "f", "7"))
	add(enc("f")...)
	add(C("SET", "g", strings.Repeat("y", 44)))
	add(enc("g")...)
	add(C("SET", "g", strings.Repeat("y", 45)))
	add(enc("g")...)
	add(C("MSET", "h", "-1", "i", "9223372036854775807", "j", "01"))
	add(enc("h")...)
	add(enc("i")...)
	add(enc("j")...)
	add(C("SETEX", "k", "100", "9999"), C("PSETEX", "l", "100000", "10000"), C("SETNX", "m", "x"))
	add(enc("k")...)
	add(enc("l")...)
	add(enc("m")...)
	add(C("SET", "n", "abc"), C("APPEND", "n", "d"), C("SET", "n", "abc", "KEEPTTL"))
	add(enc("n")...)
	add(C("SET", "o", "1"), C("APPEND", "o", "2"), C("GETEX", "o", "EX", "100"), C("GETDEL", "o"))
	add(enc("o")...)
	runCases(t, []Case{{Name: "encodings", Cmds: cmds}})
}

// TestStringsProtoMaxBulkLen lowers proto-max-bulk-len to its minimum (1mb)
// on both servers to reach the string size limit without 512 MB values.
func TestStringsProtoMaxBulkLen(t *testing.T) {
	requireServers(t)
	t.Cleanup(func() {
		rds, lkv := dialPair(t)
		for _, c := range []*RawConn{rds, lkv} {
			if r, err := c.Do("CONFIG", "SET", "proto-max-bulk-len", "536870912"); err != nil || string(r.Raw) != "+OK\r\n" {
				t.Errorf("restoring proto-max-bulk-len on %s: %v %v", c.Name, r, err)
			}
		}
	})
	const limit = 1 << 20
	runCases(t, []Case{
		{Name: "limit", Cmds: []Cmd{
			C("CONFIG", "SET", "proto-max-bulk-len", strconv.Itoa(limit)),
			C("SETRANGE", "k", strconv.Itoa(limit-1), "x"), C("STRLEN", "k"), C("SETRANGE", "k", strconv.Itoa(limit), "x"),
			C("SETRANGE", "k", strconv.Itoa(limit-1), "xy"), C("APPEND", "k", "x"), C("APPEND", "k", ""), C("STRLEN", "k"),
			C("SETRANGE", "n", strconv.Itoa(limit-1), "xy"), C("EXISTS", "n"),
			C("SET", "a", strings.Repeat("a", limit-2)), C("APPEND", "a", "bc"), C("APPEND", "a", "d"), C("STRLEN", "a"),
			C("DEL", "a", "k"),
			C("CONFIG", "SET", "proto-max-bulk-len", "536870912")}},
	})
}
