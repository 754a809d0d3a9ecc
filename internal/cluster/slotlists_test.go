package cluster

import (
	"testing"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/keyslot"
)

// TestSlotListsReleased: the slot index's key lists, built by a
// GETKEYSINSLOT, go after slotListsIdle cron turns in which nothing asked
// for them, unless a slot is migrating or importing; the counts stay.
func TestSlotListsReleased(t *testing.T) {
	n := startNode(t)
	slot := int(keyslot.Slot([]byte("{u}")))
	n.e.Lock()
	defer n.e.Unlock()
	n.e.Dbs[0].Add([]byte("{u}a"), []byte("v"))
	ix := n.e.SlotIndex()
	idle := func() {
		for range slotListsIdle {
			n.releaseSlotLists()
		}
	}
	ix.Keys(nil, slot, 10)
	n.releaseSlotLists() // this turn sees the use
	idle()
	if ix.Built() {
		t.Fatal("lists kept after a minute unused")
	}
	if ix.Count(slot) != 1 {
		t.Fatalf("count %d after the release", ix.Count(slot))
	}

	ix.Keys(nil, slot, 10)
	other := clusterstate.NewNode(clusterstate.NewName(), clusterstate.FlagMaster, 0)
	n.st.SetImporting(slot, other)
	idle()
	idle()
	if !ix.Built() {
		t.Fatal("lists released while a slot is importing")
	}
	n.st.SetImporting(slot, nil)
	idle()
	if ix.Built() {
		t.Fatal("lists kept once the import is over")
	}
}
