package repl

// Backlog is the replication backlog: the last Size bytes of the
// replication stream, so that a replica that lost its link can continue
// from the offset it reached (PSYNC's partial resync) instead of loading
// the whole dataset again. Offsets are those of the stream: the first byte
// ever written to it is offset 1, as in Redis (master_repl_offset counts
// the bytes so far, and a replica asks for the first byte it lacks).
//
// Redis 7.0 shares the stream's buffer blocks between the backlog and the
// replicas' output buffers; here each replica's output buffer holds its own
// copy (the connection's writer), and the backlog is a plain ring.
type Backlog struct {
	buf  []byte
	pos  int   // where the next byte goes in buf
	hist int   // bytes held (repl_backlog_histlen)
	off  int64 // offset of the first byte held (repl_backlog->offset)
}

// NewBacklog returns an empty backlog of size bytes whose first byte will
// be the stream's byte at next (master_repl_offset+1).
func NewBacklog(size int, next int64) *Backlog {
	return &Backlog{buf: make([]byte, max(size, 1)), off: next}
}

// Size is the ring's capacity (repl-backlog-size).
func (b *Backlog) Size() int { return len(b.buf) }

// First is the offset of the oldest byte held (repl_backlog_first_byte_offset).
func (b *Backlog) First() int64 { return b.off }

// Histlen is how many bytes are held (repl_backlog_histlen).
func (b *Backlog) Histlen() int { return b.hist }

// Write appends p, dropping the oldest bytes past the size.
func (b *Backlog) Write(p []byte) {
	if len(p) >= len(b.buf) {
		// Only the tail fits: everything before it is gone.
		drop := len(p) - len(b.buf)
		b.off += int64(b.hist + drop)
		copy(b.buf, p[drop:])
		b.pos, b.hist = 0, len(b.buf)
		return
	}
	n := copy(b.buf[b.pos:], p)
	if n < len(p) {
		copy(b.buf, p[n:])
	}
	b.pos = (b.pos + len(p)) % len(b.buf)
	b.hist += len(p)
	if over := b.hist - len(b.buf); over > 0 {
		b.off += int64(over)
		b.hist = len(b.buf)
	}
}

// Has reports whether a replica asking for offset can continue from here:
// every byte from offset on is held (offset one past the end means it has
// them all already).
func (b *Backlog) Has(offset int64) bool {
	return offset >= b.off && offset <= b.off+int64(b.hist)
}

// AppendFrom appends the bytes from offset to the end to dst. offset must
// satisfy Has.
func (b *Backlog) AppendFrom(dst []byte, offset int64) []byte {
	skip := int(offset - b.off)
	n := b.hist - skip
	if n <= 0 {
		return dst
	}
	start := (b.pos - b.hist + skip + 2*len(b.buf)) % len(b.buf)
	if start+n <= len(b.buf) {
		return append(dst, b.buf[start:start+n]...)
	}
	dst = append(dst, b.buf[start:]...)
	return append(dst, b.buf[:n-(len(b.buf)-start)]...)
}

// Resize changes the capacity, keeping the newest bytes that fit
// (CONFIG SET repl-backlog-size).
func (b *Backlog) Resize(size int) {
	size = max(size, 1)
	if size == len(b.buf) {
		return
	}
	keep := min(b.hist, size)
	data := b.AppendFrom(make([]byte, 0, size), b.off+int64(b.hist-keep))
	nb := make([]byte, size)
	copy(nb, data)
	b.off += int64(b.hist - keep)
	b.buf, b.pos, b.hist = nb, keep%size, keep
}
