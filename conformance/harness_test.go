// Package conformance is limitkv's differential conformance suite: every test
// sends the same bytes to limitkv and to a real redis-server 7.0 (the oracle)
// and requires byte-identical replies.
//
// # Servers
//
// TestMain (main_test.go) starts ONE redis-server on a free 127.0.0.1 port and
// ONE limitkv for the whole package; their addresses are redisAddr and
// limitkvAddr. If redis-server is missing, every test skips (or the run fails
// if LIMITKV_REQUIRE_REDIS=1); LIMITKV_REDIS_SERVER=/path picks the binary.
// Tests run sequentially and share the two servers, so do not call t.Parallel
// in a test that uses runCases (each case starts with FLUSHALL).
//
// # Writing cases (e.g. in conformance/strings_test.go)
//
//	func TestStrings(t *testing.T) {
//		runCases(t, []Case{
//			{Name: "set get", Cmds: []Cmd{C("SET", "k", "v"), C("GET", "k")}},
//			{Name: "binary value", Cmds: []Cmd{C("SET", "k", "a\x00\r\nb"), C("GET", "k")}},
//			{Name: "arity", Cmds: []Cmd{C("GET"), C("GET", "a", "b")}},
//			{Name: "keys", Cmds: []Cmd{C("MSET", "a", "1", "b", "2"), C("KEYS", "*").Unordered()}},
//			{Name: "ttl", Cmds: []Cmd{C("SET", "k", "v", "EX", "100"), C("TTL", "k").TTLApprox(1)}},
//			{Name: "expiry", Cmds: []Cmd{C("SET", "k", "v", "PX", "50"), Sleep(80 * time.Millisecond), C("GET", "k")}},
//			{Name: "known gap", Skip: "issue #12: OBJECT not implemented", Cmds: []Cmd{C("OBJECT", "FREQ", "k")}},
//		})
//	}
//
// Each Case runs as a subtest named Case.Name, and again as "Case.Name (RESP3)"
// with HELLO 3 sent first on every connection (unless Case.RESP2Only gives
// the reason not to): the runner opens fresh
// connections to both servers, sends FLUSHALL to both, then for each Cmd writes
// it to both servers, reads its reply (exactly one complete RESP reply unless
// .Replies(n)/.NoReply() says otherwise) from both, and compares the raw reply
// bytes. A mismatch fails the subtest with the case name, the step, the command
// (with the file:line where its C/Raw call is) and both replies quoted with %q;
// the remaining steps still run (up to 5 mismatches). If both servers close the
// connection at the same step, that is conformance too (e.g. QUIT); the next Cmd
// on that connection redials. A timeout or a one-sided close ends the case.
// A FLUSHALL that limitkv rejects fails the case but its steps still run.
// Case.Skip marks a known, tracked divergence (the subtest skips with that reason).
//
// # Building commands
//
//	C(args...)       a command sent as a RESP multibulk; args are binary-safe Go strings
//	Raw(bytes)       raw bytes sent as-is (inline commands, broken framing); one reply read
//	Sleep(d)         pause the case for d (nothing sent), e.g. to let keys expire
//
// # Per-command modifiers (each returns a modified copy)
//
//	.Unordered()       array reply compared as a multiset of elements (KEYS, SMEMBERS, ...)
//	.PairsUnordered()  flat array compared as a multiset of consecutive pairs
//	                   (HGETALL, ZRANDMEMBER k 100 WITHSCORES, HRANDFIELD h 100 WITHVALUES);
//	                   only meaningful when the whole set is returned, not a random subset
//	.TTLApprox(tol)    integer replies may differ by at most tol (TTL, PTTL); negative
//	                   replies (-1 no TTL, -2 no key) must still match exactly
//	.Ignore()          only the RESP type (and null-ness) must match (TIME, RANDOMKEY)
//	.Check(name, fn)   custom comparison func(redis, limitkv *Reply) error, as a last resort
//	.On(n)             send on the case's connection number n (default 0), for multi-client cases
//	.Replies(n)        read n replies instead of 1 (e.g. SUBSCRIBE a b); .NoReply() reads none
//	.Timeout(d)        reply timeout for this command (default replyTimeout), e.g. blocking commands
//
// Error replies ("-...") are always compared exactly, whatever the modifier: a
// relaxation only applies when both replies have the shape it is meant for, and
// otherwise the comparison falls back to byte equality.
//
// # Lower-level tools
//
//	dialPair(t)                    (redis, limitkv *RawConn), closed at the end of the test
//	dialRaw(t, name, addr)         one raw RESP2 connection: Do, MustDo, Send, WriteRaw, ReadReply, AwaitClose
//	                               (errors wrap ErrTimeout, ErrClosed, ErrMalformed)
//	newClients(t, opts...)         go-redis v9 clients (redis, limitkv *redis.Client); opts edit *redis.Options
//	flushBoth(t)                   FLUSHALL on both servers
//	startLimitkv(t)                a private limitkv for one test
package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Timeouts used by the raw client.
var (
	replyTimeout = 3 * time.Second // waiting for one complete reply
	writeTimeout = 5 * time.Second
	dialTimeout  = 2 * time.Second
)

// Limits that protect the harness from a runaway server.
const (
	maxReplyBulk  = 512 << 20 // largest bulk string accepted in a reply
	maxReplyLine  = 1 << 20   // longest simple-string/error/header line
	maxReplyElems = 1 << 24   // largest aggregate
	maxReplyDepth = 128       // deepest nesting
)

// Transport-level errors returned (wrapped) by RawConn; test with errors.Is.
var (
	ErrClosed    = errors.New("connection closed by server")
	ErrTimeout   = errors.New("timed out waiting for a reply")
	ErrMalformed = errors.New("malformed RESP reply")
)

// ---------------------------------------------------------------------------
// Replies

// Reply is one complete RESP reply as read from the wire.
type Reply struct {
	Type  byte     // '+', '-', ':', '$', '*' (RESP3 '_', ',', '#', '(', '!', '=', '%', '~', '>', '|' are parsed too)
	Raw   []byte   // the exact bytes of the reply, including nested elements and CRLFs
	Str   string   // payload of simple strings, errors, integers (as text) and bulk strings
	Int   int64    // value of an integer reply
	Null  bool     // $-1 or *-1 (or RESP3 _)
	Elems []*Reply // elements of an aggregate (maps: key, value, key, value, ...)

	start, end int // offsets into the parser buffer, for Raw
}

// IsError reports whether the reply is an error ("-...").
func (r *Reply) IsError() bool { return r.Type == '-' }

// String returns the raw reply quoted with %q.
func (r *Reply) String() string { return fmt.Sprintf("%q", r.Raw) }

// readReply reads exactly one complete reply from br.
func readReply(br *bufio.Reader) (*Reply, error) {
	p := &replyParser{br: br}
	r, err := p.reply(0)
	if err != nil {
		return nil, err
	}
	buf := p.buf[:len(p.buf):len(p.buf)]
	var fill func(*Reply)
	fill = func(x *Reply) {
		x.Raw = buf[x.start:x.end]
		for _, e := range x.Elems {
			fill(e)
		}
	}
	fill(r)
	return r, nil
}

type replyParser struct {
	br  *bufio.Reader
	buf []byte // every byte consumed so far
}

// line reads through the next "\n" and returns the line without its "\r\n".
func (p *replyParser) line() (string, error) {
	start := len(p.buf)
	for {
		chunk, err := p.br.ReadSlice('\n')
		p.buf = append(p.buf, chunk...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return "", err
		}
		if len(p.buf)-start > maxReplyLine {
			return "", fmt.Errorf("%w: line longer than %d bytes", ErrMalformed, maxReplyLine)
		}
	}
	l := p.buf[start:]
	if len(l) < 2 || l[len(l)-2] != '\r' {
		return "", fmt.Errorf("%w: line not terminated by CRLF: %q", ErrMalformed, l)
	}
	return string(l[:len(l)-2]), nil
}

func (p *replyParser) reply(depth int) (*Reply, error) {
	if depth > maxReplyDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrMalformed, maxReplyDepth)
	}
	start := len(p.buf)
	l, err := p.line()
	if err != nil {
		return nil, err
	}
	if l == "" {
		return nil, fmt.Errorf("%w: empty line", ErrMalformed)
	}
	r := &Reply{Type: l[0], start: start}
	body := l[1:]
	length := func(allowNull bool) (int64, error) {
		n, err := strconv.ParseInt(body, 10, 64)
		if err != nil || n < -1 || (n == -1 && !allowNull) {
			return 0, fmt.Errorf("%w: bad length in %q", ErrMalformed, l)
		}
		return n, nil
	}
	switch r.Type {
	case '+', '-', ',', '#', '(':
		r.Str = body
	case ':':
		r.Str = body
		if r.Int, err = strconv.ParseInt(body, 10, 64); err != nil {
			return nil, fmt.Errorf("%w: bad integer %q", ErrMalformed, l)
		}
	case '_':
		r.Null = true
	case '$', '!', '=':
		n, err := length(r.Type == '$')
		if err != nil {
			return nil, err
		}
		if n == -1 {
			r.Null = true
			break
		}
		if n > maxReplyBulk {
			return nil, fmt.Errorf("%w: bulk of %d bytes exceeds the harness limit", ErrMalformed, n)
		}
		off := len(p.buf)
		p.buf = append(p.buf, make([]byte, n+2)...)
		if _, err := io.ReadFull(p.br, p.buf[off:]); err != nil {
			return nil, err
		}
		if p.buf[len(p.buf)-2] != '\r' || p.buf[len(p.buf)-1] != '\n' {
			return nil, fmt.Errorf("%w: bulk of %d bytes not followed by CRLF: %q", ErrMalformed, n, p.buf[start:])
		}
		r.Str = string(p.buf[off : off+int(n)])
	case '*', '~', '>', '%', '|':
		n, err := length(r.Type == '*')
		if err != nil {
			return nil, err
		}
		if n == -1 {
			r.Null = true
			break
		}
		if n > maxReplyElems {
			return nil, fmt.Errorf("%w: aggregate of %d elements exceeds the harness limit", ErrMalformed, n)
		}
		if r.Type == '%' || r.Type == '|' {
			n *= 2
		}
		r.Elems = make([]*Reply, 0, min(n, 1024))
		for i := int64(0); i < n; i++ {
			e, err := p.reply(depth + 1)
			if err != nil {
				return nil, err
			}
			r.Elems = append(r.Elems, e)
		}
	default:
		return nil, fmt.Errorf("%w: unknown type byte in %q", ErrMalformed, l)
	}
	r.end = len(p.buf)
	return r, nil
}

// ---------------------------------------------------------------------------
// Raw connections

// RawConn is a raw RESP2 client connection: it writes bytes exactly as given
// and returns replies with their exact bytes. It is not safe for concurrent use.
type RawConn struct {
	Name    string        // "redis" or "limitkv", used in messages
	Addr    string        // server address
	Timeout time.Duration // per-reply read timeout (default replyTimeout)

	nc net.Conn
	br *bufio.Reader
}

// dialRawConn connects to addr; name labels the connection in messages.
func dialRawConn(name, addr string) (*RawConn, error) {
	nc, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("dial %s at %s: %w", name, addr, err)
	}
	return &RawConn{Name: name, Addr: addr, Timeout: replyTimeout, nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}, nil
}

// dialRaw connects to addr or fails the test; the connection is closed when the test ends.
func dialRaw(tb testing.TB, name, addr string) *RawConn {
	tb.Helper()
	c, err := dialRawConn(name, addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// dialPair opens one raw connection to each server (closed when the test ends).
func dialPair(tb testing.TB) (rds, lkv *RawConn) {
	tb.Helper()
	requireServers(tb)
	return dialRaw(tb, "redis", redisAddr), dialRaw(tb, "limitkv", limitkvAddr)
}

// Close closes the connection.
func (c *RawConn) Close() error { return c.nc.Close() }

// NetConn exposes the underlying connection (for half-closes, deadlines, ...).
func (c *RawConn) NetConn() net.Conn { return c.nc }

// encodeCommand encodes args as a RESP multibulk; args may hold arbitrary bytes.
func encodeCommand(args ...string) []byte {
	n := 16
	for _, a := range args {
		n += len(a) + 16
	}
	b := make([]byte, 0, n)
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// WriteRaw writes b exactly as given.
func (c *RawConn) WriteRaw(b []byte) error {
	_ = c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := c.nc.Write(b)
	return classify(err)
}

// Send writes one command as a multibulk without reading the reply.
func (c *RawConn) Send(args ...string) error { return c.WriteRaw(encodeCommand(args...)) }

// ReadReply reads exactly one complete reply, waiting at most c.Timeout.
// Errors wrap ErrTimeout, ErrClosed or ErrMalformed. After a timeout in the
// middle of a reply the stream is out of sync and the connection should be dropped.
func (c *RawConn) ReadReply() (*Reply, error) {
	t := c.Timeout
	if t <= 0 {
		t = replyTimeout
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(t))
	r, err := readReply(c.br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, classify(err))
	}
	return r, nil
}

// Do sends one command and reads its reply.
func (c *RawConn) Do(args ...string) (*Reply, error) {
	if err := c.Send(args...); err != nil {
		return nil, fmt.Errorf("%s: write: %w", c.Name, err)
	}
	return c.ReadReply()
}

// MustDo is Do that fails the test on a transport error (an error reply is not one).
func (c *RawConn) MustDo(tb testing.TB, args ...string) *Reply {
	tb.Helper()
	r, err := c.Do(args...)
	if err != nil {
		tb.Fatalf("%s %s: %v", c.Name, fmtArgs(args), err)
	}
	return r
}

// AwaitClose reads whatever the server still sends during wait and reports
// whether it closed the connection (EOF or reset) in that time. extra holds any
// bytes received meanwhile (normally none).
func (c *RawConn) AwaitClose(wait time.Duration) (closed bool, extra []byte) {
	_ = c.nc.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 4096)
	for {
		n, err := c.br.Read(buf)
		extra = append(extra, buf[:n]...)
		if err != nil {
			return errors.Is(classify(err), ErrClosed), extra
		}
	}
}

// classify maps network errors onto ErrTimeout / ErrClosed.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w (%v)", ErrTimeout, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, net.ErrClosed):
		return fmt.Errorf("%w (%v)", ErrClosed, err)
	}
	return err
}

// flushBoth sends FLUSHALL to both servers and requires +OK from each.
func flushBoth(tb testing.TB) {
	tb.Helper()
	rds, lkv := dialPair(tb)
	for _, c := range []*RawConn{rds, lkv} {
		if r := c.MustDo(tb, "FLUSHALL"); string(r.Raw) != "+OK\r\n" {
			tb.Fatalf("FLUSHALL on %s: got %q", c.Name, r.Raw)
		}
		c.Close()
	}
}

// newClients returns go-redis v9 clients for the oracle and for limitkv,
// closed when the test ends. opts, if given, may adjust the options of both.
func newClients(tb testing.TB, opts ...func(*redis.Options)) (rds, lkv *redis.Client) {
	tb.Helper()
	requireServers(tb)
	mk := func(addr string) *redis.Client {
		o := &redis.Options{Addr: addr, DialTimeout: dialTimeout, ReadTimeout: replyTimeout, WriteTimeout: writeTimeout}
		for _, f := range opts {
			f(o)
		}
		c := redis.NewClient(o)
		tb.Cleanup(func() { c.Close() })
		return c
	}
	return mk(redisAddr), mk(limitkvAddr)
}

// ---------------------------------------------------------------------------
// Cases

// Case is one conformance scenario: a sequence of commands run against both
// servers after FLUSHALL.
type Case struct {
	Name string // subtest name
	Cmds []Cmd
	Skip string // if set, the case is skipped with this reason (a known, tracked divergence)
	// RESP2Only, if set, says why the case does not also run in RESP3
	// (see runCases); e.g. it checks RESP2-specific framing.
	RESP2Only string
	// KeepData skips the FLUSHALL the case would start with (replicas
	// refuse it; their data is their master's).
	KeepData bool
	// resp3: every connection of the case sends HELLO 3 first.
	resp3 bool
}

// Cmd is one step of a Case. Build it with C, Raw or Sleep and the modifiers.
type Cmd struct {
	Args []string // the command, sent as a multibulk (binary-safe)

	raw     []byte // sent as-is instead of Args when rawSet
	rawSet  bool
	pause   time.Duration // Sleep step: nothing sent
	conn    int
	replies int // replies to read; -1 means the default of 1
	timeout time.Duration
	cmp     comparer
	cmpName string
	where   string // file:line where the step was built, for failure messages
}

// caller returns "file.go:123" of the code that called C/Raw/Sleep.
func caller() string {
	_, file, line, ok := runtime.Caller(2)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

// comparer returns nil when the replies conform.
type comparer func(rds, lkv *Reply) error

// C builds a command from its arguments (arbitrary bytes allowed).
func C(args ...string) Cmd { return Cmd{Args: args, replies: -1, where: caller()} }

// Raw builds a step that writes b exactly as given and reads one reply.
func Raw(b string) Cmd { return Cmd{raw: []byte(b), rawSet: true, replies: -1, where: caller()} }

// Recv builds a step that sends nothing and reads one reply (more with
// Replies): a pushed message.
func Recv() Cmd { return Cmd{rawSet: true, replies: -1, where: caller()} }

// Sleep builds a step that pauses the case for d without sending anything.
func Sleep(d time.Duration) Cmd { return Cmd{pause: d, where: caller()} }

// Unordered compares an array reply as a multiset of its elements.
func (c Cmd) Unordered() Cmd { c.cmp, c.cmpName = cmpUnordered, "Unordered"; return c }

// PairsUnordered compares a flat array reply as a multiset of consecutive pairs.
func (c Cmd) PairsUnordered() Cmd { c.cmp, c.cmpName = cmpPairsUnordered, "PairsUnordered"; return c }

// TTLApprox lets integer replies differ by at most tol (negative replies must match exactly).
func (c Cmd) TTLApprox(tol int64) Cmd {
	c.cmp, c.cmpName = ttlApprox(tol), fmt.Sprintf("TTLApprox(%d)", tol)
	return c
}

// Ignore only requires the same RESP type and null-ness (errors still compare exactly).
func (c Cmd) Ignore() Cmd { c.cmp, c.cmpName = cmpIgnore, "Ignore"; return c }

// Check uses a custom comparison; fn returns nil when the replies conform.
// Byte-equal replies always conform without calling fn.
func (c Cmd) Check(name string, fn func(rds, lkv *Reply) error) Cmd {
	c.cmp, c.cmpName = fn, name
	return c
}

// On sends the command on the case's connection number n (connections are opened on demand).
func (c Cmd) On(n int) Cmd { c.conn = n; return c }

// Replies reads n replies for this step instead of one.
func (c Cmd) Replies(n int) Cmd { c.replies = n; return c }

// NoReply reads no reply for this step.
func (c Cmd) NoReply() Cmd { c.replies = 0; return c }

// Timeout sets the reply timeout for this step.
func (c Cmd) Timeout(d time.Duration) Cmd { c.timeout = d; return c }

func (c Cmd) nReplies() int {
	if c.replies < 0 {
		return 1
	}
	return c.replies
}

// String renders the step for failure messages, e.g. `SET "k" "v"`.
func (c Cmd) String() string {
	var s string
	switch {
	case c.pause > 0:
		return fmt.Sprintf("Sleep(%v)", c.pause)
	case c.rawSet && len(c.raw) == 0:
		s = "(receive)"
	case c.rawSet:
		s = fmt.Sprintf("raw %q", truncate(c.raw, 200))
	default:
		s = fmtArgs(c.Args)
	}
	if c.conn != 0 {
		s += fmt.Sprintf(" [conn %d]", c.conn)
	}
	if c.cmpName != "" {
		s += " [" + c.cmpName + "]"
	}
	if c.where != "" {
		s += "  (" + c.where + ")"
	}
	return s
}

func fmtArgs(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if i == 0 && a != "" && strings.IndexFunc(a, func(r rune) bool { return r <= ' ' || r > '~' || r == '"' }) < 0 {
			parts[i] = a
		} else {
			parts[i] = fmt.Sprintf("%q", truncate([]byte(a), 200))
		}
	}
	return strings.Join(parts, " ")
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("%s...(%d bytes)", b[:n], len(b))
}

// runCases runs each case as a subtest named after it, then again in RESP3
// as "<name> (RESP3)" (every connection sends HELLO 3 first), unless the
// case says why it is RESP2-only: every command is checked in both
// protocols.
func runCases(t *testing.T, cases []Case) {
	t.Helper()
	requireServers(t)
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) { runCase(t, c) })
		if c.RESP2Only == "" {
			c3 := c
			c3.resp3 = true
			t.Run(c.Name+" (RESP3)", func(t *testing.T) { runCase(t, c3) })
		}
	}
}

// casePair is the pair of connections for one connection number of a case.
type casePair struct{ rds, lkv *RawConn }

// runCase runs one case; see the package comment.
func runCase(t *testing.T, c Case) {
	t.Helper()
	requireServers(t)
	if c.Skip != "" {
		t.Skip(c.Skip)
	}
	conns := map[int]*casePair{}
	get := func(n int) *casePair {
		if p := conns[n]; p != nil {
			return p
		}
		p := &casePair{dialRaw(t, "redis", redisAddr), dialRaw(t, "limitkv", limitkvAddr)}
		conns[n] = p
		if c.resp3 {
			for _, rc := range []*RawConn{p.rds, p.lkv} {
				if r := rc.MustDo(t, "HELLO", "3"); r.Type != '%' {
					t.Fatalf("case %q: HELLO 3 on %s answered %q", c.Name, rc.Name, r.Raw)
				}
			}
		}
		return p
	}
	// The case's connections (and the side ones settling used) are closed
	// and noted at its end, so the next case can wait for them to be gone.
	var side *casePair
	defer func() {
		for _, p := range conns {
			noteClosed(p.rds)
			noteClosed(p.lkv)
		}
		if side != nil {
			noteClosed(side.rds)
			noteClosed(side.lkv)
		}
	}()
	first := get(0)
	for _, rc := range []*RawConn{first.rds, first.lkv} {
		// Not fatal: the steps still run and are compared, but the case fails.
		if !c.KeepData {
			if r := rc.MustDo(t, "FLUSHALL"); string(r.Raw) != "+OK\r\n" {
				t.Errorf("case %q: FLUSHALL on %s answered %q; data from earlier cases may leak into this one", c.Name, rc.Name, r.Raw)
			}
		}
		if !awaitClosedGone(rc) {
			t.Logf("case %q: connections of earlier cases still open on %s after %v", c.Name, rc.Name, settleWait)
		}
	}

	mismatches := 0
	for i, cmd := range c.Cmds {
		step := fmt.Sprintf("case %q, step %d/%d", c.Name, i+1, len(c.Cmds))
		if cmd.pause > 0 {
			time.Sleep(cmd.pause)
			continue
		}
		p := get(cmd.conn)
		out := cmd.raw
		if !cmd.rawSet {
			out = encodeCommand(cmd.Args...)
		}
		// Write to both before reading, so time-sensitive commands see nearly the same clock.
		werrR, werrL := p.rds.WriteRaw(out), p.lkv.WriteRaw(out)
		if cmd.replies == 0 && werrR == nil && werrL == nil && len(cmd.Args) > 0 && blockingCommands[strings.ToUpper(cmd.Args[0])] {
			if side == nil {
				side = &casePair{dialRaw(t, "redis", redisAddr), dialRaw(t, "limitkv", limitkvAddr)}
			}
			if !awaitBlocked(p.rds, side.rds) || !awaitBlocked(p.lkv, side.lkv) {
				t.Logf("%s: %s neither blocked nor answered within %v", step, cmd, settleWait)
			}
		}
		rr, errR := readN(p.rds, cmd, werrR)
		lr, errL := readN(p.lkv, cmd, werrL)

		if errR != nil || errL != nil {
			closedR, closedL := errors.Is(errR, ErrClosed), errors.Is(errL, ErrClosed)
			if closedR && closedL && len(rr) == len(lr) {
				// Both closed at the same point: conformant; compare what did arrive, then redial.
				delete(conns, cmd.conn)
			} else {
				t.Fatalf("%s: transport failure\n  command: %s\n  redis:   %s\n  limitkv: %s",
					step, cmd, describe(rr, errR), describe(lr, errL))
			}
		}
		for j := range rr {
			if err := compareReplies(cmd, rr[j], lr[j]); err != nil {
				mismatches++
				which := ""
				if cmd.nReplies() > 1 {
					which = fmt.Sprintf(" (reply %d/%d)", j+1, cmd.nReplies())
				}
				t.Errorf("%s%s: %v\n  command: %s\n  redis:   %q\n  limitkv: %q",
					step, which, err, cmd, truncate(rr[j].Raw, 2000), truncate(lr[j].Raw, 2000))
				break
			}
		}
		if mismatches >= 5 {
			t.Fatalf("case %q: stopping after %d mismatches", c.Name, mismatches)
		}
	}
}

// readN reads the replies of one step; on failure it returns those read so far.
func readN(c *RawConn, cmd Cmd, writeErr error) ([]*Reply, error) {
	if writeErr != nil && !errors.Is(writeErr, ErrClosed) {
		return nil, fmt.Errorf("%s: write: %w", c.Name, writeErr)
	}
	old := c.Timeout
	if cmd.timeout > 0 {
		c.Timeout = cmd.timeout
	}
	defer func() { c.Timeout = old }()
	var out []*Reply
	for k := 0; k < cmd.nReplies(); k++ {
		r, err := c.ReadReply()
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func describe(rs []*Reply, err error) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%q ", truncate(r.Raw, 2000))
	}
	if err != nil {
		fmt.Fprintf(&b, "<%v>", err)
	} else {
		b.WriteString("<ok>")
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// Comparisons

// compareReplies applies cmd's relaxation; errors and byte-equal replies short-circuit.
func compareReplies(cmd Cmd, rds, lkv *Reply) error {
	if bytes.Equal(rds.Raw, lkv.Raw) {
		return nil
	}
	if cmd.cmp == nil || rds.IsError() || lkv.IsError() {
		return errors.New("replies differ")
	}
	if err := cmd.cmp(rds, lkv); err != nil {
		return fmt.Errorf("replies differ under %s: %v", cmd.cmpName, err)
	}
	return nil
}

func isArray(r *Reply) bool {
	return !r.Null && (r.Type == '*' || r.Type == '~' || r.Type == '>')
}

func cmpUnordered(rds, lkv *Reply) error {
	if !isArray(rds) || !isArray(lkv) || rds.Type != lkv.Type {
		return errors.New("not both arrays, compared exactly")
	}
	return sameMultiset(rawElems(rds.Elems, 1), rawElems(lkv.Elems, 1))
}

// cmpPairsUnordered compares pairs as a multiset: a RESP2 flat array of
// key, value..., a RESP3 map, or a RESP3 array of [member, score] pairs.
func cmpPairsUnordered(rds, lkv *Reply) error {
	if !(isArray(rds) || rds.Type == '%') || !(isArray(lkv) || lkv.Type == '%') || rds.Type != lkv.Type {
		return errors.New("not both arrays or maps, compared exactly")
	}
	re, le := flatPairs(rds), flatPairs(lkv)
	if len(re)%2 != 0 || len(le)%2 != 0 {
		return fmt.Errorf("odd array lengths %d and %d", len(re), len(le))
	}
	return sameMultiset(rawElems(re, 2), rawElems(le, 2))
}

// flatPairs returns an aggregate's elements with RESP3's nested pairs
// (WITHSCORES replies: [[member, score], ...]) flattened to RESP2's
// member, score, ... form; other replies' elements as they are.
func flatPairs(r *Reply) []*Reply {
	if r.Type != '*' || len(r.Elems) == 0 {
		return r.Elems
	}
	for _, e := range r.Elems {
		if e.Type != '*' || len(e.Elems) != 2 {
			return r.Elems
		}
	}
	out := make([]*Reply, 0, 2*len(r.Elems))
	for _, e := range r.Elems {
		out = append(out, e.Elems...)
	}
	return out
}

// rawElems groups elements by k and returns the raw bytes of each group.
func rawElems(es []*Reply, k int) []string {
	out := make([]string, 0, len(es)/k)
	for i := 0; i+k <= len(es); i += k {
		var s []byte
		for _, e := range es[i : i+k] {
			s = append(s, e.Raw...)
		}
		out = append(out, string(s))
	}
	return out
}

func sameMultiset(a, b []string) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d elements vs %d", len(a), len(b))
	}
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return fmt.Errorf("element multisets differ (first difference after sorting: %q vs %q)", truncate([]byte(a[i]), 200), truncate([]byte(b[i]), 200))
		}
	}
	return nil
}

func ttlApprox(tol int64) comparer {
	return func(rds, lkv *Reply) error {
		if rds.Type != ':' || lkv.Type != ':' {
			return errors.New("not both integers, compared exactly")
		}
		if rds.Int < 0 || lkv.Int < 0 {
			return errors.New("negative TTL replies must match exactly")
		}
		if d := rds.Int - lkv.Int; d > tol || -d > tol {
			return fmt.Errorf("%d and %d differ by more than %d", rds.Int, lkv.Int, tol)
		}
		return nil
	}
}

func cmpIgnore(rds, lkv *Reply) error {
	if rds.Type != lkv.Type {
		return fmt.Errorf("RESP types %q and %q differ", rds.Type, lkv.Type)
	}
	if rds.Null != lkv.Null {
		return fmt.Errorf("null-ness differs (redis null=%v, limitkv null=%v)", rds.Null, lkv.Null)
	}
	return nil
}

// randomRun is the start every randomized differential test shares: its
// random source, seeded from the clock or from LIMITKV_SEED=<n> (to replay
// a run; the seed and the command to replay it are logged if the test
// fails), and its number of operations, def or opsEnv=<n>.
func randomRun(t *testing.T, opsEnv string, def int) (*rand.Rand, int) {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("LIMITKV_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("LIMITKV_SEED=%q: %v", s, err)
		}
		seed = n
	}
	total := def
	if s := os.Getenv(opsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: not a positive number", opsEnv, s)
		}
		total = n
	}
	name := t.Name()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d: replay with LIMITKV_SEED=%d go test ./conformance/ -run '^%s$'", seed, seed, name)
		}
	})
	return rand.New(rand.NewPCG(uint64(seed), uint64(seed)>>32|1)), total
}
