package conformance

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
)

// tinyDisk mounts a tmpfs of size bytes at a new directory and unmounts it
// when the test ends; the test skips where mounting is not allowed (not
// root, or no CAP_SYS_ADMIN in the sandbox).
func tinyDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs to fill (%v: %s)", err, bytes.TrimSpace(out))
	}
	// Registered before the servers start, so it runs after they stop.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// A full disk: SAVE answers Redis's bare error and leaves the previous
// file as it was (no temporary file left behind), the server keeps
// serving and accepting writes; a failed BGSAVE then makes writes (and
// PING) answer MISCONF while stop-writes-on-bgsave-error is yes and save
// points are set, until a background save succeeds again.
func TestDiskFull(t *testing.T) {
	requireServers(t)
	lkvDir, rdsDir := tinyDisk(t, 1<<20), tinyDisk(t, 1<<20)
	srv, err := limitkv.Start(limitkv.Options{Dir: lkvDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	lkv := dialRaw(t, "limitkv", srv.Addr())
	rds, _ := startRedisOn(t, rdsDir)
	same := func(cmd ...string) string {
		t.Helper()
		a, b := rds.MustDo(t, cmd...), lkv.MustDo(t, cmd...)
		if string(a.Raw) != string(b.Raw) {
			t.Errorf("%v: redis %q, limitkv %q", truncate([]byte(strings.Join(cmd, " ")), 80), a.Raw, b.Raw)
		}
		return string(a.Raw)
	}
	waitBgsave := func() {
		t.Helper()
		for _, c := range []*RawConn{rds, lkv} {
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(c.MustDo(t, "INFO", "persistence").Str, "rdb_bgsave_in_progress:0\r\n") {
				if time.Now().After(deadline) {
					t.Fatalf("%s: BGSAVE still running after 10 s", c.Name)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	status := func() {
		t.Helper()
		field := func(c *RawConn) string {
			_, v, _ := strings.Cut(c.MustDo(t, "INFO", "persistence").Str, "rdb_last_bgsave_status:")
			v, _, _ = strings.Cut(v, "\r\n")
			return v
		}
		if a, b := field(rds), field(lkv); a != b {
			t.Errorf("rdb_last_bgsave_status: redis %s, limitkv %s", a, b)
		}
	}

	same("CONFIG", "GET", "stop-writes-on-bgsave-error")
	same("CONFIG", "SET", "save", "3600 1")
	same("SET", "small", "v")
	same("SAVE")
	before := map[string][]byte{}
	for _, d := range []string{lkvDir, rdsDir} {
		b, err := os.ReadFile(filepath.Join(d, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		before[d] = b
	}

	// 2.4 MB that LZF cannot shrink, for a 1 MB disk.
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 8<<10)
	for i := range 300 {
		for j := range val {
			val[j] = byte(rng.Uint32())
		}
		same("SET", "big:"+strconv.Itoa(i), string(val))
	}

	if got := same("SAVE"); got != "-ERR\r\n" {
		t.Errorf("SAVE on a full disk: %q", got)
	}
	for d, b := range before {
		now, err := os.ReadFile(filepath.Join(d, "dump.rdb"))
		if err != nil || !bytes.Equal(now, b) {
			t.Errorf("%s: the previous dump.rdb changed or went (%v)", d, err)
		}
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.Name() != "dump.rdb" {
				t.Errorf("%s: %s left behind", d, e.Name())
			}
		}
	}
	status()
	same("PING")
	same("GET", "small")
	same("SET", "after", "save") // a failed SAVE refuses nothing

	same("BGSAVE")
	waitBgsave()
	status()
	same("SET", "k", "v")
	same("PING")
	same("GET", "small")
	same("DBSIZE")
	same("MULTI")
	same("SET", "k", "v")
	same("EXEC")
	same("EVAL", "return redis.pcall('set','k','v')", "0")
	same("EVAL", "return redis.pcall('get','small')", "0")
	same("CONFIG", "SET", "stop-writes-on-bgsave-error", "no")
	same("SET", "k", "v")
	same("CONFIG", "SET", "stop-writes-on-bgsave-error", "yes")
	same("SET", "k", "v")
	same("CONFIG", "SET", "stop-writes-on-bgsave-error", "maybe")
	same("CONFIG", "SET", "stop-writes-on-bgsave-error", "no")
	for i := range 300 {
		same("DEL", "big:"+strconv.Itoa(i))
	}
	same("CONFIG", "SET", "stop-writes-on-bgsave-error", "yes")
	same("SET", "k", "v")
	same("BGSAVE")
	waitBgsave()
	status()
	same("SET", "k", "v2")
	same("PING")
}
