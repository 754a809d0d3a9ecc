package stream

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func fv(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}

func addN(t *testing.T, s *Stream, lim Limits, ids ...ID) {
	t.Helper()
	for _, id := range ids {
		if _, err := s.Add(AddID{ID: id}, fv("f "+id.String()), 0, lim); err != nil {
			t.Fatal(err)
		}
	}
}

func seqIDs(n int) []ID {
	var ids []ID
	for i := 0; i < n; i++ {
		ids = append(ids, ID{uint64(1 + i/2), uint64(i % 2)})
	}
	return ids
}

func idsOf(s *Stream, start, end ID, rev bool, count int) []string {
	var out []string
	s.Range(start, end, rev, func(e Entry) bool {
		out = append(out, e.ID.String())
		return count == 0 || len(out) < count
	})
	return out
}

func TestAdd(t *testing.T) {
	lim := Limits{NodeMaxBytes: 4096, NodeMaxEntries: 10}
	tests := []struct {
		name string
		last ID // the stream's last ID before (via XSETID)
		add  AddID
		now  uint64
		want ID
		err  error
	}{
		{name: "auto from clock", add: AddID{Auto: true}, now: 100, want: ID{100, 0}},
		{name: "auto, clock behind", last: ID{200, 5}, add: AddID{Auto: true}, now: 100, want: ID{200, 6}},
		{name: "auto, seq exhausted", last: ID{200, 1<<64 - 1}, add: AddID{Auto: true}, now: 100, want: ID{201, 0}},
		{name: "ms-* same ms", last: ID{7, 3}, add: AddID{ID: ID{7, 0}, SeqAuto: true}, want: ID{7, 4}},
		{name: "ms-* new ms", last: ID{7, 3}, add: AddID{ID: ID{9, 0}, SeqAuto: true}, want: ID{9, 0}},
		{name: "ms-* older ms", last: ID{7, 3}, add: AddID{ID: ID{6, 0}, SeqAuto: true}, err: ErrIDTooSmall},
		{name: "ms-* seq exhausted", last: ID{7, 1<<64 - 1}, add: AddID{ID: ID{7, 0}, SeqAuto: true}, err: ErrTooLarge},
		{name: "0-* on empty", add: AddID{SeqAuto: true}, want: ID{0, 1}},
		{name: "explicit equal", last: ID{7, 3}, add: AddID{ID: ID{7, 3}}, err: ErrIDTooSmall},
		{name: "explicit 0-0", add: AddID{}, err: ErrIDZero},
		{name: "exhausted", last: MaxID, add: AddID{ID: ID{1, 1}}, err: ErrExhausted},
		{name: "explicit", last: ID{7, 3}, add: AddID{ID: ID{7, 4}}, want: ID{7, 4}},
	}
	for _, tc := range tests {
		s := New()
		s.lastID = tc.last
		got, err := s.Add(tc.add, fv("a 1"), tc.now, lim)
		if err != tc.err || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, err, tc.want, tc.err)
		}
		if err == nil && (s.Len() != 1 || s.EntriesAdded() != 1 || s.LastID() != got || s.FirstID() != got) {
			t.Errorf("%s: state %+v", tc.name, s.Info())
		}
	}
}

// TestNodeLayout checks a node's listpack element by element against the
// layout t_stream.c documents.
func TestNodeLayout(t *testing.T) {
	s := New()
	for i, f := range []string{"a 1", "a 2", "b x", "a 4"} {
		if _, err := s.Add(AddID{ID: ID{5, uint64(i + 1)}}, fv(f), 0, DefaultLimits); err != nil {
			t.Fatal(err)
		}
	}
	s.Delete(ID{5, 2})
	lp := s.nodes[0].appendListpack(nil)
	els, err := lpDecode(lp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range els {
		got = append(got, string(e.bytes()))
	}
	want := strings.Fields(`3 1 1 a 0
		2 0 0 1 4
		3 0 1 2 4
		0 0 2 1 b x 6
		2 0 3 4 4`)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("elements\ngot  %v\nwant %v", got, want)
	}
	if len(lp) != s.nodes[0].size() || len(lp) != s.nodes[0].computeBytes() {
		t.Fatalf("sizes: listpack %d, tracked %d, computed %d", len(lp), s.nodes[0].size(), s.nodes[0].computeBytes())
	}
}

func TestNodeSplitting(t *testing.T) {
	tests := []struct {
		name  string
		lim   Limits
		n     int
		value string
		nodes int
	}{
		{"by entries", Limits{NodeMaxBytes: 1 << 20, NodeMaxEntries: 10}, 25, "v", 3},
		{"no entry limit", Limits{NodeMaxBytes: 1 << 20}, 250, "v", 1},
		// every element takes a backlen byte: a node with its master entry
		// is 7+2+2+2+2+2 = 17 bytes, an entry 2+2+2+4+2 = 12; the third
		// entry finds 41+3 >= 40 and starts a node
		{"by bytes", Limits{NodeMaxBytes: 40, NodeMaxEntries: 100}, 10, "vv", 5},
	}
	for _, tc := range tests {
		s := New()
		for i := 0; i < tc.n; i++ {
			if _, err := s.Add(AddID{ID: ID{uint64(i + 1), 0}}, fv("f "+tc.value), 0, tc.lim); err != nil {
				t.Fatal(err)
			}
		}
		if s.Nodes() != tc.nodes {
			t.Errorf("%s: %d nodes, want %d", tc.name, s.Nodes(), tc.nodes)
		}
	}
}

func TestRange(t *testing.T) {
	s := New()
	lim := Limits{NodeMaxBytes: 4096, NodeMaxEntries: 3}
	addN(t, s, lim, seqIDs(10)...) // 1-0 1-1 2-0 2-1 ... 5-1
	s.Delete(ID{2, 0}, ID{4, 1})
	tests := []struct {
		start, end ID
		rev        bool
		count      int
		want       string
	}{
		{ID{}, MaxID, false, 0, "1-0 1-1 2-1 3-0 3-1 4-0 5-0 5-1"},
		{ID{}, MaxID, true, 0, "5-1 5-0 4-0 3-1 3-0 2-1 1-1 1-0"},
		{ID{2, 0}, ID{4, 1}, false, 0, "2-1 3-0 3-1 4-0"},
		{ID{2, 0}, ID{4, 1}, true, 0, "4-0 3-1 3-0 2-1"},
		{ID{1, 1}, MaxID, false, 3, "1-1 2-1 3-0"},
		{ID{}, ID{3, 0}, true, 2, "3-0 2-1"},
		{ID{3, 5}, ID{3, 9}, false, 0, ""},
		{ID{6, 0}, MaxID, false, 0, ""},
		{ID{}, ID{0, 5}, true, 0, ""},
		{ID{4, 0}, ID{3, 0}, false, 0, ""},
	}
	for _, tc := range tests {
		got := strings.Join(idsOf(s, tc.start, tc.end, tc.rev, tc.count), " ")
		if got != tc.want {
			t.Errorf("range %v..%v rev %v count %d: %q, want %q", tc.start, tc.end, tc.rev, tc.count, got, tc.want)
		}
	}
	if e, ok := s.Get(ID{3, 1}); !ok || string(e.Fields[1]) != "3-1" {
		t.Errorf("Get: %v %v", e, ok)
	}
	if s.Exists(ID{2, 0}) || s.Exists(ID{9, 9}) {
		t.Error("deleted or missing entry exists")
	}
	if f, _ := s.First(); f.ID != (ID{1, 0}) {
		t.Error("First")
	}
	if l, _ := s.Last(); l.ID != (ID{5, 1}) {
		t.Error("Last")
	}
}

func TestDelete(t *testing.T) {
	lim := Limits{NodeMaxBytes: 4096, NodeMaxEntries: 3}
	tests := []struct {
		name             string
		del              []ID
		deleted          int
		length           uint64
		nodes            int
		first, maxDelete ID
	}{
		{"missing", []ID{{9, 9}}, 0, 6, 2, ID{1, 0}, ID{}},
		{"first", []ID{{1, 0}}, 1, 5, 2, ID{1, 1}, ID{1, 0}},
		{"twice", []ID{{1, 1}, {1, 1}}, 1, 5, 2, ID{1, 0}, ID{1, 1}},
		{"whole node", []ID{{1, 0}, {1, 1}, {2, 0}}, 3, 3, 1, ID{2, 1}, ID{2, 0}},
		{"max deleted keeps the largest", []ID{{3, 0}, {1, 1}}, 2, 4, 2, ID{1, 0}, ID{3, 0}},
		{"everything", seqIDs(6), 6, 0, 0, ID{}, ID{3, 1}},
	}
	for _, tc := range tests {
		s := New()
		addN(t, s, lim, seqIDs(6)...)
		if got := s.Delete(tc.del...); got != tc.deleted {
			t.Errorf("%s: deleted %d", tc.name, got)
		}
		if s.Len() != tc.length || s.Nodes() != tc.nodes || s.FirstID() != tc.first || s.MaxDeletedID() != tc.maxDelete {
			t.Errorf("%s: len %d nodes %d first %v maxdel %v", tc.name, s.Len(), s.Nodes(), s.FirstID(), s.MaxDeletedID())
		}
		if s.EntriesAdded() != 6 || s.LastID() != (ID{3, 1}) {
			t.Errorf("%s: added %d last %v", tc.name, s.EntriesAdded(), s.LastID())
		}
	}
}

func TestTrim(t *testing.T) {
	lim := Limits{NodeMaxBytes: 4096, NodeMaxEntries: 10}
	tests := []struct {
		name    string
		del     []ID // deleted before trimming
		args    TrimArgs
		removed int64
		length  uint64
		nodes   int
		first   ID
	}{
		{"maxlen exact", nil, TrimArgs{Strategy: TrimMaxLen, MaxLen: 25}, 25, 25, 3, ID{13, 1}},
		{"maxlen approx keeps partial node", nil, TrimArgs{Strategy: TrimMaxLen, MaxLen: 25, Approx: true, Limit: 1000}, 20, 30, 3, ID{11, 0}},
		{"maxlen approx limited", nil, TrimArgs{Strategy: TrimMaxLen, MaxLen: 5, Approx: true, Limit: 25}, 20, 30, 3, ID{11, 0}},
		{"limit below a node", nil, TrimArgs{Strategy: TrimMaxLen, MaxLen: 5, Approx: true, Limit: 9}, 0, 50, 5, ID{1, 0}},
		{"maxlen above length", nil, TrimArgs{Strategy: TrimMaxLen, MaxLen: 60}, 0, 50, 5, ID{1, 0}},
		{"maxlen 0", nil, TrimArgs{Strategy: TrimMaxLen}, 50, 0, 0, ID{}},
		{"minid exact", nil, TrimArgs{Strategy: TrimMinID, MinID: ID{8, 1}}, 15, 35, 4, ID{8, 1}},
		{"minid approx", nil, TrimArgs{Strategy: TrimMinID, MinID: ID{8, 1}, Approx: true, Limit: 1000}, 10, 40, 4, ID{6, 0}},
		// tombstones do not count in what trimming removes
		{"minid over tombstones", []ID{{1, 0}, {2, 1}, {7, 0}}, TrimArgs{Strategy: TrimMinID, MinID: ID{8, 1}}, 12, 35, 4, ID{8, 1}},
		{"none", nil, TrimArgs{}, 0, 50, 5, ID{1, 0}},
	}
	for _, tc := range tests {
		s := New()
		addN(t, s, lim, seqIDs(50)...)
		s.Delete(tc.del...)
		if got := s.Trim(tc.args); got != tc.removed {
			t.Errorf("%s: removed %d, want %d", tc.name, got, tc.removed)
		}
		if s.Len() != tc.length || s.Nodes() != tc.nodes || s.FirstID() != tc.first {
			t.Errorf("%s: len %d nodes %d first %v", tc.name, s.Len(), s.Nodes(), s.FirstID())
		}
	}
	if DefaultTrimLimit(Limits{NodeMaxEntries: 0}) != 10000 || DefaultTrimLimit(DefaultLimits) != 10000 ||
		DefaultTrimLimit(Limits{NodeMaxEntries: 1 << 20}) != 1000000 || DefaultTrimLimit(Limits{NodeMaxEntries: 7}) != 700 {
		t.Error("DefaultTrimLimit")
	}
}

func TestSetID(t *testing.T) {
	tests := []struct {
		name         string
		id           ID
		entriesAdded int64
		maxDeleted   ID
		err          error
	}{
		{"ok", ID{10, 0}, 12, ID{9, 0}, nil},
		{"below top", ID{3, 0}, -1, ID{}, ErrSetIDTooSmall},
		{"equal to top", ID{3, 1}, -1, ID{}, nil},
		{"entries added below length", ID{10, 0}, 5, ID{}, ErrSetIDEntriesAdded},
		{"max deleted above id", ID{10, 0}, -1, ID{10, 1}, ErrSetIDMaxDeleted},
		{"negative entries added", ID{10, 0}, -2, ID{}, ErrEntriesAddedNeg},
	}
	for _, tc := range tests {
		s := New()
		addN(t, s, DefaultLimits, seqIDs(6)...)
		err := s.SetID(tc.id, tc.entriesAdded, tc.maxDeleted)
		if err != tc.err {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if err == nil && (s.LastID() != tc.id || (tc.entriesAdded >= 0 && s.EntriesAdded() != uint64(tc.entriesAdded))) {
			t.Errorf("%s: last %v added %d", tc.name, s.LastID(), s.EntriesAdded())
		}
	}
}

// TestNodeInvariants runs random operations and checks every few that
// every node's tracked size is its listpack's, that its listpack decodes
// back to the same node, and that the length adds up.
func TestNodeInvariants(t *testing.T) {
	// small nodes, and nodes whose counters cross the 1- and 2-byte
	// integer encodings (127, 4095)
	testNodeInvariants(t, Limits{NodeMaxBytes: 300, NodeMaxEntries: 8}, 5000, 10)
	testNodeInvariants(t, Limits{NodeMaxBytes: 0, NodeMaxEntries: 5000}, 12000, 500)
}

func testNodeInvariants(t *testing.T, lim Limits, steps, every int) {
	rng := rand.New(rand.NewSource(7))
	s := New()
	ms := uint64(1)
	var maxCount, maxDeleted int64
	defer func() { t.Logf("%v: largest counters %d live, %d deleted", lim, maxCount, maxDeleted) }()
	for step := 0; step < steps; step++ {
		switch r := rng.Intn(10); {
		case r < 6:
			ms += uint64(rng.Intn(2))
			f := fmt.Sprintf("a %d b %s", rng.Intn(300)-150, strings.Repeat("x", 1+rng.Intn(80)))
			if rng.Intn(3) == 0 {
				f = "c 1"
			}
			s.Add(AddID{ID: ID{ms, 0}, SeqAuto: true}, fv(f), 0, lim)
		case r < 8:
			s.Delete(ID{uint64(rng.Intn(int(ms) + 1)), uint64(rng.Intn(3))})
		case r < 9:
			s.Trim(TrimArgs{Strategy: TrimMaxLen, MaxLen: int64(s.Len()) - int64(rng.Intn(5)), Approx: rng.Intn(2) == 0})
		default:
			s.Trim(TrimArgs{Strategy: TrimMinID, MinID: ID{s.FirstID().Ms + uint64(rng.Intn(2)), 0}})
		}
		if step%every != every-1 {
			continue
		}
		var live uint64
		for _, n := range s.nodes {
			lp := n.appendListpack(nil)
			if len(lp) != n.size() || n.computeBytes() != n.size() {
				t.Fatalf("step %d: node %v: listpack %d bytes, tracked %d", step, n.master, len(lp), n.size())
			}
			back, err := decodeNode(n.master, lp)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if !reflect.DeepEqual(back.appendListpack(nil), lp) {
				t.Fatalf("step %d: node does not round-trip", step)
			}
			if back.count != n.count || back.deleted != n.deleted || nodeFromDecoded(back).first != n.first {
				t.Fatalf("step %d: cached counters %d/%d first %d, listpack says %d/%d", step, n.count, n.deleted, n.first, back.count, back.deleted)
			}
			live += uint64(n.count)
			maxCount, maxDeleted = max(maxCount, n.count), max(maxDeleted, n.deleted)
		}
		if live != s.Len() {
			t.Fatalf("step %d: nodes hold %d, length %d", step, live, s.Len())
		}
		if every < 100 && step%100 != 99 {
			continue
		}
		// forward and backward iteration agree, over the whole stream and
		// a random range, and Get finds what they find
		lo := ID{uint64(rng.Intn(int(ms) + 1)), uint64(rng.Intn(3))}
		hi := ID{lo.Ms + uint64(rng.Intn(20)), uint64(rng.Intn(3))}
		for _, r := range [][2]ID{{ID{}, MaxID}, {lo, hi}} {
			var fwd, bwd []string
			s.Range(r[0], r[1], false, func(e Entry) bool {
				fwd = append(fwd, fmt.Sprintf("%v%q", e.ID, e.Fields))
				if r[0] == lo {
					if g, ok := s.Get(e.ID); !ok || !reflect.DeepEqual(g, e) {
						t.Fatalf("step %d: Get(%v) = %v %v", step, e.ID, g, ok)
					}
				}
				return true
			})
			s.Range(r[0], r[1], true, func(e Entry) bool {
				bwd = append(bwd, fmt.Sprintf("%v%q", e.ID, e.Fields))
				return true
			})
			slices.Reverse(bwd)
			if !slices.Equal(fwd, bwd) {
				t.Fatalf("step %d: range %v: forward %d entries, backward %d", step, r, len(fwd), len(bwd))
			}
			if r[0].IsZero() && uint64(len(fwd)) != s.Len() {
				t.Fatalf("step %d: %d entries iterated, length %d", step, len(fwd), s.Len())
			}
		}
	}
}

// TestIntegerFields checks fields and values listpack stores as integers:
// the master-fields comparison and what ranges return.
func TestIntegerFields(t *testing.T) {
	s := New()
	for i, f := range []string{"1 10 x -5", "1 7 x 99999999999", "01 a x b", "1 -0 x 3"} {
		if _, err := s.Add(AddID{ID: ID{1, uint64(i + 1)}}, fv(f), 0, DefaultLimits); err != nil {
			t.Fatal(err)
		}
	}
	var flags []int64
	d, err := decodeNode(s.nodes[0].master, s.nodes[0].lp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.entries {
		flags = append(flags, e.flags)
	}
	if want := []int64{2, 2, 0, 2}; !reflect.DeepEqual(flags, want) {
		t.Fatalf("flags %v, want %v", flags, want)
	}
	var got []string
	s.Range(ID{}, MaxID, true, func(e Entry) bool {
		got = append(got, fmt.Sprintf("%q", e.Fields))
		return true
	})
	want := []string{`["1" "-0" "x" "3"]`, `["01" "a" "x" "b"]`, `["1" "7" "x" "99999999999"]`, `["1" "10" "x" "-5"]`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
