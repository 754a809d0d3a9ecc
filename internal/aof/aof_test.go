package aof

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestManifestRoundTrip(t *testing.T) {
	m := New("appendonly.aof")
	if got := m.NewBase(true); got != "appendonly.aof.1.base.rdb" {
		t.Fatalf("first base %q", got)
	}
	if got := m.NewIncr(); got != "appendonly.aof.1.incr.aof" {
		t.Fatalf("first incr %q", got)
	}
	m.NewIncr()
	m.NewBase(false)
	m.IncrHistory(true)
	want := "file appendonly.aof.2.base.aof seq 2 type b\n" +
		// Redis puts each at the head of the history list: the old base
		// first, then the rewritten incr files.
		"file appendonly.aof.1.incr.aof seq 1 type h\n" +
		"file appendonly.aof.1.base.rdb seq 1 type h\n" +
		"file appendonly.aof.2.incr.aof seq 2 type i\n"
	if got := m.String(); got != want {
		t.Fatalf("manifest:\n%s\nwant:\n%s", got, want)
	}
	back, err := Parse("appendonly.aof", []byte(want))
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != want || back.BaseSeq != 2 || back.IncrSeq != 2 {
		t.Fatalf("parsed back: %q (base seq %d, incr seq %d)", back.String(), back.BaseSeq, back.IncrSeq)
	}
	dir := t.TempDir()
	if err := back.Write(dir); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "appendonly.aof.manifest")); string(data) != want {
		t.Fatalf("written: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "temp-appendonly.aof.manifest")); err == nil {
		t.Fatal("the temporary manifest is left behind")
	}
}

func TestManifestQuotedName(t *testing.T) {
	m := New("my file.aof")
	m.NewBase(true)
	s := m.String()
	if s != "file \"my file.aof.1.base.rdb\" seq 1 type b\n" {
		t.Fatalf("quoted: %q", s)
	}
	back, err := Parse("my file.aof", []byte(s))
	if err != nil || back.Base.Name != "my file.aof.1.base.rdb" {
		t.Fatalf("parsed %+v, %v", back.Base, err)
	}
}

// Redis's aofLoadManifestFromFile messages.
func TestManifestErrors(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"", "Found an empty AOF manifest"},
		{"\n", "Invalid AOF manifest file format"},
		{"file a seq 1\n", "Invalid AOF manifest file format"},
		{"file a seq 1 type b", "The AOF manifest file contains too long line"},
		{"file a/b seq 1 type b\n", "File can't be a path, just a filename"},
		{"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information"},
		{"file a seq 2 type i\nfile b seq 2 type i\n", "Found a non-monotonic sequence number"},
		{"file a seq 1 type x\n", "Unknown AOF file type"},
		{"file a seq 0 type i\n", "Invalid AOF manifest file format"},
		{"file \"a seq 1 type i\n", "Invalid AOF manifest file format"},
		{"# a comment\nfile a seq 1 type i\n", ""},
		{"file a seq 1 type i extra 1\n", ""}, // forward compatible
	} {
		_, err := Parse("x", []byte(tc.in))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestReader(t *testing.T) {
	const full = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n#TS:123\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"
	for _, tc := range []struct {
		in   string
		n    int   // commands read
		end  error // the error after them
		last int64 // Offset at the end
	}{
		{full, 2, io.EOF, int64(len(full))},
		{full + "*3\r\n$3\r\nSET\r\n$1\r\nk", 2, ErrTruncated, int64(len(full))},
		{full + "*3\r\n$3\r\nSE", 2, ErrTruncated, int64(len(full))},
		{full + "*", 2, ErrTruncated, int64(len(full))},
		{full + "*1\r\n$3\r\nGET\r", 2, ErrTruncated, int64(len(full))},
		{full + "+OK\r\n", 2, ErrFormat, int64(len(full))},
		{"*1\r\n#3\r\nGET\r\n", 0, ErrFormat, 0},
		{"*0\r\n", 0, ErrFormat, 0},
	} {
		rd := NewReader(bufio.NewReader(strings.NewReader(tc.in)), 0)
		n := 0
		var err error
		for {
			if _, err = rd.Next(); err != nil {
				break
			}
			n++
		}
		if n != tc.n || !errors.Is(err, tc.end) || rd.Offset() != tc.last {
			t.Errorf("%q: %d commands, %v, offset %d; want %d, %v, %d", tc.in, n, err, rd.Offset(), tc.n, tc.end, tc.last)
		}
	}
}
