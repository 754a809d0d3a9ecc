package stream

import (
	"strconv"
	"testing"
)

// benchFields are XADD arguments as a metrics feed sends them: a few
// shapes, so some entries share their node's master fields and some do
// not, with integer-looking values (stored as integers) beside strings.
func benchFields() [][][]byte {
	var out [][][]byte
	for i := range 16 {
		f := [][]byte{[]byte("sensor"), []byte("s-" + strconv.Itoa(i)), []byte("reading"), []byte(strconv.Itoa(i * 997))}
		if i%4 == 3 {
			f = append(f, []byte("note"), []byte("recalibrated after a restart"))
		}
		out = append(out, f)
	}
	return out
}

// BenchmarkAdd is XADD's work on the stream: element sizes, the listpack
// appends and the node splits at stream-node-max-bytes/-entries.
func BenchmarkAdd(b *testing.B) {
	fields := benchFields()
	s := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%100000 == 0 {
			s = New() // bounded memory, the same work per entry
		}
		if _, err := s.Add(AddID{ID: ID{uint64(i) + 1, 0}}, fields[i%len(fields)], 0, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadNode is loading one full node from an RDB file or RESTORE:
// the listpack's validation and decoding.
func BenchmarkLoadNode(b *testing.B) {
	fields := benchFields()
	src := New()
	for i := range 100 {
		if _, err := src.Add(AddID{ID: ID{uint64(i) + 1, 0}}, fields[i%len(fields)], 0, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	var master ID
	var lp []byte
	_ = src.EachNode(nil, func(m ID, l []byte) error {
		master, lp = m, append([]byte(nil), l...)
		return nil
	})
	b.SetBytes(int64(len(lp)))
	b.ReportAllocs()
	for b.Loop() {
		if err := New().LoadNode(master, lp); err != nil {
			b.Fatal(err)
		}
	}
}
