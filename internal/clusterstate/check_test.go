package clusterstate

import (
	"fmt"
	"testing"
)

// check fails the test unless s holds the invariants its methods keep.
func check(t testing.TB, s *State) {
	t.Helper()
	if err := invariants(s); err != nil {
		t.Fatal(err)
	}
}

// invariants: the owner table and the nodes' bitmaps and counts say the
// same, the master and replica links are symmetric, and the nodes table,
// the listing order and the open slots refer to the same nodes.
func invariants(s *State) error {
	if len(s.order) != len(s.nodes) {
		return fmt.Errorf("%d nodes listed, %d in the table", len(s.order), len(s.nodes))
	}
	known := map[*Node]bool{}
	for _, n := range s.order {
		if s.nodes[n.name] != n {
			return fmt.Errorf("node %s listed but not in the table under its name", n.name)
		}
		if known[n] {
			return fmt.Errorf("node %s listed twice", n.name)
		}
		known[n] = true
	}
	if s.Myself == nil || !known[s.Myself] || !s.Myself.IsMyself() {
		return fmt.Errorf("myself is not a known node flagged myself")
	}
	counts := map[*Node]int{}
	for j, n := range s.slots {
		if n == nil {
			continue
		}
		if !known[n] {
			return fmt.Errorf("slot %d owned by an unknown node", j)
		}
		if !n.slots.Has(j) {
			return fmt.Errorf("slot %d owned by %s, whose bitmap lacks it", j, n.name)
		}
		counts[n]++
	}
	for _, n := range s.order {
		if n.numSlots != counts[n] || n.slots.Count() != counts[n] {
			return fmt.Errorf("node %s: numSlots %d, bitmap %d, owner table %d", n.name, n.numSlots, n.slots.Count(), counts[n])
		}
		if n.master != nil {
			if !known[n.master] {
				return fmt.Errorf("node %s replicates an unknown node", n.name)
			}
			found := 0
			for _, r := range n.master.replicas {
				if r == n {
					found++
				}
			}
			if found != 1 {
				return fmt.Errorf("node %s is %d times in its master's replicas", n.name, found)
			}
		}
		for _, r := range n.replicas {
			if r.master != n {
				return fmt.Errorf("node %s lists replica %s, which replicates another", n.name, r.name)
			}
		}
		for _, fr := range n.failReports {
			if !known[fr.Node] {
				return fmt.Errorf("node %s has a failure report from an unknown node", n.name)
			}
		}
	}
	for j := 0; j < Slots; j++ {
		if m := s.migratingTo[j]; m != nil && !known[m] {
			return fmt.Errorf("slot %d migrating to an unknown node", j)
		}
		if m := s.importingFrom[j]; m != nil && !known[m] {
			return fmt.Errorf("slot %d importing from an unknown node", j)
		}
	}
	return nil
}
