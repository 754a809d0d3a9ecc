package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Raw-socket tests of the protocol front. Each input is written to a fresh
// connection to each server; the test compares the exact reply bytes, whether
// the server then closes the connection, and afterwards requires a NEW
// connection to limitkv to answer +PONG (the process survived).

// protoCase is one raw protocol input.
type protoCase struct {
	name    string
	chunks  []string // written in order, with a short pause between chunks
	replies int      // complete replies to read before checking for close
}

// protoOutcome is what one server did with a protoCase.
type protoOutcome struct {
	replies string // raw bytes of the replies read
	readErr string // "" or the transport error that stopped reading
	closed  bool   // server closed the connection after the replies
	extra   string // bytes received after the expected replies
}

func (o protoOutcome) String() string {
	s := fmt.Sprintf("replies=%q closed=%v", truncate([]byte(o.replies), 300), o.closed)
	if o.readErr != "" {
		s += " error=" + o.readErr
	}
	if o.extra != "" {
		s += fmt.Sprintf(" extra=%q", truncate([]byte(o.extra), 300))
	}
	return s
}

// closeWait is how long a connection must stay silent to count as "still open".
const closeWait = 300 * time.Millisecond

func (pc protoCase) run(name, addr string) protoOutcome {
	c, err := dialRawConn(name, addr)
	if err != nil {
		return protoOutcome{readErr: err.Error()}
	}
	defer c.Close()
	c.Timeout = 2 * time.Second
	// Write in the background: a server that stops reading must not block the test.
	go func() {
		for i, ch := range pc.chunks {
			if i > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			if c.WriteRaw([]byte(ch)) != nil {
				return
			}
		}
	}()
	var o protoOutcome
	var buf bytes.Buffer
read:
	for i := 0; i < pc.replies; i++ {
		r, err := c.ReadReply()
		if err != nil {
			switch {
			case errors.Is(err, ErrClosed):
				o.readErr = "closed"
			case errors.Is(err, ErrTimeout):
				o.readErr = "timeout"
			default:
				o.readErr = err.Error()
			}
			o.closed = o.readErr == "closed"
			break read
		}
		buf.Write(r.Raw)
	}
	o.replies = buf.String()
	if o.readErr == "" {
		closed, extra := c.AwaitClose(closeWait)
		o.closed, o.extra = closed, string(extra)
	}
	return o
}

func bigDigits(n int) string { return strings.Repeat("1", n) }

func protocolCases() []protoCase {
	const big = 70 << 10
	pipeline := strings.Repeat("*1\r\n$4\r\nPING\r\n", 1000)
	var byteByByte []string
	for _, b := range []byte("*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n") {
		byteByByte = append(byteByByte, string(b))
	}
	return []protoCase{
		{"bulk length int64 max", []string{"*1\r\n$9223372036854775807\r\nx\r\n"}, 1},
		{"bulk length negative", []string{"*1\r\n$-5\r\n"}, 1},
		{"bulk length not a number", []string{"*1\r\n$abc\r\n"}, 1},
		{"bulk length empty", []string{"*1\r\n$\r\n"}, 1},
		{"bulk length above 512MB", []string{"*1\r\n$536870913\r\n"}, 1},
		{"bulk length exactly 512MB waits", []string{"*1\r\n$536870912\r\n"}, 0},
		{"multibulk length not a number", []string{"*abc\r\n"}, 1},
		{"multibulk length above INT_MAX", []string{"*3000000000\r\n"}, 1},
		{"multibulk length plus sign", []string{"*+1\r\n$4\r\nPING\r\n"}, 1},
		{"expected dollar", []string{"*1\r\nfoo\r\n"}, 1},
		{"expected dollar got colon", []string{"*1\r\n:1\r\n"}, 1},
		{"multibulk zero ignored", []string{"*0\r\nPING\r\n"}, 1},
		{"multibulk negative ignored", []string{"*-10\r\nPING\r\n"}, 1},
		{"bulk trailer not CRLF", []string{"*1\r\n$4\r\nPINGxx"}, 1},
		{"bulk trailer not CRLF then more", []string{"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n"}, 2},
		{"bulk trailer half", []string{"*1\r\n$4\r\nPINGx"}, 0},
		{"bulk trailer completed later", []string{"*1\r\n$4\r\nPINGx", "x"}, 1},
		{"bulk split across writes", []string{"*1\r\n$4\r\nPI", "NG\r\n"}, 1},
		{"multibulk byte by byte", byteByByte, 1},
		{"inline PING", []string{"PING\r\n"}, 1},
		{"inline PING LF only", []string{"PING\n"}, 1},
		{"inline empty lines ignored", []string{"\r\n\n  \r\nPING\r\n"}, 1},
		{"inline and multibulk mixed", []string{"PING\r\n*1\r\n$4\r\nPING\r\nECHO x\r\n"}, 3},
		{"inline quoted", []string{"ECHO \"a b\"\r\n"}, 1},
		{"inline escapes", []string{"ECHO \"\\x41\\t\\n\\\\\"\r\n"}, 1},
		{"inline unterminated quote", []string{"ECHO \"unterminated\r\n"}, 1},
		{"inline quote followed by char", []string{"ECHO \"a\"b\r\n"}, 1},
		{"inline single quote escape", []string{"ECHO 'it\\'s'\r\n"}, 1},
		{"inline single quote escape SET GET", []string{"SET proto:quote 'it\\'s'\r\nGET proto:quote\r\n"}, 2},
		{"inline too big", []string{strings.Repeat("A", big)}, 1},
		{"inline too big after NUL", []string{"\x00" + strings.Repeat("A", big)}, 1},
		{"mbulk count string too big", []string{"*" + bigDigits(big)}, 1},
		{"bulk count string too big", []string{"*1\r\n$" + bigDigits(big)}, 1},
		{"pipeline of 1000 PINGs", []string{pipeline}, 1000},
	}
}

func TestProtocol(t *testing.T) {
	requireServers(t)
	cases := protocolCases()
	type result struct{ rds, lkv protoOutcome }
	results := make([]result, len(cases))
	// Run all inputs concurrently: many of them wait closeWait to see the connection stay open.
	var wg sync.WaitGroup
	for i, pc := range cases {
		wg.Add(2)
		go func() { defer wg.Done(); results[i].rds = pc.run("redis", redisAddr) }()
		go func() { defer wg.Done(); results[i].lkv = pc.run("limitkv", limitkvAddr) }()
	}
	wg.Wait()
	for i, pc := range cases {
		t.Run(pc.name, func(t *testing.T) {
			r := results[i]
			t.Logf("redis: %s", r.rds)
			if r.rds.readErr != "" {
				t.Fatalf("oracle misbehaved (harness bug?): %s", r.rds)
			}
			if r.rds != r.lkv {
				t.Errorf("input %q:\n  redis:   %s\n  limitkv: %s", truncate([]byte(strings.Join(pc.chunks, "")), 100), r.rds, r.lkv)
			}
		})
	}
	requireAlive(t)
}

// TestProtocolAbandonedClients: clients that vanish mid-command or without
// reading their replies must not hurt the server.
func TestProtocolAbandonedClients(t *testing.T) {
	requireServers(t)
	for _, tc := range []struct {
		name string
		data string
	}{
		{"half a command then disconnect", "*2\r\n$4\r\nECHO\r\n$5\r\nhel"},
		{"half a header then disconnect", "*2\r\n$4"},
		{"100 PINGs then close without reading", strings.Repeat("*1\r\n$4\r\nPING\r\n", 100)},
		{"big reply never read", strings.Repeat("*2\r\n$4\r\nECHO\r\n$10000\r\n"+strings.Repeat("z", 10000)+"\r\n", 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, addr := range []struct{ name, addr string }{{"redis", redisAddr}, {"limitkv", limitkvAddr}} {
				c := dialRaw(t, addr.name, addr.addr)
				if err := c.WriteRaw([]byte(tc.data)); err != nil {
					t.Fatalf("%s: write: %v", addr.name, err)
				}
				c.Close()
			}
			requireAlive(t)
		})
	}
}

// requireAlive checks that NEW connections to both servers still get +PONG.
func requireAlive(t *testing.T) {
	t.Helper()
	for _, s := range []struct{ name, addr string }{{"redis", redisAddr}, {"limitkv", limitkvAddr}} {
		c, err := dialRawConn(s.name, s.addr)
		if err != nil {
			t.Fatalf("%s no longer accepts connections: %v", s.name, err)
		}
		r, err := c.Do("PING")
		c.Close()
		if err != nil || string(r.Raw) != "+PONG\r\n" {
			t.Fatalf("%s: PING on a new connection: reply %v, error %v", s.name, r, err)
		}
	}
}

// TestProtocolStreamNoNewlineMemory streams 200 MB without a newline at limitkv.
// The server must close the connection (Redis does after 64 KB: "too big inline
// request") and, when limitkv runs in-process, its heap must stay bounded.
// Not comparable with Redis byte for byte: limitkv only.
func TestProtocolStreamNoNewlineMemory(t *testing.T) {
	requireServers(t)
	streamNoNewline(t, limitkvAddr, limitkvInProcess)
	requireAlive(t)
}

// streamNoNewline streams 200 MB of 'A' at addr and requires the server to close
// the connection; with measure, the heap of this process may grow by at most 64 MB.
func streamNoNewline(t *testing.T, addr string, measure bool) {
	const (
		total     = 200 << 20
		maxGrowth = 64 << 20
	)
	c := dialRaw(t, "limitkv", addr)
	nc := c.NetConn()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak := base

	type wres struct {
		n   int
		err error
	}
	done := make(chan wres, 1)
	go func() {
		chunk := bytes.Repeat([]byte("A"), 256<<10)
		_ = nc.SetWriteDeadline(time.Now().Add(4 * time.Second))
		n := 0
		for n < total {
			k, err := nc.Write(chunk)
			n += k
			if err != nil {
				done <- wres{n, err}
				return
			}
		}
		done <- wres{n, nil}
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var w wres
wait:
	for {
		select {
		case w = <-done:
			break wait
		case <-tick.C:
			if measure {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	}
	if measure {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}

	werr := classify(w.err)
	switch {
	case w.err == nil:
		// Everything was accepted; the server must still close the connection.
		if closed, _ := c.AwaitClose(2 * time.Second); !closed {
			t.Errorf("limitkv accepted all %d bytes without a newline and kept the connection open", w.n)
		}
	case errors.Is(werr, ErrTimeout):
		t.Errorf("limitkv stopped reading after %d bytes but did not close the connection", w.n)
	case !errors.Is(werr, ErrClosed):
		t.Errorf("unexpected write error after %d bytes: %v", w.n, w.err)
	}
	t.Logf("limitkv took %d bytes before closing (write error: %v)", w.n, w.err)
	if measure {
		growth := int64(peak) - int64(base)
		t.Logf("heap in use: base %d MB, peak %d MB, growth %d MB", base>>20, peak>>20, growth>>20)
		if growth > maxGrowth {
			t.Errorf("heap grew by %d MB while streaming (limit %d MB)", growth>>20, maxGrowth>>20)
		}
	} else {
		t.Log("limitkv is not in-process (stand-in): memory not measured")
	}
}
