package stream

// Access and loading for RDB: the package rdb writes a stream from what
// these return and rebuilds one through the Load methods, which check what
// Redis's loader checks with sanitize-dump-payload yes, and also what this
// package's invariants need (entries in ID order, counters matching the
// entries, the length matching the nodes): a payload Redis could not have
// written may be refused here while Redis would load it.

// EachNode calls fn for each node in order with its master ID and its
// listpack, the node's own bytes (not to be modified nor kept past fn).
// buf is unused.
func (s *Stream) EachNode(buf []byte, fn func(master ID, lp []byte) error) error {
	for _, n := range s.nodes {
		if err := fn(n.master, n.lp); err != nil {
			return err
		}
	}
	return nil
}

// LoadNode appends a node read from an RDB file. Nodes must come in
// ascending order, each after the previous one's entries.
func (s *Stream) LoadNode(master ID, lp []byte) error {
	d, err := decodeNode(master, lp)
	if err != nil {
		return err
	}
	// Redis's listpack as it was written (re-encoding a valid one gives
	// the same bytes, and the canonical form for one Redis accepts but
	// would not write, such as integers stored as strings).
	n := nodeFromDecoded(d)
	if k := len(s.nodes); k > 0 {
		prev := s.nodes[k-1]
		if !prev.lastID().Less(master) {
			return corrupt("stream node %s out of order", master)
		}
	}
	s.nodes = append(s.nodes, n)
	return nil
}

// Meta is the stream's metadata in the RDB record.
type Meta struct {
	Length       uint64
	LastID       ID
	FirstID      ID // RDB_TYPE_STREAM_LISTPACKS_2 only
	MaxDeletedID ID // idem
	EntriesAdded uint64
	// V1 marks an RDB_TYPE_STREAM_LISTPACKS record, which has no FirstID,
	// MaxDeletedID nor EntriesAdded: they are derived as Redis derives
	// them.
	V1 bool
}

// LoadMeta sets the metadata after the nodes were loaded.
func (s *Stream) LoadMeta(m Meta) error {
	var live uint64
	for _, n := range s.nodes {
		live += uint64(n.count)
	}
	if live != m.Length {
		return corrupt("stream length %d, but its nodes hold %d entries", m.Length, live)
	}
	if k := len(s.nodes); k > 0 {
		n := s.nodes[k-1]
		if m.LastID.Less(n.lastID()) {
			return corrupt("stream last ID %s before its last entry", m.LastID)
		}
	}
	s.length, s.lastID = m.Length, m.LastID
	if m.V1 {
		s.maxDeleted = ID{}
		s.entriesAdded = m.Length
		s.firstID = s.edgeID(true, true) // MaxID when empty, as Redis
	} else {
		s.firstID, s.maxDeleted, s.entriesAdded = m.FirstID, m.MaxDeletedID, m.EntriesAdded
	}
	return nil
}

// LoadGroup adds a group read from an RDB file. For a V1 record pass
// entriesRead ScgInvalidEntriesRead and v1 true: the counter is then
// estimated as Redis does.
func (s *Stream) LoadGroup(name string, last ID, entriesRead int64, v1 bool) (*Group, error) {
	if v1 {
		entriesRead = s.EstimateDistance(last)
	}
	g, err := s.CreateGroup(name, last, entriesRead)
	if err != nil {
		return nil, corrupt("duplicated consumer group name %q", name)
	}
	return g, nil
}

// LoadNACK adds an entry of the group's PEL, its consumer to be set by
// LoadConsumerPending.
func (g *Group) LoadNACK(id ID, deliveryTime int64, deliveryCount uint64) error {
	if _, dup := g.pel.Get(pelItem{id: id}); dup {
		return corrupt("duplicated global PEL entry")
	}
	g.pel.ReplaceOrInsert(pelItem{id, &NACK{DeliveryTime: deliveryTime, DeliveryCount: deliveryCount}})
	return nil
}

// LoadConsumer adds a consumer.
func (g *Group) LoadConsumer(name string, seenTime int64) (*Consumer, error) {
	c := g.CreateConsumer(name, seenTime)
	if c == nil {
		return nil, corrupt("duplicate stream consumer %q", name)
	}
	return c, nil
}

// LoadConsumerPending gives c the group's pending entry id.
func (g *Group) LoadConsumerPending(c *Consumer, id ID) error {
	n := g.NACK(id)
	if n == nil {
		return corrupt("consumer entry not found in group global PEL")
	}
	if _, dup := c.pel.Get(pelItem{id: id}); dup {
		return corrupt("duplicated consumer PEL entry")
	}
	if n.Consumer != nil {
		// Redis would let the last consumer win and leave a stale reference
		// in the other's PEL; this package needs one owner.
		return corrupt("PEL entry %s owned by two consumers", id)
	}
	n.Consumer = c
	c.pel.ReplaceOrInsert(pelItem{id, n})
	return nil
}

// CheckLoaded verifies that every pending entry got a consumer (what
// sanitize-dump-payload checks).
func (g *Group) CheckLoaded() error {
	var err error
	g.pel.Ascend(func(it pelItem) bool {
		if it.nack.Consumer == nil {
			err = corrupt("stream CG PEL entry without consumer")
			return false
		}
		return true
	})
	return err
}
