package rdb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// The oracle tests need redis-server (and redis-check-rdb) 7.0.x, the
// byte-for-byte comparisons 7.0's RDB version 10. Without them they skip,
// unless LIMITKV_REQUIRE_REDIS=1 (CI), which makes that a failure.
// LIMITKV_REDIS_SERVER=/path picks the binary (internal/testredis).

// redisProc is a redis-server of the test's with a connection to it.
type redisProc struct {
	*testredis.Proc
	t    testing.TB
	conn *respConn
}

// startRedis starts redis-server 7.0 on a free loopback port with --dir dir,
// DEBUG on and extra arguments, and stops it (by its pid) when the test ends.
func startRedis(t testing.TB, dir string, extra ...string) *redisProc {
	t.Helper()
	p := testredis.StartWith(t, testredis.Options{Path: testredis.RequireVersion(t, "7.0."), Dir: dir,
		Args: append([]string{"--enable-debug-command", "yes"}, extra...)})
	c, err := net.DialTimeout("tcp", p.Addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &redisProc{Proc: p, t: t, conn: &respConn{c: c, r: bufio.NewReader(c)}}
}

// do runs a command and fails the test on an error reply.
func (p *redisProc) do(args ...any) any {
	p.t.Helper()
	r, err := p.conn.do(args...)
	if err != nil {
		p.t.Fatalf("%v: %v", args, err)
	}
	return r
}

// respConn is a minimal RESP2 client: replies are string, int64, nil or []any;
// error replies are returned as errors.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func (c *respConn) do(args ...any) (any, error) {
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		var s []byte
		switch v := a.(type) {
		case string:
			s = []byte(v)
		case []byte:
			s = v
		case int:
			s = strconv.AppendInt(nil, int64(v), 10)
		case int64:
			s = strconv.AppendInt(nil, v, 10)
		default:
			s = fmt.Append(nil, v)
		}
		b = fmt.Appendf(b, "$%d\r\n", len(s))
		b = append(b, s...)
		b = append(b, "\r\n"...)
	}
	c.c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.c.Write(b); err != nil {
		return nil, err
	}
	return c.read()
}

func (c *respConn) read() (any, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return nil, errors.New(line[1:])
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			v, err := c.read()
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad reply %q", line)
}
