package rdb

import (
	"bytes"
	"testing"

	"github.com/limitkv/limitkv/internal/stream"
)

// sampleStream builds a small stream with several nodes, tombstones, a
// node of another field set, and a group with pending entries.
func sampleStream(tb testing.TB) *stream.Stream {
	s := stream.New()
	lim := stream.Limits{NodeMaxBytes: 4096, NodeMaxEntries: 3}
	for i, f := range []string{"a 1", "a 2", "a x b -7", "a 4", "c 300", "a 6", "a 7"} {
		pairs := bytes.Fields([]byte(f))
		if _, err := s.Add(stream.AddID{ID: stream.ID{Ms: uint64(10 + i/2), Seq: uint64(i)}}, pairs, 0, lim); err != nil {
			tb.Fatal(err)
		}
	}
	s.Delete(stream.ID{Ms: 11, Seq: 2})
	g, _ := s.CreateGroup("g", stream.ID{}, 0)
	c, _ := g.LookupOrCreateConsumer("c1", 5)
	s.ReadNew(g, c, 3, false, 7, func(stream.Entry) {})
	g.CreateConsumer("c2", 9)
	return s
}

// FuzzStreamDump feeds mutated stream DUMP payloads to DecodeDump: it may
// refuse them, never panic; what it accepts re-encodes to a payload that
// decodes to the same bytes again, and survives the stream operations.
//
//	go test -run '^$' -fuzz FuzzStreamDump -fuzztime 60s ./internal/rdb
func FuzzStreamDump(f *testing.F) {
	for _, nc := range []bool{true, false} {
		p, err := EncodeDump(&Value{Type: TypeStream, Stream: sampleStream(f)}, DumpOptions{NoCompression: nc})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p)
		// the same as RDB_TYPE_STREAM_LISTPACKS is not valid (it lacks the
		// v2 fields) but is a useful start for the fuzzer
		q := append([]byte{rdbTypeStreamListpacks}, p[1:]...)
		f.Add(q)
	}
	opts := &ReaderOptions{MaxStringLen: 1 << 20, SkipChecksum: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeDump(data, opts)
		if err != nil || v.Type != TypeStream {
			return
		}
		p1, err := EncodeDump(v, DumpOptions{})
		if err != nil {
			t.Fatalf("decoded stream does not re-encode: %v", err)
		}
		v2, err := DecodeDump(p1, nil)
		if err != nil {
			t.Fatalf("our own payload is refused: %v", err)
		}
		p2, _ := EncodeDump(v2, DumpOptions{})
		if !bytes.Equal(p1, p2) {
			t.Fatal("decode/encode is not stable")
		}
		s := v.Stream
		n := 0
		s.Range(stream.ID{}, stream.MaxID, false, func(stream.Entry) bool { n++; return true })
		if uint64(n) != s.Len() {
			t.Fatalf("range gives %d entries, length %d", n, s.Len())
		}
		s.Range(stream.ID{}, stream.MaxID, true, func(stream.Entry) bool { return true })
		for _, g := range s.Groups() {
			s.Lag(g)
			c, _ := g.LookupOrCreateConsumer("fuzz", 1)
			s.ReadNew(g, c, 2, false, 1, func(stream.Entry) {})
			s.AutoClaim(g, "fuzz", 0, stream.ID{}, 5, false, 2)
		}
		if last, ok := s.Last(); ok {
			s.Delete(last.ID)
		}
		s.Trim(stream.TrimArgs{Strategy: stream.TrimMaxLen, MaxLen: int64(s.Len() / 2)})
		s.Add(stream.AddID{Auto: true}, [][]byte{[]byte("f"), []byte("v")}, 1<<40, stream.DefaultLimits)
		if _, err := EncodeDump(&Value{Type: TypeStream, Stream: s}, DumpOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
