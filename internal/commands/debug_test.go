package commands

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/limitkv/limitkv/internal/admin"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
)

func TestDebugAllowed(t *testing.T) {
	for _, tc := range []struct {
		mode int32
		addr string
		want bool
	}{
		{config.DebugCommandNo, "127.0.0.1:5000", false},
		{config.DebugCommandYes, "10.1.2.3:5000", true},
		{config.DebugCommandLocal, "127.0.0.1:5000", true},
		{config.DebugCommandLocal, "[::1]:5000", true},
		{config.DebugCommandLocal, "127.0.0.2:5000", false}, // islocalClient compares the text
		{config.DebugCommandLocal, "10.1.2.3:5000", false},
		{config.DebugCommandLocal, "", false},
	} {
		tt := newTester(t)
		tt.E.Cfg.EnableDebugCommand.Store(tc.mode)
		tt.C.Addr = tc.addr
		got := tt.Do("DEBUG", "PROTOCOL", "integer")
		if (got == ":12345\r\n") != tc.want {
			t.Errorf("mode %d from %q: %q", tc.mode, tc.addr, got)
		}
		if !tc.want && got != errReply(engine.ErrDebugNotAllowed) {
			t.Errorf("refusal: %q", got)
		}
	}
}

func TestDebugSettingImmutable(t *testing.T) {
	tt := newTester(t)
	tt.Expect(array(bulk("enable-debug-command"), bulk("no")), "CONFIG", "GET", "enable-debug-command")
	tt.Expect(errReply("ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config"),
		"CONFIG", "SET", "enable-debug-command", "yes")
	p, _ := config.ConfigLookup("enable-debug-command")
	for v, want := range map[string]int32{"yes": config.DebugCommandYes, "LOCAL": config.DebugCommandLocal, "no": config.DebugCommandNo} {
		store, msg := p.Parse(tt.E.Cfg, v)
		if msg != "" {
			t.Fatalf("%s: %s", v, msg)
		}
		store()
		if got := tt.E.Cfg.EnableDebugCommand.Load(); got != want {
			t.Errorf("%s: %d", v, got)
		}
	}
	if _, msg := p.Parse(tt.E.Cfg, "sometimes"); msg == "" {
		t.Error("a bad value parsed")
	}
}

// Known answers from Redis 7.0.15 (DEBUG DIGEST and DIGEST-VALUE after
// SET k 100, SET s hello, RPUSH l a b c, HSET h f v on an empty server).
func TestDebugDigestKnown(t *testing.T) {
	tt := newTester(t)
	tt.E.Cfg.EnableDebugCommand.Store(config.DebugCommandYes)
	tt.Expect("+"+strings.Repeat("0", 40)+"\r\n", "DEBUG", "DIGEST")
	tt.Do("SET", "k", "100")
	tt.Do("SET", "s", "hello")
	tt.Do("RPUSH", "l", "a", "b", "c")
	tt.Do("HSET", "h", "f", "v")
	tt.Expect("+6fbf3b52dec880c043d419079a5513e0886fea73\r\n", "DEBUG", "DIGEST")
	tt.Expect("*3\r\n+3d41d4c94e50ef4c4d595fea543c6a374ebed1e9\r\n+36b23a1456b2dce2c3ed252c456761301dba8060\r\n+"+strings.Repeat("0", 40)+"\r\n",
		"DEBUG", "DIGEST-VALUE", "k", "s", "nokey")
	// The digest is of the content: an APPENDed "100" (raw) is the same.
	tt.Do("DEL", "k")
	tt.Do("APPEND", "k", "100")
	tt.Expect("+6fbf3b52dec880c043d419079a5513e0886fea73\r\n", "DEBUG", "DIGEST")
}

func TestDebugSwitches(t *testing.T) {
	tt := newTester(t)
	tt.E.Cfg.EnableDebugCommand.Store(config.DebugCommandYes)
	tt.Expect(okReply, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	if tt.E.ActiveExpireEnabled() {
		t.Error("active expire still on")
	}
	tt.Expect(okReply, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	tt.Expect(okReply, "DEBUG", "PAUSE-CRON", "1")
	if !tt.E.CronPaused() {
		t.Error("cron not paused")
	}
	tt.Expect(okReply, "DEBUG", "PAUSE-CRON", "0")
	tt.Expect(okReply, "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1kb")
	if got := tt.E.Cfg.RdbLimits().ListPackedThreshold; got != 1024 {
		t.Errorf("packed threshold %d", got)
	}
	tt.Expect(okReply, "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0")
	if got := tt.E.Cfg.RdbLimits().ListPackedThreshold; got != 1<<30 {
		t.Errorf("packed threshold %d", got)
	}
	// SET-SKIP-CHECKSUM-VALIDATION lets RESTORE take a payload whose CRC
	// is wrong.
	tt.Do("SET", "k", "v")
	payload := []byte(bulkBody(t, tt.Do("DUMP", "k")))
	payload[len(payload)-1] ^= 0xff
	tt.Expect(errReply(durability.ErrBadDumpPayload), "RESTORE", "k2", "0", string(payload))
	tt.Expect(okReply, "DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
	tt.Expect(okReply, "RESTORE", "k2", "0", string(payload))
	tt.Expect(bulk("v"), "GET", "k2")
}

func TestStrtodPrefix(t *testing.T) {
	for in, want := range map[string]float64{
		"1.5": 1.5, " 2": 2, "3abc": 3, "abc": 0, "": 0, ".5": 0.5, "1e3": 1000, "1e": 1, "-0.25x": -0.25, "inf": math.Inf(1), "+5": 5,
	} {
		if got, _ := admin.StrtodPrefix([]byte(in)); got != want {
			t.Errorf("strtod(%q) = %v, want %v", in, got, want)
		}
	}
	for in, want := range map[string]int{"1": 1, " 7x": 7, "x": 0, "-3": -3, "": 0} {
		if got := engine.Atoi([]byte(in)); got != want {
			t.Errorf("atoi(%q) = %d, want %d", in, got, want)
		}
	}
}

// A write that fails part way (a full disk) leaves the previous file and
// no temporary file, and the error says why.
func TestCommitFileFailingWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.rdb")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := durability.CommitFile(dir, "dump.rdb", "temp-1.rdb", func(w io.Writer) error {
		w.Write(make([]byte, 2<<20)) // past the buffer: reaches the file
		return &os.PathError{Op: "write", Path: "temp-1.rdb", Err: syscall.ENOSPC}
	}, nil)
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "previous" {
		t.Errorf("previous file now %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
}

func TestStopWritesOnBgsaveError(t *testing.T) {
	tt := newTester(t)
	dir := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(dir, 0o755)
	tt.E.Cfg.SetDir(dir, "")
	tt.E.Cfg.SetSavePoints([]config.SavePoint{{Seconds: 1, Changes: 1}})
	os.Remove(dir)
	tt.Expect("+Background saving started\r\n", "BGSAVE")
	durability.WaitBgsave(tt.E)
	tt.Expect(errReply(engine.ErrMisconf), "SET", "k", "v")
	tt.Expect(okReply, "CONFIG", "SET", "stop-writes-on-bgsave-error", "no")
	tt.Expect(okReply, "SET", "k", "v")
	tt.Expect("+PONG\r\n", "PING")
	tt.Expect(okReply, "CONFIG", "SET", "stop-writes-on-bgsave-error", "yes")
	tt.Expect(errReply(engine.ErrMisconf), "SET", "k", "v")
	// A script is refused its first write, as Redis's scriptVerifyWriteCommandAllow.
	tt.Expect(errReply(engine.ErrMisconf), "EVAL", "return redis.pcall('set','k','v')", "0")
	tt.Expect(bulk("v"), "EVAL", "return redis.call('get','k')", "0")
}

// The refusal comes before AUTH is asked for, as processCommand checks
// protected commands first; the arity error comes before both.
func TestDebugRefusalBeforeAuth(t *testing.T) {
	tt := newTester(t)
	tt.E.Cfg.RequirePass.Store(config.Ptr("pw"))
	tt.C.Authed.Store(false)
	tt.Expect(errReply(engine.ErrDebugNotAllowed), "DEBUG", "DIGEST")
	tt.Expect(errReply(engine.ErrWrongArgs("debug")), "DEBUG")
	tt.Expect(errReply(engine.ErrNoAuth), "GET", "k")
	tt.E.Cfg.EnableDebugCommand.Store(config.DebugCommandYes)
	tt.Expect(errReply(engine.ErrNoAuth), "DEBUG", "DIGEST")
}
