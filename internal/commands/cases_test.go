package commands

import (
	"strings"
	"testing"
)

// step is one step of a table-driven command test: a command and the reply
// it must give, or (fn set) anything else the case does between commands,
// such as moving the clock or checking state. In a case run by
// runStreamSteps, stream is the write stream the command must leave.
type step struct {
	args   []string
	want   string
	stream string
	fn     func(t *testing.T, tt *tester)
}

// cmd is a step that runs args and expects the reply want, byte for byte.
func cmd(want string, args ...string) step { return step{args: args, want: want} }

// ss is a step of runStreamSteps: args, the reply want, and the write
// stream the command leaves ("" for none; operations joined by "|").
func ss(args []string, want, stream string) step {
	return step{args: args, want: want, stream: stream}
}

// act is a step that runs fn.
func act(fn func(t *testing.T, tt *tester)) step { return step{fn: fn} }

// cmdCase is a named sequence of steps, run on a fresh tester.
type cmdCase struct {
	name  string
	steps []step
}

// runCases runs each case as a subtest on its own tester.
func runCases(t *testing.T, cases []cmdCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runSteps(t, newTester(t), c.steps) })
	}
}

// runSteps runs steps in order on tt.
func runSteps(t *testing.T, tt *tester, steps []step) {
	t.Helper()
	for _, s := range steps {
		if s.fn != nil {
			s.fn(t, tt)
			continue
		}
		tt.Expect(s.want, s.args...)
	}
}

// runStreamSteps runs steps on a fresh tester whose clock stands still,
// checking each command's reply and write stream; {T+n} in arguments,
// replies and streams stands for the start time plus n ms ({T}: plus 0),
// so every deadline is exact.
func runStreamSteps(t *testing.T, steps []step) {
	t.Helper()
	tt := newTester(t)
	cap := captureStream(tt)
	t0 := tt.Clock.Now().UnixMilli()
	expand := func(s string) string {
		for {
			i := strings.Index(s, "{T")
			if i < 0 {
				return s
			}
			j := strings.Index(s[i:], "}") + i
			off := int64(0)
			if j > i+2 {
				off = int64(atoiT(t, s[i+2:j]))
			}
			s = s[:i] + itoa(t0+off) + s[j+1:]
		}
	}
	for i, s := range steps {
		if s.fn != nil {
			s.fn(t, tt)
			continue
		}
		args := make([]string, len(s.args))
		for j, a := range s.args {
			args[j] = expand(a)
		}
		if got := tt.Do(args...); got != expand(s.want) {
			t.Errorf("step %d %q: got %q, want %q", i, args, got, expand(s.want))
		}
		got := strings.Join(cap.take(), "|")
		if want := expand(s.stream); got != want {
			t.Errorf("step %d %q: stream %q, want %q", i, args, got, want)
		}
	}
}
