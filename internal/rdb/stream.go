package rdb

import (
	"encoding/binary"
	"fmt"

	"github.com/limitkv/limitkv/internal/stream"
)

// Streams: RDB_TYPE_STREAM_LISTPACKS_2 (19), which Redis 7.0 writes, and
// RDB_TYPE_STREAM_LISTPACKS (15), which it still loads. The record is
//
//	nodes: count, then per node its master ID (16 bytes big-endian, as a
//	       string) and its listpack (a string, LZF-compressed like any)
//	length, last ID (ms, seq)
//	[19 only: first ID, max deleted ID, entries added]
//	groups: count, then per group its name, last ID, [19: entries read,
//	        -1 written as 2^64-1], its PEL (count; per entry the raw 16-byte
//	        ID, the delivery time as 8 bytes little-endian, the delivery
//	        count) and its consumers (count; per consumer name, seen-time as
//	        8 bytes, PEL count and raw IDs)
//
// all lengths and numbers in RDB length encoding.

// stream appends the value of a TypeStream (without its type byte).
func (e *encoder) stream(s *stream.Stream) error {
	if s == nil {
		return fmt.Errorf("%w: nil stream", ErrBadValue)
	}
	e.length(uint64(s.Nodes()))
	var lpBuf []byte
	_ = s.EachNode(lpBuf, func(master stream.ID, lp []byte) error {
		k := master.Key()
		e.str(k[:])
		e.str(lp)
		return nil
	})
	id := func(x stream.ID) {
		e.length(x.Ms)
		e.length(x.Seq)
	}
	e.length(s.Len())
	id(s.LastID())
	id(s.FirstID())
	id(s.MaxDeletedID())
	e.length(s.EntriesAdded())
	groups := s.Groups()
	e.length(uint64(len(groups)))
	for _, g := range groups {
		e.str([]byte(g.Name))
		id(g.LastID)
		e.length(uint64(g.EntriesRead))
		e.length(uint64(g.PendingCount()))
		g.Pending(stream.ID{}, func(x stream.ID, n *stream.NACK) bool {
			k := x.Key()
			e.buf = append(e.buf, k[:]...)
			e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(n.DeliveryTime))
			e.length(n.DeliveryCount)
			return true
		})
		cs := g.Consumers()
		e.length(uint64(len(cs)))
		for _, c := range cs {
			e.str([]byte(c.Name))
			e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(c.SeenTime))
			e.length(uint64(c.PendingCount()))
			c.Pending(stream.ID{}, func(x stream.ID, _ *stream.NACK) bool {
				k := x.Key()
				e.buf = append(e.buf, k[:]...)
				return true
			})
		}
	}
	return nil
}

// streamErr turns the stream package's load errors into ErrCorrupt ones.
func streamErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

func (d *decoder) streamID() (stream.ID, error) {
	ms, err := d.length()
	if err != nil {
		return stream.ID{}, err
	}
	seq, err := d.length()
	return stream.ID{Ms: ms, Seq: seq}, err
}

func (d *decoder) rawStreamID() (stream.ID, error) {
	var k [16]byte
	if err := d.full(k[:]); err != nil {
		return stream.ID{}, err
	}
	return stream.IDFromKey(k[:]), nil
}

func (d *decoder) msTime() (int64, error) {
	var x [8]byte
	if err := d.full(x[:]); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(x[:])), nil
}

// streamValue reads a stream record of type typ (15 or 19), checking it
// as Redis does with sanitize-dump-payload yes (see stream.LoadNode).
func (d *decoder) streamValue(typ byte, v *Value) error {
	v1 := typ == rdbTypeStreamListpacks
	s := stream.New()
	nodes, err := d.count()
	if err != nil {
		return err
	}
	for ; nodes > 0; nodes-- {
		key, err := d.str()
		if err != nil {
			return err
		}
		if len(key) != 16 {
			return corrupt("stream node key entry is not the size of a stream ID")
		}
		lp, err := d.str()
		if err != nil {
			return err
		}
		if err := s.LoadNode(stream.IDFromKey(key), lp); err != nil {
			return streamErr(err)
		}
	}
	var m stream.Meta
	m.V1 = v1
	if m.Length, err = d.length(); err != nil {
		return err
	}
	if m.LastID, err = d.streamID(); err != nil {
		return err
	}
	if !v1 {
		if m.FirstID, err = d.streamID(); err != nil {
			return err
		}
		if m.MaxDeletedID, err = d.streamID(); err != nil {
			return err
		}
		if m.EntriesAdded, err = d.length(); err != nil {
			return err
		}
	}
	if err := s.LoadMeta(m); err != nil {
		return streamErr(err)
	}
	groups, err := d.count()
	if err != nil {
		return err
	}
	for ; groups > 0; groups-- {
		name, err := d.str()
		if err != nil {
			return err
		}
		last, err := d.streamID()
		if err != nil {
			return err
		}
		entriesRead := int64(stream.ScgInvalidEntriesRead)
		if !v1 {
			u, err := d.length()
			if err != nil {
				return err
			}
			entriesRead = int64(u)
		}
		g, err := s.LoadGroup(string(name), last, entriesRead, v1)
		if err != nil {
			return streamErr(err)
		}
		pel, err := d.count()
		if err != nil {
			return err
		}
		for ; pel > 0; pel-- {
			id, err := d.rawStreamID()
			if err != nil {
				return err
			}
			t, err := d.msTime()
			if err != nil {
				return err
			}
			cnt, err := d.length()
			if err != nil {
				return err
			}
			if err := g.LoadNACK(id, t, cnt); err != nil {
				return streamErr(err)
			}
		}
		consumers, err := d.count()
		if err != nil {
			return err
		}
		for ; consumers > 0; consumers-- {
			cname, err := d.str()
			if err != nil {
				return err
			}
			seen, err := d.msTime()
			if err != nil {
				return err
			}
			c, err := g.LoadConsumer(string(cname), seen)
			if err != nil {
				return streamErr(err)
			}
			n, err := d.count()
			if err != nil {
				return err
			}
			for ; n > 0; n-- {
				id, err := d.rawStreamID()
				if err != nil {
					return err
				}
				if err := g.LoadConsumerPending(c, id); err != nil {
					return streamErr(err)
				}
			}
		}
		if err := g.CheckLoaded(); err != nil {
			return streamErr(err)
		}
	}
	*v = Value{Type: TypeStream, Encoding: EncodingStream, Stream: s}
	return nil
}
