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
