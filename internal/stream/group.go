package stream

import (
	"github.com/google/btree"
)

// ScgInvalidEntriesRead is SCG_INVALID_ENTRIES_READ: a group's entries
// read counter that is not known (XINFO shows null).
const ScgInvalidEntriesRead = -1

// NACK is a pending entry: delivered, not yet acknowledged. The group's
// PEL and its consumer's PEL share it, as in Redis.
type NACK struct {
	DeliveryTime  int64 // Unix ms of the last delivery
	DeliveryCount uint64
	Consumer      *Consumer
}

type pelItem struct {
	id   ID
	nack *NACK
}

func pelLess(a, b pelItem) bool { return a.id.Less(b.id) }

func newPEL() *btree.BTreeG[pelItem] { return btree.NewG(8, pelLess) }

// Consumer is a consumer of a group.
type Consumer struct {
	Name     string
	SeenTime int64 // Unix ms
	pel      *btree.BTreeG[pelItem]
}

// PendingCount is the size of the consumer's PEL.
func (c *Consumer) PendingCount() int { return c.pel.Len() }

// Pending calls fn for the consumer's pending IDs from start on, in order,
// until fn returns false.
func (c *Consumer) Pending(start ID, fn func(ID, *NACK) bool) {
	c.pel.AscendGreaterOrEqual(pelItem{id: start}, func(it pelItem) bool { return fn(it.id, it.nack) })
}

// Group is a consumer group.
type Group struct {
	Name   string
	LastID ID // last delivered ID
	// EntriesRead is the logical read counter, ScgInvalidEntriesRead when
	// unknown.
	EntriesRead int64
	pel         *btree.BTreeG[pelItem]
	consumers   *btree.BTreeG[*Consumer]
}

type groupIndex = btree.BTreeG[*Group]

// CreateGroup adds a group (XGROUP CREATE); entriesRead is
// ScgInvalidEntriesRead unless ENTRIESREAD was given. It fails with
// ErrBusyGroup if the name is taken.
func (s *Stream) CreateGroup(name string, last ID, entriesRead int64) (*Group, error) {
	if s.groups == nil {
		s.groups = btree.NewG(8, func(a, b *Group) bool { return a.Name < b.Name })
	}
	g := &Group{Name: name, LastID: last, EntriesRead: entriesRead, pel: newPEL(),
		consumers: btree.NewG(8, func(a, b *Consumer) bool { return a.Name < b.Name })}
	if _, dup := s.groups.Get(g); dup {
		return nil, ErrBusyGroup
	}
	s.groups.ReplaceOrInsert(g)
	return g, nil
}

// Group returns the group with this name, or nil.
func (s *Stream) Group(name string) *Group {
	if s.groups == nil {
		return nil
	}
	g, _ := s.groups.Get(&Group{Name: name})
	return g
}

// DestroyGroup removes a group (XGROUP DESTROY), reporting whether it
// existed.
func (s *Stream) DestroyGroup(name string) bool {
	if s.groups == nil {
		return false
	}
	_, ok := s.groups.Delete(&Group{Name: name})
	return ok
}

// Groups returns the groups in Redis's order (by name, bytewise).
func (s *Stream) Groups() []*Group {
	if s.groups == nil {
		return nil
	}
	out := make([]*Group, 0, s.groups.Len())
	s.groups.Ascend(func(g *Group) bool { out = append(out, g); return true })
	return out
}

// GroupCount is the number of groups.
func (s *Stream) GroupCount() int {
	if s.groups == nil {
		return 0
	}
	return s.groups.Len()
}

// SetID is XGROUP SETID.
func (g *Group) SetID(last ID, entriesRead int64) {
	g.LastID, g.EntriesRead = last, entriesRead
}

// Consumer returns the consumer with this name, or nil; it does not touch
// its seen-time (SLC_NO_REFRESH).
func (g *Group) Consumer(name string) *Consumer {
	c, _ := g.consumers.Get(&Consumer{Name: name})
	return c
}

// CreateConsumer adds a consumer seen at now (XGROUP CREATECONSUMER);
// it returns nil if one has that name.
func (g *Group) CreateConsumer(name string, now int64) *Consumer {
	if g.Consumer(name) != nil {
		return nil
	}
	c := &Consumer{Name: name, SeenTime: now, pel: newPEL()}
	g.consumers.ReplaceOrInsert(c)
	return c
}

// LookupOrCreateConsumer returns the consumer, its seen-time set to now
// (streamLookupConsumer), creating it if needed (as XREADGROUP, XCLAIM and
// XAUTOCLAIM do).
func (g *Group) LookupOrCreateConsumer(name string, now int64) (c *Consumer, created bool) {
	if c = g.Consumer(name); c != nil {
		c.SeenTime = now
		return c, false
	}
	return g.CreateConsumer(name, now), true
}

// DeleteConsumer removes a consumer and its pending entries (XGROUP
// DELCONSUMER), returning how many it had; ok is false if there was none.
func (g *Group) DeleteConsumer(name string) (pending int, ok bool) {
	c := g.Consumer(name)
	if c == nil {
		return 0, false
	}
	pending = c.pel.Len()
	c.pel.Ascend(func(it pelItem) bool { g.pel.Delete(it); return true })
	g.consumers.Delete(c)
	return pending, true
}

// Consumers returns the consumers in Redis's order (by name).
func (g *Group) Consumers() []*Consumer {
	out := make([]*Consumer, 0, g.consumers.Len())
	g.consumers.Ascend(func(c *Consumer) bool { out = append(out, c); return true })
	return out
}

// PendingCount is the size of the group's PEL.
func (g *Group) PendingCount() int { return g.pel.Len() }

// Pending calls fn for the group's pending IDs from start on, in order,
// until fn returns false.
func (g *Group) Pending(start ID, fn func(ID, *NACK) bool) {
	g.pel.AscendGreaterOrEqual(pelItem{id: start}, func(it pelItem) bool { return fn(it.id, it.nack) })
}

// NACK returns the pending entry with this ID, or nil.
func (g *Group) NACK(id ID) *NACK {
	it, ok := g.pel.Get(pelItem{id: id})
	if !ok {
		return nil
	}
	return it.nack
}

func (g *Group) dropNACK(id ID, n *NACK) {
	g.pel.Delete(pelItem{id: id})
	if n.Consumer != nil {
		n.Consumer.pel.Delete(pelItem{id: id})
	}
}

// Ack acknowledges IDs (XACK) and returns how many were pending.
func (g *Group) Ack(ids ...ID) int {
	n := 0
	for _, id := range ids {
		if nack := g.NACK(id); nack != nil {
			g.dropNACK(id, nack)
			n++
		}
	}
	return n
}

// ConsumerPending is one line of XPENDING's summary.
type ConsumerPending struct {
	Name  string
	Count int
}

// PendingSummary is XPENDING key group: the PEL size, its first and last
// IDs and the consumers that have pending entries, in name order.
func (g *Group) PendingSummary() (count int, first, last ID, consumers []ConsumerPending) {
	count = g.pel.Len()
	if count == 0 {
		return 0, ID{}, ID{}, nil
	}
	f, _ := g.pel.Min()
	l, _ := g.pel.Max()
	g.consumers.Ascend(func(c *Consumer) bool {
		if c.pel.Len() > 0 {
			consumers = append(consumers, ConsumerPending{c.Name, c.pel.Len()})
		}
		return true
	})
	return count, f.id, l.id, consumers
}

// PendingEntry is one line of XPENDING's extended form.
type PendingEntry struct {
	ID         ID
	Consumer   string
	Idle       int64 // ms since the last delivery, never negative
	Deliveries uint64
}

// PendingRange is XPENDING key group [IDLE min] start end count
// [consumer]: c nil means the whole group. A consumer name that does not
// exist gives an empty reply: pass a nil result then without calling this.
func (g *Group) PendingRange(start, end ID, count int64, minIdle int64, c *Consumer, now int64) []PendingEntry {
	pel := g.pel
	if c != nil {
		pel = c.pel
	}
	var out []PendingEntry
	if count <= 0 {
		return out
	}
	pel.AscendGreaterOrEqual(pelItem{id: start}, func(it pelItem) bool {
		if it.id.Compare(end) > 0 {
			return false
		}
		if minIdle != 0 && now-it.nack.DeliveryTime < minIdle {
			return true
		}
		idle := max(now-it.nack.DeliveryTime, 0)
		out = append(out, PendingEntry{it.id, it.nack.Consumer.Name, idle, it.nack.DeliveryCount})
		count--
		return count > 0
	})
	return out
}
