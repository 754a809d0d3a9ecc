package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/testredis"
)

const loadingErr = "-LOADING Redis is loading the dataset in memory\r\n"

// writeDataset saves n keys to dir/dump.rdb with an embedded server.
func writeDataset(t *testing.T, dir string, n int) {
	t.Helper()
	s, err := limitkv.Start(limitkv.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		if err := s.Set(fmt.Sprintf("key:%d", i), strings.Repeat("v", 64)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Do("SAVE"); err != nil {
		t.Fatal(err)
	}
}

// slowLoad are the hidden settings that make a small file take a while to
// load and serve clients every 1 KB of it, on Redis and limitkv alike.
var slowLoad = []string{"--key-load-delay", "100", "--loading-process-events-interval-bytes", "1024"}

// loadingClient dials addr until it connects, then sends PING until the
// reply is not LOADING. It reports the replies to INFO persistence and to
// PING seen while loading, and the first other PING reply.
func loadingClient(t *testing.T, addr string) (info, during, after string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var nc net.Conn
	for {
		var err error
		if nc, err = net.Dial("tcp", addr); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dial %s: %v", addr, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	ask := func(cmd string) string {
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(nc, cmd+"\r\n")
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if line[0] == '$' {
			n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
			body := make([]byte, n+2)
			if _, err := io.ReadFull(br, body); err != nil {
				t.Fatal(err)
			}
			return string(body[:n])
		}
		return line
	}
	for time.Now().Before(deadline) {
		r := ask("PING")
		if r != loadingErr {
			return info, during, r
		}
		during = r
		if info == "" {
			info = ask("INFO persistence")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("still loading after 20 s")
	return
}

// infoFields is the names, in order, of an INFO section's fields.
func infoFields(info string) []string {
	var out []string
	for _, l := range strings.Split(info, "\r\n") {
		if k, _, ok := strings.Cut(l, ":"); ok {
			out = append(out, k)
		}
	}
	return out
}

func infoField(info, name string) string {
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return v
		}
	}
	return ""
}

// TestRunServesLOADING: the server listens while it loads its file and
// answers LOADING meanwhile, with INFO persistence's loading fields, as
// Redis does (the same file, on Redis too when it is installed).
func TestRunServesLOADING(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, dir, 2000)
	fi, err := os.Stat(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	done := make(chan error, 1)
	go func() {
		done <- run(append([]string{"--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--log-level", "error"}, slowLoad...))
	}()
	info, during, after := loadingClient(t, addr)
	if during != loadingErr {
		t.Fatalf("no LOADING while loading (first reply %q)", after)
	}
	if after != "+PONG\r\n" {
		t.Fatalf("PING after the load: %q", after)
	}
	if infoField(info, "loading") != "1" || infoField(info, "loading_total_bytes") != strconv.FormatInt(fi.Size(), 10) {
		t.Errorf("INFO persistence while loading:\n%s", info)
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if r := do(t, nc, "DBSIZE"); r != ":2000\r\n" {
		t.Errorf("DBSIZE after the load: %q", r)
	}
	nc.Close()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitExit(t, done)

	redis, err := testredis.Find()
	if err != nil {
		if testredis.Required() {
			t.Fatal(err)
		}
		t.Log("redis-server not installed: the comparison with Redis did not run")
		return
	}
	// Redis on the same file: the same error, the same INFO fields. NoWait:
	// the client must see it loading.
	p, err := testredis.Start(testredis.Options{Path: redis, Dir: dir, Args: slowLoad, NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	rinfo, rduring, rafter := loadingClient(t, p.Addr)
	if rduring != during || rafter != after {
		t.Errorf("Redis answered %q while loading and %q after; limitkv %q and %q", rduring, rafter, during, after)
	}
	if r, l := strings.Join(infoFields(rinfo), " "), strings.Join(infoFields(info), " "); r != l {
		t.Errorf("INFO persistence fields while loading:\n  redis:   %s\n  limitkv: %s", r, l)
	}
	if r, l := infoField(rinfo, "loading_total_bytes"), infoField(info, "loading_total_bytes"); r != l {
		t.Errorf("loading_total_bytes: redis %s, limitkv %s", r, l)
	}
}

// TestRunShutdownWhileLoading: SIGTERM during the load stops it without
// saving (the half-loaded dataset must never replace the file), as Redis.
func TestRunShutdownWhileLoading(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, dir, 2000)
	path := filepath.Join(dir, "dump.rdb")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	done := make(chan error, 1)
	go func() {
		// Save points set: a shutdown would save, were it not loading.
		done <- run(append([]string{"--port", strconv.Itoa(port), "--dir", dir, "--save", "3600 1", "--log-level", "error"}, slowLoad...))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		nc, err := net.Dial("tcp", addr)
		if err == nil {
			r := do(t, nc, "PING")
			nc.Close()
			if r != loadingErr {
				t.Fatalf("PING at start: %q (the load was over before the test could stop it)", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not listen")
		}
		time.Sleep(2 * time.Millisecond)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitExit(t, done)
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the file changed during a shutdown while loading (err %v)", err)
	}
}

// TestRunRestartUnderLoad: SIGTERM while clients run the seed's check, then
// a restart: every request the server acknowledged is in its window again.
func TestRunRestartUnderLoad(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	args := []string{"--port", strconv.Itoa(port), "--dir", dir, "--save", "3600 1"}
	done := startRun(t, addr, args...)

	const clients, keys = 4, 50
	acked := make([][]string, clients) // "key member" the server answered
	stop := make(chan struct{})
	finished := make(chan struct{}, clients)
	for c := range clients {
		go func() {
			defer func() { finished <- struct{}{} }()
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer nc.Close()
			br := bufio.NewReader(nc)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("{t}:ratelimit:api:user%d", (c*7+i)%keys)
				member := fmt.Sprintf("c%d-%d", c, i)
				nc.SetDeadline(time.Now().Add(5 * time.Second))
				if _, err := fmt.Fprintf(nc, "RL.CHECK %s * 60000 1000000 %s\r\n", key, member); err != nil {
					return
				}
				line, err := br.ReadString('\n')
				if err != nil {
					return // the server went away
				}
				if line[0] != ':' {
					t.Errorf("RL.CHECK answered %q", line)
					return
				}
				acked[c] = append(acked[c], key+" "+member)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitExit(t, done)
	close(stop)
	for range clients {
		<-finished
	}

	done = startRun(t, addr, append(args[:len(args):len(args)], "--save", "")...)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	total := 0
	for c := range clients {
		for _, km := range acked[c] {
			key, member, _ := strings.Cut(km, " ")
			nc.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(nc, "ZSCORE %s %s\r\n", key, member)
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if line == "$-1\r\n" {
				t.Fatalf("acknowledged request %s of %s is not in its window after the restart", member, key)
			}
			br.ReadString('\n') // the score
			total++
		}
	}
	if total == 0 {
		t.Fatal("no request was acknowledged before the SIGTERM")
	}
	t.Logf("%d acknowledged requests, all in their windows after the restart", total)
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitExit(t, done)
}
