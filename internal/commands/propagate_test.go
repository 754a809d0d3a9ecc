package commands

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/propagate"
)

// streamCapture is a stream reader that keeps what it is fed, one line
// per operation ("db: ARGS").
type streamCapture struct{ ops []string }

func (s *streamCapture) Feed(op propagate.Op) {
	var b strings.Builder
	b.WriteString(strconv.Itoa(op.DB) + ":")
	for _, a := range op.Args {
		b.WriteString(" " + string(a))
	}
	s.ops = append(s.ops, b.String())
}

func (s *streamCapture) take() []string { out := s.ops; s.ops = nil; return out }

func captureStream(tt *tester) *streamCapture {
	c := &streamCapture{}
	tt.E.Lock()
	tt.E.Prop.Stream.Attach(c)
	tt.E.Unlock()
	return c
}

// What the server removes itself goes out as DEL, alone, where Redis
// propagates it; what a command changed nothing with goes out not at all.
func TestPropagateServerDeletes(t *testing.T) {
	tt := newTester(t)
	cap := captureStream(tt)
	now := tt.Clock.Now().UnixMilli()
	tt.Expect(okReply, "SET", "a", "1", "PX", "100")
	tt.Expect(okReply, "SET", "b", "1", "PX", "100")
	tt.Expect(integer(0), "DEL", "nothing")
	tt.Expect(integer(0), "SETNX", "a", "2")
	tt.Expect(integer(0), "EXPIRE", "missing", "10")
	want := []string{"0: SET a 1 PXAT " + strconv.FormatInt(now+100, 10), "0: SET b 1 PXAT " + strconv.FormatInt(now+100, 10)}
	if got := cap.take(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("writes: %q, want %q", got, want)
	}
	tt.Clock.Add(time.Second)
	// The cycle: one DEL per key, never in MULTI.
	tt.E.ExpireCycle(time.Second)
	got := cap.take()
	if len(got) != 2 || got[0] == got[1] || !strings.HasPrefix(got[0], "0: DEL ") || !strings.HasPrefix(got[1], "0: DEL ") {
		t.Fatalf("expiry cycle: %q", got)
	}
	// At access, inside a write: the DEL, then the write, in MULTI/EXEC.
	tt.Expect(okReply, "SET", "c", "1", "PX", "100")
	cap.take()
	tt.Clock.Add(time.Second)
	tt.Expect(integer(1), "RPUSH", "c", "x")
	if got := cap.take(); strings.Join(got, "|") != "0: MULTI|0: DEL c|0: RPUSH c x|0: EXEC" {
		t.Fatalf("lazy expiry in a write: %q", got)
	}
}

func TestPropagateEviction(t *testing.T) {
	tt := memTester(t, "volatile-ttl", 8<<20)
	cap := captureStream(tt)
	val := strings.Repeat("v", 4096)
	for i := 0; tt.E.Stats.EvictedKeys == 0 && i < 6000; i++ {
		tt.Expect(okReply, "SET", "v"+strconv.Itoa(i), val, "EX", strconv.Itoa(100+i))
	}
	if tt.E.Stats.EvictedKeys == 0 {
		t.Fatal("nothing evicted")
	}
	dels := 0
	for _, op := range cap.take() {
		if strings.HasPrefix(op, "0: DEL ") {
			dels++
		}
		if strings.Contains(op, "MULTI") {
			t.Fatalf("an eviction wrapped in MULTI: %q", op)
		}
	}
	if int64(dels) != tt.E.Stats.EvictedKeys {
		t.Fatalf("%d DELs for %d evicted keys", dels, tt.E.Stats.EvictedKeys)
	}
}
