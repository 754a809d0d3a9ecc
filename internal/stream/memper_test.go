package stream

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/testredis"
)

// memStreams and memEntries size the memory measurement: 100 streams of
// 10,000 entries "user <12 bytes> action login".
const (
	memStreams = 100
	memEntries = 10000
	memBaseMs  = 1700000000000
)

func memUser(i int) string { return fmt.Sprintf("u%011d", i) }

// TestMemoryPerEntry reports the Go heap bytes per entry of 100 streams of
// 10,000 entries, and Redis's used_memory per entry for the same XADDs.
// It runs when LIMITKV_STREAM_MEM=1 (it takes a few seconds).
func TestMemoryPerEntry(t *testing.T) {
	if os.Getenv("LIMITKV_STREAM_MEM") != "1" {
		t.Skip("set LIMITKV_STREAM_MEM=1")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	streams := make([]*Stream, memStreams)
	for k := range streams {
		s := New()
		for i := 0; i < memEntries; i++ {
			f := [][]byte{[]byte("user"), []byte(memUser(i)), []byte("action"), []byte("login")}
			if _, err := s.Add(AddID{ID: ID{memBaseMs + uint64(i), 0}}, f, 0, DefaultLimits); err != nil {
				t.Fatal(err)
			}
		}
		streams[k] = s
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	total := float64(memStreams * memEntries)
	t.Logf("limitkv: %.2f heap bytes per entry", float64(after.HeapAlloc-before.HeapAlloc)/total)
	runtime.KeepAlive(streams)

	if _, err := testredis.Find(); err != nil {
		t.Logf("no redis-server: %v", err)
		return
	}
	p := testredis.StartT(t)
	c, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	cmd := func(args ...string) {
		fmt.Fprintf(w, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(w, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	readReply := func() string {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line[0] == '$' {
			n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				t.Fatal(err)
			}
			return string(buf[:n])
		}
		if line[0] == '-' {
			t.Fatal(line)
		}
		return line
	}
	usedMemory := func() float64 {
		cmd("INFO", "memory")
		w.Flush()
		for _, l := range strings.Split(readReply(), "\r\n") {
			if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
				f, _ := strconv.ParseFloat(v, 64)
				return f
			}
		}
		t.Fatal("no used_memory")
		return 0
	}
	base := usedMemory()
	for k := 0; k < memStreams; k++ {
		key := fmt.Sprintf("s%d", k)
		for i := 0; i < memEntries; i++ {
			cmd("XADD", key, fmt.Sprintf("%d-0", memBaseMs+i), "user", memUser(i), "action", "login")
		}
		w.Flush()
		for i := 0; i < memEntries; i++ {
			readReply()
		}
	}
	t.Logf("redis: %.2f used_memory bytes per entry", (usedMemory()-base)/total)
}
