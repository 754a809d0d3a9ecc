package stream

import (
	"math"
	"slices"
)

// listpackMaxSize is STREAM_LISTPACK_MAX_SIZE: no listpack grows past it,
// and no entry's strings may add up to more.
const listpackMaxSize = 1 << 30

// Limits are the node limits of redis.conf.
type Limits struct {
	// NodeMaxBytes is stream-node-max-bytes (default 4096); 0 means no
	// limit but listpack's own (1 GiB).
	NodeMaxBytes int64
	// NodeMaxEntries is stream-node-max-entries (default 100); 0 means no
	// limit. Tombstones count.
	NodeMaxEntries int64
}

// DefaultLimits are Redis 7.0's defaults.
var DefaultLimits = Limits{NodeMaxBytes: 4096, NodeMaxEntries: 100}

// Entry is a stream entry as ranges return it. Fields alternates names and
// values; the slices alias the stream and must not be modified, and are
// valid until the stream is next modified.
type Entry struct {
	ID     ID
	Fields [][]byte
}

// Stream is a Redis stream. The zero value is not usable; call New.
type Stream struct {
	nodes        []*node // ascending master IDs
	length       uint64
	lastID       ID
	firstID      ID
	maxDeleted   ID
	entriesAdded uint64
	groups       *groupIndex // nil until the first group, as Redis
}

// New returns an empty stream.
func New() *Stream { return &Stream{} }

// Len is the number of entries (XLEN).
func (s *Stream) Len() uint64 { return s.length }

// LastID is the last generated ID ("last-generated-id").
func (s *Stream) LastID() ID { return s.lastID }

// FirstID is the recorded first entry ID ("recorded-first-entry-id"): the
// first live entry, 0-0 for an empty stream.
func (s *Stream) FirstID() ID { return s.firstID }

// MaxDeletedID is the largest ID deleted by XDEL ("max-deleted-entry-id").
func (s *Stream) MaxDeletedID() ID { return s.maxDeleted }

// EntriesAdded counts the entries ever added ("entries-added").
func (s *Stream) EntriesAdded() uint64 { return s.entriesAdded }

// Nodes is the number of nodes ("radix-tree-keys").
func (s *Stream) Nodes() int { return len(s.nodes) }

// nextID is streamNextID.
func nextID(last ID, now uint64) ID {
	if now > last.Ms {
		return ID{now, 0}
	}
	id, _ := last.Incr()
	return id
}

// Add appends an entry (XADD): fields alternates names and values and
// must hold at least one pair. now is the clock (Unix ms) for "*". It
// returns the ID added, or ErrIDZero, ErrExhausted, ErrIDTooSmall or
// ErrTooLarge, in the order XADD checks them once its arguments parsed.
func (s *Stream) Add(id AddID, fields [][]byte, now uint64, lim Limits) (ID, error) {
	if len(fields) == 0 || len(fields)%2 != 0 {
		panic("stream: Add needs field-value pairs")
	}
	if !id.Auto && !id.SeqAuto && id.ID.IsZero() {
		return ID{}, ErrIDZero
	}
	if s.lastID == MaxID {
		return ID{}, ErrExhausted
	}
	var nid ID
	switch {
	case id.Auto:
		nid = nextID(s.lastID, now)
	case id.SeqAuto:
		if s.lastID.Ms == id.ID.Ms {
			if s.lastID.Seq == math.MaxUint64 {
				// Redis returns here without setting errno; XADD then
				// reports the "too large" error.
				return ID{}, ErrTooLarge
			}
			nid = ID{s.lastID.Ms, s.lastID.Seq + 1}
		} else {
			nid = id.ID
		}
	default:
		nid = id.ID
	}
	if nid.Compare(s.lastID) <= 0 {
		return ID{}, ErrIDTooSmall
	}
	var tot int
	for _, f := range fields {
		tot += len(f)
	}
	if tot > listpackMaxSize {
		return ID{}, ErrTooLarge
	}
	s.appendEntry(nid, fields, tot, lim)
	return nid, nil
}

// appendEntry is the second half of streamAppendItem.
func (s *Stream) appendEntry(id ID, fields [][]byte, tot int, lim Limits) {
	var n *node
	if len(s.nodes) > 0 {
		n = s.nodes[len(s.nodes)-1]
		maxBytes := lim.NodeMaxBytes
		if maxBytes <= 0 || maxBytes > listpackMaxSize {
			maxBytes = listpackMaxSize
		}
		if int64(n.size())+int64(tot) >= maxBytes {
			n.close()
			n = nil
		} else if lim.NodeMaxEntries > 0 && n.count+n.deleted >= lim.NodeMaxEntries {
			n.close()
			n = nil
		}
	}
	if n == nil {
		n = newNode(id, fields)
		n.prealloc = streamPrealloc
		if lim.NodeMaxBytes > 0 && lim.NodeMaxBytes < streamPrealloc {
			n.prealloc = int(lim.NodeMaxBytes)
		}
		s.nodes = append(s.nodes, n)
	} else {
		n.setCounters(n.count+1, n.deleted)
		flags := int64(0)
		if n.sameMasterFields(fields) {
			flags = flagSameFields
		}
		n.appendEntryElems(id, flags, fields)
	}
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// pos is an entry position: node index and the entry's offset in its
// listpack (the terminator's offset past the last entry).
type pos struct{ n, off int }

// seek returns the position of the first entry (tombstones included) with
// an ID >= id, or {len(nodes), 0}.
func (s *Stream) seek(id ID) pos {
	// The last node whose master ID is <= id holds id if anyone does.
	ni, found := slices.BinarySearchFunc(s.nodes, id, func(n *node, t ID) int { return n.master.Compare(t) })
	if !found {
		ni--
	}
	if ni < 0 {
		return pos{0, s.firstOff(0)}
	}
	n := s.nodes[ni]
	for off := int(n.first); off < n.eof(); {
		e := n.scan(off)
		if e.id.Compare(id) >= 0 {
			return pos{ni, off}
		}
		off = e.next
	}
	return pos{ni + 1, s.firstOff(ni + 1)}
}

// firstOff is the offset of node i's first entry (0 past the last node).
func (s *Stream) firstOff(i int) int {
	if i >= len(s.nodes) {
		return 0
	}
	return int(s.nodes[i].first)
}

// at reports the entry at p, which must exist.
func (s *Stream) at(p pos) ent { return s.nodes[p.n].scan(p.off) }

func (s *Stream) entryAt(p pos, e *ent) Entry {
	return Entry{ID: e.id, Fields: s.nodes[p.n].fields(e)}
}

// Range calls fn for the entries with start <= ID <= end, in order (or in
// reverse order), until fn returns false. The stream must not be modified
// from fn.
func (s *Stream) Range(start, end ID, rev bool, fn func(Entry) bool) {
	if start.Compare(end) > 0 {
		return
	}
	if !rev {
		for p := s.seek(start); p.n < len(s.nodes); {
			n := s.nodes[p.n]
			for p.off < n.eof() {
				e := n.scan(p.off)
				if !e.deleted() {
					if e.id.Compare(end) > 0 {
						return
					}
					if !fn(s.entryAt(p, &e)) {
						return
					}
				}
				p.off = e.next
			}
			p = pos{p.n + 1, s.firstOff(p.n + 1)}
		}
		return
	}
	p := s.seek(end)
	// p is the first entry >= end; step back unless it is end itself.
	if p.n == len(s.nodes) || s.nodes[p.n].idAt(p.off) != end {
		if p.n < len(s.nodes) {
			p.off = s.nodes[p.n].prev(p.off)
		} else {
			p.off = -1
		}
		if p.off < 0 {
			p.n--
		}
	}
	for ; p.n >= 0; p.n-- {
		n := s.nodes[p.n]
		if p.off < 0 {
			p.off = n.last()
		}
		for ; p.off >= 0; p.off = n.prev(p.off) {
			e := n.scan(p.off)
			if e.deleted() {
				continue
			}
			if e.id.Compare(start) < 0 {
				return
			}
			if !fn(s.entryAt(p, &e)) {
				return
			}
		}
	}
}

// Get returns the live entry with this ID.
func (s *Stream) Get(id ID) (Entry, bool) {
	p, e, ok := s.find(id)
	if !ok {
		return Entry{}, false
	}
	return s.entryAt(p, &e), true
}

// find returns the live entry with this ID.
func (s *Stream) find(id ID) (pos, ent, bool) {
	p := s.seek(id)
	if p.n == len(s.nodes) {
		return p, ent{}, false
	}
	e := s.at(p)
	if e.id != id || e.deleted() {
		return p, ent{}, false
	}
	return p, e, true
}

// Exists reports whether a live entry has this ID (streamEntryExists).
func (s *Stream) Exists(id ID) bool {
	_, _, ok := s.find(id)
	return ok
}

// First returns the first live entry.
func (s *Stream) First() (e Entry, ok bool) {
	s.Range(ID{}, MaxID, false, func(x Entry) bool { e, ok = x, true; return false })
	return
}

// Last returns the last live entry.
func (s *Stream) Last() (e Entry, ok bool) {
	s.Range(ID{}, MaxID, true, func(x Entry) bool { e, ok = x, true; return false })
	return
}

// edgeID is streamGetEdgeID: the first (or last) entry's ID, tombstones
// included or not; MaxID (0-0 for the last) when there is none.
func (s *Stream) edgeID(first, skipTombstones bool) ID {
	if first {
		for _, n := range s.nodes {
			for off := int(n.first); off < n.eof(); {
				e := n.scan(off)
				if !skipTombstones || !e.deleted() {
					return e.id
				}
				off = e.next
			}
		}
		return MaxID
	}
	for k := len(s.nodes) - 1; k >= 0; k-- {
		n := s.nodes[k]
		for off := n.last(); off >= 0; off = n.prev(off) {
			if flags, _ := lpInt(n.lp, off); !skipTombstones || flags&flagDeleted == 0 {
				return n.idAt(off)
			}
		}
	}
	return ID{}
}

// FirstStoredID is the first entry's ID counting tombstones, which XADD
// and XTRIM propagate as MINID after an approximate trim (MaxID when the
// stream has no nodes).
func (s *Stream) FirstStoredID() ID { return s.edgeID(true, false) }

// LastValidID is the last live entry's ID, 0-0 when empty
// (streamLastValidID).
func (s *Stream) LastValidID() ID { return s.edgeID(false, true) }

// removeEntry is streamIteratorRemoveEntry for a live entry.
func (s *Stream) removeEntry(p pos) {
	n := s.nodes[p.n]
	n.markDeleted(p.off) // 0..3 always take one byte: size unchanged
	if n.count == 1 {
		s.nodes = slices.Delete(s.nodes, p.n, p.n+1)
	} else {
		n.setCounters(n.count-1, n.deleted+1)
	}
	s.length--
}

// Delete deletes entries by ID as XDEL does and returns how many existed.
// It updates the max deleted ID and the first ID as XDEL does.
func (s *Stream) Delete(ids ...ID) int {
	deleted, firstEntry := 0, false
	for _, id := range ids {
		p, _, ok := s.find(id)
		if !ok {
			continue
		}
		s.removeEntry(p)
		if id == s.firstID {
			firstEntry = true
		}
		if id.Compare(s.maxDeleted) > 0 {
			s.maxDeleted = id
		}
		deleted++
	}
	if deleted > 0 {
		if s.length == 0 {
			s.firstID = ID{}
		} else if firstEntry {
			s.firstID = s.edgeID(true, true)
		}
	}
	return deleted
}

// TrimStrategy selects MAXLEN or MINID.
type TrimStrategy int

const (
	TrimNone TrimStrategy = iota
	TrimMaxLen
	TrimMinID
)

// TrimArgs are XADD's and XTRIM's trimming options.
type TrimArgs struct {
	Strategy TrimStrategy
	MaxLen   int64 // MAXLEN: entries to keep
	MinID    ID    // MINID: the smallest ID to keep
	Approx   bool  // "~": remove whole nodes only
	// Limit caps the entries removed (0: none). XADD/XTRIM set it to
	// DefaultTrimLimit for "~" without LIMIT, to 0 for exact trimming.
	Limit int64
}

// DefaultTrimLimit is the LIMIT that "~" gets when none is given.
func DefaultTrimLimit(lim Limits) int64 {
	l := 100 * lim.NodeMaxEntries
	if l <= 0 {
		l = 10000
	}
	if l > 1000000 {
		l = 1000000
	}
	return l
}

// Trim is streamTrim: it removes entries from the head and returns how
// many, counted as Redis counts them.
func (s *Stream) Trim(a TrimArgs) int64 {
	if a.Strategy == TrimNone {
		return 0
	}
	maxlen := uint64(a.MaxLen)
	var deleted int64
	for len(s.nodes) > 0 {
		if a.Strategy == TrimMaxLen && s.length <= maxlen {
			break
		}
		n := s.nodes[0]
		entries := n.count
		if a.Limit != 0 && deleted+entries > a.Limit {
			break
		}
		var remove bool
		if a.Strategy == TrimMaxLen {
			remove = s.length-uint64(entries) >= maxlen
		} else {
			remove = n.lastID().Less(a.MinID)
		}
		if remove {
			s.nodes = slices.Delete(s.nodes, 0, 1)
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.Approx {
			break
		}
		var fromNode int64
		for off := int(n.first); off < n.eof(); {
			e := n.scan(off)
			var stop bool
			if a.Strategy == TrimMaxLen {
				stop = s.length <= maxlen
			} else {
				stop = e.id.Compare(a.MinID) >= 0
			}
			if stop {
				break
			}
			next := e.next
			if !e.deleted() {
				n.markDeleted(off)
				fromNode++
				s.length--
			}
			off = next
		}
		deleted += fromNode
		n.setCounters(entries-fromNode, n.deleted+fromNode)
		break
	}
	if s.length == 0 {
		s.firstID = ID{}
	} else if deleted > 0 {
		s.firstID = s.edgeID(true, true)
	}
	return deleted
}

// CheckSetIDArgs is XSETID's argument check, made before the key is
// looked up: entriesAdded is -1 when not given, maxDeleted 0-0.
func CheckSetIDArgs(id ID, entriesAdded int64, maxDeleted ID) error {
	if entriesAdded < -1 {
		return ErrEntriesAddedNeg
	}
	if id.Less(maxDeleted) {
		return ErrSetIDMaxDeleted
	}
	return nil
}

// SetID is XSETID (after CheckSetIDArgs): entriesAdded -1 and maxDeleted
// 0-0 leave those unchanged.
func (s *Stream) SetID(id ID, entriesAdded int64, maxDeleted ID) error {
	if err := CheckSetIDArgs(id, entriesAdded, maxDeleted); err != nil {
		return err
	}
	if s.length > 0 {
		if id.Less(s.LastValidID()) {
			return ErrSetIDTooSmall
		}
		if entriesAdded != -1 && s.length > uint64(entriesAdded) {
			return ErrSetIDEntriesAdded
		}
	}
	s.lastID = id
	if entriesAdded != -1 {
		s.entriesAdded = uint64(entriesAdded)
	}
	if !maxDeleted.IsZero() {
		s.maxDeleted = maxDeleted
	}
	return nil
}
