package main

import (
	"bufio"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/testpki"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRun runs the server with args in the background and waits until addr
// accepts connections.
func startRun(t *testing.T, addr string, args ...string) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	if !slices.Contains(args, "--dir") {
		// Save points are on by default, as in Redis: keep the snapshot
		// out of the source tree.
		args = append(args, "--dir", t.TempDir())
	}
	go func() { done <- run(append(args, "--log-level", "error")) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("server exited at start: %v", err)
		default:
		}
		// Up once it answers other than LOADING (it loads while it listens).
		if nc, err := net.Dial("tcp", addr); err == nil {
			nc.SetDeadline(time.Now().Add(time.Second))
			io.WriteString(nc, "PING\r\n")
			line, _ := bufio.NewReader(nc).ReadString('\n')
			nc.Close()
			if line != "" && !strings.HasPrefix(line, "-LOADING") {
				return done
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not start listening")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func do(t *testing.T, nc net.Conn, cmd string) string {
	t.Helper()
	nc.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(nc, cmd+"\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return line
}

func waitExit(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server still running 5 s after shutdown")
	}
}

func TestRunTLSAndShutdown(t *testing.T) {
	pki := testpki.New(t)
	cert, key, pool := pki.ServerCert, pki.ServerKey, pki.CAPool
	port, tlsPort := freePort(t), freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	tlsAddr := "127.0.0.1:" + strconv.Itoa(tlsPort)
	done := startRun(t, addr, "--port", strconv.Itoa(port), "--tls-port", strconv.Itoa(tlsPort),
		"--tls-cert-file", cert, "--tls-key-file", key, "--tls-auth-clients", "no")

	plain, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if r := do(t, plain, "PING"); r != "+PONG\r\n" {
		t.Fatalf("plain PING: %q", r)
	}
	// A TLS client that reads nothing must not hold the shutdown up.
	stuck, err := tls.Dial("tcp", tlsAddr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	stuck.Write([]byte(strings.Repeat("PING\r\n", 100000)))

	tc, err := tls.Dial("tcp", tlsAddr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	if r := do(t, tc, "PING"); r != "+PONG\r\n" {
		t.Fatalf("TLS PING: %q", r)
	}
	tc.SetDeadline(time.Now().Add(3 * time.Second))
	io.WriteString(tc, "SHUTDOWN\r\n")
	if b, err := io.ReadAll(tc); len(b) != 0 {
		t.Fatalf("SHUTDOWN answered %q (%v); Redis closes without a reply", b, err)
	}
	waitExit(t, done)
	if nc, err := net.Dial("tcp", addr); err == nil {
		nc.Close()
		t.Fatal("still accepting after shutdown")
	}
}

func TestRunSIGTERM(t *testing.T) {
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	done := startRun(t, addr, "--port", strconv.Itoa(port))
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitExit(t, done)
}

func TestRunFlagErrors(t *testing.T) {
	pki := testpki.New(t)
	cert, key := pki.ServerCert, pki.ServerKey
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-port", "1"}, "tls-cert-file"},
		{[]string{"--tls-port", "1", "--tls-cert-file", cert, "--tls-key-file", key}, "tls-ca-cert-file"},
		{[]string{"--tls-port", "1", "--tls-cert-file", cert, "--tls-key-file", key, "--tls-auth-clients", "sometimes", "--tls-ca-cert-file", cert}, "tls-auth-clients"},
		{[]string{"--port", "0"}, "nothing to listen on"},
		{[]string{"--client-output-buffer-limit", "normal 1mb"}, "Wrong number of arguments"},
		{[]string{"--client-output-buffer-limit", "master 1 1 1"}, "Invalid client class"},
		{[]string{"--gc-percent", "0"}, "positive percentage"},
	} {
		err := run(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error mentioning %q", tc.args, err, tc.want)
		}
	}
}

func TestGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		gogc  string
		args  []string
		want  int
		tuned bool // the tuner may raise it
	}{
		{"", nil, config.DefaultGCPercent, true},
		{"", []string{"--gc-percent", "40"}, 40, false},
		{"77", nil, 77, false},                            // the environment wins over the default...
		{"77", []string{"--gc-percent", "40"}, 40, false}, // ...not over the flag
	} {
		debug.SetGCPercent(77) // what the runtime would have made of GOGC=77
		t.Setenv("GOGC", tc.gogc)
		l, _, err := load(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		tuned := setGCPercent(l.Set, log)
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC=%q %v: GC percent %d, want %d", tc.gogc, tc.args, got, tc.want)
		}
		if tuned != tc.tuned {
			t.Errorf("GOGC=%q %v: tuned %v, want %v", tc.gogc, tc.args, tuned, tc.tuned)
		}
	}
}

// SIGTERM saves when save points are set, as Redis; the next start loads
// the file.
func TestRunSIGTERMSaves(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	done := startRun(t, addr, "--port", strconv.Itoa(port), "--dir", dir, "--save", "3600 1")
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if r := do(t, nc, "SET k v"); r != "+OK\r\n" {
		t.Fatalf("SET: %q", r)
	}
	nc.Close()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitExit(t, done)
	if _, err := os.Stat(dir + "/dump.rdb"); err != nil {
		t.Fatalf("SIGTERM did not save: %v", err)
	}
	done = startRun(t, addr, "--port", strconv.Itoa(port), "--dir", dir, "--save", "")
	nc, err = net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if r := do(t, nc, "GET k"); r != "$1\r\n" {
		t.Fatalf("GET after the restart: %q", r)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitExit(t, done)
}

func TestRunRefusesCorruptFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/dump.rdb", []byte("REDIS0010garbage"), 0o644)
	err := run([]string{"--port", strconv.Itoa(freePort(t)), "--dir", dir, "--log-level", "error"})
	if err == nil || !strings.Contains(err.Error(), "dump.rdb") {
		t.Fatalf("run on a corrupt file: %v", err)
	}
}
