package testredis

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// Conn is just enough of a Redis client for tests that talk to a server
// directly (the cluster bus tests give a redis-server its commands with it):
// commands as bulk strings, replies as string, int64, []any or RespError.
type Conn struct {
	c net.Conn
	r *bufio.Reader
}

type RespError string

func (e RespError) Error() string { return string(e) }

func DialRESP(t *testing.T, addr string) *Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &Conn{c: c, r: bufio.NewReader(c)}
}

func (rc *Conn) Send(t *testing.T, args ...string) {
	t.Helper()
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	_ = rc.c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := rc.c.Write(b); err != nil {
		t.Fatal(err)
	}
}

// do sends a command and returns its reply, failing the test on an error
// reply.
func (rc *Conn) Do(t *testing.T, args ...string) any {
	t.Helper()
	rc.Send(t, args...)
	v, err := rc.Read(2 * time.Second)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

func (rc *Conn) Read(timeout time.Duration) (any, error) {
	_ = rc.c.SetReadDeadline(time.Now().Add(timeout))
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("short reply line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return nil, RespError(body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(rc.r, b); err != nil {
			return nil, err
		}
		return string(b[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, max(n, 0))
		for range n {
			v, err := rc.Read(timeout)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected reply %q", line)
}
