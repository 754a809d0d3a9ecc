package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// Package-level servers, set up once by TestMain and shared by every test.
var (
	// redisServerPath is the redis-server binary used as the oracle ("" if not found).
	redisServerPath string
	// redisAddr is the oracle redis-server's "127.0.0.1:port".
	redisAddr string
	// limitkvAddr is the limitkv server under test.
	limitkvAddr string
	// skipReason, when non-empty, makes every test that needs the servers skip.
	skipReason string
)

// requireServers skips the test when the oracle is unavailable (see TestMain).
func requireServers(tb testing.TB) {
	tb.Helper()
	if skipReason != "" {
		tb.Skip(skipReason)
	}
}

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	path, err := testredis.Find()
	if err != nil {
		msg := fmt.Sprintf("redis-server not found (%v); install it with apt-get install redis-server, "+
			"or set %s=/path/to/redis-server (set %s=1 to make this an error instead of a skip)",
			err, testredis.EnvServer, testredis.EnvRequire)
		if testredis.Required() {
			fmt.Fprintf(os.Stderr, "conformance: FATAL: %s=1 but %s\n", testredis.EnvRequire, msg)
			return 1
		}
		fmt.Fprintf(os.Stderr, "conformance: skipping all tests: %s\n", msg)
		skipReason = msg
		announceSkip(msg)
		code := m.Run()
		// Touched again after the run, so that it is new when go test
		// decides whether to cache.
		os.WriteFile(skipMarker(), []byte(msg+"\n"), 0o644)
		return code
	}
	redisServerPath = path
	if v := testredis.Version(path); v != "" && !strings.HasPrefix(v, "7.0.") {
		fmt.Fprintf(os.Stderr, "conformance: WARNING: oracle %s is redis %s, not 7.0.x; replies may legitimately differ\n", path, v)
	}

	oracle, err := testredis.Start(testredis.Options{Path: path})
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance: cannot start the oracle redis-server: %v\n", err)
		return 1
	}
	defer oracle.Stop()
	redisAddr = oracle.Addr

	addr, stop, err := launchLimitkv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance: cannot start limitkv: %v\n", err)
		return 1
	}
	defer stop()
	limitkvAddr = addr

	code := m.Run()
	if code != 0 && oracle.Exited() {
		fmt.Fprintf(os.Stderr, "conformance: the oracle redis-server died during the run; its log:\n%s\n", oracle.Log())
	}
	return code
}

// announceSkip tells the person running the tests that the conformance
// suite did not run. go test shows a passing package's output only with -v,
// so `go test ./...` would print "ok" for a suite that checked nothing: the
// notice goes to the controlling terminal too, which go test does not
// capture (without one, as in CI, stderr and the skip messages are all
// there is, and CI sets LIMITKV_REQUIRE_REDIS=1). And the result must not
// be cached, or the next run would print "ok (cached)" without the notice:
// go test caches no run that opened a regular file modified in its last two
// seconds, so TestConformanceRan opens a marker file (go test records it)
// that testMain rewrites after the run.
func announceSkip(msg string) {
	note := "\n*** conformance: NOT RUN (the package still reports ok) ***\n    " + msg + "\n\n"
	os.WriteFile(skipMarker(), []byte(note), 0o644)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		tty.WriteString(note)
		tty.Close()
	}
}

// skipMarker is in the package's directory (git ignores it): go test
// rechecks only files inside the module.
func skipMarker() string { return filepath.Join(".", ".redis-not-found") }

// TestConformanceRan skips, saying why, when the suite cannot run; it
// opens the just-written marker (announceSkip) from inside a test, where
// go test records what a test reads, so that the skipped run is not cached.
func TestConformanceRan(t *testing.T) {
	if skipReason == "" {
		return
	}
	if f, err := os.Open(skipMarker()); err == nil {
		f.Close()
	}
	t.Skip("the conformance suite did NOT run: " + skipReason)
}

// pingOK reports whether addr answers PING with +PONG on a fresh connection.
func pingOK(addr string) bool {
	c, err := dialRawConn("probe", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	c.Timeout = time.Second
	r, err := c.Do("PING")
	return err == nil && string(r.Raw) == "+PONG\r\n"
}
