package config

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// The stock files: Redis 7.0.15's example redis.conf (the source tree at
// the tag) and the one Debian's redis-server 7.0.15 package installs.
var stockConfs = []string{"redis-7.0.15.conf", "debian-redis.conf"}

// hostPaths are the lines of the stock files that name the host's own
// places (Debian's /var/lib/redis, /var/log/redis, /run/redis): a test
// cannot rely on them, and Redis would write there. Only those are moved
// to the test's directory; every other line is the file's.
var hostPaths = regexp.MustCompile(`(?m)^(dir|logfile|pidfile) .*$`)

func stockConf(t *testing.T, name string) (path, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	text := hostPaths.ReplaceAllStringFunc(string(b), func(line string) string {
		switch strings.Fields(line)[0] {
		case "dir":
			return "dir " + dir
		case "logfile":
			return `logfile ""`
		}
		return "pidfile " + filepath.Join(dir, "redis.pid")
	})
	path = filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

// stockArgs are what Debian's redis-server.service passes after the file.
var stockArgs = []string{"--supervised", "systemd", "--daemonize", "no"}

// TestStockConfsLoad loads the stock files unchanged (but for hostPaths)
// and checks that every directive they set reads back through CONFIG GET's
// table as the file has it.
func TestStockConfsLoad(t *testing.T) {
	for _, name := range stockConfs {
		t.Run(name, func(t *testing.T) {
			path, _ := stockConf(t, name)
			l, err := load(t, path, stockArgs...)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			checked := 0
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || line[0] == '#' {
					continue
				}
				args, _ := SplitArgs(line)
				p, _ := ConfigLookup(args[0])
				if p == nil {
					t.Errorf("%q: not in the config table", line)
					continue
				}
				switch args[0] {
				case "save", "client-output-buffer-limit", "daemonize", "supervised", "dir", "dbfilename":
					continue // several lines add up, or overridden by stockArgs
				}
				want := strings.Join(args[1:], " ")
				if n, ok := Memtoull(want); ok && strings.IndexFunc(want, func(r rune) bool { return r > '9' }) >= 0 {
					want = strconv.FormatUint(n, 10) // 64mb reads back in bytes
				}
				if got := p.Get(l.Cfg); got != want {
					t.Errorf("%q reads back as %q", line, got)
				}
				checked++
			}
			if checked < 60 {
				t.Errorf("only %d directives checked", checked)
			}
		})
	}
}

// TestStockConfsLikeRedis starts redis-server on each stock file with the
// same arguments as limitkv's loader and compares every setting's CONFIG GET
// value (CONFIG GET * on Redis) with limitkv's.
func TestStockConfsLikeRedis(t *testing.T) {
	bin := testredis.Require(t)
	for _, name := range stockConfs {
		t.Run(name, func(t *testing.T) {
			path, dir := stockConf(t, name)
			// Bare: the file's own settings, but the port.
			p := testredis.StartWith(t, testredis.Options{Path: bin, Conf: path, Dir: dir, Bare: true, Args: stockArgs})
			args := append([]string{"--port", strconv.Itoa(p.Port)}, stockArgs...)
			want := redisConfigAll(t, p.Addr)
			if len(want) < 190 {
				t.Fatalf("CONFIG GET * on redis-server: %d settings", len(want))
			}

			l, err := load(t, path, args...)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range want {
				p, _ := ConfigLookup(k)
				if p == nil {
					t.Errorf("%s: limitkv has no such setting", k)
					continue
				}
				if got := p.Get(l.Cfg); got != v {
					t.Errorf("%s: redis %q, limitkv %q", k, v, got)
				}
			}
		})
	}
}

// redisConfigAll is CONFIG GET * on a server that is starting.
func redisConfigAll(t *testing.T, addr string) map[string]string {
	t.Helper()
	var nc net.Conn
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if nc, err = net.Dial("tcp", addr); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(nc, "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$1\r\n*\r\n")
	br := bufio.NewReader(nc)
	line := func() string {
		s, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimRight(s, "\r\n")
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(line(), "*"))
	out := map[string]string{}
	for i := 0; i < n/2; i++ {
		var kv [2]string
		for j := range kv {
			size, _ := strconv.Atoi(strings.TrimPrefix(line(), "$"))
			b := make([]byte, size+2)
			if _, err := io.ReadFull(br, b); err != nil {
				t.Fatal(err)
			}
			kv[j] = string(b[:size])
		}
		out[kv[0]] = kv[1]
	}
	return out
}
