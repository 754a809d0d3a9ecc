package commands

import (
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

// aofTester is a tester whose engine writes an AOF in its own directory.
func aofTester(t *testing.T, dir string, fsync int32) *tester {
	tt := newTester(t)
	cfg := tt.E.Cfg
	cfg.SetDir(dir, "")
	cfg.AOF.Enabled.Store(true)
	cfg.AOF.Fsync.Store(fsync)
	cfg.EnableDebugCommand.Store(config.DebugCommandYes)
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
