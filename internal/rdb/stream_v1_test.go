package rdb

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/limitkv/limitkv/internal/stream"
	"github.com/limitkv/limitkv/internal/testredis"
)

// encodeStreamV1 writes s as a DUMP payload of RDB_TYPE_STREAM_LISTPACKS
// (15), the pre-7.0 layout: no first ID, max deleted ID, entries added or
// group entries read.
func encodeStreamV1(s *stream.Stream) []byte {
	e := encoder{}
	e.byte(rdbTypeStreamListpacks)
	e.length(uint64(s.Nodes()))
	_ = s.EachNode(nil, func(master stream.ID, lp []byte) error {
		k := master.Key()
		e.str(k[:])
		e.str(lp)
		return nil
	})
	e.length(s.Len())
	e.length(s.LastID().Ms)
	e.length(s.LastID().Seq)
	groups := s.Groups()
	e.length(uint64(len(groups)))
	for _, g := range groups {
		e.str([]byte(g.Name))
		e.length(g.LastID.Ms)
		e.length(g.LastID.Seq)
		e.length(uint64(g.PendingCount()))
		g.Pending(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
			k := id.Key()
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
			c.Pending(stream.ID{}, func(id stream.ID, _ *stream.NACK) bool {
				k := id.Key()
				e.buf = append(e.buf, k[:]...)
				return true
			})
		}
	}
	e.buf = append(e.buf, Version&0xff, Version>>8)
	return binary.LittleEndian.AppendUint64(e.buf, CRC64(0, e.buf))
}

// TestStreamV1 restores type-15 payloads on redis-server and checks that
// what this package derives for the missing fields (entries added, first
// ID, group entries read) is what Redis derives.
func TestStreamV1(t *testing.T) {
	p := testredis.StartT(t)
	c := redisClient(t, p)
	cases := []struct {
		name  string
		build func(t *testing.T) *stream.Stream
	}{
		{"groups and tombstones", func(t *testing.T) *stream.Stream { return sampleStream(t) }},
		{"group at the first entry", func(t *testing.T) *stream.Stream {
			s := sampleStream(t)
			s.Trim(stream.TrimArgs{Strategy: stream.TrimMaxLen, MaxLen: 3})
			f, _ := s.First()
			s.CreateGroup("at-first", f.ID, stream.ScgInvalidEntriesRead)
			s.CreateGroup("before-first", stream.ID{Ms: 1}, stream.ScgInvalidEntriesRead)
			s.CreateGroup("at-last", s.LastID(), stream.ScgInvalidEntriesRead)
			return s
		}},
		{"empty", func(t *testing.T) *stream.Stream {
			s := stream.New()
			s.SetID(stream.ID{Ms: 5}, -1, stream.ID{})
			s.CreateGroup("g", stream.ID{Ms: 3}, 0)
			return s
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload := encodeStreamV1(tc.build(t))
			if _, err := rdo(t, c, "RESTORE", "v1", "0", string(payload), "REPLACE"); err != nil {
				t.Fatalf("RESTORE: %v", err)
			}
			v, err := DecodeDump(payload, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ri, ours := redisFullInfo(t, c, "v1"), ourFullInfo(v.Stream); !reflect.DeepEqual(ri, ours) {
				t.Fatalf("XINFO STREAM FULL differs\nredis: %+v\nours:  %+v", ri, ours)
			}
			// and both write it back as type 19 the same way
			theirs, _ := rdo(t, c, "DUMP", "v1")
			ours, _ := EncodeDump(v, DumpOptions{})
			if string(ours) != theirs.(string) {
				t.Fatalf("DUMP after loading type 15 differs")
			}
		})
	}
}
