package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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

const (
	envRequireRedis = "LIMITKV_REQUIRE_REDIS" // "1": a missing redis-server is an error, not a skip
	envRedisServer  = "LIMITKV_REDIS_SERVER"  // explicit path to redis-server
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
	path, err := findRedisServer()
	if err != nil {
		msg := fmt.Sprintf("redis-server not found (%v); install it with apt-get install redis-server, "+
			"or set %s=/path/to/redis-server (set %s=1 to make this an error instead of a skip)",
			err, envRedisServer, envRequireRedis)
		if os.Getenv(envRequireRedis) == "1" {
			fmt.Fprintf(os.Stderr, "conformance: FATAL: %s=1 but %s\n", envRequireRedis, msg)
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
	if v := redisVersion(path); v != "" && !strings.HasPrefix(v, "7.0.") {
		fmt.Fprintf(os.Stderr, "conformance: WARNING: oracle %s is redis %s, not 7.0.x; replies may legitimately differ\n", path, v)
	}

	oracle, err := startRedisProcess(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance: cannot start the oracle redis-server: %v\n", err)
		return 1
	}
	defer oracle.stop()
	redisAddr = oracle.addr

	addr, stop, err := launchLimitkv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance: cannot start limitkv: %v\n", err)
		return 1
	}
	defer stop()
	limitkvAddr = addr

	code := m.Run()
	if code != 0 && oracle.exited() {
		fmt.Fprintf(os.Stderr, "conformance: the oracle redis-server died during the run; its log:\n%s\n", oracle.log.String())
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

// findRedisServer looks at $LIMITKV_REDIS_SERVER, then PATH, then /usr/bin/redis-server.
func findRedisServer() (string, error) {
	if p := os.Getenv(envRedisServer); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", envRedisServer, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	const fallback = "/usr/bin/redis-server"
	if _, err := os.Stat(fallback); err == nil {
		return fallback, nil
	}
	return "", errors.New("not in PATH nor at /usr/bin/redis-server")
}

// redisVersion returns "7.0.15" from `redis-server --version`, or "" if unknown.
func redisVersion(path string) string {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return ""
	}
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "v="); ok {
			return v
		}
	}
	return ""
}

// redisProcess is a redis-server child process listening on 127.0.0.1.
type redisProcess struct {
	addr string
	dir  string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{} // closed when the process has exited
	once sync.Once
}

func (p *redisProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop terminates the process (SIGTERM, then SIGKILL after 3 s) and removes its directory.
// It is safe to call more than once.
func (p *redisProcess) stop() {
	p.once.Do(func() {
		if !p.exited() {
			_ = p.cmd.Process.Signal(os.Interrupt)
			select {
			case <-p.done:
			case <-time.After(3 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
		_ = os.RemoveAll(p.dir)
	})
}

// startRedisProcess starts redis-server on a free loopback port and waits until it
// answers PING. It retries on a new port if the chosen one was taken meanwhile.
// The child gets SIGKILL if this test process dies (Linux), so it is never left running.
func startRedisProcess(path string) (*redisProcess, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		p, err := tryStartRedis(path)
		if err == nil {
			return p, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	return nil, lastErr
}

func tryStartRedis(path string) (*redisProcess, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	removeStaleDirs()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", tempDirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	p := &redisProcess{
		addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		dir:  dir,
		log:  &syncBuffer{},
		done: make(chan struct{}),
	}
	p.cmd = exec.Command(path,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--dir", dir,
	)
	p.cmd.Dir = dir
	p.cmd.Stdout = p.log
	p.cmd.Stderr = p.log
	setDeathSignal(p.cmd)
	if err := p.cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()

	deadline := time.Now().Add(10 * time.Second)
	for {
		if p.exited() {
			p.stop()
			return nil, fmt.Errorf("redis-server on port %d exited at startup; log:\n%s", port, p.log.String())
		}
		if pingOK(p.addr) {
			return p, nil
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("redis-server on port %d did not answer PING within 10s; log:\n%s", port, p.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tempDirPrefix names the redis-server working directories: PREFIX<pid>-<random>.
const tempDirPrefix = "limitkv-conformance-redis-"

// removeStaleDirs deletes working directories left by test processes that died
// without cleaning up (a panic or -timeout kills the child but skips the defers).
func removeStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempDirPrefix+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), tempDirPrefix)
		pidStr, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(d)
	}
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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

// syncBuffer is a goroutine-safe log sink that keeps the last 64 KB.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	if s.b.Len() > 64<<10 {
		keep := append([]byte(nil), s.b.Bytes()[s.b.Len()-32<<10:]...)
		s.b.Reset()
		s.b.Write(keep)
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
