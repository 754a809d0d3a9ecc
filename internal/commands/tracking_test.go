package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

// trackingClient is a second connection of tt's engine with an output
// buffer, in protocol proto.
func trackingClient(tt *tester, proto int) *engine.Client {
	c := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
	c.Proto = proto
	c.Out = &resp.Writer{}
	c.Out.SetRESP3(proto == 3)
	return c
}

// doOn runs args for c, its reply going to c.Out as on a connection.
func doOn(tt *tester, c *engine.Client, args ...string) {
	tt.t.Helper()
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	tt.E.Lock()
	tt.E.Exec(c, bargs, c.Out)
	tt.E.Unlock()
}

func takeOut(c *engine.Client) string {
	s := string(c.Out.Bytes())
	c.Out.Reset(0)
	return s
}

func invalidation(keys ...string) string {
	s := ">2\r\n$10\r\ninvalidate\r\n" + string(engine.KeyArray(keys))
	return s
}

// TestTrackingSeam drives invalidations through keyModified directly, the
// seam every handler's Modified and the expiry and eviction hooks reach.
func TestTrackingSeam(t *testing.T) {
	tt := newTester(t)
	e := tt.E
	a := trackingClient(tt, 3)
	doOn(tt, a, "CLIENT", "TRACKING", "on")
	doOn(tt, a, "MGET", "k1", "k2")
	takeOut(a)
	if _, keys, items, _ := e.TrackingInfo(); keys != 2 || items != 2 {
		t.Fatalf("table: %d keys, %d items; want 2, 2", keys, items)
	}
	e.Lock()
	e.KeyModified(5, []byte("k1"), nil) // keys are names: any database
	e.Unlock()
	if got := takeOut(a); got != invalidation("k1") {
		t.Fatalf("push %q", got)
	}
	e.Lock()
	e.KeyModified(0, []byte("k1"), nil) // forgotten after the first
	e.Unlock()
	if got := takeOut(a); got != "" {
		t.Fatalf("second invalidation %q", got)
	}
	if _, keys, items, _ := e.TrackingInfo(); keys != 1 || items != 1 {
		t.Fatalf("table: %d keys, %d items; want 1, 1", keys, items)
	}

	// A disconnected client's entries are skipped, then dropped.
	e.RemoveClient(a)
	if n, _, _, _ := e.TrackingInfo(); n != 0 {
		t.Fatalf("tracking_clients %d after disconnect", n)
	}
	e.Lock()
	e.KeyModified(0, []byte("k2"), nil)
	e.Unlock()
	if _, keys, items, _ := e.TrackingInfo(); keys != 0 || items != 0 {
		t.Fatalf("table: %d keys, %d items; want empty", keys, items)
	}
	if e.Trk.Depth != 0 || e.Trk.Current != nil || len(e.Trk.Pending) != 0 {
		t.Fatalf("call state left: depth %d current %v pending %d", e.Trk.Depth, e.Trk.Current, len(e.Trk.Pending))
	}
}

func TestTrackingBcastDisconnect(t *testing.T) {
	tt := newTester(t)
	e := tt.E
	a, b := trackingClient(tt, 3), trackingClient(tt, 3)
	doOn(tt, a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x", "PREFIX", "y")
	doOn(tt, b, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x")
	takeOut(a)
	takeOut(b)
	e.Lock()
	e.KeyModified(0, []byte("x1"), nil)
	e.KeyModified(0, []byte("y1"), nil)
	e.KeyModified(0, []byte("x0"), nil)
	e.TrackingCron() // what the expiry cycle runs: the broadcast
	e.Unlock()
	if got, want := takeOut(a), invalidation("x0", "x1")+invalidation("y1"); got != want {
		t.Fatalf("a got %q, want %q", got, want)
	}
	if got, want := takeOut(b), invalidation("x0", "x1"); got != want {
		t.Fatalf("b got %q, want %q", got, want)
	}
	e.RemoveClient(a)
	if _, _, _, p := e.TrackingInfo(); p != 1 {
		t.Fatalf("%d prefixes after a left, want 1", p)
	}
	e.RemoveClient(b)
	if n, _, _, p := e.TrackingInfo(); n != 0 || p != 0 {
		t.Fatalf("%d clients, %d prefixes after both left", n, p)
	}
}

// TestTrackingTableLimit: past tracking-table-max-keys the next command
// forgets keys, telling their clients, before it runs.
func TestTrackingTableLimit(t *testing.T) {
	tt := newTester(t)
	e := tt.E
	e.Cfg.TrackingTableMaxKeys.Store(10)
	a := trackingClient(tt, 3)
	doOn(tt, a, "CLIENT", "TRACKING", "on")
	args := []string{"MGET"}
	for i := range 50 {
		args = append(args, "k"+string(rune('A'+i)))
	}
	doOn(tt, a, args...)
	takeOut(a)
	doOn(tt, a, "PING")
	out := takeOut(a)
	if n := strings.Count(out, "invalidate"); n != 40 {
		t.Fatalf("%d invalidations, want 40", n)
	}
	if !strings.HasSuffix(out, "+PONG\r\n") {
		t.Fatalf("the reply does not come after the invalidations: %q", out)
	}
	if _, keys, items, _ := e.TrackingInfo(); keys != 10 || items != 10 {
		t.Fatalf("table: %d keys, %d items; want 10, 10", keys, items)
	}
}

// BenchmarkExecGetTracking is the cost of a read when another client
// tracks (this one does not) and when this one tracks.
func BenchmarkExecGetTracking(b *testing.B) {
	for _, mode := range []string{"none", "other", "self"} {
		b.Run(mode, func(b *testing.B) {
			tt := newTester(b)
			tt.Do("SET", "k", "v")
			if mode == "other" {
				o := trackingClient(tt, 3)
				doOn(tt, o, "CLIENT", "TRACKING", "on")
			}
			if mode == "self" {
				tt.Do("CLIENT", "TRACKING", "on")
			}
			args := [][]byte{[]byte("GET"), []byte("k")}
			var w resp.Writer
			b.ReportAllocs()
			for b.Loop() {
				w.Reset(1 << 20)
				tt.E.Lock()
				tt.E.Exec(tt.C, args, &w)
				tt.E.Unlock()
			}
		})
	}
}

// TestTrackingExpiryAndEviction: a key that expires under a read of the
// tracking client itself is invalidated after that read's reply; an
// evicted key is invalidated at once.
func TestTrackingExpiryAndEviction(t *testing.T) {
	tt := newTester(t)
	e := tt.E
	a := trackingClient(tt, 3)
	doOn(tt, a, "CLIENT", "TRACKING", "on")
	tt.Do("SET", "k", "v", "PX", "100")
	doOn(tt, a, "GET", "k")
	takeOut(a)
	tt.Clock.Add(time.Second)
	doOn(tt, a, "GET", "k")
	if got, want := takeOut(a), "_\r\n"+invalidation("k"); got != want {
		t.Fatalf("lazy expiry: %q, want %q", got, want)
	}

	tt.Do("SET", "v", "1", "EX", "100")
	doOn(tt, a, "GET", "v")
	takeOut(a)
	e.Lock()
	_, _ = e.Evict(e.Memory, "volatile-ttl", 1)
	e.Unlock()
	if got, want := takeOut(a), invalidation("v"); got != want {
		t.Fatalf("eviction: %q, want %q", got, want)
	}
}
