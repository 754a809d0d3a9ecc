package clusterstate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/internal/testredis"
)

// startOnConfig starts redis-server in cluster mode on the nodes.conf at
// path (in its own directory dir), without waiting for it to serve.
func startOnConfig(t *testing.T, bin, dir, path string, wait bool) *testredis.Proc {
	t.Helper()
	cport, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return testredis.StartWith(t, testredis.Options{Path: bin, Dir: dir, NoWait: !wait, Args: []string{
		"--cluster-enabled", "yes", "--cluster-config-file", path,
		"--cluster-port", strconv.Itoa(cport), "--cluster-node-timeout", "60000"}})
}

// exitLog waits for a server expected to refuse to start and returns its
// log.
func exitLog(t *testing.T, p *testredis.Proc) string {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("redis-server kept running; log:\n%s", p.Log())
	}
	return p.Log()
}

// TestGoldenCorruptConfig: for each file Redis refuses with a message, it
// exits logging the very text of our *ConfigError.
func TestGoldenCorruptConfig(t *testing.T) {
	bin := testredis.RequireVersion(t, "7.0.")
	for _, tc := range corruptFiles {
		if !tc.redisSays {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file), LoadOptions{})
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "nodes.conf"), []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			log := exitLog(t, startOnConfig(t, bin, dir, "nodes.conf", false))
			if !strings.Contains(log, err.Error()) {
				t.Errorf("Redis's log lacks %q:\n%s", err, log)
			}
		})
	}
}

// oddConfig is a file Redis accepts although it never writes one like it:
// blank lines, a vars line first with an unknown variable and a
// currentEpoch below a node's epoch, flags in any case, a node without a
// bus port, slot fields C's atoi reads in its way (-99 is 0-99, 5000x is
// 5000, abc is 0, a range backwards is empty), a node named only by an
// open slot, and myself a replica (so that the state is evaluated at once,
// without a master's 2 s delay). The addresses are TEST-NET-1's, where
// Redis's connection attempts go nowhere.
const oddConfig = "\n" +
	"VARS lastVoteEpoch 2 CurrentEpoch 4 futureVar 1\n" +
	"cccccccccccccccccccccccccccccccccccccccc 192.0.2.3:7002 SLAVE bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 17 99 0 connected\n" +
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 192.0.2.1:7000@17000 MySelf,slave bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 0 0 3 connected [5->-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb] [7-<-dddddddddddddddddddddddddddddddddddddddd]\n" +
	"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 192.0.2.2:7001@17001,b.example master,fail? - 0 0 7 connected -99 50 5000x abc 200-201junk 16383-16380\n" +
	"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee 192.0.2.5:7005@17005 master,fail,nofailover - 0 5 2 disconnected 300-310\n" +
	"\n\n"

// TestGoldenOddConfig: Redis reads oddConfig into the state we read: the
// same CLUSTER NODES (times and links, which its bus changes at once,
// masked) and the same CLUSTER INFO.
func TestGoldenOddConfig(t *testing.T) {
	bin := testredis.RequireVersion(t, "7.0.")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nodes.conf"), []byte(oddConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startOnConfig(t, bin, dir, "nodes.conf", true)
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer rdb.Close()
	ctx := context.Background()
	var info string
	waitFor(t, "Redis's first clusterUpdateState", func() bool {
		info = rdb.Do(ctx, "CLUSTER", "INFO").Val().(string)
		return !strings.Contains(info, "cluster_size:1\r\n")
	})
	nodes := rdb.Do(ctx, "CLUSTER", "NODES").Val().(string)

	const now = 1_800_000_000_000
	s, err := Parse([]byte(oddConfig), LoadOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	// What clusterInit does next: myself takes the ports it serves on.
	f := strings.Fields(nodes[strings.Index(nodes, s.Myself.ID()):])
	port, bus, _ := strings.Cut(f[1][strings.LastIndexByte(f[1], ':')+1:], "@")
	s.Myself.Port, _ = strconv.Atoi(port)
	s.Myself.CPort, _ = strconv.Atoi(bus)
	s.UpdateState(now)

	// Redis lists its hash table's order, which no file it wrote records
	// here: compare the lines as sets.
	if got, want := sortedLines(maskRuntime(s.ClusterNodes(false))), sortedLines(maskRuntime(nodes)); got != want {
		t.Errorf("CLUSTER NODES:\n got: %q\nwant: %q", got, want)
	}
	head := func(info string) string {
		return strings.Join(strings.SplitAfter(info, "\r\n")[:9], "")
	}
	if got, want := head(s.Info()), head(info); got != want {
		t.Errorf("CLUSTER INFO:\n got: %q\nwant: %q", got, want)
	}
}

// maskRuntime masks what the bus changes: the times and the link state.
var runtimeFields = regexp.MustCompile(`(?m)^(\S+ \S+ \S+ \S+) \d+ \d+ (\d+) \S+`)

func maskRuntime(s string) string {
	return runtimeFields.ReplaceAllString(s, "$1 <ping> <pong> $2 <link>")
}

func sortedLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// TestGoldenConfigLock: our lock and Redis's exclude each other, with
// Redis's words, and ours survives Save's replacement of the file.
func TestGoldenConfigLock(t *testing.T) {
	bin := testredis.RequireVersion(t, "7.0.")
	path := filepath.Join(t.TempDir(), "nodes.conf")

	holder := startOnConfig(t, bin, t.TempDir(), path, true)
	_, err := LockConfig(path)
	if err == nil {
		t.Fatal("LockConfig succeeded on a file redis-server holds")
	}
	second := exitLog(t, startOnConfig(t, bin, t.TempDir(), path, false))
	if !strings.Contains(second, err.Error()) {
		t.Errorf("Redis refused a second node with other words than ours (%q):\n%s", err, second)
	}
	holder.Stop()

	cf, err := LockConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	s, err := cf.Load(LoadOptions{Now: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.CurrentEpoch++
	if err := cf.Save(s, true); err != nil {
		t.Fatal(err)
	}
	log := exitLog(t, startOnConfig(t, bin, t.TempDir(), path, false))
	if !strings.Contains(log, lockedMsg(path)) {
		t.Errorf("Redis started on the file we hold (saved once):\n%s", log)
	}
	var ce *ConfigError
	if _, err := Load(path, LoadOptions{}); errors.As(err, &ce) || err != nil {
		t.Errorf("the saved file does not load: %v", err)
	}
}
