package clusterbus

import (
	"errors"
	"fmt"
	"io"
)

// ErrFrame is wrapped by the errors of a stream that is not a cluster bus
// or has lost its place: a bad signature or a length below HeaderSize.
// clusterReadHandler closes the link on these, and so should a reader.
var ErrFrame = errors.New("clusterbus: bad message length or signature")

// ErrTooLong is wrapped by the error of a message longer than the reader's
// limit. Redis sets none, but the rest of the message is not read, so the
// link must be closed.
var ErrTooLong = errors.New("clusterbus: message too long")

// readChunk is how much ReadFrame reads at a time past a buffer too small:
// a length claiming gigabytes costs memory only as the bytes arrive.
const readChunk = 64 << 10

// ReadFrame reads one message's bytes from r as clusterReadHandler does:
// the first 8 bytes, the signature and a total length of at least
// HeaderSize, then the rest. It returns the whole message, in buf's
// storage if it has the room. maxLen bounds the length a peer may claim
// (0 or less: the 32-bit field's own bound); a longer message is
// ErrTooLong. The bytes are not checked further: Decode does that.
func ReadFrame(r io.Reader, buf []byte, maxLen int) ([]byte, error) {
	buf = append(buf[:0], make([]byte, 8)...)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	if string(buf[offSig:offSig+4]) != Signature {
		return nil, fmt.Errorf("%w: signature %q", ErrFrame, buf[offSig:offSig+4])
	}
	totlen := int64(be.Uint32(buf[offTotlen:]))
	if totlen < HeaderSize {
		return nil, fmt.Errorf("%w: length %d, below %d", ErrFrame, totlen, HeaderSize)
	}
	if maxLen > 0 && totlen > int64(maxLen) {
		return nil, fmt.Errorf("%w: %d bytes, over the limit of %d", ErrTooLong, totlen, maxLen)
	}
	n := int(totlen)
	if int64(n) != totlen { // a 32-bit int
		return nil, fmt.Errorf("%w: %d bytes", ErrTooLong, totlen)
	}
	for len(buf) < n {
		step := min(n-len(buf), max(len(buf), readChunk))
		if cap(buf)-len(buf) < step {
			buf = append(buf[:len(buf):len(buf)], make([]byte, step)...)[:len(buf)]
		}
		got, err := io.ReadFull(r, buf[len(buf):len(buf)+step])
		buf = buf[:len(buf)+got]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return buf, nil
}

// ReadMessage reads one message from r (ReadFrame) and decodes it. An
// error wrapping ErrInvalid leaves r at the next message, as Redis drops
// an invalid message and reads on; any other error leaves the stream
// unusable.
func ReadMessage(r io.Reader, maxLen int) (*Message, error) {
	b, err := ReadFrame(r, nil, maxLen)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}
