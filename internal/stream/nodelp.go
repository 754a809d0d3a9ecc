package stream

import (
	"encoding/binary"
	"strconv"

	"github.com/limitkv/limitkv/internal/listpack"
)

// node is one radix tree key of Redis's stream: its master ID and its
// listpack, byte for byte the one t_stream.c builds, decoded on access.
// Entries are addressed by the byte offset of their flags element.
type node struct {
	master  ID
	lp      []byte
	count   int64 // live entries (the master entry's "count"), cached
	deleted int64 // tombstones (its "deleted"), cached
	first   int32 // offset of the first entry (after the master entry)
	// prealloc is, for the node XADD is filling, the room Redis's lpNew
	// gave it when it was created (4096 bytes, or stream-node-max-bytes
	// if smaller, as configured then); 0 once XADD moved on to a new node
	// (lpShrinkToFit) and for nodes loaded or copied, which are allocated
	// to size. MemoryUsage measures it.
	prealloc int
}

// eof is the offset of the listpack's terminator (the end position).
func (n *node) eof() int { return len(n.lp) - 1 }

// size is the listpack's size, lpBytes.
func (n *node) size() int { return len(n.lp) }

func (n *node) appendListpack(dst []byte) []byte { return append(dst, n.lp...) }

// computeBytes is lpBytes recomputed from the decoded content.
func (n *node) computeBytes() int {
	d, err := decodeNode(n.master, n.lp)
	if err != nil {
		return -1
	}
	return d.computeBytes()
}

// lpNext decodes the element at p of a valid listpack and returns it and
// the offset of the next element. It is listpack.Walk without the checks
// and the callback, for reads from any offset: a node's listpack was
// checked once, when built or loaded, and XRANGE and XREAD go through it
// element by element.
func lpNext(lp []byte, p int) (e lpElem, next int) {
	b := lp[p]
	var hdr, dlen int
	switch {
	case b&0x80 == 0:
		return lpElem{isInt: true, v: int64(b)}, p + 2
	case b&0xC0 == 0x80:
		hdr, dlen = 1, int(b&0x3f)
	case b&0xE0 == 0xC0:
		u := int64(b&0x1f)<<8 | int64(lp[p+1])
		if u >= 1<<12 {
			u -= 1 << 13
		}
		return lpElem{isInt: true, v: u}, p + 3
	case b&0xF0 == 0xE0:
		hdr, dlen = 2, int(b&0x0f)<<8|int(lp[p+1])
	case b == 0xF0:
		hdr, dlen = 5, int(binary.LittleEndian.Uint32(lp[p+1:p+5]))
	default: // 0xF1..0xF4
		k := [...]int{2, 3, 4, 8}[b-0xF1]
		var u uint64
		for i := k; i >= 1; i-- {
			u = u<<8 | uint64(lp[p+i])
		}
		shift := 64 - 8*uint(k)
		return lpElem{isInt: true, v: int64(u<<shift) >> shift}, p + 1 + k + listpack.BacklenSize(1+k)
	}
	l := hdr + dlen
	return lpElem{s: lp[p+hdr : p+l : p+l]}, p + l + listpack.BacklenSize(l)
}

// lpSkip returns the offset after the element at p.
func lpSkip(lp []byte, p int) int {
	_, next := lpNext(lp, p)
	return next
}

// lpPrev returns the offset of the element that ends at p, reading its
// back-length.
func lpPrev(lp []byte, p int) int {
	q := p - 1
	var l uint64
	var shift uint
	for {
		l |= uint64(lp[q]&127) << shift
		if lp[q]&128 == 0 {
			break
		}
		q--
		shift += 7
	}
	return q - int(l)
}

func lpInt(lp []byte, p int) (int64, int) {
	e, next := lpNext(lp, p)
	return e.v, next // every integer element of a node is integer-encoded
}

// field is the element as Fields holds it: aliasing the listpack for a
// string, in decimal for an integer.
func (e lpElem) field() []byte {
	if e.isInt {
		return strconv.AppendInt(nil, e.v, 10)
	}
	return e.s
}

// ent is an entry's header as scanned.
type ent struct {
	flags int64
	id    ID
	nf    int // field-value pairs
	vals  int // offset of its first field (or value when same fields)
	next  int // offset of the next entry (or eof)
}

func (e *ent) deleted() bool { return e.flags&flagDeleted != 0 }

// scan reads the entry at off.
func (n *node) scan(off int) ent {
	var e ent
	var ms, seq int64
	p := off
	e.flags, p = lpInt(n.lp, p)
	ms, p = lpInt(n.lp, p)
	seq, p = lpInt(n.lp, p)
	e.id = ID{n.master.Ms + uint64(ms), n.master.Seq + uint64(seq)}
	var nf int64
	k := 0
	if e.flags&flagSameFields != 0 {
		nf, _ = lpInt(n.lp, lpSkip(n.lp, lpSkip(n.lp, listpack.HeaderSize)))
		k = int(nf)
	} else {
		nf, p = lpInt(n.lp, p)
		k = 2 * int(nf)
	}
	e.nf, e.vals = int(nf), p
	for ; k > 0; k-- {
		p = lpSkip(n.lp, p)
	}
	e.next = lpSkip(n.lp, p) // lp-count
	return e
}

// idAt is the ID of the entry at off.
func (n *node) idAt(off int) ID {
	_, p := lpInt(n.lp, off)
	ms, p := lpInt(n.lp, p)
	seq, _ := lpInt(n.lp, p)
	return ID{n.master.Ms + uint64(ms), n.master.Seq + uint64(seq)}
}

// prev returns the offset of the entry before the one at off, or -1.
func (n *node) prev(off int) int {
	if off <= int(n.first) {
		return -1
	}
	p := lpPrev(n.lp, off)
	c, _ := lpInt(n.lp, p)
	for ; c > 0; c-- {
		p = lpPrev(n.lp, p)
	}
	return p
}

// last is the offset of the last entry.
func (n *node) last() int { return n.prev(n.eof()) }

// lastID is the ID of the last entry, tombstones included.
func (n *node) lastID() ID { return n.idAt(n.last()) }

// fields returns the entry's field-value pairs.
func (n *node) fields(e *ent) [][]byte {
	f := make([][]byte, 0, 2*e.nf)
	p := e.vals
	var x lpElem
	if e.flags&flagSameFields != 0 {
		// master fields: after count, deleted and the number of fields
		m := lpSkip(n.lp, lpSkip(n.lp, lpSkip(n.lp, listpack.HeaderSize)))
		for i := 0; i < e.nf; i++ {
			x, m = lpNext(n.lp, m)
			f = append(f, x.field())
			x, p = lpNext(n.lp, p)
			f = append(f, x.field())
		}
		return f
	}
	for i := 0; i < 2*e.nf; i++ {
		x, p = lpNext(n.lp, p)
		f = append(f, x.field())
	}
	return f
}

// markDeleted sets the deleted flag of the entry at off in place (flags
// 0..3 take one byte, their own value).
func (n *node) markDeleted(off int) { n.lp[off] |= flagDeleted }

// setCounters changes count and deleted as lpReplaceInteger does; the
// listpack is rebuilt when their encodings change width.
func (n *node) setCounters(count, deleted int64) {
	var buf [20]byte
	enc := listpack.AppendInt(listpack.AppendInt(buf[:0], count), deleted)
	old := listpack.IntSize(n.count) + listpack.IntSize(n.deleted)
	if len(enc) == old {
		copy(n.lp[listpack.HeaderSize:], enc)
	} else {
		lp := make([]byte, 0, len(n.lp)+len(enc)-old)
		lp = append(lp, n.lp[:listpack.HeaderSize]...)
		lp = append(lp, enc...)
		lp = append(lp, n.lp[listpack.HeaderSize+old:]...)
		n.lp = lp
		n.first += int32(len(enc) - old)
		binary.LittleEndian.PutUint32(n.lp, uint32(len(n.lp)))
	}
	n.count, n.deleted = count, deleted
}

// appendEntryElems appends an entry's elements (before the terminator).
func (n *node) appendEntryElems(id ID, flags int64, fields [][]byte) {
	lp := n.lp[:len(n.lp)-1]
	lp = listpack.AppendInt(lp, flags)
	lp = listpack.AppendInt(lp, int64(id.Ms-n.master.Ms))
	lp = listpack.AppendInt(lp, int64(id.Seq-n.master.Seq))
	nv := int64(len(fields) / 2)
	var k int64
	if flags&flagSameFields != 0 {
		for i := 1; i < len(fields); i += 2 {
			lp = listpack.AppendString(lp, fields[i])
		}
		k = nv + 3
	} else {
		lp = listpack.AppendInt(lp, nv)
		for _, f := range fields {
			lp = listpack.AppendString(lp, f)
		}
		k = 2*nv + 4
	}
	lp = listpack.AppendInt(lp, k)
	lp = append(lp, listpack.EOF)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	if num := int64(binary.LittleEndian.Uint16(lp[4:6])); num != listpack.NumeleUnknown {
		binary.LittleEndian.PutUint16(lp[4:6], uint16(min(num+k+1, listpack.NumeleUnknown)))
	}
	n.lp = lp
}

// newNode starts a node with its first entry, id, as streamAppendItem.
func newNode(id ID, fields [][]byte) *node {
	n := &node{master: id, count: 1}
	lp := make([]byte, listpack.HeaderSize, 64)
	lp = listpack.AppendInt(lp, 1)
	lp = listpack.AppendInt(lp, 0)
	lp = listpack.AppendInt(lp, int64(len(fields)/2))
	for i := 0; i < len(fields); i += 2 {
		lp = listpack.AppendString(lp, fields[i])
	}
	lp = listpack.AppendInt(lp, 0)
	n.first = int32(len(lp))
	lp = append(lp, listpack.EOF)
	binary.LittleEndian.PutUint16(lp[4:6], uint16(3+len(fields)/2+1))
	n.lp = lp
	n.appendEntryElems(id, flagSameFields, fields)
	return n
}

// sameMasterFields reports whether the fields of pairs equal the master
// fields, as streamAppendItem compares them.
func (n *node) sameMasterFields(pairs [][]byte) bool {
	p := lpSkip(n.lp, lpSkip(n.lp, listpack.HeaderSize))
	nf, p := lpInt(n.lp, p)
	if int(nf) != len(pairs)/2 {
		return false
	}
	var x lpElem
	for i := 0; i < len(pairs); i += 2 {
		x, p = lpNext(n.lp, p)
		if x.isInt {
			v, ok := listpack.StringToInt64(pairs[i])
			if !ok || v != x.v {
				return false
			}
		} else if string(x.s) != string(pairs[i]) {
			return false
		}
	}
	return true
}

// close shrinks the listpack to its size as Redis does when XADD starts a
// new node.
func (n *node) close() {
	if n.prealloc != 0 {
		n.prealloc = 0
		n.lp = append([]byte(nil), n.lp...)
	}
}

// nodeFromDecoded builds a node from a validated decoded one.
func nodeFromDecoded(d *decNode) *node {
	lp := d.appendListpack(make([]byte, 0, d.computeBytes()))
	n := &node{master: d.master, lp: lp, count: d.count, deleted: d.deleted}
	p := listpack.HeaderSize
	for k := 3 + len(d.masterFields) + 1; k > 0; k-- {
		p = lpSkip(lp, p)
	}
	n.first = int32(p)
	return n
}
