package clusterstate

import (
	"bytes"
	"strings"
	"testing"
)

// nm is a test node name: 40 times c.
func nm(c byte) Name {
	n, ok := ParseName(strings.Repeat(string(c), NameLen))
	if !ok {
		panic("bad test name")
	}
	return n
}

// cluster is a test state: myself "a" and masters "b", "c", all at t=1.
func cluster(t *testing.T) (s *State, a, b, c *Node) {
	t.Helper()
	s = newState()
	a = NewNode(nm('a'), FlagMyself|FlagMaster, 1)
	b = NewNode(nm('b'), FlagMaster, 1)
	c = NewNode(nm('c'), FlagMaster, 1)
	s.Myself = a
	for _, n := range []*Node{a, b, c} {
		if err := s.AddNode(n); err != nil {
			t.Fatal(err)
		}
	}
	return s, a, b, c
}

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{strings.Repeat("0123456789", 4), true},
		{strings.Repeat("z", 40), true}, // any lower-case letter, not only hex
		{strings.Repeat("a", 39), false},
		{strings.Repeat("a", 41), false},
		{strings.Repeat("A", 40), false},
		{strings.Repeat("a", 39) + "-", false},
		{"", false},
	} {
		n, ok := ParseName(tc.in)
		if ok != tc.ok || ok && n.String() != tc.in {
			t.Errorf("ParseName(%q) = %q, %v; want ok=%v", tc.in, n, ok, tc.ok)
		}
	}
	n := NewName()
	if _, ok := ParseName(n.String()); !ok || strings.Trim(n.String(), "0123456789abcdef") != "" {
		t.Errorf("NewName() = %q, not 40 hex characters", n)
	}
	if NewName() == n {
		t.Error("two NewName() are equal")
	}
	if got := RandomName(bytes.NewReader(make([]byte, 20))); got.String() != strings.Repeat("0", 40) {
		t.Errorf("RandomName(zeros) = %q", got)
	}
}

func TestFlagsString(t *testing.T) {
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{0, "noflags"},
		{FlagMeet | FlagMigrateTo, "noflags"}, // never shown
		{FlagMyself | FlagMaster, "myself,master"},
		{FlagMaster | FlagMyself | FlagMigrateTo, "myself,master"},
		{FlagSlave | FlagPFail | FlagNoFailover, "slave,fail?,nofailover"},
		{FlagMaster | FlagFail | FlagNoAddr, "master,fail,noaddr"},
		{FlagHandshake | FlagMeet, "handshake"},
		{0x3ff, "myself,master,slave,fail?,fail,handshake,noaddr,nofailover"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("Flags(%#x) = %q, want %q", uint16(tc.f), got, tc.want)
		}
	}
	// Redis's values, which the bus carries.
	if FlagMaster != 1 || FlagMyself != 16 || FlagMeet != 128 || FlagNoFailover != 512 {
		t.Error("flag values differ from cluster.h")
	}
}

func TestBitmapRanges(t *testing.T) {
	for _, tc := range []struct {
		slots []int
		want  []Range
	}{
		{nil, nil},
		{[]int{0}, []Range{{0, 0}}},
		{[]int{16383}, []Range{{16383, 16383}}},
		{[]int{0, 1, 2, 5, 7, 8, 16383}, []Range{{0, 2}, {5, 5}, {7, 8}, {16383, 16383}}},
	} {
		var b Bitmap
		for _, s := range tc.slots {
			b.Set(s)
		}
		got := b.Ranges()
		if len(got) != len(tc.want) || b.Count() != len(tc.slots) {
			t.Errorf("%v: Ranges %v Count %d", tc.slots, got, b.Count())
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%v: Ranges %v, want %v", tc.slots, got, tc.want)
			}
		}
	}
	var b Bitmap
	b.Set(9)
	if b[1] != 2 { // bit 9 is bit 1 of byte 1, as on the bus
		t.Errorf("slot 9 sets byte 1 to %#x", b[1])
	}
	b.Clear(9)
	if b.Has(9) {
		t.Error("Clear left the bit")
	}
	full := Bitmap{}
	for j := 0; j < Slots; j++ {
		full.Set(j)
	}
	if r := full.Ranges(); len(r) != 1 || r[0] != (Range{0, Slots - 1}) {
		t.Errorf("all slots: %v", r)
	}
}

func TestSlotsStayConsistent(t *testing.T) {
	s, a, b, _ := cluster(t)
	var dropped []int
	s.OnShardSlotDeleted = func(slot int) { dropped = append(dropped, slot) }
	for j := 0; j < 100; j++ {
		if !s.AddSlot(a, j) {
			t.Fatalf("AddSlot(a, %d) refused", j)
		}
	}
	if s.AddSlot(b, 5) {
		t.Error("AddSlot gave b a slot a serves")
	}
	s.AddSlot(b, 200)
	if !s.DelSlot(5) || s.DelSlot(5) {
		t.Error("DelSlot(5) twice: want true then false")
	}
	if s.SlotOwner(5) != nil || a.HasSlot(5) || a.NumSlots() != 99 {
		t.Errorf("after DelSlot(5): owner %v, a has it %v, a serves %d", s.SlotOwner(5), a.HasSlot(5), a.NumSlots())
	}
	if n := s.DelNodeSlots(a); n != 99 {
		t.Errorf("DelNodeSlots(a) = %d, want 99", n)
	}
	s.DelSlot(200) // b's: not our shard, its channels are not ours
	if len(dropped) != 100 || dropped[0] != 5 {
		t.Errorf("OnShardSlotDeleted saw %d slots starting %v, want myself's 100", len(dropped), dropped[:1])
	}
	check(t, s)

	got := s.OwnerRanges()
	if len(got) != 0 {
		t.Errorf("OwnerRanges of an empty table: %v", got)
	}
	s.AddSlot(a, 0)
	s.AddSlot(a, 1)
	s.AddSlot(b, 2)
	s.AddSlot(a, 3)
	s.AddSlot(b, Slots-1)
	want := []OwnedRange{{Range{0, 1}, a}, {Range{2, 2}, b}, {Range{3, 3}, a}, {Range{Slots - 1, Slots - 1}, b}}
	got = s.OwnerRanges()
	if len(got) != len(want) {
		t.Fatalf("OwnerRanges = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("OwnerRanges[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// A master's first slot makes it a migration target only when some master
// has replicas (clusterNodeSetSlotBit).
func TestFirstSlotMigrateTo(t *testing.T) {
	s, a, b, c := cluster(t)
	s.AddSlot(b, 1)
	if b.Flags&FlagMigrateTo != 0 {
		t.Error("MIGRATE_TO in a cluster without replicas")
	}
	s.SetNodeAsReplica(c, a)
	if a.Flags&FlagMigrateTo == 0 {
		t.Error("a master with a replica lacks MIGRATE_TO")
	}
	d := NewNode(nm('d'), FlagMaster, 1)
	s.AddNode(d)
	s.AddSlot(d, 2)
	if d.Flags&FlagMigrateTo == 0 {
		t.Error("first slot of a master did not set MIGRATE_TO")
	}
	check(t, s)
}

func TestRoles(t *testing.T) {
	s, a, b, c := cluster(t)
	s.AddSlot(c, 7)
	s.SetNodeAsReplica(c, b) // a master turned replica loses its slots
	if !c.IsReplica() || c.IsMaster() || c.Master() != b || c.NumSlots() != 0 || s.SlotOwner(7) != nil {
		t.Errorf("c after SetNodeAsReplica: flags %v master %v slots %d", c.Flags, c.Master(), c.NumSlots())
	}
	if len(b.Replicas()) != 1 || b.Flags&FlagMigrateTo == 0 {
		t.Errorf("b's replicas %v, flags %v", b.Replicas(), b.Flags)
	}
	if s.Todo&(TodoSaveConfig|TodoUpdateState) != TodoSaveConfig|TodoUpdateState {
		t.Errorf("Todo = %b", s.Todo)
	}
	s.SetNodeAsReplica(c, a) // moves
	if c.Master() != a || len(b.Replicas()) != 0 || b.Flags&FlagMigrateTo != 0 || len(a.Replicas()) != 1 {
		t.Errorf("after moving c to a: b has %v (flags %v), a has %v", b.Replicas(), b.Flags, a.Replicas())
	}
	s.SetNodeAsReplica(c, nil) // master unknown: keeps the one we know
	if c.Master() != a {
		t.Error("an unknown master dropped the known one")
	}
	check(t, s)

	s.SetNodeAsMaster(c) // a failover
	if !c.IsMaster() || c.IsReplica() || c.Master() != nil || len(a.Replicas()) != 0 || c.Flags&FlagMigrateTo == 0 {
		t.Errorf("c after SetNodeAsMaster: flags %v master %v", c.Flags, c.Master())
	}
	check(t, s)

	s.AddSlot(a, 1)
	if err := s.SetMyMaster(b); err != ErrSetMaster {
		t.Errorf("SetMyMaster while serving a slot: %v", err)
	}
	if err := s.SetMyMaster(a); err != ErrSetMaster {
		t.Errorf("SetMyMaster(myself): %v", err)
	}
	s.DelSlot(1)
	s.SetMigrating(5, b)
	if err := s.SetMyMaster(b); err != nil {
		t.Fatal(err)
	}
	if !a.IsReplica() || a.Master() != b || s.MigratingTo(5) != nil || a.Flags&FlagMigrateTo != 0 {
		t.Errorf("myself after SetMyMaster: flags %v master %v migrating %v", a.Flags, a.Master(), s.MigratingTo(5))
	}
	s.SetMyMaster(c)
	if a.Master() != c || len(b.Replicas()) != 0 {
		t.Error("SetMyMaster did not move myself")
	}
	check(t, s)
}

func TestDelNode(t *testing.T) {
	s, a, b, c := cluster(t)
	d := NewNode(nm('d'), FlagSlave, 1)
	s.AddNode(d)
	s.SetNodeAsReplica(d, b)
	s.AddSlot(b, 10)
	s.SetMigrating(11, b)
	s.SetImporting(12, b)
	s.AddFailureReport(c, b, 1)
	s.AddFailureReport(c, a, 1)
	s.DelNode(b)
	if s.Lookup(nm('b')) != nil || s.SlotOwner(10) != nil || s.MigratingTo(11) != nil || s.ImportingFrom(12) != nil {
		t.Error("b's traces remain")
	}
	if d.Master() != nil || len(c.FailReports()) != 1 || c.FailReports()[0].Node != a {
		t.Errorf("d's master %v, c's reports %v", d.Master(), c.FailReports())
	}
	s.DelNode(d)
	if s.NumNodes() != 2 || len(s.Nodes()) != 2 {
		t.Errorf("%d nodes left", s.NumNodes())
	}
	check(t, s)
}

func TestRenameNode(t *testing.T) {
	s, _, b, c := cluster(t)
	if err := s.RenameNode(b, nm('c')); err != ErrNodeExists {
		t.Errorf("renaming onto c: %v", err)
	}
	if err := s.RenameNode(b, nm('z')); err != nil {
		t.Fatal(err)
	}
	if s.Lookup(nm('b')) != nil || s.Lookup(nm('z')) != b || s.LookupID(strings.Repeat("z", 40)) != b {
		t.Error("the table does not follow the new name")
	}
	if order := s.Nodes(); order[1] != b || order[2] != c {
		t.Error("a rename moved the node in the listing order")
	}
	if s.LookupID("zz") != nil || s.AddNode(NewNode(nm('z'), 0, 1)) != ErrNodeExists {
		t.Error("LookupID of a bad ID, or AddNode of a taken name")
	}
	check(t, s)
}

func TestStartHandshake(t *testing.T) {
	s, _, _, _ := cluster(t)
	for _, tc := range []struct {
		ip          string
		port, cport int
		wantIP      string
		err         error
	}{
		{"127.0.0.1", 7000, 17000, "127.0.0.1", nil},
		{"127.0.0.1", 7000, 17000, "", ErrHandshakeInProgress},
		{"127.0.0.1", 7000, 17001, "127.0.0.1", nil}, // another bus port is another address
		{"0:0:0:0:0:0:0:1", 7000, 17000, "::1", nil}, // inet_ntop's form
		{"::1", 7000, 17000, "", ErrHandshakeInProgress},
		{"::ffff:10.0.0.1", 1, 1, "::ffff:10.0.0.1", nil},
		{"fe80::1%eth0", 1, 1, "", ErrInvalidAddress},
		{"localhost", 7000, 17000, "", ErrInvalidAddress},
		{"127.0.0.01", 7000, 17000, "", ErrInvalidAddress},
		{"10.0.0.1", 0, 17000, "", ErrInvalidAddress},
		{"10.0.0.1", 7000, 65536, "", ErrInvalidAddress},
	} {
		n, err := s.StartHandshake(tc.ip, tc.port, tc.cport, 42)
		if err != tc.err {
			t.Errorf("StartHandshake(%s, %d, %d) = %v, want %v", tc.ip, tc.port, tc.cport, err, tc.err)
			continue
		}
		if err == nil && (n.IP != tc.wantIP || n.Flags != FlagHandshake|FlagMeet || n.Ctime != 42 || s.Lookup(n.Name()) != n) {
			t.Errorf("StartHandshake(%s): node %+v", tc.ip, n)
		}
	}
	check(t, s)
}

func TestBlacklist(t *testing.T) {
	s, _, b, _ := cluster(t)
	s.BlacklistAdd(b.Name(), 1_000_000)
	for _, tc := range []struct {
		now  int64
		want bool
	}{{1_000_000, true}, {1_060_999, true}, {1_061_000, false}} {
		if got := s.BlacklistExists(b.Name(), tc.now); got != tc.want {
			t.Errorf("BlacklistExists at %d = %v, want %v", tc.now, got, tc.want)
		}
	}
	if len(s.blacklist) != 0 {
		t.Error("an expired entry stayed")
	}
}

func TestReset(t *testing.T) {
	for _, hard := range []bool{false, true} {
		s, a, b, c := cluster(t)
		s.SetNodeAsReplica(c, b)
		s.AddSlot(b, 3)
		s.SetMyMaster(b)
		s.SetImporting(4, c)
		s.CurrentEpoch, s.LastVoteEpoch, a.ConfigEpoch = 7, 6, 5
		if !s.Reset(hard) {
			t.Error("Reset of a replica says it was not one")
		}
		if s.NumNodes() != 1 || !a.IsMaster() || a.Master() != nil || s.SlotOwner(3) != nil || s.ImportingFrom(4) != nil {
			t.Errorf("hard=%v: %d nodes, myself %v", hard, s.NumNodes(), a.Flags)
		}
		renamed := a.Name() != nm('a')
		if renamed != hard || hard != (s.CurrentEpoch == 0 && s.LastVoteEpoch == 0 && a.ConfigEpoch == 0) {
			t.Errorf("hard=%v: renamed %v, epochs %d %d %d", hard, renamed, s.CurrentEpoch, s.LastVoteEpoch, a.ConfigEpoch)
		}
		check(t, s)
	}
}

func TestFailureReports(t *testing.T) {
	s, a, b, c := cluster(t)
	s.NodeTimeout = 1000 // reports count for 2 s
	if !s.AddFailureReport(c, b, 100) || s.AddFailureReport(c, b, 1000) || !s.AddFailureReport(c, a, 500) {
		t.Fatal("AddFailureReport: want new, refresh, new")
	}
	for _, tc := range []struct {
		now  int64
		want int
	}{{2500, 2}, {2501, 1}, {3000, 1}, {3001, 0}} {
		if got := s.FailureReportsCount(c, tc.now); got != tc.want {
			t.Errorf("FailureReportsCount at %d = %d, want %d", tc.now, got, tc.want)
		}
	}
	s.AddFailureReport(c, b, 5000)
	s.AddFailureReport(c, a, 5000)
	if !s.DelFailureReport(c, b, 5000) || s.DelFailureReport(c, b, 5000) {
		t.Error("DelFailureReport: want true then false")
	}
	if fr := c.FailReports(); len(fr) != 1 || fr[0] != (FailReport{a, 5000}) {
		t.Errorf("reports left: %v", fr)
	}
}

func TestMarkAndClearFailure(t *testing.T) {
	s, a, b, c := cluster(t)
	s.NodeTimeout = 1000
	s.Size = 3 // quorum 2
	s.AddSlot(c, 1)
	if s.MarkFailingIfNeeded(c, 10) {
		t.Error("marked FAIL without PFAIL")
	}
	c.Flags |= FlagPFail
	s.Todo = 0
	if s.MarkFailingIfNeeded(c, 10) {
		t.Error("marked FAIL on myself's word alone")
	}
	s.AddFailureReport(c, b, 10)
	if !s.MarkFailingIfNeeded(c, 20) || !c.Failed() || c.TimedOut() || c.FailTime != 20 || s.Todo != TodoUpdateState|TodoSaveConfig {
		t.Errorf("after the quorum: flags %v fail time %d todo %b", c.Flags, c.FailTime, s.Todo)
	}
	if s.MarkFailingIfNeeded(c, 30) {
		t.Error("marked FAIL twice")
	}
	// A master still serving slots stays FAIL for 2 node timeouts.
	if s.ClearFailureIfNeeded(c, 2020) || !s.ClearFailureIfNeeded(c, 2021) || c.Failed() {
		t.Error("a master's FAIL: want kept until 2 node timeouts, then cleared")
	}
	// A replica's, at once.
	d := NewNode(nm('d'), FlagSlave|FlagFail, 1)
	s.AddNode(d)
	if !s.ClearFailureIfNeeded(d, 1) || d.Failed() {
		t.Error("a replica's FAIL was kept")
	}
	// As a replica, myself does not vote.
	a.Flags = FlagMyself | FlagSlave
	e := NewNode(nm('e'), FlagMaster|FlagPFail, 1)
	s.AddNode(e)
	s.AddFailureReport(e, b, 10)
	if s.MarkFailingIfNeeded(e, 10) {
		t.Error("a replica's own view counted toward the quorum")
	}
}

func TestUpdateState(t *testing.T) {
	s, a, b, c := cluster(t)
	s.NodeTimeout = 2000
	for j := 0; j < Slots; j++ {
		s.AddSlot([]*Node{a, b, c}[j%3], j)
	}
	step := func(now int64, wantHealth Health, wantChanged bool) {
		t.Helper()
		if changed := s.UpdateState(now); changed != wantChanged || s.Health != wantHealth {
			t.Errorf("UpdateState(%d) = %v, health %v; want %v, %v", now, changed, s.Health, wantChanged, wantHealth)
		}
	}
	step(1000, StateFail, false) // a master waits 2 s after the first call
	if s.Size != 1 {
		t.Errorf("Size computed during the writable delay: %d", s.Size)
	}
	step(2999, StateFail, false)
	step(3000, StateOK, true)
	if s.Size != 3 {
		t.Errorf("Size = %d, want 3", s.Size)
	}
	c.Flags |= FlagPFail // one of three unreachable: still a majority
	step(3100, StateOK, false)
	b.Flags |= FlagPFail
	step(3200, StateFail, true) // minority
	b.Flags &^= FlagPFail
	step(5199, StateFail, false) // the rejoin delay, node timeout 2 s
	step(5200, StateOK, true)
	c.Flags |= FlagFail // a FAIL owner uncovers its slots
	step(5300, StateFail, true)
	s.RequireFullCoverage = false
	step(5400, StateOK, true) // the FAIL was coverage, not a minority: no rejoin delay
	s.DelSlot(0)
	s.RequireFullCoverage = true
	step(7400, StateFail, true)
	if s.Todo&TodoUpdateState != 0 {
		t.Error("UpdateState left its Todo bit")
	}
}

func TestEpochs(t *testing.T) {
	s, a, b, c := cluster(t)
	s.CurrentEpoch = 5
	b.ConfigEpoch = 7
	if s.MaxEpoch() != 7 {
		t.Errorf("MaxEpoch = %d", s.MaxEpoch())
	}
	for _, tc := range []struct {
		mine, current uint64
		want          bool
		wantEpoch     uint64
	}{
		{0, 7, true, 8},  // epoch 0 always bumps
		{3, 7, true, 8},  // not the greatest
		{7, 7, false, 7}, // the greatest: already
		{9, 9, false, 9},
	} {
		a.ConfigEpoch, s.CurrentEpoch = tc.mine, tc.current
		if got := s.BumpConfigEpochWithoutConsensus(); got != tc.want || a.ConfigEpoch != tc.wantEpoch {
			t.Errorf("bump from %d: %v, epoch %d; want %v, %d", tc.mine, got, a.ConfigEpoch, tc.want, tc.wantEpoch)
		}
	}

	// Collisions: the smaller name moves.
	s.CurrentEpoch, a.ConfigEpoch, b.ConfigEpoch, c.ConfigEpoch = 10, 4, 4, 4
	if !s.HandleConfigEpochCollision(b) || a.ConfigEpoch != 11 || s.CurrentEpoch != 11 {
		t.Errorf("a < b collided: epoch %d current %d", a.ConfigEpoch, s.CurrentEpoch)
	}
	if s.Todo&(TodoSaveConfig|TodoFsyncConfig) != TodoSaveConfig|TodoFsyncConfig {
		t.Error("a collision does not ask for a synced save")
	}
	s.RenameNode(a, nm('d'))
	c.ConfigEpoch = 11
	if s.HandleConfigEpochCollision(c) {
		t.Error("the greater name moved")
	}
	c.Flags = FlagSlave
	s.RenameNode(a, nm('0'))
	if s.HandleConfigEpochCollision(c) {
		t.Error("moved for a replica")
	}
	b.ConfigEpoch = 3
	if s.HandleConfigEpochCollision(b) {
		t.Error("moved for a different epoch")
	}
}
