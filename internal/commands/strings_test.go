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

// strStep is one step of a string-family unit case.
type strStep func(t *testing.T, tt *tester)

// do runs args and expects want.
func sDo(want string, args ...string) strStep {
	return func(t *testing.T, tt *tester) {
		t.Helper()
		tt.Expect(want, args...)
	}
}

// advance moves the manual clock.
func sAdvance(d time.Duration) strStep {
	return func(t *testing.T, tt *tester) { tt.Clock.Add(d) }
}

// pttlIs checks key's remaining time to live in ms, with -1 for no deadline
// and -2 for no key, read from the keyspace so it does not depend on PTTL.
func sPTTLIs(key string, want int64) strStep {
	return func(t *testing.T, tt *tester) {
		t.Helper()
		if got := strPTTL(tt, key); got != want {
			t.Errorf("pttl %s: got %d, want %d", key, got, want)
		}
	}
}

// deadlineIs checks key's absolute deadline in Unix ms.
func sDeadlineIs(key string, want int64) strStep {
	return func(t *testing.T, tt *tester) {
		t.Helper()
		e := tt.E.DB(0).Peek([]byte(key))
		if e == nil {
			t.Fatalf("deadline %s: no key", key)
		}
		if got := e.Expiry(); got != want {
			t.Errorf("deadline %s: got %d, want %d", key, got, want)
		}
	}
}

// putOther stores a value of a type that is not a string.
func sPutOther(key string) strStep {
	return func(t *testing.T, tt *tester) {
		db := tt.E.DB(0)
		if e := db.Peek([]byte(key)); e != nil {
			db.Remove(e)
		}
		db.Add([]byte(key), strOtherType{})
	}
}

// dbLen checks the number of keys, expired ones not yet reclaimed included.
func sDBLen(want int) strStep {
	return func(t *testing.T, tt *tester) {
		t.Helper()
		if got := tt.E.DB(0).Len(); got != want {
			t.Errorf("db len: got %d, want %d", got, want)
		}
	}
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

func runStrCases(t *testing.T, cases []struct {
	name  string
	steps []strStep
}) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tt := newTester(t)
			for _, s := range c.steps {
				s(t, tt)
			}
		})
	}
}

var (
	sWrongType = errReply(engine.ErrWrongType)
	sSyntaxErr = errReply(engine.ErrSyntax)
	sNotInt    = errReply(engine.ErrNotInt)
	sNotFloat  = errReply(engine.ErrNotFloat)
	sEmptyBulk = bulk("")
)

func TestStringsGetSet(t *testing.T) {
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"get missing", []strStep{sDo(nilReply, "GET", "k")}},
		{"set get", []strStep{sDo(okReply, "SET", "k", "v"), sDo(bulk("v"), "GET", "k")}},
		{"binary", []strStep{sDo(okReply, "SET", "k", "a\x00\r\nb"), sDo(bulk("a\x00\r\nb"), "GET", "k")}},
		{"empty", []strStep{sDo(okReply, "SET", "k", ""), sDo(bulk(""), "GET", "k")}},
		{"overwrite clears ttl", []strStep{
			sDo(okReply, "SET", "k", "v", "EX", "10"), sPTTLIs("k", 10000),
			sDo(okReply, "SET", "k", "w"), sPTTLIs("k", -1)}},
		{"keepttl", []strStep{
			sDo(okReply, "SET", "k", "v", "PX", "5000"), sAdvance(time.Second),
			sDo(okReply, "SET", "k", "w", "KEEPTTL"), sPTTLIs("k", 4000), sDo(bulk("w"), "GET", "k")}},
		{"keepttl on missing key", []strStep{sDo(okReply, "SET", "k", "w", "keepttl"), sPTTLIs("k", -1)}},
		{"keepttl does not revive expired", []strStep{
			sDo(okReply, "SET", "k", "v", "PX", "10"), sAdvance(20 * time.Millisecond),
			sDo(okReply, "SET", "k", "w", "KEEPTTL"), sPTTLIs("k", -1), sDo(bulk("w"), "GET", "k")}},
		{"get wrong type", []strStep{sPutOther("z"), sDo(sWrongType, "GET", "z")}},
		{"set replaces other type", []strStep{sPutOther("z"), sDo(okReply, "SET", "z", "v"), sDo(bulk("v"), "GET", "z")}},
		{"value is copied", []strStep{func(t *testing.T, tt *tester) {
			args := [][]byte{[]byte("SET"), []byte("k"), []byte("abc")}
			tt.E.Lock()
			var w resp.Writer
			tt.E.Exec(tt.C, args, &w)
			tt.E.Unlock()
			args[2][0] = 'X'
			tt.Expect(bulk("abc"), "GET", "k")
		}}},
	})
}

func TestStringsSetOptions(t *testing.T) {
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"nx", []strStep{
			sDo(okReply, "SET", "k", "v", "NX"), sDo(nilReply, "SET", "k", "w", "nx"), sDo(bulk("v"), "GET", "k")}},
		{"xx", []strStep{
			sDo(nilReply, "SET", "k", "v", "XX"), sDo(nilReply, "GET", "k"),
			sDo(okReply, "SET", "k", "v"), sDo(okReply, "SET", "k", "w", "xX"), sDo(bulk("w"), "GET", "k")}},
		{"nx on expired key", []strStep{
			sDo(okReply, "SET", "k", "v", "PX", "5"), sAdvance(6 * time.Millisecond),
			sDo(okReply, "SET", "k", "w", "NX"), sDo(bulk("w"), "GET", "k")}},
		{"nx xx conflict", []strStep{sDo(sSyntaxErr, "SET", "k", "v", "NX", "XX"), sDo(sSyntaxErr, "SET", "k", "v", "XX", "NX")}},
		{"repeated flags", []strStep{
			sDo(okReply, "SET", "k", "v", "NX", "NX"), sDo(okReply, "SET", "k", "v", "KEEPTTL", "KEEPTTL"),
			sDo(bulk("v"), "SET", "k", "w", "GET", "GET")}},
		{"repeated expiry last wins", []strStep{
			sDo(okReply, "SET", "k", "v", "EX", "abc", "EX", "10"), sPTTLIs("k", 10000),
			sDo(okReply, "SET", "k", "v", "PX", "1", "PX", "2000"), sPTTLIs("k", 2000)}},
		{"expiry conflicts", []strStep{
			sDo(sSyntaxErr, "SET", "k", "v", "EX", "10", "PX", "10"),
			sDo(sSyntaxErr, "SET", "k", "v", "EX", "10", "EXAT", "10"),
			sDo(sSyntaxErr, "SET", "k", "v", "PXAT", "10", "EXAT", "10"),
			sDo(sSyntaxErr, "SET", "k", "v", "EX", "10", "KEEPTTL"),
			sDo(sSyntaxErr, "SET", "k", "v", "KEEPTTL", "PX", "10"),
			sDo(sSyntaxErr, "SET", "k", "v", "PERSIST"),
			sDo(sSyntaxErr, "SET", "k", "v", "EX"),
			sDo(sSyntaxErr, "SET", "k", "v", "foo"),
			sDo(sSyntaxErr, "SET", "k", "v", ""),
			sDo(nilReply, "GET", "k")}},
		{"options are C strings", []strStep{
			sDo(okReply, "SET", "k", "v", "nx\x00junk"), sDo(nilReply, "SET", "k", "v", "NX\x00"),
			sDo(okReply, "SET", "k", "v", "ex\x00", "100"), sPTTLIs("k", 100000),
			sDo(sSyntaxErr, "SET", "k", "v", "\x00nx")}},
		{"ex", []strStep{sDo(okReply, "SET", "k", "v", "EX", "100"), sPTTLIs("k", 100000)}},
		{"px", []strStep{sDo(okReply, "SET", "k", "v", "PX", "1500"), sPTTLIs("k", 1500)}},
		{"exat", []strStep{func(t *testing.T, tt *tester) {
			at := strNow(tt)/1000 + 50
			tt.Expect(okReply, "SET", "k", "v", "EXAT", strconv.FormatInt(at, 10))
			sDeadlineIs("k", at*1000)(t, tt)
		}}},
		{"pxat", []strStep{func(t *testing.T, tt *tester) {
			at := strNow(tt) + 1234
			tt.Expect(okReply, "SET", "k", "v", "PXAT", strconv.FormatInt(at, 10))
			sDeadlineIs("k", at)(t, tt)
		}}},
		{"pxat max", []strStep{sDo(okReply, "SET", "k", "v", "PXAT", "9223372036854775807"), sDeadlineIs("k", math.MaxInt64)}},
		{"exat max", []strStep{sDo(okReply, "SET", "k", "v", "EXAT", "9223372036854775"), sDeadlineIs("k", 9223372036854775000)}},
		{"expiry in the past", []strStep{
			sDo(okReply, "SET", "k", "v", "PXAT", "1"), sDBLen(1), sDo(nilReply, "GET", "k"), sDBLen(0),
			sDo(okReply, "SET", "k", "v", "EXAT", "1"), sDo(nilReply, "GET", "k")}},
		{"expires after ttl", []strStep{
			sDo(okReply, "SET", "k", "v", "PX", "100"), sAdvance(100 * time.Millisecond), sDo(bulk("v"), "GET", "k"),
			sAdvance(time.Millisecond), sDo(nilReply, "GET", "k")}},
		{"invalid expiry", []strStep{
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EX", "0"),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "PX", "-1"),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EXAT", "0"),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "PXAT", "-100"),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EX", "9223372036854776"),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EXAT", "9223372036854776"),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "EX", "9223372036854775"),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "v", "PX", "9223372036854775807"),
			sDo(sNotInt, "SET", "k", "v", "EX", "abc"),
			sDo(sNotInt, "SET", "k", "v", "EX", "1.5"),
			sDo(sNotInt, "SET", "k", "v", "PX", " 1"),
			sDo(sNotInt, "SET", "k", "v", "PX", "9223372036854775808"),
			sDo(nilReply, "GET", "k")}},
		{"get option", []strStep{
			sDo(nilReply, "SET", "k", "v", "GET"), sDo(bulk("v"), "GET", "k"),
			sDo(bulk("v"), "SET", "k", "w", "GET"), sDo(bulk("w"), "GET", "k")}},
		{"get wrong type does not set", []strStep{
			sPutOther("z"), sDo(sWrongType, "SET", "z", "v", "GET"), sDo(sWrongType, "GET", "z")}},
		{"get with nx", []strStep{
			sDo(nilReply, "SET", "k", "v", "NX", "GET"), sDo(bulk("v"), "SET", "k", "w", "NX", "GET"), sDo(bulk("v"), "GET", "k")}},
		{"get with xx", []strStep{
			sDo(nilReply, "SET", "k", "v", "XX", "GET"), sDo(nilReply, "GET", "k"),
			sDo(okReply, "SET", "k", "v"), sDo(bulk("v"), "SET", "k", "w", "GET", "XX"), sDo(bulk("w"), "GET", "k")}},
		{"get with expiry", []strStep{
			sDo(nilReply, "SET", "k", "v", "GET", "EX", "10"), sPTTLIs("k", 10000),
			sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "k", "w", "GET", "EX", "0"),
			sDo(bulk("v"), "GET", "k")}},
		{"expiry error before wrong type", []strStep{
			sPutOther("z"), sDo(errReply("ERR invalid expire time in 'set' command"), "SET", "z", "v", "GET", "PX", "0")}},
		{"arity", []strStep{sDo(errReply("ERR wrong number of arguments for 'set' command"), "SET", "k")}},
	})
}

func TestStringsSetVariants(t *testing.T) {
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"setnx", []strStep{
			sDo(integer(1), "SETNX", "k", "v"), sDo(integer(0), "SETNX", "k", "w"), sDo(bulk("v"), "GET", "k"),
			sPutOther("z"), sDo(integer(0), "SETNX", "z", "w")}},
		{"setex", []strStep{
			sDo(okReply, "SETEX", "k", "10", "v"), sPTTLIs("k", 10000), sDo(bulk("v"), "GET", "k"),
			sPutOther("z"), sDo(okReply, "SETEX", "z", "10", "v"), sDo(bulk("v"), "GET", "z")}},
		{"setex errors", []strStep{
			sDo(errReply("ERR invalid expire time in 'setex' command"), "SETEX", "k", "0", "v"),
			sDo(errReply("ERR invalid expire time in 'setex' command"), "SETEX", "k", "-10", "v"),
			sDo(errReply("ERR invalid expire time in 'setex' command"), "SETEX", "k", "9223372036854775807", "v"),
			sDo(sNotInt, "SETEX", "k", "ten", "v"),
			sDo(errReply("ERR wrong number of arguments for 'setex' command"), "SETEX", "k", "10"),
			sDo(nilReply, "GET", "k")}},
		{"psetex", []strStep{sDo(okReply, "PSETEX", "k", "1500", "v"), sPTTLIs("k", 1500)}},
		{"psetex errors", []strStep{
			sDo(errReply("ERR invalid expire time in 'psetex' command"), "PSETEX", "k", "0", "v"),
			sDo(errReply("ERR invalid expire time in 'psetex' command"), "PSETEX", "k", "9223372036854775807", "v"),
			sDo(sNotInt, "PSETEX", "k", "1e3", "v")}},
		{"getset", []strStep{
			sDo(nilReply, "GETSET", "k", "v"), sDo(okReply, "SET", "k", "v", "EX", "100"),
			sDo(bulk("v"), "GETSET", "k", "w"), sPTTLIs("k", -1), sDo(bulk("w"), "GET", "k"),
			sPutOther("z"), sDo(sWrongType, "GETSET", "z", "v")}},
		{"getdel", []strStep{
			sDo(nilReply, "GETDEL", "k"), sDo(okReply, "SET", "k", "v"), sDo(bulk("v"), "GETDEL", "k"),
			sDBLen(0), sPutOther("z"), sDo(sWrongType, "GETDEL", "z"), sDBLen(1)}},
	})
}

func TestStringsGetEx(t *testing.T) {
	invalid := errReply("ERR invalid expire time in 'getex' command")
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"plain", []strStep{sDo(nilReply, "GETEX", "k"), sDo(okReply, "SET", "k", "v", "EX", "10"),
			sDo(bulk("v"), "GETEX", "k"), sPTTLIs("k", 10000)}},
		{"ex px", []strStep{sDo(okReply, "SET", "k", "v"),
			sDo(bulk("v"), "GETEX", "k", "EX", "100"), sPTTLIs("k", 100000),
			sDo(bulk("v"), "GETEX", "k", "px", "50"), sPTTLIs("k", 50)}},
		{"exat pxat", []strStep{sDo(okReply, "SET", "k", "v"), func(t *testing.T, tt *tester) {
			at := strNow(tt) + 7777
			tt.Expect(bulk("v"), "GETEX", "k", "PXAT", strconv.FormatInt(at, 10))
			sDeadlineIs("k", at)(t, tt)
			sec := strNow(tt)/1000 + 9
			tt.Expect(bulk("v"), "GETEX", "k", "EXAT", strconv.FormatInt(sec, 10))
			sDeadlineIs("k", sec*1000)(t, tt)
		}}},
		{"past deadline deletes now", []strStep{sDo(okReply, "SET", "k", "v"),
			sDo(bulk("v"), "GETEX", "k", "EXAT", "1"), sDBLen(0), sDo(nilReply, "GET", "k")}},
		{"deadline equal to now deletes", []strStep{sDo(okReply, "SET", "k", "v"), func(t *testing.T, tt *tester) {
			tt.Expect(bulk("v"), "GETEX", "k", "PXAT", strconv.FormatInt(strNow(tt), 10))
			sDBLen(0)(t, tt)
		}}},
		{"persist", []strStep{sDo(okReply, "SET", "k", "v", "EX", "10"),
			sDo(bulk("v"), "GETEX", "k", "PERSIST"), sPTTLIs("k", -1), sDo(bulk("v"), "GETEX", "k", "persist")}},
		{"syntax", []strStep{sDo(okReply, "SET", "k", "v"),
			sDo(sSyntaxErr, "GETEX", "k", "PERSIST", "EX", "10"),
			sDo(sSyntaxErr, "GETEX", "k", "EX", "10", "PERSIST"),
			sDo(sSyntaxErr, "GETEX", "k", "EX", "10", "PX", "10"),
			sDo(sSyntaxErr, "GETEX", "k", "EX"),
			sDo(sSyntaxErr, "GETEX", "k", "KEEPTTL"),
			sDo(sSyntaxErr, "GETEX", "k", "NX"),
			sDo(sSyntaxErr, "GETEX", "k", "GET"),
			sDo(sSyntaxErr, "GETEX", "missing", "foo"),
			sPTTLIs("k", -1)}},
		{"repeated ex", []strStep{sDo(okReply, "SET", "k", "v"), sDo(bulk("v"), "GETEX", "k", "EX", "10", "EX", "20"), sPTTLIs("k", 20000)}},
		{"invalid expiry", []strStep{sDo(okReply, "SET", "k", "v"),
			sDo(invalid, "GETEX", "k", "EX", "0"), sDo(invalid, "GETEX", "k", "PX", "-1"),
			sDo(invalid, "GETEX", "k", "PX", "9223372036854775807"), sDo(invalid, "GETEX", "k", "EXAT", "9223372036854776"),
			sDo(sNotInt, "GETEX", "k", "EX", "abc"), sPTTLIs("k", -1)}},
		{"missing key ignores bad expiry", []strStep{sDo(nilReply, "GETEX", "k", "EX", "abc"), sDo(nilReply, "GETEX", "k", "EX", "0")}},
		{"wrong type before bad expiry", []strStep{sPutOther("z"), sDo(sWrongType, "GETEX", "z", "EX", "abc"), sDo(sWrongType, "GETEX", "z")}},
	})
}

func TestStringsMulti(t *testing.T) {
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"mget", []strStep{sDo(okReply, "SET", "a", "1"), sPutOther("z"),
			sDo(array(bulk("1"), nilReply, nilReply, bulk("1")), "MGET", "a", "b", "z", "a")}},
		{"mset", []strStep{sDo(okReply, "SET", "a", "x", "EX", "10"), sPutOther("z"),
			sDo(okReply, "MSET", "a", "1", "z", "2", "a", "3"), sPTTLIs("a", -1),
			sDo(array(bulk("3"), bulk("2")), "MGET", "a", "z")}},
		{"mset odd", []strStep{sDo(errReply("ERR wrong number of arguments for 'mset' command"), "MSET", "a", "1", "b"), sDBLen(0)}},
		{"msetnx", []strStep{
			sDo(integer(1), "MSETNX", "a", "1", "b", "2"), sDo(integer(0), "MSETNX", "c", "3", "a", "9"),
			sDo(array(bulk("1"), bulk("2"), nilReply), "MGET", "a", "b", "c"),
			sPutOther("z"), sDo(integer(0), "MSETNX", "z", "1"),
			sDo(integer(1), "MSETNX", "d", "1", "d", "2"), sDo(bulk("2"), "GET", "d")}},
		{"msetnx odd", []strStep{sDo(errReply("ERR wrong number of arguments for 'msetnx' command"), "MSETNX", "a", "1", "b")}},
		{"msetnx expired counts as missing", []strStep{
			sDo(okReply, "SET", "a", "1", "PX", "1"), sAdvance(2 * time.Millisecond), sDo(integer(1), "MSETNX", "a", "2")}},
	})
}

func TestStringsIncrDecr(t *testing.T) {
	overflow := errReply(engine.ErrOverflow)
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"incr", []strStep{sDo(integer(1), "INCR", "n"), sDo(integer(2), "INCR", "n"), sDo(bulk("2"), "GET", "n")}},
		{"decr", []strStep{sDo(integer(-1), "DECR", "n"), sDo(integer(-2), "DECR", "n"), sDo(bulk("-2"), "GET", "n")}},
		{"incrby decrby", []strStep{sDo(integer(10), "INCRBY", "n", "10"), sDo(integer(-5), "DECRBY", "n", "15"),
			sDo(integer(-4), "INCRBY", "n", "1"), sDo(bulk("-4"), "GET", "n")}},
		{"keeps ttl", []strStep{sDo(okReply, "SET", "n", "5", "EX", "10"), sDo(integer(6), "INCR", "n"), sPTTLIs("n", 10000)}},
		{"in place rewrite", []strStep{sDo(okReply, "SET", "n", "-9223372036854775808"), sDo(integer(-9223372036854775807), "INCR", "n"),
			sDo(integer(0), "INCRBY", "n", "9223372036854775807"), sDo(bulk("0"), "GET", "n"), sDo(integer(1), "INCR", "n"), sDo(bulk("1"), "GET", "n")}},
		{"not integers", []strStep{
			sDo(okReply, "SET", "a", " 1"), sDo(sNotInt, "INCR", "a"),
			sDo(okReply, "SET", "a", "1 "), sDo(sNotInt, "INCR", "a"),
			sDo(okReply, "SET", "a", "01"), sDo(sNotInt, "INCR", "a"),
			sDo(okReply, "SET", "a", "+1"), sDo(sNotInt, "INCR", "a"),
			sDo(okReply, "SET", "a", "-0"), sDo(sNotInt, "INCR", "a"),
			sDo(okReply, "SET", "a", "1.0"), sDo(sNotInt, "INCR", "a"),
			sDo(okReply, "SET", "a", ""), sDo(sNotInt, "INCR", "a"),
			sDo(okReply, "SET", "a", "9223372036854775808"), sDo(sNotInt, "INCR", "a"),
			sDo(sNotInt, "INCRBY", "b", "1.5"), sDo(sNotInt, "DECRBY", "b", "x"), sDo(sNotInt, "INCRBY", "b", "9223372036854775808"),
			sDo(bulk("9223372036854775808"), "GET", "a"), sDo(nilReply, "GET", "b")}},
		{"overflow", []strStep{
			sDo(okReply, "SET", "n", "9223372036854775807"), sDo(overflow, "INCR", "n"), sDo(overflow, "INCRBY", "n", "1"),
			sDo(integer(9223372036854775806), "DECR", "n"),
			sDo(okReply, "SET", "n", "-9223372036854775808"), sDo(overflow, "DECR", "n"), sDo(overflow, "DECRBY", "n", "1"),
			sDo(overflow, "INCRBY", "n", "-1"), sDo(integer(-1), "INCRBY", "n", "9223372036854775807"),
			sDo(integer(-9223372036854775807), "DECRBY", "m", "9223372036854775807"), sDo(overflow, "DECRBY", "m", "2"),
			sDo(bulk("-9223372036854775807"), "GET", "m")}},
		{"decrby llong min", []strStep{
			sDo(errReply("ERR decrement would overflow"), "DECRBY", "n", "-9223372036854775808"),
			sDo(integer(math.MinInt64), "INCRBY", "n", "-9223372036854775808")}},
		{"wrong type", []strStep{sPutOther("z"), sDo(sWrongType, "INCR", "z"), sDo(sWrongType, "DECRBY", "z", "1"),
			sDo(sNotInt, "INCRBY", "z", "x"), sDo(errReply("ERR decrement would overflow"), "DECRBY", "z", "-9223372036854775808")}},
	})
}

func TestStringsIncrByFloat(t *testing.T) {
	nanInf := errReply(engine.ErrNaNOrInf)
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"basic", []strStep{sDo(bulk("1.5"), "INCRBYFLOAT", "f", "1.5"), sDo(bulk("1001.5"), "INCRBYFLOAT", "f", "1e3"),
			sDo(bulk("-500"), "INCRBYFLOAT", "f", "-1501.5"), sDo(bulk("-484"), "INCRBYFLOAT", "f", "0x10"),
			sDo(bulk("-482.89999999999999999"), "INCRBYFLOAT", "f", "1.1"), sDo(bulk("-482.89999999999999999"), "GET", "f")}},
		{"trailing zeros", []strStep{sDo(bulk("10.5"), "INCRBYFLOAT", "f", "10.50"), sDo(bulk("5010.5"), "INCRBYFLOAT", "f", "5.0e3")}},
		{"integer value", []strStep{sDo(okReply, "SET", "f", "1"), sDo(bulk("2"), "INCRBYFLOAT", "f", "1")}},
		{"negative zero", []strStep{sDo(bulk("0"), "INCRBYFLOAT", "f", "-0")}},
		{"bad values", []strStep{
			sDo(okReply, "SET", "f", "abc"), sDo(sNotFloat, "INCRBYFLOAT", "f", "1"),
			sDo(okReply, "SET", "f", " 1.5"), sDo(sNotFloat, "INCRBYFLOAT", "f", "1"),
			sDo(okReply, "SET", "f", "1.5 "), sDo(sNotFloat, "INCRBYFLOAT", "f", "1"),
			sDo(sNotFloat, "INCRBYFLOAT", "g", "abc"), sDo(sNotFloat, "INCRBYFLOAT", "g", " 1"), sDo(sNotFloat, "INCRBYFLOAT", "g", "nan"),
			sDo(sNotFloat, "INCRBYFLOAT", "g", ""), sPTTLIs("g", -2)}},
		{"infinity", []strStep{
			sDo(nanInf, "INCRBYFLOAT", "f", "inf"), sDo(okReply, "SET", "f", "inf"), sDo(nanInf, "INCRBYFLOAT", "f", "0"),
			sDo(nanInf, "INCRBYFLOAT", "f", "-inf"), sPTTLIs("g", -2)}},
		{"wrong type first", []strStep{sPutOther("z"), sDo(sWrongType, "INCRBYFLOAT", "z", "abc")}},
		{"keeps ttl", []strStep{sDo(okReply, "SET", "f", "1", "PX", "900"), sDo(bulk("1.25"), "INCRBYFLOAT", "f", "0.25"), sPTTLIs("f", 900)}},
	})
}

func TestStringsAppendStrlen(t *testing.T) {
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"append", []strStep{sDo(integer(3), "APPEND", "k", "abc"), sDo(integer(6), "APPEND", "k", "def"),
			sDo(integer(6), "APPEND", "k", ""), sDo(bulk("abcdef"), "GET", "k"), sDo(integer(6), "STRLEN", "k")}},
		{"append empty creates", []strStep{sDo(integer(0), "APPEND", "k", ""), sDBLen(1), sDo(bulk(""), "GET", "k")}},
		{"append keeps ttl", []strStep{sDo(okReply, "SET", "k", "a", "EX", "5"), sDo(integer(2), "APPEND", "k", "b"), sPTTLIs("k", 5000)}},
		{"append wrong type", []strStep{sPutOther("z"), sDo(sWrongType, "APPEND", "z", "x")}},
		{"append many", []strStep{func(t *testing.T, tt *tester) {
			var want strings.Builder
			for i := range 100 {
				s := strconv.Itoa(i)
				want.WriteString(s)
				tt.Expect(integer(int64(want.Len())), "APPEND", "k", s)
			}
			tt.Expect(bulk(want.String()), "GET", "k")
		}}},
		{"strlen", []strStep{sDo(integer(0), "STRLEN", "k"), sDo(okReply, "SET", "k", "a\x00b"), sDo(integer(3), "STRLEN", "k"),
			sPutOther("z"), sDo(sWrongType, "STRLEN", "z")}},
		{"append length limit", []strStep{sDo(okReply, "SET", "k", "abc"), func(t *testing.T, tt *tester) {
			tt.E.Cfg.ProtoMaxBulkLen.Store(5)
			tt.Expect(integer(5), "APPEND", "k", "de")
			tt.Expect(errReply(engine.ErrStringTooLong), "APPEND", "k", "f")
			tt.Expect(integer(6), "APPEND", "new", "abcdef") // no check when creating
		}}},
	})
}

func TestStringsGetRange(t *testing.T) {
	steps := []strStep{sDo(okReply, "SET", "s", "Hello World"), sDo(okReply, "SET", "e", "")}
	for _, c := range []struct{ start, end, want string }{
		{"0", "4", "Hello"}, {"-5", "-1", "World"}, {"-1", "-5", ""}, {"5", "2", ""}, {"0", "-100", "H"},
		{"-100", "-100", "H"}, {"-100", "100", "Hello World"}, {"100", "200", ""}, {"0", "9223372036854775807", "Hello World"},
		{"-9223372036854775808", "-1", "Hello World"}, {"10", "10", "d"}, {"11", "11", ""}, {"0", "0", "H"}, {"-1", "-1", "d"},
	} {
		steps = append(steps, sDo(bulk(c.want), "GETRANGE", "s", c.start, c.end))
	}
	steps = append(steps,
		sDo(sEmptyBulk, "GETRANGE", "e", "0", "-1"), sDo(sEmptyBulk, "GETRANGE", "e", "0", "0"), sDo(sEmptyBulk, "GETRANGE", "e", "-1", "0"),
		sDo(sEmptyBulk, "GETRANGE", "missing", "0", "-1"),
		sDo(sNotInt, "GETRANGE", "missing", "a", "1"), sDo(sNotInt, "GETRANGE", "s", "0", "b"),
		sPutOther("z"), sDo(sWrongType, "GETRANGE", "z", "0", "1"), sDo(sNotInt, "GETRANGE", "z", "x", "1"))
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{{"getrange", steps}})
}

func TestStringsSetRange(t *testing.T) {
	tooLong := errReply(engine.ErrStringTooLong)
	runStrCases(t, []struct {
		name  string
		steps []strStep
	}{
		{"overwrite", []strStep{sDo(okReply, "SET", "k", "Hello World"), sDo(integer(11), "SETRANGE", "k", "6", "Redis"),
			sDo(bulk("Hello Redis"), "GET", "k"), sDo(integer(13), "SETRANGE", "k", "10", "XYZ"), sDo(bulk("Hello RediXYZ"), "GET", "k")}},
		{"zero padding", []strStep{sDo(integer(4), "SETRANGE", "k", "3", "x"), sDo(bulk("\x00\x00\x00x"), "GET", "k"),
			sDo(integer(8), "SETRANGE", "k", "6", "yz"), sDo(bulk("\x00\x00\x00x\x00\x00yz"), "GET", "k")}},
		{"empty value", []strStep{sDo(integer(0), "SETRANGE", "k", "5", ""), sDBLen(0),
			sDo(okReply, "SET", "k", "abc"), sDo(integer(3), "SETRANGE", "k", "100", ""), sDo(bulk("abc"), "GET", "k")}},
		{"errors", []strStep{
			sDo(errReply(engine.ErrOffsetRange), "SETRANGE", "k", "-1", "x"), sDo(errReply(engine.ErrOffsetRange), "SETRANGE", "k", "-1", ""),
			sDo(sNotInt, "SETRANGE", "k", "abc", "x"), sDo(sNotInt, "SETRANGE", "k", "9223372036854775808", "x"),
			sDo(tooLong, "SETRANGE", "k", "536870912", "x"), sDo(tooLong, "SETRANGE", "k", "9223372036854775807", "abc"),
			sDo(integer(0), "SETRANGE", "k", "536870912", ""), sDBLen(0)}},
		{"wrong type", []strStep{sPutOther("z"), sDo(sWrongType, "SETRANGE", "z", "0", "x"), sDo(sWrongType, "SETRANGE", "z", "0", ""),
			sDo(errReply(engine.ErrOffsetRange), "SETRANGE", "z", "-1", "x")}},
		{"keeps ttl", []strStep{sDo(okReply, "SET", "k", "abc", "EX", "3"), sDo(integer(3), "SETRANGE", "k", "0", "x"), sPTTLIs("k", 3000)}},
		{"limit", []strStep{sDo(okReply, "SET", "k", "abc"), func(t *testing.T, tt *tester) {
			tt.E.Cfg.ProtoMaxBulkLen.Store(10)
			tt.Expect(integer(10), "SETRANGE", "k", "9", "x")
			tt.Expect(tooLong, "SETRANGE", "k", "10", "x")
			tt.Expect(tooLong, "SETRANGE", "new", "9", "xy")
			tt.Expect(integer(10), "SETRANGE", "k", "0", "0123456789")
		}}},
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
