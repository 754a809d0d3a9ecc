package stream

import (
	"bytes"
	"fmt"
	"testing"
)

// snapshot renders everything a command can observe of s: entries, the
// metadata and every group's PELs and consumers.
func snapshot(s *Stream) string {
	var b bytes.Buffer
	s.Range(ID{}, MaxID, false, func(e Entry) bool { fmt.Fprintf(&b, "%v%q;", e.ID, e.Fields); return true })
	fmt.Fprintf(&b, "|%+v|", s.Info())
	for _, g := range s.Groups() {
		fmt.Fprintf(&b, "g %s %v %d:", g.Name, g.LastID, g.EntriesRead)
		g.Pending(ID{}, func(id ID, n *NACK) bool {
			fmt.Fprintf(&b, "%v %s %d %d,", id, n.Consumer.Name, n.DeliveryTime, n.DeliveryCount)
			return true
		})
		for _, c := range g.Consumers() {
			fmt.Fprintf(&b, "c %s %d %d;", c.Name, c.SeenTime, c.PendingCount())
		}
	}
	return b.String()
}

func TestClone(t *testing.T) {
	lim := Limits{NodeMaxBytes: 4096, NodeMaxEntries: 3}
	for _, tc := range []struct {
		name  string
		build func(s *Stream)
	}{
		{"empty", func(s *Stream) {}},
		{"entries over nodes with tombstones", func(s *Stream) {
			for i := uint64(1); i <= 10; i++ {
				s.Add(AddID{ID: ID{i, 0}}, [][]byte{[]byte("f"), []byte(fmt.Sprint(i))}, 0, lim)
			}
			s.Delete(ID{2, 0}, ID{7, 0})
		}},
		{"groups and PELs", func(s *Stream) {
			for i := uint64(1); i <= 5; i++ {
				s.Add(AddID{ID: ID{i, 0}}, [][]byte{[]byte("f"), []byte("v")}, 0, lim)
			}
			g, _ := s.CreateGroup("g", ID{}, 0)
			c, _ := g.LookupOrCreateConsumer("c1", 100)
			s.ReadGroup(g, c, ID{}, 3, false, 200, func(Entry) {})
			s.Claim(g, "c2", ClaimArgs{IDs: []ID{{2, 0}}, DeliveryTime: -1, RetryCount: -1}, 300)
			s.CreateGroup("h", ID{4, 0}, ScgInvalidEntriesRead)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			tc.build(s)
			want := snapshot(s)
			c := s.Clone()
			if got := snapshot(c); got != want {
				t.Fatalf("clone differs:\n got %s\nwant %s", got, want)
			}
			// Changing the copy leaves the original as it was, and the
			// copy's PELs stay one structure (an ack clears both).
			c.Add(AddID{ID: ID{99, 0}}, [][]byte{[]byte("x"), []byte("y")}, 0, lim)
			c.Trim(TrimArgs{Strategy: TrimMaxLen, MaxLen: 1})
			if g := c.Group("g"); g != nil {
				g.Ack(ID{1, 0}, ID{2, 0})
				for _, cn := range g.Consumers() {
					cn.Pending(ID{}, func(id ID, _ *NACK) bool {
						if g.NACK(id) == nil {
							t.Errorf("consumer %s keeps %v the group acked", cn.Name, id)
						}
						return true
					})
				}
			}
			if got := snapshot(s); got != want {
				t.Fatalf("original changed by the copy:\n got %s\nwant %s", got, want)
			}
		})
	}
}
