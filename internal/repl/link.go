// Package repl is the replica's side of Redis's replication protocol
// (replication.c's syncWithMaster and readSyncBulkPayload): the handshake
// with a master, PSYNC, the RDB payload of a full resynchronization (by
// length or, diskless, between EOF marks) and the command stream after it,
// counted in bytes as the master counts its replication offset. It knows
// nothing of commands or data: the engine loads the payload and applies
// the stream.
package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/limitkv/limitkv/internal/propagate"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Options are what the handshake tells the master.
type Options struct {
	ListeningPort int
	AnnounceIP    string
	MasterUser    string // masteruser (ACL), with MasterAuth
	MasterAuth    string // masterauth
	Timeout       time.Duration
}

// Link is one connection to a master.
type Link struct {
	nc net.Conn
	br *bufio.Reader
	to time.Duration
}

// Dial connects to the master and runs the handshake up to PSYNC: PING,
// AUTH when a password is set, REPLCONF listening-port (and ip-address)
// and REPLCONF capa eof capa psync2.
func Dial(addr string, o Options) (*Link, error) {
	to := o.Timeout
	if to <= 0 {
		to = 60 * time.Second // repl-timeout's default
	}
	nc, err := net.DialTimeout("tcp", addr, to)
	if err != nil {
		return nil, err
	}
	l := &Link{nc: nc, br: bufio.NewReaderSize(nc, 64<<10), to: to}
	if err := l.handshake(o); err != nil {
		nc.Close()
		return nil, err
	}
	return l, nil
}

func (l *Link) handshake(o Options) error {
	// PING: any reply but an error other than the auth ones means the
	// master is there (Redis accepts -NOAUTH here and authenticates next).
	r, err := l.Do("PING")
	if err != nil {
		return err
	}
	if strings.HasPrefix(r, "-") && !strings.HasPrefix(r, "-NOAUTH") && !strings.HasPrefix(r, "-NOPERM") &&
		!strings.HasPrefix(r, "-ERR operation not permitted") {
		return fmt.Errorf("error reply to PING from master: '%s'", strings.TrimPrefix(r, "-"))
	}
	if o.MasterAuth != "" {
		args := []string{"AUTH", o.MasterAuth}
		if o.MasterUser != "" {
			args = []string{"AUTH", o.MasterUser, o.MasterAuth}
		}
		if r, err = l.Do(args...); err != nil {
			return err
		}
		if strings.HasPrefix(r, "-") {
			return fmt.Errorf("unable to AUTH to MASTER: %s", strings.TrimPrefix(r, "-"))
		}
	}
	// REPLCONF errors are not fatal: old masters do not know them.
	if _, err = l.Do("REPLCONF", "listening-port", strconv.Itoa(o.ListeningPort)); err != nil {
		return err
	}
	if o.AnnounceIP != "" {
		if _, err = l.Do("REPLCONF", "ip-address", o.AnnounceIP); err != nil {
			return err
		}
	}
	_, err = l.Do("REPLCONF", "capa", "eof", "capa", "psync2")
	return err
}

// Do sends a command and reads a one-line reply (the handshake's replies
// are all status or error lines).
func (l *Link) Do(args ...string) (string, error) {
	if err := l.Send(args...); err != nil {
		return "", err
	}
	return l.line()
}

// Send writes a command to the master (REPLCONF ACK, GETACK's answer).
func (l *Link) Send(args ...string) error {
	l.nc.SetWriteDeadline(time.Now().Add(l.to))
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	_, err := l.nc.Write(propagate.AppendCommand(nil, argv))
	return err
}

// line reads one reply line, skipping the empty lines a master sends as
// keepalives while it prepares a payload.
func (l *Link) line() (string, error) {
	for {
		l.nc.SetReadDeadline(time.Now().Add(l.to))
		s, err := l.br.ReadString('\n')
		if err != nil {
			return "", err
		}
		s = strings.TrimRight(s, "\r\n")
		if s != "" {
			return s, nil
		}
	}
}

// Sync is PSYNC's answer.
type Sync struct {
	Full   bool   // +FULLRESYNC: a payload follows
	ReplID string // the master's replication id (new one on +CONTINUE, if any)
	Offset int64  // with Full: the offset the payload stands for
}

// ErrRetry is a master that cannot serve a sync now (-NOMASTERLINK,
// -LOADING): try again later.
var ErrRetry = errors.New("master not ready to sync")

// PSync asks for a partial resync from replid at offset (the next byte
// wanted), or a full one with replid "?" and offset -1. extra follows
// (FAILOVER, from a master handing over to this replica).
func (l *Link) PSync(replid string, offset int64, extra ...string) (Sync, error) {
	r, err := l.Do(append([]string{"PSYNC", replid, strconv.FormatInt(offset, 10)}, extra...)...)
	if err != nil {
		return Sync{}, err
	}
	switch {
	case strings.HasPrefix(r, "+FULLRESYNC"):
		f := strings.Fields(r)
		if len(f) != 3 || len(f[1]) != 40 {
			return Sync{}, fmt.Errorf("master replied with wrong +FULLRESYNC syntax: %q", r)
		}
		off, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return Sync{}, fmt.Errorf("master replied with wrong +FULLRESYNC syntax: %q", r)
		}
		return Sync{Full: true, ReplID: f[1], Offset: off}, nil
	case strings.HasPrefix(r, "+CONTINUE"):
		s := Sync{}
		if f := strings.Fields(r); len(f) == 2 && len(f[1]) == 40 {
			s.ReplID = f[1]
		}
		return s, nil
	case strings.HasPrefix(r, "-NOMASTERLINK"), strings.HasPrefix(r, "-LOADING"):
		return Sync{}, ErrRetry
	}
	return Sync{}, fmt.Errorf("unexpected reply to PSYNC from master: %s", r)
}

// Payload is the RDB of a full resync: $<length> or, from a diskless
// master, $EOF:<40-byte mark> ... <mark>.
func (l *Link) Payload() (io.Reader, error) {
	s, err := l.line()
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(s, "$") {
		if strings.HasPrefix(s, "-") {
			return nil, fmt.Errorf("MASTER aborted replication with an error: %s", s[1:])
		}
		return nil, fmt.Errorf("bad protocol from MASTER, the first byte is not '$' (we received '%s')", s)
	}
	if mark, ok := strings.CutPrefix(s, "$EOF:"); ok {
		if len(mark) != 40 {
			return nil, fmt.Errorf("bad EOF mark %q", mark)
		}
		return &eofReader{l: l, mark: []byte(mark)}, nil
	}
	n, err := strconv.ParseInt(s[1:], 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("bad payload length %q", s)
	}
	return &deadlineReader{l: l, r: io.LimitReader(l.br, n), n: n}, nil
}

// deadlineReader reads a length-prefixed payload with the link's timeout
// on every read, and fails on a short one.
type deadlineReader struct {
	l *Link
	r io.Reader
	n int64
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	d.l.nc.SetReadDeadline(time.Now().Add(d.l.to))
	n, err := d.r.Read(p)
	d.n -= int64(n)
	if err == io.EOF && d.n > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// eofReader yields the payload up to the mark the master ends it with.
type eofReader struct {
	l    *Link
	mark []byte
	buf  []byte // read but not yet given out: may hold the mark's start
	done bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	for !e.done && len(e.buf) < len(e.mark)+len(p) {
		e.l.nc.SetReadDeadline(time.Now().Add(e.l.to))
		chunk := make([]byte, 32<<10)
		n, err := e.l.br.Read(chunk)
		e.buf = append(e.buf, chunk[:n]...)
		if i := bytes.Index(e.buf, e.mark); i >= 0 {
			// What follows the mark is the command stream: hand it back.
			rest := append([]byte(nil), e.buf[i+len(e.mark):]...)
			e.buf = e.buf[:i]
			e.l.unread(rest)
			e.done = true
			break
		}
		if err != nil {
			return 0, io.ErrUnexpectedEOF
		}
	}
	if len(e.buf) == 0 && e.done {
		return 0, io.EOF
	}
	// Keep back what could be the start of the mark.
	give := len(e.buf)
	if !e.done {
		give -= len(e.mark)
	}
	n := copy(p, e.buf[:max(give, 0)])
	e.buf = e.buf[n:]
	return n, nil
}

// unread puts bytes back in front of the link's stream.
func (l *Link) unread(b []byte) {
	if len(b) == 0 {
		return
	}
	l.br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(b), l.br), 64<<10)
}

// Stream is the command stream that follows the sync: reads with the
// link's timeout.
func (l *Link) Stream() io.Reader { return &streamReader{l} }

type streamReader struct{ l *Link }

func (s *streamReader) Read(p []byte) (int, error) {
	s.l.nc.SetReadDeadline(time.Now().Add(s.l.to))
	return s.l.br.Read(p)
}

// RemoteAddr and LocalAddr are the link's addresses.
func (l *Link) RemoteAddr() string { return l.nc.RemoteAddr().String() }
func (l *Link) LocalAddr() string  { return l.nc.LocalAddr().String() }

// Close ends the link.
func (l *Link) Close() error { return l.nc.Close() }

// CommandSize is the bytes a command takes in the stream, as the master
// counts them in its offset (it always sends multibulk).
func CommandSize(args [][]byte) int64 {
	n := int64(1 + len(strconv.Itoa(len(args))) + 2)
	for _, a := range args {
		n += int64(1+len(strconv.Itoa(len(a)))+2) + int64(len(a)) + 2
	}
	return n
}
