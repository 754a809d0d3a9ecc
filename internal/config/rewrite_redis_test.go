package config

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// TestRewriteLikeRedis makes the same changes to the same file on a real
// redis-server and on limitkv's loader and compares the rewritten files:
// the lines kept in place exactly, the appended ones as a set (Redis
// appends in its hash table's order). Redis also appends lines limitkv
// does not write: its ACL user and latency-tracking-info-percentiles.
func TestRewriteLikeRedis(t *testing.T) {
	path, err := testredis.Find()
	if err != nil {
		t.Skipf("no redis-server: %v", err)
	}
	const file = `# settings
maxclients 10
save 3600 1
save 300 100
hz 10
zset-max-ziplist-entries 7
client-output-buffer-limit replica 256mb 64mb 60
replicaof 127.0.0.1 2

timeout 0
slave-announce-port 7000
`
	sets := [][2]string{{"maxclients", "77"}, {"save", "60 5"}, {"maxmemory", "100mb"},
		{"client-output-buffer-limit", "normal 1mb 2mb 3"}, {"requirepass", `a b"c`},
		{"replica-announce-ip", "10.1.2.3"}, {"replica-announced", "no"}}

	// Redis.
	rdir := t.TempDir()
	rconf := filepath.Join(rdir, "r.conf")
	os.WriteFile(rconf, []byte(file), 0o644)
	// Bare: the command line limitkv's loader gets below, nothing more.
	p := testredis.StartWith(t, testredis.Options{Path: path, Conf: rconf, Dir: rdir, Bare: true,
		Args: []string{"--bind", "127.0.0.1", "--dir", rdir}})
	port := p.Port
	nc, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	call := func(args ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		nc.Write([]byte(b.String()))
		line, _ := br.ReadString('\n')
		return line
	}
	for _, s := range sets {
		if r := call("CONFIG", "SET", s[0], s[1]); r != "+OK\r\n" {
			t.Fatalf("redis CONFIG SET %s: %q", s[0], r)
		}
	}
	call("AUTH", `a b"c`)
	// The role is rewritten in place: replicaof names the master REPLICAOF
	// set (nobody listens on port 1; the line is all that matters).
	if r := call("REPLICAOF", "127.0.0.1", "1"); r != "+OK\r\n" {
		t.Fatalf("redis REPLICAOF: %q", r)
	}
	if r := call("CONFIG", "REWRITE"); r != "+OK\r\n" {
		t.Fatalf("redis CONFIG REWRITE: %q", r)
	}
	want, _ := os.ReadFile(rconf)

	// limitkv, on a copy of the same file in the same directory layout.
	lconf := filepath.Join(rdir, "l.conf")
	os.WriteFile(lconf, []byte(file), 0o644)
	l, err := load(t, lconf, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", rdir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if known, e := l.Cfg.ApplyDirective(s[0], []string{s[1]}, nil); !known || e != "" {
			t.Fatalf("set %s: %v %s", s[0], known, e)
		}
	}
	if known, e := l.Cfg.ApplyDirective("replicaof", []string{"127.0.0.1", "1"}, nil); !known || e != "" {
		t.Fatalf("replicaof: %v %s", known, e)
	}
	if err := Rewrite(lconf, l.Cfg, l.Set); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(lconf)

	split := func(b []byte) (kept, appended []string) {
		head, tail, _ := strings.Cut(string(b), signature+"\n")
		for _, line := range strings.Split(strings.TrimSpace(tail), "\n") {
			if strings.HasPrefix(line, "user ") || strings.HasPrefix(line, "latency-tracking-info-percentiles ") {
				continue
			}
			appended = append(appended, line)
		}
		slices.Sort(appended)
		return strings.Split(head, "\n"), appended
	}
	wk, wa := split(want)
	gk, ga := split(got)
	if !slices.Equal(wk, gk) {
		t.Errorf("lines in place differ:\nredis:\n%s\nlimitkv:\n%s", strings.Join(wk, "\n"), strings.Join(gk, "\n"))
	}
	if !slices.Equal(wa, ga) {
		t.Errorf("appended lines differ:\nredis:   %q\nlimitkv: %q", wa, ga)
	}
}
