package resp

import (
	"strconv"

	"github.com/tidwall/redcon"

	"github.com/limitkv/limitkv/internal/num"
)

// Writer accumulates replies in one buffer that the connection flushes once
// per pipelined batch. It speaks RESP2 unless SetRESP3 switched it (HELLO 3):
// the typed methods (Null, Map, Set, Double, Bool, Verbatim...) then write
// RESP3's types, and write their RESP2 equivalents otherwise, as Redis's
// addReply* functions do by the client's protocol. Encoding of the types
// both protocols share comes from redcon's Append* helpers.
type Writer struct {
	b     []byte
	resp3 bool
}

// SetRESP3 chooses the protocol of the replies written from now on.
func (w *Writer) SetRESP3(on bool) { w.resp3 = on }

// RESP3 reports whether the writer speaks RESP3.
func (w *Writer) RESP3() bool { return w.resp3 }

// Bytes returns the pending output.
func (w *Writer) Bytes() []byte { return w.b }

// Len reports how many bytes are pending.
func (w *Writer) Len() int { return len(w.b) }

// Reset empties the buffer, keeping its capacity unless it grew past max.
func (w *Writer) Reset(max int) {
	if cap(w.b) > max {
		w.b = nil
		return
	}
	w.b = w.b[:0]
}

// Swap hands over the pending bytes and makes b's storage the buffer, so a
// connection can write what is pending without holding the buffer while
// more is appended to it.
func (w *Writer) Swap(b []byte) []byte {
	old := w.b
	w.b = b[:0]
	return old
}

// Truncate drops everything written after n bytes (n from an earlier Len).
func (w *Writer) Truncate(n int) { w.b = w.b[:n] }

// DropPrefix forgets the first n bytes (already written out), moving the
// rest to the front: a stream that never fully drains (a replica's) does
// not keep what it sent.
func (w *Writer) DropPrefix(n int) { w.b = w.b[:copy(w.b, w.b[n:])] }

// OK writes +OK.
func (w *Writer) OK() { w.b = redcon.AppendOK(w.b) }

// Simple writes a status reply.
func (w *Writer) Simple(s string) { w.b = redcon.AppendString(w.b, s) }

// Error writes an error reply; s carries its own prefix ("ERR ...", "WRONGTYPE ...").
// Newlines are replaced by spaces, as Redis does.
func (w *Writer) Error(s string) { w.b = redcon.AppendError(w.b, s) }

// Int writes an integer reply.
func (w *Writer) Int(n int64) { w.b = redcon.AppendInt(w.b, n) }

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) { w.b = redcon.AppendBulk(w.b, b) }

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) { w.b = redcon.AppendBulkString(w.b, s) }

// BulkInt writes an integer as a bulk string.
func (w *Writer) BulkInt(n int64) { w.b = redcon.AppendBulkInt(w.b, n) }

// Null writes a null: RESP2's null bulk string, RESP3's null.
func (w *Writer) Null() {
	if w.resp3 {
		w.b = append(w.b, "_\r\n"...)
		return
	}
	w.b = redcon.AppendNull(w.b)
}

// NullArray writes RESP2's null array; in RESP3 there is one null.
func (w *Writer) NullArray() {
	if w.resp3 {
		w.b = append(w.b, "_\r\n"...)
		return
	}
	w.b = append(w.b, "*-1\r\n"...)
}

// Map writes the header of a map of n pairs (RESP2: an array of 2n).
func (w *Writer) Map(n int) {
	if w.resp3 {
		w.b = appendHeader(w.b, '%', n)
		return
	}
	w.b = redcon.AppendArray(w.b, 2*n)
}

// Set writes the header of a set of n elements (RESP2: an array).
func (w *Writer) Set(n int) {
	if w.resp3 {
		w.b = appendHeader(w.b, '~', n)
		return
	}
	w.b = redcon.AppendArray(w.b, n)
}

// Push writes the header of an out-of-band push of n elements (RESP2: an
// array, as Pub/Sub messages are there).
func (w *Writer) Push(n int) {
	if w.resp3 {
		w.b = appendHeader(w.b, '>', n)
		return
	}
	w.b = redcon.AppendArray(w.b, n)
}

// Double writes a double as Redis's addReplyDouble: "%.17g" (num's
// AppendFloat), a bulk string in RESP2.
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	d := num.AppendFloat(tmp[:0], f)
	if w.resp3 {
		w.b = append(w.b, ',')
		w.b = append(w.b, d...)
		w.b = append(w.b, '\r', '\n')
		return
	}
	w.b = redcon.AppendBulk(w.b, d)
}

// DoubleBytes writes an already formatted double (RESP2: a bulk string).
func (w *Writer) DoubleBytes(d []byte) {
	if w.resp3 {
		w.b = append(w.b, ',')
		w.b = append(w.b, d...)
		w.b = append(w.b, '\r', '\n')
		return
	}
	w.b = redcon.AppendBulk(w.b, d)
}

// Bool writes a boolean (RESP2: the integer 1 or 0).
func (w *Writer) Bool(v bool) {
	switch {
	case w.resp3 && v:
		w.b = append(w.b, "#t\r\n"...)
	case w.resp3:
		w.b = append(w.b, "#f\r\n"...)
	case v:
		w.b = append(w.b, ":1\r\n"...)
	default:
		w.b = append(w.b, ":0\r\n"...)
	}
}

// BigNumber writes a big number given in decimal (RESP2: a bulk string).
func (w *Writer) BigNumber(digits string) {
	if w.resp3 {
		w.b = append(w.b, '(')
		w.b = append(w.b, digits...)
		w.b = append(w.b, '\r', '\n')
		return
	}
	w.b = redcon.AppendBulkString(w.b, digits)
}

// Verbatim writes a verbatim string of the 3-letter format ("txt", "mkd")
// as Redis's addReplyVerbatim (RESP2: a bulk string of s).
func (w *Writer) Verbatim(format, s string) {
	if !w.resp3 {
		w.b = redcon.AppendBulkString(w.b, s)
		return
	}
	w.b = appendHeader(w.b, '=', len(s)+4)
	w.b = append(w.b, format...)
	w.b = append(w.b, ':')
	w.b = append(w.b, s...)
	w.b = append(w.b, '\r', '\n')
}

// Attribute writes the header of an attribute of n pairs; RESP2 has none,
// so nothing is written there (the attribute's pairs must not be either).
func (w *Writer) Attribute(n int) {
	if w.resp3 {
		w.b = appendHeader(w.b, '|', n)
	}
}

func appendHeader(b []byte, c byte, n int) []byte {
	b = append(b, c)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// Array writes an array header of n elements.
func (w *Writer) Array(n int) { w.b = redcon.AppendArray(w.b, n) }

// Raw appends already encoded RESP.
func (w *Writer) Raw(b []byte) { w.b = append(w.b, b...) }

// PatchArray rewrites an array header written as a placeholder at offset off
// by ArrayPlaceholder, once the element count is known. The placeholder is
// wide enough for any int32 count.
func (w *Writer) PatchArray(off, n int) {
	var tmp [16]byte
	h := redcon.AppendArray(tmp[:0], n)
	// Shift the body left over the unused part of the placeholder.
	pad := placeholderLen - len(h)
	copy(w.b[off:], h)
	copy(w.b[off+len(h):], w.b[off+placeholderLen:])
	w.b = w.b[:len(w.b)-pad]
}

const placeholderLen = 14 // "*" + 11 digits + CRLF

// PatchMap is PatchArray for a map of n pairs reserved with
// ArrayPlaceholder.
func (w *Writer) PatchMap(off, n int) {
	if !w.resp3 {
		w.PatchArray(off, 2*n)
		return
	}
	w.patch(off, '%', n)
}

// PatchSet is PatchArray for a set of n elements reserved with
// ArrayPlaceholder.
func (w *Writer) PatchSet(off, n int) {
	if !w.resp3 {
		w.PatchArray(off, n)
		return
	}
	w.patch(off, '~', n)
}

func (w *Writer) patch(off int, c byte, n int) {
	var tmp [16]byte
	h := appendHeader(tmp[:0], c, n)
	pad := placeholderLen - len(h)
	copy(w.b[off:], h)
	copy(w.b[off+len(h):], w.b[off+placeholderLen:])
	w.b = w.b[:len(w.b)-pad]
}

// ArrayPlaceholder reserves room for an array header whose length is not yet known
// and returns its offset for PatchArray.
func (w *Writer) ArrayPlaceholder() int {
	off := len(w.b)
	w.b = append(w.b, "*00000000000\r\n"...)
	return off
}
