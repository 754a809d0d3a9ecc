package rdb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The oracle tests need redis-server (and redis-check-rdb) 7.0.x. Without
// them they skip, unless LIMITKV_REQUIRE_REDIS=1 (CI), which makes that a
// failure. LIMITKV_REDIS_SERVER=/path picks the binary.

func redisBinary(t testing.TB, name string) string {
	t.Helper()
	var path string
	if name == "redis-server" {
		if p := os.Getenv("LIMITKV_REDIS_SERVER"); p != "" {
			if !fileExists(p) {
				requireOrSkip(t, fmt.Sprintf("LIMITKV_REDIS_SERVER=%s does not exist", p))
			}
			path = p
		}
	} else if s := os.Getenv("LIMITKV_REDIS_SERVER"); s != "" {
		if p := filepath.Join(filepath.Dir(s), name); fileExists(p) {
			path = p
		}
	}
	if path == "" {
		if p, err := exec.LookPath(name); err == nil {
			path = p
		} else if _, err := os.Stat("/usr/bin/" + name); err == nil {
			path = "/usr/bin/" + name
		}
	}
	if path == "" {
		requireOrSkip(t, name+" not found (apt-get install redis-server redis-tools)")
	}
	if name == "redis-server" {
		out, _ := exec.Command(path, "--version").Output()
		if !strings.Contains(string(out), "v=7.0.") {
			requireOrSkip(t, fmt.Sprintf("%s is not Redis 7.0.x (%s): the byte-for-byte comparisons need 7.0's RDB version 10", path, strings.TrimSpace(string(out))))
		}
	}
	return path
}

// requireOrSkip skips the test, or fails it under LIMITKV_REQUIRE_REDIS=1.
func requireOrSkip(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("LIMITKV_REQUIRE_REDIS") == "1" {
		t.Fatalf("LIMITKV_REQUIRE_REDIS=1 but %s", msg)
	}
	t.Skip(msg + ": skipping this real-Redis test (LIMITKV_REQUIRE_REDIS=1 makes it a failure)")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

type redisProc struct {
	t    testing.TB
	addr string
	dir  string
	cmd  *exec.Cmd
	log  bytes.Buffer
	conn *respConn
	done chan struct{}
}

// startRedis starts redis-server on a free loopback port with --dir dir and
// extra arguments, and stops it (by its pid) when the test ends.
func startRedis(t testing.TB, dir string, extra ...string) *redisProc {
	t.Helper()
	bin := redisBinary(t, "redis-server")
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		p := &redisProc{t: t, addr: "127.0.0.1:" + strconv.Itoa(port), dir: dir, done: make(chan struct{})}
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--daemonize", "no", "--dir", dir, "--enable-debug-command", "yes"}, extra...)
		p.cmd = exec.Command(bin, args...)
		p.cmd.Stdout = &p.log
		p.cmd.Stderr = &p.log
		setDeathSignal(p.cmd)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { p.cmd.Wait(); close(p.done) }()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-p.done:
				lastErr = fmt.Errorf("redis-server exited: %s", p.log.String())
			default:
			}
			if lastErr != nil {
				break
			}
			c, err := net.DialTimeout("tcp", p.addr, 200*time.Millisecond)
			if err == nil {
				p.conn = &respConn{c: c, r: bufio.NewReader(c)}
				if r, err := p.conn.do("PING"); err == nil && r == "PONG" {
					t.Cleanup(p.stop)
					return p
				}
				c.Close()
			}
			time.Sleep(20 * time.Millisecond)
		}
		p.stop()
		if lastErr == nil {
			lastErr = errors.New("redis-server did not answer PING")
		}
		if !strings.Contains(lastErr.Error(), "in use") {
			break
		}
	}
	t.Fatal(lastErr)
	return nil
}

func (p *redisProc) stop() {
	if p.conn != nil {
		p.conn.c.Close()
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// do runs a command and fails the test on an error reply.
func (p *redisProc) do(args ...any) any {
	p.t.Helper()
	r, err := p.conn.do(args...)
	if err != nil {
		p.t.Fatalf("%v: %v", args, err)
	}
	return r
}

// respConn is a minimal RESP2 client: replies are string, int64, nil or []any;
// error replies are returned as errors.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func (c *respConn) do(args ...any) (any, error) {
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		var s []byte
		switch v := a.(type) {
		case string:
			s = []byte(v)
		case []byte:
			s = v
		case int:
			s = strconv.AppendInt(nil, int64(v), 10)
		case int64:
			s = strconv.AppendInt(nil, v, 10)
		default:
			s = fmt.Append(nil, v)
		}
		b = fmt.Appendf(b, "$%d\r\n", len(s))
		b = append(b, s...)
		b = append(b, "\r\n"...)
	}
	c.c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.c.Write(b); err != nil {
		return nil, err
	}
	return c.read()
}

func (c *respConn) read() (any, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return nil, errors.New(line[1:])
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			v, err := c.read()
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad reply %q", line)
}
