package conformance

import (
	"strconv"
	"testing"
	"time"
)

// Conformance of the expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT
// with NX/XX/GT/LT, TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST.

// Relative TTL replies are compared with tolerance: the two servers read
// their clocks a little apart, and TTL may round across a second boundary.
func expTTL(key string) Cmd   { return C("TTL", key).TTLApprox(1) }
func expPTTL(key string) Cmd  { return C("PTTL", key).TTLApprox(250) }
func expETime(key string) Cmd { return C("EXPIRETIME", key).TTLApprox(1) }
func expPTime(key string) Cmd { return C("PEXPIRETIME", key).TTLApprox(250) }

func TestExpireSet(t *testing.T) {
	pending := zsetPending(t)
	now := time.Now()
	at := strconv.FormatInt(now.Unix()+100, 10)
	pat := strconv.FormatInt(now.UnixMilli()+100_000, 10)
	runCases(t, []Case{
		{Name: "expire", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100"), expTTL("k"), expPTTL("k"), expETime("k"), expPTime("k")}},
		{Name: "pexpire", Cmds: []Cmd{C("SET", "k", "v"), C("PEXPIRE", "k", "100000"), expTTL("k"), expPTTL("k")}},
		{Name: "expireat", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIREAT", "k", at), expTTL("k"), C("EXPIRETIME", "k"), C("PEXPIRETIME", "k")}},
		{Name: "pexpireat", Cmds: []Cmd{C("SET", "k", "v"), C("PEXPIREAT", "k", pat), expPTTL("k"), C("PEXPIRETIME", "k"), C("EXPIRETIME", "k")}},
		{Name: "pexpireat rounds expiretime", Cmds: []Cmd{C("SET", "k", "v"),
			C("PEXPIREAT", "k", "99999999999499"), C("EXPIRETIME", "k"), C("PEXPIREAT", "k", "99999999999500"), C("EXPIRETIME", "k"),
			C("PEXPIREAT", "k", "99999999999999"), C("EXPIRETIME", "k"), C("PEXPIRETIME", "k")}},
		{Name: "deadline at the end of time", Cmds: []Cmd{C("SET", "k", "v"), C("PEXPIREAT", "k", "9223372036854775807"),
			C("PEXPIRETIME", "k"), C("EXPIRETIME", "k"), expPTTL("k"), expTTL("k"), C("GET", "k"),
			C("EXPIREAT", "k", "9223372036854775"), C("PEXPIRETIME", "k")}},
		{Name: "missing key", Cmds: []Cmd{C("EXPIRE", "k", "10"), C("PEXPIRE", "k", "10"), C("EXPIREAT", "k", at), C("PEXPIREAT", "k", pat),
			C("EXPIRE", "k", "-1"), C("EXISTS", "k")}},
		{Name: "replace ttl", Cmds: []Cmd{C("SET", "k", "v", "EX", "10"), C("EXPIRE", "k", "1000"), expTTL("k"), C("PEXPIRE", "k", "5000"), expPTTL("k")}},
		zc(pending, Case{Name: "zset", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("EXPIRE", "z", "50"), expTTL("z"), C("PERSIST", "z"), C("TTL", "z")}}),
		{Name: "binary key", Cmds: []Cmd{C("SET", "a\x00b", "v"), C("EXPIRE", "a\x00b", "50"), expTTL("a\x00b"), C("TTL", "a")}},
		{Name: "lower case", Cmds: []Cmd{C("SET", "k", "v"), C("expire", "k", "50"), C("pexpire", "k", "60000", "gt"), expPTTL("k")}},
		{Name: "set clears ttl", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "50"), C("SET", "k", "w"), C("TTL", "k")}},
	})
}

func TestExpireInThePast(t *testing.T) {
	pending := zsetPending(t)
	runCases(t, []Case{
		{Name: "negative expire deletes", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "-1"), C("EXISTS", "k"), C("TTL", "k")}},
		{Name: "zero deletes", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "0"), C("EXISTS", "k"),
			C("SET", "k", "v"), C("PEXPIRE", "k", "0"), C("EXISTS", "k")}},
		{Name: "expireat past", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIREAT", "k", "1"), C("GET", "k"),
			C("SET", "k", "v"), C("PEXPIREAT", "k", "0"), C("GET", "k"),
			C("SET", "k", "v"), C("PEXPIREAT", "k", "-9223372036854775808"), C("GET", "k")}},
		{Name: "huge negatives", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "-9223372036854775"), C("EXISTS", "k"),
			C("SET", "k", "v"), C("PEXPIRE", "k", "-9223372036854775808"), C("EXISTS", "k"),
			C("SET", "k", "v"), C("EXPIREAT", "k", "-9223372036854775"), C("EXISTS", "k")}},
		{Name: "past with options", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "-1", "NX"), C("EXISTS", "k"),
			C("SET", "k", "v", "EX", "100"), C("EXPIRE", "k", "-1", "LT"), C("EXISTS", "k"),
			C("SET", "k", "v", "EX", "100"), C("EXPIRE", "k", "-1", "GT"), C("EXISTS", "k"),
			C("SET", "k", "v", "EX", "100"), C("EXPIRE", "k", "-1", "XX"), C("EXISTS", "k"),
			C("SET", "k", "v"), C("EXPIRE", "k", "-1", "XX"), C("EXISTS", "k")}},
		zc(pending, Case{Name: "zset past", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("PEXPIRE", "z", "-100"), C("TYPE", "z")}}),
	})
}

func TestExpireOptions(t *testing.T) {
	runCases(t, []Case{
		{Name: "nx", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "NX"), C("EXPIRE", "k", "200", "NX"), expTTL("k"),
			C("EXPIRE", "nope", "100", "NX")}},
		{Name: "xx", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "XX"), C("TTL", "k"), C("EXPIRE", "k", "100"),
			C("EXPIRE", "k", "200", "XX"), expTTL("k"), C("EXPIRE", "nope", "100", "XX")}},
		{Name: "gt", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "GT"), C("TTL", "k"), C("EXPIRE", "k", "100"),
			C("EXPIRE", "k", "50", "GT"), C("EXPIRE", "k", "200", "GT"), expTTL("k"),
			C("PEXPIREAT", "k", "99999999999999"), C("PEXPIREAT", "k", "99999999999999", "GT"), C("PEXPIREAT", "k", "100000000000000", "gt")}},
		{Name: "lt", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "LT"), expTTL("k"),
			C("EXPIRE", "k", "200", "LT"), C("EXPIRE", "k", "50", "LT"), expTTL("k"),
			C("PEXPIREAT", "k", "99999999999999"), C("PEXPIREAT", "k", "99999999999999", "LT"), C("PEXPIREAT", "k", "99999999999998", "lt")}},
		{Name: "xx with gt and lt", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "XX", "GT"), C("EXPIRE", "k", "100", "XX", "LT"),
			C("TTL", "k"), C("EXPIRE", "k", "100"), C("EXPIRE", "k", "200", "GT", "XX"), C("EXPIRE", "k", "150", "LT", "XX"), expTTL("k")}},
		{Name: "repeated and mixed case options", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "nx", "Nx"),
			C("EXPIRE", "k", "200", "gT", "Gt", "xX"), expTTL("k"), C("EXPIRE", "k", "100", "NX\x00junk")}},
		{Name: "options on missing key", Cmds: []Cmd{C("EXPIRE", "k", "100", "XX"), C("EXPIRE", "k", "100", "GT"), C("EXPIRE", "k", "100", "LT")}},
		{Name: "incompatible options", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "NX", "XX"), C("EXPIRE", "k", "100", "XX", "NX"),
			C("EXPIRE", "k", "100", "NX", "GT"), C("EXPIRE", "k", "100", "NX", "LT"), C("EXPIRE", "k", "100", "GT", "LT"),
			C("PEXPIRE", "k", "100", "LT", "GT"), C("EXPIREAT", "k", "100", "GT", "LT", "NX"), C("PEXPIREAT", "k", "100", "XX", "GT", "LT"),
			C("EXPIRE", "nope", "100", "NX", "XX"), C("TTL", "k")}},
		{Name: "unsupported options", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "100", "FOO"), C("EXPIRE", "k", "100", "NX", "foo"),
			C("EXPIRE", "k", "100", ""), C("EXPIRE", "k", "100", "foo\x00bar"), C("EXPIRE", "k", "100", "foo\r\nbar"),
			C("PEXPIRE", "k", "100", "EX"), C("EXPIREAT", "k", "100", "NXX"), C("EXPIRE", "k", "100", "FOO", "NX", "XX"),
			C("EXPIRE", "k", "100", "NX", "XX", "FOO"), C("TTL", "k")}},
		{Name: "options checked before the time", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "abc", "FOO"),
			C("EXPIRE", "k", "abc", "NX", "XX"), C("EXPIRE", "k", "9223372036854775807", "GT", "LT"), C("EXPIRE", "k", "abc", "NX")}},
	})
}

func TestExpireErrors(t *testing.T) {
	runCases(t, []Case{
		{Name: "not integers", Cmds: []Cmd{C("SET", "k", "v"), C("EXPIRE", "k", "abc"), C("EXPIRE", "k", "1.5"), C("EXPIRE", "k", ""),
			C("EXPIRE", "k", " 1"), C("EXPIRE", "k", "1 "), C("EXPIRE", "k", "+1"), C("EXPIRE", "k", "01"), C("PEXPIRE", "k", "1e3"),
			C("EXPIREAT", "k", "0x10"), C("PEXPIREAT", "k", "9223372036854775808"), C("EXPIRE", "nope", "abc"), C("TTL", "k")}},
		{Name: "overflow on existing key", Cmds: []Cmd{C("SET", "k", "v"),
			C("EXPIRE", "k", "9223372036854775807"), C("EXPIRE", "k", "9223372036854776"), C("EXPIRE", "k", "9223372036854775"),
			C("EXPIRE", "k", "-9223372036854776"), C("EXPIRE", "k", "-9223372036854775808"),
			C("PEXPIRE", "k", "9223372036854775807"), C("PEXPIRE", "k", "9223372036854775000"),
			C("EXPIREAT", "k", "9223372036854776"), C("EXPIREAT", "k", "-9223372036854776"),
			C("TTL", "k")}},
		{Name: "overflow on missing key", Cmds: []Cmd{C("EXPIRE", "k", "9223372036854775807"), C("PEXPIRE", "k", "9223372036854775807"),
			C("EXPIREAT", "k", "9223372036854776"), C("PEXPIREAT", "k", "9223372036854775807"), C("EXPIREAT", "k", "9223372036854775")}},
		{Name: "arity", Cmds: []Cmd{C("EXPIRE", "k"), C("PEXPIRE"), C("EXPIREAT", "k"), C("PEXPIREAT", "k"),
			C("TTL"), C("TTL", "a", "b"), C("PTTL"), C("PTTL", "a", "b"), C("EXPIRETIME"), C("EXPIRETIME", "a", "b"),
			C("PEXPIRETIME"), C("PEXPIRETIME", "a", "b"), C("PERSIST"), C("PERSIST", "a", "b")}},
	})
}

func TestExpireTTL(t *testing.T) {
	pending := zsetPending(t)
	runCases(t, []Case{
		{Name: "missing and persistent", Cmds: []Cmd{C("TTL", "k"), C("PTTL", "k"), C("EXPIRETIME", "k"), C("PEXPIRETIME", "k"),
			C("SET", "k", "v"), C("TTL", "k"), C("PTTL", "k"), C("EXPIRETIME", "k"), C("PEXPIRETIME", "k")}},
		// Rounding to nearest: 1700 ms left reads as 2 s (truncation would
		// give 1), 1300 ms as 1 s; the margins absorb the servers' skew.
		{Name: "ttl rounds to nearest", Cmds: []Cmd{C("SET", "k", "v"),
			C("PEXPIRE", "k", "1700"), C("TTL", "k"), C("PEXPIRE", "k", "1300"), C("TTL", "k"),
			C("PEXPIRE", "k", "2400"), C("TTL", "k"), C("PEXPIRE", "k", "2600"), C("TTL", "k"),
			C("PEXPIRE", "k", "200"), C("TTL", "k")}},
		zc(pending, Case{Name: "ttl of zset", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("TTL", "z"), C("PTTL", "z"), C("PEXPIRE", "z", "1700"), C("TTL", "z")}}),
		{Name: "ttl after expiry", Cmds: []Cmd{C("SET", "k", "v", "PX", "30"), Sleep(60 * time.Millisecond),
			C("TTL", "k"), C("PTTL", "k"), C("EXPIRETIME", "k"), C("PEXPIRETIME", "k"), C("EXISTS", "k")}},
		{Name: "set with ttl", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), expTTL("k"), C("SET", "p", "v", "PX", "1700"), C("TTL", "p")}},
	})
}

func TestExpirePersist(t *testing.T) {
	pending := zsetPending(t)
	runCases(t, []Case{
		{Name: "persist", Cmds: []Cmd{C("PERSIST", "k"), C("SET", "k", "v"), C("PERSIST", "k"), C("EXPIRE", "k", "100"),
			C("PERSIST", "k"), C("TTL", "k"), C("PERSIST", "k"), C("GET", "k")}},
		zc(pending, Case{Name: "persist zset", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("PEXPIRE", "z", "100000"), C("PERSIST", "z"), C("PTTL", "z")}}),
		{Name: "persist keeps the key alive", Cmds: []Cmd{C("SET", "k", "v", "PX", "40"), C("PERSIST", "k"), Sleep(70 * time.Millisecond),
			C("GET", "k"), C("TTL", "k")}},
		{Name: "persist too late", Cmds: []Cmd{C("SET", "k", "v", "PX", "30"), Sleep(60 * time.Millisecond), C("PERSIST", "k"), C("GET", "k")}},
	})
}

// Keys vanish once their deadline passes, for every command, and the
// keys nobody touches are reclaimed by the servers' active expiry.
func TestExpireExpiry(t *testing.T) {
	runCases(t, []Case{
		{Name: "expires", Cmds: []Cmd{C("SET", "k", "v"), C("PEXPIRE", "k", "40"), C("GET", "k"), Sleep(80 * time.Millisecond),
			C("GET", "k"), C("EXISTS", "k"), C("TTL", "k"), C("EXPIRE", "k", "10"), C("TYPE", "k")}},
		{Name: "expireat in a moment", Cmds: []Cmd{C("SET", "k", "v"),
			C("PEXPIREAT", "k", strconv.FormatInt(time.Now().UnixMilli()+40, 10)), Sleep(80 * time.Millisecond), C("GET", "k")}},
		{Name: "active expiry reclaims untouched keys", Cmds: []Cmd{
			C("MSET", "a", "1", "b", "2", "c", "3", "d", "4"),
			C("PEXPIRE", "a", "30"), C("PEXPIRE", "b", "30"), C("PEXPIRE", "c", "30"),
			Sleep(400 * time.Millisecond), C("DBSIZE"), C("KEYS", "*")}},
		{Name: "new ttl after expiry starts fresh", Cmds: []Cmd{C("SET", "k", "v", "PX", "30"), Sleep(60 * time.Millisecond),
			C("SET", "k", "w"), C("TTL", "k"), C("GET", "k")}},
	})
}
