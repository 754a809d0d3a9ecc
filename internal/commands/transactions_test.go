package commands

import (
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

func TestTransactionsBasics(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "MULTI")
	tt.Expect(errReply(engine.ErrMultiNested), "MULTI")
	tt.Expect("+QUEUED\r\n", "SET", "a", "1")
	tt.Expect("+QUEUED\r\n", "INCR", "a")
	tt.Expect(errReply(engine.ErrWatchInMulti), "WATCH", "x")
	tt.Expect(array(okReply, integer(2)), "EXEC")
	tt.Expect(errReply(engine.ErrExecNoMulti), "EXEC")
	tt.Expect(errReply(engine.ErrDiscardNoMulti), "DISCARD")

	tt.Expect(okReply, "MULTI")
	tt.Expect(errReply("ERR wrong number of arguments for 'set' command"), "SET", "a")
	tt.Expect("+QUEUED\r\n", "SET", "b", "1")
	tt.Expect(errReply(engine.ErrExecAbort), "EXEC")
	tt.Expect(nilReply, "GET", "b")

	tt.Expect(okReply, "MULTI")
	tt.Expect("+QUEUED\r\n", "SET", "b", "1")
	tt.Expect(okReply, "DISCARD")
	tt.Expect(nilReply, "GET", "b")
}

func TestTransactionsWatch(t *testing.T) {
	tt := newTester(t)
	other := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
	do := func(c *engine.Client, args ...string) {
		saved := tt.C
		tt.C = c
		tt.Do(args...)
		tt.C = saved
	}
	check := func(name string, want string, setup func()) {
		t.Helper()
		tt.Do("FLUSHALL")
		tt.Expect(okReply, "WATCH", "k")
		setup()
		tt.Expect(okReply, "MULTI")
		tt.Expect("+QUEUED\r\n", "PING")
		if got := tt.Do("EXEC"); got != want {
			t.Errorf("%s: EXEC = %q, want %q", name, got, want)
		}
	}
	pong := array("+PONG\r\n")
	check("untouched", pong, func() {})
	check("other client set", nilArray, func() { do(other, "SET", "k", "v") })
	check("own set", nilArray, func() { tt.Do("SET", "k", "v") })
	check("set nx no-op", pong, func() {
		do(other, "SET", "x", "1")
		tt.Do("UNWATCH")
		tt.Do("SET", "k", "v")
		tt.Do("WATCH", "k")
		do(other, "SET", "k", "w", "NX")
	})
	check("del missing", pong, func() { do(other, "DEL", "k") })
	check("expire missing", pong, func() { do(other, "EXPIRE", "k", "10") })
	check("failed write", pong, func() {
		tt.Do("UNWATCH")
		tt.Do("SET", "k", "x")
		tt.Do("WATCH", "k")
		do(other, "INCR", "k")
	})
	check("other db", pong, func() { do(other, "SELECT", "1"); do(other, "SET", "k", "v"); do(other, "SELECT", "0") })
	check("expiry before exec", nilArray, func() {
		tt.Do("UNWATCH")
		tt.Do("SET", "k", "v", "PX", "100")
		tt.Do("WATCH", "k")
		tt.Clock.Add(time.Second)
	})
	check("flushall", nilArray, func() {
		tt.Do("UNWATCH")
		tt.Do("SET", "k", "v")
		tt.Do("WATCH", "k")
		do(other, "FLUSHALL")
	})
	check("eval write", nilArray, func() { do(other, "EVAL", "redis.call('set', 'k', 1)", "0") })

	// Disconnecting clears a client's watches.
	tt.Expect(okReply, "WATCH", "a", "b")
	tt.E.Lock()
	tt.E.UnwatchAll(tt.C)
	tt.E.Unlock()
	if n := tt.E.WatchedKeys(); n != 0 {
		t.Fatalf("watching = %d after unwatchAll", n)
	}
}

// The write path must cost nothing extra when no client watches anything.
func TestTransactionsUnwatchedWritesDoNotAllocate(t *testing.T) {
	tt := newTester(t)
	tt.Do("SET", "k", "v")
	var w resp.Writer
	w.OK()
	x := &engine.Ctx{E: tt.E, C: tt.C, W: &w, Args: [][]byte{[]byte("set"), []byte("k"), []byte("v")}, Cmd: engine.Lookup([]byte("set"))}
	allocs := testing.AllocsPerRun(1000, func() {
		x.Modified(x.Args[1])
		tt.E.KeyDeleted(0, "k")
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
