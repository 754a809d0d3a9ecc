package commands

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

func TestNotifyFlags(t *testing.T) {
	for _, c := range []struct{ in, canon string }{
		{"", ""},
		{"AKE", "AKE"},
		{"KEA", "AKE"},
		{"g$lshzxetd", "A"},
		{"Ag$lshzxetd", "A"},
		{"mn", "nm"},
		{"KEAmn", "AKEm"}, // A hides n, as in Redis 7.0
		{"zg$K", "g$zK"},
		{"x", "x"},
		{"E\x00garbage", "E"}, // the C loop stops at NUL
	} {
		f, ok := config.ParseNotifyFlags(c.in)
		if !ok {
			t.Errorf("%q: refused", c.in)
			continue
		}
		if got := config.FormatNotifyFlags(f); got != c.canon {
			t.Errorf("%q: canonical %q, want %q", c.in, got, c.canon)
		}
	}
	for _, bad := range []string{"q", "K E", "AKEx!"} {
		if _, ok := config.ParseNotifyFlags(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// subscriber is a client listening to every key event, its pushes in out.
func subscriber(tt *tester) *resp.Writer {
	sub := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
	out := &resp.Writer{}
	sub.Out = out
	var w resp.Writer
	tt.E.Lock()
	tt.E.Exec(sub, [][]byte{[]byte("PSUBSCRIBE"), []byte("__key*__:*")}, &w)
	tt.E.Unlock()
	return out
}

// events lists the channel and message of every pmessage in out, and
// empties it.
func events(out *resp.Writer) []string {
	var evs []string
	s := string(out.Bytes())
	for _, frame := range strings.Split(s, "*4\r\n$8\r\npmessage\r\n")[1:] {
		parts := strings.Split(frame, "\r\n")
		// pattern length, pattern, channel length, channel, message length, message
		evs = append(evs, parts[3]+" "+parts[5])
	}
	out.Truncate(0)
	return evs
}

// With a manual clock and no cron, a key past its deadline is reclaimed
// only by the access: the lazy path, which the conformance tests cannot
// isolate from the active cycle.
func TestNotifyLazyAndActiveExpiry(t *testing.T) {
	tt := newTester(t)
	out := subscriber(tt)
	tt.Expect("+OK\r\n", "CONFIG", "SET", "notify-keyspace-events", "Exm")
	tt.Expect("+OK\r\n", "SET", "k", "v", "PX", "10")
	tt.Clock.Add(20 * time.Millisecond)
	if got := events(out); len(got) != 0 {
		t.Fatalf("events before the access: %q", got)
	}
	tt.Expect("$-1\r\n", "GET", "k")
	want := []string{"__keyevent@0__:expired k", "__keyevent@0__:keymiss k"}
	if got := events(out); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lazy expiry: %q, want %q", got, want)
	}
	tt.Expect("+OK\r\n", "SET", "j", "v", "PX", "10")
	tt.Clock.Add(20 * time.Millisecond)
	tt.E.ExpireCycle(time.Second)
	if got := events(out); strings.Join(got, "|") != "__keyevent@0__:expired j" {
		t.Errorf("active expiry: %q", got)
	}
}

// TestNotifyOffAllocatesNothing: with notifications off, the event calls
// on every write path cost no allocation.
func TestNotifyOffAllocatesNothing(t *testing.T) {
	tt := newTester(t)
	x := &engine.Ctx{E: tt.E, C: tt.C, DB: tt.E.DB(0)}
	key := []byte("k")
	if n := testing.AllocsPerRun(100, func() {
		x.Notify(config.EvZSet, "zadd", key)
		x.Notify(config.EvGeneric, "expire", key)
		x.KeyMiss(key)
		x.Modified(key)
	}); n != 0 {
		t.Errorf("%v allocations per event with notifications off", n)
	}
}

// The benchmarks compare RL.CHECK and ZADD with notifications off (the
// default) and on with nobody subscribed; off must cost what the commands
// cost before notifications existed.
func benchKeyEvents(b *testing.B, flags string, cmd func(i int) []string) {
	tt := newTester(b)
	if flags != "" {
		tt.Expect("+OK\r\n", "CONFIG", "SET", "notify-keyspace-events", flags)
	}
	var w resp.Writer
	args := make([][][]byte, 4096)
	for i := range args {
		for _, a := range cmd(i) {
			args[i] = append(args[i], []byte(a))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	tt.E.Lock()
	for i := 0; i < b.N; i++ {
		w.Truncate(0)
		tt.E.Exec(tt.C, args[i%len(args)], &w)
	}
	tt.E.Unlock()
}

func rlCheckArgs(i int) []string {
	return []string{"RL.CHECK", "user:" + strconv.Itoa(i%1000), strconv.Itoa(1_700_000_000_000 + i), "60000", "5", "req-" + strconv.Itoa(i)}
}

func zaddArgs(i int) []string {
	return []string{"ZADD", "z:" + strconv.Itoa(i%100), strconv.Itoa(i), "m" + strconv.Itoa(i%50)}
}

func BenchmarkRLCheckEventsOff(b *testing.B) { benchKeyEvents(b, "", rlCheckArgs) }
func BenchmarkRLCheckEventsOn(b *testing.B)  { benchKeyEvents(b, "KEA", rlCheckArgs) }
func BenchmarkZAddEventsOff(b *testing.B)    { benchKeyEvents(b, "", zaddArgs) }
func BenchmarkZAddEventsOn(b *testing.B)     { benchKeyEvents(b, "KEA", zaddArgs) }
