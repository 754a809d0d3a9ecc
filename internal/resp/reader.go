package resp

import (
	"bytes"
	"errors"
	"io"
	"math"

	"github.com/limitkv/limitkv/internal/num"
)

// Reader parses client requests exactly as Redis 7.0's networking.c does
// (processInputBuffer, processMultibulkBuffer, processInlineBuffer and
// sdssplitargs), checked against redis-server 7.0.15.
//
// Arguments are never copied: they are sub-slices of the reader's buffer
// (inline arguments with quotes or escapes are decoded in place). In steady
// state a ReadBatch allocates nothing.
//
// Quirks of Redis that are kept on purpose, because clients can observe them:
//   - The line terminator of a header (*N, $N) is found like strchr(buf,'\r'):
//     the byte after the '\r' is skipped without looking at it, and a NUL byte
//     before the '\r' hides it, so the request stalls until more than 64 KB are
//     buffered and then fails with "too big ... count string". Inline lines
//     look for '\n' the same way.
//   - The two bytes after a bulk's data are skipped without checking that
//     they are "\r\n".
//   - A declared length that is <= 0 (*0, *-1) is an empty command, skipped
//     without a reply, and so is an empty or blank inline line.
//
// Memory: the buffer holds the whole command being parsed. It grows only when
// full, by doubling (never to a declared length), and shrinks back to its
// initial size, before blocking, once everything has been consumed if it had
// grown past four times that size; the argument arenas are dropped then too
// if they grew past 4096 entries.
//
// The limits of a ReadBatch apply to every command of its batch, except that a
// command that breaks an unauthenticated limit ends the batch when commands
// precede it, and is parsed again by the next ReadBatch (so that a pipelined
// AUTH works as in Redis, which parses one command at a time).
type Reader struct {
	rd   io.Reader
	buf  []byte // len(buf) == cap(buf)
	size int    // initial size, and the size the buffer shrinks back to

	start int // first byte of the command being parsed; bytes before it belong to returned commands
	pos   int // first byte of the first element (line or bulk) not parsed yet
	end   int // end of the buffered data

	nargs   int   // bulk arguments still expected by the multibulk command in progress; 0 at a command boundary
	bulk    int64 // length of the bulk whose data is at pos, or -1 when its $ header comes next
	scanned int   // bytes after pos already searched for the line terminator in vain
	nul     bool  // a NUL byte precedes the terminator: like strchr, it is never found

	spans []rdSpan   // arguments of this batch's complete commands, then those of the command in progress
	ends  []int      // ends[i]: index in spans after the last argument of complete command i
	args  [][]byte   // arena the returned commands are sub-sliced from
	cmds  [][][]byte // the returned batch

	rewound bool // the last batch stopped before a buffered command (errRewind)

	err  error // sticky: once set, every ReadBatch returns it
	rerr error // error of the last Read, reported once the buffered commands are returned
}

// Limits are the per-client limits of the protocol. Zero values mean the
// Redis defaults. They are passed to every ReadBatch because CONFIG SET and
// AUTH change them between batches.
type Limits struct {
	// MaxBulkLen is proto-max-bulk-len: a longer $ header gets
	// "invalid bulk length". 0 means 512 MB.
	MaxBulkLen int64
	// MaxQueryBuf is client-query-buffer-limit: like Redis it bounds the
	// bytes buffered for one element not parsed yet (a bulk's data and its
	// CRLF, or a line), not the whole command. Exceeded: ErrQueryBufLimit.
	// 0 means 1 GB.
	MaxQueryBuf int64
	// MaxMultibulkLen, when > 0 (10 for unauthenticated clients), makes a
	// longer *N header fail with "unauthenticated multibulk length".
	MaxMultibulkLen int64
	// MaxUnauthBulkLen, when > 0 (16384 for unauthenticated clients), makes
	// a longer $N header fail with "unauthenticated bulk length".
	MaxUnauthBulkLen int64
}

// Defaults of Redis 7.0.
const (
	DefaultMaxBulkLen  = 512 << 20 // proto-max-bulk-len
	DefaultMaxQueryBuf = 1 << 30   // client-query-buffer-limit
	// InlineMaxSize is PROTO_INLINE_MAX_SIZE: an inline request or a *N / $N
	// header with no terminator after more than this many bytes is an error.
	InlineMaxSize = 64 << 10
	// UnauthMultibulkLen and UnauthBulkLen are the limits Redis applies to
	// clients that still have to authenticate.
	UnauthMultibulkLen = 10
	UnauthBulkLen      = 16384
)

// DefaultReaderSize is the buffer size NewReader uses for size <= 0
// (PROTO_IOBUF_LEN).
const DefaultReaderSize = 16 << 10

// ProtocolError is a malformed request. The server replies
// "-ERR Protocol error: "+Msg+"\r\n" and closes the connection. Msg never
// contains '\r' or '\n'.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return e.Msg }

// ErrQueryBufLimit reports that the client exceeded the query buffer limit:
// Redis closes the connection without a reply.
var ErrQueryBufLimit = errors.New("resp: client reached max query buffer length")

// ErrWouldBlock is what a non-blocking source returns from Read when it has
// no data now (EAGAIN). ReadBatch passes it on without making it sticky:
// the commands parsed so far stay in progress and the next ReadBatch, once
// the source is readable, goes on from there. This is how an event loop
// drives the reader.
var ErrWouldBlock = errors.New("resp: no data available now")

// errRewind stops a batch before a command that breaks an unauthenticated
// limit: the commands before it (an AUTH maybe) run first and the command is
// parsed again, under the limits then in force, by the next ReadBatch. Redis
// parses one command at a time, so a pipelined AUTH lifts the limits for
// the commands behind it.
var errRewind = errors.New("resp: rewind")

type rdSpan struct{ off, end int }

const (
	rdMinSize    = 16
	rdShrinkMult = 4 // an idle buffer larger than rdShrinkMult*size goes back to size
	rdMaxEmpty   = 100
	rdArenaKeep  = 4096 // arenas with more entries are dropped when idle
)

// NewReader returns a Reader whose buffer starts at size bytes
// (DefaultReaderSize when size <= 0) and grows as a request needs it.
func NewReader(rd io.Reader, size int) *Reader {
	if size <= 0 {
		size = DefaultReaderSize
	}
	if size < rdMinSize {
		size = rdMinSize
	}
	return &Reader{rd: rd, buf: make([]byte, size), size: size, bulk: -1}
}

// ReadBatch blocks until at least one complete command is buffered (or an
// error), then returns every complete command already in the buffer without
// blocking again. Each command is a [][]byte of its arguments (never empty);
// the arguments alias the reader's buffer and stay valid until the next
// ReadBatch call (each has cap == len, so appending to one copies).
//
// cmds may be non-empty together with a non-nil err: the commands before a
// protocol error (or before a bulk that broke the query buffer limit) are
// returned so the caller runs them first, then answers the error and closes.
// Errors are *ProtocolError, ErrQueryBufLimit, io.EOF (the connection ended
// between commands), io.ErrUnexpectedEOF (it ended inside one) or another
// read error; they are sticky.
func (r *Reader) ReadBatch(lim Limits) (cmds [][][]byte, err error) {
	if r.err != nil {
		return nil, r.err
	}
	if lim.MaxBulkLen <= 0 {
		lim.MaxBulkLen = DefaultMaxBulkLen
	}
	if lim.MaxQueryBuf <= 0 {
		lim.MaxQueryBuf = DefaultMaxQueryBuf
	}
	for {
		err = r.parse(&lim)
		r.rewound = err == errRewind
		if r.rewound {
			err = nil
		}
		if err != nil || len(r.ends) > 0 {
			if err != nil {
				r.err = err
			}
			return r.build(), err
		}
		if r.rerr != nil {
			if r.rerr == ErrWouldBlock {
				r.rerr = nil
				return nil, ErrWouldBlock
			}
			err = r.rerr
			if err == io.EOF && r.end > r.start {
				err = io.ErrUnexpectedEOF
			}
			r.err = err
			return nil, err
		}
		r.fill()
	}
}

// Rewound reports whether the last batch stopped before a command that is
// already buffered (see errRewind): the caller must call ReadBatch again
// even if its source has nothing new to read.
func (r *Reader) Rewound() bool { return r.rewound }

// Buffered returns how many bytes are buffered and not yet returned as
// commands.
func (r *Reader) Buffered() int { return r.end - r.start }

// build turns the spans of the complete commands into the returned batch and
// keeps those of the command in progress.
func (r *Reader) build() [][][]byte {
	if len(r.ends) == 0 {
		return nil
	}
	n := r.ends[len(r.ends)-1]
	if cap(r.args) < n {
		r.args = make([][]byte, n, n+n/2)
	}
	args := r.args[:n]
	buf := r.buf
	for i, s := range r.spans[:n] {
		args[i] = buf[s.off:s.end:s.end]
	}
	cmds := r.cmds[:0]
	prev := 0
	for _, e := range r.ends {
		cmds = append(cmds, args[prev:e:e])
		prev = e
	}
	r.cmds = cmds
	r.spans = r.spans[:copy(r.spans, r.spans[n:])]
	r.ends = r.ends[:0]
	return cmds
}

// fill makes room in the buffer and reads once.
func (r *Reader) fill() {
	if r.start == r.end {
		// Idle: nothing of a command is pending (so no spans either).
		if len(r.buf) > rdShrinkMult*r.size {
			r.buf = make([]byte, r.size)
			// Drop the references the arena keeps to the big buffer.
			clear(r.args[:cap(r.args)])
		}
		// Likewise for the arenas after a batch of very many arguments.
		if cap(r.args) > rdArenaKeep || cap(r.spans) > rdArenaKeep || cap(r.ends) > rdArenaKeep {
			r.args, r.spans, r.ends, r.cmds = nil, nil, nil, nil
		}
		r.start, r.pos, r.end = 0, 0, 0
	} else if r.start > 0 {
		d := r.start
		copy(r.buf, r.buf[d:r.end])
		r.start = 0
		r.pos -= d
		r.end -= d
		for i := range r.spans {
			r.spans[i].off -= d
			r.spans[i].end -= d
		}
	}
	if r.end == len(r.buf) {
		r.grow()
	}
	for range rdMaxEmpty {
		n, err := r.rd.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			r.rerr = errors.New("resp: reader returned invalid count from Read")
			return
		}
		r.end += n
		if err != nil {
			r.rerr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.rerr = io.ErrNoProgress
}

// grow enlarges a full buffer. It doubles, never from a declared length: a
// client declaring $536870912 and sending 10 bytes costs nothing. While a
// bulk's data is awaited it stops at what that bulk needs (plus size bytes for
// what follows), so a 10 MB value takes about 10 MB, not 16; while a line is
// awaited, at what the 64 KB rule lets a line be.
func (r *Reader) grow() {
	newCap := 2 * len(r.buf)
	if r.nargs > 0 && r.bulk >= 0 {
		if r.bulk < int64(newCap) {
			need := int64(r.pos) + r.bulk + 2 + int64(r.size)
			if need < int64(newCap) {
				newCap = int(need)
			}
		}
	} else if need := r.pos + InlineMaxSize + 2 + r.size; need < newCap {
		// A line: past InlineMaxSize bytes with no terminator it fails.
		newCap = need
	}
	if newCap <= len(r.buf) {
		newCap = len(r.buf) + r.size
	}
	nb := make([]byte, newCap)
	copy(nb, r.buf[:r.end])
	r.buf = nb
}

func rdProtoErr(msg string) error { return &ProtocolError{Msg: msg} }

// unauth fails a command that breaks an unauthenticated limit, or, when
// commands precede it in the batch, rewinds to its start (see errRewind).
func (r *Reader) unauth(msg string) error {
	if len(r.ends) == 0 {
		return rdProtoErr(msg)
	}
	r.spans = r.spans[:r.ends[len(r.ends)-1]]
	r.pos = r.start
	r.nargs = 0
	r.bulk = -1
	r.scanned = 0
	r.nul = false
	return errRewind
}

// lineEnd returns the offset from pos of the first c, searched like
// strchr(buf+pos, c) over everything buffered, or -1.
func (r *Reader) lineEnd(c byte) int {
	if r.nul {
		return -1
	}
	b := r.buf[r.pos+r.scanned : r.end]
	// Header lines are short: look at their first bytes one by one.
	k := min(len(b), 32)
	for j, x := range b[:k] {
		if x == c {
			return r.scanned + j
		}
		if x == 0 {
			r.nul = true
			return -1
		}
	}
	rest := b[k:]
	i := bytes.IndexByte(rest, c)
	seg := rest
	if i >= 0 {
		seg = rest[:i]
	}
	if bytes.IndexByte(seg, 0) >= 0 {
		r.nul = true
		return -1
	}
	if i < 0 {
		r.scanned += len(b)
		return -1
	}
	return r.scanned + k + i
}

// parse consumes every complete element buffered after pos. It returns nil
// when it needs more data (or the buffer is exhausted).
func (r *Reader) parse(lim *Limits) error {
	buf := r.buf
	for {
		if r.nargs == 0 {
			// At a command boundary: pos == start.
			if r.pos >= r.end {
				return nil
			}
			if buf[r.pos] != '*' {
				done, err := r.parseInline(lim)
				if !done || err != nil {
					return err
				}
				continue
			}
			i, complete, err := r.headerLine(lim, "too big mbulk count string")
			if !complete {
				return err
			}
			ll, ok := rdParseLen(buf[r.pos+1 : r.pos+i])
			if !ok || ll > math.MaxInt32 {
				return rdProtoErr("invalid multibulk length")
			}
			if lim.MaxMultibulkLen > 0 && ll > lim.MaxMultibulkLen {
				return r.unauth("unauthenticated multibulk length")
			}
			r.pos += i + 2
			r.scanned = 0
			if ll <= 0 {
				r.start = r.pos
				continue
			}
			r.nargs = int(ll)
			r.bulk = -1
		}
		for r.nargs > 0 {
			if r.bulk < 0 {
				i, complete, err := r.headerLine(lim, "too big bulk count string")
				if !complete {
					return err
				}
				if c := buf[r.pos]; c != '$' {
					if c == '\r' || c == '\n' {
						c = ' ' // Redis maps newlines in error replies to spaces
					}
					return rdProtoErr("expected '$', got '" + string([]byte{c}) + "'")
				}
				ll, ok := rdParseLen(buf[r.pos+1 : r.pos+i])
				if !ok || ll < 0 || ll > lim.MaxBulkLen {
					return rdProtoErr("invalid bulk length")
				}
				if lim.MaxUnauthBulkLen > 0 && ll > lim.MaxUnauthBulkLen {
					return r.unauth("unauthenticated bulk length")
				}
				r.pos += i + 2
				r.scanned = 0
				r.bulk = ll
			}
			avail := int64(r.end - r.pos)
			if avail-2 < r.bulk {
				// The data and its CRLF are not all here.
				if avail > lim.MaxQueryBuf {
					return ErrQueryBufLimit
				}
				return nil
			}
			if r.bulk+2 > lim.MaxQueryBuf {
				return ErrQueryBufLimit
			}
			p := r.pos
			e := p + int(r.bulk)
			r.spans = append(r.spans, rdSpan{p, e})
			r.pos = e + 2 // the two bytes are not checked, as in Redis
			r.bulk = -1
			r.nargs--
		}
		r.ends = append(r.ends, len(r.spans))
		r.start = r.pos
	}
}

// rdParseLen is Redis's string2ll (num.ParseInt) with a fast path for the
// short positive numbers of ordinary headers.
func rdParseLen(b []byte) (int64, bool) {
	if n := len(b); n > 0 && n < 10 && '1' <= b[0] && b[0] <= '9' {
		v := int64(b[0] - '0')
		for _, c := range b[1:] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
		return v, true
	}
	return num.ParseInt(b)
}

// parseInline parses one inline request at pos. done is false when its line
// is not complete yet.
func (r *Reader) parseInline(lim *Limits) (done bool, err error) {
	i := r.lineEnd('\n')
	if i < 0 {
		n := r.end - r.pos
		if int64(n) > lim.MaxQueryBuf {
			return false, ErrQueryBufLimit
		}
		if n > InlineMaxSize {
			return false, rdProtoErr("too big inline request")
		}
		return false, nil
	}
	if int64(i+1) > lim.MaxQueryBuf {
		return false, ErrQueryBufLimit
	}
	e := r.pos + i
	if i > 0 && r.buf[e-1] == '\r' {
		e--
	}
	n0 := len(r.spans)
	if !r.splitArgs(r.pos, e) {
		r.spans = r.spans[:n0]
		return false, rdProtoErr("unbalanced quotes in request")
	}
	r.pos += i + 1
	r.scanned = 0
	r.start = r.pos
	if len(r.spans) > n0 {
		r.ends = append(r.ends, len(r.spans))
	}
	return true, nil
}

// rdIsSpace is C's isspace in the C locale.
func rdIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func rdIsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func rdUnhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// splitArgs is sdssplitargs over buf[p:end] (which holds no NUL byte, so the
// end of the range plays the part of C's terminating NUL). Each argument is
// decoded in place, over its own source text, which is never shorter.
// It reports false for unbalanced quotes.
func (r *Reader) splitArgs(p, end int) bool {
	b := r.buf
	for {
		for p < end && rdIsSpace(b[p]) {
			p++
		}
		if p >= end {
			return true
		}
		w := p // decoded bytes go to b[start:w]
		start := p
		inq, insq := false, false
	token:
		for {
			switch {
			case inq:
				if p >= end {
					return false // unterminated quotes
				}
				c := b[p]
				switch {
				case c == '\\' && p+3 < end && b[p+1] == 'x' && rdIsHex(b[p+2]) && rdIsHex(b[p+3]):
					b[w] = rdUnhex(b[p+2])<<4 | rdUnhex(b[p+3])
					w++
					p += 4
				case c == '\\' && p+1 < end:
					c = b[p+1]
					switch c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					b[w] = c
					w++
					p += 2
				case c == '"':
					// The closing quote must be followed by a space or nothing.
					if p+1 < end && !rdIsSpace(b[p+1]) {
						return false
					}
					p++
					break token
				default:
					b[w] = c
					w++
					p++
				}
			case insq:
				if p >= end {
					return false
				}
				c := b[p]
				switch {
				case c == '\\' && p+1 < end && b[p+1] == '\'':
					b[w] = '\''
					w++
					p += 2
				case c == '\'':
					if p+1 < end && !rdIsSpace(b[p+1]) {
						return false
					}
					p++
					break token
				default:
					b[w] = c
					w++
					p++
				}
			default:
				if p >= end {
					break token
				}
				c := b[p]
				switch c {
				case ' ', '\n', '\r', '\t':
					p++
					break token
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					b[w] = c
					w++
				}
				p++
			}
		}
		r.spans = append(r.spans, rdSpan{start, w})
	}
}

// headerLine finds the '\r' that ends the *N or $N line at pos. Until the
// line and the byte after its '\r' have arrived it reports incomplete, with
// Redis's error when what is buffered already breaks a limit (tooBig names
// the line, as Redis's messages do).
func (r *Reader) headerLine(lim *Limits, tooBig string) (i int, complete bool, err error) {
	i = r.lineEnd('\r')
	if i < 0 || r.pos+i+1 >= r.end {
		n := r.end - r.pos
		if int64(n) > lim.MaxQueryBuf {
			return 0, false, ErrQueryBufLimit
		}
		if i < 0 && n > InlineMaxSize {
			return 0, false, rdProtoErr(tooBig)
		}
		return 0, false, nil
	}
	if int64(i+2) > lim.MaxQueryBuf {
		return 0, false, ErrQueryBufLimit
	}
	return i, true, nil
}
