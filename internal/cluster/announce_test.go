package cluster

import (
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/resp"
)

// TestAnnouncedPortsAtOnce: CLUSTER NODES shows a CONFIG SET of
// cluster-announce-port or cluster-announce-bus-port in the very next
// command, before any cron turn, and the defaults again once set back to
// 0 (tests/unit/cluster/announced-endpoints.tcl).
func TestAnnouncedPortsAtOnce(t *testing.T) {
	n := startNode(t)
	c := n.e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	for _, tc := range []struct{ name, value, want string }{
		{"cluster-announce-port", "7777", ":7777@" + strconv.Itoa(n.cport) + " "},
		{"cluster-announce-port", "0", ":" + strconv.Itoa(n.port) + "@"},
		{"cluster-announce-bus-port", "17777", "@17777 "},
		{"cluster-announce-bus-port", "0", "@" + strconv.Itoa(n.cport) + " "},
	} {
		// One lock for both: no cron turn between them.
		var w resp.Writer
		n.e.Lock()
		if known, errstr := n.e.Cfg.ApplyDirective(tc.name, []string{tc.value}, nil); !known || errstr != "" {
			n.e.Unlock()
			t.Fatalf("%s %s: %s", tc.name, tc.value, errstr)
		}
		n.e.Exec(c, [][]byte{[]byte("CLUSTER"), []byte("NODES")}, &w)
		n.e.Unlock()
		if line := nodeLine(string(w.Bytes()), n.id()); !strings.Contains(line, tc.want) {
			t.Errorf("%s %s: %q lacks %q", tc.name, tc.value, line, tc.want)
		}
	}
}
