package testredis

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestFindHonoursEnv(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "redis-server")
	cli := filepath.Join(dir, "redis-cli")
	for _, f := range []string{bin, cli} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvServer, bin)
	if p, err := Find(); err != nil || p != bin {
		t.Fatalf("Find = %q, %v; want %q", p, err, bin)
	}
	if p, err := FindTool("redis-cli"); err != nil || p != cli {
		t.Fatalf("FindTool(redis-cli) = %q, %v; want %q", p, err, cli)
	}
	t.Setenv(EnvServer, filepath.Join(dir, "missing"))
	if _, err := Find(); err == nil {
		t.Fatal("Find accepted a missing $" + EnvServer)
	}
}

func TestStartAndStop(t *testing.T) {
	p := StartT(t, "--enable-debug-command", "yes")
	if !Ping(p.Addr) {
		t.Fatal("started server does not answer PING")
	}
	dir := p.Dir
	p.Stop()
	if !p.Exited() {
		t.Fatal("Stop left the process running")
	}
	if Ping(p.Addr) {
		t.Fatal("server still answers after Stop")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Stop left its directory %s: %v", dir, err)
	}
	p.Stop() // twice is fine
}

// A server that cannot start: Start reports its log; with NoWait the
// caller sees it end, with its exit status and log.
func TestStartFailure(t *testing.T) {
	path := Require(t)
	if _, err := Start(Options{Path: path, Args: []string{"--no-such-directive", "1"}}); err == nil ||
		!strings.Contains(err.Error(), "exited at startup") || !strings.Contains(err.Error(), "Bad directive") {
		t.Fatalf("Start of a bad configuration: %v", err)
	}
	p, err := Start(Options{Path: path, Args: []string{"--no-such-directive", "1"}, NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a bad configuration did not end the server")
	}
	if p.Err() == nil || !strings.Contains(p.Log(), "Bad directive") {
		t.Fatalf("Err %v, log:\n%s", p.Err(), p.Log())
	}
}

// Conf comes first and the defaults override it; Bare leaves them out.
func TestConf(t *testing.T) {
	path := Require(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(conf, []byte("appendonly yes\nhz 50\nbind 127.0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := StartWith(t, Options{Path: path, Conf: conf})
	if got := configGet(t, p.Addr, "appendonly") + " " + configGet(t, p.Addr, "hz"); got != "no 50" {
		t.Errorf("appendonly, hz with the defaults: %s", got)
	}
	b := StartWith(t, Options{Path: path, Conf: conf, Dir: dir, Bare: true})
	if got := configGet(t, b.Addr, "appendonly"); got != "yes" {
		t.Errorf("appendonly with Bare: %s", got)
	}
	if b.Cmd.Args[1] != conf || slices.Contains(b.Cmd.Args, "--save") {
		t.Errorf("Bare command line: %q", b.Cmd.Args)
	}
}

// Sentinel is redis-server with a writable Conf and --sentinel.
func TestSentinel(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte("sentinel monitor m 127.0.0.1 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := StartWith(t, Options{Conf: conf, Dir: dir, Args: []string{"--sentinel"}})
	if r := call(t, p.Addr, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "m"); r != "*2\r\n$9\r\n127.0.0.1\r\n$1\r\n1\r\n" {
		t.Errorf("SENTINEL GET-MASTER-ADDR-BY-NAME: %q", r)
	}
}

// Exec runs a wrapper with the same arguments, and Env reaches it.
func TestExecEnv(t *testing.T) {
	path := Require(t)
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "wrap")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\necho \"wrapped $TESTREDIS_MARK\"\nexec "+path+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := StartWith(t, Options{Exec: wrapper, Env: []string{"TESTREDIS_MARK=42"}, Timeout: 20 * time.Second})
	if !strings.Contains(p.Log(), "wrapped 42") {
		t.Errorf("log:\n%s", p.Log())
	}
}

func TestRequireVersion(t *testing.T) {
	path := Require(t)
	v := Version(path)
	if v == "" {
		t.Fatalf("no version from %s", path)
	}
	if got := RequireVersion(t, v[:2]); got != path {
		t.Errorf("RequireVersion(%q) = %q", v[:2], got)
	}
	t.Setenv(EnvRequire, "")
	t.Run("other", func(t *testing.T) {
		defer func() {
			if !t.Skipped() {
				t.Error("RequireVersion(0.0.) did not skip")
			}
		}()
		RequireVersion(t, "0.0.")
	})
}

// call sends one command and reads the reply (a line, or a short
// aggregate), enough for these tests.
func call(t *testing.T, addr string, args ...string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c, "$%d\r\n%s\r\n", len(a), a)
	}
	time.Sleep(50 * time.Millisecond)
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

// configGet is CONFIG GET name's value.
func configGet(t *testing.T, addr, name string) string {
	t.Helper()
	r := strings.Split(call(t, addr, "CONFIG", "GET", name), "\r\n")
	if len(r) < 5 {
		t.Fatalf("CONFIG GET %s: %q", name, r)
	}
	return r[4]
}
