package propagate

import (
	"strings"
	"testing"
)

type capture struct {
	enc Encoder
	out []byte
}

func (c *capture) Feed(op Op) { c.out = c.enc.Append(c.out, op) }

func args(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}

func TestStream(t *testing.T) {
	var s Stream
	s.Add(0, args("SET a 1")...) // no reader: nothing recorded
	if s.Pending() != 0 {
		t.Fatal("recorded without a reader")
	}
	r1, r2 := &capture{enc: NewEncoder()}, &capture{enc: NewEncoder()}
	s.Attach(r1)
	s.Attach(r2)
	buf := args("SET a 1")
	s.Add(0, buf...)
	buf[1][0] = 'x' // the stream has its own copy
	s.Flush(true)
	s.Add(0, args("DEL k")...)
	s.Add(3, args("SET b 2")...)
	s.Flush(true)
	s.Add(3, args("DEL e")...)
	s.Add(3, args("DEL f")...)
	s.Flush(false)
	want := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n" +
		"*1\r\n$5\r\nMULTI\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n" +
		"*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n*1\r\n$4\r\nEXEC\r\n" +
		"*2\r\n$3\r\nDEL\r\n$1\r\ne\r\n*2\r\n$3\r\nDEL\r\n$1\r\nf\r\n"
	for i, r := range []*capture{r1, r2} {
		if string(r.out) != want {
			t.Errorf("reader %d got\n%q\nwant\n%q", i, r.out, want)
		}
	}
	s.Detach(r1)
	r2.enc.Reset()
	r2.out = nil
	s.Add(3, args("INCR n")...)
	s.Flush(true)
	if want := "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"; string(r2.out) != want {
		t.Errorf("after Reset: %q", r2.out)
	}
}

// aofCapture is a reader of the AOF's target.
type aofCapture struct{ capture }

func (c *aofCapture) Target() Target { return ToAOF }

// names lists the commands a capture received, for short comparisons.
func names(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\r\n") {
		if l != "" && l[0] != '*' && l[0] != '$' {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

func TestStreamTargets(t *testing.T) {
	tests := []struct {
		name      string
		run       func(s *Stream)
		repl, aof string
	}{
		{"replicas only", func(s *Stream) { s.AddTo(ToReplicas, 0, args("PUBLISH c m")...) },
			"SELECT 0 PUBLISH c m", ""},
		{"wrapped for both when two go somewhere", func(s *Stream) {
			s.Add(0, args("SET a 1")...)
			s.AddTo(ToReplicas, 0, args("PUBLISH c m")...)
		}, "SELECT 0 MULTI SET a 1 PUBLISH c m EXEC", "SELECT 0 MULTI SET a 1 EXEC"},
		{"SetTarget limits Add", func(s *Stream) {
			prev := s.SetTarget(ToAOF)
			s.Add(0, args("SET a 1")...)
			s.SetTarget(0)
			s.Add(0, args("SET b 1")...)
			s.SetTarget(prev)
			s.Add(0, args("SET c 1")...)
		}, "SELECT 0 MULTI SET c 1 EXEC", "SELECT 0 MULTI SET a 1 SET c 1 EXEC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Stream
			r, a := &capture{enc: NewEncoder()}, &aofCapture{capture{enc: NewEncoder()}}
			s.Attach(r)
			s.Attach(a)
			tc.run(&s)
			s.Flush(true)
			if got := names(r.out); got != tc.repl {
				t.Errorf("replica got %q, want %q", got, tc.repl)
			}
			if got := names(a.out); got != tc.aof {
				t.Errorf("AOF got %q, want %q", got, tc.aof)
			}
		})
	}
	// Without an AOF attached an operation for it goes nowhere and does not
	// make the rest a transaction (Redis's shouldPropagate).
	var s Stream
	r := &capture{enc: NewEncoder()}
	s.Attach(r)
	s.AddTo(ToAOF, 0, args("SET a 1")...)
	s.Add(0, args("SET b 1")...)
	s.Flush(true)
	if got := names(r.out); got != "SELECT 0 SET b 1" {
		t.Errorf("replica alone got %q", got)
	}
}
