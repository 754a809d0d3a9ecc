//go:build unix

package server

import (
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
)

// A client on a Unix socket is "path:0" at both ends, flagged U, and its
// commands reach MONITOR as "[db unix:path]", as in Redis.
func TestServerUnixSocketClient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skip("no unix sockets:", err)
	}
	srv := New(commands.New(config.DefaultConfig(), nil, nil), nil)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	c := wrapConn(t, nc)
	info := c.do("CLIENT", "INFO")
	for _, want := range []string{" addr=" + path + ":0 ", " laddr=" + path + ":0 ", " flags=U "} {
		if !strings.Contains(info, want) {
			t.Errorf("CLIENT INFO %q lacks %q", info, want)
		}
	}
	if r := c.do("MONITOR"); r != "+OK\r\n" {
		t.Fatalf("MONITOR: %q", r)
	}
	c.send("PING")
	if r, err := c.read(2 * time.Second); err != nil || r != "+PONG\r\n" {
		t.Fatalf("PING: %q %v", r, err)
	}
	line, err := c.read(2 * time.Second)
	re := regexp.MustCompile(`^\+\d+\.\d{6} \[0 unix:` + regexp.QuoteMeta(path) + `\] "PING"\r\n$`)
	if err != nil || !re.MatchString(line) {
		t.Errorf("monitor line %q (%v)", line, err)
	}
}

// A client held by CLIENT PAUSE waits without spinning, on both fronts:
// the server keeps serving the others, the held command runs once
// UNPAUSE comes, and CPU use stays near idle meanwhile.
func TestServerPausedClientWaits(t *testing.T) {
	for _, front := range []string{"loop", "goroutine"} {
		t.Run(front, func(t *testing.T) {
			ts := startServer(t, nil, nil, func(s *Server) { s.Front = front })
			admin, held, other := dial(t, ts.addr), dial(t, ts.addr), dial(t, ts.addr)
			if r := admin.do("CLIENT", "PAUSE", "60000", "WRITE"); r != "+OK\r\n" {
				t.Fatalf("PAUSE: %q", r)
			}
			held.send("SET", "k", "v")
			held.send("GET", "k") // pipelined behind the held command
			cpu0 := cpuTime()
			start := time.Now()
			for i := 0; i < 20; i++ {
				if r := other.do("GET", "k"); r != "$-1\r\n" {
					t.Fatalf("GET by another client during the pause: %q", r)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if r, err := held.read(50 * time.Millisecond); err == nil {
				t.Fatalf("held client answered %q during the pause", r)
			}
			if used, wall := cpuTime()-cpu0, time.Since(start); used > wall/2 {
				t.Errorf("%v of CPU in %v of pause: the held client spins", used, wall)
			}
			if r := admin.do("CLIENT", "LIST", "TYPE", "normal"); strings.Count(r, " flags=b ") != 1 {
				t.Errorf("CLIENT LIST during the pause: %q", r)
			}
			if r := admin.do("CLIENT", "UNPAUSE"); r != "+OK\r\n" {
				t.Fatalf("UNPAUSE: %q", r)
			}
			for _, want := range []string{"+OK\r\n", "$1\r\nv\r\n"} {
				if r, err := held.read(2 * time.Second); err != nil || r != want {
					t.Fatalf("held client after UNPAUSE: %q %v, want %q", r, err, want)
				}
			}
			// A held client that goes away is forgotten.
			admin.do("CLIENT", "PAUSE", "60000", "ALL")
			gone := dial(t, ts.addr)
			gone.send("PING")
			time.Sleep(30 * time.Millisecond)
			gone.nc.Close()
			time.Sleep(30 * time.Millisecond)
			ts.E.Lock()
			n := 0
			ts.E.ForEachClient(func(*engine.Client) { n++ })
			ts.E.Unlock()
			if n != 3 {
				t.Errorf("%d clients after a held one left, want 3", n)
			}
		})
	}
}

// cpuTime is the CPU time the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
