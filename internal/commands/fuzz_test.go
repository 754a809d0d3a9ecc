package commands

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/resp"
)

// FuzzCommand runs arbitrary argument vectors through Engine.Exec for every
// command of the table, subcommands included, and requires that no handler
// panics (the executor would recover, log "command panicked" and answer
// ErrInternal) and that every command answers exactly one well-formed RESP2
// value (none only for a command that blocked).
//
// An input is up to four commands separated by 0xFF. In each, the first
// byte picks the command from fuzzTable (modulo its length) and the rest
// are its arguments after the name, separated by 0x00. Every input runs on
// a fresh engine holding a few keys of each type, so that runs reproduce.
func FuzzCommand(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fz := newFuzzEngine(t)
		for n, chunk := range bytes.Split(data, []byte{0xFF}) {
			if n == 4 {
				break
			}
			if len(chunk) < 2 {
				continue
			}
			table := fuzzTable()
			name := table[(int(chunk[0])*255+int(chunk[1]))%len(table)]
			args := make([][]byte, 0, 8)
			for _, a := range name {
				args = append(args, []byte(a))
			}
			if len(chunk) > 2 {
				args = append(args, bytes.Split(chunk[2:], []byte{0})...)
			}
			if tooExpensive(args) {
				continue
			}
			fz.exec(args)
		}
	})
}

// tooExpensive spots commands whose work grows with a count argument
// without bound. ZRANDMEMBER z -100000000 answers a hundred million members,
// as on Redis: correct, but one input could take gigabytes and minutes. RL.CHECK
// ... COST n adds n members (see the report on it: it holds the executor for
// as long).
func tooExpensive(args [][]byte) bool {
	big := func(a []byte) bool {
		n, err := strconv.ParseInt(string(a), 10, 64)
		return err == nil && (n > 100000 || n < -100000)
	}
	switch strings.ToLower(string(args[0])) {
	case "pfselftest": // ten million additions, about a second
		return true
	case "zrandmember", "srandmember", "hrandfield":
		return len(args) > 2 && big(args[2])
	case "setbit", "bitfield":
		// A bit offset up to 2^32 makes a 512 MB string, as on Redis.
		far := func(a []byte) bool {
			mul := int64(1)
			if len(a) > 0 && a[0] == '#' {
				a, mul = a[1:], 64
			}
			n, err := strconv.ParseInt(string(a), 10, 64)
			return err == nil && n > (8<<20)/mul
		}
		if args[0][0]|0x20 == 's' {
			return len(args) > 2 && far(args[2])
		}
		for i := 2; i+2 < len(args); i++ {
			if w := strings.ToLower(string(args[i])); (w == "set" || w == "incrby") && far(args[i+2]) {
				return true
			}
		}
	case "rl.check", "rl.peek":
		for i := 1; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "cost") && big(args[i+1]) {
				return true
			}
		}
	}
	return false
}

// fuzzTable lists every command as its name, and every subcommand as
// container and subcommand, sorted so an index means the same between runs.
// (Computed on first use: the table is filled by an init function, after
// package variables.)
var fuzzTable = sync.OnceValue(func() [][]string {
	var out [][]string
	for _, c := range engine.All() {
		out = append(out, []string{c.Name})
		subs := make([]string, 0, len(c.Sub))
		for name := range c.Sub {
			subs = append(subs, name)
		}
		sort.Strings(subs)
		for _, s := range subs {
			out = append(out, []string{c.Name, s})
		}
	}
	return out
})

// fuzzIndex returns the two index bytes of the command "name [sub]".
func fuzzIndex(cmd string) ([]byte, bool) {
	for i, c := range fuzzTable() {
		if strings.EqualFold(strings.Join(c, " "), cmd) && i < 255*255 {
			// Base 255: neither byte may be 0xFF, which splits inputs.
			return []byte{byte(i / 255), byte(i % 255)}, true
		}
	}
	return nil, false
}

// fuzzInput encodes commands ("name [sub]", args...) as a FuzzCommand input.
func fuzzInput(cmds ...[]string) []byte {
	var b []byte
	for i, c := range cmds {
		idx, ok := fuzzIndex(c[0])
		if !ok {
			continue
		}
		if i > 0 {
			b = append(b, 0xFF)
		}
		b = append(b, idx...)
		b = append(b, strings.Join(c[1:], "\x00")...)
	}
	return b
}

func fuzzSeeds() [][]byte {
	c := func(cmd string, args ...string) []string { return append([]string{cmd}, args...) }
	seeds := [][]byte{
		fuzzInput(c("set", "s", "v", "EX", "10", "NX", "GET")),
		fuzzInput(c("pfadd", "h", "a", "b"), c("pfcount", "h"), c("pfmerge", "h2", "h", "s"), c("pfdebug", "decode", "h")),
		fuzzInput(c("set", "h", "HYLL\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x81\x40\xfe\x7f"), c("pfadd", "h", "x", "y"), c("pfcount", "h", "h2")),
		fuzzInput(c("spop", "sh", "2"), c("smove", "si", "sh", "1"), c("sinterstore", "si", "sh", "si")),
		fuzzInput(c("sdiffstore", "d", "si", "sh"), c("sscan", "sh", "0", "COUNT", "1", "MATCH", "*y*")),
		fuzzInput(c("set", "s", "v", "PXAT", "9223372036854775807")),
		fuzzInput(c("set", "n", "1", "KEEPTTL", "XX")),
		fuzzInput(c("getex", "e", "PERSIST")),
		fuzzInput(c("incrbyfloat", "n", "1e308"), c("incrbyfloat", "n", "1e308")),
		fuzzInput(c("incrby", "n", "9223372036854775807")),
		fuzzInput(c("decrby", "n", "-9223372036854775808")),
		fuzzInput(c("setrange", "s", "1048570", "abcdefgh")),
		fuzzInput(c("getrange", "s", "-9223372036854775808", "9223372036854775807")),
		fuzzInput(c("append", "z", "x")),
		fuzzInput(c("mset", "a", "1", "b")),
		fuzzInput(c("msetnx", "a", "1", "a", "2")),
		fuzzInput(c("expire", "s", "9223372036854775807")),
		fuzzInput(c("pexpireat", "s", "-9223372036854775808", "GT", "LT")),
		fuzzInput(c("expire", "e", "0"), c("ttl", "e")),
		fuzzInput(c("scan", "18446744073709551615", "MATCH", "[a-", "COUNT", "0", "TYPE", "zset")),
		fuzzInput(c("keys", "*[\\")),
		fuzzInput(c("rename", "s", "s")),
		fuzzInput(c("copy", "s", "t", "DB", "15", "REPLACE")),
		fuzzInput(c("move", "s", "-1")),
		fuzzInput(c("object", "ENCODING", "z"), c("object", "FREQ", "s")),
		fuzzInput(c("randomkey"), c("dbsize")),
		fuzzInput(c("select", "15"), c("flushdb", "ASYNC")),
		fuzzInput(c("flushall", "SYNC", "ASYNC")),
		fuzzInput(c("zadd", "z", "NX", "XX", "GT", "CH", "INCR", "1", "m")),
		fuzzInput(c("zadd", "z", "nan", "m")),
		fuzzInput(c("zadd", "z", "-inf", "a", "+inf", "b", "0", "c")),
		fuzzInput(c("zrange", "z", "(1", "[a", "BYLEX", "REV", "LIMIT", "0", "-1", "WITHSCORES")),
		fuzzInput(c("zrange", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "-9223372036854775808", "9223372036854775807")),
		fuzzInput(c("zrangestore", "d", "z", "0", "-1")),
		fuzzInput(c("zunionstore", "d", "2", "z", "s", "WEIGHTS", "1", "nan", "AGGREGATE", "MAX")),
		fuzzInput(c("zinter", "2147483647", "z")),
		fuzzInput(c("zrandmember", "z", "-9223372036854775808", "WITHSCORES")),
		fuzzInput(c("zpopmin", "z", "0")),
		fuzzInput(c("zmpop", "1", "z", "MIN", "COUNT", "-1")),
		fuzzInput(c("bzpopmin", "nokey", "0.01")),
		fuzzInput(c("zscan", "z", "0", "COUNT", "1")),
		fuzzInput(c("zincrby", "z", "inf", "m"), c("zincrby", "z", "-inf", "m")),
		fuzzInput(c("zremrangebylex", "z", "-", "+")),
		fuzzInput(c("rl.check", "rl", "*", "1000", "10", "*"), c("rl.check", "rl", "*", "1000", "10", "*", "INFO")),
		fuzzInput(c("rl.check", "rl", "-1", "140737488355328", "9223372036854775807", "m", "COST", "1000")),
		fuzzInput(c("rl.check", "z", "1700000000000", "1", "1", "a", "COST", "2", "INFO")),
		fuzzInput(c("rl.peek", "rl", "*", "1000", "10", "INFO"), c("rl.peek", "s", "*", "1000", "10")),
		fuzzInput(c("setbit", "s", "100", "1"), c("bitcount", "s", "-1", "-100", "BIT"), c("bitpos", "s", "0", "0", "-1", "BIT")),
		fuzzInput(c("bitfield", "s", "OVERFLOW", "SAT", "INCRBY", "i64", "#3", "-9223372036854775808", "SET", "u63", "7", "-1", "GET", "i1", "0")),
		fuzzInput(c("bitfield_ro", "z", "GET", "u8", "0"), c("bitop", "NOT", "d", "s"), c("bitop", "AND", "d", "s", "nokey", "n")),
		fuzzInput(c("lcs", "s", "n", "IDX", "MINMATCHLEN", "1", "WITHMATCHLEN"), c("substr", "s", "-3", "-1")),
		fuzzInput(c("hset", "h", "a", "1", "b"), c("hmset", "h", "n", "9223372036854775807")),
		fuzzInput(c("hincrby", "h", "n", "1"), c("hincrbyfloat", "h", "a", "1e4000")),
		fuzzInput(c("hrandfield", "h", "-9223372036854775807"), c("hrandfield", "h", "5", "WITHVALUES")),
		fuzzInput(c("hscan", "h", "0", "MATCH", "[", "COUNT", "1"), c("hgetall", "h"), c("hdel", "h", "a", "b")),
		fuzzInput(c("multi"), c("set", "a", "1"), c("exec")),
		fuzzInput(c("multi"), c("multi"), c("nosuch"), c("exec")),
		fuzzInput(c("watch", "s"), c("set", "s", "2"), c("multi"), c("exec")),
		fuzzInput(c("eval", "return redis.call('set', KEYS[1], ARGV[1])", "1", "s", "v")),
		fuzzInput(c("eval", "return {1, 'a', {err='x'}, {ok='y'}, 3.99, nil, false, true}", "0")),
		fuzzInput(c("eval", "return redis.pcall('incr', KEYS[1])", "1", "s")),
		fuzzInput(c("eval", "return cjson.decode(ARGV[1])", "0", "[1,{\"a\":[]}]")),
		fuzzInput(c("eval", "return cmsgpack.unpack(ARGV[1])", "0", "\x93\x01\x02")),
		fuzzInput(c("eval", "return struct.unpack('>i4', ARGV[1])", "0", "abcd")),
		fuzzInput(c("eval", "local t = {} for i = 1, 100000 do t[i] = i end return #t", "0")),
		fuzzInput(c("eval", "redis.setresp(3) return 1", "0")),
		fuzzInput(c("eval", "return redis.sha1hex(ARGV[1])", "-1")),
		fuzzInput(c("evalsha", "ffffffffffffffffffffffffffffffffffffffff", "0")),
		fuzzInput(c("script load", "return 1"), c("script exists", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")),
		fuzzInput(c("client setname", "a b")),
		fuzzInput(c("client kill", "ID", "1", "SKIPME", "no")),
		fuzzInput(c("client list", "ID", "-1")),
		fuzzInput(c("client no-evict", "maybe")),
		fuzzInput(c("config set", "maxmemory", "1", "timeout", "1")),
		fuzzInput(c("config set", "client-output-buffer-limit", "normal 1 2 3")),
		fuzzInput(c("config get", "*")),
		fuzzInput(c("command getkeys", "eval", "return 1", "9223372036854775807")),
		fuzzInput(c("command docs", "nosuch")),
		fuzzInput(c("info", "everything")),
		fuzzInput(c("hello", "3", "AUTH", "default")),
		fuzzInput(c("auth", "default", "")),
		fuzzInput(c("reset"), c("quit")),
		fuzzInput(c("shutdown", "NOSAVE", "SAVE")),
		fuzzInput(c("ping", "a", "b")),
	}
	var out [][]byte
	for _, s := range seeds {
		if len(s) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// panicWatch is a slog handler that remembers the executor's "command
// panicked" records.
type panicWatch struct {
	mu     sync.Mutex
	panics []string
}

func (h *panicWatch) Enabled(context.Context, slog.Level) bool { return true }
func (h *panicWatch) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *panicWatch) WithGroup(string) slog.Handler            { return h }
func (h *panicWatch) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "command panicked" {
		return nil
	}
	var b strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, "%s=%v\n", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	h.panics = append(h.panics, b.String())
	h.mu.Unlock()
	return nil
}

type fuzzEngine struct {
	t     *testing.T
	e     *engine.Engine
	c     *engine.Client
	watch *panicWatch
}

func newFuzzEngine(t *testing.T) *fuzzEngine {
	cfg := config.DefaultConfig()
	// Keep a single input cheap: no 512 MB strings, no 5 s scripts.
	cfg.ProtoMaxBulkLen.Store(1 << 20)
	cfg.BusyThreshold.Store(50)
	// SAVE, BGSAVE and SHUTDOWN SAVE write here, not into the source tree.
	cfg.SetDir(t.TempDir(), "")
	watch := &panicWatch{}
	e := New(cfg, clock.NewManual(time.Unix(1_700_000_000, 0)), slog.New(watch))
	t.Cleanup(func() { durability.WaitBgsave(e) }) // before the directory is removed
	fz := &fuzzEngine{t: t, e: e, c: e.NewClient("127.0.0.1:1", "127.0.0.1:6379"), watch: watch}
	// Nobody else could send SCRIPT KILL: a script past the threshold is
	// stopped at its first busy tick, whatever it wrote.
	fz.c.WhileBusy = func() { e.BusyScript.Kill = true }
	for _, args := range [][]string{
		{"SET", "s", "hello"}, {"SET", "n", "42"}, {"SET", "f", "3.5"}, {"SET", "e", "x", "PX", "100000"},
		{"ZADD", "z", "1", "a", "2", "b", "2", "c", "-inf", "d"}, {"ZADD", "zb", "1", "x" + strings.Repeat("y", 100)},
		{"HSET", "h", "a", "1", "b", "x", "-5", "1.5"}, {"HSET", "hb", "x", strings.Repeat("y", 100)},
		{"SADD", "si", "1", "-70000", "5000000000"}, {"SADD", "sh", "a", "1", "b" + strings.Repeat("y", 100)},
	} {
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		var w resp.Writer
		e.Lock()
		e.Exec(fz.c, b, &w)
		e.Unlock()
	}
	return fz
}

func (fz *fuzzEngine) exec(args [][]byte) {
	t := fz.t
	var w resp.Writer
	e := fz.e
	e.Lock()
	out := e.Exec(fz.c, args, &w)
	// MONITOR, CLIENT REPLY and CLIENT PAUSE change what the next
	// commands answer (an extra line, nothing, or nothing yet): the
	// client surface goes back to normal, and their own replies are
	// checked only when they are the one expected.
	surface := fz.c.Cs.Monitor || fz.c.Cs.Reply != 0 || e.PausedFor(engine.PauseByCommand)
	e.StopMonitor(fz.c)
	fz.c.Cs.Reply = 0
	e.UnpauseClients(engine.PauseByCommand)
	e.Unlock()
	if out == engine.Blocked || out == engine.Paused {
		// Nobody will serve it: abandon the wait, as a vanished client does.
		done := make(chan struct{})
		close(done)
		e.WaitBlocked(fz.c, done)
	}
	fz.watch.mu.Lock()
	panics := fz.watch.panics
	fz.watch.mu.Unlock()
	if len(panics) > 0 {
		t.Fatalf("%s: handler panicked:\n%s", quoteArgs(args), panics[0])
	}
	reply := w.Bytes()
	if (out == engine.Blocked || out == engine.Paused || surface) && len(reply) == 0 {
		return
	}
	n, err := respValue(reply, 0)
	if err != "" {
		t.Fatalf("%s: malformed reply (%s): %q", quoteArgs(args), err, truncBytes(reply, 300))
	}
	// A monitor sees its own command too; (un)subscribing answers once
	// per name.
	multi := surface
	switch strings.ToLower(string(args[0])) {
	case "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe":
		multi = true
	}
	if n != len(reply) && !multi {
		t.Fatalf("%s: %d bytes after the first reply: %q", quoteArgs(args), len(reply)-n, truncBytes(reply, 300))
	}
	if bytes.Equal(reply, []byte("-"+engine.ErrInternal+"\r\n")) {
		t.Fatalf("%s: internal error", quoteArgs(args))
	}
}

func quoteArgs(args [][]byte) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = strconv.Quote(string(truncBytes(a, 100)))
	}
	return strings.Join(parts, " ")
}

func truncBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// respValue parses one RESP2 value at the start of b and returns its length,
// or a description of what is wrong with it.
func respValue(b []byte, depth int) (int, string) {
	if depth > 64 {
		return 0, "nested too deep"
	}
	end := bytes.Index(b, []byte("\r\n"))
	if end < 1 {
		return 0, "no CRLF-terminated type line"
	}
	line := b[1:end]
	if bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
		return 0, "CR or LF inside a line"
	}
	n := end + 2
	switch b[0] {
	case '+', '-':
		if b[0] == '-' && len(line) == 0 {
			return 0, "empty error"
		}
		return n, ""
	case ':':
		if _, err := strconv.ParseInt(string(line), 10, 64); err != nil {
			return 0, "bad integer"
		}
		return n, ""
	case '$':
		l, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil || l < -1 {
			return 0, "bad bulk length"
		}
		if l == -1 {
			return n, ""
		}
		if int64(len(b)-n) < l+2 || b[n+int(l)] != '\r' || b[n+int(l)+1] != '\n' {
			return 0, "bulk shorter than its length or not CRLF-terminated"
		}
		return n + int(l) + 2, ""
	case '*':
		l, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil || l < -1 {
			return 0, "bad array length"
		}
		for range l {
			m, err := respValue(b[n:], depth+1)
			if err != "" {
				return 0, err
			}
			n += m
		}
		return n, ""
	}
	return 0, fmt.Sprintf("unknown type byte %q", b[0])
}

func TestFuzzRespValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		fail bool
	}{
		{"+OK\r\n", 5, false},
		{"-ERR x\r\n", 8, false},
		{":-12\r\n", 6, false},
		{"$3\r\nabc\r\n", 9, false},
		{"$-1\r\n", 5, false},
		{"*2\r\n$1\r\na\r\n:1\r\n", 15, false},
		{"*-1\r\n", 5, false},
		{"$3\r\nab\r\n", 0, true},
		{"+OK", 0, true},
		{":x\r\n", 0, true},
		{"*2\r\n:1\r\n", 0, true},
		{"-\r\n", 0, true},
		{"~1\r\n", 0, true},
	} {
		n, err := respValue([]byte(tc.in), 0)
		if (err != "") != tc.fail || (!tc.fail && n != tc.n) {
			t.Errorf("%q: %d, %q", tc.in, n, err)
		}
	}
}

// TestFuzzTableFitsIndex: FuzzCommand picks a command with two bytes (an
// 0xFF in them would split the input).
func TestFuzzTableFitsIndex(t *testing.T) {
	if n := len(fuzzTable()); n > 255*255 {
		t.Fatalf("%d commands and subcommands: FuzzCommand's two-byte index no longer reaches them all; widen it", n)
	}
}
