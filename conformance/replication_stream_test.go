package conformance

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/ratelimit/scripts"
)

// The write stream a master sends its replicas, compared command by
// command: a fake replica (plain TCP, below) is attached to a Redis master
// and one to a limitkv master, both masters receive the same commands, and
// what each streams for every invocation must be the same bytes (PING
// keepalives and REPLCONF GETACK aside), SELECT placement and MULTI/EXEC
// wrapping included. Absolute times a master computes from its own clock
// (EXPIRE as PEXPIREAT, SET EX as SET PXAT, ...) may differ by a few
// seconds between the two.

// fakeReplica is a replica reduced to its link: the handshake, the full
// sync's payload, then the stream read as RESP arrays by a goroutine.
type fakeReplica struct {
	name  string
	nc    net.Conn
	form  string // "eof" or "len": how the RDB payload came
	rdb   []byte
	mu    sync.Mutex
	cmds  []streamCmd
	taken int
	off   int64 // the master's offset the stream has reached
	err   error
}

type streamCmd struct {
	args []string
	raw  []byte
}

// countingReader counts the bytes read through it (the replica's offset).
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func attachFakeReplica(t *testing.T, name, addr string) *fakeReplica {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	f := &fakeReplica{name: name, nc: nc}
	cr := &countingReader{r: nc}
	br := bufio.NewReaderSize(cr, 64<<10)
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	line := func() string {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: handshake: %v", name, err)
		}
		return strings.TrimRight(l, "\r\n")
	}
	for _, cmd := range [][]string{{"REPLCONF", "listening-port", "0"}, {"REPLCONF", "capa", "eof", "capa", "psync2"}} {
		nc.Write(encodeCommand(cmd...))
		if l := line(); l != "+OK" {
			t.Fatalf("%s: %v answered %q", name, cmd, l)
		}
	}
	nc.Write(encodeCommand("PSYNC", "?", "-1"))
	// Newlines keep the link alive until the sync starts (Redis sends
	// them to replicas waiting for a BGSAVE) and until the payload comes.
	l := line()
	for l == "" {
		l = line()
	}
	fs := strings.Fields(l)
	if len(fs) != 3 || fs[0] != "+FULLRESYNC" || len(fs[1]) != 40 {
		t.Fatalf("%s: PSYNC answered %q", name, l)
	}
	start, err := strconv.ParseInt(fs[2], 10, 64)
	if err != nil {
		t.Fatalf("%s: +FULLRESYNC offset %q", name, fs[2])
	}
	for l = line(); l == ""; l = line() {
	}
	switch {
	case strings.HasPrefix(l, "$EOF:"):
		f.form = "eof"
		mark := []byte(l[5:])
		if len(mark) != 40 {
			t.Fatalf("%s: EOF mark %q", name, mark)
		}
		for !bytes.HasSuffix(f.rdb, mark) {
			b, err := br.ReadByte()
			if err != nil {
				t.Fatalf("%s: reading the payload: %v", name, err)
			}
			f.rdb = append(f.rdb, b)
		}
		f.rdb = f.rdb[:len(f.rdb)-len(mark)]
	case strings.HasPrefix(l, "$"):
		f.form = "len"
		n, err := strconv.Atoi(l[1:])
		if err != nil {
			t.Fatalf("%s: payload header %q", name, l)
		}
		f.rdb = make([]byte, n)
		if _, err := io.ReadFull(br, f.rdb); err != nil {
			t.Fatalf("%s: reading the payload: %v", name, err)
		}
	default:
		t.Fatalf("%s: payload header %q", name, l)
	}
	if !bytes.HasPrefix(f.rdb, []byte("REDIS")) {
		t.Fatalf("%s: payload does not start with REDIS: %q", name, f.rdb[:min(len(f.rdb), 16)])
	}
	_ = nc.SetDeadline(time.Time{})
	base := cr.n - int64(br.Buffered()) // bytes before the stream
	f.off = start
	go f.read(br, cr, base, start)
	// Redis starts the stream to a replica synced by the EOF mark on an
	// acknowledgement after it has put it online
	// (repl_start_cmd_stream_on_ack), so ACKs go out as a replica's do,
	// only more often.
	go func() {
		for {
			f.mu.Lock()
			off, err := f.off, f.err
			f.mu.Unlock()
			if err != nil {
				return
			}
			if _, err := nc.Write(encodeCommand("REPLCONF", "ACK", strconv.FormatInt(off, 10))); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return f
}

// read parses the stream until the link closes.
func (f *fakeReplica) read(br *bufio.Reader, cr *countingReader, base, start int64) {
	fail := func(err error) {
		f.mu.Lock()
		f.err = err
		f.mu.Unlock()
	}
	var raw []byte
	line := func() (string, error) {
		l, err := br.ReadString('\n')
		raw = append(raw, l...)
		if err != nil {
			return "", err
		}
		if !strings.HasSuffix(l, "\r\n") {
			return "", fmt.Errorf("line without CRLF: %q", l)
		}
		return l[:len(l)-2], nil
	}
	for {
		raw = nil
		l, err := line()
		if err != nil {
			fail(err)
			return
		}
		n, err := strconv.Atoi(strings.TrimPrefix(l, "*"))
		if !strings.HasPrefix(l, "*") || err != nil || n < 1 {
			fail(fmt.Errorf("not a command: %q", l))
			return
		}
		args := make([]string, n)
		for i := range args {
			l, err := line()
			if err != nil {
				fail(err)
				return
			}
			sz, err := strconv.Atoi(strings.TrimPrefix(l, "$"))
			if !strings.HasPrefix(l, "$") || err != nil || sz < 0 {
				fail(fmt.Errorf("not a bulk string: %q", l))
				return
			}
			b := make([]byte, sz+2)
			if _, err := io.ReadFull(br, b); err != nil {
				fail(err)
				return
			}
			raw = append(raw, b...)
			args[i] = string(b[:sz])
		}
		f.mu.Lock()
		f.cmds = append(f.cmds, streamCmd{args: args, raw: raw})
		f.off = start + cr.n - int64(br.Buffered()) - base
		f.mu.Unlock()
	}
}

// waitOffset waits until the stream has reached the master's offset off.
func (f *fakeReplica) waitOffset(t *testing.T, off int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.mu.Lock()
		got, err := f.off, f.err
		f.mu.Unlock()
		if got >= off {
			return
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("%s: stream at offset %d, master at %d (%v)", f.name, got, off, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// take returns the commands read since the last take, without the
// keepalives.
func (f *fakeReplica) take() []streamCmd {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []streamCmd
	for _, c := range f.cmds[f.taken:] {
		name := strings.ToUpper(c.args[0])
		if name == "PING" || name == "REPLCONF" && len(c.args) > 1 && strings.EqualFold(c.args[1], "GETACK") {
			continue
		}
		out = append(out, c)
	}
	f.taken = len(f.cmds)
	return out
}

// streamMaster is one master under test: its client connections and the
// fake replica on its stream.
type streamMaster struct {
	name string
	c    *RawConn // the connection the commands go on
	blk  *RawConn // the one that blocks (BLPOP ...)
	blk2 *RawConn // a second one
	fake *fakeReplica
}

func (m *streamMaster) offset(t *testing.T) int64 {
	t.Helper()
	n, err := strconv.ParseInt(replInfo(t, m.c, "replication", "master_repl_offset"), 10, 64)
	if err != nil {
		t.Fatalf("%s: master_repl_offset: %v", m.name, err)
	}
	return n
}

// sync returns what the master streamed since the last call.
func (m *streamMaster) sync(t *testing.T) []streamCmd {
	t.Helper()
	m.fake.waitOffset(t, m.offset(t))
	return m.fake.take()
}

// rstep is one command of an invocation.
type rstep struct {
	args  []string
	redis []string // what Redis gets instead (RL.CHECK's counterpart)
	// What Redis gets instead, several commands (RL.ALL's counterpart: a
	// MULTI of the twin scripts); the replies are not compared.
	redisCmds [][]string
	dyn       func() []string // args computed when sent
	block     int             // on blocking connection 1 or 2, its reply read at the end
	sleep     time.Duration   // pause before the step (lazy expiry)
	poll      []string        // repeat until the reply is want (active expiry)
	want      string
	capture   *string // Redis's reply (bulk string) kept for later steps
	loose     bool    // the reply is not compared
}

type rinv struct {
	name  string
	steps []rstep
	// Random choices (SPOP with a count): only the commands' names and
	// argument counts are compared.
	shape bool
	// The order of keys expired by one cycle is the hash table's: runs
	// of DELs are compared in key order.
	unordered bool
	// No command: the real replicas' digests are compared with their
	// masters' here.
	digest bool
}

func S(args ...string) rstep { return rstep{args: args} }

// Blk sends args on the blocking connection; its reply is read after the
// invocation's other steps.
func Blk(args ...string) rstep { return rstep{args: args, block: 1} }

// Blk2 is Blk on the second blocking connection.
func Blk2(args ...string) rstep { return rstep{args: args, block: 2} }

// waitBlocked waits until n clients are blocked.
func waitBlocked(n int) rstep {
	return rstep{poll: []string{"INFO", "clients"}, want: "blocked_clients:" + strconv.Itoa(n) + "\r"}
}

func inv(name string, steps ...rstep) rinv { return rinv{name: name, steps: steps} }

// covers is the command name (and container|subcommand) a step runs.
func (s rstep) names() []string {
	a := s.args
	if a == nil {
		return nil
	}
	n := strings.ToLower(a[0])
	out := []string{n}
	if len(a) > 1 {
		out = append(out, n+"|"+strings.ToLower(a[1]))
	}
	return out
}

const incrScript = "return redis.call('incr', KEYS[1])"

var incrSHA = fmt.Sprintf("%x", sha1.Sum([]byte(incrScript)))

const farMs = "4102444800000" // 2100-01-01, an absolute deadline both masters share

func streamInvocations(dumps map[string]*string) []rinv {
	d := func(k string) *string {
		if dumps[k] == nil {
			dumps[k] = new(string)
		}
		return dumps[k]
	}
	restoreArgs := func(key string, capt *string, extra ...string) rstep {
		return rstep{args: []string{"RESTORE"}, dyn: func() []string {
			return append([]string{"RESTORE", key, extra[0], *capt}, extra[1:]...)
		}}
	}
	restoreAsking := rstep{args: []string{"RESTORE-ASKING"}, dyn: func() []string {
		return []string{"RESTORE-ASKING", "ra", "0", *d("str")}
	}}
	fnRestore := rstep{args: []string{"FUNCTION", "RESTORE"}, dyn: func() []string {
		return []string{"FUNCTION", "RESTORE", *d("fn"), "REPLACE"}
	}}
	fnLib := "#!lua name=slib\nredis.register_function('sw', function(k, a) redis.call('set', k[1], a[1]) return redis.call('incr', k[2]) end)\n" +
		"redis.register_function{function_name='sr', callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}}"
	seedNow := "1700000000000"
	// The limiters' explicit now: seedNow plus d ms.
	at := func(d int64) string { return strconv.FormatInt(1_700_000_000_000+d, 10) }
	loose := func(s rstep) rstep { s.loose = true; return s }
	// twin is a limiter command on limitkv and its Lua twin's EVAL on
	// Redis (the key is the command's second argument).
	twin := func(lkv []string, script string, argv ...string) rstep {
		return rstep{args: lkv, redis: append([]string{"EVAL", script, "1", lkv[1]}, argv...)}
	}
	tokenStep := func(d, cost int64) rstep {
		c := strconv.FormatInt(cost, 10)
		return twin([]string{"RL.TOKEN", "rl:token", at(d), "3", "1", "1000000", "COST", c}, scripts.TokenBucket, at(d), "3", "1", "1000000", c, "check")
	}
	tokenPeek := func(key, capacity, refill, period string) rstep {
		return twin([]string{"RL.TOKEN.PEEK", key, at(0), capacity, refill, period}, scripts.TokenBucket, at(0), capacity, refill, period, "1", "peek")
	}
	// RL.FIXED has no now: its window runs on each server's clock, so a
	// reply that reads the key's PTTL back is not compared (the GETs after
	// are).
	fixedStep := func(key string, cost int64, pttl bool) rstep {
		c := strconv.FormatInt(cost, 10)
		s := twin([]string{"RL.FIXED", key, "1000000", "3", "COST", c}, scripts.FixedWindow, "1000000", "3", c, "check")
		s.loose = pttl
		return s
	}
	slidingStep := func(d, cost int64) rstep {
		c := strconv.FormatInt(cost, 10)
		return twin([]string{"RL.SLIDING", "rl:sliding", at(d), "1000000", "3", "COST", c}, scripts.SlidingWindow, at(d), "1000000", "3", c, "check")
	}
	slidingPeek := func(key, window, limit string) rstep {
		return twin([]string{"RL.SLIDING.PEEK", key, at(0), window, limit}, scripts.SlidingWindow, at(0), window, limit, "1", "peek")
	}
	acquire := func(d int64, id string) rstep {
		return twin([]string{"RL.ACQUIRE", "rl:lease", at(d), "2", "1000000", id}, scripts.Concurrency, at(d), "acquire", "2", "1000000", id)
	}
	release := func(d int64, id string) rstep {
		return twin([]string{"RL.RELEASE", "rl:lease", at(d), "2", id}, scripts.Concurrency, at(d), "release", "2", "1", id)
	}
	reserve := func(d int64, est string) rstep {
		return twin([]string{"RL.RESERVE", "rl:budget", at(d), "1000000", "100", est}, scripts.Budget, at(d), "reserve", "1000000", "100", est)
	}
	settle := func(d int64, est, actual, ws string) rstep {
		return twin([]string{"RL.SETTLE", "rl:budget", at(d), "1000000", "100", est, actual, ws}, scripts.Budget, at(d), "settle", "1000000", "100", est, actual, ws)
	}
	// rlAll is RL.ALL at(0) over limits {key, spec, twin}; Redis gets a
	// MULTI of each limit's twin, or when refused (one limit refuses and
	// none is charged) the twins' peeks, the refusing limit's own check
	// writing nothing either.
	rlAll := func(refused bool, limits ...[]string) rstep {
		args := []string{"RL.ALL", at(0)}
		cmds := [][]string{{"MULTI"}}
		for _, l := range limits {
			args = append(args, l[0], l[1])
			w := strings.Fields(l[1])
			cost := "1"
			if n := len(w); n > 2 && strings.EqualFold(w[n-2], "COST") {
				cost, w = w[n-1], w[:n-2]
			}
			mode := "check"
			if refused {
				mode = "peek"
			}
			var c []string
			switch l[2] {
			case "gcra": // cell.lua has no peek: a refusing cost instead
				if refused {
					cost = "100"
				}
				c = []string{scripts.Cell, at(0) + "000000", w[1], w[2], w[3], cost}
			case "token":
				c = []string{scripts.TokenBucket, at(0), w[1], w[2], w[3], cost, mode}
			case "sliding":
				if cost != "1" {
					mode = "check" // the refusing limit
				}
				c = []string{scripts.SlidingWindow, at(0), w[1], w[2], cost, mode}
			case "fixed":
				c = []string{scripts.FixedWindow, w[1], w[2], cost, mode}
			case "lease":
				op := "acquire"
				if refused {
					op = "peek"
				}
				c = []string{scripts.Concurrency, at(0), op, w[1], w[2], w[3]}
			case "budget":
				op := "reserve"
				if refused {
					op = "peek"
				}
				c = []string{scripts.Budget, at(0), op, w[1], w[2], w[3]}
			}
			cmds = append(cmds, append([]string{"EVAL", c[0], "1", l[0]}, c[1:]...))
		}
		return rstep{args: args, redisCmds: append(cmds, []string{"EXEC"})}
	}
	// CL.THROTTLE reads the server's clock (cell.lua's "*", TIME), so its
	// key starts with a TAT a day ahead of both clocks: a decision then
	// sets the TAT to the old one plus the increment, whatever the clock
	// reads, and the two masters store the same value. Its replies count
	// seconds from the clock (not compared); the GETs after are.
	clTAT := time.Now().Add(24 * time.Hour).UnixNano()
	cl := func(q string) rstep {
		s := twin([]string{"CL.THROTTLE", "rl:cell", "30", "1", "3600", q}, scripts.Cell, "*", "30", "1", "3600", q)
		s.loose = true
		return s
	}
	clThrottle := []rstep{S("SET", "rl:cell", strconv.FormatInt(clTAT, 10)), cl("1"), S("GET", "rl:cell"), cl("7"), cl("40"), cl("6"), S("GET", "rl:cell"),
		cl("0"), S("GET", "rl:cell")}
	return []rinv{
		// Strings.
		inv("SET", S("SET", "s1", "v")),
		inv("SET NX fails (nothing)", S("SET", "s1", "w", "NX")),
		inv("SET XX GET", S("SET", "s1", "w", "XX", "GET")),
		inv("SET EX as PXAT", S("SET", "s2", "v", "EX", "1000")),
		inv("SET PX NX GET as PXAT", S("SET", "s3", "v", "PX", "100000", "NX", "GET")),
		inv("SET EXAT as PXAT", S("SET", "s4", "v", "EXAT", "4102444800")),
		inv("SET PXAT", S("SET", "s5", "v", "PXAT", farMs)),
		inv("SET KEEPTTL", S("SET", "s5", "w", "KEEPTTL")),
		inv("SET EX in the past (deleted)", S("SET", "s6", "v"), S("SET", "s6", "v", "PXAT", "1000")),
		inv("SET syntax error (nothing)", S("SET", "s1", "v", "EX", "0")),
		inv("SETEX as SET PXAT", S("SETEX", "s7", "100", "v")),
		inv("PSETEX as SET PXAT", S("PSETEX", "s8", "100000", "v")),
		inv("SETNX", S("SETNX", "s9", "v"), S("SETNX", "s9", "w")),
		inv("GETSET", S("GETSET", "s9", "x")),
		inv("MSET", S("MSET", "m1", "a", "m2", "b")),
		inv("MSETNX", S("MSETNX", "m3", "a", "m4", "b"), S("MSETNX", "m3", "c", "m5", "d")),
		inv("APPEND", S("APPEND", "a1", "x"), S("APPEND", "a1", "yz")),
		inv("INCR DECR INCRBY DECRBY", S("INCR", "n1"), S("DECR", "n1"), S("INCRBY", "n1", "10"), S("DECRBY", "n1", "3")),
		inv("INCR not an integer (nothing)", S("INCR", "s1")),
		inv("INCRBYFLOAT as SET KEEPTTL", S("INCRBYFLOAT", "f1", "1.5"), S("INCRBYFLOAT", "f1", "1e2"), S("SET", "f2", "3", "PXAT", farMs), S("INCRBYFLOAT", "f2", "0.25")),
		inv("SETRANGE", S("SETRANGE", "r1", "5", "abc"), S("SETRANGE", "r1", "0", ""), S("SETRANGE", "nokey", "0", "")),
		inv("GETEX EX as PEXPIREAT", S("SET", "g1", "v"), S("GETEX", "g1", "EX", "100")),
		inv("GETEX PXAT, EXAT, PERSIST", S("GETEX", "g1", "PXAT", farMs), S("GETEX", "g1", "EXAT", "4102444800"), S("GETEX", "g1", "PERSIST"), S("GETEX", "g1", "PERSIST")),
		inv("GETEX plain and missing (nothing)", S("GETEX", "g1"), S("GETEX", "nokey", "EX", "10")),
		inv("GETEX in the past (DEL)", S("SET", "g2", "v"), S("GETEX", "g2", "PXAT", "1")),
		inv("GETDEL", S("SET", "g3", "v"), S("GETDEL", "g3"), S("GETDEL", "g3")),
		inv("SETBIT", S("SETBIT", "b1", "7", "1"), S("SETBIT", "b1", "7", "1")),
		inv("BITOP", S("SET", "b2", "\xff"), S("BITOP", "AND", "b3", "b1", "b2"), S("BITOP", "OR", "b4", "nokey")),
		inv("BITFIELD", S("BITFIELD", "bf", "SET", "u8", "0", "255", "INCRBY", "u8", "0", "10"), S("BITFIELD", "bf", "GET", "u8", "0"),
			S("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "300")),
		inv("DUMP for RESTORE", rstep{args: []string{"DUMP", "s1"}, capture: d("str")}),
		inv("RESTORE", restoreArgs("rs1", d("str"), "0"), restoreArgs("rs1", d("str"), "0", "REPLACE")),
		inv("RESTORE ttl as ABSTTL", restoreArgs("rs2", d("str"), "100000")),
		inv("RESTORE ABSTTL IDLETIME", restoreArgs("rs3", d("str"), farMs, "ABSTTL", "IDLETIME", "100")),
		inv("RESTORE BUSYKEY (nothing)", restoreArgs("rs1", d("str"), "0")),
		inv("RESTORE past ABSTTL (DEL, or nothing)", restoreArgs("rs1", d("str"), "1", "REPLACE", "ABSTTL"), restoreArgs("rs4", d("str"), "1", "ABSTTL")),
		inv("RESTORE-ASKING", restoreAsking),

		// Keyspace.
		inv("DEL UNLINK", S("SET", "d1", "v"), S("SET", "d2", "v"), S("DEL", "d1", "nokey"), S("UNLINK", "d2", "nokey"), S("DEL", "nokey")),
		inv("EXPIRE as PEXPIREAT", S("SET", "e1", "v"), S("EXPIRE", "e1", "1000")),
		inv("EXPIRE NX GT (nothing)", S("EXPIRE", "e1", "10", "NX"), S("EXPIRE", "e1", "10", "GT")),
		inv("PEXPIRE as PEXPIREAT", S("PEXPIRE", "e1", "2000000", "XX")),
		inv("EXPIREAT as PEXPIREAT", S("EXPIREAT", "e1", "4102444800")),
		inv("PEXPIREAT", S("PEXPIREAT", "e1", farMs)),
		inv("EXPIRE in the past (DEL)", S("SET", "e2", "v"), S("EXPIRE", "e2", "-1"), S("SET", "e3", "v"), S("PEXPIREAT", "e3", "1")),
		inv("EXPIRE missing key (nothing)", S("EXPIRE", "nokey", "10")),
		inv("PERSIST", S("PERSIST", "e1"), S("PERSIST", "e1")),
		inv("RENAME", S("SET", "rn1", "v"), S("RENAME", "rn1", "rn2"), S("RENAME", "nokey", "x"), S("RENAME", "rn2", "rn2"), S("RENAMENX", "rn2", "rn2")),
		inv("lazy expiry on EXPIRE, RENAME, COPY, MOVE", S("SET", "lz11", "v", "PX", "20"), S("SET", "lz12", "v", "PX", "20"), S("SET", "lz13", "v", "PX", "20"),
			S("SET", "lz14", "v", "PX", "20"), S("SET", "lz15", "v"), rstep{args: []string{"EXPIRE", "lz11", "100"}, sleep: 60 * time.Millisecond},
			S("RENAME", "lz12", "lz16"), S("COPY", "lz13", "lz15", "REPLACE"), S("MOVE", "lz14", "3"), S("SET", "lz15", "w", "XX")),
		// KEYS skips an expired key without deleting it (Redis 7.0): the DEL
		// after it removes it, so no later cycle finds it.
		inv("lazy expiry by KEYS, SCAN, TTL, TYPE, MGET, DEL", S("SELECT", "15"), S("SET", "lz21", "v", "PX", "20"), S("SET", "lz22", "v", "PX", "20"),
			S("SET", "lz23", "v", "PX", "20"), S("SET", "lz24", "v", "PX", "20"), S("SET", "lz25", "v", "PX", "20"), S("SET", "lz26", "v", "PX", "20"),
			rstep{args: []string{"KEYS", "lz21"}, sleep: 60 * time.Millisecond}, S("SCAN", "0", "MATCH", "lz22", "COUNT", "100"), S("TTL", "lz23"), S("TYPE", "lz24"),
			S("MGET", "lz25", "lz26"), S("DBSIZE"), S("DEL", "lz21"), S("SELECT", "0")),
		inv("lazy expiry of a destination", S("SET", "lz17", "v", "PX", "20"), S("RPUSH", "lz18", "a"), rstep{args: []string{"RPOPLPUSH", "lz18", "lz17"}, sleep: 60 * time.Millisecond},
			S("SET", "lz19", "v", "PX", "20"), S("SADD", "lz20", "a"), rstep{args: []string{"SUNIONSTORE", "lz19", "lz20"}, sleep: 60 * time.Millisecond}),
		inv("stores with empty results", S("SET", "es1", "v"), S("SET", "es2", "v"), S("SET", "es3", "v"), S("SET", "es4", "v"),
			S("ZINTERSTORE", "es1", "1", "nokey"), S("SINTERSTORE", "es2", "nokey"), S("GEOSEARCHSTORE", "es3", "geo", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"),
			S("SORT", "nokey", "STORE", "es4"), S("ZRANGESTORE", "es1", "nokey", "0", "-1")),
		inv("ZADD variants", S("ZADD", "za", "GT", "CH", "1", "a", "2", "b"), S("ZADD", "za", "LT", "5", "a"), S("ZADD", "za", "NX", "INCR", "1", "a"),
			S("ZADD", "za", "XX", "INCR", "1", "zz"), S("ZADD", "za", "CH", "1", "a", "3", "b")),
		inv("EVAL in another database", S("SELECT", "5"), S("EVAL", "redis.call('set', KEYS[1], 'a') return redis.call('expire', KEYS[1], 0)", "1", "ev10"),
			S("EVAL", "return redis.call('set', KEYS[1], 'b')", "1", "ev10"), S("SELECT", "0")),
		inv("FCALL with set_repl and in MULTI", S("FUNCTION", "LOAD", "#!lua name=rlib\nredis.register_function('rp', function(k) redis.set_repl(redis.REPL_NONE) redis.call('set', k[1], 'x') redis.set_repl(redis.REPL_ALL) return redis.call('set', k[2], 'y') end)"),
			S("FCALL", "rp", "2", "fr1", "fr2"), S("MULTI"), S("FCALL", "rp", "2", "fr3", "fr4"), S("HINCRBYFLOAT", "fr5", "f", "1"), S("EXEC"), S("DEL", "fr1", "fr3"), S("FUNCTION", "DELETE", "rlib")),
		inv("no-op writes (nothing)", S("ZADD", "z0", "1", "a"), S("ZADD", "z0", "1", "a"), S("ZADD", "z0", "XX", "1", "b"), S("LPOP", "nokey", "0"),
			S("RPUSH", "l0", "a"), S("LPOP", "l0", "0"), S("LSET", "l0", "5", "x"), S("HDEL", "h0", "x"), S("SREM", "nokey", "a"), S("GEOADD", "g0", "XX", "1", "1", "m"),
			S("APPEND", "ap0", ""), S("DECRBY", "ap0", "1"), S("INCRBY", "big0", "1"), S("SET", "big0", "9223372036854775807"), S("INCR", "big0"), S("ZINCRBY", "z0", "nan", "a")),
		inv("RENAMENX", S("SET", "rn3", "v"), S("RENAMENX", "rn2", "rn3"), S("RENAMENX", "rn2", "rn4")),
		inv("COPY", S("COPY", "rn4", "cp1"), S("COPY", "rn4", "cp1"), S("COPY", "rn4", "cp1", "REPLACE"), S("COPY", "rn4", "cp1", "DB", "4")),
		inv("MOVE", S("SET", "mv", "v"), S("MOVE", "mv", "5"), S("MOVE", "mv", "5")),
		inv("SELECT placement", S("SELECT", "3"), S("SET", "in3", "v"), S("SELECT", "4"), S("GET", "in3"), S("SELECT", "0"), S("SET", "in0", "v")),
		inv("SWAPDB", S("SWAPDB", "0", "3"), S("SET", "after-swap", "v"), S("SWAPDB", "3", "0"), S("SWAPDB", "1", "1")),
		inv("FLUSHDB in 6", S("SELECT", "6"), S("SET", "x", "v"), S("FLUSHDB"), S("FLUSHDB", "ASYNC"), S("SELECT", "0")),
		inv("SORT STORE", S("RPUSH", "sl", "3", "1", "2"), S("SORT", "sl", "STORE", "sorted"), S("SORT", "sl", "DESC", "LIMIT", "0", "2", "STORE", "sorted2"),
			S("SORT", "nokey", "STORE", "sorted"), S("SORT", "sl")),

		// Lists.
		inv("LPUSH RPUSH LPUSHX RPUSHX", S("LPUSH", "l1", "a", "b"), S("RPUSH", "l1", "c"), S("LPUSHX", "l1", "z"), S("RPUSHX", "nokey", "z"), S("LPUSHX", "nokey", "z")),
		inv("LPOP RPOP", S("LPOP", "l1"), S("RPOP", "l1", "1"), S("LPOP", "nokey"), S("RPUSH", "l2", "a"), S("RPOP", "l2", "5")),
		inv("LINSERT LSET LREM LTRIM", S("RPUSH", "l3", "a", "b", "a", "c"), S("LINSERT", "l3", "BEFORE", "b", "x"), S("LINSERT", "l3", "AFTER", "none", "x"),
			S("LSET", "l3", "0", "y"), S("LREM", "l3", "0", "a"), S("LREM", "l3", "0", "none"), S("LTRIM", "l3", "0", "1"), S("LTRIM", "l3", "0", "-1"), S("LTRIM", "l3", "5", "1")),
		inv("RPOPLPUSH LMOVE", S("RPUSH", "l4", "a", "b", "c"), S("RPOPLPUSH", "l4", "l5"), S("LMOVE", "l4", "l5", "LEFT", "RIGHT"), S("LMOVE", "l4", "l4", "LEFT", "RIGHT"), S("LMOVE", "nokey", "l5", "LEFT", "LEFT")),
		inv("LMPOP", S("RPUSH", "l6", "a", "b", "c"), S("LMPOP", "2", "nokey", "l6", "LEFT", "COUNT", "2"), S("LMPOP", "1", "l6", "RIGHT", "COUNT", "5")),
		inv("BLPOP served at once", S("RPUSH", "l7", "a", "b", "c", "d", "e", "f"), S("BLPOP", "nokey", "l7", "1"), S("BRPOP", "l7", "1")),
		inv("BLMOVE BRPOPLPUSH BLMPOP served at once", S("BLMOVE", "l7", "l8", "RIGHT", "LEFT", "1"), S("BRPOPLPUSH", "l7", "l8", "1"), S("BLMPOP", "1", "1", "l7", "LEFT", "COUNT", "5")),
		inv("BLPOP blocked, served by a push", Blk("BLPOP", "bl1", "5"), waitBlocked(1), S("RPUSH", "bl1", "a", "b")),
		inv("BRPOP blocked, served by a push in MULTI", Blk("BRPOP", "bl2", "5"), waitBlocked(1),
			S("MULTI"), S("RPUSH", "bl2", "a"), S("SET", "bx", "1"), S("EXEC")),
		inv("BLMOVE blocked", Blk("BLMOVE", "bl3", "bl4", "LEFT", "RIGHT", "5"), waitBlocked(1), S("LPUSH", "bl3", "a")),
		inv("BRPOPLPUSH blocked", Blk("BRPOPLPUSH", "bl5", "bl6", "5"), waitBlocked(1), S("LPUSH", "bl5", "a")),
		inv("BLMPOP blocked", Blk("BLMPOP", "5", "2", "bl7", "bl8", "RIGHT", "COUNT", "2"), waitBlocked(1), S("LPUSH", "bl8", "a", "b", "c")),
		inv("BLPOP times out (nothing)", S("BLPOP", "nokey", "0.01")),
		inv("two clients blocked, served by one push", Blk("BLPOP", "bl14", "5"), waitBlocked(1), Blk2("BRPOP", "bl15", "bl14", "5"), waitBlocked(2),
			S("RPUSH", "bl14", "a", "b", "c")),
		inv("two clients blocked, one served, one left", Blk("BLPOP", "bl16", "5"), waitBlocked(1), Blk2("BLMOVE", "bl16", "bl17", "LEFT", "LEFT", "5"), waitBlocked(2),
			S("RPUSH", "bl16", "a"), waitBlocked(1), S("RPUSH", "bl16", "b")),
		inv("a blocked BLMOVE's push serves another", Blk("BLPOP", "bl19", "5"), waitBlocked(1), Blk2("BLMOVE", "bl18", "bl19", "LEFT", "LEFT", "5"), waitBlocked(2),
			S("RPUSH", "bl18", "a")),
		inv("LMOVE serves a client blocked on its destination", S("RPUSH", "bl20", "a"), Blk("BLPOP", "bl21", "5"), waitBlocked(1), S("LMOVE", "bl20", "bl21", "LEFT", "LEFT")),
		inv("BZPOPMIN blocked, served by ZUNIONSTORE", S("ZADD", "bz4", "1", "a"), Blk("BZPOPMIN", "bz5", "5"), waitBlocked(1), S("ZUNIONSTORE", "bz5", "1", "bz4")),
		inv("BLPOP blocked, served by SORT STORE", S("RPUSH", "bl22", "2", "1"), Blk("BLPOP", "bl23", "5"), waitBlocked(1), S("SORT", "bl22", "STORE", "bl23")),
		inv("BLPOP blocked on a key of another db", S("SELECT", "3"), Blk("SELECT", "3"), Blk("BLPOP", "bl24", "5"), waitBlocked(1), S("RPUSH", "bl24", "a"), S("SELECT", "0"), Blk("SELECT", "0")),
		inv("BLPOP blocked, served by EVAL's push", Blk("BLPOP", "bl9", "5"), waitBlocked(1),
			S("EVAL", "redis.call('rpush', KEYS[1], 'a', 'b') return redis.call('set', KEYS[2], 'v')", "2", "bl9", "bl10")),
		inv("BLPOP blocked in another database, served by SWAPDB", S("SELECT", "12"), S("RPUSH", "bl11", "a", "b"), S("SELECT", "0"),
			Blk("BLPOP", "bl11", "5"), waitBlocked(1), S("SWAPDB", "0", "12"), S("SWAPDB", "0", "12")),
		inv("BLMOVE blocked, served by a MULTI", Blk("BLMOVE", "bl12", "bl13", "RIGHT", "RIGHT", "5"), waitBlocked(1),
			S("MULTI"), S("RPUSH", "bl12", "a"), S("RPUSH", "bl12", "b"), S("EXEC")),

		// Hashes.
		inv("HSET HMSET HSETNX", S("HSET", "h1", "a", "1", "b", "2"), S("HSET", "h1", "a", "1"), S("HMSET", "h1", "c", "3"), S("HSETNX", "h1", "a", "x"), S("HSETNX", "h1", "d", "4")),
		inv("HDEL", S("HDEL", "h1", "a", "none"), S("HDEL", "h1", "none"), S("HDEL", "nokey", "a")),
		inv("HINCRBY", S("HINCRBY", "h1", "n", "5"), S("HINCRBY", "h1", "c", "x")),
		inv("HINCRBYFLOAT as HSET", S("HINCRBYFLOAT", "h1", "fl", "1.5"), S("HINCRBYFLOAT", "h1", "fl", "2e1"), S("HINCRBYFLOAT", "h1", "b", "x")),

		// Sets.
		inv("SADD SREM", S("SADD", "st1", "a", "b", "c"), S("SADD", "st1", "a"), S("SREM", "st1", "a", "none"), S("SREM", "st1", "none")),
		inv("SMOVE", S("SMOVE", "st1", "st2", "b"), S("SMOVE", "st1", "st2", "none"), S("SMOVE", "st1", "st1", "c")),
		inv("SPOP one member as SREM", S("SADD", "sp1", "only"), S("SPOP", "sp1"), S("SPOP", "sp1")),
		// The whole set comes in the hash table's order: not compared.
		inv("SPOP count as large as the set as DEL", S("SADD", "sp2", "a", "b", "c"), rstep{args: []string{"SPOP", "sp2", "5"}, loose: true}, S("SPOP", "sp2", "0")),
		{name: "SPOP count, random members as SREM", shape: true, steps: []rstep{S("SADD", "sp3", "a", "b", "c", "d", "e"),
			{args: []string{"SPOP", "sp3", "2"}, loose: true}, S("DEL", "sp3")}},
		{name: "SPOP count, most of the set (the rest kept)", shape: true, steps: []rstep{S("SADD", "sp4", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"),
			{args: []string{"SPOP", "sp4", "9"}, loose: true}, S("DEL", "sp4")}},
		inv("SRANDMEMBER (nothing)", S("SADD", "sr", "a"), S("SRANDMEMBER", "sr"), S("SRANDMEMBER", "sr", "-3")),
		inv("SINTERSTORE SUNIONSTORE SDIFFSTORE", S("SADD", "so1", "a", "b"), S("SADD", "so2", "b", "c"), S("SINTERSTORE", "so3", "so1", "so2"),
			S("SUNIONSTORE", "so4", "so1", "so2"), S("SDIFFSTORE", "so5", "so1", "so2"), S("SINTERSTORE", "so5", "so1", "nokey"), S("SDIFFSTORE", "nokey2", "nokey")),

		// Sorted sets.
		inv("ZADD ZINCRBY ZREM", S("ZADD", "z1", "1", "a", "2", "b", "3", "c"), S("ZADD", "z1", "NX", "5", "a"), S("ZADD", "z1", "INCR", "2", "a"),
			S("ZINCRBY", "z1", "1.5", "b"), S("ZREM", "z1", "c", "none"), S("ZREM", "z1", "none")),
		inv("ZREMRANGEBY*", S("ZADD", "z2", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), S("ZREMRANGEBYSCORE", "z2", "0", "1"),
			S("ZREMRANGEBYRANK", "z2", "0", "0"), S("ZREMRANGEBYLEX", "z2", "[d", "[d"), S("ZREMRANGEBYLEX", "z2", "[x", "[z")),
		inv("ZPOPMIN ZPOPMAX", S("ZADD", "z3", "1", "a", "2", "b", "3", "c", "4", "d"), S("ZPOPMIN", "z3"), S("ZPOPMAX", "z3", "2"), S("ZPOPMIN", "nokey")),
		inv("ZMPOP", S("ZADD", "z4", "1", "a", "2", "b", "3", "c"), S("ZMPOP", "2", "nokey", "z4", "MIN", "COUNT", "2"), S("ZMPOP", "1", "z4", "MAX", "COUNT", "9")),
		inv("BZPOPMIN BZPOPMAX BZMPOP served at once", S("ZADD", "z5", "1", "a", "2", "b", "3", "c", "4", "d"), S("BZPOPMIN", "z5", "1"), S("BZPOPMAX", "z5", "1"),
			S("BZMPOP", "1", "1", "z5", "MIN", "COUNT", "3")),
		inv("BZPOPMIN blocked", Blk("BZPOPMIN", "bz1", "5"), waitBlocked(1), S("ZADD", "bz1", "1", "a", "2", "b")),
		inv("BZMPOP blocked", Blk("BZMPOP", "5", "1", "bz2", "MAX", "COUNT", "5"), waitBlocked(1), S("ZADD", "bz2", "1", "a", "2", "b")),
		inv("BZPOPMAX blocked", Blk("BZPOPMAX", "bz3", "5"), waitBlocked(1), S("ZADD", "bz3", "1", "a")),
		inv("ZUNIONSTORE ZINTERSTORE ZDIFFSTORE ZRANGESTORE", S("ZADD", "zo1", "1", "a", "2", "b"), S("ZADD", "zo2", "3", "b", "4", "c"),
			S("ZUNIONSTORE", "zo3", "2", "zo1", "zo2", "WEIGHTS", "1", "2"), S("ZINTERSTORE", "zo4", "2", "zo1", "zo2", "AGGREGATE", "MAX"),
			S("ZDIFFSTORE", "zo5", "2", "zo1", "zo2"), S("ZRANGESTORE", "zo6", "zo1", "0", "-1"), S("ZRANGESTORE", "zo6", "zo1", "5", "9"), S("ZINTERSTORE", "nokey2", "1", "nokey")),

		// HyperLogLog and geo.
		inv("PFADD", S("PFADD", "hl1", "a", "b"), S("PFADD", "hl1", "a"), S("PFADD", "hl2")),
		inv("PFCOUNT updates the cache", S("PFCOUNT", "hl1"), S("PFCOUNT", "hl1"), S("PFADD", "hl3", "c"), S("PFCOUNT", "hl1", "hl3")),
		inv("PFMERGE", S("PFMERGE", "hl4", "hl1", "hl3"), S("PFMERGE", "hl5")),
		inv("PFDEBUG", S("PFDEBUG", "TODENSE", "hl1"), S("PFDEBUG", "TODENSE", "hl1"), S("PFDEBUG", "ENCODING", "hl1"), S("PFADD", "hl6", "x"), rstep{args: []string{"PFDEBUG", "GETREG", "hl6"}, loose: true}),
		inv("GEOADD", S("GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"), S("GEOADD", "geo", "NX", "13.361389", "38.115556", "Palermo")),
		inv("GEORADIUS STORE", S("GEORADIUS", "geo", "15", "37", "200", "km", "STORE", "gr1"), S("GEORADIUS", "geo", "15", "37", "200", "km", "STOREDIST", "gr2"), S("GEORADIUS", "geo", "15", "37", "200", "km")),
		inv("GEORADIUSBYMEMBER STORE", S("GEORADIUSBYMEMBER", "geo", "Palermo", "300", "km", "STORE", "gr3"), S("GEORADIUSBYMEMBER", "geo", "Palermo", "1", "m", "STORE", "gr3")),
		inv("GEOSEARCHSTORE", S("GEOSEARCHSTORE", "gr4", "geo", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km", "ASC", "STOREDIST")),

		// Transactions.
		inv("MULTI with writes", S("MULTI"), S("SET", "t1", "v"), S("INCR", "t2"), S("GET", "t1"), S("EXEC")),
		inv("MULTI with one write", S("MULTI"), S("SET", "t3", "v"), S("EXEC")),
		inv("MULTI with reads only (nothing)", S("MULTI"), S("GET", "t1"), S("EXEC")),
		inv("MULTI with rewritten commands", S("MULTI"), S("EXPIRE", "t1", "100"), S("SETEX", "t4", "100", "v"), S("INCRBYFLOAT", "t5", "1.5"), S("EXEC")),
		inv("MULTI with SELECT", S("MULTI"), S("SET", "t6", "v"), S("SELECT", "7"), S("SET", "t7", "v"), S("SELECT", "0"), S("EXEC")),
		inv("MULTI with a runtime error", S("MULTI"), S("SET", "t8", "v"), S("LPUSH", "t8", "x"), S("INCR", "t8"), S("EXEC")),
		inv("MULTI aborted (nothing)", S("MULTI"), S("SET", "t9", "v"), S("NOSUCHCOMMAND"), S("EXEC")),
		inv("DISCARD (nothing)", S("MULTI"), S("SET", "t9", "v"), S("DISCARD")),
		inv("WATCH failed (nothing)", S("WATCH", "t1"), S("SET", "t1", "w"), S("MULTI"), S("SET", "t10", "v"), S("EXEC")),
		inv("MULTI with no-op writes", S("MULTI"), S("DEL", "nokey"), S("SADD", "st1", "c"), S("EXEC")),
		inv("MULTI with EVAL", S("MULTI"), S("EVAL", "redis.call('set', KEYS[1], 'x') return redis.call('incr', KEYS[2])", "2", "t11", "t12"), S("SET", "t13", "v"), S("EXEC")),
		inv("MULTI with FLUSHALL and SWAPDB", S("SELECT", "13"), S("SET", "t15", "v"), S("SELECT", "0"),
			S("MULTI"), S("SET", "t16", "v"), S("SWAPDB", "13", "14"), S("SWAPDB", "13", "14"), S("EXEC")),
		inv("MULTI with expiry in the past", S("SET", "t17", "v"), S("MULTI"), S("EXPIRE", "t17", "-5"), S("GETEX", "t1", "PXAT", "1"), S("SET", "t18", "v", "PXAT", "1"), S("EXEC")),
		inv("MULTI with a blocking pop", S("RPUSH", "t14", "a"), S("MULTI"), S("BLPOP", "t14", "0"), S("BLPOP", "t14", "0"), S("EXEC")),

		// Scripts.
		inv("EVAL with writes", S("EVAL", "redis.call('set', KEYS[1], 'e') redis.call('rpush', KEYS[2], 'a', 'b') return 1", "2", "ev1", "ev2")),
		inv("EVAL with one write", S("EVAL", "return redis.call('incr', KEYS[1])", "1", "ev3")),
		inv("EVAL read only (nothing)", S("EVAL", "return redis.call('get', KEYS[1])", "1", "ev1"), S("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "ev1")),
		inv("EVAL rewritten commands", S("EVAL", "redis.call('expire', KEYS[1], 100) redis.call('set', KEYS[2], 'v', 'EX', 100) redis.call('spop', KEYS[3]) return redis.call('incrbyfloat', KEYS[4], '1.5')",
			"4", "ev1", "ev4", "sr", "ev5")),
		inv("EVAL with SELECT", S("EVAL", "redis.call('set', KEYS[1], 'a') redis.call('select', 8) redis.call('set', KEYS[1], 'b') return 1", "1", "ev6")),
		inv("EVAL error after a write", S("EVAL", "redis.call('set', KEYS[1], 'a') return redis.call('lpush', KEYS[1], 'x')", "1", "ev7")),
		inv("EVAL set_repl", S("EVAL", "redis.set_repl(redis.REPL_NONE) redis.call('set', KEYS[1], 'none') redis.set_repl(redis.REPL_ALL) return redis.call('set', KEYS[2], 'all')", "2", "sr1", "sr2"),
			S("EVAL", "redis.set_repl(redis.REPL_AOF) redis.call('set', KEYS[1], 'aof') redis.set_repl(redis.REPL_REPLICA) return redis.call('set', KEYS[2], 'replica')", "2", "sr3", "sr4"),
			S("DEL", "sr1", "sr3")),
		inv("EVAL lazy expiry, rewritten, flushing", S("SET", "ev9", "v"), S("EVAL", "redis.call('del', KEYS[1]) redis.call('flushdb') return redis.call('getex', KEYS[2], 'PX', 5000)", "2", "ev9", "nokey")),
		inv("EVAL no-op write (nothing)", S("EVAL", "return redis.call('del', KEYS[1])", "1", "nokey")),
		inv("SCRIPT LOAD, EVALSHA", S("SCRIPT", "LOAD", incrScript), S("EVALSHA", incrSHA, "1", "ev8"),
			S("EVAL", incrScript, "1", "ev8"), S("EVALSHA", incrSHA, "1", "ev8"), S("EVALSHA_RO", incrSHA, "1", "ev8")),
		inv("SCRIPT FLUSH", S("SCRIPT", "FLUSH")),
		inv("FUNCTION LOAD", S("FUNCTION", "LOAD", fnLib), S("FUNCTION", "LOAD", fnLib), S("FUNCTION", "LOAD", "REPLACE", fnLib)),
		inv("FCALL with writes", S("FCALL", "sw", "2", "fc1", "fc2", "v"), S("FCALL_RO", "sr", "1", "fc1"), S("FCALL", "sr", "1", "fc1")),
		inv("FUNCTION DUMP", rstep{args: []string{"FUNCTION", "DUMP"}, capture: d("fn")}),
		inv("FUNCTION DELETE", S("FUNCTION", "DELETE", "slib"), S("FUNCTION", "DELETE", "slib")),
		inv("FUNCTION RESTORE", fnRestore, S("FCALL", "sw", "2", "fc1", "fc2", "w")),
		inv("FUNCTION FLUSH", S("FUNCTION", "FLUSH"), S("FUNCTION", "FLUSH", "SYNC"), S("FUNCTION", "FLUSH", "ASYNC")),
		inv("FUNCTION LOAD fails (nothing)", S("FUNCTION", "LOAD", "#!lua name=bad\nredis.register_function('x', 1)"), S("FUNCTION", "LOAD", "not a library"),
			S("FUNCTION", "DELETE", "nolib"), rstep{args: []string{"FUNCTION", "RESTORE", "garbage"}, loose: true}),

		// The rate limiter: RL.CHECK against the seed script's EVAL on
		// Redis, pruning and admitting, then at the limit.
		inv("RL.CHECK as the seed script", rstep{args: []string{"RL.CHECK", "rl", seedNow, "1000", "2", "m1"}, redis: []string{"EVAL", seedScript, "1", "rl", seedNow, "1000", "2", "m1"}},
			rstep{args: []string{"RL.CHECK", "rl", "1700000000500", "1000", "2", "m2"}, redis: []string{"EVAL", seedScript, "1", "rl", "1700000000500", "1000", "2", "m2"}},
			rstep{args: []string{"RL.CHECK", "rl", "1700000000600", "1000", "2", "m3"}, redis: []string{"EVAL", seedScript, "1", "rl", "1700000000600", "1000", "2", "m3"}},
			rstep{args: []string{"RL.CHECK", "rl", "1700000001200", "1000", "2", "m4"}, redis: []string{"EVAL", seedScript, "1", "rl", "1700000001200", "1000", "2", "m4"}},
			rstep{args: []string{"RL.CHECK", "rl", "1700000001300", "1000", "5", "m5"}, redis: []string{"EVALSHA", seedSHA, "1", "rl", "1700000001300", "1000", "5", "m5"}},
			// The same member at the same time: the ZADD changes nothing.
			rstep{args: []string{"RL.CHECK", "rl", "1700000001300", "1000", "5", "m5"}, redis: []string{"EVALSHA", seedSHA, "1", "rl", "1700000001300", "1000", "5", "m5"}}),

		// The seed script itself on both (limitkv's native path for it).
		inv("EVALSHA of the seed script", S("SCRIPT", "LOAD", seedScript), S("EVALSHA", seedSHA, "1", "rl2", seedNow, "1000", "2", "m1"),
			S("EVALSHA", seedSHA, "1", "rl2", "1700000000100", "1000", "2", "m2"), S("EVALSHA", seedSHA, "1", "rl2", "1700000000200", "1000", "2", "m3"),
			S("EVALSHA", seedSHA, "1", "rl2", "1700000005000", "1000", "2", "m4"), S("EVAL", seedScript, "1", "rl2", "1700000005000", "1000", "2", "m4")),

		// The other limiters (limitkv's own commands) against their Lua
		// twins (ratelimit/scripts) on Redis, allowed and refused, with
		// costs; every now is explicit.
		inv("CL.THROTTLE as cell.lua", clThrottle...),
		// RL.GCRA's reply is the common six figures in ms, cell.lua's
		// redis-cell's five in seconds: not compared; the GETs are.
		inv("RL.GCRA as cell.lua",
			loose(twin([]string{"RL.GCRA", "rl:gcra", at(0), "2", "1", "1000"}, scripts.Cell, at(0)+"000000", "2", "1", "1000", "1")), S("GET", "rl:gcra"),
			loose(twin([]string{"RL.GCRA", "rl:gcra", at(0), "2", "1", "1000", "COST", "2"}, scripts.Cell, at(0)+"000000", "2", "1", "1000", "2")),
			loose(twin([]string{"RL.GCRA", "rl:gcra", at(0), "2", "1", "1000"}, scripts.Cell, at(0)+"000000", "2", "1", "1000", "1")),
			loose(twin([]string{"RL.GCRA", "rl:gcra", at(500000), "2", "1", "1000", "COST", "5"}, scripts.Cell, at(500000)+"000000", "2", "1", "1000", "5")),
			S("GET", "rl:gcra"),
			loose(twin([]string{"RL.GCRA", "rl:gcra", at(1000000), "2", "1", "1000", "COST", "0"}, scripts.Cell, at(1000000)+"000000", "2", "1", "1000", "0")),
			loose(twin([]string{"RL.GCRA", "rl:gcra", at(4000000), "2", "1", "1000"}, scripts.Cell, at(4000000)+"000000", "2", "1", "1000", "1")),
			S("GET", "rl:gcra")),
		inv("RL.TOKEN as token_bucket.lua", tokenStep(0, 1), tokenStep(500000, 2), tokenStep(500000, 1), tokenStep(500000, 5), tokenStep(600000, 0),
			tokenStep(2000000, 3), tokenStep(2000000, 1)),
		inv("RL.FIXED as fixed_window.lua", fixedStep("rl:fixed", 1, false), fixedStep("rl:fixed", 2, true), fixedStep("rl:fixed", 1, true),
			fixedStep("rl:fixed", 4, true), fixedStep("rl:fixed", 0, true), S("GET", "rl:fixed"),
			// A counter someone SET without a TTL gets the window.
			S("SET", "rl:fixed2", "1"), fixedStep("rl:fixed2", 2, false), S("GET", "rl:fixed2")),
		inv("RL.SLIDING as sliding_window.lua", slidingStep(0, 1), slidingStep(1500000, 2), slidingStep(1500000, 1), slidingStep(1500000, 4),
			slidingStep(1600000, 0), slidingStep(3700000, 1)),
		inv("RL.ACQUIRE RL.RELEASE as concurrency.lua", acquire(0, "a"), acquire(100000, "b"), acquire(200000, "c"), acquire(200000, "a"),
			release(300000, "b"), release(300000, "b"), acquire(1300000, "c"), release(1400000, "c"), release(5000000, "a")),
		inv("RL.RESERVE RL.SETTLE as budget.lua", reserve(0, "30"), reserve(1000, "80"), reserve(1000, "200"),
			settle(2000, "30", "10", at(0)), settle(2000, "10", "20", at(-1000000)), settle(2000, "10", "10", at(0)),
			settle(1500000, "0", "50", at(1000000)), reserve(1600000, "50"), reserve(1600000, "1")),
		// RL.ALL against a MULTI of the twins: all charged, or (one limit
		// refusing) each only asked, so nothing is written.
		inv("RL.ALL as a MULTI of the twins", rlAll(false,
			[]string{"rl:all1", "TOKEN 5 1 1000000 COST 2", "token"}, []string{"rl:all2", "SLIDING 1000000 3", "sliding"}, []string{"rl:all3", "FIXED 1000000 3", "fixed"}),
			rlAll(false, []string{"rl:all4", "GCRA 2 1 1000", "gcra"}, []string{"rl:all5", "LEASE 2 1000000 a", "lease"}, []string{"rl:all6", "BUDGET 1000000 100 30", "budget"}),
			rlAll(true, []string{"rl:all1", "TOKEN 5 1 1000000 COST 2", "token"}, []string{"rl:all2", "SLIDING 1000000 3 COST 3", "sliding"}, []string{"rl:all3", "FIXED 1000000 3", "fixed"}),
			rlAll(true, []string{"rl:all4", "GCRA 2 1 1000 COST 2", "gcra"}, []string{"rl:all5", "LEASE 1 1000000 b", "lease"}),
			S("GET", "rl:all3"), S("GET", "rl:all4"), S("ZRANGE", "rl:all5", "0", "-1", "WITHSCORES"), S("HGETALL", "rl:all6"),
			tokenPeek("rl:all1", "5", "1", "1000000"), slidingPeek("rl:all2", "1000000", "3")),

		// Pub/Sub goes down the stream too (Redis without cluster).
		inv("PUBLISH", S("PUBLISH", "ch", "msg"), S("SPUBLISH", "ch", "msg")),
		inv("PUBLISH in MULTI and EVAL", S("MULTI"), S("SET", "pb1", "v"), S("PUBLISH", "ch", "m1"), S("EXEC"), S("MULTI"), S("PUBLISH", "ch", "m2"), S("GET", "pb1"), S("EXEC"),
			S("EVAL", "redis.call('publish', 'ch', 'm3') return redis.call('set', KEYS[1], 'w')", "1", "pb1"), S("EVAL", "return redis.call('publish', 'ch', 'm4')", "0")),

		// MIGRATE (to the scratch server, as DEL), COPY (nothing).
		inv("MIGRATE", S("SET", "mg1", "v"), S("SET", "mg2", "v"), rstep{args: []string{"MIGRATE"}, dyn: func() []string {
			return []string{"MIGRATE", "127.0.0.1", *d("migrate-port"), "mg1", "0", "5000", "REPLACE"}
		}}, rstep{args: []string{"MIGRATE"}, dyn: func() []string {
			return []string{"MIGRATE", "127.0.0.1", *d("migrate-port"), "", "0", "5000", "COPY", "REPLACE", "KEYS", "mg2"}
		}}),

		// Lazy expiry: a key past its deadline, found by a read, a write,
		// a transaction and a script.
		inv("lazy expiry on GET (DEL)", S("SET", "lz1", "v", "PX", "20"), rstep{args: []string{"GET", "lz1"}, sleep: 60 * time.Millisecond}),
		inv("lazy expiry on a write", S("SET", "lz2", "v", "PX", "20"), rstep{args: []string{"APPEND", "lz2", "x"}, sleep: 60 * time.Millisecond}),
		inv("lazy expiry on EXISTS of two", S("SET", "lz3", "v", "PX", "20"), S("SET", "lz4", "v", "PX", "20"), rstep{args: []string{"EXISTS", "lz3", "lz4"}, sleep: 60 * time.Millisecond}),
		inv("lazy expiry in MULTI", S("SET", "lz5", "v", "PX", "20"), S("MULTI"), S("GET", "lz5"), S("SET", "lz6", "v"), rstep{args: []string{"EXEC"}, sleep: 60 * time.Millisecond}),
		inv("lazy expiry in EVAL", S("SET", "lz7", "v", "PX", "20"), rstep{args: []string{"EVAL", "redis.call('get', KEYS[1]) return redis.call('set', KEYS[2], 'v')", "2", "lz7", "lz8"}, sleep: 60 * time.Millisecond}),
		inv("lazy expiry in another database", S("SELECT", "9"), S("SET", "lz9", "v", "PX", "20"), S("SELECT", "0"), S("SET", "lz10", "v"), S("SELECT", "9"),
			rstep{args: []string{"GET", "lz9"}, sleep: 60 * time.Millisecond}, S("SELECT", "0")),

		// Active expiry: the cycle removes them (their DELs come in the
		// hash table's order).
		{name: "active expiry (DEL each)", unordered: true, steps: []rstep{S("SELECT", "10"), S("SET", "ax1", "v", "PX", "20"), S("SET", "ax2", "v", "PX", "20"),
			S("HSET", "ax3", "f", "v"), S("PEXPIRE", "ax3", "20"), S("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
			{poll: []string{"DBSIZE"}, want: ":0\r\n"}, S("DEBUG", "SET-ACTIVE-EXPIRE", "0"), S("SELECT", "0")}},

		// Streams: XADD with the ID it chose and "~" trims made exact;
		// the group commands as XCLAIM/XGROUP SETID/CREATECONSUMER.
		inv("stream xadd", S("XADD", "xs", "1-1", "a", "b"), S("XADD", "xs", "1-*", "a", "b"), S("XADD", "xs", "5", "c", "d"),
			S("XADD", "xs", "NOMKSTREAM", "6-1", "a", "b"), S("XADD", "xnone", "NOMKSTREAM", "6-1", "a", "b"), S("XADD", "xs", "0-0", "a", "b"),
			S("XADD", "xs", "MAXLEN", "=", "3", "7-1", "a", "b"), S("XDEL", "xs", "5-0", "99-0"), S("XTRIM", "xs", "MINID", "6"), S("XTRIM", "xs", "MAXLEN", "10"),
			S("XSETID", "xs", "100-0", "ENTRIESADDED", "50", "MAXDELETEDID", "90-0")),
		{name: "stream xadd auto id", shape: true, steps: []rstep{{args: []string{"XADD", "xa", "*", "a", "b"}, loose: true},
			{args: []string{"XADD", "xa", "MAXLEN", "~", "1", "*", "a", "b"}, loose: true}, S("DEL", "xa")}},
		inv("stream approximate trims", xtrimSteps()...),
		inv("stream groups", S("XADD", "xg", "1-1", "a", "b"), S("XADD", "xg", "2-1", "a", "b"), S("XADD", "xg", "3-1", "a", "b"), S("XADD", "xg", "4-1", "a", "b"),
			S("XGROUP", "CREATE", "xg", "g", "0"), S("XGROUP", "CREATE", "xg", "g2", "$", "ENTRIESREAD", "4"), S("XGROUP", "CREATE", "xg2", "g", "$", "MKSTREAM"),
			S("XGROUP", "CREATECONSUMER", "xg", "g", "cc"), S("XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "xg", ">"),
			S("XREADGROUP", "GROUP", "g2", "c9", "NOACK", "STREAMS", "xg", ">"), S("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "xg", "0"),
			S("XREADGROUP", "GROUP", "g", "c2", "NOACK", "STREAMS", "xg", ">"), S("XACK", "xg", "g", "1-1", "9-9"),
			S("XCLAIM", "xg", "g", "c2", "0", "2-1", "2", "TIME", "1700000000000", "RETRYCOUNT", "5"), S("XCLAIM", "xg", "g", "c3", "0", "3-1", "FORCE", "JUSTID"),
			S("XCLAIM", "xg", "g", "c3", "0", "9-1", "LASTID", "9-1"), S("XDEL", "xg", "3-1"), S("XCLAIM", "xg", "g", "c2", "0", "3-1"),
			S("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "xg", "0"), S("XGROUP", "SETID", "xg", "g", "0"),
			S("XREADGROUP", "GROUP", "g", "c4", "STREAMS", "xg", ">"), S("XDEL", "xg", "4-1"), S("XAUTOCLAIM", "xg", "g", "c5", "0", "0", "COUNT", "10"),
			S("XAUTOCLAIM", "xg", "g", "c5", "0", "0", "JUSTID"), S("XGROUP", "DELCONSUMER", "xg", "g", "c1"), S("XGROUP", "DESTROY", "xg", "g2")),
		inv("stream blocking readers", S("XGROUP", "CREATE", "xb", "g", "$", "MKSTREAM"), Blk("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "xb", ">"),
			// The first reader must be blocked before the second sends, or
			// the two connections race and the arrival order is chance.
			waitBlocked(1), Blk2("XREADGROUP", "GROUP", "g", "c2", "NOACK", "BLOCK", "0", "STREAMS", "xb", ">"), waitBlocked(2), S("XADD", "xb", "1-1", "a", "b"),
			S("XADD", "xb", "2-1", "a", "b")),

		// FLUSHALL last but one: the data written after it is what the
		// replicas' digests are compared on.
		{name: "digests before FLUSHALL", digest: true},
		inv("FLUSHALL", S("SELECT", "11"), S("SET", "x", "v"), S("FLUSHALL"), S("FLUSHALL", "SYNC"), S("SELECT", "0")),
		inv("after FLUSHALL", S("SET", "s", "v", "PXAT", farMs), S("RPUSH", "l", "a", "b"), S("HSET", "h", "f", "v"), S("SADD", "st", "a"),
			S("ZADD", "z", "1", "a"), S("PFADD", "hll", "a"), S("SELECT", "2"), S("SET", "in2", "v"), S("SELECT", "0"),
			S("EVAL", "redis.call('set', KEYS[1], 'e') redis.call('pexpireat', KEYS[1], "+farMs+") return 1", "1", "ev")),
	}
}

func TestReplicationStream(t *testing.T) {
	requireServers(t)
	rm, _ := startRedisOn(t, t.TempDir(), "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
	rm.Name = "redis master"
	lm, lport := startLimitkvOn(t, "limitkv master", limitkv.Config{"repl-diskless-sync": "yes", "repl-diskless-sync-delay": "0"})
	scratch, _ := startRedisOn(t, t.TempDir())
	dumps := map[string]*string{"migrate-port": new(string)}
	*dumps["migrate-port"] = portOf(scratch.Addr)

	// Real replicas: one of Redis's, a Redis and a limitkv one of limitkv's.
	rr, _ := startRedisOn(t, t.TempDir())
	rr.Name = "redis replica of redis"
	lr, lrp := startRedisOn(t, t.TempDir())
	lr.Name = "redis replica of limitkv"
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the Redis replica of limitkv's log:\n%s", lrp.Log())
			for _, args := range [][]string{{"INFO", "replication"}, {"CLIENT", "LIST"}} {
				if r, err := dialRaw(t, "limitkv master", lm.Addr).Do(args...); err == nil {
					t.Logf("limitkv master's %v:\n%s", args, r.Str)
				}
			}
		}
	})
	ll, _ := startLimitkvOn(t, "limitkv replica of limitkv", nil)
	mustOK(t, rr, "REPLICAOF", "127.0.0.1", portOf(rm.Addr))
	mustOK(t, lr, "REPLICAOF", "127.0.0.1", lport)
	mustOK(t, ll, "REPLICAOF", "127.0.0.1", lport)

	masters := []*streamMaster{
		{name: "redis", c: rm, blk: dialRaw(t, "redis master (blocking)", rm.Addr), blk2: dialRaw(t, "redis master (blocking 2)", rm.Addr)},
		{name: "limitkv", c: lm, blk: dialRaw(t, "limitkv master (blocking)", lm.Addr), blk2: dialRaw(t, "limitkv master (blocking 2)", lm.Addr)},
	}
	for _, m := range masters {
		mustOK(t, m.c, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
		m.fake = attachFakeReplica(t, m.name+"'s fake replica", m.c.Addr)
		if m.fake.form != "eof" {
			t.Errorf("%s: diskless sync to a replica with capa eof sent the payload by %s, want the EOF mark", m.name, m.fake.form)
		}
	}
	waitSynced(t, rm, rr)
	waitSynced(t, lm, lr)
	waitSynced(t, lm, ll)

	invs := streamInvocations(dumps)
	checkWriteCoverage(t, lm, invs)
	digests := func(when string) {
		waitSynced(t, rm, rr)
		waitSynced(t, lm, lr)
		waitSynced(t, lm, ll)
		sameDigest(t, when+" (redis)", rm, rr)
		sameDigest(t, when, lm, lr, ll)
		sameDigest(t, "the two masters "+when, rm, lm)
	}
	for _, iv := range invs {
		if iv.digest {
			digests(iv.name)
			// And replicas that come now get the whole dataset by a
			// full sync.
			fr, _ := startRedisOn(t, t.TempDir())
			fr.Name = "new redis replica of limitkv"
			fl, _ := startLimitkvOn(t, "new limitkv replica of limitkv", nil)
			fx, _ := startRedisOn(t, t.TempDir())
			fx.Name = "new redis replica of redis"
			mustOK(t, fx, "REPLICAOF", "127.0.0.1", portOf(rm.Addr))
			for _, r := range []*RawConn{fr, fl} {
				mustOK(t, r, "REPLICAOF", "127.0.0.1", lport)
			}
			waitSynced(t, rm, fx)
			waitSynced(t, lm, fr)
			waitSynced(t, lm, fl)
			sameDigest(t, "full sync (redis)", rm, fx)
			sameDigest(t, "full sync", lm, fr, fl)
			continue
		}
		var streams [2][]streamCmd
		for i, m := range masters {
			runInvocation(t, m, i == 0, iv)
			streams[i] = m.sync(t)
		}
		compareStreams(t, iv, streams[0], streams[1])
		if os.Getenv("LIMITKV_STREAM_LOG") != "" {
			t.Logf("%s: Redis's stream:%s", iv.name, fmtStream(streams[0]))
		}
	}

	digests("after the stream")
}

// replyLog keeps Redis's replies so limitkv's are compared with them.
var replyLog = map[string][]string{}

// runInvocation sends iv's steps to m and compares its replies with those
// Redis gave (kept in replyLog when redis).
func runInvocation(t *testing.T, m *streamMaster, redis bool, iv rinv) {
	t.Helper()
	var got []string
	var blocked []int
	for _, s := range iv.steps {
		if s.sleep > 0 {
			time.Sleep(s.sleep)
		}
		if s.poll != nil {
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(string(m.c.MustDo(t, s.poll...).Raw), s.want) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: %s: %v never answered %q", iv.name, m.name, s.poll, s.want)
				}
				time.Sleep(5 * time.Millisecond)
			}
			got = append(got, "")
			continue
		}
		args := s.args
		if s.dyn != nil {
			args = s.dyn()
		}
		if redis && s.redis != nil {
			args = s.redis
		}
		if s.redisCmds != nil {
			if redis {
				for _, c := range s.redisCmds {
					m.c.MustDo(t, c...)
				}
			} else {
				m.c.MustDo(t, args...)
			}
			got = append(got, "")
			continue
		}
		if s.block != 0 {
			if err := map[int]*RawConn{1: m.blk, 2: m.blk2}[s.block].Send(args...); err != nil {
				t.Fatal(err)
			}
			blocked = append(blocked, s.block)
			got = append(got, "")
			continue
		}
		r := m.c.MustDo(t, args...)
		if s.capture != nil && redis {
			*s.capture = r.Str
		}
		if s.loose {
			got = append(got, "")
		} else {
			got = append(got, string(r.Raw))
		}
	}
	for _, b := range blocked {
		r, err := map[int]*RawConn{1: m.blk, 2: m.blk2}[b].ReadReply()
		if err != nil {
			t.Fatalf("%s: %s: the blocked command: %v", iv.name, m.name, err)
		}
		got = append(got, string(r.Raw))
	}
	if redis {
		replyLog[iv.name] = got
	} else if want := replyLog[iv.name]; strings.Join(got, "|") != strings.Join(want, "|") {
		for i := range got {
			if i < len(want) && got[i] != want[i] {
				t.Errorf("%s: reply %d: limitkv %q, Redis %q", iv.name, i, got[i], want[i])
			}
		}
	}
}

// sameTime accepts two absolute times in ms (> 2001) a few seconds apart:
// the masters computed them from their own clocks.
func sameTime(a, b string) bool {
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || x < 1e12 || y < 1e12 {
		return false
	}
	return x-y <= 5000 && y-x <= 5000
}

func sameStreamCmd(a, b streamCmd, shape bool) bool {
	if len(a.args) != len(b.args) {
		return false
	}
	if shape {
		return strings.EqualFold(a.args[0], b.args[0])
	}
	if bytes.Equal(a.raw, b.raw) {
		return true
	}
	for i := range a.args {
		if a.args[i] != b.args[i] && !sameTime(a.args[i], b.args[i]) {
			return false
		}
	}
	return true
}

func fmtStream(cmds []streamCmd) string {
	var b strings.Builder
	for _, c := range cmds {
		b.WriteString("\n    ")
		for i, a := range c.args {
			if i > 0 {
				b.WriteByte(' ')
			}
			if len(a) > 60 {
				a = a[:57] + "..."
			}
			b.WriteString(strconv.Quote(a))
		}
	}
	if len(cmds) == 0 {
		b.WriteString(" (nothing)")
	}
	return b.String()
}

func compareStreams(t *testing.T, iv rinv, rds, lkv []streamCmd) {
	t.Helper()
	if iv.unordered {
		// Each run of DELs in key order; the rest stays where it is.
		for _, s := range [][]streamCmd{rds, lkv} {
			for i := 0; i < len(s); {
				j := i
				for j < len(s) && strings.EqualFold(s[j].args[0], "DEL") {
					j++
				}
				run := s[i:j]
				sort.Slice(run, func(a, b int) bool { return string(run[a].raw) < string(run[b].raw) })
				i = max(j, i+1)
			}
		}
	}
	same := len(rds) == len(lkv)
	for i := 0; same && i < len(rds); i++ {
		same = sameStreamCmd(rds[i], lkv[i], iv.shape)
	}
	if !same {
		t.Errorf("%s: the streams differ\n  redis:%s\n  limitkv:%s", iv.name, fmtStream(rds), fmtStream(lkv))
	}
}

// checkWriteCoverage fails for every command limitkv's COMMAND flags
// write that no invocation runs, so a new write command gets one.
func checkWriteCoverage(t *testing.T, lm *RawConn, invs []rinv) {
	t.Helper()
	covered := map[string]bool{}
	for _, iv := range invs {
		for _, s := range iv.steps {
			for _, n := range s.names() {
				covered[n] = true
			}
		}
	}
	var writes []string
	var walk func(c *Reply)
	walk = func(c *Reply) {
		if len(c.Elems) < 3 {
			t.Fatalf("COMMAND entry %q", c.Raw)
		}
		for _, f := range c.Elems[2].Elems {
			if f.Str == "write" {
				writes = append(writes, c.Elems[0].Str)
			}
		}
		if len(c.Elems) > 9 {
			for _, sub := range c.Elems[9].Elems {
				walk(sub)
			}
		}
	}
	for _, c := range lm.MustDo(t, "COMMAND").Elems {
		walk(c)
	}
	if len(writes) < 50 {
		t.Fatalf("limitkv's COMMAND lists only %d write commands", len(writes))
	}
	for _, w := range writes {
		if !covered[w] {
			t.Errorf("write command %q has no invocation in streamInvocations", w)
		}
	}
}

// TestReplicationStreamSyncForms: the full sync's payload by length
// (disk-based sync) and by EOF mark (diskless, to a replica with capa eof),
// from both masters, is an RDB redis-check-rdb accepts, and the stream
// after it starts with a SELECT.
func TestReplicationStreamSyncForms(t *testing.T) {
	requireServers(t)
	for _, diskless := range []string{"yes", "no"} {
		want := map[string]string{"yes": "eof", "no": "len"}[diskless]
		rm, _ := startRedisOn(t, t.TempDir(), "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0")
		lm, _ := startLimitkvOn(t, "limitkv master", limitkv.Config{"repl-diskless-sync": diskless, "repl-diskless-sync-delay": "0"})
		for _, m := range []*streamMaster{{name: "redis", c: rm}, {name: "limitkv", c: lm}} {
			t.Run(m.name+" diskless "+diskless, func(t *testing.T) {
				mustOK(t, m.c, "SELECT", "4")
				mustOK(t, m.c, "RPUSH", "l", "a", "b")
				m.fake = attachFakeReplica(t, m.name+"'s fake replica", m.c.Addr)
				if m.fake.form != want {
					t.Errorf("payload sent by %s, want %s", m.fake.form, want)
				}
				path := filepath.Join(t.TempDir(), "payload.rdb")
				if err := os.WriteFile(path, m.fake.rdb, 0o644); err != nil {
					t.Fatal(err)
				}
				checkRDB(t, path)
				mustOK(t, m.c, "SET", "k", "v")
				got := m.sync(t)
				if s := fmtStream(got); s != fmtStream([]streamCmd{{args: []string{"SELECT", "4"}}, {args: []string{"SET", "k", "v"}}}) {
					t.Errorf("the stream after the sync:%s", s)
				}
			})
		}
	}
}

// TestReplicationStreamEviction: keys evicted (allkeys-random, so which
// ones differs from run to run) go down the stream as DEL, each one alone,
// and the replicas end with their master's digest.
func TestReplicationStreamEviction(t *testing.T) {
	requireServers(t)
	rm, _ := startRedisOn(t, t.TempDir(), "--repl-diskless-sync-delay", "0")
	// The master runs as its own process: in this one its used_memory
	// would count the fake replica's copy of the stream, and evict for it.
	lp := startLimitkvProc(t, t.TempDir(), false, "--repl-diskless-sync-delay", "0")
	lm, lport := dialRaw(t, "limitkv master", lp.Addr), portOf(lp.Addr)
	rr, _ := startRedisOn(t, t.TempDir())
	rr.Name = "redis replica of redis"
	lr, _ := startRedisOn(t, t.TempDir())
	lr.Name = "redis replica of limitkv"
	ll, _ := startLimitkvOn(t, "limitkv replica of limitkv", nil)
	mustOK(t, rr, "REPLICAOF", "127.0.0.1", portOf(rm.Addr))
	mustOK(t, lr, "REPLICAOF", "127.0.0.1", lport)
	mustOK(t, ll, "REPLICAOF", "127.0.0.1", lport)
	replicas := map[string][]*RawConn{"redis": {rr}, "limitkv": {lr, ll}}
	multis := map[string]int{}
	for _, m := range []*streamMaster{{name: "redis", c: rm}, {name: "limitkv", c: lm}} {
		m.fake = attachFakeReplica(t, m.name+"'s fake replica", m.c.Addr)
		for _, r := range replicas[m.name] {
			waitSynced(t, m.c, r)
		}
		val := strings.Repeat("v", 1000)
		written := map[string]bool{}
		oom := 0
		set := func(db, key string) {
			mustOK(t, m.c, "SELECT", db)
			// A write refused for memory (limitkv under the race detector,
			// its heap over the limit with nothing left to evict) is not
			// what this test is about: counted, and its key not expected.
			if r := m.c.MustDo(t, "SET", key, val); strings.HasPrefix(r.Str, "OOM") {
				oom++
				return
			} else if r.Type == '-' {
				t.Fatalf("%s: SET: %s", m.name, r.Raw)
			}
			written[db+" "+key] = true
		}
		// Over a megabyte first, so that the backlog (counted in
		// used_memory) is full when the limit is set.
		for i := range 600 {
			set("0", "pre:"+strconv.Itoa(i))
			set("1", "pre:"+strconv.Itoa(i))
		}
		m.sync(t)
		// limitkv's used_memory is its heap, garbage included until a
		// collection: MEMORY PURGE collects it first (on Redis it purges
		// jemalloc's pages and changes nothing here).
		mustOK(t, m.c, "CONFIG", "SET", "maxmemory-policy", "allkeys-random")
		mustOK(t, m.c, "MEMORY", "PURGE")
		used, _ := strconv.Atoi(replInfo(t, m.c, "memory", "used_memory"))
		mustOK(t, m.c, "CONFIG", "SET", "maxmemory", strconv.Itoa(used+100_000))
		// Well past the limit: limitkv lets the heap run up to 1/16 over
		// it while a collection is under way, and the tests beside it may
		// free memory meanwhile; so at least 2000 writes, and on until
		// eviction has begun (at most 20000: 20 MB past the limit).
		for i := 0; i < 2000 || (i < 20000 && replInfo(t, m.c, "stats", "evicted_keys") == "0"); i++ {
			set(strconv.Itoa(i%2), "k:"+strconv.Itoa(i))
		}
		mustOK(t, m.c, "CONFIG", "SET", "maxmemory", "0")
		stream := m.sync(t)
		db := "?"
		dels := map[string]bool{}
		inMulti := false
		for _, c := range stream {
			switch name := strings.ToUpper(c.args[0]); {
			case name == "SELECT":
				db = c.args[1]
			case name == "MULTI":
				inMulti = true
				multis[m.name]++
			case name == "EXEC":
				inMulti = false
			case name == "DEL" && len(c.args) == 2:
				dels[db+" "+c.args[1]] = true
				if inMulti {
					t.Errorf("%s: evicted %s %s in a MULTI", m.name, db, c.args[1])
				}
			case name == "SET" && len(c.args) == 3:
			default:
				t.Errorf("%s: unexpected %q in the stream", m.name, c.args)
			}
		}
		evicted := 0
		for k := range written {
			db, key, _ := strings.Cut(k, " ")
			mustOK(t, m.c, "SELECT", db)
			gone := m.c.MustDo(t, "EXISTS", key).Int == 0
			if gone {
				evicted++
			}
			if gone != dels[k] {
				t.Errorf("%s: key %s evicted %v, DEL in the stream %v", m.name, k, gone, dels[k])
			}
		}
		if evicted == 0 {
			t.Errorf("%s: %d of %d keys evicted: the test did not exercise eviction", m.name, evicted, len(written))
		}
		t.Logf("%s: %d of %d keys evicted, %d writes refused (OOM), %d MULTI in the stream", m.name, evicted, len(written), oom, multis[m.name])
		for _, r := range replicas[m.name] {
			waitSynced(t, m.c, r)
		}
		sameDigest(t, m.name+" after eviction", m.c, replicas[m.name]...)
	}
	if multis["redis"] != multis["limitkv"] {
		t.Errorf("MULTI in the eviction streams: redis %d, limitkv %d", multis["redis"], multis["limitkv"])
	}
}

// xtrimSteps fills a stream in nodes of 3 entries and trims it by whole
// nodes, by MAXLEN and MINID, from XADD and XTRIM, with and without LIMIT.
func xtrimSteps() []rstep {
	steps := []rstep{S("CONFIG", "SET", "stream-node-max-entries", "3")}
	for i := 1; i <= 30; i++ {
		steps = append(steps, S("XADD", "xt", strconv.Itoa(i)+"-1", "f", "v"))
	}
	return append(steps, S("XADD", "xt", "MAXLEN", "~", "25", "31-1", "f", "v"), S("XTRIM", "xt", "MINID", "~", "12"),
		S("XTRIM", "xt", "MAXLEN", "~", "2", "LIMIT", "6"), S("XADD", "xt", "MINID", "~", "20-1", "LIMIT", "3", "32-1", "f", "v"),
		S("XTRIM", "xt", "MAXLEN", "~", "1000"), S("XTRIM", "xt", "MAXLEN", "~", "0"), S("CONFIG", "SET", "stream-node-max-entries", "100"))
}
