package rdb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzReader feeds arbitrary bytes to the RDB reader and the DUMP decoder:
// they may refuse them but must not panic, hang or allocate wildly. The seed
// corpus in testdata/fuzz/FuzzReader holds files saved by redis-server
// 7.0.15 (regenerate with LIMITKV_RDB_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds).
//
//	go test -run '^$' -fuzz FuzzReader -fuzztime 60s -fuzzminimizetime 5s ./internal/rdb
func FuzzReader(f *testing.F) {
	// Seeds stay small: the fuzzer minimises every new input, which is slow
	// for inputs of many kilobytes.
	small := sampleSnapshot()
	for i := range small.Entries {
		v := &small.Entries[i].Value
		v.List, v.Hash = v.List[:min(len(v.List), 5)], v.Hash[:min(len(v.Hash), 3)]
		if len(v.String) > 40 {
			v.String = v.String[:40]
		}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, small, WriterOptions{}); err == nil {
		f.Add(buf.Bytes())
	}
	legacy, _ := legacyFileSized(9, true, true, 70)
	f.Add(legacy)
	legacy, _ = legacyFileSized(3, false, false, 300)
	f.Add(legacy)
	for _, e := range small.Entries {
		if p, err := EncodeDump(&e.Value, DumpOptions{}); err == nil {
			f.Add(p)
		}
	}
	opts := &ReaderOptions{MaxStringLen: 1 << 20, SkipChecksum: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), opts)
		if err == nil {
			for i := 0; ; i++ {
				if _, err := r.Next(); err != nil {
					break
				}
			}
		}
		_, _ = Decode(bytes.NewReader(data), nil)
		if v, err := DecodeDump(data, opts); err == nil {
			// what decodes re-encodes
			if _, err := EncodeDump(v, DumpOptions{}); err != nil && v.Type != TypeZSet {
				t.Fatalf("decoded DUMP does not re-encode: %v", err)
			}
		}
		_, _ = DecodeListpack(data)
		_, _ = DecodeZiplist(data)
		_, _ = DecodeIntset(data)
		_, _ = DecodeZipmap(data)
		if len(data) > 8 {
			_, _ = lzfDecompress(data[1:], int(data[0])*int(data[1]))
		}
	})
}

// TestWriteFuzzSeeds regenerates the committed seed corpus from a real
// redis-server. It runs only with LIMITKV_RDB_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("LIMITKV_RDB_WRITE_SEEDS") != "1" {
		t.Skip("set LIMITKV_RDB_WRITE_SEEDS=1 to regenerate testdata/fuzz/FuzzReader")
	}
	dir := t.TempDir()
	p := startRedis(t, dir)
	exp := time.Now().Add(24 * time.Hour).UnixMilli()
	p.do("SET", "s", "hello")
	p.do("SET", "i", "123456")
	p.do("SET", "lzf", strings.Repeat("abcd", 20))
	p.do("SET", "ttl", "x", "PXAT", exp)
	p.do("RPUSH", "l", "a", "1", "-300", strings.Repeat("b", 70))
	p.do("SADD", "is", "1", "2", "70000")
	p.do("SADD", "hs", "a", "b")
	p.do("ZADD", "zl", "1", "a", "2.5", "b", "-inf", "c")
	p.do("ZADD", "zs", "1", strings.Repeat("m", 70), "3", "x")
	p.do("HSET", "hl", "f", "v", "n", "5")
	p.do("HSET", "hh", "f", strings.Repeat("v", 70))
	p.do("SELECT", "3")
	p.do("SET", "other", "db")
	p.do("SELECT", "0")
	p.do("FUNCTION", "LOAD", testLibrary)
	out := filepath.Join("testdata", "fuzz", "FuzzReader")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
		if err := os.WriteFile(filepath.Join(out, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"yes", "no"} {
		p.do("CONFIG", "SET", "rdbcompression", c)
		p.do("SAVE")
		b, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		write("redis-save-compression-"+c, b)
	}
	for _, k := range []string{"lzf", "l", "is", "zl", "zs", "hl", "hh"} {
		write("redis-dump-"+k, []byte(p.do("DUMP", k).(string)))
	}
}
