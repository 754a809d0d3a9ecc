package conformance

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// Tests of the harness itself; they need no server.

func parseOne(t *testing.T, in string) (*Reply, string) {
	t.Helper()
	br := bufio.NewReaderSize(strings.NewReader(in), 16) // tiny buffer: exercises long lines
	r, err := readReply(br)
	if err != nil {
		t.Fatalf("readReply(%q): %v", in, err)
	}
	rest, _ := io.ReadAll(br)
	return r, string(rest)
}

func TestHarnessParseReplies(t *testing.T) {
	for _, tc := range []struct {
		in   string
		typ  byte
		str  string
		null bool
		n    int // elements
	}{
		{"+OK\r\n", '+', "OK", false, 0},
		{"-ERR unknown command 'foo'\r\n", '-', "ERR unknown command 'foo'", false, 0},
		{":-42\r\n", ':', "-42", false, 0},
		{"$0\r\n\r\n", '$', "", false, 0},
		{"$6\r\na\r\n\x00\xffb\r\n", '$', "a\r\n\x00\xffb", false, 0},
		{"$-1\r\n", '$', "", true, 0},
		{"*-1\r\n", '*', "", true, 0},
		{"*0\r\n", '*', "", false, 0},
		{"*3\r\n:1\r\n*2\r\n$1\r\na\r\n*-1\r\n$-1\r\n", '*', "", false, 3},
		{"+" + strings.Repeat("x", 100) + "\r\n", '+', strings.Repeat("x", 100), false, 0},
		{"%1\r\n+k\r\n:1\r\n", '%', "", false, 2},
		{"_\r\n", '_', "", true, 0},
	} {
		r, rest := parseOne(t, tc.in+"+NEXT\r\n")
		if string(r.Raw) != tc.in || r.Type != tc.typ || r.Str != tc.str || r.Null != tc.null || len(r.Elems) != tc.n {
			t.Errorf("%q: got type %q raw %q str %q null %v elems %d", tc.in, r.Type, r.Raw, r.Str, r.Null, len(r.Elems))
		}
		if rest != "+NEXT\r\n" {
			t.Errorf("%q: consumed too much or too little, rest %q", tc.in, rest)
		}
	}

	r, _ := parseOne(t, "*2\r\n*2\r\n$1\r\na\r\n:7\r\n$-1\r\n")
	if got := string(r.Elems[0].Raw); got != "*2\r\n$1\r\na\r\n:7\r\n" {
		t.Errorf("nested element raw = %q", got)
	}
	if r.Elems[0].Elems[1].Int != 7 || !r.Elems[1].Null {
		t.Errorf("nested values wrong: %+v", r.Elems)
	}
}

func TestHarnessParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"$3\r\nfooXX", ErrMalformed},
		{"?x\r\n", ErrMalformed},
		{"+OK\n", ErrMalformed},
		{":abc\r\n", ErrMalformed},
		{"$-2\r\n", ErrMalformed},
		{"*-2\r\n", ErrMalformed},
		{"\r\n", ErrMalformed},
		{"$5\r\nab", ErrClosed},
		{"*2\r\n:1\r\n", ErrClosed},
		{"+OK", ErrClosed},
		{"", ErrClosed},
	} {
		_, err := readReply(bufio.NewReader(strings.NewReader(tc.in)))
		if !errors.Is(classify(err), tc.want) {
			t.Errorf("%q: got %v, want %v", tc.in, err, tc.want)
		}
	}
}

func TestHarnessEncodeCommand(t *testing.T) {
	got := string(encodeCommand("SET", "k", "a\r\n\x00", ""))
	want := "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\n\x00\r\n$0\r\n\r\n"
	if got != want {
		t.Errorf("encodeCommand = %q, want %q", got, want)
	}
}

func TestHarnessTimeoutAndClose(t *testing.T) {
	client, server := net.Pipe()
	c := &RawConn{Name: "pipe", nc: client, br: bufio.NewReader(client), Timeout: 50 * time.Millisecond}
	start := time.Now()
	if _, err := c.ReadReply(); !errors.Is(err, ErrTimeout) {
		t.Fatalf("silent server: got %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("timeout took %v", d)
	}
	go func() {
		_, _ = server.Write([]byte("+PONG\r\n$3\r\nab"))
		server.Close()
	}()
	if r, err := c.ReadReply(); err != nil || string(r.Raw) != "+PONG\r\n" {
		t.Fatalf("after a timeout with nothing read, the conn stays usable: %v %v", r, err)
	}
	if _, err := c.ReadReply(); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed mid-reply: got %v, want ErrClosed", err)
	}
	if closed, _ := c.AwaitClose(time.Second); !closed {
		t.Error("AwaitClose did not see the close")
	}
}

func reply(t *testing.T, s string) *Reply {
	t.Helper()
	r, err := readReply(bufio.NewReader(strings.NewReader(s)))
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return r
}

func TestHarnessRelaxations(t *testing.T) {
	for _, tc := range []struct {
		cmd      Cmd
		rds, lkv string
		ok       bool
	}{
		{C("GET"), "$1\r\na\r\n", "$1\r\na\r\n", true},
		{C("GET"), "$1\r\na\r\n", "$1\r\nb\r\n", false},
		{C("KEYS").Unordered(), "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", true},
		{C("KEYS").Unordered(), "*2\r\n$1\r\na\r\n$1\r\na\r\n", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", false},
		{C("KEYS").Unordered(), "*1\r\n$1\r\na\r\n", "*2\r\n$1\r\na\r\n$1\r\na\r\n", false},
		{C("KEYS").Unordered(), "*-1\r\n", "*0\r\n", false},
		{C("KEYS").Unordered(), "-ERR x\r\n", "-ERR y\r\n", false},
		{C("H").PairsUnordered(), "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n", "*4\r\n$1\r\nb\r\n:2\r\n$1\r\na\r\n:1\r\n", true},
		{C("H").PairsUnordered(), "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n", "*4\r\n$1\r\na\r\n:2\r\n$1\r\nb\r\n:1\r\n", false},
		{C("H").PairsUnordered(), "*3\r\n:1\r\n:2\r\n:3\r\n", "*3\r\n:1\r\n:3\r\n:2\r\n", false},
		{C("TTL").TTLApprox(1), ":100\r\n", ":99\r\n", true},
		{C("TTL").TTLApprox(1), ":100\r\n", ":98\r\n", false},
		{C("TTL").TTLApprox(1), ":-1\r\n", ":-2\r\n", false},
		{C("TTL").TTLApprox(1), ":0\r\n", ":-1\r\n", false},
		{C("TTL").TTLApprox(1), ":1\r\n", "$1\r\n1\r\n", false},
		{C("TIME").Ignore(), "*2\r\n$1\r\n1\r\n$1\r\n2\r\n", "*2\r\n$1\r\n3\r\n$1\r\n4\r\n", true},
		{C("RANDOMKEY").Ignore(), "$1\r\na\r\n", "$-1\r\n", false},
		{C("RANDOMKEY").Ignore(), "$1\r\na\r\n", ":1\r\n", false},
		{C("RANDOMKEY").Ignore(), "-ERR a\r\n", "-ERR b\r\n", false},
	} {
		err := compareReplies(tc.cmd, reply(t, tc.rds), reply(t, tc.lkv))
		if (err == nil) != tc.ok {
			t.Errorf("%s: %q vs %q: got %v, want ok=%v", tc.cmd, tc.rds, tc.lkv, err, tc.ok)
		}
	}
}
