package commands

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
)

// The tester's clock starts at 1_700_000_000 s.
const expNow = int64(1_700_000_000_000)

func TestExpireSetsDeadlines(t *testing.T) {
	runCases(t, []cmdCase{
		{"expire", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIRE", "k", "100"),
			cmd(integer(100_000), "PTTL", "k"),
			cmd(integer(100), "TTL", "k"),
			cmd(integer(expNow+100_000), "PEXPIRETIME", "k"),
			cmd(integer(1_700_000_100), "EXPIRETIME", "k"),
		}},
		{"pexpire", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "PEXPIRE", "k", "1234"),
			cmd(integer(1234), "PTTL", "k"),
		}},
		{"expireat", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIREAT", "k", "1700000050"),
			cmd(integer(50_000), "PTTL", "k"),
		}},
		{"pexpireat", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "PEXPIREAT", "k", strconv.FormatInt(expNow+7, 10)),
			cmd(integer(7), "PTTL", "k"),
		}},
		{"missing key", []step{
			cmd(kZero, "EXPIRE", "k", "10"),
			cmd(kZero, "PEXPIREAT", "k", "1"),
			cmd(integer(-2), "TTL", "k"),
			cmd(integer(-2), "PTTL", "k"),
			cmd(integer(-2), "EXPIRETIME", "k"),
			cmd(integer(-2), "PEXPIRETIME", "k"),
		}},
		{"no ttl", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(integer(-1), "TTL", "k"),
			cmd(integer(-1), "PTTL", "k"),
			cmd(integer(-1), "EXPIRETIME", "k"),
			cmd(integer(-1), "PEXPIRETIME", "k"),
		}},
		{"works on sorted sets", []step{
			kZset(0, "z", "m"),
			cmd(kOne, "EXPIRE", "z", "5"),
			cmd(integer(5), "TTL", "z"),
			cmd(kOne, "PERSIST", "z"),
		}},
		{"the deadline survives overwrite only where the writer keeps it", []step{
			cmd(okReply, "SET", "k", "v", "EX", "10"),
			cmd(okReply, "SET", "k", "w"),
			cmd(integer(-1), "TTL", "k"),
		}},
	})
}

func TestExpirePastDeadlineDeletes(t *testing.T) {
	runCases(t, []cmdCase{
		{"negative expire", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIRE", "k", "-1"),
			cmd(kZero, "EXISTS", "k"), kLen(0),
		}},
		{"zero", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "PEXPIRE", "k", "0"), // deadline == now: deleted at once
			kLen(0),
		}},
		{"expireat in the past", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIREAT", "k", "1"),
			kLen(0),
		}},
		{"pexpireat now", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "PEXPIREAT", "k", strconv.FormatInt(expNow, 10)),
			kLen(0),
		}},
		{"pexpireat now+1", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "PEXPIREAT", "k", strconv.FormatInt(expNow+1, 10)),
			cmd(integer(1), "PTTL", "k"),
		}},
		{"nx on a key without ttl, in the past", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIRE", "k", "-5", "NX"),
			kLen(0),
		}},
		{"lt in the past", []step{
			cmd(okReply, "SET", "k", "v", "EX", "100"),
			cmd(kOne, "EXPIRE", "k", "-5", "LT"),
			kLen(0),
		}},
	})
}

func TestExpireOptions(t *testing.T) {
	runCases(t, []cmdCase{
		{"nx", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIRE", "k", "100", "NX"),
			cmd(kZero, "EXPIRE", "k", "200", "nx"),
			cmd(integer(100), "TTL", "k"),
		}},
		{"xx", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kZero, "EXPIRE", "k", "100", "XX"),
			cmd(integer(-1), "TTL", "k"),
			cmd(kOne, "EXPIRE", "k", "100"),
			cmd(kOne, "EXPIRE", "k", "200", "xx"),
			cmd(integer(200), "TTL", "k"),
		}},
		{"gt", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kZero, "EXPIRE", "k", "100", "GT"), // no ttl is infinite: nothing is greater
			cmd(kOne, "EXPIRE", "k", "100"),
			cmd(kZero, "EXPIRE", "k", "100", "GT"), // equal is not greater
			cmd(kZero, "EXPIRE", "k", "50", "GT"),
			cmd(kOne, "EXPIRE", "k", "101", "GT"),
			cmd(integer(101), "TTL", "k"),
		}},
		{"lt", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIRE", "k", "100", "LT"), // anything is less than infinite
			cmd(kZero, "EXPIRE", "k", "100", "LT"),
			cmd(kZero, "EXPIRE", "k", "200", "LT"),
			cmd(kOne, "EXPIRE", "k", "99", "LT"),
			cmd(integer(99), "TTL", "k"),
		}},
		{"xx gt and xx lt combine", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kZero, "EXPIRE", "k", "100", "XX", "GT"),
			cmd(kZero, "EXPIRE", "k", "100", "XX", "LT"), // XX fails first without a ttl
			cmd(kOne, "EXPIRE", "k", "100"),
			cmd(kOne, "EXPIRE", "k", "150", "GT", "XX"),
			cmd(kOne, "EXPIRE", "k", "120", "lt", "xx"),
			cmd(integer(120), "TTL", "k"),
		}},
		{"repeats allowed", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(kOne, "EXPIRE", "k", "100", "NX", "NX"),
			cmd(kOne, "EXPIRE", "k", "200", "GT", "GT", "XX"),
		}},
		{"errors", []step{
			cmd(okReply, "SET", "k", "v"),
			cmd(errReply(engine.ErrExpireNXCombo), "EXPIRE", "k", "100", "NX", "XX"),
			cmd(errReply(engine.ErrExpireNXCombo), "EXPIRE", "k", "100", "NX", "GT"),
			cmd(errReply(engine.ErrExpireNXCombo), "EXPIRE", "k", "100", "LT", "NX"),
			cmd(errReply(engine.ErrExpireNXCombo), "EXPIRE", "k", "100", "GT", "LT", "NX"), // NX's error wins
			cmd(errReply(engine.ErrExpireGTLT), "PEXPIRE", "k", "100", "GT", "LT"),
			cmd(errReply(engine.ErrExpireGTLT), "EXPIREAT", "k", "100", "XX", "LT", "GT"),
			cmd(errReply("ERR Unsupported option foo"), "EXPIRE", "k", "100", "foo"),
			cmd(errReply("ERR Unsupported option foo"), "EXPIRE", "k", "100", "NX", "foo\x00bar"),
			cmd(errReply("ERR Unsupported option foo  bar"), "EXPIRE", "k", "100", "foo\r\nbar"),
			cmd(errReply("ERR Unsupported option foo"), "EXPIRE", "k", "abc", "foo"), // options before the number
			cmd(errReply(engine.ErrExpireNXCombo), "EXPIRE", "k", "abc", "NX", "XX"),
			cmd(kOne, "EXPIRE", "k", "100", "NX\x00junk"), // options end at NUL, like strcasecmp
			cmd(kNotInt, "EXPIRE", "k", "abc"),
			cmd(kNotInt, "EXPIRE", "k", "1.5"),
			cmd(kNotInt, "EXPIRE", "k", ""),
			cmd(kNotInt, "EXPIRE", "k", " 1"),
			cmd(errReply(engine.ErrWrongArgs("expire")), "EXPIRE", "k"),
			cmd(errReply(engine.ErrWrongArgs("ttl")), "TTL", "k", "x"),
			cmd(errReply(engine.ErrWrongArgs("persist")), "PERSIST"),
			cmd(integer(100), "TTL", "k"),
		}},
	})
}

func TestExpireOverflow(t *testing.T) {
	tests := []struct {
		cmd, arg string
		err      bool
	}{
		{"EXPIRE", "9223372036854775807", true},
		{"EXPIRE", "9223372036854776", true}, // > LLONG_MAX/1000
		{"EXPIRE", "9223372036854775", true}, // fits the conversion, not the addition of now
		{"EXPIRE", "-9223372036854775", false},
		{"EXPIRE", "-9223372036854776", true},
		{"PEXPIRE", "9223372036854775807", true},
		{"PEXPIRE", strconv.FormatInt(9223372036854775807-expNow, 10), false},
		{"PEXPIRE", strconv.FormatInt(9223372036854775807-expNow+1, 10), true},
		{"PEXPIRE", "-9223372036854775808", false},
		{"EXPIREAT", "9223372036854775", false},
		{"EXPIREAT", "9223372036854776", true},
		{"EXPIREAT", "-9223372036854775", false},
		{"PEXPIREAT", "9223372036854775807", false},
		{"PEXPIREAT", "-9223372036854775808", false},
		{"EXPIRE", "9223372036854775808", false}, // not an integer at all: a different error
	}
	for _, tc := range tests {
		for _, exists := range []bool{false, true} {
			tt := newTester(t)
			if exists {
				tt.Expect(okReply, "SET", "k", "v")
			}
			got := tt.Do(tc.cmd, "k", tc.arg)
			var want string
			switch {
			case tc.err:
				want = errReply(engine.ErrInvalidExpire(lower(tc.cmd)))
			case tc.arg == "9223372036854775808":
				want = kNotInt
			case exists:
				want = kOne
			default:
				want = kZero
			}
			if got != want {
				t.Errorf("%s k %s (exists %v) = %q, want %q", tc.cmd, tc.arg, exists, got, want)
			}
		}
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func TestExpireTTLRounding(t *testing.T) {
	tests := []struct {
		pttl     int64
		ttl      int64
		pexpTime int64
		expTime  int64
	}{
		{1, 0, expNow + 1, 1_700_000_000},
		{499, 0, expNow + 499, 1_700_000_000},
		{500, 1, expNow + 500, 1_700_000_001},
		{1499, 1, expNow + 1499, 1_700_000_001},
		{1500, 2, expNow + 1500, 1_700_000_002},
		{100_000, 100, expNow + 100_000, 1_700_000_100},
	}
	for _, tc := range tests {
		tt := newTester(t)
		tt.Expect(okReply, "SET", "k", "v")
		tt.Expect(kOne, "PEXPIRE", "k", strconv.FormatInt(tc.pttl, 10))
		tt.Expect(integer(tc.pttl), "PTTL", "k")
		tt.Expect(integer(tc.ttl), "TTL", "k")
		tt.Expect(integer(tc.pexpTime), "PEXPIRETIME", "k")
		tt.Expect(integer(tc.expTime), "EXPIRETIME", "k")
	}
	// At the deadline the key is alive with 0 left.
	tt := newTester(t)
	tt.Expect(okReply, "SET", "k", "v", "PX", "10")
	tt.Clock.Add(10 * time.Millisecond)
	tt.Expect(kZero, "PTTL", "k")
	tt.Expect(kZero, "TTL", "k")
	// A deadline near 2^63 ms rounds as Redis's unsigned arithmetic does.
	tt.Expect(kOne, "PEXPIREAT", "k", "9223372036854775807")
	tt.Expect(integer(9223372036854776), "EXPIRETIME", "k")
	tt.Expect(integer(9223372036854775807), "PEXPIRETIME", "k")
	tt.Expect(integer(9223372036854775807-expNow-10), "PTTL", "k")
	tt.Expect(integer((9223372036854775807-expNow-10+500)/1000), "TTL", "k")
}

func TestExpirePersist(t *testing.T) {
	runCases(t, []cmdCase{
		{"persist", []step{
			cmd(kZero, "PERSIST", "k"),
			cmd(okReply, "SET", "k", "v"),
			cmd(kZero, "PERSIST", "k"),
			cmd(kOne, "EXPIRE", "k", "10"),
			cmd(kOne, "PERSIST", "k"),
			cmd(integer(-1), "TTL", "k"),
			cmd(kZero, "PERSIST", "k"),
			kAdvance(time.Hour),
			cmd(bulk("v"), "GET", "k"),
		}},
		{"persist after the deadline", []step{
			cmd(okReply, "SET", "k", "v", "PX", "10"),
			kAdvance(11 * time.Millisecond),
			cmd(kZero, "PERSIST", "k"),
			kLen(0),
		}},
	})
}

// Keys past their deadline that nobody touches are reclaimed by the active
// cycle, a budget's worth at a time.
func TestExpireCycleIsBounded(t *testing.T) {
	tt := newTester(t)
	db := tt.E.DB(0)
	const n = 100_000
	for i := range n {
		e := db.Add(fmt.Appendf(nil, "%v%v", "k", i), []byte("v"))
		db.SetExpiry(e, expNow+int64(1+i%10))
	}
	for i := range 10 {
		db.Add(fmt.Appendf(nil, "%v%v", "keep", i), []byte("v"))
	}
	// Nothing is due yet: a cycle removes nothing.
	if more := tt.E.ExpireCycle(time.Second); more || db.Len() != n+10 {
		t.Fatalf("before the deadlines: more %v, len %d", more, db.Len())
	}
	tt.Clock.Add(time.Second)
	more := tt.E.ExpireCycle(time.Nanosecond)
	left := db.Len() - 10
	if !more || left == n || left == 0 {
		t.Fatalf("one tiny cycle: more %v, %d of %d left", more, left, n)
	}
	cycles := 1
	for tt.E.ExpireCycle(time.Nanosecond) {
		cycles++
		if cycles > n {
			t.Fatal("cycles never finish")
		}
	}
	if db.Len() != 10 || db.ExpiresLen() != 0 || db.Expired != n {
		t.Fatalf("after %d cycles: len %d, expires %d, expired %d", cycles, db.Len(), db.ExpiresLen(), db.Expired)
	}
	if cycles < 10 {
		t.Fatalf("100k keys reclaimed in %d tiny cycles: the budget is not enforced", cycles)
	}
	tt.Expect(integer(10), "EXISTS", "keep0", "keep1", "keep2", "keep3", "keep4", "keep5", "keep6", "keep7", "keep8", "keep9")
}

// The cycle removes only keys strictly past their deadline, in every
// database.
func TestExpireCycleBoundaryAndDatabases(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "SET", "at", "v", "PX", "100")
	tt.Expect(okReply, "SELECT", "5")
	tt.Expect(okReply, "SET", "other", "v", "PX", "50")
	tt.Clock.Add(100 * time.Millisecond)
	tt.E.ExpireCycle(time.Second)
	if tt.E.DB(0).Len() != 1 || tt.E.DB(5).Len() != 0 {
		t.Fatalf("at the deadline: db0 %d db5 %d", tt.E.DB(0).Len(), tt.E.DB(5).Len())
	}
	tt.Clock.Add(time.Millisecond)
	if tt.E.ExpireCycle(time.Second) {
		t.Fatal("work left over")
	}
	if tt.E.DB(0).Len() != 0 {
		t.Fatal("key past its deadline survived the cycle")
	}
}

// A table left oversized by a mass deletion shrinks under RehashActively
// alone, with no traffic to move its buckets: here the deletions come
// while a resize is under way, as in an expiry storm that follows a burst
// of writes.
func TestRehashActively(t *testing.T) {
	tt := newTester(t)
	db := tt.E.DB(0)
	for i := 0; db.Len() < 100_000 || !db.Rehashing(); i++ {
		db.Add(fmt.Appendf(nil, "k%d", i), []byte("v"))
	}
	grown, next := db.Buckets()
	var victims []*keyspace.Entry
	db.ForEach(func(e *keyspace.Entry) bool { victims = append(victims, e); return true })
	for _, e := range victims[1000:] {
		db.Remove(e) // no lookups: the resize does not move on
	}
	if !db.Rehashing() || db.Len() != 1000 {
		t.Fatalf("rehashing %v with %d keys", db.Rehashing(), db.Len())
	}
	for i := 0; db.Rehashing() || i == 0; i++ {
		if i > 1000 {
			t.Fatal("RehashActively never finished")
		}
		tt.E.RehashActively(time.Millisecond)
	}
	if size, _ := db.Buckets(); size > 1024 || db.Len() != 1000 {
		t.Fatalf("%d buckets for %d keys after RehashActively (were %d growing to %d)", size, db.Len(), grown, next)
	}
}

// After an expiry storm (many keys expiring together next to rate-limit
// users) the keyspace, its deadline index and its tables give back what the
// storm took: the heap returns to its size before the storm.
func TestExpiryStormGivesMemoryBack(t *testing.T) {
	tt := newTester(t)
	for i := 0; i < 10_000; i++ {
		for j := 0; j < 5; j++ {
			tt.Do("RL.CHECK", "{t}:ratelimit:ai:user"+strconv.Itoa(i), "1700000000000", "60000", "5", "1700000000000:0a1b2c3"+strconv.Itoa(j))
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := heap()
	for i := 0; i < 200_000; i++ {
		tt.Do("SET", "storm:"+strconv.Itoa(i), "x", "PX", "1000")
	}
	during := heap()
	tt.Clock.Add(2 * time.Second)
	for tt.E.ExpireCycle(time.Second) {
	}
	for tt.E.DB(0).Rehashing() {
		tt.E.RehashActively(time.Second)
	}
	after := heap()
	t.Logf("heap: %d KB before, %d KB with the storm keys, %d KB after", base>>10, during>>10, after>>10)
	if tt.E.DB(0).Len() != 10_000 || tt.E.DB(0).ExpiresLen() != 10_000 {
		t.Fatalf("%d keys, %d deadlines left", tt.E.DB(0).Len(), tt.E.DB(0).ExpiresLen())
	}
	if after > base+base/10+256<<10 {
		t.Fatalf("heap %d KB after the storm, %d KB before", after>>10, base>>10)
	}
}
