package commands

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
)

func TestBitopsCommands(t *testing.T) {
	tt := newTester(t)
	runSteps(t, tt, []step{
		// INCR writes into the old buffer, leaving stale bytes past the
		// new length: growing the string must zero them.
		cmd("+OK\r\n", "SET", "k", "100000000000"),
		cmd(integer(1), "INCRBY", "k", "-99999999999"),
		cmd(integer(0), "SETBIT", "k", "95", "0"),
		cmd(bulk("1"+strings.Repeat("\x00", 11)), "GET", "k"),
		cmd(array(integer(0)), "BITFIELD", "k", "GET", "i64", "8"),
		cmd(bulk("raw"), "OBJECT", "ENCODING", "k"),
		cmd(errReply(engine.ErrBitValue), "SETBIT", "b", "4294967295", "2"),
		cmd(errReply(engine.ErrBitOffset), "SETBIT", "b", "4294967296", "1"),
		cmd(errReply(engine.ErrBitOffset), "BITFIELD", "b", "SET", "u8", "4294967296", "1"),
		cmd(integer(0), "EXISTS", "b"),
		cmd(integer(12), "BITOP", "AND", "d", "k", "nokey"),
		cmd(bulk(strings.Repeat("\x00", 12)), "GET", "d"),
		cmd(integer(3), "BITCOUNT", "k", "0", "-1", "BIT"),
		cmd(integer(0), "BITPOS", "d", "0", "0", "-1", "BIT"),
		cmd(integer(-1), "BITPOS", "k", "1", "8", "-1", "BIT"),
		cmd(integer(11), "LCS", "k", "d", "LEN"),
	})
}

// TestBitopsLCSGuard checks that the LCS table is refused before it is
// allocated when it would pass proto-max-bulk-len.
func TestBitopsLCSGuard(t *testing.T) {
	tt := newTester(t)
	tt.E.Cfg.ProtoMaxBulkLen.Store(1 << 20)
	tt.Do("SET", "a", strings.Repeat("a", 1<<19))
	tt.Do("SET", "b", "ab")
	tt.Expect(errReply(engine.ErrLCSMemory), "LCS", "a", "b")
	tt.Expect(errReply(engine.ErrLCSMemory), "LCS", "a", "b", "LEN")
	// An empty string still costs a row per byte of the other.
	tt.Do("SET", "b", "")
	tt.Expect(errReply(engine.ErrLCSMemory), "LCS", "a", "b", "LEN")
	tt.Do("SET", "a", strings.Repeat("a", 1<<17))
	tt.Expect(integer(0), "LCS", "a", "b", "LEN")
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestBitopsMeasure (BITOPS_MEASURE=1) reports heap bytes per bitmap key
// and the executor time of the costliest commands at Redis's limits, to
// compare with redis-server's used_memory and latency.
func TestBitopsMeasure(t *testing.T) {
	if os.Getenv("BITOPS_MEASURE") == "" {
		t.Skip("set BITOPS_MEASURE=1 to measure bitmap memory and worst-case command times")
	}
	for _, size := range []struct {
		keys int
		bit  int
	}{{100000, 799}, {200, 799999}} {
		tt := newTester(t)
		keys := make([]string, size.keys)
		for i := range keys {
			keys[i] = "key:" + strconv.Itoa(i)
		}
		off := strconv.Itoa(size.bit)
		before := heapAlloc()
		for _, k := range keys {
			tt.Do("SETBIT", k, off, "1")
		}
		after := heapAlloc()
		t.Logf("SETBIT key:N %d 1 (%d-byte bitmaps): %.0f heap bytes per key (key and entry included)",
			size.bit, size.bit/8+1, float64(after-before)/float64(size.keys))
		runtime.KeepAlive(tt)
	}
	tt := newTester(t)
	timed := func(args ...string) {
		start := time.Now()
		r := tt.Do(args...)
		t.Logf("%-40.40s %8v  %.40q", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), r)
	}
	timed("SETBIT", "big", "4294967295", "1")
	timed("BITCOUNT", "big")
	timed("BITPOS", "big", "1")
	timed("BITOP", "NOT", "d", "big")
	tt.Do("DEL", "d")
	timed("SETBIT", "big", "0", "1")
	tt.Do("DEL", "big")
	runtime.GC()
	tt.Do("SET", "a", strings.Repeat("abcdefghij", 1158))
	tt.Do("SET", "b", strings.Repeat("jihgfedcba", 1158))
	timed("LCS", "a", "b", "LEN")
	timed("LCS", "a", "b", "IDX")
}
