package commands

import "testing"

// step is one step of a table-driven command test: a command and the reply
// it must give, or (fn set) anything else the case does between commands,
// such as moving the clock or checking state.
type step struct {
	args []string
	want string
	fn   func(t *testing.T, tt *tester)
}

// cmd is a step that runs args and expects the reply want, byte for byte.
func cmd(want string, args ...string) step { return step{args: args, want: want} }

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
