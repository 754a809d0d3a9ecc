package commands

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

const seedSHA = "91bc54027b375c6932fd44b714479f32d407fcba"

func TestScriptingBasics(t *testing.T) {
	tt := newTester(t)
	sha := "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"
	tt.Expect(bulk(sha), "SCRIPT", "LOAD", "return 1")
	tt.Expect(integer(1), "EVALSHA", sha, "0")
	tt.Expect(integer(1), "EVALSHA", strings.ToUpper(sha), "0")
	tt.Expect(array(integer(1), integer(1), integer(0)), "SCRIPT", "EXISTS", sha, strings.ToUpper(sha), "abc")
	tt.Expect(errReply(engine.ErrNoScript), "EVALSHA", "abc", "abc")
	tt.Expect(errReply(engine.ErrNotInt), "EVAL", "return 1", "x")
	tt.Expect(errReply(engine.ErrNumKeysTooBig), "EVAL", "return 1", "2", "a")
	tt.Expect(errReply(engine.ErrNumKeysNegative), "EVAL", "return 1", "-1")
	tt.Expect(array(bulk("a"), bulk("b"), bulk("c")), "EVAL", "return {KEYS[1], ARGV[1], ARGV[2]}", "1", "a", "b", "c")
	tt.Expect(okReply, "SCRIPT", "FLUSH")
	tt.Expect(errReply(engine.ErrNoScript), "EVALSHA", sha, "0")
	tt.Expect(errReply(engine.ErrNotBusy), "SCRIPT", "KILL")
	tt.Expect(errReply(engine.ErrFlushOption), "SCRIPT", "FLUSH", "x")

	tt.Expect(integer(1), "EVAL", "return redis.call('incr', KEYS[1])", "1", "n")
	tt.Expect(bulk("1"), "GET", "n")
	tt.Expect(errReply("ERR Write commands are not allowed from read-only scripts."), "EVAL_RO", "return redis.pcall('incr', 'n')", "0")
	tt.Expect(errReply(engine.ErrScriptWriteRO), "EVAL_RO", "#!lua\nreturn 1", "0")
	tt.Expect(errReply("ERR This Redis command is not allowed from script"), "EVAL", "return redis.pcall('multi')", "0")
	tt.Expect(errReply("ERR Unknown Redis command called from script"), "EVAL", "return redis.pcall('nosuch')", "0")
	tt.Expect(errReply("ERR Wrong number of args calling Redis command from script"), "EVAL", "return redis.pcall('get')", "0")

	// SELECT inside a script stays inside it.
	tt.Expect(integer(1), "EVAL", "redis.call('select', '2'); redis.call('set', 's', '1'); return 1", "0")
	tt.Expect(nilReply, "GET", "s")
	if tt.C.InScript {
		t.Fatal("inScript left set")
	}
}

// TestScriptingBusy drives the busy state from the caller's WhileBusy (the
// hook an event-loop front sets): while the script runs past the threshold,
// commands of another client are answered BUSY, allow-busy ones run, and
// SCRIPT KILL stops a script that has not written.
func TestScriptingBusy(t *testing.T) {
	tt := newTester(t)
	tt.E.Cfg.BusyThreshold.Store(20)
	other := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
	run := func(args ...string) string {
		var w resp.Writer
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		tt.E.Exec(other, bargs, &w) // the lock is the script's
		return string(w.Bytes())
	}
	var got []string
	tick := 0
	tt.C.WhileBusy = func() {
		if tick++; tick == 1 {
			got = append(got, run("PING"), run("MULTI"), run("GET", "k"), run("EXEC"), run("SHUTDOWN"), run("SCRIPT", "KILL"))
		}
	}
	reply := tt.Do("EVAL", "while true do end", "0")
	if !strings.HasPrefix(reply, "-ERR Script killed by user with SCRIPT KILL... script: ") {
		t.Fatalf("script answered %q", reply)
	}
	busy := "-" + engine.ErrBusyEval + "\r\n"
	want := []string{busy, "+OK\r\n", busy, "-EXECABORT Transaction discarded because of: " + engine.ErrBusyEval + "\r\n", busy, "+OK\r\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("while busy:\n got %q\nwant %q", got, want)
	}
	if run("PING") != "+PONG\r\n" || run("SCRIPT", "KILL") != "-"+engine.ErrNotBusy+"\r\n" {
		t.Fatal("still busy after the script")
	}

	// A script that wrote cannot be killed; it ends by itself.
	tick = 0
	tt.C.WhileBusy = func() {
		if tick++; tick == 1 {
			got = []string{run("SCRIPT", "KILL")}
		}
	}
	// (The tester's clock is manual: the loop counts, it cannot time itself.)
	reply = tt.Do("EVAL", "redis.call('set', 'k', 'v') for i = 1, 5000000 do end return 'done'", "0")
	if reply != "$4\r\ndone\r\n" || len(got) != 1 || got[0] != "-"+engine.ErrUnkillable+"\r\n" {
		t.Fatalf("script answered %q, SCRIPT KILL %q", reply, got)
	}
	tt.Expect(integer(2), "EVAL", "return 2", "0")
}

func TestScriptingSeedSHA(t *testing.T) {
	tt := newTester(t)
	seed := readSeedScript(t)
	tt.Expect(bulk(seedSHA), "SCRIPT", "LOAD", strings.TrimSuffix(seed, "\n"))
	tt.Expect(bulk("2f28f575aa22b7cfd53ae3e5432bbd242143347a"), "SCRIPT", "LOAD", seed)
}

func readSeedScript(tb testing.TB) string {
	for _, p := range []string{"../../../shared/seed/sliding_window.lua", "/work/shared/seed/sliding_window.lua"} {
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	tb.Skip("seed script not found")
	return ""
}

func benchEvalsha(b *testing.B, body string, args func(i int) []string) {
	tt := newTester(b)
	sha := strings.TrimSuffix(strings.TrimPrefix(tt.Do("SCRIPT", "LOAD", body), "$40\r\n"), "\r\n")
	var w resp.Writer
	bargs := make([][]byte, 0, 16)
	first := tt.Do(append([]string{"EVALSHA", sha}, args(0)...)...)
	if strings.HasPrefix(first, "-") {
		b.Skip("script fails: " + first)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bargs = bargs[:0]
		bargs = append(bargs, []byte("EVALSHA"), []byte(sha))
		for _, a := range args(i) {
			bargs = append(bargs, []byte(a))
		}
		w.Reset(1 << 16)
		tt.E.Lock()
		tt.E.Exec(tt.C, bargs, &w)
		tt.E.Unlock()
	}
}

// BenchmarkEvalshaSeed runs the seed's sliding-window script for 1000
// users, as the seed workload does.
func BenchmarkEvalshaSeed(b *testing.B) {
	seed := strings.TrimSuffix(readSeedScript(b), "\n")
	users := make([]string, 1000)
	for i := range users {
		users[i] = "user:" + strconv.Itoa(i)
	}
	benchEvalsha(b, seed, func(i int) []string {
		return []string{"1", users[i%len(users)], strconv.Itoa(1_700_000_000_000 + i), "60000", "5", "req-" + strconv.Itoa(i)}
	})
}

// BenchmarkEvalshaSmall is a small script with one redis.call.
func BenchmarkEvalshaSmall(b *testing.B) {
	benchEvalsha(b, "return redis.call('incr', KEYS[1])", func(int) []string { return []string{"1", "counter"} })
}

// BenchmarkEvalshaSeedVM is the seed script made unrecognisable to the
// native fast path (one extra statement), so the interpreter runs it: the
// cost of the Lua VM itself on the seed workload.
func BenchmarkEvalshaSeedVM(b *testing.B) {
	seed := "local _ = 0\n" + strings.TrimSuffix(readSeedScript(b), "\n")
	users := make([]string, 1000)
	for i := range users {
		users[i] = "user:" + strconv.Itoa(i)
	}
	benchEvalsha(b, seed, func(i int) []string {
		return []string{"1", users[i%len(users)], strconv.Itoa(1_700_000_000_000 + i), "60000", "5", "req-" + strconv.Itoa(i)}
	})
}

// BenchmarkEvalLoop is a pure-Lua loop: the interpreter's per-instruction
// cost, where an instruction hook would show.
func BenchmarkEvalLoop(b *testing.B) {
	benchEvalsha(b, "local s = 0 for i = 1, 1000 do s = s + i end return s", func(int) []string { return []string{"0"} })
}

// BenchmarkEvalTables builds and walks a table of 20 fields and one of 20
// items per call: the cost of the Lua 5.1 table layout kept beside
// gopher-lua's storage.
func BenchmarkEvalTables(b *testing.B) {
	tt := newTester(b)
	script := "local t = {} for i = 1, 20 do t['f' .. i] = i t[i] = i end local n = 0 for k, v in pairs(t) do n = n + v end return n + #t"
	for b.Loop() {
		tt.Do("EVAL", script, "0")
	}
}
