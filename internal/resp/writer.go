package resp

import (
	"github.com/tidwall/redcon"
)

// Writer accumulates RESP2 replies in one buffer that the connection flushes
// once per pipelined batch. Encoding comes from redcon's Append* helpers.
type Writer struct {
	b []byte
}

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

// Truncate drops everything written after n bytes (n from an earlier Len).
func (w *Writer) Truncate(n int) { w.b = w.b[:n] }

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

// Null writes the RESP2 null bulk string.
func (w *Writer) Null() { w.b = redcon.AppendNull(w.b) }

// NullArray writes the RESP2 null array.
func (w *Writer) NullArray() { w.b = append(w.b, "*-1\r\n"...) }

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

// ArrayPlaceholder reserves room for an array header whose length is not yet known
// and returns its offset for PatchArray.
func (w *Writer) ArrayPlaceholder() int {
	off := len(w.b)
	w.b = append(w.b, "*00000000000\r\n"...)
	return off
}
