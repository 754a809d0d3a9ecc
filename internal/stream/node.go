package stream

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/limitkv/limitkv/internal/listpack"
)

// Entry flags, as t_stream.c stores them in the listpack.
const (
	flagDeleted    = 1 << 0
	flagSameFields = 1 << 1
)

// nodeEntry is one entry of a node, tombstones included.
type nodeEntry struct {
	flags   int64
	msDiff  int64 // id.Ms - master.Ms, wrapped into an int64 as lpAppendInteger stores it
	seqDiff int64
	fields  [][]byte // nil when flagSameFields
	values  [][]byte
}

func (e *nodeEntry) deleted() bool { return e.flags&flagDeleted != 0 }

// lpCount is the entry's lp-count element: how many elements precede it.
func (e *nodeEntry) lpCount() int64 {
	n := int64(len(e.values)) + 3
	if e.flags&flagSameFields == 0 {
		n += int64(len(e.values)) + 1
	}
	return n
}

// size is the entry's bytes in the listpack.
func (e *nodeEntry) size() int {
	n := listpack.IntSize(e.flags) + listpack.IntSize(e.msDiff) + listpack.IntSize(e.seqDiff)
	if e.flags&flagSameFields == 0 {
		n += listpack.IntSize(int64(len(e.values)))
		for _, f := range e.fields {
			n += listpack.StringSize(f)
		}
	}
	for _, v := range e.values {
		n += listpack.StringSize(v)
	}
	return n + listpack.IntSize(e.lpCount())
}

// decNode is a node decoded (for validation and tests).
type decNode struct {
	master       ID
	count        int64 // live entries (the master entry's "count")
	deleted      int64 // tombstones (its "deleted")
	masterFields [][]byte
	entries      []nodeEntry
	bytes        int // the listpack's size, lpBytes
}

func (n *decNode) id(i int) ID {
	e := &n.entries[i]
	return ID{n.master.Ms + uint64(e.msDiff), n.master.Seq + uint64(e.seqDiff)}
}

// masterSize is the bytes of the master entry.
func (n *decNode) masterSize() int {
	s := listpack.IntSize(n.count) + listpack.IntSize(n.deleted) + listpack.IntSize(int64(len(n.masterFields)))
	for _, f := range n.masterFields {
		s += listpack.StringSize(f)
	}
	return s + listpack.IntSize(0)
}

// computeBytes is lpBytes from scratch.
func (n *decNode) computeBytes() int {
	s := listpack.HeaderSize + 1 + n.masterSize()
	for i := range n.entries {
		s += n.entries[i].size()
	}
	return s
}

// elements is the number of listpack elements (for the header).
func (n *decNode) elements() int {
	k := 3 + len(n.masterFields) + 1
	for i := range n.entries {
		k += int(n.entries[i].lpCount()) + 1
	}
	return k
}

// appendListpack appends the node's listpack, byte for byte Redis's.
func (n *decNode) appendListpack(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0)
	dst = listpack.AppendInt(dst, n.count)
	dst = listpack.AppendInt(dst, n.deleted)
	dst = listpack.AppendInt(dst, int64(len(n.masterFields)))
	for _, f := range n.masterFields {
		dst = listpack.AppendString(dst, f)
	}
	dst = listpack.AppendInt(dst, 0)
	for i := range n.entries {
		e := &n.entries[i]
		dst = listpack.AppendInt(dst, e.flags)
		dst = listpack.AppendInt(dst, e.msDiff)
		dst = listpack.AppendInt(dst, e.seqDiff)
		if e.flags&flagSameFields == 0 {
			dst = listpack.AppendInt(dst, int64(len(e.values)))
			for j, v := range e.values {
				dst = listpack.AppendString(dst, e.fields[j])
				dst = listpack.AppendString(dst, v)
			}
		} else {
			for _, v := range e.values {
				dst = listpack.AppendString(dst, v)
			}
		}
		dst = listpack.AppendInt(dst, e.lpCount())
	}
	dst = append(dst, listpack.EOF)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	k := n.elements()
	if k > listpack.NumeleUnknown {
		k = listpack.NumeleUnknown
	}
	binary.LittleEndian.PutUint16(dst[start+4:], uint16(k))
	return dst
}

// ErrCorrupt is wrapped by every error of the loading functions.
var ErrCorrupt = errors.New("stream: corrupt stream data")

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
}

// decodeNode checks a listpack as streamValidateListpackIntegrity does in
// deep mode, plus what this package relies on (counters that match the
// flags, at least one entry, IDs in order), and decodes it.
func decodeNode(master ID, lp []byte) (*decNode, error) {
	els, err := lpDecode(lp)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if len(els) == 0 {
		return nil, corrupt("empty listpack inside stream")
	}
	p := 0
	nextInt := func() (int64, bool) {
		if p >= len(els) {
			return 0, false
		}
		v, ok := els[p].integer()
		p++
		return v, ok
	}
	nextStr := func() ([]byte, bool) {
		if p >= len(els) {
			return nil, false
		}
		p++
		return els[p-1].bytes(), true
	}
	bad := corrupt("stream listpack integrity check failed")
	n := &decNode{master: master, bytes: len(lp)}
	var ok1, ok2, ok3 bool
	n.count, ok1 = nextInt()
	n.deleted, ok2 = nextInt()
	nmf, ok3 := nextInt()
	if !ok1 || !ok2 || !ok3 || n.count < 0 || n.deleted < 0 || nmf < 0 || nmf > int64(len(els)) {
		return nil, bad
	}
	for j := int64(0); j < nmf; j++ {
		f, ok := nextStr()
		if !ok {
			return nil, bad
		}
		n.masterFields = append(n.masterFields, f)
	}
	if z, ok := nextInt(); !ok || z != 0 {
		return nil, bad
	}
	total := n.count + n.deleted
	if total > int64(len(els)) {
		return nil, bad
	}
	var live, dead int64
	prev := ID{}
	for k := int64(0); k < total; k++ {
		var e nodeEntry
		var ok bool
		if e.flags, ok = nextInt(); !ok || e.flags < 0 || e.flags > flagDeleted|flagSameFields {
			return nil, bad
		}
		if e.msDiff, ok = nextInt(); !ok {
			return nil, bad
		}
		if e.seqDiff, ok = nextInt(); !ok {
			return nil, bad
		}
		nf := nmf
		if e.flags&flagSameFields == 0 {
			if nf, ok = nextInt(); !ok || nf < 0 || nf > int64(len(els)) {
				return nil, bad
			}
		}
		if int64(len(els)-p) < nf {
			return nil, bad
		}
		for j := int64(0); j < nf; j++ {
			if e.flags&flagSameFields == 0 {
				f, _ := nextStr()
				e.fields = append(e.fields, f)
			}
			v, ok := nextStr()
			if !ok {
				return nil, bad
			}
			e.values = append(e.values, v)
		}
		if e.flags&flagSameFields == 0 && e.values == nil {
			e.fields, e.values = [][]byte{}, [][]byte{}
		}
		if lc, ok := nextInt(); !ok || lc != e.lpCount() {
			return nil, bad
		}
		if nf == 0 {
			// Redis never writes an entry without fields (XADD needs one).
			return nil, corrupt("stream entry without fields")
		}
		n.entries = append(n.entries, e)
		id := n.id(len(n.entries) - 1)
		if len(n.entries) == 1 {
			if id.Less(master) {
				return nil, corrupt("stream entry %s before its node's master ID %s", id, master)
			}
		} else if !prev.Less(id) {
			return nil, corrupt("stream entries out of order (%s after %s)", id, prev)
		}
		prev = id
		if e.deleted() {
			dead++
		} else {
			live++
		}
	}
	if p != len(els) {
		return nil, bad
	}
	// A node may hold tombstones only: an exact MINID trim marks every live
	// entry of a node whose last entry is a tombstone past MINID.
	if live != n.count || dead != n.deleted || len(n.entries) == 0 {
		return nil, corrupt("stream node counters (%d live, %d deleted) do not match its entries", n.count, n.deleted)
	}
	return n, nil
}
