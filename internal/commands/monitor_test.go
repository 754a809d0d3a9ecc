package commands

import (
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

func TestMonitorRepr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{"a b", `"a b"`},
		{`q"\`, `"q\"\\"`},
		{"\n\r\t\a\b", `"\n\r\t\a\b"`},
		{"\x00\x01\x1f\x7f\x80\xff", `"\x00\x01\x1f\x7f\x80\xff"`},
		{"~ !", `"~ !"`},
	} {
		if got := string(config.AppendRepr(nil, []byte(c.in))); got != c.want {
			t.Errorf("repr(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// monitorOf makes a second client of tt's engine a monitor and returns
// its output buffer.
func monitorOf(tt *tester) (*engine.Client, *resp.Writer) {
	m := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
	w := &resp.Writer{}
	tt.E.Lock()
	m.Out = w
	if tt.E.Exec(m, [][]byte{[]byte("MONITOR")}, w) != engine.Continue || string(w.Bytes()) != "+OK\r\n" {
		tt.t.Fatalf("MONITOR answered %q", w.Bytes())
	}
	w.Reset(0)
	tt.E.Unlock()
	return m, w
}

func TestMonitorFeed(t *testing.T) {
	tt := newTester(t)
	m, w := monitorOf(tt)
	ts := "+1700000000.000000 "
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "v"}, ts + `[0 127.0.0.1:1] "SET" "k" "v"` + "\r\n"},
		{[]string{"SELECT", "2"}, ts + `[2 127.0.0.1:1] "SELECT" "2"` + "\r\n"},
		{[]string{"CONFIG", "GET", "timeout"}, ""},
		{[]string{"GET"}, ""},
		{[]string{"AUTH", "secret"}, ts + `[2 127.0.0.1:1] "AUTH" "(redacted)"` + "\r\n"},
		{[]string{"HELLO", "2", "AUTH", "u", "p", "SETNAME", "x"}, ts + `[2 127.0.0.1:1] "HELLO" "2" "AUTH" "(redacted)" "(redacted)" "SETNAME" "x"` + "\r\n"},
		{[]string{"EVAL", "return redis.call('incr', 'n')", "0"}, ts + `[2 127.0.0.1:1] "EVAL" "return redis.call('incr', 'n')" "0"` + "\r\n" +
			ts + `[2 lua] "incr" "n"` + "\r\n"},
	} {
		tt.Do(c.args...)
		if got := string(w.Bytes()); got != c.want {
			t.Errorf("%v: monitor got %q, want %q", c.args, got, c.want)
		}
		w.Reset(0)
	}
	// Without monitors nothing is built.
	tt.E.Lock()
	tt.E.StopMonitor(m)
	tt.E.Unlock()
	tt.Do("SET", "k", "v")
	if w.Len() != 0 || tt.E.Cs.Gate != 0 {
		t.Errorf("after the monitor stopped: %q, gate %d", w.Bytes(), tt.E.Cs.Gate)
	}
}

func TestClientPauseOutcome(t *testing.T) {
	tt := newTester(t)
	other := tt.E.NewClient("127.0.0.1:3", "127.0.0.1:6379")
	run := func(c *engine.Client, args ...string) (engine.Outcome, string) {
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		var w resp.Writer
		tt.E.Lock()
		defer tt.E.Unlock()
		return tt.E.Exec(c, b, &w), string(w.Bytes())
	}
	tt.Expect("+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	if out, r := run(other, "GET", "k"); out != engine.Continue || r != "$-1\r\n" {
		t.Errorf("GET during a write pause: %v %q", out, r)
	}
	for _, args := range [][]string{{"SET", "k", "v"}, {"PUBLISH", "c", "m"}, {"EVAL", "return 1", "0"}} {
		if out, r := run(other, args...); out != engine.Paused || r != "" || !other.IsBlocked() {
			t.Errorf("%v during a write pause: %v %q", args, out, r)
		}
		tt.E.Lock()
		tt.E.AbandonBlocked(other)
		tt.E.Unlock()
	}
	if out, _ := run(other, "EVAL", "#!lua flags=no-writes\nreturn 1", "0"); out != engine.Continue {
		t.Errorf("no-writes script paused")
	}
	if out, _ := run(other, "SET", "k", "v"); out != engine.Paused {
		t.Fatal("SET not paused")
	}
	tt.Expect("+OK\r\n", "CLIENT", "UNPAUSE")
	if other.IsBlocked() || len(tt.E.Cs.Pause.Waiting) != 0 {
		t.Errorf("UNPAUSE left the client held")
	}
	if out, r := run(other, "SET", "k", "v"); out != engine.Continue || r != "+OK\r\n" {
		t.Errorf("SET after UNPAUSE: %v %q", out, r)
	}
	// The pause ends by itself.
	tt.Expect("+OK\r\n", "CLIENT", "PAUSE", "20", "ALL")
	if out, _ := run(other, "PING"); out != engine.Paused {
		t.Fatal("PING not paused by ALL")
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		tt.E.Lock()
		held := other.IsBlocked()
		tt.E.Unlock()
		if !held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pause did not end by itself")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Each purpose holds its own pause: CLIENT UNPAUSE ends the command's and
// leaves a failover's in force, the strictest kind rules, and the pause
// left after one ends is the other's.
func TestClientPausePurposes(t *testing.T) {
	tt := newTester(t)
	kind := func() int {
		tt.E.Lock()
		defer tt.E.Unlock()
		return tt.E.Cs.Pause.Kind
	}
	far := engine.NowMsReal() + 100_000
	tt.E.Lock()
	tt.E.PauseClients(engine.PauseFailover, far, engine.PauseWrite)
	tt.E.Unlock()
	tt.Expect("+OK\r\n", "CLIENT", "PAUSE", "200000", "WRITE")
	tt.Expect("+OK\r\n", "CLIENT", "UNPAUSE")
	if k := kind(); k != engine.PauseWrite {
		t.Fatalf("kind %d after CLIENT UNPAUSE, want the failover's WRITE still", k)
	}
	tt.E.Lock()
	tt.E.UnpauseClients(engine.PauseFailover)
	tt.E.Unlock()
	if k := kind(); k != engine.PauseOff {
		t.Fatalf("kind %d with no pause left", k)
	}
	// The strictest kind rules; a short pause of one purpose ends by itself
	// and leaves the other's.
	tt.E.Lock()
	tt.E.PauseClients(engine.PauseShutdown, engine.NowMsReal()+300, engine.PauseAll)
	tt.E.PauseClients(engine.PauseFailover, far, engine.PauseWrite)
	tt.E.Unlock()
	if k := kind(); k != engine.PauseAll {
		t.Fatalf("kind %d with ALL and WRITE set, want ALL", k)
	}
	deadline := time.Now().Add(2 * time.Second)
	for kind() != engine.PauseWrite {
		if time.Now().After(deadline) {
			t.Fatalf("kind %d: the shutdown's pause did not end by itself", kind())
		}
		time.Sleep(5 * time.Millisecond)
	}
	tt.E.Lock()
	tt.E.UnpauseClients(engine.PauseFailover)
	tt.E.Unlock()
}

func TestClientPauseFreezesExpiry(t *testing.T) {
	tt := newTester(t)
	tt.Do("SET", "k", "v", "PX", "100")
	tt.Expect("+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	tt.Clock.Add(time.Second)
	tt.E.ExpireCycle(time.Millisecond)
	tt.Expect("$-1\r\n", "GET", "k")
	tt.Expect(":0\r\n", "EXISTS", "k")
	if n := tt.E.DB(0).Len(); n != 1 {
		t.Errorf("%d keys during the pause, want the expired one kept", n)
	}
	tt.Expect("+OK\r\n", "CLIENT", "UNPAUSE")
	tt.Expect("$-1\r\n", "GET", "k")
	if n := tt.E.DB(0).Len(); n != 0 {
		t.Errorf("%d keys after the pause", n)
	}
}

func TestClientReplyKeepsPushes(t *testing.T) {
	tt := newTester(t)
	w := &resp.Writer{}
	tt.E.Lock()
	tt.C.Out = w
	tt.E.Unlock()
	do := func(args ...string) string {
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		tt.E.Lock()
		defer tt.E.Unlock()
		w.Reset(0)
		tt.E.Exec(tt.C, b, w)
		return string(w.Bytes())
	}
	do("CLIENT", "REPLY", "OFF")
	if r := do("SUBSCRIBE", "a"); r != "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n" {
		t.Errorf("SUBSCRIBE while OFF: %q", r)
	}
	if r := do("PING"); r != "" {
		t.Errorf("PING while OFF: %q", r)
	}
	if r := do("UNSUBSCRIBE"); r != "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n" {
		t.Errorf("UNSUBSCRIBE while OFF: %q", r)
	}
	if r := do("CLIENT", "REPLY", "ON"); r != "+OK\r\n" {
		t.Errorf("REPLY ON: %q", r)
	}
}
