package rdb

import (
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/internal/stream"
)

// benchElems is a hash's worth of elements: short names, integer-looking
// values of every width, and strings of each length encoding.
func benchElems() [][]byte {
	var out [][]byte
	for i := range 128 {
		out = append(out, []byte("field:"+strconv.Itoa(i)))
		switch i % 4 {
		case 0:
			out = append(out, []byte(strconv.Itoa(i)))
		case 1:
			out = append(out, []byte(strconv.Itoa(-i*100003)))
		case 2:
			out = append(out, []byte(strconv.FormatInt(int64(i)<<40, 10)))
		default:
			out = append(out, make([]byte, 20+i*3))
		}
	}
	return out
}

func BenchmarkEncodeListpack(b *testing.B) {
	elems := benchElems()
	b.ReportAllocs()
	for b.Loop() {
		EncodeListpack(elems)
	}
}

func BenchmarkDecodeListpack(b *testing.B) {
	lp := EncodeListpack(benchElems())
	b.SetBytes(int64(len(lp)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeListpack(lp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDumpList is DUMP of a list: its quicklist of listpacks.
func BenchmarkDumpList(b *testing.B) {
	v := &Value{Type: TypeList, List: benchElems()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeDump(v, DumpOptions{NoCompression: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestoreStream is RESTORE of a stream: its nodes' listpacks
// validated and decoded.
func BenchmarkRestoreStream(b *testing.B) {
	s := stream.New()
	elems := benchElems()
	for i := range 1000 {
		f := elems[(i%64)*2 : (i%64)*2+4]
		if _, err := s.Add(stream.AddID{ID: stream.ID{Ms: uint64(i) + 1}}, f, 0, stream.DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
	payload, err := EncodeDump(&Value{Type: TypeStream, Stream: s}, DumpOptions{NoCompression: true})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeDump(payload, nil); err != nil {
			b.Fatal(err)
		}
	}
}
