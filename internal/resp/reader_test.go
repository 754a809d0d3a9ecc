package resp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/num"
)

// ---------------------------------------------------------------------------
// Helpers.

// chunkReader hands out data at most chunk bytes per Read, then io.EOF.
type chunkReader struct {
	data  []byte
	chunk int
	reads int
	total int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data))
	if c.chunk > 0 {
		n = min(n, c.chunk)
	}
	copy(p, c.data[:n])
	c.data = c.data[n:]
	c.reads++
	c.total += n
	return n, nil
}

// piecesReader hands out the given pieces, one (at most) per Read.
type piecesReader struct{ pieces [][]byte }

func (r *piecesReader) Read(p []byte) (int, error) {
	for len(r.pieces) > 0 && len(r.pieces[0]) == 0 {
		r.pieces = r.pieces[1:]
	}
	if len(r.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.pieces[0])
	r.pieces[0] = r.pieces[0][n:]
	return n, nil
}

// result is everything a stream produced: its commands (copied) and the
// error that ended it.
type result struct {
	cmds [][]string
	err  error
}

func (r result) String() string {
	var b strings.Builder
	for _, c := range r.cmds {
		fmt.Fprintf(&b, "%q ", c)
	}
	fmt.Fprintf(&b, "err=%v", errString(r.err))
	return b.String()
}

func errString(err error) string {
	var pe *ProtocolError
	switch {
	case err == nil:
		return "<nil>"
	case errors.As(err, &pe):
		return "proto:" + pe.Msg
	default:
		return err.Error()
	}
}

func sameErr(a, b error) bool { return errString(a) == errString(b) }

func sameResult(a, b result) bool {
	if !sameErr(a.err, b.err) || len(a.cmds) != len(b.cmds) {
		return false
	}
	for i := range a.cmds {
		if len(a.cmds[i]) != len(b.cmds[i]) {
			return false
		}
		for j := range a.cmds[i] {
			if a.cmds[i][j] != b.cmds[i][j] {
				return false
			}
		}
	}
	return true
}

// drain calls ReadBatch until it fails.
func drain(t testing.TB, r *Reader, lim Limits) result {
	var res result
	for range 1 << 22 {
		cmds, err := r.ReadBatch(lim)
		if err == nil && len(cmds) == 0 {
			t.Fatalf("ReadBatch returned no command and no error")
		}
		for _, c := range cmds {
			if len(c) == 0 {
				t.Fatalf("ReadBatch returned an empty command")
			}
			s := make([]string, len(c))
			for i, a := range c {
				s[i] = string(a)
			}
			res.cmds = append(res.cmds, s)
		}
		if err != nil {
			res.err = err
			// Errors are sticky.
			if c2, err2 := r.ReadBatch(lim); len(c2) != 0 || !sameErr(err, err2) {
				t.Fatalf("error not sticky: %v then %v", err, err2)
			}
			return res
		}
	}
	t.Fatalf("stream did not end")
	return res
}

func parseWith(t testing.TB, rd io.Reader, size int, lim Limits) result {
	return drain(t, NewReader(rd, size), lim)
}

func parseString(t testing.TB, in string, lim Limits) result {
	return parseWith(t, &chunkReader{data: []byte(in)}, 0, lim)
}

func c(args ...string) []string { return args }

func mb(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

func encode(cmds [][]string) []byte {
	var b []byte
	for _, c := range cmds {
		b = append(b, mb(c...)...)
	}
	return b
}

const (
	errEOF  = "EOF"            // io.EOF: ended between commands
	errUEOF = "unexpected EOF" // io.ErrUnexpectedEOF: ended inside a command
	errQB   = "query buffer"   // ErrQueryBufLimit
	K64     = InlineMaxSize    // 65536
)

func wantErr(s string) error {
	switch s {
	case "", errEOF:
		return io.EOF
	case errUEOF:
		return io.ErrUnexpectedEOF
	case errQB:
		return ErrQueryBufLimit
	}
	return &ProtocolError{Msg: s}
}

// tcase is a stream and what Redis 7.0.15 does with it: the commands it runs,
// then the error. A ProtocolError Msg means Redis replied
// "-ERR Protocol error: Msg\r\n" and closed; errUEOF means Redis waits for
// more (no reply, connection open); errEOF means all was consumed.
type tcase struct {
	name string
	in   string
	want [][]string
	err  string
	// timing: the result depends on how the bytes arrive (Redis too), so the
	// case is not part of the chunking tests.
	timing bool
}

var pingMB = mb("PING")

// Every case below was sent to redis-server 7.0.15 over a raw socket; the
// reply is recorded in the comment or implied by err (see TestAgainstRedis).
var multibulkCases = []tcase{
	{name: "ping", in: pingMB, want: [][]string{c("PING")}},
	{name: "set", in: mb("SET", "key", "value"), want: [][]string{c("SET", "key", "value")}},
	{name: "empty arg", in: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", want: [][]string{c("SET", "k", "")}},
	{name: "binary arg", in: "*2\r\n$4\r\nECHO\r\n$7\r\na\r\n\x00b\nc\r\n", want: [][]string{c("ECHO", "a\r\n\x00b\nc")}},
	{name: "pipeline", in: pingMB + mb("GET", "k") + pingMB, want: [][]string{c("PING"), c("GET", "k"), c("PING")}},
	// *0 and *-N: empty command, skipped, no reply.
	{name: "*0 skipped", in: "*0\r\n" + pingMB, want: [][]string{c("PING")}},
	{name: "*-1 skipped", in: "*-1\r\n" + pingMB, want: [][]string{c("PING")}},
	{name: "*-10 then inline", in: "*-10\r\nPING\r\n", want: [][]string{c("PING")}},
	// "\r\n" and a lone "\n" between commands are empty inline requests.
	{name: "crlf between", in: pingMB + "\r\n" + pingMB, want: [][]string{c("PING"), c("PING")}},
	{name: "lf between", in: pingMB + "\n" + pingMB, want: [][]string{c("PING"), c("PING")}},
	// The two bytes after a bulk's data are skipped unchecked:
	// "*1\r\n$4\r\nPINGxy*1..." -> +PONG +PONG.
	{name: "data trailer not crlf", in: "*1\r\n$4\r\nPINGxy" + pingMB, want: [][]string{c("PING"), c("PING")}},
	{name: "data trailer cr x", in: "*1\r\n$4\r\nPING\rx", want: [][]string{c("PING")}},
	// The byte after a header's '\r' is skipped unchecked.
	{name: "mbulk header cr X", in: "*1\rX$4\r\nPING\r\n", want: [][]string{c("PING")}},
	{name: "bulk header cr X", in: "*1\r\n$4\rXPING\r\n", want: [][]string{c("PING")}},
	// Waiting for more: no reply, connection open.
	{name: "*INT_MAX waits", in: "*2147483647\r\n", err: errUEOF},
	{name: "*20000000 waits", in: "*20000000\r\n", err: errUEOF},
	{name: "$512MB waits", in: "*1\r\n$536870912\r\n", err: errUEOF},
	{name: "data without crlf", in: "*1\r\n$4\r\nPING", err: errUEOF},
	{name: "data with cr only", in: "*1\r\n$4\r\nPING\r", err: errUEOF},
	{name: "header cr last", in: "*1\r", err: errUEOF},
	{name: "bulk header cr last", in: "*1\r\n$4\r", err: errUEOF},
	{name: "partial second arg", in: pingMB + "*2\r\n$3\r\nGET\r\n", want: [][]string{c("PING")}, err: errUEOF},
	// Like strchr, a NUL before the '\r' hides it: Redis waits.
	{name: "NUL in mbulk header", in: "*1\x00\r\n" + pingMB, err: errUEOF},
	{name: "NUL in bulk header", in: "*1\r\n$4\x00\r\nPING\r\n", err: errUEOF},
	{name: "NUL first in bulk header", in: "*1\r\n\x00$4\r\nPING\r\n", err: errUEOF},
	{name: "empty", in: "", err: errEOF},
}

var multibulkErrorCases = []tcase{
	{name: "redcon panic input", in: "*1\r\n$9223372036854775807\r\nx\r\n", err: "invalid bulk length"},
	{name: "mbulk not a number", in: "*abc\r\n", err: "invalid multibulk length"},
	{name: "mbulk > INT_MAX", in: "*2147483648\r\n", err: "invalid multibulk length"},
	{name: "mbulk 20 digits", in: "*99999999999999999999\r\n", err: "invalid multibulk length"},
	{name: "mbulk plus", in: "*+1\r\n" + "$4\r\nPING\r\n", err: "invalid multibulk length"},
	{name: "mbulk leading zero", in: "*01\r\n$4\r\nPING\r\n", err: "invalid multibulk length"},
	{name: "mbulk space", in: "* 1\r\n", err: "invalid multibulk length"},
	{name: "mbulk empty", in: "*\r\n", err: "invalid multibulk length"},
	{name: "mbulk minus only", in: "*-\r\n", err: "invalid multibulk length"},
	{name: "after a command", in: pingMB + "*x\r\n" + pingMB, want: [][]string{c("PING")}, err: "invalid multibulk length"},
	{name: "expected $ got x", in: "*1\r\nx4\r\nPING\r\n", err: "expected '$', got 'x'"},
	{name: "expected $ got \\x01", in: "*1\r\n\x014\r\nPING\r\n", err: "expected '$', got '\x01'"},
	{name: "expected $ got \\xff", in: "*1\r\n\xff4\r\nPING\r\n", err: "expected '$', got '\xff'"},
	{name: "expected $ got \\r", in: "*1\r\n\r\nPING\r\n", err: "expected '$', got ' '"},
	{name: "expected $ got \\n", in: "*1\r\n\n\r\nPING\r\n", err: "expected '$', got ' '"},
	{name: "expected $ got * (second arg)", in: "*2\r\n$3\r\nGET\r\n*1\r\n$1\r\nk\r\n", err: "expected '$', got '*'"},
	{name: "bulk -1", in: "*1\r\n$-1\r\n", err: "invalid bulk length"},
	{name: "bulk not a number", in: "*1\r\n$abc\r\n", err: "invalid bulk length"},
	{name: "bulk empty", in: "*1\r\n$\r\n", err: "invalid bulk length"},
	{name: "bulk plus", in: "*1\r\n$+4\r\nPING\r\n", err: "invalid bulk length"},
	{name: "bulk leading zero", in: "*1\r\n$04\r\nPING\r\n", err: "invalid bulk length"},
	{name: "bulk > proto-max-bulk-len", in: "*1\r\n$536870913\r\n", err: "invalid bulk length"},
	{name: "bulk header runs into data", in: "*1\r\n$4PING\r\n", err: "invalid bulk length"},
	// 64 KB rules: more than 65536 bytes buffered with no '\r'.
	{name: "mbulk count 65536 bytes", in: "*" + strings.Repeat("1", K64-1), err: errUEOF},
	{name: "mbulk count 65537 bytes", in: "*" + strings.Repeat("1", K64), err: "too big mbulk count string"},
	{name: "bulk count 65536 bytes", in: "*1\r\n$" + strings.Repeat("1", K64-1), err: errUEOF},
	{name: "bulk count 65537 bytes", in: "*1\r\n$" + strings.Repeat("1", K64), err: "too big bulk count string"},
	{name: "NUL mbulk header > 64K", in: "*1\x00\r\n" + strings.Repeat("a", K64), err: "too big mbulk count string"},
	{name: "NUL bulk header > 64K", in: "*1\r\n$4\x00\r\n" + strings.Repeat("a", K64), err: "too big bulk count string"},
	{name: "NUL first bulk header > 64K", in: "*1\r\n\x00$4\r\n" + strings.Repeat("a", K64), err: "too big bulk count string"},
	// The '\r' is found once it arrives: Redis (16 KB reads) saw it in time.
	{name: "long mbulk count then cr", in: "*1" + strings.Repeat("1", K64+10) + "\r\n", err: "invalid multibulk length", timing: true},
}

var inlineCases = []tcase{
	{name: "inline ping", in: "PING\r\n", want: [][]string{c("PING")}},
	{name: "inline lf only", in: "PING\n", want: [][]string{c("PING")}},
	{name: "inline cr cr lf", in: "PING\r\r\n", want: [][]string{c("PING")}},
	{name: "blank lines skipped", in: "\n\r\n   \t \r\nPING\r\n", want: [][]string{c("PING")}},
	{name: "spaces tabs", in: "a b\tc\r\n", want: [][]string{c("a", "b", "c")}},
	{name: "many spaces", in: "  SET   k \t v  \r\n", want: [][]string{c("SET", "k", "v")}},
	{name: "double quotes", in: "\"a b\" c\r\n", want: [][]string{c("a b", "c")}},
	{name: "escapes", in: `"\n\r\t\b\a\\\"\x41\x4g\q"` + "\r\n", want: [][]string{c("\n\r\t\b\a\\\"Ax4gq")}},
	{name: "short hex", in: `"\x4"` + "\r\n", want: [][]string{c("x4")}},
	{name: "hex ff 00", in: `"\xff\x00z"` + "\r\n", want: [][]string{c("\xff\x00z")}},
	{name: "hex cases", in: `"\xAf\X41"` + "\r\n", want: [][]string{c("\xafX41")}},
	{name: "single quotes", in: `'it\'s' 'a\nb' 'x\\y'` + "\r\n", want: [][]string{c("it's", `a\nb`, `x\\y`)}},
	{name: "vt after quote", in: "\"abc\"\vd\r\n", want: [][]string{c("abc", "d")}},
	{name: "ff after quote", in: "\"abc\"\fd\r\n", want: [][]string{c("abc", "d")}},
	{name: "quote mid token", in: "ab\"cd\"\r\n", want: [][]string{c("abcd")}},
	{name: "quote mid token with space", in: "ab\"c d\"\r\n", want: [][]string{c("abc d")}},
	{name: "squote mid token", in: "ab'c d'\r\n", want: [][]string{c("abc d")}},
	{name: "empty dq", in: "\"\"\r\n", want: [][]string{c("")}},
	{name: "empty sq", in: "''\r\n", want: [][]string{c("")}},
	{name: "two empty", in: "SET \"\" ''\r\n", want: [][]string{c("SET", "", "")}},
	{name: "vt inside token", in: "a\vb\r\n", want: [][]string{c("a\vb")}},
	{name: "leading vt skipped", in: "\va\r\n", want: [][]string{c("a")}},
	{name: "ff", in: "a\fb \f c\r\n", want: [][]string{c("a\fb", "c")}},
	{name: "inner cr", in: "a\rb\r\n", want: [][]string{c("a", "b")}},
	{name: "cr in quotes", in: "\"a\rb\"\r\n", want: [][]string{c("a\rb")}},
	{name: "high bytes", in: "\xff\xfe\r\n", want: [][]string{c("\xff\xfe")}},
	{name: "inline after multibulk", in: pingMB + "GET k\n" + pingMB, want: [][]string{c("PING"), c("GET", "k"), c("PING")}},
	{name: "inline 65536 no newline", in: strings.Repeat("a", K64), err: errUEOF},
	{name: "inline 65536 then newline", in: strings.Repeat("a", K64) + "\n", want: [][]string{c(strings.Repeat("a", K64))}},
	{name: "NUL in inline", in: "PI\x00NG\r\nPING\r\n", err: errUEOF},
	{name: "unterminated line", in: "PING", err: errUEOF},
}

var inlineErrorCases = []tcase{
	{name: "text after dq", in: "\"abc\"d\r\n", err: "unbalanced quotes in request"},
	{name: "text after sq", in: "'abc'd\r\n", err: "unbalanced quotes in request"},
	{name: "unterminated dq", in: "\"abc\r\n", err: "unbalanced quotes in request"},
	{name: "unterminated sq", in: "'abc\r\n", err: "unbalanced quotes in request"},
	{name: "quote in middle then text", in: "ab\"cd\"ef\r\n", err: "unbalanced quotes in request"},
	{name: "dq backslash at end", in: "\"\\\r\n", err: "unbalanced quotes in request"},
	{name: "dq escaped closing", in: "\"a\\\"\r\n", err: "unbalanced quotes in request"},
	{name: "sq escaped closing", in: "'a\\'\r\n", err: "unbalanced quotes in request"},
	{name: "after commands", in: "PING\r\n" + pingMB + "\"x\r\nPING\r\n", want: [][]string{c("PING"), c("PING")}, err: "unbalanced quotes in request"},
	{name: "inline 65537 no newline", in: strings.Repeat("a", K64+1), err: "too big inline request"},
	{name: "NUL inline > 64K", in: "PI\x00NG" + strings.Repeat("a", K64), err: "too big inline request"},
}

func allCases() []tcase {
	var all []tcase
	for _, l := range [][]tcase{multibulkCases, multibulkErrorCases, inlineCases, inlineErrorCases} {
		all = append(all, l...)
	}
	return all
}

func (tc tcase) result() result { return result{cmds: tc.want, err: wantErr(tc.err)} }

// ---------------------------------------------------------------------------
// Tables.

func TestCases(t *testing.T) {
	for _, tc := range allCases() {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{0, 16, 100} {
				got := parseWith(t, &chunkReader{data: []byte(tc.in)}, size, Limits{})
				if !sameResult(got, tc.result()) {
					t.Fatalf("size %d:\n got %v\nwant %v", size, got, tc.result())
				}
			}
			// The reference model agrees.
			if ref := refParse([]byte(tc.in), Limits{}); !sameResult(ref, tc.result()) {
				t.Fatalf("reference model:\n got %v\nwant %v", ref, tc.result())
			}
		})
	}
}

// TestChunked delivers every case split at every byte boundary, byte by
// byte, and in random pieces: the commands and the error never change.
func TestChunked(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, tc := range allCases() {
		if tc.timing {
			continue
		}
		want := tc.result()
		in := []byte(tc.in)
		check := func(how string, rd io.Reader, size int) {
			t.Helper()
			if got := parseWith(t, rd, size, Limits{}); !sameResult(got, want) {
				t.Fatalf("%s: %s:\n got %v\nwant %v", tc.name, how, got, want)
			}
		}
		if len(in) < 2048 {
			for k := 0; k <= len(in); k++ {
				check(fmt.Sprintf("split at %d", k), &piecesReader{pieces: [][]byte{in[:k:k], in[k:]}}, 16)
			}
		}
		check("1-byte chunks", &chunkReader{data: in, chunk: 1}, 16)
		for range 5 {
			var pieces [][]byte
			for rest := in; len(rest) > 0; {
				n := min(len(rest), 1+rng.Intn(300))
				pieces = append(pieces, rest[:n:n])
				rest = rest[n:]
			}
			check("random pieces", &piecesReader{pieces: pieces}, 16+rng.Intn(200))
		}
	}
}

// TestPipelineMixed parses one long pipeline of inline and multibulk
// commands, whole and in pieces, and checks batching: commands already
// buffered come out in one batch.
func TestPipelineMixed(t *testing.T) {
	var in []byte
	var want [][]string
	for i := range 500 {
		switch i % 5 {
		case 0:
			in = append(in, mb("SET", fmt.Sprint("key", i), strings.Repeat("v", i))...)
			want = append(want, c("SET", fmt.Sprint("key", i), strings.Repeat("v", i)))
		case 1:
			in = append(in, fmt.Sprintf("GET key%d\r\n", i)...)
			want = append(want, c("GET", fmt.Sprint("key", i)))
		case 2:
			in = append(in, "\r\n*0\r\n\n"...)
		case 3:
			in = append(in, fmt.Sprintf("ECHO \"a\\x%02xb\" 'c d'\n", i%256)...)
			want = append(want, c("ECHO", "a"+string([]byte{byte(i % 256)})+"b", "c d"))
		case 4:
			in = append(in, pingMB...)
			want = append(want, c("PING"))
		}
	}
	wantRes := result{cmds: want, err: io.EOF}
	for _, chunk := range []int{0, 1, 7, 100, 4096} {
		for _, size := range []int{16, 4096, 1 << 20} {
			got := parseWith(t, &chunkReader{data: in, chunk: chunk}, size, Limits{})
			if !sameResult(got, wantRes) {
				t.Fatalf("chunk %d size %d: got %d commands, err %v", chunk, size, len(got.cmds), got.err)
			}
		}
	}
	// Everything is buffered at once: one batch has every command.
	r := NewReader(bytes.NewReader(in), 1<<20)
	cmds, err := r.ReadBatch(Limits{})
	if err != nil || len(cmds) != len(want) {
		t.Fatalf("one batch: %d commands (want %d), err %v", len(cmds), len(want), err)
	}
}

// ---------------------------------------------------------------------------
// Limits.

func TestUnauthLimits(t *testing.T) {
	unauth := Limits{MaxMultibulkLen: UnauthMultibulkLen, MaxUnauthBulkLen: UnauthBulkLen}
	// redis-server --requirepass x, unauthenticated connection.
	cases := []tcase{
		{name: "*10 waits", in: "*10\r\n", err: errUEOF},
		{name: "*11", in: "*11\r\n", err: "unauthenticated multibulk length"},
		{name: "*-5 skipped", in: "*-5\r\n" + pingMB, want: [][]string{c("PING")}}, // -NOAUTH
		{name: "invalid first", in: "*2147483648\r\n", err: "invalid multibulk length"},
		{name: "$16384 waits", in: "*1\r\n$16384\r\n", err: errUEOF},
		{name: "$16385", in: "*1\r\n$16385\r\n", err: "unauthenticated bulk length"},
		{name: "$512MB+1 invalid first", in: "*1\r\n$536870913\r\n", err: "invalid bulk length"},
		// Inline requests have no unauthenticated limit.
		{name: "inline 20 args", in: strings.Repeat("a ", 20) + "\r\n", want: [][]string{strings.Fields(strings.Repeat("a ", 20))}},
		{name: "inline 20000 byte arg", in: "PING " + strings.Repeat("a", 20000) + "\r\n", want: [][]string{c("PING", strings.Repeat("a", 20000))}},
		// PING then *12: -NOAUTH then the protocol error.
		{name: "ping then *12", in: pingMB + mb("RPUSH", "k", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"), want: [][]string{c("PING")}, err: "unauthenticated multibulk length"},
		{name: "ping then $20000", in: pingMB + "*2\r\n$4\r\nECHO\r\n$20000\r\n", want: [][]string{c("PING")}, err: "unauthenticated bulk length"},
	}
	for _, tc := range cases {
		for _, chunk := range []int{0, 1, 3} {
			got := parseWith(t, &chunkReader{data: []byte(tc.in), chunk: chunk}, 16, unauth)
			if !sameResult(got, tc.result()) {
				t.Fatalf("%s chunk %d:\n got %v\nwant %v", tc.name, chunk, got, tc.result())
			}
		}
		if ref := refParse([]byte(tc.in), unauth); !sameResult(ref, tc.result()) {
			t.Fatalf("%s: reference model:\n got %v\nwant %v", tc.name, ref, tc.result())
		}
	}

	// Redis parses one command at a time, so a pipelined AUTH lifts the
	// limits for what follows it: AUTH x + RPUSH with 12 args -> +OK :10.
	// The batch stops before the big command; the next ReadBatch parses it
	// under the limits then in force.
	big := mb("RPUSH", "k", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
	bigBulk := mb("ECHO", strings.Repeat("v", 20000))
	for _, tail := range []string{big, bigBulk} {
		for _, authOK := range []bool{true, false} {
			r := NewReader(strings.NewReader(mb("AUTH", "x")+tail), 0)
			cmds, err := r.ReadBatch(unauth)
			if err != nil || len(cmds) != 1 || string(cmds[0][0]) != "AUTH" {
				t.Fatalf("first batch: %q %v", cmds, err)
			}
			lim := unauth
			if authOK {
				lim = Limits{}
			}
			cmds, err = r.ReadBatch(lim)
			if authOK {
				if err != nil || len(cmds) != 1 || len(cmds[0]) < 2 {
					t.Fatalf("after AUTH: %q %v", cmds, err)
				}
				if _, err = r.ReadBatch(lim); err != io.EOF {
					t.Fatalf("end: %v", err)
				}
			} else {
				var pe *ProtocolError
				if len(cmds) != 0 || !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, "unauthenticated") {
					t.Fatalf("AUTH failed: %q %v", cmds, err)
				}
			}
		}
	}
}

func TestMaxBulkLen(t *testing.T) {
	lim := Limits{MaxBulkLen: 10}
	if got := parseString(t, mb("SET", "k", "0123456789"), lim); got.err != io.EOF || len(got.cmds) != 1 {
		t.Fatalf("10 bytes: %v", got)
	}
	if got := parseString(t, mb("SET", "k", "0123456789x"), lim); errString(got.err) != "proto:invalid bulk length" {
		t.Fatalf("11 bytes: %v", got)
	}
	// A MaxBulkLen near MaxInt64 must not overflow anything.
	lim = Limits{MaxBulkLen: math.MaxInt64, MaxQueryBuf: math.MaxInt64}
	for _, in := range []string{"*1\r\n$9223372036854775807\r\nx\r\n", "*1\r\n$9223372036854775806\r\n"} {
		if got := parseWith(t, &chunkReader{data: []byte(in), chunk: 1}, 16, lim); got.err != io.ErrUnexpectedEOF {
			t.Fatalf("%q: %v", in, got)
		}
	}
}

// TestQueryBufLimit: like Redis (client-query-buffer-limit 1mb: SET with a
// 1048574-byte value -> +OK, 1048575 -> closed with no reply; RPUSH with two
// 600000-byte values -> :2; 2 MB of pipelined PINGs -> all PONG), the limit
// bounds one element: a bulk's data plus its CRLF, or a line.
func TestQueryBufLimit(t *testing.T) {
	lim := Limits{MaxQueryBuf: 1000}
	cases := []tcase{
		{name: "bulk 998", in: mb("SET", "k", strings.Repeat("v", 998)), want: [][]string{c("SET", "k", strings.Repeat("v", 998))}},
		{name: "bulk 999", in: mb("SET", "k", strings.Repeat("v", 999)), err: errQB},
		{name: "bulk 999 after ping", in: pingMB + mb("SET", "k", strings.Repeat("v", 999)), want: [][]string{c("PING")}, err: errQB},
		{name: "bulk 999 partial", in: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$999\r\n" + strings.Repeat("v", 500), err: errUEOF},
		{name: "bulk 1005 partial 999", in: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1005\r\n" + strings.Repeat("v", 999), err: errUEOF},
		{name: "bulk 1005 partial 1001", in: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1005\r\n" + strings.Repeat("v", 1001), err: errQB},
		{name: "two 600", in: mb("RPUSH", "k", strings.Repeat("v", 600), strings.Repeat("w", 600)), want: [][]string{c("RPUSH", "k", strings.Repeat("v", 600), strings.Repeat("w", 600))}},
		{name: "pipeline 2000 bytes", in: strings.Repeat(pingMB, 150), want: func() (w [][]string) {
			for range 150 {
				w = append(w, c("PING"))
			}
			return
		}()},
		{name: "inline 999+lf", in: strings.Repeat("a", 999) + "\n", want: [][]string{c(strings.Repeat("a", 999))}},
		{name: "inline 1000+lf", in: strings.Repeat("a", 1000) + "\n", err: errQB},
		{name: "inline 1001 no lf", in: strings.Repeat("a", 1001), err: errQB},
		{name: "header 1001 no cr", in: "*" + strings.Repeat("1", 1000), err: errQB},
		{name: "NUL line", in: "a\x00" + strings.Repeat("a", 999), err: errQB},
	}
	for _, tc := range cases {
		for _, chunk := range []int{0, 1, 64, 333} {
			got := parseWith(t, &chunkReader{data: []byte(tc.in), chunk: chunk}, 16, lim)
			if !sameResult(got, tc.result()) {
				t.Fatalf("%s chunk %d:\n got %v\nwant %v", tc.name, chunk, got, tc.result())
			}
		}
		if ref := refParse([]byte(tc.in), lim); !sameResult(ref, tc.result()) {
			t.Fatalf("%s: reference model:\n got %v\nwant %v", tc.name, ref, tc.result())
		}
	}
}

// ---------------------------------------------------------------------------
// Memory.

// TestBigBulk: a 10 MB value arriving in 1400-byte pieces parses, the buffer
// ends up about the size of the command (not 16 MB), and shrinks back once
// the command has been consumed and the connection is idle.
func TestBigBulk(t *testing.T) {
	val := bytes.Repeat([]byte("0123456789abcdef"), 10<<20/16)
	in := fmt.Appendf(nil, "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$%d\r\n", len(val))
	in = append(in, val...)
	in = append(in, "\r\n"...)
	rd := &piecesReader{}
	for rest := in; len(rest) > 0; {
		n := min(len(rest), 1400)
		rd.pieces = append(rd.pieces, rest[:n:n])
		rest = rest[n:]
	}
	rd.pieces = append(rd.pieces, []byte(pingMB))
	r := NewReader(rd, 4096)
	cmds, err := r.ReadBatch(Limits{})
	if err != nil || len(cmds) != 1 || len(cmds[0]) != 3 || !bytes.Equal(cmds[0][2], val) {
		t.Fatalf("big SET: %d cmds, err %v", len(cmds), err)
	}
	if c := cap(r.buf); c > len(val)+2*4096+64 {
		t.Fatalf("buffer %d bytes for a %d byte command", c, len(in))
	}
	cmds, err = r.ReadBatch(Limits{})
	if err != nil || len(cmds) != 1 || string(cmds[0][0]) != "PING" {
		t.Fatalf("after: %q %v", cmds, err)
	}
	if c := cap(r.buf); c != 4096 {
		t.Fatalf("buffer not shrunk: %d", c)
	}
	if _, err := r.ReadBatch(Limits{}); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// TestShrinkWhenIdle: the buffer goes back to its initial size before the
// reader blocks on an idle connection.
func TestShrinkWhenIdle(t *testing.T) {
	var r *Reader
	capAtSecondRead := -1
	step := 0
	big := []byte(mb("SET", "k", strings.Repeat("x", 1<<20)))
	r = NewReader(readerFunc(func(p []byte) (int, error) {
		switch {
		case len(big) > 0:
			n := copy(p, big)
			big = big[n:]
			return n, nil
		case step == 0:
			// The reader waits for the next command here: it must
			// have let the big buffer go already.
			step++
			capAtSecondRead = cap(r.buf)
			return copy(p, pingMB), nil
		}
		return 0, io.EOF
	}), 1024)
	cmds, err := r.ReadBatch(Limits{})
	if err != nil || len(cmds) != 1 || len(cmds[0][2]) != 1<<20 {
		t.Fatalf("%v %v", len(cmds), err)
	}
	cmds, err = r.ReadBatch(Limits{})
	if err != nil || len(cmds) != 1 || string(cmds[0][0]) != "PING" {
		t.Fatalf("%q %v", cmds, err)
	}
	if capAtSecondRead != 1024 {
		t.Fatalf("buffer of %d bytes kept while idle", capAtSecondRead)
	}
}

// TestArenaShrinkWhenIdle: after a batch of very many arguments the arenas
// are let go too before the reader blocks.
func TestArenaShrinkWhenIdle(t *testing.T) {
	var r *Reader
	pipeline := []byte(strings.Repeat("PING\r\n", 10000))
	argsCap := -1
	r = NewReader(readerFunc(func(p []byte) (int, error) {
		if len(pipeline) > 0 {
			n := copy(p, pipeline)
			pipeline = pipeline[n:]
			return n, nil
		}
		if argsCap < 0 {
			argsCap = cap(r.args)
			return copy(p, pingMB), nil
		}
		return 0, io.EOF
	}), 1<<20)
	cmds, err := r.ReadBatch(Limits{})
	if err != nil || len(cmds) != 10000 {
		t.Fatalf("%d %v", len(cmds), err)
	}
	if cmds, err = r.ReadBatch(Limits{}); err != nil || len(cmds) != 1 {
		t.Fatalf("%d %v", len(cmds), err)
	}
	if argsCap != 0 {
		t.Fatalf("arena of %d kept while idle", argsCap)
	}
}

// TestDeclaredHugeBulk: declaring $536870912 and sending 10 bytes costs
// nothing near 512 MB.
func TestDeclaredHugeBulk(t *testing.T) {
	in := []byte("*2\r\n$3\r\nSET\r\n$536870912\r\n0123456789")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewReader(bytes.NewReader(in), 0)
	_, err := r.ReadBatch(Limits{})
	runtime.ReadMemStats(&after)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("err %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("allocated %d bytes", d)
	}
	if cap(r.buf) != DefaultReaderSize {
		t.Fatalf("buffer grew to %d", cap(r.buf))
	}
	allocs := testing.AllocsPerRun(20, func() {
		r := NewReader(bytes.NewReader(in), 64)
		r.ReadBatch(Limits{})
	})
	if allocs > 10 {
		t.Fatalf("%v allocations", allocs)
	}
}

// endless is an endless stream of one byte, counting what it hands out.
type endless struct {
	prefix []byte
	b      byte
	n      int
}

func (e *endless) Read(p []byte) (int, error) {
	k := copy(p, e.prefix)
	e.prefix = e.prefix[k:]
	for i := k; i < len(p); i++ {
		p[i] = e.b
	}
	e.n += len(p)
	return len(p), nil
}

// TestEndlessLine: a stream that never sends a newline stops at the 64 KB
// rule instead of growing memory.
func TestEndlessLine(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		b      byte
		err    string
	}{
		{"", 'a', "too big inline request"},
		{"*", '1', "too big mbulk count string"},
		{"*1\r\n$", '1', "too big bulk count string"},
		{"PING", 0, "too big inline request"},
		{"*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$", '9', "too big bulk count string"},
	} {
		for _, size := range []int{16, 4096, 1 << 20} {
			src := &endless{prefix: []byte(tc.prefix), b: tc.b}
			r := NewReader(src, size)
			var err error
			for err == nil {
				_, err = r.ReadBatch(Limits{})
			}
			if errString(err) != "proto:"+tc.err {
				t.Fatalf("%q: %v", tc.prefix, err)
			}
			if lim := max(size, 2*K64+64); src.n > lim || cap(r.buf) > lim {
				t.Fatalf("%q size %d: read %d bytes, buffer %d", tc.prefix, size, src.n, cap(r.buf))
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Aliasing.

// TestArgsIntact: the arguments of a batch are not disturbed by the parsing
// of the rest of the batch (in-place inline decoding included), appending to
// one does not overwrite another, and they are sub-slices of the buffer.
func TestArgsIntact(t *testing.T) {
	in := mb("SET", "k1", "v1") + "SET \"k\\x32\" 'v 2'\r\n" + mb("GET", "k3") + "*3\r\n$3\r\nSET\r\n$2\r\nk4"
	rest := "\r\n$2\r\nv4\r\n"
	pr := &piecesReader{pieces: [][]byte{[]byte(in), []byte(rest)}}
	r := NewReader(pr, 4096)
	cmds, err := r.ReadBatch(Limits{})
	if err != nil || len(cmds) != 3 {
		t.Fatalf("%q %v", cmds, err)
	}
	want := [][]string{c("SET", "k1", "v1"), c("SET", "k2", "v 2"), c("GET", "k3")}
	check := func() {
		t.Helper()
		for i, cmd := range cmds {
			for j, a := range cmd {
				if string(a) != want[i][j] {
					t.Fatalf("cmd %d arg %d = %q, want %q", i, j, a, want[i][j])
				}
			}
		}
	}
	check()
	for _, cmd := range cmds {
		for _, a := range cmd {
			if cap(a) != len(a) {
				t.Fatalf("arg %q has spare capacity %d", a, cap(a))
			}
			_ = append(a, "XXXXXXXX"...)
		}
		_ = append(cmd, []byte("extra"))
	}
	check()
	if b := r.Buffered(); b != len("*3\r\n$3\r\nSET\r\n$2\r\nk4") {
		t.Fatalf("Buffered() = %d", b)
	}
	// Same memory as the buffer: no copy.
	if &cmds[0][1][0] != &r.buf[len("*3\r\n$3\r\nSET\r\n$2\r\n")] {
		t.Fatalf("argument does not alias the buffer")
	}
	cmds2, err := r.ReadBatch(Limits{})
	if err != nil || len(cmds2) != 1 || string(cmds2[0][1]) != "k4" || string(cmds2[0][2]) != "v4" {
		t.Fatalf("%q %v", cmds2, err)
	}
}

// ---------------------------------------------------------------------------
// EOF and read errors.

type errAfter struct {
	data []byte
	err  error
}

func (e *errAfter) Read(p []byte) (int, error) {
	n := copy(p, e.data)
	e.data = e.data[n:]
	if len(e.data) == 0 {
		return n, e.err
	}
	return n, nil
}

func TestReadErrors(t *testing.T) {
	boom := errors.New("boom")
	// Data and the error in the same Read: commands first, then the error.
	r := NewReader(&errAfter{data: []byte(pingMB + pingMB), err: boom}, 0)
	cmds, err := r.ReadBatch(Limits{})
	if err != nil || len(cmds) != 2 {
		t.Fatalf("%q %v", cmds, err)
	}
	if _, err = r.ReadBatch(Limits{}); err != boom {
		t.Fatalf("%v", err)
	}
	// EOF inside a command.
	r = NewReader(&errAfter{data: []byte(pingMB + "*1\r\n$4\r\nPI"), err: io.EOF}, 0)
	if cmds, err = r.ReadBatch(Limits{}); err != nil || len(cmds) != 1 {
		t.Fatalf("%q %v", cmds, err)
	}
	if _, err = r.ReadBatch(Limits{}); err != io.ErrUnexpectedEOF {
		t.Fatalf("%v", err)
	}
	// A reader that never progresses.
	r = NewReader(readerFunc(func([]byte) (int, error) { return 0, nil }), 0)
	if _, err = r.ReadBatch(Limits{}); err != io.ErrNoProgress {
		t.Fatalf("%v", err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// ---------------------------------------------------------------------------
// Allocations.

// loopReader hands out block forever, never more than the rest of the current
// block per Read, like packets of a pipelining client.
type loopReader struct {
	block []byte
	off   int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.block[l.off:])
	l.off += n
	if l.off == len(l.block) {
		l.off = 0
	}
	return n, nil
}

func TestZeroAllocs(t *testing.T) {
	for _, block := range []string{
		strings.Repeat(pingMB, 16),
		mb("ZADD", "leaderboard", "1234.5", "user:000001"),
		"SET \"a\\x41\" 'b c'\r\nPING\r\n",
		// A command split over two Reads.
		strings.Repeat(pingMB, 3) + mb("SET", "k", strings.Repeat("v", 5000)),
	} {
		r := NewReader(&loopReader{block: []byte(block)}, 4096)
		for range 100 {
			if _, err := r.ReadBatch(Limits{}); err != nil {
				t.Fatal(err)
			}
		}
		if a := testing.AllocsPerRun(1000, func() {
			if _, err := r.ReadBatch(Limits{}); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Fatalf("%q: %v allocs per batch", block[:20], a)
		}
	}
}

func BenchmarkReadBatch(b *testing.B) {
	for _, bc := range []struct {
		name  string
		block string
		cmds  int
	}{
		{"ping16", strings.Repeat(pingMB, 16), 16},
		{"zadd", mb("ZADD", "leaderboard", "1234.5", "user:000001"), 1},
		{"inline-ping16", strings.Repeat("PING\r\n", 16), 16},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := NewReader(&loopReader{block: []byte(bc.block)}, 0)
			b.SetBytes(int64(len(bc.block)))
			b.ReportAllocs()
			for b.Loop() {
				cmds, err := r.ReadBatch(Limits{})
				if err != nil || len(cmds) != bc.cmds {
					b.Fatalf("%d %v", len(cmds), err)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Reference model: a direct, whole-input transcription of Redis 7.0's
// processInputBuffer, used as the oracle for the chunked reader.

func refStrchr(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
		if x == 0 {
			return -1
		}
	}
	return -1
}

func refParse(data []byte, lim Limits) result {
	if lim.MaxBulkLen <= 0 {
		lim.MaxBulkLen = DefaultMaxBulkLen
	}
	if lim.MaxQueryBuf <= 0 {
		lim.MaxQueryBuf = DefaultMaxQueryBuf
	}
	qb := lim.MaxQueryBuf
	var res result
	proto := func(msg string) result { res.err = &ProtocolError{Msg: msg}; return res }
	q := data
	for len(q) > 0 {
		if q[0] != '*' {
			i := refStrchr(q, '\n')
			if i < 0 {
				if int64(len(q)) > qb {
					res.err = ErrQueryBufLimit
					return res
				}
				if len(q) > K64 {
					return proto("too big inline request")
				}
				break
			}
			if int64(i+1) > qb {
				res.err = ErrQueryBufLimit
				return res
			}
			line := q[:i]
			if i > 0 && line[i-1] == '\r' {
				line = line[:i-1]
			}
			args, ok := refSplitArgs(line)
			if !ok {
				return proto("unbalanced quotes in request")
			}
			q = q[i+1:]
			if len(args) > 0 {
				res.cmds = append(res.cmds, args)
			}
			continue
		}
		// Multibulk: the whole command must be there.
		p := q
		i := refStrchr(p, '\r')
		if i < 0 || i+1 >= len(p) {
			if int64(len(p)) > qb {
				res.err = ErrQueryBufLimit
				return res
			}
			if i < 0 && len(p) > K64 {
				return proto("too big mbulk count string")
			}
			break
		}
		if int64(i+2) > qb {
			res.err = ErrQueryBufLimit
			return res
		}
		n, ok := num.ParseInt(p[1:i])
		if !ok || n > math.MaxInt32 {
			return proto("invalid multibulk length")
		}
		if lim.MaxMultibulkLen > 0 && n > lim.MaxMultibulkLen {
			return proto("unauthenticated multibulk length")
		}
		p = p[i+2:]
		var args []string
		complete := true
		for k := int64(0); k < n; k++ {
			i := refStrchr(p, '\r')
			if i < 0 || i+1 >= len(p) {
				if int64(len(p)) > qb {
					res.err = ErrQueryBufLimit
					return res
				}
				if i < 0 && len(p) > K64 {
					return proto("too big bulk count string")
				}
				complete = false
				break
			}
			if int64(i+2) > qb {
				res.err = ErrQueryBufLimit
				return res
			}
			if p[0] != '$' {
				ch := p[0]
				if ch == '\r' || ch == '\n' {
					ch = ' '
				}
				return proto("expected '$', got '" + string([]byte{ch}) + "'")
			}
			l, ok := num.ParseInt(p[1:i])
			if !ok || l < 0 || l > lim.MaxBulkLen {
				return proto("invalid bulk length")
			}
			if lim.MaxUnauthBulkLen > 0 && l > lim.MaxUnauthBulkLen {
				return proto("unauthenticated bulk length")
			}
			p = p[i+2:]
			if int64(len(p)) < l+2 {
				if int64(len(p)) > qb {
					res.err = ErrQueryBufLimit
					return res
				}
				complete = false
				break
			}
			if l+2 > qb {
				res.err = ErrQueryBufLimit
				return res
			}
			args = append(args, string(p[:l]))
			p = p[l+2:]
		}
		if !complete {
			break
		}
		q = p
		if n > 0 {
			res.cmds = append(res.cmds, args)
		}
	}
	if len(q) > 0 {
		res.err = io.ErrUnexpectedEOF
	} else {
		res.err = io.EOF
	}
	return res
}

// refSplitArgs is sdssplitargs, with the end of line as C's NUL.
func refSplitArgs(line []byte) ([]string, bool) {
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	isspace := func(c byte) bool { return strings.IndexByte(" \t\n\v\f\r", c) >= 0 && c != 0 }
	ishex := func(c byte) bool { return c != 0 && strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
	hexval := func(c byte) byte { return byte(strings.IndexByte("0123456789abcdef", c|0x20)) }
	var argv []string
	p := 0
	for {
		for at(p) != 0 && isspace(at(p)) {
			p++
		}
		if at(p) == 0 {
			return argv, true
		}
		var cur []byte
		inq, insq, done := false, false, false
		for !done {
			switch {
			case inq:
				if at(p) == '\\' && at(p+1) == 'x' && ishex(at(p+2)) && ishex(at(p+3)) {
					cur = append(cur, hexval(at(p+2))*16+hexval(at(p+3)))
					p += 3
				} else if at(p) == '\\' && at(p+1) != 0 {
					p++
					ch := at(p)
					switch ch {
					case 'n':
						ch = '\n'
					case 'r':
						ch = '\r'
					case 't':
						ch = '\t'
					case 'b':
						ch = '\b'
					case 'a':
						ch = '\a'
					}
					cur = append(cur, ch)
				} else if at(p) == '"' {
					if at(p+1) != 0 && !isspace(at(p+1)) {
						return nil, false
					}
					done = true
				} else if at(p) == 0 {
					return nil, false
				} else {
					cur = append(cur, at(p))
				}
			case insq:
				if at(p) == '\\' && at(p+1) == '\'' {
					p++
					cur = append(cur, '\'')
				} else if at(p) == '\'' {
					if at(p+1) != 0 && !isspace(at(p+1)) {
						return nil, false
					}
					done = true
				} else if at(p) == 0 {
					return nil, false
				} else {
					cur = append(cur, at(p))
				}
			default:
				switch at(p) {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, at(p))
				}
			}
			if at(p) != 0 {
				p++
			}
		}
		argv = append(argv, string(cur))
	}
}

// ---------------------------------------------------------------------------
// Conformance against a live redis-server.

// TestAgainstRedis sends every case to the redis-server at $RESP_REDIS_ADDR
// (e.g. `redis-server --port 17002 --bind 127.0.0.1 --save ”`) and checks
// that it behaves as the table says: for a protocol error its last reply is
// "-ERR Protocol error: Msg" and it closes; otherwise it does not close and
// sends no protocol error. Inline splitting is checked by storing the
// arguments with RPUSH and reading them back with LRANGE.
func TestAgainstRedis(t *testing.T) {
	addr := os.Getenv("RESP_REDIS_ADDR")
	if addr == "" {
		t.Skip("RESP_REDIS_ADDR not set")
	}
	exchange := func(in []byte) (string, bool) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		go conn.Write(in)
		var out []byte
		buf := make([]byte, 1<<16)
		conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		for {
			n, err := conn.Read(buf)
			out = append(out, buf[:n]...)
			if err != nil {
				var ne net.Error
				return string(out), !(errors.As(err, &ne) && ne.Timeout())
			}
		}
	}
	for _, tc := range allCases() {
		out, closed := exchange([]byte(tc.in))
		var pe *ProtocolError
		if errors.As(wantErr(tc.err), &pe) {
			if want := "-ERR Protocol error: " + pe.Msg + "\r\n"; !strings.HasSuffix(out, want) || !closed {
				t.Errorf("%s: redis replied %q closed=%v, want suffix %q", tc.name, out, closed, want)
			}
		} else if closed || strings.Contains(out, "Protocol error") {
			t.Errorf("%s: redis replied %q closed=%v", tc.name, out, closed)
		}
		if len(tc.want) == 1 && tc.err == "" && !strings.HasPrefix(tc.in, "*") && len(tc.in) < 1000 {
			// Inline: RPUSH the arguments and read them back.
			line := strings.TrimLeft(tc.in, " \t\r\n\v\f")
			in := "DEL inl\r\nRPUSH inl " + line + mb("LRANGE", "inl", "0", "-1")
			out, _ := exchange([]byte(in))
			if want := string(encode(tc.want)); !strings.HasSuffix(out, want) {
				t.Errorf("%s: LRANGE gave %q, want suffix %q", tc.name, out, want)
			}
		}
	}
}
