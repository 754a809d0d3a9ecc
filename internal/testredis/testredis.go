// Package testredis finds and starts the real redis-server that tests
// compare limitkv with: the one place that knows where the binary is, what
// LIMITKV_REQUIRE_REDIS means, and how a child server is started on a free
// loopback port and stopped by its pid. The same Start runs Redis in
// Sentinel mode and limitkv's own binary when a test needs it as a child
// process (Options), and FindTool finds redis-cli, redis-check-rdb and the
// other tools. Only tests (and test tools such as bench) import it, as
// internal/testpki serves certificates.
package testredis

import (
	"bufio"
	"bytes"

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

// EnvServer names a redis-server binary to use instead of the one on PATH.
const EnvServer = "LIMITKV_REDIS_SERVER"

// EnvRequire set to 1 makes a missing redis-server a test failure rather
// than a skip (CI sets it).
const EnvRequire = "LIMITKV_REQUIRE_REDIS"

// Required reports whether a missing redis-server must fail the tests.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Find returns the redis-server binary: $LIMITKV_REDIS_SERVER, then PATH,
// then /usr/bin/redis-server.
func Find() (string, error) { return findTool("redis-server") }

// FindTool finds one of Redis's other binaries (redis-cli,
// redis-check-rdb, redis-sentinel, ...) beside the redis-server Find
// returns, then on PATH.
func FindTool(name string) (string, error) { return findTool(name) }

func findTool(name string) (string, error) {
	if p := os.Getenv(EnvServer); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", EnvServer, p, err)
		}
		if name == "redis-server" {
			return p, nil
		}
		if q := filepath.Join(filepath.Dir(p), name); fileExists(q) {
			return q, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if p := "/usr/bin/" + name; fileExists(p) {
		return p, nil
	}
	return "", fmt.Errorf("%s not in PATH nor in /usr/bin (apt-get install redis-server, or set %s)", name, EnvServer)
}

// Require returns the redis-server binary, or ends the test: a skip, or a
// failure when LIMITKV_REQUIRE_REDIS=1.
func Require(t testing.TB) string { return RequireTool(t, "redis-server") }

// RequireTool is Require for another of Redis's binaries.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := findTool(name)
	if err == nil {
		return p
	}
	if Required() {
		t.Fatalf("%s=1 but %v", EnvRequire, err)
	}
	t.Skipf("%v: skipping this real-Redis test (%s=1 makes it a failure)", err, EnvRequire)
	return ""
}

// RequireVersion is Require for tests that need a given Redis release:
// it also skips (or fails, under LIMITKV_REQUIRE_REDIS=1) when the
// binary's Version does not start with prefix ("7.0.").
func RequireVersion(t testing.TB, prefix string) string {
	t.Helper()
	p := Require(t)
	if v := Version(p); !strings.HasPrefix(v, prefix) {
		msg := fmt.Sprintf("%s is Redis %q, not %sx", p, v, prefix)
		if Required() {
			t.Fatalf("%s=1 but %s", EnvRequire, msg)
		}
		t.Skipf("%s: skipping this real-Redis test (%s=1 makes it a failure)", msg, EnvRequire)
	}
	return p
}

// Version returns "7.0.15" from `redis-server --version`, or "" if unknown.
func Version(path string) string {
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

// Proc is a redis-server child process listening on 127.0.0.1.
type Proc struct {
	Addr string // host:port
	Port int
	Dir  string // its working directory (--dir)
	Cmd  *exec.Cmd

	log     *logBuffer
	done    chan struct{}
	err     error // Cmd.Wait's, set before done is closed
	once    sync.Once
	ownsDir bool
}

// Options says how to start a server. The zero value starts one with no
// persistence in a fresh temporary directory.
//
// The command line is [Conf] --port P --bind 127.0.0.1 --save "" --appendonly
// no --daemonize no --dir DIR [Args...]: later options override earlier
// ones, so Args override the defaults and both override the file's lines.
// redis-sentinel is redis-server with a Conf (which Sentinel rewrites; no
// port line is needed) and Args {"--sentinel"}.
type Options struct {
	Path string // binary; Find's when empty
	Dir  string // working directory; a fresh one (removed at Stop) when empty
	// Conf is a configuration file, passed first as redis-server wants it.
	Conf string
	Args []string // appended to the defaults, so they override them
	// Bare leaves out the defaults but --port: the file or Args say where
	// to bind and write (for a test comparing the file's own settings).
	// Dir is still the working directory.
	Bare bool
	// Exec, when set, is run instead of Path with the same arguments (a
	// wrapper, or limitkv's own binary standing in for Redis).
	Exec string
	Env  []string // added to the test process's environment
	// NoWait makes Start return once the process runs, without waiting for
	// PING: for a server expected to fail at startup (wait on Done, read
	// Log and Err), or one a test watches while it loads.
	NoWait bool
	// Timeout is how long Start waits for PING; 10 s when zero.
	Timeout time.Duration
}

// TempPrefix names the working directories Start makes: PREFIX<pid>-<random>.
const TempPrefix = "limitkv-testredis-"

// Start starts a server on a free loopback port and waits until it answers
// PING. A port taken between choosing and binding is retried. On Linux the
// child gets SIGKILL when this process dies, so it is never left running.
func Start(o Options) (*Proc, error) {
	if o.Path == "" && o.Exec == "" {
		p, err := Find()
		if err != nil {
			return nil, err
		}
		o.Path = p
	}
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		p, err := tryStart(o)
		if err == nil {
			return p, nil
		}
		last = err
		if !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	return nil, last
}

// StartT is Start for a test: it skips or fails as Require does when
// redis-server is missing, fails the test if the server does not start,
// and stops it when the test ends. args are appended to the defaults.
func StartT(t testing.TB, args ...string) *Proc {
	t.Helper()
	return StartWith(t, Options{Args: args})
}

// StartWith is StartT with any Options: Require finds the binary when
// o.Path and o.Exec are empty, and the process is stopped (Stop) when the
// test ends.
func StartWith(t testing.TB, o Options) *Proc {
	t.Helper()
	if o.Path == "" && o.Exec == "" {
		o.Path = Require(t)
	}
	p, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

func tryStart(o Options) (*Proc, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	p := &Proc{Port: port, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Dir: o.Dir,
		log: &logBuffer{}, done: make(chan struct{})}
	if p.Dir == "" {
		removeStaleDirs()
		if p.Dir, err = os.MkdirTemp("", fmt.Sprintf("%s%d-", TempPrefix, os.Getpid())); err != nil {
			return nil, err
		}
		p.ownsDir = true
	}
	args := []string{"--port", strconv.Itoa(port)}
	if !o.Bare {
		args = append(args, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", p.Dir)
	}
	args = append(args, o.Args...)
	if o.Conf != "" {
		args = append([]string{o.Conf}, args...)
	}
	bin := o.Path
	if o.Exec != "" {
		bin = o.Exec
	}
	p.Cmd = exec.Command(bin, args...)
	p.Cmd.Dir = p.Dir
	p.Cmd.Stdout, p.Cmd.Stderr = p.log, p.log
	if len(o.Env) > 0 {
		p.Cmd.Env = append(os.Environ(), o.Env...)
	}
	setDeathSignal(p.Cmd)
	if err := p.Cmd.Start(); err != nil {
		p.removeDir()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { p.err = p.Cmd.Wait(); close(p.done) }()
	if o.NoWait {
		return p, nil
	}
	wait := o.Timeout
	if wait <= 0 {
		wait = 10 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		if p.Exited() {
			p.Stop()
			return nil, fmt.Errorf("%s on port %d exited at startup (%v); log:\n%s", filepath.Base(bin), port, p.err, p.Log())
		}
		if Ping(p.Addr) {
			return p, nil
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("%s on port %d did not answer PING within %v; log:\n%s", filepath.Base(bin), port, wait, p.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed when the process has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is the error Cmd.Wait returned (an exit status), once Done is
// closed; nil before.
func (p *Proc) Err() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}

// Log is the last 64 KB the process wrote to stdout and stderr.
func (p *Proc) Log() string { return p.log.String() }

// Stop ends the process (SIGINT, which Redis handles as SIGTERM, then
// SIGKILL after 3 s) and removes the
// directory Start made. It is safe to call more than once.
func (p *Proc) Stop() {
	p.once.Do(func() {
		if !p.Exited() {
			_ = p.Cmd.Process.Signal(os.Interrupt)
			select {
			case <-p.done:
			case <-time.After(3 * time.Second):
				_ = p.Cmd.Process.Kill()
				<-p.done
			}
		}
		p.removeDir()
	})
}

// Kill ends the process at once (SIGKILL), as a crash would, and keeps its
// directory until Stop.
func (p *Proc) Kill() {
	if !p.Exited() {
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

func (p *Proc) removeDir() {
	if p.ownsDir {
		_ = os.RemoveAll(p.Dir)
	}
}

// Ping reports whether a server at addr answers PING with +PONG.
func Ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// removeStaleDirs deletes working directories left by test processes that
// died without cleaning up (a panic or -timeout kills the child but skips
// the deferred removal).
func removeStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), TempPrefix+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), TempPrefix)
		pidStr, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(d)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// logBuffer is a goroutine-safe sink that keeps the last 64 KB.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *logBuffer) Write(p []byte) (int, error) {
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

func (s *logBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
