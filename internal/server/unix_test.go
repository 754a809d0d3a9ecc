//go:build unix

package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/redis/go-redis/v9"
)

// A unix socket served on either front: go-redis works over it, clients
// show as Redis shows them, the file has unixsocketperm's bits, a stale
// file in the way is replaced, and Close removes the file.
func TestUnixSocketListener(t *testing.T) {
	for _, tc := range []struct {
		front string
		perm  os.FileMode
		stale bool // a regular file, then a dead socket, left at the path
	}{
		{"loop", 0o700, true},
		{"goroutine", 0o770, true},
		{"loop", 0o755, false},
	} {
		t.Run(tc.front+"/"+tc.perm.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "redis.sock")
			if tc.stale {
				// A socket whose server died: bound, never unlinked.
				dead, err := net.Listen("unix", path)
				if err != nil {
					t.Skip("no unix sockets:", err)
				}
				dead.(*net.UnixListener).SetUnlinkOnClose(false)
				dead.Close()
				if _, err := net.Dial("unix", path); err == nil {
					t.Fatal("the stale socket still accepts")
				}
			}
			ln, err := ListenUnix(path, tc.perm)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != tc.perm {
				t.Fatalf("socket file: %v %v, want a socket with %v", st.Mode(), err, tc.perm)
			}
			srv := New(commands.New(config.DefaultConfig(), nil, nil), nil)
			srv.Front = tc.front
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			rdb := redis.NewClient(&redis.Options{Network: "unix", Addr: path, Protocol: 2})
			defer rdb.Close()
			ctx := context.Background()
			if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
				t.Fatalf("GET: %q %v", v, err)
			}
			info, err := rdb.Do(ctx, "CLIENT", "INFO").Text()
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{" addr=" + path + ":0 ", " laddr=" + path + ":0 ", " flags=U "} {
				if !strings.Contains(info, want) {
					t.Errorf("CLIENT INFO %q lacks %q", info, want)
				}
			}
			if list, _ := rdb.ClientList(ctx).Result(); !strings.Contains(list, " addr="+path+":0 ") {
				t.Errorf("CLIENT LIST %q", list)
			}
			srv.mu.Lock()
			onLoop := srv.loop != nil
			srv.mu.Unlock()
			if onLoop != (tc.front == "loop") {
				t.Errorf("front %s: the event loop started: %v", tc.front, onLoop)
			}
			rdb.Close()
			srv.Close()
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Serve did not return after Close")
			}
			if _, err := os.Lstat(path); !os.IsNotExist(err) {
				t.Errorf("socket file after Close: %v", err)
			}
		})
	}
}

// Whatever is at the path goes, as Redis's unlink before bind; a path
// longer than sun_path fails with Redis's text.
func TestListenUnixPaths(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := ListenUnix(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode()&os.ModeSocket == 0 {
		t.Errorf("%v %v: the regular file was not replaced by the socket", st.Mode(), err)
	}
	// perm 0 leaves the umask's bits: no chmod.
	um := syscall.Umask(0)
	syscall.Umask(um)
	if got, want := st.Mode().Perm(), os.FileMode(0o777&^um); got != want {
		t.Errorf("perm 0: %v, want the umask's %v", got, want)
	}
	ln.Close()
	long := filepath.Join(dir, strings.Repeat("x", 120))
	if _, err := ListenUnix(long, 0o700); err == nil || !strings.Contains(err.Error(), "unix socket path too long") {
		t.Errorf("long path: %v", err)
	}
}
