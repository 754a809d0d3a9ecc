package commands

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/resp"
)

// tester drives an engine directly, without the network: each Do runs one
// command and returns its raw RESP reply. Family tests use it for unit tests;
// byte-for-byte parity with Redis lives in conformance/.
type tester struct {
	t     testing.TB
	E     *engine.Engine
	C     *engine.Client
	Clock *clock.Manual
}

func newTester(t testing.TB) *tester {
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	cfg := config.DefaultConfig()
	// Snapshots (SAVE, SHUTDOWN SAVE, fuzzed commands) stay out of the
	// source tree.
	cfg.SetDir(t.TempDir(), "")
	e := New(cfg, clk, nil)
	t.Cleanup(func() { durability.WaitBgsave(e) }) // before the directory is removed
	return &tester{t: t, E: e, C: e.NewClient("127.0.0.1:1", "127.0.0.1:6379"), Clock: clk}
}

// Do runs args and returns the reply, e.g. "+OK\r\n".
func (tt *tester) Do(args ...string) string {
	tt.t.Helper()
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var w resp.Writer
	tt.E.Lock()
	tt.E.Exec(tt.C, bargs, &w)
	tt.E.Unlock()
	return string(w.Bytes())
}

// Expect runs args and fails unless the reply is want.
func (tt *tester) Expect(want string, args ...string) {
	tt.t.Helper()
	if got := tt.Do(args...); got != want {
		tt.t.Errorf("%s: got %q, want %q", strings.Join(args, " "), got, want)
	}
}

// Reply builders for expected values.
func bulk(s string) string   { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
func integer(n int64) string { return fmt.Sprintf(":%d\r\n", n) }
func errReply(s string) string {
	return "-" + s + "\r\n"
}
func array(items ...string) string {
	return fmt.Sprintf("*%d\r\n%s", len(items), strings.Join(items, ""))
}

const (
	okReply   = "+OK\r\n"
	nilReply  = "$-1\r\n"
	nilArray  = "*-1\r\n"
	emptyList = "*0\r\n"
)

func TestDispatch(t *testing.T) {
	tt := newTester(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "+PONG\r\n"},
		{[]string{"ping", "hi"}, bulk("hi")},
		{[]string{"PiNg", "a", "b"}, errReply("ERR wrong number of arguments for 'ping' command")},
		{[]string{"ECHO"}, errReply("ERR wrong number of arguments for 'echo' command")},
		{[]string{"nosuch", "a", "b"}, errReply("ERR unknown command 'nosuch', with args beginning with: 'a' 'b' ")},
		{[]string{"nosuch"}, errReply("ERR unknown command 'nosuch', with args beginning with: ")},
		{[]string{"SELECT", "16"}, errReply(engine.ErrDBIndex)},
		{[]string{"SELECT", "x"}, errReply(engine.ErrNotInt)},
		{[]string{"SELECT", "1"}, okReply},
		{[]string{"HELLO", "4"}, errReply(engine.ErrNoProto)},
		{[]string{"AUTH", "x"}, errReply(engine.ErrNoPasswordSet)},
	}
	for _, tc := range tests {
		tt.Expect(tc.want, tc.args...)
	}
}

func TestUnknownCommandQuotesAtMost128Bytes(t *testing.T) {
	tt := newTester(t)
	long := strings.Repeat("x", 300)
	got := tt.Do("nosuch", long, "b")
	want := errReply("ERR unknown command 'nosuch', with args beginning with: '" + strings.Repeat("x", 128) + "' ")
	if got != want {
		t.Fatalf("got %q", got)
	}
}

func TestPanickingHandlerIsAnsweredAndRecovered(t *testing.T) {
	tt := newTester(t)
	engine.Register(&engine.Command{Name: "test.panic", Arity: 1, Handler: func(x *engine.Ctx) {
		x.W.Simple("partial")
		panic("boom")
	}})
	defer delete(engine.Table, "test.panic")
	tt.Expect(errReply(engine.ErrInternal), "test.panic")
	tt.Expect("+PONG\r\n", "PING")
}
