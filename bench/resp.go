package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// A raw RESP2 client: the load generator times each reply itself, so it
// must not hide buffering, retries or pooling behind a library.

// appendCmd appends one command as a RESP array of bulk strings.
func appendCmd(b []byte, args ...string) []byte {
	b = appendArrayHeader(b, len(args))
	for _, a := range args {
		b = appendBulkString(b, a)
	}
	return b
}

func appendArrayHeader(b []byte, n int) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

func appendBulkString(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

func appendBulk(b []byte, s []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

func appendBulkInt(b []byte, n int64) []byte {
	var tmp [24]byte
	return appendBulk(b, strconv.AppendInt(tmp[:0], n, 10))
}

// conn is one connection with a reply parser.
type conn struct {
	nc net.Conn
	r  *bufio.Reader
	w  []byte
}

func dial(addr string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10)}, nil
}

func (c *conn) Close() error { return c.nc.Close() }

// reply is a parsed reply, kept only for the few commands whose answer the
// harness reads (INFO, DBSIZE, SCRIPT LOAD...).
type reply struct {
	kind  byte // + - : $ *
	str   string
	n     int64
	elems []reply
	null  bool
}

func (r reply) err() error {
	if r.kind == '-' {
		return errors.New(r.str)
	}
	return nil
}

func (r reply) String() string {
	switch r.kind {
	case ':':
		return strconv.FormatInt(r.n, 10)
	case '*':
		return fmt.Sprintf("array(%d)", len(r.elems))
	}
	if r.null {
		return "(nil)"
	}
	return r.str
}

// Do sends one command and reads its reply.
func (c *conn) Do(args ...string) (reply, error) {
	c.w = appendCmd(c.w[:0], args...)
	c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	defer c.nc.SetDeadline(time.Time{})
	if _, err := c.nc.Write(c.w); err != nil {
		return reply{}, err
	}
	return c.read()
}

// Int sends a command that answers an integer.
func (c *conn) Int(args ...string) (int64, error) {
	r, err := c.Do(args...)
	if err != nil {
		return 0, err
	}
	if err := r.err(); err != nil {
		return 0, err
	}
	if r.kind != ':' {
		return 0, fmt.Errorf("%v: want an integer, got %q", args, r.String())
	}
	return r.n, nil
}

func (c *conn) line() ([]byte, error) {
	l, err := c.r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(l) < 3 || l[len(l)-2] != '\r' {
		return nil, fmt.Errorf("bad reply line %q", l)
	}
	return l[:len(l)-2], nil
}

func (c *conn) read() (reply, error) {
	l, err := c.line()
	if err != nil {
		return reply{}, err
	}
	r := reply{kind: l[0]}
	switch l[0] {
	case '+', '-':
		r.str = string(l[1:])
	case ':':
		r.n, err = strconv.ParseInt(string(l[1:]), 10, 64)
	case '$':
		n, perr := strconv.Atoi(string(l[1:]))
		if perr != nil {
			return r, perr
		}
		if n < 0 {
			r.null = true
			return r, nil
		}
		buf := make([]byte, n+2)
		if _, err = io.ReadFull(c.r, buf); err != nil {
			return r, err
		}
		r.str = string(buf[:n])
	case '*':
		n, perr := strconv.Atoi(string(l[1:]))
		if perr != nil {
			return r, perr
		}
		if n < 0 {
			r.null = true
			return r, nil
		}
		r.elems = make([]reply, n)
		for i := range r.elems {
			if r.elems[i], err = c.read(); err != nil {
				return r, err
			}
		}
	default:
		return r, fmt.Errorf("bad reply type %q", l)
	}
	return r, err
}

// skip reads one reply without keeping it; it reports whether it was an
// error and, for errors, the message. It allocates only for errors.
func (c *conn) skip() (isErr bool, msg string, err error) {
	l, err := c.line()
	if err != nil {
		return false, "", err
	}
	switch l[0] {
	case '+', ':':
		return false, "", nil
	case '-':
		return true, string(l[1:]), nil
	case '$':
		n, ok := atoi(l[1:])
		if !ok {
			return false, "", fmt.Errorf("bad bulk length %q", l)
		}
		if n < 0 {
			return false, "", nil
		}
		_, err = c.r.Discard(n + 2)
		return false, "", err
	case '*':
		n, ok := atoi(l[1:])
		if !ok {
			return false, "", fmt.Errorf("bad array length %q", l)
		}
		for i := 0; i < n; i++ {
			e, m, err := c.skip()
			if err != nil {
				return false, "", err
			}
			if e && !isErr {
				isErr, msg = true, m
			}
		}
		return isErr, msg, nil
	}
	return false, "", fmt.Errorf("bad reply type %q", l)
}

func atoi(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// infoField returns field from an INFO reply ("" if absent).
func infoField(info, field string) string {
	for len(info) > 0 {
		i := 0
		for i < len(info) && info[i] != '\n' {
			i++
		}
		line := info[:i]
		if i < len(info) {
			info = info[i+1:]
		} else {
			info = ""
		}
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) > len(field) && line[:len(field)] == field && line[len(field)] == ':' {
			return line[len(field)+1:]
		}
	}
	return ""
}
