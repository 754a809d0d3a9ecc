package repl

import (
	"bytes"
	"testing"
)

// TestBacklog writes a known stream in pieces of several sizes into rings
// of several sizes and checks, after every write, that exactly the newest
// bytes are held, at the right offsets, and read back from any offset.
func TestBacklog(t *testing.T) {
	stream := make([]byte, 5000)
	for i := range stream {
		stream[i] = byte(i*7 + i/251)
	}
	for _, tc := range []struct {
		size   int
		pieces []int
	}{
		{16, []int{1, 3, 5, 7}},
		{16, []int{16, 17, 40}},
		{100, []int{99, 1, 2, 250}},
		{1000, []int{333}},
		{1, []int{1, 2}},
	} {
		b := NewBacklog(tc.size, 1)
		written := 0
		for i := 0; written < len(stream); i++ {
			n := min(tc.pieces[i%len(tc.pieces)], len(stream)-written)
			b.Write(stream[written : written+n])
			written += n
			hist := min(written, tc.size)
			if b.Histlen() != hist || b.First() != int64(written-hist+1) {
				t.Fatalf("size %d after %d bytes: histlen %d first %d, want %d and %d", tc.size, written, b.Histlen(), b.First(), hist, written-hist+1)
			}
			for _, from := range []int64{b.First(), b.First() + int64(hist/2), int64(written + 1)} {
				if !b.Has(from) {
					t.Fatalf("size %d: offset %d not held (first %d, histlen %d)", tc.size, from, b.First(), b.Histlen())
				}
				if got, want := b.AppendFrom(nil, from), stream[from-1:written]; !bytes.Equal(got, want) {
					t.Fatalf("size %d after %d bytes, from %d: %d bytes read, want %d (equal prefix? %v)", tc.size, written, from, len(got), len(want), bytes.HasPrefix(want, got))
				}
			}
			if b.Has(b.First()-1) || b.Has(int64(written+2)) {
				t.Fatalf("size %d: offsets outside the history reported held", tc.size)
			}
		}
	}
}

// TestBacklogResize keeps the newest bytes when shrinking and all of them
// when growing.
func TestBacklogResize(t *testing.T) {
	b := NewBacklog(10, 1)
	b.Write([]byte("0123456789abcdef")) // holds 6..f
	b.Resize(4)
	if got := string(b.AppendFrom(nil, b.First())); got != "cdef" || b.First() != 13 {
		t.Fatalf("after shrinking: %q from %d, want cdef from 13", got, b.First())
	}
	b.Resize(8)
	b.Write([]byte("gh"))
	if got := string(b.AppendFrom(nil, b.First())); got != "cdefgh" || b.First() != 13 {
		t.Fatalf("after growing: %q from %d, want cdefgh from 13", got, b.First())
	}
	b.Write([]byte("ijkl"))
	if got := string(b.AppendFrom(nil, b.First())); got != "efghijkl" {
		t.Fatalf("after wrapping: %q, want efghijkl", got)
	}
}
