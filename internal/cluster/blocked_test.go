package cluster

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/keyslot"
	"github.com/limitkv/limitkv/internal/resp"
)

// TestBlockedRedirect: a client blocked on a key whose slot this node no
// longer serves is unblocked by the cron with the error that would send it
// on (clusterRedirectBlockedClientIfNeeded; tests/unit/cluster.tcl's
// "Verify command got unblocked after resharding" and "after cluster
// failure"); one whose slot is being imported here waits on.
func TestBlockedRedirect(t *testing.T) {
	slot := int(keyslot.Slot([]byte("k")))
	for _, tc := range []struct {
		name     string
		coverage string // cluster-require-full-coverage
		change   func(st *clusterstate.State, fake *clusterstate.Node)
		want     string // "": still blocked
	}{
		{"the slot moved", "no", func(st *clusterstate.State, fake *clusterstate.Node) {
			st.DelSlot(slot)
			st.AddSlot(fake, slot)
		}, "-MOVED " + strconv.Itoa(slot) + " 127.0.0.1:7000\r\n"},
		{"the slot unassigned", "no", func(st *clusterstate.State, fake *clusterstate.Node) {
			st.DelSlot(slot)
		}, "-CLUSTERDOWN Hash slot not served\r\n"},
		{"the cluster down", "yes", func(st *clusterstate.State, fake *clusterstate.Node) {
			st.DelSlot(slot + 1)
			st.Todo |= clusterstate.TodoUpdateState
		}, "-CLUSTERDOWN The cluster is down\r\n"},
		{"the slot moved but imported", "no", func(st *clusterstate.State, fake *clusterstate.Node) {
			st.DelSlot(slot)
			st.AddSlot(fake, slot)
			st.SetImporting(slot, fake)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := startNode(t, "cluster-require-full-coverage", tc.coverage)
			joinFake(t, n, fakeName)
			n.locked(func(st *clusterstate.State) {
				for j := 0; j < clusterstate.Slots; j++ {
					st.AddSlot(st.Myself, j)
				}
				st.Todo |= clusterstate.TodoUpdateState
			})
			// A master serves 2 s after its start at the earliest.
			eventually(t, 4*time.Second, "cluster_state:ok", func() bool {
				return strings.Contains(n.do("CLUSTER", "INFO"), "cluster_state:ok")
			})
			c := n.e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
			var w resp.Writer
			n.e.Lock()
			n.e.Exec(c, [][]byte{[]byte("BRPOP"), []byte("k"), []byte("0")}, &w)
			blocked := c.IsBlocked()
			n.e.Unlock()
			if !blocked {
				t.Fatalf("BRPOP did not block: %q", w.Bytes())
			}
			n.locked(func(st *clusterstate.State) { tc.change(st, st.LookupID(fakeName)) })
			reply := func() (string, bool) {
				n.e.Lock()
				defer n.e.Unlock()
				return string(w.Bytes()), c.IsBlocked()
			}
			if tc.want == "" {
				time.Sleep(300 * time.Millisecond) // three cron turns
				if got, still := reply(); !still || got != "" {
					t.Fatalf("unblocked with %q", got)
				}
				return
			}
			eventually(t, 2*time.Second, "the client to be unblocked", func() bool {
				_, still := reply()
				return !still
			})
			if got, _ := reply(); got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}
