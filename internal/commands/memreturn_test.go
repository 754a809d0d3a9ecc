package commands

import (
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
)

// The quiet return fires only after quietFor without a command, and only
// when the heap has grown past the figure of the last return.
func TestQuietReturnDue(t *testing.T) {
	type step struct {
		cmds int64         // Stats.Commands at the check
		at   time.Duration // after t0
	}
	t0 := time.Unix(1000, 0)
	grown := engine.HeapBytes() // above a zero figure by the whole heap
	for _, tc := range []struct {
		name  string
		heap  uint64 // the figure at the last return
		steps []step
		want  bool
	}{
		{"quiet and grown", 0, []step{{5, 0}, {5, engine.QuietFor}}, grown >= engine.QuietGrown},
		{"not quiet long enough", 0, []step{{5, 0}, {5, engine.QuietFor - time.Millisecond}}, false},
		{"a command in between", 0, []step{{5, 0}, {6, engine.QuietFor / 2}, {6, engine.QuietFor + time.Millisecond}}, false},
		{"not grown", 1 << 50, []step{{5, 0}, {5, 10 * engine.QuietFor}}, false},
	} {
		q := engine.QuietReturn{Heap: tc.heap}
		var got bool
		for _, s := range tc.steps {
			got = q.Due(s.cmds, t0.Add(s.at))
		}
		if got != tc.want {
			t.Errorf("%s: due = %v, want %v", tc.name, got, tc.want)
		}
	}
	q := engine.QuietReturn{}
	q.Returned()
	if q.Heap == 0 {
		t.Fatal("returned recorded no heap")
	}
}
