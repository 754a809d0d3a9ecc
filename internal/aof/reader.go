package aof

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// Errors of the command stream, as loadSingleAppendOnlyFile tells them
// apart: a stream that ends inside a command (a torn tail, which
// aof-load-truncated may cut off) and one that is not the protocol at all.
var (
	ErrTruncated = errors.New("unexpected end of file")
	ErrFormat    = errors.New("bad file format")
)

// lineMax is AOF_ANNOTATION_LINE_MAX_LEN: fgets's buffer for a line.
const lineMax = 1024

// Reader reads the commands of an AOF file (or of what follows its RDB
// preamble). Offset is the position after the last complete command.
type Reader struct {
	r    *bufio.Reader
	pos  int64 // bytes consumed
	last int64 // offset after the last complete command
}

// NewReader reads commands from r, which starts at offset start of the
// file.
func NewReader(r *bufio.Reader, start int64) *Reader {
	return &Reader{r: r, pos: start, last: start}
}

// Offset is where the last complete command ended (valid_up_to).
func (r *Reader) Offset() int64 { return r.last }

// line is fgets: up to lineMax-1 bytes, ending at a newline.
func (r *Reader) line() ([]byte, error) {
	var out []byte
	for len(out) < lineMax-1 {
		c, err := r.r.ReadByte()
		if err != nil {
			if len(out) > 0 && err == io.EOF {
				return out, nil // fgets returns the partial line
			}
			return nil, err
		}
		r.pos++
		out = append(out, c)
		if c == '\n' {
			break
		}
	}
	return out, nil
}

// Next returns the next command, io.EOF at a clean end, ErrTruncated for
// a torn command and ErrFormat for something that is not one. Annotation
// lines (starting with '#') are skipped.
func (r *Reader) Next() ([][]byte, error) {
	for {
		buf, err := r.line()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if buf[0] == '#' {
			r.last = r.pos
			continue
		}
		if buf[0] != '*' {
			return nil, ErrFormat
		}
		if len(buf) == 1 {
			return nil, ErrTruncated
		}
		argc := atoi(buf[1:])
		if argc < 1 {
			return nil, ErrFormat
		}
		args := make([][]byte, 0, min(argc, 1024))
		for j := 0; j < argc; j++ {
			buf, err := r.line()
			if err == io.EOF {
				return nil, ErrTruncated
			}
			if err != nil {
				return nil, err
			}
			if buf[0] != '$' {
				return nil, ErrFormat
			}
			n := atoi(buf[1:])
			if n < 0 {
				n = 0
			}
			arg := make([]byte, n)
			if _, err := io.ReadFull(r.r, arg); err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					return nil, ErrTruncated
				}
				return nil, err
			}
			r.pos += int64(n)
			var crlf [2]byte
			m, err := io.ReadFull(r.r, crlf[:])
			r.pos += int64(m)
			if err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					return nil, ErrTruncated
				}
				return nil, err
			}
			args = append(args, arg)
		}
		r.last = r.pos
		return args, nil
	}
}

// atoi is C's atoi on a line: digits after an optional sign, the rest
// ignored.
func atoi(b []byte) int {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	n, _ := strconv.Atoi(string(b[i:j]))
	if neg {
		n = -n
	}
	return n
}
