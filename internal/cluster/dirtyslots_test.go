package cluster

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/keyslot"
	"github.com/limitkv/limitkv/internal/propagate"
)

// streamCapture reads the write stream as a replica would.
type streamCapture struct{ ops []string }

func (c *streamCapture) Feed(op propagate.Op) {
	args := make([]string, len(op.Args))
	for i, a := range op.Args {
		args[i] = string(a)
	}
	c.ops = append(c.ops, strings.Join(args, " "))
}

// TestLostSlotKeysDeleted: a master that loses a slot holding keys to a
// newer configEpoch (an UPDATE, or a PING claiming it) while it keeps
// others deletes the slot's keys, and each deletion is a DEL for the
// replicas and the AOF and a change for the dirty count
// (clusterUpdateSlotsConfigWith's dirty slots, delKeysInSlot as Redis 7.2
// has it: tests/unit/cluster/slot-ownership.tcl). Keys of the slots it
// keeps stay.
func TestLostSlotKeysDeleted(t *testing.T) {
	lost := int(keyslot.Slot([]byte("FOO")))
	kept := int(keyslot.Slot([]byte("BAR")))
	for _, tc := range []struct {
		name  string
		claim func(p *fakePeer, slots clusterbus.SlotBitmap)
	}{
		{"UPDATE", func(p *fakePeer, slots clusterbus.SlotBitmap) {
			p.send(p.out, &clusterbus.Message{Header: p.header(clusterbus.TypeUpdate),
				Body: &clusterbus.Update{ConfigEpoch: 5, Node: p.name, Slots: slots}})
		}},
		{"PING", func(p *fakePeer, slots clusterbus.SlotBitmap) {
			h := p.header(clusterbus.TypePing)
			h.ConfigEpoch, h.CurrentEpoch, h.MySlots = 5, 5, slots
			p.send(p.out, &clusterbus.Message{Header: h, Body: &clusterbus.Ping{}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := startNode(t, "cluster-require-full-coverage", "no")
			p := joinFake(t, n, fakeName)
			n.locked(func(st *clusterstate.State) {
				st.AddSlot(st.Myself, lost)
				st.AddSlot(st.Myself, kept)
				st.CurrentEpoch, st.Myself.ConfigEpoch = 1, 1
			})
			// A master serves writes 2 s after its start at the earliest
			// (CLUSTER_WRITABLE_DELAY).
			eventually(t, 4*time.Second, "cluster_state:ok", func() bool {
				return strings.Contains(n.do("CLUSTER", "INFO"), "cluster_state:ok")
			})
			for _, k := range []string{"FOO", "{FOO}2", "BAR"} {
				if got := n.do("SET", k, "v"); got != "+OK\r\n" {
					t.Fatalf("SET %s: %q", k, got)
				}
			}
			capture := &streamCapture{}
			n.e.Lock()
			n.e.Prop.Stream.Attach(capture)
			dirty := n.e.DirtyCount()
			n.e.Unlock()
			t.Cleanup(func() { n.e.Lock(); n.e.Prop.Stream.Detach(capture); n.e.Unlock() })

			var slots clusterbus.SlotBitmap
			slots.Set(uint16(lost))
			tc.claim(p, slots)
			eventually(t, 2*time.Second, "the slot to change hands", func() bool {
				return strings.HasSuffix(nodeLine(n.nodes(), fakeName), " 5 connected "+strconv.Itoa(lost))
			})

			if got := n.do("CLUSTER", "COUNTKEYSINSLOT", strconv.Itoa(lost)); got != ":0\r\n" {
				t.Errorf("COUNTKEYSINSLOT of the lost slot: %q", got)
			}
			if got := n.do("CLUSTER", "COUNTKEYSINSLOT", strconv.Itoa(kept)); got != ":1\r\n" {
				t.Errorf("COUNTKEYSINSLOT of the kept slot: %q", got)
			}
			n.e.Lock()
			ops, changes := append([]string(nil), capture.ops...), n.e.DirtyCount()-dirty
			n.e.Unlock()
			dels := map[string]bool{}
			for _, op := range ops {
				if k, ok := strings.CutPrefix(op, "DEL "); ok {
					dels[k] = true
				}
			}
			if len(dels) != 2 || !dels["FOO"] || !dels["{FOO}2"] {
				t.Errorf("propagated %q, want a DEL of FOO and of {FOO}2", ops)
			}
			if changes != 2 {
				t.Errorf("dirty count grew by %d, want 2", changes)
			}
		})
	}
}
