package stream

import (
	"fmt"
	"testing"
)

// groupFixture: 10 entries 1-0..5-1 (3 per node), group g from 0-0 with
// alice holding 1-0..2-1 (delivered at 100) and bob 3-0, 3-1 (at 200).
func groupFixture(t *testing.T) (*Stream, *Group) {
	s := New()
	addN(t, s, Limits{NodeMaxBytes: 4096, NodeMaxEntries: 3}, seqIDs(10)...)
	g, err := s.CreateGroup("g", ID{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.LookupOrCreateConsumer("alice", 100)
	s.ReadNew(g, a, 4, false, 100, func(Entry) {})
	b, _ := g.LookupOrCreateConsumer("bob", 200)
	s.ReadNew(g, b, 2, false, 200, func(Entry) {})
	return s, g
}

func pelString(g *Group) string {
	var out string
	g.Pending(ID{}, func(id ID, n *NACK) bool {
		out += fmt.Sprintf("%v:%s@%d#%d ", id, n.Consumer.Name, n.DeliveryTime, n.DeliveryCount)
		return true
	})
	return out
}

func TestGroups(t *testing.T) {
	s, g := groupFixture(t)
	if _, err := s.CreateGroup("g", ID{}, 0); err != ErrBusyGroup {
		t.Errorf("duplicate group: %v", err)
	}
	s.CreateGroup("a", ID{}, ScgInvalidEntriesRead)
	if names := fmt.Sprintf("%d %s %d", len(s.Groups()), s.Groups()[0].Name, s.GroupCount()); names != "2 a 2" {
		t.Errorf("groups: %s", names)
	}
	if g.LastID != (ID{3, 1}) || g.EntriesRead != 6 {
		t.Errorf("after reads: last %v read %d", g.LastID, g.EntriesRead)
	}
	if got, want := pelString(g), "1-0:alice@100#1 1-1:alice@100#1 2-0:alice@100#1 2-1:alice@100#1 3-0:bob@200#1 3-1:bob@200#1 "; got != want {
		t.Errorf("PEL %s", got)
	}
	if n := g.Ack(ID{1, 0}, ID{1, 0}, ID{9, 9}, ID{3, 1}); n != 2 {
		t.Errorf("ack %d", n)
	}
	count, first, last, cons := g.PendingSummary()
	if fmt.Sprint(count, first, last, cons) != "4 1-1 3-0 [{alice 3} {bob 1}]" {
		t.Errorf("summary %v %v %v %v", count, first, last, cons)
	}
	// history: alice's PEL from 2-0, one entry deleted meanwhile
	s.Delete(ID{2, 0})
	var hist []string
	s.ReadHistory(g.Consumer("alice"), ID{2, 0}, 0, 300, func(id ID, e Entry, ok bool) { hist = append(hist, fmt.Sprint(id, ok)) })
	if fmt.Sprint(hist) != "[2-0 false 2-1 true]" {
		t.Errorf("history %v", hist)
	}
	if got := pelString(g); got != "1-1:alice@100#1 2-0:alice@100#1 2-1:alice@300#2 3-0:bob@200#1 " {
		t.Errorf("PEL after history %s", got)
	}
	if n, ok := g.DeleteConsumer("alice"); n != 3 || !ok {
		t.Errorf("delconsumer %d %v", n, ok)
	}
	if _, ok := g.DeleteConsumer("nobody"); ok {
		t.Error("deleted a missing consumer")
	}
	if got := pelString(g); got != "3-0:bob@200#1 " {
		t.Errorf("PEL after delconsumer %s", got)
	}
	if g.CreateConsumer("bob", 1) != nil || g.CreateConsumer("carl", 1) == nil {
		t.Error("CreateConsumer")
	}
	if !s.DestroyGroup("a") || s.DestroyGroup("a") || s.Group("a") != nil {
		t.Error("DestroyGroup")
	}
}

func TestReadGroupRedelivery(t *testing.T) {
	s, g := groupFixture(t)
	// SETID back: already-pending entries move to the reader, count 1
	g.SetID(ID{2, 0}, ScgInvalidEntriesRead)
	c, _ := g.LookupOrCreateConsumer("carl", 500)
	var got []string
	s.ReadNew(g, c, 2, false, 500, func(e Entry) { got = append(got, e.ID.String()) })
	if fmt.Sprint(got) != "[2-1 3-0]" || g.LastID != (ID{3, 0}) {
		t.Errorf("read %v last %v", got, g.LastID)
	}
	if p := pelString(g); p != "1-0:alice@100#1 1-1:alice@100#1 2-0:alice@100#1 2-1:carl@500#1 3-0:carl@500#1 3-1:bob@200#1 " {
		t.Errorf("PEL %s", p)
	}
	// the counter was invalid: it is estimated (3-0 is neither first nor last: unknown)
	if g.EntriesRead != ScgInvalidEntriesRead {
		t.Errorf("entries read %d", g.EntriesRead)
	}
	// NOACK leaves the PEL alone
	s.ReadNew(g, c, 0, true, 600, func(Entry) {})
	if g.LastID != (ID{5, 1}) || g.EntriesRead != 10 || g.PendingCount() != 6 {
		t.Errorf("noack: last %v read %d pel %d", g.LastID, g.EntriesRead, g.PendingCount())
	}
	if served, _ := s.ReadNew(g, c, 0, false, 700, func(Entry) {}); served {
		t.Error("served past the end")
	}
}

func TestPendingRange(t *testing.T) {
	s, g := groupFixture(t)
	_ = s
	tests := []struct {
		start, end ID
		count      int64
		minIdle    int64
		consumer   string
		want       string
	}{
		{ID{}, MaxID, 10, 0, "", "[{1-0 alice 150 1} {1-1 alice 150 1} {2-0 alice 150 1} {2-1 alice 150 1} {3-0 bob 50 1} {3-1 bob 50 1}]"},
		{ID{1, 1}, ID{3, 0}, 2, 0, "", "[{1-1 alice 150 1} {2-0 alice 150 1}]"},
		{ID{}, MaxID, 10, 100, "", "[{1-0 alice 150 1} {1-1 alice 150 1} {2-0 alice 150 1} {2-1 alice 150 1}]"},
		{ID{}, MaxID, 10, 0, "bob", "[{3-0 bob 50 1} {3-1 bob 50 1}]"},
		{ID{}, MaxID, 0, 0, "", "[]"},
	}
	for _, tc := range tests {
		var c *Consumer
		if tc.consumer != "" {
			c = g.Consumer(tc.consumer)
		}
		if got := fmt.Sprint(g.PendingRange(tc.start, tc.end, tc.count, tc.minIdle, c, 250)); got != tc.want {
			t.Errorf("%+v: %s", tc, got)
		}
	}
	// a delivery time in the future shows idle 0
	if got := g.PendingRange(ID{}, MaxID, 1, 0, nil, 50); got[0].Idle != 0 {
		t.Errorf("idle %d", got[0].Idle)
	}
}

func TestClaim(t *testing.T) {
	tests := []struct {
		name    string
		args    ClaimArgs
		claimed string
		pel     string
		last    ID
	}{
		{"by idle", ClaimArgs{MinIdle: 850, IDs: []ID{{1, 0}, {3, 0}}, DeliveryTime: -1, RetryCount: -1},
			"[1-0]", "1-0:zoe@1000#2 1-1:alice@100#1 2-0:alice@100#1 2-1:alice@100#1 3-0:bob@200#1 3-1:bob@200#1 ", ID{3, 1}},
		{"deleted entry drops its NACK", ClaimArgs{IDs: []ID{{4, 0}, {1, 1}}, DeliveryTime: -1, RetryCount: -1},
			"[]", "1-0:alice@100#1 2-0:alice@100#1 2-1:alice@100#1 3-0:bob@200#1 3-1:bob@200#1 ", ID{3, 1}},
		{"force creates, counting 2", ClaimArgs{IDs: []ID{{4, 1}, {9, 9}}, DeliveryTime: 900, RetryCount: -1, Force: true},
			"[4-1]", "1-0:alice@100#1 1-1:alice@100#1 2-0:alice@100#1 2-1:alice@100#1 3-0:bob@200#1 3-1:bob@200#1 4-1:zoe@900#2 ", ID{3, 1}},
		{"justid keeps the count, retrycount sets it", ClaimArgs{IDs: []ID{{1, 0}}, DeliveryTime: 5000, RetryCount: 9, JustID: true},
			"[1-0]", "1-0:zoe@1000#9 1-1:alice@100#1 2-0:alice@100#1 2-1:alice@100#1 3-0:bob@200#1 3-1:bob@200#1 ", ID{3, 1}},
		{"lastid", ClaimArgs{IDs: []ID{{3, 0}}, DeliveryTime: -1, RetryCount: -1, JustID: true, LastID: ID{4, 0}},
			"[3-0]", "1-0:alice@100#1 1-1:alice@100#1 2-0:alice@100#1 2-1:alice@100#1 3-0:zoe@1000#1 3-1:bob@200#1 ", ID{4, 0}},
	}
	for _, tc := range tests {
		s, g := groupFixture(t)
		s.Delete(ID{1, 1}, ID{4, 0})
		if tc.name == "deleted entry drops its NACK" {
			s.ReadNew(g, g.Consumer("bob"), 0, true, 1, func(Entry) {})
			g.LoadNACK(ID{4, 0}, 1, 1) // a NACK on a deleted entry, owned by nobody
		}
		got := s.Claim(g, "zoe", tc.args, 1000)
		if tc.name == "deleted entry drops its NACK" {
			got = append(got, ID{}) // compare the PEL only
			got = got[:0]
		}
		if fmt.Sprint(got) != tc.claimed && !(tc.claimed == "[]" && len(got) == 0) {
			t.Errorf("%s: claimed %v", tc.name, got)
		}
		if tc.name == "deleted entry drops its NACK" {
			tc.pel = "1-0:alice@100#1 2-0:alice@100#1 2-1:alice@100#1 3-0:bob@200#1 3-1:bob@200#1 "
		}
		if p := pelString(g); p != tc.pel {
			t.Errorf("%s: PEL %s", tc.name, p)
		}
		if g.LastID != tc.last && tc.name != "deleted entry drops its NACK" {
			t.Errorf("%s: last %v", tc.name, g.LastID)
		}
		if (len(got) > 0) != (g.Consumer("zoe") != nil) {
			t.Errorf("%s: consumer created without a claim, or not created", tc.name)
		}
	}
}

func TestAutoClaim(t *testing.T) {
	tests := []struct {
		name       string
		minIdle    int64
		start      ID
		count      int64
		claimed    string
		next       ID
		deleted    string
		zoePending int
	}{
		{"all", 0, ID{}, 100, "[1-0 2-1 3-0 3-1]", ID{}, "[1-1 2-0]", 4},
		{"count", 0, ID{}, 2, "[1-0]", ID{2, 0}, "[1-1]", 1},
		{"from", 0, ID{2, 1}, 2, "[2-1 3-0]", ID{3, 1}, "[]", 2},
		{"idle", 850, ID{}, 100, "[1-0 2-1]", ID{}, "[1-1 2-0]", 2},
		// a dropped NACK counts against count: the cursor is the next ID
		{"deleted use up count", 5000, ID{}, 1, "[]", ID{2, 0}, "[1-1]", 0},
	}
	for _, tc := range tests {
		s, g := groupFixture(t)
		s.Delete(ID{1, 1}, ID{2, 0})
		claimed, next, deleted := s.AutoClaim(g, "zoe", tc.minIdle, tc.start, tc.count, false, 1000)
		if fmt.Sprint(claimed) != tc.claimed && !(tc.claimed == "[]" && claimed == nil) || next != tc.next ||
			fmt.Sprint(deleted) != tc.deleted && !(tc.deleted == "[]" && deleted == nil) {
			t.Errorf("%s: %v %v %v", tc.name, claimed, next, deleted)
		}
		zp := 0
		if z := g.Consumer("zoe"); z != nil {
			zp = z.PendingCount()
		}
		if zp != tc.zoePending {
			t.Errorf("%s: zoe has %d", tc.name, zp)
		}
	}
}

func TestLag(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(s *Stream, g *Group)
		lag         int64
		ok          bool
		entriesRead int64
	}{
		{"fresh group", func(s *Stream, g *Group) {}, 10, true, 0},
		{"after reading 4", func(s *Stream, g *Group) { s.ReadNew(g, g.Consumer("c"), 4, true, 0, func(Entry) {}) }, 6, true, 4},
		{"tombstone ahead", func(s *Stream, g *Group) {
			s.ReadNew(g, g.Consumer("c"), 4, true, 0, func(Entry) {})
			s.Delete(ID{4, 0})
		}, 0, false, 4},
		// a tombstone between the first entry and the group makes the
		// counter unknowable, even once the group is past it
		{"tombstone behind", func(s *Stream, g *Group) {
			s.Delete(ID{1, 1})
			s.ReadNew(g, g.Consumer("c"), 4, true, 0, func(Entry) {})
		}, 0, false, -1},
		{"tombstone before the first entry", func(s *Stream, g *Group) {
			s.Delete(ID{1, 0})
			s.ReadNew(g, g.Consumer("c"), 4, true, 0, func(Entry) {})
		}, 6, true, 4},
		{"setid to last", func(s *Stream, g *Group) { g.SetID(ID{5, 1}, ScgInvalidEntriesRead) }, 0, true, -1},
		{"setid to the middle", func(s *Stream, g *Group) { g.SetID(ID{3, 0}, ScgInvalidEntriesRead) }, 0, false, -1},
		{"setid before first, after a trim", func(s *Stream, g *Group) {
			s.Trim(TrimArgs{Strategy: TrimMaxLen, MaxLen: 7})
			g.SetID(ID{}, ScgInvalidEntriesRead)
		}, 7, true, -1},
	}
	for _, tc := range tests {
		s := New()
		addN(t, s, DefaultLimits, seqIDs(10)...)
		g, _ := s.CreateGroup("g", ID{}, 0)
		g.CreateConsumer("c", 0)
		tc.setup(s, g)
		lag, ok := s.Lag(g)
		if lag != tc.lag || ok != tc.ok || g.EntriesRead != tc.entriesRead {
			t.Errorf("%s: lag %d %v, entries read %d", tc.name, lag, ok, g.EntriesRead)
		}
	}
	// an empty, never used stream
	s := New()
	g, _ := s.CreateGroup("g", ID{}, ScgInvalidEntriesRead)
	if lag, ok := s.Lag(g); lag != 0 || !ok || s.EstimateDistance(ID{5, 5}) != 0 {
		t.Error("empty stream lag")
	}
}

func TestRaxNodes(t *testing.T) {
	tests := []struct {
		masters []ID
		want    int
	}{
		{nil, 1},
		{[]ID{{1, 0}}, 2},                     // one compressed node and the leaf
		{[]ID{{1, 0}, {2, 0}}, 6},             // prefix, split, two tails, two leaves
		{[]ID{{1, 0}, {1, 1}}, 4},             // they differ in the last byte only
		{[]ID{{1, 0}, {1, 1}, {1, 2}}, 5},     // a split node with three leaves
		{[]ID{{1, 0}, {256, 0}, {257, 0}}, 9}, // the split at byte 7 hangs off the one at byte 6
	}
	for _, tc := range tests {
		s := New()
		for _, m := range tc.masters {
			s.nodes = append(s.nodes, &node{master: m})
		}
		if got := s.RaxNodes(); got != tc.want {
			t.Errorf("%v: %d nodes, want %d", tc.masters, got, tc.want)
		}
	}
}
