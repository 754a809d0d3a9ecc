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

// backlogState checks what b holds: its first offset, its length, the bytes
// read from the first offset, and the bounds Has draws (a replica may ask
// for any held byte or for the one after the last, never one outside).
func backlogState(t *testing.T, b *Backlog, first int64, held string) {
	t.Helper()
	if b.First() != first || b.Histlen() != len(held) {
		t.Fatalf("first %d histlen %d, want %d and %d", b.First(), b.Histlen(), first, len(held))
	}
	if got := string(b.AppendFrom(nil, first)); got != held {
		t.Fatalf("from %d: %q, want %q", first, got, held)
	}
	end := first + int64(len(held)) // the next offset the stream will write
	for _, tc := range []struct {
		off  int64
		has  bool
		from string
	}{
		{first - 1, false, ""},
		{first, true, held},
		{end - 1, len(held) > 0, held[max(len(held)-1, 0):]},
		{end, true, ""},
		{end + 1, false, ""},
	} {
		if got := b.Has(tc.off); got != tc.has {
			t.Fatalf("Has(%d) = %v, want %v (first %d, histlen %d)", tc.off, got, tc.has, first, len(held))
		}
		if tc.has {
			if got := string(b.AppendFrom(nil, tc.off)); got != tc.from {
				t.Fatalf("from %d: %q, want %q", tc.off, got, tc.from)
			}
		}
	}
}

// TestBacklogEdges is the ring at its boundaries: empty, exactly full (in
// one write and in pieces), one byte past full, wrapped, a write longer than
// the ring, and a backlog created at a later offset (createReplicationBacklog
// starts it at master_repl_offset+1).
func TestBacklogEdges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		next   int64
		writes []string
		first  int64
		held   string
	}{
		{"empty", 8, 1, nil, 1, ""},
		{"empty at a later offset", 8, 101, nil, 101, ""},
		{"empty write", 8, 1, []string{"ab", "", "c"}, 1, "abc"},
		{"exactly full in one write", 8, 1, []string{"abcdefgh"}, 1, "abcdefgh"},
		{"exactly full in pieces", 8, 1, []string{"abc", "defgh"}, 1, "abcdefgh"},
		{"one past full in one write", 8, 1, []string{"abcdefghi"}, 2, "bcdefghi"},
		{"one past full in pieces", 8, 1, []string{"abcdefgh", "i"}, 2, "bcdefghi"},
		{"wrapped", 8, 1, []string{"abcdef", "ghijk"}, 4, "defghijk"},
		{"a ring's worth after a wrap", 8, 1, []string{"abcde", "fghijklm"}, 6, "fghijklm"},
		{"longer than the ring", 8, 1, []string{"xy", "0123456789abcdefghij"}, 15, "cdefghij"},
		{"later offset, wrapped", 8, 101, []string{"abcdef", "ghij"}, 103, "cdefghij"},
		{"size 1", 1, 1, []string{"a", "bc"}, 3, "c"},
		{"size 0 is 1", 0, 1, []string{"ab"}, 2, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBacklog(tc.size, tc.next)
			for _, w := range tc.writes {
				b.Write([]byte(w))
			}
			backlogState(t, b, tc.first, tc.held)
		})
	}
}

// TestBacklogResizeEdges is CONFIG SET repl-backlog-size on a live
// backlog: the newest bytes that fit stay, at their offsets, and the ring
// goes on writing (and wrapping) correctly from where the resize left it.
func TestBacklogResizeEdges(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size      int
		writes    []string
		resize    int
		first     int64
		held      string
		then      string // written after the resize
		thenFirst int64
		thenHeld  string
	}{
		{"shrink keeps the newest", 8, []string{"abcdefghij"}, 4, 7, "ghij", "kl", 9, "ijkl"},
		{"shrink to exactly the history", 8, []string{"abcde"}, 5, 1, "abcde", "f", 2, "bcdef"},
		{"shrink, not wrapped", 8, []string{"abc"}, 2, 2, "bc", "d", 3, "cd"},
		{"grow keeps everything", 8, []string{"abcdefghij"}, 12, 3, "cdefghij", "klmno", 4, "defghijklmno"},
		{"grow, then fill exactly", 4, []string{"abcdef"}, 6, 3, "cdef", "gh", 3, "cdefgh"},
		{"same size", 8, []string{"abcdefghij"}, 8, 3, "cdefghij", "k", 4, "defghijk"},
		{"empty", 8, nil, 4, 1, "", "abcdef", 3, "cdef"},
		{"to 0 is 1", 8, []string{"abc"}, 0, 3, "c", "de", 5, "e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBacklog(tc.size, 1)
			for _, w := range tc.writes {
				b.Write([]byte(w))
			}
			b.Resize(tc.resize)
			if want := max(tc.resize, 1); b.Size() != want {
				t.Fatalf("size %d, want %d", b.Size(), want)
			}
			backlogState(t, b, tc.first, tc.held)
			b.Write([]byte(tc.then))
			backlogState(t, b, tc.thenFirst, tc.thenHeld)
		})
	}
}
