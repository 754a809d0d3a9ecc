package commands

import (
	"testing"
	"time"
)

// The quiet return fires only after quietFor without a command, and only
// when the heap has grown past the figure of the last return.
func TestQuietReturnDue(t *testing.T) {
	type step struct {
		cmds int64         // Stats.Commands at the check
		at   time.Duration // after t0
	}
	t0 := time.Unix(1000, 0)
	grown := heapBytes() // above a zero figure by the whole heap
	for _, tc := range []struct {
		name  string
		heap  uint64 // the figure at the last return
		steps []step
		want  bool
	}{
		{"quiet and grown", 0, []step{{5, 0}, {5, quietFor}}, grown >= quietGrown},
		{"not quiet long enough", 0, []step{{5, 0}, {5, quietFor - time.Millisecond}}, false},
		{"a command in between", 0, []step{{5, 0}, {6, quietFor / 2}, {6, quietFor + time.Millisecond}}, false},
		{"not grown", 1 << 50, []step{{5, 0}, {5, 10 * quietFor}}, false},
	} {
		q := quietReturn{heap: tc.heap}
		var got bool
		for _, s := range tc.steps {
			got = q.due(s.cmds, t0.Add(s.at))
		}
		if got != tc.want {
			t.Errorf("%s: due = %v, want %v", tc.name, got, tc.want)
		}
	}
	q := quietReturn{}
	q.returned()
	if q.heap == 0 {
		t.Fatal("returned recorded no heap")
	}
}
