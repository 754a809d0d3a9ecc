package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/rdb"
)

const testLib = "#!lua name=tl\nredis.register_function('tf', function(k, a) return redis.call('set', k[1], a[1]) end)\n" +
	"redis.register_function{function_name='tg', callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}}"

// Libraries are data: SAVE writes them, a load brings them back, FLUSHALL
// leaves them.
func TestFunctionsPersist(t *testing.T) {
	dir := t.TempDir()
	a := newTester(t)
	a.E.Cfg.SetDir(dir, "")
	a.Expect(bulk("tl"), "FUNCTION", "LOAD", testLib)
	a.Expect(okReply, "FCALL", "tf", "1", "k", "v")
	a.Expect(okReply, "FLUSHALL")
	if got := a.Do("FUNCTION", "LIST"); !strings.Contains(got, "tl") {
		t.Errorf("FLUSHALL dropped the library: %q", got)
	}
	a.Expect(okReply, "SAVE")

	b := newTester(t)
	if _, err := durability.LoadFile(b.E, filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	if got, want := b.Do("FUNCTION", "LIST", "WITHCODE"), a.Do("FUNCTION", "LIST", "WITHCODE"); got != want {
		t.Errorf("after load: %q, want %q", got, want)
	}
	b.Expect(okReply, "FCALL", "tf", "1", "k", "w")
	b.Expect(bulk("w"), "FCALL_RO", "tg", "1", "k")
	if got := b.Do("INFO", "memory"); !strings.Contains(got, "number_of_functions:2\r\n") || !strings.Contains(got, "number_of_libraries:1\r\n") {
		t.Errorf("INFO memory: %s", got)
	}
}

// A file holding a library that does not load is refused, as Redis refuses
// to start on it, and leaves nothing behind.
func TestFunctionsBadLibraryFailsLoad(t *testing.T) {
	for _, code := range []string{"#!lua name=x\nx = 1", "no shebang", "#!lua name=x\nreturn 1"} {
		path := filepath.Join(t.TempDir(), "dump.rdb")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := rdb.Encode(f, &rdb.Snapshot{Functions: [][]byte{[]byte(code)}}, rdb.WriterOptions{}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		tt := newTester(t)
		if _, err := durability.LoadFile(tt.E, path); err == nil {
			t.Errorf("%q: loaded", code)
		}
		tt.Expect("*0\r\n", "FUNCTION", "LIST")
	}
}

func TestFunctionDumpPayload(t *testing.T) {
	tt := newTester(t)
	tt.Expect(bulk("tl"), "FUNCTION", "LOAD", testLib)
	dump := respBulk(t, tt.Do("FUNCTION", "DUMP"))
	if _, err := rdb.VerifyDump(dump, false); err != nil {
		t.Fatal(err)
	}
	var codes []string
	if msg := rdb.DecodeFunctionDump(dump, false, func(c []byte) string { codes = append(codes, string(c)); return "" }); msg != "" || len(codes) != 1 || codes[0] != testLib {
		t.Fatalf("decoded %q, %q", codes, msg)
	}
	tt.Expect("-ERR Library tl already exists\r\n", "FUNCTION", "RESTORE", string(dump))
	tt.Expect(okReply, "FUNCTION", "RESTORE", string(dump), "REPLACE")
	tt.Expect(okReply, "FUNCTION", "FLUSH")
	tt.Expect(okReply, "FUNCTION", "RESTORE", string(dump))
	tt.Expect(okReply, "FCALL", "tf", "1", "k", "v")
	tt.Expect(bulk("v"), "FCALL", "tg", "1", "k")
}
