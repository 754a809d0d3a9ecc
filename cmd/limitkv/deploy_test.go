package main

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The binary as redis-server: a unix socket with unixsocketperm's bits,
// removed at shutdown, and a logfile in Redis's format (or slog's, with
// log-format text) that starts as Redis's does.
func TestRunUnixSocketAndRedisLog(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   []*regexp.Regexp
	}{
		{"", []*regexp.Regexp{
			regexp.MustCompile(`^\d+:C \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo$`),
			regexp.MustCompile(`^\d+:C .* # Redis version=7\.0\.15, bits=64, commit=00000000, modified=0, pid=\d+, just started$`),
			regexp.MustCompile(`^\d+:C .* # Configuration loaded$`),
			regexp.MustCompile(`^\d+:M .* \* Running mode=standalone, port=\d+\.$`),
			regexp.MustCompile(`^\d+:M .* # Server initialized$`),
			regexp.MustCompile(`^\d+:M .* \* Ready to accept connections$`),
			regexp.MustCompile(`^\d+:M .* \* The server is now ready to accept connections at .*/s\.sock$`),
		}},
		{"text", []*regexp.Regexp{
			regexp.MustCompile(`^time=\S+ level=WARN msg="oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo"$`),
			regexp.MustCompile(`^time=\S+ level=INFO msg="Ready to accept connections"$`),
		}},
	} {
		t.Run("format="+tc.format, func(t *testing.T) {
			dir := t.TempDir()
			sock, logfile := filepath.Join(dir, "s.sock"), filepath.Join(dir, "r.log")
			args := []string{"--port", strconv.Itoa(freePort(t)), "--dir", dir, "--save", "",
				"--unixsocket", sock, "--unixsocketperm", "700", "--logfile", logfile}
			if tc.format != "" {
				args = append(args, "--log-format", tc.format)
			}
			done := make(chan error, 1)
			go func() { done <- run(args) }()
			var nc net.Conn
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var err error
				if nc, err = net.Dial("unix", sock); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no unix socket: %v", err)
				}
			}
			defer nc.Close()
			if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o700 {
				t.Errorf("socket mode %v %v, want 0700", st.Mode(), err)
			}
			if r := do(t, nc, "PING"); r != "+PONG\r\n" {
				t.Fatalf("PING over the socket: %q", r)
			}
			nc.Write([]byte("SHUTDOWN NOSAVE\r\n")) // closes without a reply
			waitExit(t, done)
			if _, err := os.Lstat(sock); !os.IsNotExist(err) {
				t.Errorf("socket left after shutdown: %v", err)
			}
			b, err := os.ReadFile(logfile)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(b), "\n")
			i := 0
			for _, l := range lines {
				if i < len(tc.want) && tc.want[i].MatchString(l) {
					i++
				}
			}
			if i < len(tc.want) {
				t.Errorf("log lacks, in order, a line like %s:\n%s", tc.want[i], b)
			}
		})
	}
}

// CONFIG SET loglevel changes what the log keeps at once, in either
// format: a script's LOG_DEBUG line is dropped at notice and written once
// the level is debug, and a warning is dropped at the level nothing.
func TestConfigSetLogLevelIsLive(t *testing.T) {
	for _, format := range []string{"redis", "text"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			port := freePort(t)
			logfile := filepath.Join(dir, "r.log")
			done := make(chan error, 1)
			go func() {
				done <- run([]string{"--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--logfile", logfile, "--log-format", format})
			}()
			var nc net.Conn
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var err error
				if nc, err = net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("not listening: %v", err)
				}
			}
			defer nc.Close()
			logLine := func(level, msg string) {
				script := `EVAL "redis.log(redis.` + level + `, '` + msg + `') return 1" 0`
				if r := do(t, nc, script); r != ":1\r\n" {
					t.Fatalf("%s: %q", script, r)
				}
			}
			logLine("LOG_DEBUG", "dropped-at-notice")
			if r := do(t, nc, "CONFIG SET loglevel debug"); r != "+OK\r\n" {
				t.Fatalf("CONFIG SET loglevel debug: %q", r)
			}
			logLine("LOG_DEBUG", "kept-at-debug")
			if r := do(t, nc, "CONFIG SET loglevel warning"); r != "+OK\r\n" {
				t.Fatalf("CONFIG SET loglevel warning: %q", r)
			}
			logLine("LOG_NOTICE", "dropped-at-warning")
			logLine("LOG_WARNING", "kept-at-warning")
			nc.Write([]byte("SHUTDOWN NOSAVE\r\n"))
			waitExit(t, done)
			b, err := os.ReadFile(logfile)
			if err != nil {
				t.Fatal(err)
			}
			for msg, want := range map[string]bool{"dropped-at-notice": false, "kept-at-debug": true,
				"dropped-at-warning": false, "kept-at-warning": true} {
				if strings.Contains(string(b), msg) != want {
					t.Errorf("%s in the log: %v, want %v\n%s", msg, !want, want, b)
				}
			}
		})
	}
}

// CONFIG SET port moves the server to another port as Redis's
// changeListenPort does: the new port serves, the old one no longer
// accepts, connections already open stay; a port that cannot be had is
// refused with Redis's error and the server stays where it was.
func TestConfigSetPortRebinds(t *testing.T) {
	port, next := freePort(t), freePort(t)
	done := startRun(t, "127.0.0.1:"+strconv.Itoa(port), "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "")
	old, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if r := do(t, old, "CONFIG SET port "+strconv.Itoa(next)); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET port: %q", r)
	}
	nc, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(next))
	if err != nil {
		t.Fatalf("the new port: %v", err)
	}
	defer nc.Close()
	if r := do(t, nc, "PING"); r != "+PONG\r\n" {
		t.Fatalf("PING on the new port: %q", r)
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		c.Close()
		t.Fatal("the old port still accepts")
	}
	if r := do(t, old, "PING"); r != "+PONG\r\n" {
		t.Fatalf("PING on the connection made before: %q", r)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	bp := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	want := "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n"
	if r := do(t, nc, "CONFIG SET port "+bp); r != want {
		t.Fatalf("CONFIG SET port (busy): %q", r)
	}
	if r := do(t, nc, "CONFIG GET port"); !strings.HasPrefix(r, "*2") {
		t.Fatalf("CONFIG GET port: %q", r)
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(next)); err != nil {
		t.Fatalf("the port after a refused move: %v", err)
	} else {
		c.Close()
	}
	nc.Write([]byte("SHUTDOWN NOSAVE\r\n"))
	waitExit(t, done)
}
