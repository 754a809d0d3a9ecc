package commands

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/resp"
)

// advance moves the manual clock.
func sAdvance(d time.Duration) step {
	return act(func(t *testing.T, tt *tester) { tt.Clock.Add(d) })
}

// pttlIs checks key's remaining time to live in ms, with -1 for no deadline
// and -2 for no key, read from the keyspace so it does not depend on PTTL.
func sPTTLIs(key string, want int64) step {
	return act(func(t *testing.T, tt *tester) {
		t.Helper()
		if got := strPTTL(tt, key); got != want {
			t.Errorf("pttl %s: got %d, want %d", key, got, want)
		}
	})
}

// deadlineIs checks key's absolute deadline in Unix ms.
func sDeadlineIs(key string, want int64) step {
	return act(func(t *testing.T, tt *tester) {
		t.Helper()
		e := tt.E.DB(0).Peek([]byte(key))
		if e == nil {
			t.Fatalf("deadline %s: no key", key)
		}
		if got := e.Expiry(); got != want {
			t.Errorf("deadline %s: got %d, want %d", key, got, want)
		}
	})
}

// putOther stores a value of a type that is not a string.
func sPutOther(key string) step {
	return act(func(t *testing.T, tt *tester) {
		db := tt.E.DB(0)
		if e := db.Peek([]byte(key)); e != nil {
			db.Remove(e)
		}
		db.Add([]byte(key), strOtherType{})
	})
}

// dbLen checks the number of keys, expired ones not yet reclaimed included.
func sDBLen(want int) step {
	return act(func(t *testing.T, tt *tester) {
		t.Helper()
		if got := tt.E.DB(0).Len(); got != want {
			t.Errorf("db len: got %d, want %d", got, want)
		}
	})
}

type strOtherType struct{}

func strNow(tt *tester) int64 { return tt.Clock.Now().UnixMilli() }

func strPTTL(tt *tester, key string) int64 {
	now := strNow(tt)
	e := tt.E.DB(0).Get([]byte(key), now)
	switch {
	case e == nil:
		return -2
	case e.Expiry() == keyspace.NoExpiry:
		return -1
	}
	return e.Expiry() - now
}

var (
	sWrongType = errReply(engine.ErrWrongType)
	sSyntaxErr = errReply(engine.ErrSyntax)
	sNotInt    = errReply(engine.ErrNotInt)
	sNotFloat  = errReply(engine.ErrNotFloat)
	sEmptyBulk = bulk("")
)

func TestStringsGetSet(t *testing.T) {
	runCases(t, []cmdCase{
		{"get missing", []step{cmd(nilReply, "GET", "k")}},
		{"set get", []step{cmd(okReply, "SET", "k", "v"), cmd(bulk("v"), "GET", "k")}},
		{"binary", []step{cmd(okReply, "SET", "k", "a\x00\r\nb"), cmd(bulk("a\x00\r\nb"), "GET", "k")}},
		{"empty", []step{cmd(okReply, "SET", "k", ""), cmd(bulk(""), "GET", "k")}},
		{"overwrite clears ttl", []step{
			cmd(okReply, "SET", "k", "v", "EX", "10"), sPTTLIs("k", 10000),
			cmd(okReply, "SET", "k", "w"), sPTTLIs("k", -1)}},
		{"keepttl", []step{
			cmd(okReply, "SET", "k", "v", "PX", "5000"), sAdvance(time.Second),
			cmd(okReply, "SET", "k", "w", "KEEPTTL"), sPTTLIs("k", 4000), cmd(bulk("w"), "GET", "k")}},
		{"keepttl on missing key", []step{cmd(okReply, "SET", "k", "w", "keepttl"), sPTTLIs("k", -1)}},
		{"keepttl does not revive expired", []step{
			cmd(okReply, "SET", "k", "v", "PX", "10"), sAdvance(20 * time.Millisecond),
			cmd(okReply, "SET", "k", "w", "KEEPTTL"), sPTTLIs("k", -1), cmd(bulk("w"), "GET", "k")}},
		{"get wrong type", []step{sPutOther("z"), cmd(sWrongType, "GET", "z")}},
		{"set replaces other type", []step{sPutOther("z"), cmd(okReply, "SET", "z", "v"), cmd(bulk("v"), "GET", "z")}},
		{"value is copied", []step{act(func(t *testing.T, tt *tester) {
			args := [][]byte{[]byte("SET"), []byte("k"), []byte("abc")}
			tt.E.Lock()
			var w resp.Writer
			tt.E.Exec(tt.C, args, &w)
			tt.E.Unlock()
			args[2][0] = 'X'
			tt.Expect(bulk("abc"), "GET", "k")
		})}},
	})
}

func TestStringsSetOptions(t *testing.T) {
	runCases(t, []cmdCase{
		{"nx", []step{
			cmd(okReply, "SET", "k", "v", "NX"), cmd(nilReply, "SET", "k", "w", "nx"), cmd(bulk("v"), "GET", "k")}},
		{"xx", []step{
			cmd(nilReply, "SET", "k", "v", "XX"), cmd(nilReply, "GET", "k"),
			cmd(okReply, "SET", "k", "v"), cmd(okReply, "SET", "k", "w", "xX"), cmd(bulk("w"), "GET", "k")}},
		{"nx on expired key", []step{
			cmd(okReply, "SET", "k", "v", "PX", "5"), sAdvance(6 * time.Millisecond),
			cmd(okReply, "SET", "k", "w", "NX"), cmd(bulk("w"), "GET", "k")}},
		{"nx xx conflict", []step{cmd(sSyntaxErr, "SET", "k", "v", "NX", "XX"), cmd(sSyntaxErr, "SET", "k", "v", "XX", "NX")}},
		{"repeated flags", []step{
			cmd(okReply, "SET", "k", "v", "NX", "NX"), cmd(okReply, "SET", "k", "v", "KEEPTTL", "KEEPTTL"),
			cmd(bulk("v"), "SET", "k", "w", "GET", "GET")}},
		{"repeated expiry last wins", []step{
			cmd(okReply, "SET", "k", "v", "EX", "abc", "EX", "10"), sPTTLIs("k", 10000),
			cmd(okReply, "SET", "k", "v", "PX", "1", "PX", "2000"), sPTTLIs("k", 2000)}},
		{"expiry conflicts", []step{
			cmd(sSyntaxErr, "SET", "k", "v", "EX", "10", "PX", "10"),
			cmd(sSyntaxErr, "SET", "k", "v", "EX", "10", "EXAT", "10"),
			cmd(sSyntaxErr, "SET", "k", "v", "PXAT", "10", "EXAT", "10"),
			cmd(sSyntaxErr, "SET", "k", "v", "EX", "10", "KEEPTTL"),
			cmd(sSyntaxErr, "SET", "k", "v", "KEEPTTL", "PX", "10"),
			cmd(sSyntaxErr, "SET", "k", "v", "PERSIST"),
			cmd(sSyntaxErr, "SET", "k", "v", "EX"),
			cmd(sSyntaxErr, "SET", "k", "v", "foo"),
			cmd(sSyntaxErr, "SET", "k", "v", ""),
			cmd(nilReply, "GET", "k")}},
		{"options are C strings", []step{
			cmd(okReply, "SET", "k", "v", "nx\x00junk"), cmd(nilReply, "SET", "k", "v", "NX\x00"),
			cmd(okReply, "SET", "k", "v", "ex\x00", "100"), sPTTLIs("k", 100000),
			cmd(sSyntaxErr, "SET", "k", "v", "\x00nx")}},
		{"ex", []step{cmd(okReply, "SET", "k", "v", "EX", "100"), sPTTLIs("k", 100000)}},
		{"px", []step{cmd(okReply, "SET", "k", "v", "PX", "1500"), sPTTLIs("k", 1500)}},
		{"exat", []step{act(func(t *testing.T, tt *tester) {
			at := strNow(tt)/1000 + 50
			tt.Expect(okReply, "SET", "k", "v", "EXAT", strconv.FormatInt(at, 10))
			sDeadlineIs("k", at*1000).fn(t, tt)
		})}},
		{"pxat", []step{act(func(t *testing.T, tt *tester) {
			at := strNow(tt) + 1234
			tt.Expect(okReply, "SET", "k", "v", "PXAT", strconv.FormatInt(at, 10))
			sDeadlineIs("k", at).fn(t, tt)
		})}},
		{"pxat max", []step{cmd(okReply, "SET", "k", "v", "PXAT", "9223372036854775807"), sDeadlineIs("k", math.MaxInt64)}},
		{"exat max", []step{cmd(okReply, "SET", "k", "v", "EXAT", "9223372036854775"), sDeadlineIs("k", 9223372036854775000)}},
		{"expiry in the past", []step{
			cmd(okReply, "SET", "k", "v", "PXAT", "1"), sDBLen(1), cmd(nilReply, "GET", "k"), sDBLen(0),
			cmd(okReply, "SET", "k", "v", "EXAT", "1"), cmd(nilReply, "GET", "k")}},
		{"expires after ttl", []step{
			cmd(okReply, "SET", "k", "v", "PX", "100"), sAdvance(100 * time.Millisecond), cmd(bulk("v"), "GET", "k"),
			sAdvance(time.Millisecond), cmd(nilReply, "GET", "k")}},
		{"invalid expiry", []step{
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EX", "0"),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "PX", "-1"),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EXAT", "0"),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "PXAT", "-100"),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EX", "9223372036854776"),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EXAT", "9223372036854776"),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EX", "9223372036854775"),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "PX", "9223372036854775807"),
			cmd(sNotInt, "SET", "k", "v", "EX", "abc"),
			cmd(sNotInt, "SET", "k", "v", "EX", "1.5"),
			cmd(sNotInt, "SET", "k", "v", "PX", " 1"),
			cmd(sNotInt, "SET", "k", "v", "PX", "9223372036854775808"),
			cmd(nilReply, "GET", "k")}},
		{"get option", []step{
			cmd(nilReply, "SET", "k", "v", "GET"), cmd(bulk("v"), "GET", "k"),
			cmd(bulk("v"), "SET", "k", "w", "GET"), cmd(bulk("w"), "GET", "k")}},
		{"get wrong type does not set", []step{
			sPutOther("z"), cmd(sWrongType, "SET", "z", "v", "GET"), cmd(sWrongType, "GET", "z")}},
		{"get with nx", []step{
			cmd(nilReply, "SET", "k", "v", "NX", "GET"), cmd(bulk("v"), "SET", "k", "w", "NX", "GET"), cmd(bulk("v"), "GET", "k")}},
		{"get with xx", []step{
			cmd(nilReply, "SET", "k", "v", "XX", "GET"), cmd(nilReply, "GET", "k"),
			cmd(okReply, "SET", "k", "v"), cmd(bulk("v"), "SET", "k", "w", "GET", "XX"), cmd(bulk("w"), "GET", "k")}},
		{"get with expiry", []step{
			cmd(nilReply, "SET", "k", "v", "GET", "EX", "10"), sPTTLIs("k", 10000),
			cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "w", "GET", "EX", "0"),
			cmd(bulk("v"), "GET", "k")}},
		{"expiry error before wrong type", []step{
			sPutOther("z"), cmd(errReply("ERR invalid expire time in 'set' command"), "SET", "z", "v", "GET", "PX", "0")}},
		{"arity", []step{cmd(errReply("ERR wrong number of arguments for 'set' command"), "SET", "k")}},
	})
}

func TestStringsSetVariants(t *testing.T) {
	runCases(t, []cmdCase{
		{"setnx", []step{
			cmd(integer(1), "SETNX", "k", "v"), cmd(integer(0), "SETNX", "k", "w"), cmd(bulk("v"), "GET", "k"),
			sPutOther("z"), cmd(integer(0), "SETNX", "z", "w")}},
		{"setex", []step{
			cmd(okReply, "SETEX", "k", "10", "v"), sPTTLIs("k", 10000), cmd(bulk("v"), "GET", "k"),
			sPutOther("z"), cmd(okReply, "SETEX", "z", "10", "v"), cmd(bulk("v"), "GET", "z")}},
		{"setex errors", []step{
			cmd(errReply("ERR invalid expire time in 'setex' command"), "SETEX", "k", "0", "v"),
			cmd(errReply("ERR invalid expire time in 'setex' command"), "SETEX", "k", "-10", "v"),
			cmd(errReply("ERR invalid expire time in 'setex' command"), "SETEX", "k", "9223372036854775807", "v"),
			cmd(sNotInt, "SETEX", "k", "ten", "v"),
			cmd(errReply("ERR wrong number of arguments for 'setex' command"), "SETEX", "k", "10"),
			cmd(nilReply, "GET", "k")}},
		{"psetex", []step{cmd(okReply, "PSETEX", "k", "1500", "v"), sPTTLIs("k", 1500)}},
		{"psetex errors", []step{
			cmd(errReply("ERR invalid expire time in 'psetex' command"), "PSETEX", "k", "0", "v"),
			cmd(errReply("ERR invalid expire time in 'psetex' command"), "PSETEX", "k", "9223372036854775807", "v"),
			cmd(sNotInt, "PSETEX", "k", "1e3", "v")}},
		{"getset", []step{
			cmd(nilReply, "GETSET", "k", "v"), cmd(okReply, "SET", "k", "v", "EX", "100"),
			cmd(bulk("v"), "GETSET", "k", "w"), sPTTLIs("k", -1), cmd(bulk("w"), "GET", "k"),
			sPutOther("z"), cmd(sWrongType, "GETSET", "z", "v")}},
		{"getdel", []step{
			cmd(nilReply, "GETDEL", "k"), cmd(okReply, "SET", "k", "v"), cmd(bulk("v"), "GETDEL", "k"),
			sDBLen(0), sPutOther("z"), cmd(sWrongType, "GETDEL", "z"), sDBLen(1)}},
	})
}

func TestStringsGetEx(t *testing.T) {
	invalid := errReply("ERR invalid expire time in 'getex' command")
	runCases(t, []cmdCase{
		{"plain", []step{cmd(nilReply, "GETEX", "k"), cmd(okReply, "SET", "k", "v", "EX", "10"),
			cmd(bulk("v"), "GETEX", "k"), sPTTLIs("k", 10000)}},
		{"ex px", []step{cmd(okReply, "SET", "k", "v"),
			cmd(bulk("v"), "GETEX", "k", "EX", "100"), sPTTLIs("k", 100000),
			cmd(bulk("v"), "GETEX", "k", "px", "50"), sPTTLIs("k", 50)}},
		{"exat pxat", []step{cmd(okReply, "SET", "k", "v"), act(func(t *testing.T, tt *tester) {
			at := strNow(tt) + 7777
			tt.Expect(bulk("v"), "GETEX", "k", "PXAT", strconv.FormatInt(at, 10))
			sDeadlineIs("k", at).fn(t, tt)
			sec := strNow(tt)/1000 + 9
			tt.Expect(bulk("v"), "GETEX", "k", "EXAT", strconv.FormatInt(sec, 10))
			sDeadlineIs("k", sec*1000).fn(t, tt)
		})}},
		{"past deadline deletes now", []step{cmd(okReply, "SET", "k", "v"),
			cmd(bulk("v"), "GETEX", "k", "EXAT", "1"), sDBLen(0), cmd(nilReply, "GET", "k")}},
		{"deadline equal to now deletes", []step{cmd(okReply, "SET", "k", "v"), act(func(t *testing.T, tt *tester) {
			tt.Expect(bulk("v"), "GETEX", "k", "PXAT", strconv.FormatInt(strNow(tt), 10))
			sDBLen(0).fn(t, tt)
		})}},
		{"persist", []step{cmd(okReply, "SET", "k", "v", "EX", "10"),
			cmd(bulk("v"), "GETEX", "k", "PERSIST"), sPTTLIs("k", -1), cmd(bulk("v"), "GETEX", "k", "persist")}},
		{"syntax", []step{cmd(okReply, "SET", "k", "v"),
			cmd(sSyntaxErr, "GETEX", "k", "PERSIST", "EX", "10"),
			cmd(sSyntaxErr, "GETEX", "k", "EX", "10", "PERSIST"),
			cmd(sSyntaxErr, "GETEX", "k", "EX", "10", "PX", "10"),
			cmd(sSyntaxErr, "GETEX", "k", "EX"),
			cmd(sSyntaxErr, "GETEX", "k", "KEEPTTL"),
			cmd(sSyntaxErr, "GETEX", "k", "NX"),
			cmd(sSyntaxErr, "GETEX", "k", "GET"),
			cmd(sSyntaxErr, "GETEX", "missing", "foo"),
			sPTTLIs("k", -1)}},
		{"repeated ex", []step{cmd(okReply, "SET", "k", "v"), cmd(bulk("v"), "GETEX", "k", "EX", "10", "EX", "20"), sPTTLIs("k", 20000)}},
		{"invalid expiry", []step{cmd(okReply, "SET", "k", "v"),
			cmd(invalid, "GETEX", "k", "EX", "0"), cmd(invalid, "GETEX", "k", "PX", "-1"),
			cmd(invalid, "GETEX", "k", "PX", "9223372036854775807"), cmd(invalid, "GETEX", "k", "EXAT", "9223372036854776"),
			cmd(sNotInt, "GETEX", "k", "EX", "abc"), sPTTLIs("k", -1)}},
		{"missing key ignores bad expiry", []step{cmd(nilReply, "GETEX", "k", "EX", "abc"), cmd(nilReply, "GETEX", "k", "EX", "0")}},
		{"wrong type before bad expiry", []step{sPutOther("z"), cmd(sWrongType, "GETEX", "z", "EX", "abc"), cmd(sWrongType, "GETEX", "z")}},
	})
}

func TestStringsMulti(t *testing.T) {
	runCases(t, []cmdCase{
		{"mget", []step{cmd(okReply, "SET", "a", "1"), sPutOther("z"),
			cmd(array(bulk("1"), nilReply, nilReply, bulk("1")), "MGET", "a", "b", "z", "a")}},
		{"mset", []step{cmd(okReply, "SET", "a", "x", "EX", "10"), sPutOther("z"),
			cmd(okReply, "MSET", "a", "1", "z", "2", "a", "3"), sPTTLIs("a", -1),
			cmd(array(bulk("3"), bulk("2")), "MGET", "a", "z")}},
		{"mset odd", []step{cmd(errReply("ERR wrong number of arguments for 'mset' command"), "MSET", "a", "1", "b"), sDBLen(0)}},
		{"msetnx", []step{
			cmd(integer(1), "MSETNX", "a", "1", "b", "2"), cmd(integer(0), "MSETNX", "c", "3", "a", "9"),
			cmd(array(bulk("1"), bulk("2"), nilReply), "MGET", "a", "b", "c"),
			sPutOther("z"), cmd(integer(0), "MSETNX", "z", "1"),
			cmd(integer(1), "MSETNX", "d", "1", "d", "2"), cmd(bulk("2"), "GET", "d")}},
		{"msetnx odd", []step{cmd(errReply("ERR wrong number of arguments for 'msetnx' command"), "MSETNX", "a", "1", "b")}},
		{"msetnx expired counts as missing", []step{
			cmd(okReply, "SET", "a", "1", "PX", "1"), sAdvance(2 * time.Millisecond), cmd(integer(1), "MSETNX", "a", "2")}},
	})
}

func TestStringsIncrDecr(t *testing.T) {
	overflow := errReply(engine.ErrOverflow)
	runCases(t, []cmdCase{
		{"incr", []step{cmd(integer(1), "INCR", "n"), cmd(integer(2), "INCR", "n"), cmd(bulk("2"), "GET", "n")}},
		{"decr", []step{cmd(integer(-1), "DECR", "n"), cmd(integer(-2), "DECR", "n"), cmd(bulk("-2"), "GET", "n")}},
		{"incrby decrby", []step{cmd(integer(10), "INCRBY", "n", "10"), cmd(integer(-5), "DECRBY", "n", "15"),
			cmd(integer(-4), "INCRBY", "n", "1"), cmd(bulk("-4"), "GET", "n")}},
		{"keeps ttl", []step{cmd(okReply, "SET", "n", "5", "EX", "10"), cmd(integer(6), "INCR", "n"), sPTTLIs("n", 10000)}},
		{"in place rewrite", []step{cmd(okReply, "SET", "n", "-9223372036854775808"), cmd(integer(-9223372036854775807), "INCR", "n"),
			cmd(integer(0), "INCRBY", "n", "9223372036854775807"), cmd(bulk("0"), "GET", "n"), cmd(integer(1), "INCR", "n"), cmd(bulk("1"), "GET", "n")}},
		{"not integers", []step{
			cmd(okReply, "SET", "a", " 1"), cmd(sNotInt, "INCR", "a"),
			cmd(okReply, "SET", "a", "1 "), cmd(sNotInt, "INCR", "a"),
			cmd(okReply, "SET", "a", "01"), cmd(sNotInt, "INCR", "a"),
			cmd(okReply, "SET", "a", "+1"), cmd(sNotInt, "INCR", "a"),
			cmd(okReply, "SET", "a", "-0"), cmd(sNotInt, "INCR", "a"),
			cmd(okReply, "SET", "a", "1.0"), cmd(sNotInt, "INCR", "a"),
			cmd(okReply, "SET", "a", ""), cmd(sNotInt, "INCR", "a"),
			cmd(okReply, "SET", "a", "9223372036854775808"), cmd(sNotInt, "INCR", "a"),
			cmd(sNotInt, "INCRBY", "b", "1.5"), cmd(sNotInt, "DECRBY", "b", "x"), cmd(sNotInt, "INCRBY", "b", "9223372036854775808"),
			cmd(bulk("9223372036854775808"), "GET", "a"), cmd(nilReply, "GET", "b")}},
		{"overflow", []step{
			cmd(okReply, "SET", "n", "9223372036854775807"), cmd(overflow, "INCR", "n"), cmd(overflow, "INCRBY", "n", "1"),
			cmd(integer(9223372036854775806), "DECR", "n"),
			cmd(okReply, "SET", "n", "-9223372036854775808"), cmd(overflow, "DECR", "n"), cmd(overflow, "DECRBY", "n", "1"),
			cmd(overflow, "INCRBY", "n", "-1"), cmd(integer(-1), "INCRBY", "n", "9223372036854775807"),
			cmd(integer(-9223372036854775807), "DECRBY", "m", "9223372036854775807"), cmd(overflow, "DECRBY", "m", "2"),
			cmd(bulk("-9223372036854775807"), "GET", "m")}},
		{"decrby llong min", []step{
			cmd(errReply("ERR decrement would overflow"), "DECRBY", "n", "-9223372036854775808"),
			cmd(integer(math.MinInt64), "INCRBY", "n", "-9223372036854775808")}},
		{"wrong type", []step{sPutOther("z"), cmd(sWrongType, "INCR", "z"), cmd(sWrongType, "DECRBY", "z", "1"),
			cmd(sNotInt, "INCRBY", "z", "x"), cmd(errReply("ERR decrement would overflow"), "DECRBY", "z", "-9223372036854775808")}},
	})
}

func TestStringsIncrByFloat(t *testing.T) {
	nanInf := errReply(engine.ErrNaNOrInf)
	runCases(t, []cmdCase{
		{"basic", []step{cmd(bulk("1.5"), "INCRBYFLOAT", "f", "1.5"), cmd(bulk("1001.5"), "INCRBYFLOAT", "f", "1e3"),
			cmd(bulk("-500"), "INCRBYFLOAT", "f", "-1501.5"), cmd(bulk("-484"), "INCRBYFLOAT", "f", "0x10"),
			cmd(bulk("-482.89999999999999999"), "INCRBYFLOAT", "f", "1.1"), cmd(bulk("-482.89999999999999999"), "GET", "f")}},
		{"trailing zeros", []step{cmd(bulk("10.5"), "INCRBYFLOAT", "f", "10.50"), cmd(bulk("5010.5"), "INCRBYFLOAT", "f", "5.0e3")}},
		{"integer value", []step{cmd(okReply, "SET", "f", "1"), cmd(bulk("2"), "INCRBYFLOAT", "f", "1")}},
		{"negative zero", []step{cmd(bulk("0"), "INCRBYFLOAT", "f", "-0")}},
		{"bad values", []step{
			cmd(okReply, "SET", "f", "abc"), cmd(sNotFloat, "INCRBYFLOAT", "f", "1"),
			cmd(okReply, "SET", "f", " 1.5"), cmd(sNotFloat, "INCRBYFLOAT", "f", "1"),
			cmd(okReply, "SET", "f", "1.5 "), cmd(sNotFloat, "INCRBYFLOAT", "f", "1"),
			cmd(sNotFloat, "INCRBYFLOAT", "g", "abc"), cmd(sNotFloat, "INCRBYFLOAT", "g", " 1"), cmd(sNotFloat, "INCRBYFLOAT", "g", "nan"),
			cmd(sNotFloat, "INCRBYFLOAT", "g", ""), sPTTLIs("g", -2)}},
		{"infinity", []step{
			cmd(nanInf, "INCRBYFLOAT", "f", "inf"), cmd(okReply, "SET", "f", "inf"), cmd(nanInf, "INCRBYFLOAT", "f", "0"),
			cmd(nanInf, "INCRBYFLOAT", "f", "-inf"), sPTTLIs("g", -2)}},
		{"wrong type first", []step{sPutOther("z"), cmd(sWrongType, "INCRBYFLOAT", "z", "abc")}},
		{"keeps ttl", []step{cmd(okReply, "SET", "f", "1", "PX", "900"), cmd(bulk("1.25"), "INCRBYFLOAT", "f", "0.25"), sPTTLIs("f", 900)}},
	})
}

func TestStringsAppendStrlen(t *testing.T) {
	runCases(t, []cmdCase{
		{"append", []step{cmd(integer(3), "APPEND", "k", "abc"), cmd(integer(6), "APPEND", "k", "def"),
			cmd(integer(6), "APPEND", "k", ""), cmd(bulk("abcdef"), "GET", "k"), cmd(integer(6), "STRLEN", "k")}},
		{"append empty creates", []step{cmd(integer(0), "APPEND", "k", ""), sDBLen(1), cmd(bulk(""), "GET", "k")}},
		{"append keeps ttl", []step{cmd(okReply, "SET", "k", "a", "EX", "5"), cmd(integer(2), "APPEND", "k", "b"), sPTTLIs("k", 5000)}},
		{"append wrong type", []step{sPutOther("z"), cmd(sWrongType, "APPEND", "z", "x")}},
		{"append many", []step{act(func(t *testing.T, tt *tester) {
			var want strings.Builder
			for i := range 100 {
				s := strconv.Itoa(i)
				want.WriteString(s)
				tt.Expect(integer(int64(want.Len())), "APPEND", "k", s)
			}
			tt.Expect(bulk(want.String()), "GET", "k")
		})}},
		{"strlen", []step{cmd(integer(0), "STRLEN", "k"), cmd(okReply, "SET", "k", "a\x00b"), cmd(integer(3), "STRLEN", "k"),
			sPutOther("z"), cmd(sWrongType, "STRLEN", "z")}},
		{"append length limit", []step{cmd(okReply, "SET", "k", "abc"), act(func(t *testing.T, tt *tester) {
			tt.E.Cfg.ProtoMaxBulkLen.Store(5)
			tt.Expect(integer(5), "APPEND", "k", "de")
			tt.Expect(errReply(engine.ErrStringTooLong), "APPEND", "k", "f")
			tt.Expect(integer(6), "APPEND", "new", "abcdef") // no check when creating
		})}},
	})
}

func TestStringsGetRange(t *testing.T) {
	steps := []step{cmd(okReply, "SET", "s", "Hello World"), cmd(okReply, "SET", "e", "")}
	for _, c := range []struct{ start, end, want string }{
		{"0", "4", "Hello"}, {"-5", "-1", "World"}, {"-1", "-5", ""}, {"5", "2", ""}, {"0", "-100", "H"},
		{"-100", "-100", "H"}, {"-100", "100", "Hello World"}, {"100", "200", ""}, {"0", "9223372036854775807", "Hello World"},
		{"-9223372036854775808", "-1", "Hello World"}, {"10", "10", "d"}, {"11", "11", ""}, {"0", "0", "H"}, {"-1", "-1", "d"},
	} {
		steps = append(steps, cmd(bulk(c.want), "GETRANGE", "s", c.start, c.end))
	}
	steps = append(steps,
		cmd(sEmptyBulk, "GETRANGE", "e", "0", "-1"), cmd(sEmptyBulk, "GETRANGE", "e", "0", "0"), cmd(sEmptyBulk, "GETRANGE", "e", "-1", "0"),
		cmd(sEmptyBulk, "GETRANGE", "missing", "0", "-1"),
		cmd(sNotInt, "GETRANGE", "missing", "a", "1"), cmd(sNotInt, "GETRANGE", "s", "0", "b"),
		sPutOther("z"), cmd(sWrongType, "GETRANGE", "z", "0", "1"), cmd(sNotInt, "GETRANGE", "z", "x", "1"))
	runCases(t, []cmdCase{{"getrange", steps}})
}

func TestStringsSetRange(t *testing.T) {
	tooLong := errReply(engine.ErrStringTooLong)
	runCases(t, []cmdCase{
		{"overwrite", []step{cmd(okReply, "SET", "k", "Hello World"), cmd(integer(11), "SETRANGE", "k", "6", "Redis"),
			cmd(bulk("Hello Redis"), "GET", "k"), cmd(integer(13), "SETRANGE", "k", "10", "XYZ"), cmd(bulk("Hello RediXYZ"), "GET", "k")}},
		{"zero padding", []step{cmd(integer(4), "SETRANGE", "k", "3", "x"), cmd(bulk("\x00\x00\x00x"), "GET", "k"),
			cmd(integer(8), "SETRANGE", "k", "6", "yz"), cmd(bulk("\x00\x00\x00x\x00\x00yz"), "GET", "k")}},
		{"empty value", []step{cmd(integer(0), "SETRANGE", "k", "5", ""), sDBLen(0),
			cmd(okReply, "SET", "k", "abc"), cmd(integer(3), "SETRANGE", "k", "100", ""), cmd(bulk("abc"), "GET", "k")}},
		{"errors", []step{
			cmd(errReply(engine.ErrOffsetRange), "SETRANGE", "k", "-1", "x"), cmd(errReply(engine.ErrOffsetRange), "SETRANGE", "k", "-1", ""),
			cmd(sNotInt, "SETRANGE", "k", "abc", "x"), cmd(sNotInt, "SETRANGE", "k", "9223372036854775808", "x"),
			cmd(tooLong, "SETRANGE", "k", "536870912", "x"), cmd(tooLong, "SETRANGE", "k", "9223372036854775807", "abc"),
			cmd(integer(0), "SETRANGE", "k", "536870912", ""), sDBLen(0)}},
		{"wrong type", []step{sPutOther("z"), cmd(sWrongType, "SETRANGE", "z", "0", "x"), cmd(sWrongType, "SETRANGE", "z", "0", ""),
			cmd(errReply(engine.ErrOffsetRange), "SETRANGE", "z", "-1", "x")}},
		{"keeps ttl", []step{cmd(okReply, "SET", "k", "abc", "EX", "3"), cmd(integer(3), "SETRANGE", "k", "0", "x"), sPTTLIs("k", 3000)}},
		{"limit", []step{cmd(okReply, "SET", "k", "abc"), act(func(t *testing.T, tt *tester) {
			tt.E.Cfg.ProtoMaxBulkLen.Store(10)
			tt.Expect(integer(10), "SETRANGE", "k", "9", "x")
			tt.Expect(tooLong, "SETRANGE", "k", "10", "x")
			tt.Expect(tooLong, "SETRANGE", "new", "9", "xy")
			tt.Expect(integer(10), "SETRANGE", "k", "0", "0123456789")
		})}},
	})
}

// TestStringsSetRangeStaleCapacity grows a value inside its spare capacity:
// the gap must read as zeros, not as bytes of an earlier, longer value.
func TestStringsSetRangeStaleCapacity(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "SET", "k", "")
	tt.Expect(integer(16), "SETRANGE", "k", "0", "ABCDEFGHIJKLMNOP")
	db := tt.E.DB(0)
	e := db.Peek([]byte("k"))
	v := e.Val.([]byte)
	e.Val = v[:2] // same backing array, stale bytes beyond len
	tt.Expect(integer(8), "SETRANGE", "k", "6", "xy")
	tt.Expect(bulk("AB\x00\x00\x00\x00xy"), "GET", "k")
}

// TestStringsHotPathAllocs keeps GET, SET on an existing key and INCR
// allocation-light.
func TestStringsHotPathAllocs(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "SET", "k", "value")
	tt.Expect(integer(1), "INCR", "n")
	var w resp.Writer
	run := func(args [][]byte) {
		tt.E.Lock()
		tt.E.Exec(tt.C, args, &w)
		tt.E.Unlock()
		w.Reset(1 << 20)
	}
	// The executor's own cost per command, whatever the command.
	ping := [][]byte{[]byte("PING")}
	run(ping)
	base := testing.AllocsPerRun(100, func() { run(ping) })
	for _, c := range []struct {
		args [][]byte
		max  float64
	}{
		{[][]byte{[]byte("GET"), []byte("k")}, 0},
		{[][]byte{[]byte("SET"), []byte("k"), []byte("value")}, 2}, // the copy and its interface box
		{[][]byte{[]byte("INCR"), []byte("n")}, 1},                 // the interface box
	} {
		run(c.args)
		if got := testing.AllocsPerRun(100, func() { run(c.args) }) - base; got > c.max {
			t.Errorf("%s: %.1f allocations per run beyond PING's, want at most %.0f", c.args[0], got, c.max)
		}
	}
}

// TestStringsKeyspaceStats follows Redis: read lookups count keyspace hits
// and misses, the write-side lookups of SET, INCR, APPEND, ... do not.
func TestStringsKeyspaceStats(t *testing.T) {
	tt := newTester(t)
	for _, c := range []struct {
		args         []string
		hits, misses int64
	}{
		{[]string{"SET", "k", "v"}, 0, 0},
		{[]string{"GET", "k"}, 1, 0},
		{[]string{"GET", "nok"}, 1, 1},
		{[]string{"SET", "k", "v", "GET"}, 2, 1},
		{[]string{"SET", "k2", "v", "NX"}, 2, 1},
		{[]string{"INCR", "n"}, 2, 1},
		{[]string{"MGET", "k", "nok", "n"}, 4, 2},
		{[]string{"GETRANGE", "k", "0", "1"}, 5, 2},
		{[]string{"STRLEN", "nok"}, 5, 3},
		{[]string{"GETEX", "k"}, 6, 3},
		{[]string{"GETEX", "nok"}, 6, 4},
		{[]string{"GETSET", "k", "v"}, 7, 4},
		{[]string{"GETDEL", "nok"}, 7, 5},
		{[]string{"APPEND", "k", "x"}, 7, 5},
		{[]string{"SETRANGE", "k", "0", "x"}, 7, 5},
		{[]string{"MSETNX", "a", "1"}, 7, 5},
		{[]string{"INCRBYFLOAT", "f", "1"}, 7, 5},
		{[]string{"SETNX", "k", "v"}, 7, 5},
		{[]string{"MSET", "k", "v"}, 7, 5},
		{[]string{"PSETEX", "k", "100", "v"}, 7, 5},
		{[]string{"GETDEL", "k"}, 8, 5},
	} {
		tt.Do(c.args...)
		if s := &tt.E.Stats; s.KeyspaceHits != c.hits || s.KeyspaceMisses != c.misses {
			t.Errorf("after %v: hits %d misses %d, want %d %d", c.args, s.KeyspaceHits, s.KeyspaceMisses, c.hits, c.misses)
		}
	}
}

// TestStringsEncodingMarks checks the encoding each writer records for
// OBJECT ENCODING: Redis's depends on the command, not only on the bytes.
func TestStringsEncodingMarks(t *testing.T) {
	tt := newTester(t)
	for _, c := range []struct {
		args []string
		key  string
		want keyspace.StrEncoding
	}{
		{[]string{"SET", "a", "12"}, "a", keyspace.EncAuto},
		{[]string{"APPEND", "a", ""}, "a", keyspace.EncRaw},
		{[]string{"INCR", "a"}, "a", keyspace.EncAuto},
		{[]string{"SETRANGE", "a", "0", ""}, "a", keyspace.EncAuto},
		{[]string{"SETRANGE", "a", "0", "2"}, "a", keyspace.EncRaw},
		{[]string{"SET", "a", "x", "KEEPTTL"}, "a", keyspace.EncAuto},
		{[]string{"SETRANGE", "b", "0", "12"}, "b", keyspace.EncRaw},
		{[]string{"APPEND", "c", "123"}, "c", keyspace.EncAuto},
		{[]string{"INCRBYFLOAT", "c", "1"}, "c", keyspace.EncEmbstr},
		{[]string{"INCRBYFLOAT", "d", "1"}, "d", keyspace.EncEmbstr},
		{[]string{"GETSET", "d", "1"}, "d", keyspace.EncAuto},
		{[]string{"APPEND", "d", "1"}, "d", keyspace.EncRaw},
		{[]string{"MSET", "d", "1"}, "d", keyspace.EncAuto},
	} {
		tt.Do(c.args...)
		e := tt.E.DB(0).Peek([]byte(c.key))
		if e == nil {
			t.Fatalf("after %v: no key %s", c.args, c.key)
		}
		if e.Enc != c.want {
			t.Errorf("after %v: encoding mark %v, want %v", c.args, e.Enc, c.want)
		}
	}
}
