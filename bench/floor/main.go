// Command floor is a no-op RESP server on one gnet event loop: it answers
// every command "+PONG\r\n" and does nothing else. The bench harness runs
// its PING rows on it as "the floor this machine allows": what a server that
// spends nothing on commands gets through the same client, kernel and cores.
//
//	go run ./bench/floor --port 7000
//
// It parses just enough RESP to count commands: multibulk requests
// (*<n>\r\n then n times $<len>\r\n<bytes>\r\n) and inline ones (a line),
// pipelined or split across reads, and writes all the replies a read
// produced in one write. It listens on 127.0.0.1 only.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/logging"
)

// maxInline bounds a request that never completes (an inline line without
// a newline, a huge bulk length): the connection is closed instead of
// buffering without end.
const (
	maxInline = 64 << 10
	maxBulk   = 512 << 20
	maxArgs   = 1 << 20
)

var pong = []byte("+PONG\r\n")

type floor struct {
	gnet.BuiltinEventEngine
	out []byte // replies of the current read; one event loop, so one buffer
}

// parse counts the complete commands at the start of b and returns how many
// bytes they take. bad is set on a protocol error.
func parse(b []byte) (cmds, used int, bad bool) {
	for used < len(b) {
		n, ok, bad := one(b[used:])
		if bad {
			return cmds, used, true
		}
		if !ok {
			return cmds, used, false
		}
		if n < 0 { // an empty request (blank line, *0): no reply
			used -= n
			continue
		}
		cmds++
		used += n
	}
	return cmds, used, false
}

// one parses the request at the start of b: its length (negative for a
// request that gets no reply), ok false if it is not complete yet.
func one(b []byte) (n int, ok, bad bool) {
	if b[0] != '*' {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return 0, false, len(b) > maxInline
		}
		if len(bytes.TrimSpace(b[:i])) == 0 {
			return -(i + 1), true, false
		}
		return i + 1, true, false
	}
	count, p, ok, bad := number(b, 1)
	if !ok || bad {
		return 0, ok, bad
	}
	if count > maxArgs {
		return 0, false, true
	}
	if count <= 0 {
		return -p, true, false
	}
	for range count {
		if p >= len(b) {
			return 0, false, false
		}
		if b[p] != '$' {
			return 0, false, true
		}
		l, q, ok, bad := number(b, p+1)
		if !ok || bad {
			return 0, ok, bad
		}
		if l < 0 || l > maxBulk {
			return 0, false, true
		}
		p = q + l + 2
		if p > len(b) {
			return 0, false, false
		}
		if b[p-2] != '\r' || b[p-1] != '\n' {
			return 0, false, true
		}
	}
	return p, true, false
}

// number reads a decimal integer from b[i:] up to "\r\n" and returns it and
// the offset after the line.
func number(b []byte, i int) (v, next int, ok, bad bool) {
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start := i
	for ; i < len(b); i++ {
		c := b[i]
		if c == '\r' {
			if i+1 >= len(b) {
				return 0, 0, false, false
			}
			if b[i+1] != '\n' || i == start {
				return 0, 0, false, true
			}
			if neg {
				v = -v
			}
			return v, i + 2, true, false
		}
		if c < '0' || c > '9' || i-start > 18 {
			return 0, 0, false, true
		}
		v = v*10 + int(c-'0')
	}
	return 0, 0, false, i-start > 18
}

func (f *floor) OnTraffic(c gnet.Conn) gnet.Action {
	buf, _ := c.Peek(-1)
	cmds, used, bad := parse(buf)
	f.out = f.out[:0]
	for range cmds {
		f.out = append(f.out, pong...)
	}
	if bad {
		f.out = append(f.out, "-ERR Protocol error\r\n"...)
	}
	if len(f.out) > 0 {
		c.Write(f.out)
	}
	if bad {
		return gnet.Close
	}
	c.Discard(used)
	return gnet.None
}

func main() {
	port := flag.Int("port", 6390, "TCP port on 127.0.0.1")
	flag.Parse()
	err := gnet.Run(&floor{}, "tcp://127.0.0.1:"+strconv.Itoa(*port),
		gnet.WithMulticore(false), gnet.WithNumEventLoop(1), gnet.WithReuseAddr(true),
		gnet.WithLogLevel(logging.ErrorLevel))
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
