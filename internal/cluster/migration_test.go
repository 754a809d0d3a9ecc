package cluster

import (
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/clusterstate"
)

// migFixture is what a replica (myself, ID 5555...) sees: its master a
// (slots 0-99) has a second working replica b (ID 9999...); master o
// (slots 100-199) lost its only replica orep, which is FAIL, so o is
// orphaned; master p (slots 200-299) has one working replica.
type migFixture struct {
	st                *clusterstate.State
	me, a, b, o, orep *clusterstate.Node
	p, prep           *clusterstate.Node
	now               int64
	addNode           func(id byte, flags clusterstate.Flags) *clusterstate.Node
	addReplica        func(id byte, master *clusterstate.Node) *clusterstate.Node
	addMaster         func(id byte, from, to int) *clusterstate.Node
}

func migName(id byte) clusterstate.Name {
	return clusterstate.Name([]byte(strings.Repeat(string(id), clusterstate.NameLen)))
}

func newMigFixture(t *testing.T) *migFixture {
	t.Helper()
	const now = 1_700_000_000_000
	st := clusterstate.New(now)
	st.NodeTimeout = 1000
	f := &migFixture{st: st, me: st.Myself, now: now}
	if err := st.RenameNode(st.Myself, migName('5')); err != nil {
		t.Fatal(err)
	}
	f.addNode = func(id byte, flags clusterstate.Flags) *clusterstate.Node {
		n := clusterstate.NewNode(migName(id), flags, now)
		if err := st.AddNode(n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	f.addMaster = func(id byte, from, to int) *clusterstate.Node {
		n := f.addNode(id, clusterstate.FlagMaster)
		for j := from; j < to; j++ {
			st.AddSlot(n, j)
		}
		return n
	}
	f.addReplica = func(id byte, master *clusterstate.Node) *clusterstate.Node {
		r := f.addNode(id, clusterstate.FlagSlave)
		st.SetNodeAsReplica(r, master)
		return r
	}
	f.a = f.addMaster('a', 0, 100)
	f.o = f.addMaster('c', 100, 200)
	f.p = f.addMaster('d', 200, 300)
	if err := st.SetMyMaster(f.a); err != nil {
		t.Fatal(err)
	}
	f.b = f.addReplica('9', f.a)
	f.orep = f.addReplica('7', f.o)
	f.orep.Flags |= clusterstate.FlagFail
	f.prep = f.addReplica('8', f.p)
	st.Health = clusterstate.StateOK
	return f
}

// The rules of clusterHandleSlaveMigration, each broken alone: migrationTarget
// is asked once when the orphan is first seen, then again elapsed ms later.
func TestMigrationTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		barrier int
		allow   bool
		elapsed int64
		setup   func(f *migFixture)
		want    bool // o is the target the second time
	}{
		{"moves once orphaned longer than the delay", 1, true, 5001, nil, true},
		{"not at the delay itself", 1, true, 5000, nil, false},
		{"not when the barrier keeps both replicas", 2, true, 6000, nil, false},
		{"barrier 0 still needs a master with two replicas", 0, true, 6000,
			func(f *migFixture) { f.st.DelNode(f.b) }, false},
		{"barrier 0 with two replicas", 0, true, 6000, nil, true},
		{"not when cluster-allow-replica-migration is no", 1, false, 6000, nil, false},
		{"a sibling with a smaller ID moves instead", 1, true, 6000,
			func(f *migFixture) { f.addReplica('1', f.a) }, false},
		{"a FAIL sibling with a smaller ID is still the candidate (Redis 7.0)", 1, true, 6000,
			func(f *migFixture) { f.addReplica('1', f.a).Flags |= clusterstate.FlagFail }, false},
		{"a PFAIL sibling does not count for the barrier", 1, true, 6000,
			func(f *migFixture) { f.b.Flags |= clusterstate.FlagPFail }, false},
		{"a master with more working replicas gives one, not ours", 1, true, 6000,
			func(f *migFixture) { f.addReplica('e', f.p); f.addReplica('f', f.p) }, false},
		{"an equally rich master's replica with a smaller ID moves instead", 1, true, 6000,
			func(f *migFixture) { f.addReplica('2', f.p) }, false},
		{"an equally rich master's replicas with greater IDs leave it to us", 1, true, 6000,
			func(f *migFixture) { f.addReplica('6', f.p) }, true},
		{"not to a master that never had replicas", 1, true, 6000,
			func(f *migFixture) { f.o.Flags &^= clusterstate.FlagMigrateTo }, false},
		{"not to a FAIL master", 1, true, 6000,
			func(f *migFixture) { f.o.Flags |= clusterstate.FlagFail }, false},
		{"not to a master without slots", 1, true, 6000,
			func(f *migFixture) { f.st.DelNodeSlots(f.o) }, false},
		{"not while the cluster is down", 1, true, 6000,
			func(f *migFixture) { f.st.Health = clusterstate.StateFail }, false},
		{"not once the orphan's replica is back", 1, true, 6000,
			func(f *migFixture) { f.orep.Flags &^= clusterstate.FlagFail }, false},
		{"a PFAIL replica still counts as the orphan's", 1, true, 6000,
			func(f *migFixture) { f.orep.Flags = f.orep.Flags&^clusterstate.FlagFail | clusterstate.FlagPFail }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newMigFixture(t)
			if tc.setup != nil {
				tc.setup(f)
			}
			if got := migrationTarget(f.st, tc.barrier, tc.allow, f.now); got != nil {
				t.Fatalf("at first sight of the orphan: %s", got.ID())
			}
			got := migrationTarget(f.st, tc.barrier, tc.allow, f.now+tc.elapsed)
			if (got == f.o) != tc.want || (got != nil && got != f.o) {
				t.Errorf("target %v, want o: %v", got, tc.want)
			}
		})
	}
}

// The delay counts from when the master was last seen orphaned: a replica
// that comes back and fails again restarts it.
func TestMigrationDelayRestarts(t *testing.T) {
	f := newMigFixture(t)
	at := func(ms int64) *clusterstate.Node { return migrationTarget(f.st, 1, true, f.now+ms) }
	if at(0) != nil {
		t.Fatal("moved at first sight")
	}
	f.orep.Flags &^= clusterstate.FlagFail
	if at(3000) != nil || f.o.OrphanedTime != 0 {
		t.Fatalf("o has a replica again: orphaned since %d", f.o.OrphanedTime)
	}
	f.orep.Flags |= clusterstate.FlagFail
	if at(4000) != nil {
		t.Fatal("moved at the second sight")
	}
	if got := at(9000); got != nil {
		t.Fatalf("moved %d ms after the second orphaning: %s", 5000, got.ID())
	}
	if got := at(9001); got != f.o {
		t.Fatalf("target %v, want o", got)
	}
}

// The replica of an orphan that failed over is orphaned too, when its old
// master had replicas: SetNodeAsMaster gives it MIGRATE_TO.
func TestMigrationToPromotedReplica(t *testing.T) {
	f := newMigFixture(t)
	f.o.Flags |= clusterstate.FlagFail
	f.st.SetNodeAsMaster(f.orep)
	f.orep.Flags &^= clusterstate.FlagFail
	for j := 100; j < 200; j++ {
		f.st.DelSlot(j)
		f.st.AddSlot(f.orep, j)
	}
	if migrationTarget(f.st, 1, true, f.now) != nil {
		t.Fatal("moved at first sight")
	}
	if got := migrationTarget(f.st, 1, true, f.now+5001); got != f.orep {
		t.Fatalf("target %v, want the promoted replica", got)
	}
}
