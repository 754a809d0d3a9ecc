package stream

// RangeHasTombstones is streamRangeHasTombstones over [start, MaxID]:
// whether a deleted entry may lie in the range, judged from the max
// deleted ID alone, as Redis judges it.
func (s *Stream) RangeHasTombstones(start ID) bool {
	if s.length == 0 || s.maxDeleted.IsZero() {
		return false
	}
	if s.firstID.Compare(s.maxDeleted) > 0 {
		return false
	}
	return start.Compare(s.maxDeleted) <= 0
}

// EstimateDistance is streamEstimateDistanceFromFirstEverEntry: the
// logical read counter of id, or ScgInvalidEntriesRead when it cannot be
// known.
func (s *Stream) EstimateDistance(id ID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.Compare(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	switch c := id.Compare(s.lastID); {
	case c == 0:
		return int64(s.entriesAdded)
	case c > 0:
		return ScgInvalidEntriesRead
	}
	cmpFirst := id.Compare(s.firstID)
	if s.maxDeleted.IsZero() || s.maxDeleted.Less(s.firstID) {
		if cmpFirst < 0 {
			return int64(s.entriesAdded - s.length)
		} else if cmpFirst == 0 {
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return ScgInvalidEntriesRead
}

// Lag is a group's lag as XINFO reports it (streamReplyWithCGLag); ok is
// false when Redis replies null.
func (s *Stream) Lag(g *Group) (lag int64, ok bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	if g.EntriesRead != ScgInvalidEntriesRead && !s.RangeHasTombstones(g.LastID) {
		return int64(s.entriesAdded) - g.EntriesRead, true
	}
	if er := s.EstimateDistance(g.LastID); er != ScgInvalidEntriesRead {
		return int64(s.entriesAdded) - er, true
	}
	return 0, false
}

// ReadGroup is streamReplyWithRange for a group (XREADGROUP serving new
// entries): it calls fn for the live entries from start on (at most count
// of them, 0 meaning all), advancing the group's last ID and entries read
// and, unless noack, recording each in the PELs as delivered at now to c.
// It returns how many were served.
func (s *Stream) ReadGroup(g *Group, c *Consumer, start ID, count int, noack bool, now int64, fn func(Entry)) int {
	var served []Entry
	s.Range(start, MaxID, false, func(e Entry) bool {
		served = append(served, e)
		return count == 0 || len(served) < count
	})
	for _, e := range served {
		id := e.ID
		if id.Compare(g.LastID) > 0 {
			if g.EntriesRead != ScgInvalidEntriesRead && !s.RangeHasTombstones(id) {
				g.EntriesRead++
			} else if s.entriesAdded != 0 {
				g.EntriesRead = s.EstimateDistance(id)
			}
			g.LastID = id
		}
		fn(e)
		if !noack {
			if it, ok := g.pel.Get(pelItem{id: id}); ok {
				// Already pending (SETID moved the group back): the entry
				// moves to this consumer and its delivery count restarts.
				n := it.nack
				n.Consumer.pel.Delete(pelItem{id: id})
				n.Consumer, n.DeliveryTime, n.DeliveryCount = c, now, 1
				c.pel.ReplaceOrInsert(pelItem{id, n})
			} else {
				n := &NACK{DeliveryTime: now, DeliveryCount: 1, Consumer: c}
				g.pel.ReplaceOrInsert(pelItem{id, n})
				c.pel.ReplaceOrInsert(pelItem{id, n})
			}
		}
	}
	return len(served)
}

// ReadNew is XREADGROUP with ">": if the stream has live entries after
// the group's last ID it serves them as ReadGroup does and reports true;
// otherwise it does nothing (the command blocks or replies null).
func (s *Stream) ReadNew(g *Group, c *Consumer, count int, noack bool, now int64, fn func(Entry)) (served bool, n int) {
	if s.length == 0 || s.LastValidID().Compare(g.LastID) <= 0 {
		return false, 0
	}
	start, _ := g.LastID.Incr()
	return true, s.ReadGroup(g, c, start, count, noack, now, fn)
}

// ReadHistory is streamReplyWithRangeFromConsumerPEL (XREADGROUP with an
// ID: the command passes that ID incremented as start). For each of c's
// pending IDs from start on (at most count, 0 meaning all) it calls fn
// with the entry, or exists false when the entry was deleted (Redis then
// replies the ID with a null); delivered entries get delivery time now and
// one more delivery.
func (s *Stream) ReadHistory(c *Consumer, start ID, count int, now int64, fn func(id ID, e Entry, exists bool)) int {
	var items []pelItem
	c.pel.AscendGreaterOrEqual(pelItem{id: start}, func(it pelItem) bool {
		items = append(items, it)
		return count == 0 || len(items) < count
	})
	for _, it := range items {
		e, ok := s.Get(it.id)
		if ok {
			it.nack.DeliveryTime = now
			it.nack.DeliveryCount++
		}
		fn(it.id, e, ok)
	}
	return len(items)
}

// ClaimArgs are XCLAIM's arguments after parsing.
type ClaimArgs struct {
	MinIdle int64 // negative counts as 0
	IDs     []ID
	// DeliveryTime is the delivery time set: now - IDLE, or TIME; -1 when
	// neither was given (then now). Values below 0 or past now become now.
	DeliveryTime int64
	RetryCount   int64 // -1 when not given
	Force        bool
	JustID       bool
	LastID       ID // LASTID, 0-0 when not given
	// Visit, if set, sees each PEL entry where Redis propagates an XCLAIM:
	// a claimed one after its update, a dropped one (its stream entry is
	// gone) just before it goes.
	Visit func(id ID, n *NACK)
}

// Claim is XCLAIM. It returns the IDs claimed, in argument order (the
// reply lists them, or their entries unless JustID); PEL entries whose
// stream entry is gone are dropped, as Redis drops them. The consumer is
// looked up (seen-time refreshed) or created at the first claim only.
func (s *Stream) Claim(g *Group, consumer string, a ClaimArgs, now int64) []ID {
	if a.LastID.Compare(g.LastID) > 0 {
		g.LastID = a.LastID
	}
	dt := a.DeliveryTime
	if dt == -1 || dt < 0 || dt > now {
		dt = now
	}
	minIdle := max(a.MinIdle, 0)
	var c *Consumer
	var claimed []ID
	for _, id := range a.IDs {
		nack := g.NACK(id)
		if !s.Exists(id) {
			if nack != nil {
				if a.Visit != nil {
					a.Visit(id, nack)
				}
				g.dropNACK(id, nack)
			}
			continue
		}
		if a.Force && nack == nil {
			nack = &NACK{DeliveryTime: now, DeliveryCount: 1}
			g.pel.ReplaceOrInsert(pelItem{id, nack})
		}
		if nack == nil {
			continue
		}
		if nack.Consumer != nil && minIdle != 0 && now-nack.DeliveryTime < minIdle {
			continue
		}
		if c == nil {
			c, _ = g.LookupOrCreateConsumer(consumer, now)
		}
		if nack.Consumer != c && nack.Consumer != nil {
			nack.Consumer.pel.Delete(pelItem{id: id})
		}
		nack.DeliveryTime = dt
		if a.RetryCount >= 0 {
			nack.DeliveryCount = uint64(a.RetryCount)
		} else if !a.JustID {
			nack.DeliveryCount++
		}
		if nack.Consumer != c {
			c.pel.ReplaceOrInsert(pelItem{id, nack})
			nack.Consumer = c
		}
		claimed = append(claimed, id)
		if a.Visit != nil {
			a.Visit(id, nack)
		}
	}
	return claimed
}

// AutoClaim is XAUTOCLAIM: it scans the group's PEL from start, claiming
// for consumer the entries idle for at least minIdle (at most count of
// them, trying at most 10*count), and drops the ones whose stream entry
// is gone (they count against count and are returned in deleted). next
// is the cursor Redis returns (0-0 at the end of the PEL).
func (s *Stream) AutoClaim(g *Group, consumer string, minIdle int64, start ID, count int64, justID bool, now int64) (claimed []ID, next ID, deleted []ID) {
	return s.AutoClaimVisit(g, consumer, minIdle, start, count, justID, now, nil)
}

// AutoClaimVisit is AutoClaim calling visit, if set, where Redis
// propagates an XCLAIM (see ClaimArgs.Visit).
func (s *Stream) AutoClaimVisit(g *Group, consumer string, minIdle int64, start ID, count int64, justID bool, now int64, visit func(ID, *NACK)) (claimed []ID, next ID, deleted []ID) {
	minIdle = max(minIdle, 0)
	attempts := count * 10
	var c *Consumer
	cursor, atEnd := start, false
	nextItem := func() (pelItem, bool) {
		if atEnd {
			return pelItem{}, false
		}
		var found pelItem
		ok := false
		g.pel.AscendGreaterOrEqual(pelItem{id: cursor}, func(it pelItem) bool { found, ok = it, true; return false })
		if ok {
			var more bool
			if cursor, more = found.id.Incr(); !more {
				atEnd = true
			}
		}
		return found, ok
	}
	for {
		if attempts == 0 {
			break
		}
		attempts--
		if count == 0 {
			break
		}
		it, ok := nextItem()
		if !ok {
			break
		}
		if !s.Exists(it.id) {
			if visit != nil {
				visit(it.id, it.nack)
			}
			g.dropNACK(it.id, it.nack)
			deleted = append(deleted, it.id)
			count--
			continue
		}
		if minIdle != 0 && now-it.nack.DeliveryTime < minIdle {
			continue
		}
		if c == nil {
			c, _ = g.LookupOrCreateConsumer(consumer, now)
		}
		n := it.nack
		if n.Consumer != c && n.Consumer != nil {
			n.Consumer.pel.Delete(pelItem{id: it.id})
		}
		n.DeliveryTime = now
		if !justID {
			n.DeliveryCount++
		}
		if n.Consumer != c {
			c.pel.ReplaceOrInsert(pelItem{it.id, n})
			n.Consumer = c
		}
		claimed = append(claimed, it.id)
		count--
		if visit != nil {
			visit(it.id, n)
		}
	}
	if it, ok := nextItem(); ok {
		next = it.id
	}
	return claimed, next, deleted
}
