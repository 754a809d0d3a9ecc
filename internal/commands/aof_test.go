package commands

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
)

// aofTester is a tester whose engine writes an AOF in its own directory;
// setup changes the configuration before the AOF is loaded.
func aofTester(t *testing.T, dir string, fsync int32, setup ...func(*config.Config)) *tester {
	tt := newTester(t)
	cfg := tt.E.Cfg
	cfg.SetDir(dir, "")
	cfg.AOF.Enabled.Store(true)
	cfg.AOF.Fsync.Store(fsync)
	cfg.EnableDebugCommand.Store(config.DebugCommandYes)
	for _, f := range setup {
		f(cfg)
	}
	if _, err := durability.LoadAppendOnly(tt.E); err != nil {
		t.Fatal(err)
	}
	if err := durability.StartAppendOnly(tt.E); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { durability.StopAppendOnly(tt.E); durability.WaitAOFRewrite(tt.E) })
	return tt
}

// The engine's AOF end to end, with the goroutines (everysec fsync, the
// rewrite) running against clients: what one engine wrote, another loads
// to the same digest.
func TestAOFEngineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tt := aofTester(t, dir, config.FsyncEverysec)
	for i := range 2000 {
		tt.Expect(okReply, "SET", "k"+strconv.Itoa(i), strconv.Itoa(i), "EX", "1000")
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
			defer tt.E.RemoveClient(c)
			x := &tester{t: t, E: tt.E, C: c, Clock: tt.Clock}
			for i := range 500 {
				x.Do("HSET", "h"+strconv.Itoa(w), "f"+strconv.Itoa(i), "v")
				x.Do("INCR", "n"+strconv.Itoa(w))
			}
		}()
	}
	tt.Expect("+Background append only file rewriting started\r\n", "BGREWRITEAOF")
	tt.Expect(errReply("ERR Background append only file rewriting already in progress"), "BGREWRITEAOF")
	wg.Wait()
	durability.WaitAOFRewrite(tt.E)
	info := tt.Do("INFO", "persistence")
	for _, want := range []string{"aof_enabled:1", "aof_rewrite_in_progress:0", "aof_last_bgrewrite_status:ok", "aof_rewrites:1", "aof_last_write_status:ok"} {
		if !strings.Contains(info, want+"\r\n") {
			t.Errorf("INFO lacks %s:\n%s", want, info)
		}
	}
	tt.Expect(okReply, "SET", "after", "1")
	time.Sleep(1100 * time.Millisecond) // one everysec turn
	digest := tt.Do("DEBUG", "DIGEST")
	durability.StopAppendOnly(tt.E)
	man, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil || string(man) != "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatalf("manifest %q, %v", man, err)
	}
	back := aofTester(t, dir, config.FsyncAlways)
	if got := back.Do("DEBUG", "DIGEST"); got != digest {
		t.Fatalf("loaded digest %q, want %q", got, digest)
	}
	back.Expect(okReply, "CONFIG", "SET", "appendonly", "no")
	back.Expect(array(bulk("appendonly"), bulk("no")), "CONFIG", "GET", "appendonly")
	if info := back.Do("INFO", "persistence"); !strings.Contains(info, "aof_enabled:0\r\n") || strings.Contains(info, "aof_current_size") {
		t.Errorf("INFO after appendonly no:\n%s", info)
	}
}

// TestAOFBaseFormats: aof-use-rdb-preamble decides the base's format and
// name; either way DEBUG LOADAOF (from the incr file alone, then from a
// rewritten base) and a restart give back the same dataset.
func TestAOFBaseFormats(t *testing.T) {
	tests := []struct {
		preamble bool
		base     string
		head     string
	}{
		{true, "appendonly.aof.2.base.rdb", "REDIS"},
		{false, "appendonly.aof.2.base.aof", "*3\r\n$8\r\nFUNCTION"},
	}
	for _, tc := range tests {
		t.Run(strconv.FormatBool(tc.preamble), func(t *testing.T) {
			dir := t.TempDir()
			preamble := func(c *config.Config) { c.AOF.UseRDBPreamble.Store(tc.preamble) }
			tt := aofTester(t, dir, config.FsyncAlways, preamble)
			tt.Do("FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('f', function() return 1 end)")
			for i := range 150 {
				n := strconv.Itoa(i)
				tt.Do("RPUSH", "list", n)
				tt.Do("HSET", "hash", "f"+n, n)
				tt.Do("ZADD", "zset", n+".5", "m"+n)
				tt.Do("SADD", "set", "s"+n)
			}
			tt.Do("XADD", "st", "1-1", "f", "v")
			tt.Do("XGROUP", "CREATE", "st", "g", "0")
			tt.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "st", ">")
			tt.Do("SET", "ttl", "v", "EX", "1000")
			tt.Do("SELECT", "7")
			tt.Do("SET", "in7", "x")
			digest := tt.Do("DEBUG", "DIGEST")
			tt.Expect(okReply, "DEBUG", "LOADAOF")
			if got := tt.Do("DEBUG", "DIGEST"); got != digest {
				t.Fatalf("DEBUG LOADAOF of the incr file: digest %q, want %q", got, digest)
			}
			tt.Expect("+Background append only file rewriting started\r\n", "BGREWRITEAOF")
			durability.WaitAOFRewrite(tt.E)
			base, err := os.ReadFile(filepath.Join(dir, "appendonlydir", tc.base))
			if err != nil || !strings.HasPrefix(string(base), tc.head) {
				t.Fatalf("base %s: %v, starts %q", tc.base, err, base[:min(len(base), 20)])
			}
			tt.Expect(okReply, "DEBUG", "LOADAOF")
			if got := tt.Do("DEBUG", "DIGEST"); got != digest {
				t.Fatalf("DEBUG LOADAOF of the new base: digest %q, want %q", got, digest)
			}
			if got := tt.Do("XPENDING", "st", "g"); !strings.Contains(got, "c") {
				t.Errorf("the group's pending entry after the reload: %q", got)
			}
			tt.Expect(":1\r\n", "FCALL", "f", "0")
			durability.StopAppendOnly(tt.E)
			if got := aofTester(t, dir, config.FsyncAlways, preamble).Do("DEBUG", "DIGEST"); got != digest {
				t.Fatalf("restart: digest %q, want %q", got, digest)
			}
		})
	}
}

// TestAOFLegacyUpgrade: appendonly.aof in the data dir becomes the base
// in appendonlydir, from nothing or after a crash that wrote the manifest
// but did not move the file; a directory that already has its AOF
// ignores the stray file.
func TestAOFLegacyUpgrade(t *testing.T) {
	legacy := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$3\r\nold\r\n"
	tests := []struct {
		name     string
		manifest string // in appendonlydir before the start; "" for none
		other    string // a file already in appendonlydir
		want     string // GET a
		migrated bool
	}{
		{"no directory", "", "", "$3\r\nold\r\n", true},
		{"a directory without a manifest", "", "stray", "$3\r\nold\r\n", true},
		{"crash after the manifest", "file appendonly.aof seq 1 type b\n", "", "$3\r\nold\r\n", true},
		{"a multi-part AOF already", "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
			"appendonly.aof.1.incr.aof", "$-1\r\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "appendonly.aof"), []byte(legacy), 0o644); err != nil {
				t.Fatal(err)
			}
			aofDir := filepath.Join(dir, "appendonlydir")
			if tc.manifest != "" || tc.other != "" {
				os.MkdirAll(aofDir, 0o755)
			}
			if tc.manifest != "" {
				os.WriteFile(filepath.Join(aofDir, "appendonly.aof.manifest"), []byte(tc.manifest), 0o644)
				os.WriteFile(filepath.Join(aofDir, "appendonly.aof.1.base.aof"), nil, 0o644)
			}
			if tc.other != "" {
				os.WriteFile(filepath.Join(aofDir, tc.other), nil, 0o644)
			}
			tt := aofTester(t, dir, config.FsyncAlways)
			tt.Expect(tc.want, "GET", "a")
			_, err := os.Stat(filepath.Join(dir, "appendonly.aof"))
			if moved := errors.Is(err, os.ErrNotExist); moved != tc.migrated {
				t.Fatalf("appendonly.aof moved: %v, want %v", moved, tc.migrated)
			}
			if !tc.migrated {
				return
			}
			man, _ := os.ReadFile(filepath.Join(aofDir, "appendonly.aof.manifest"))
			if want := "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"; string(man) != want {
				t.Errorf("manifest %q, want %q", man, want)
			}
			if data, err := os.ReadFile(filepath.Join(aofDir, "appendonly.aof")); err != nil || string(data) != legacy {
				t.Errorf("the base: %q, %v", data, err)
			}
		})
	}
}

// TestDebugLoadAOFErrors: where Redis exits (no AOF at all, a file that
// is not one), DEBUG LOADAOF answers an error.
func TestDebugLoadAOFErrors(t *testing.T) {
	const loadErr = "-ERR Error loading the AOF, check server logs.\r\n"
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) *tester
	}{
		{"no AOF", func(t *testing.T, dir string) *tester {
			tt := newTester(t)
			tt.E.Cfg.SetDir(dir, "")
			tt.E.Cfg.EnableDebugCommand.Store(config.DebugCommandYes)
			return tt
		}},
		{"bad format", func(t *testing.T, dir string) *tester {
			tt := aofTester(t, dir, config.FsyncAlways)
			tt.Expect(okReply, "SET", "a", "1")
			f, err := os.OpenFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("?not a command\r\n")
			f.Close()
			return tt
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t, t.TempDir()).Expect(loadErr, "DEBUG", "LOADAOF")
		})
	}
}
