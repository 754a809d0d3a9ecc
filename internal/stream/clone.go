package stream

import "slices"

// Clone returns a deep copy (COPY, as Redis's streamDup): nodes, metadata,
// groups, PELs and consumers. A NACK stays shared between its group's PEL
// and its consumer's PEL in the copy, as in the original.
func (s *Stream) Clone() *Stream {
	c := &Stream{length: s.length, lastID: s.lastID, firstID: s.firstID,
		maxDeleted: s.maxDeleted, entriesAdded: s.entriesAdded}
	c.nodes = make([]*node, len(s.nodes))
	for i, n := range s.nodes {
		m := *n
		m.prealloc = 0 // streamDup allocates each listpack to size
		m.lp = slices.Clone(n.lp)
		c.nodes[i] = &m
	}
	if s.groups == nil {
		return c
	}
	for _, g := range s.Groups() {
		ng, _ := c.CreateGroup(g.Name, g.LastID, g.EntriesRead)
		// The copy of each NACK, found by the original's pointer, so a
		// consumer's PEL points at the same copy as the group's.
		nacks := make(map[*NACK]*NACK, g.pel.Len())
		consumers := make(map[*Consumer]*Consumer, g.consumers.Len())
		g.consumers.Ascend(func(oc *Consumer) bool {
			nc := &Consumer{Name: oc.Name, SeenTime: oc.SeenTime, pel: newPEL()}
			ng.consumers.ReplaceOrInsert(nc)
			consumers[oc] = nc
			return true
		})
		g.pel.Ascend(func(it pelItem) bool {
			n := &NACK{DeliveryTime: it.nack.DeliveryTime, DeliveryCount: it.nack.DeliveryCount, Consumer: consumers[it.nack.Consumer]}
			nacks[it.nack] = n
			ng.pel.ReplaceOrInsert(pelItem{it.id, n})
			return true
		})
		g.consumers.Ascend(func(oc *Consumer) bool {
			nc := consumers[oc]
			oc.pel.Ascend(func(it pelItem) bool {
				nc.pel.ReplaceOrInsert(pelItem{it.id, nacks[it.nack]})
				return true
			})
			return true
		})
	}
	return c
}
