package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

// recordingCluster refuses every query with MOVED and keeps what it saw.
type recordingCluster struct{ seen []engine.SlotQuery }

func (r *recordingCluster) PropagatePublish([]byte, []byte, bool) {}
func (r *recordingCluster) Cron()                                 {}
func (r *recordingCluster) KillLink(string, string) string        { return "" }

func (r *recordingCluster) Redirect(q *engine.SlotQuery) string {
	c := *q
	c.Keys = nil
	for _, k := range q.Keys {
		c.Keys = append(c.Keys, slices.Clone(k))
	}
	r.seen = append(r.seen, c)
	return "MOVED 1 127.0.0.1:7000"
}

// The dispatcher asks the cluster about every command with keys, with the
// keys getKeysFromCommand finds (EXEC: its queue's), and about nothing
// else; ASKING lasts one command.
func TestClusterRedirectQueries(t *testing.T) {
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	e := commands.New(config.DefaultConfig(), clk, nil)
	rc := &recordingCluster{}
	e.Cluster = rc
	c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	do := func(args ...string) string {
		var w resp.Writer
		e.Lock()
		defer e.Unlock()
		e.Exec(c, toArgs(args), &w)
		return string(w.Bytes())
	}
	keys := func(q engine.SlotQuery) string {
		var s []string
		for _, k := range q.Keys {
			s = append(s, string(k))
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		args   []string
		reply  string
		keys   string // "" when the cluster is not asked
		write  bool
		asking bool
	}{
		{[]string{"PING"}, "+PONG\r\n", "", false, false},
		{[]string{"GET", "a"}, "-MOVED 1 127.0.0.1:7000\r\n", "a", false, false},
		{[]string{"MSET", "a", "1", "b", "2"}, "-MOVED 1 127.0.0.1:7000\r\n", "a,b", true, false},
		// A script without a shebang keeps EVAL's own flags, no write (evalGetCommandFlags).
		{[]string{"EVAL", "return 1", "2", "k1", "k2"}, "-MOVED 1 127.0.0.1:7000\r\n", "k1,k2", false, false},
		{[]string{"RL.CHECK", "u", "1", "1000", "5", "m"}, "-MOVED 1 127.0.0.1:7000\r\n", "u", true, false},
		{[]string{"SPUBLISH", "ch", "m"}, "-MOVED 1 127.0.0.1:7000\r\n", "ch", false, false},
		{[]string{"ASKING"}, "", "", false, false}, // no cluster component here: unknown
		{[]string{"EXEC"}, "-ERR EXEC without MULTI\r\n", "", false, false},
	} {
		before := len(rc.seen)
		got := do(tc.args...)
		if tc.reply != "" && got != tc.reply {
			t.Errorf("%q: reply %q, want %q", tc.args, got, tc.reply)
		}
		switch {
		case tc.keys == "" && len(rc.seen) != before:
			t.Errorf("%q: the cluster was asked (%q)", tc.args, keys(rc.seen[before]))
		case tc.keys != "" && len(rc.seen) != before+1:
			t.Errorf("%q: the cluster was not asked", tc.args)
		case tc.keys != "":
			if q := rc.seen[before]; keys(q) != tc.keys || q.Write != tc.write || q.Asking != tc.asking {
				t.Errorf("%q: asked keys %q write %v asking %v, want %q %v %v", tc.args, keys(q), q.Write, q.Asking, tc.keys, tc.write, tc.asking)
			}
		}
	}
	// EXEC asks about its whole queue; the queued commands were asked about
	// as they came (a refusal there aborts the transaction).
	e.Cluster = nil
	do("MULTI")
	do("SET", "x", "1")
	do("GET", "y")
	e.Cluster = rc
	before := len(rc.seen)
	if got := do("EXEC"); !strings.HasPrefix(got, "-EXECABORT") && !strings.HasPrefix(got, "-MOVED") {
		t.Fatalf("EXEC: %q", got)
	}
	if len(rc.seen) != before+1 || keys(rc.seen[before]) != "x,y" || !rc.seen[before].Write {
		t.Fatalf("EXEC asked %+v", rc.seen[before:])
	}
	// ASKING (set here as the component's command would) covers one command.
	c.Asking = true
	do("GET", "a")
	do("GET", "a")
	if n := len(rc.seen); !rc.seen[n-2].Asking || rc.seen[n-1].Asking {
		t.Fatalf("asking flags %v, %v", rc.seen[n-2].Asking, rc.seen[n-1].Asking)
	}
	// The existence check a moving slot's ASK/TRYAGAIN rests on is
	// lookupKeyReadWithFlags(LOOKUP_NOEXPIRE): a key past its deadline is
	// missing (and stays in place).
	e.Cluster = nil
	do("SET", "present", "v")
	do("SET", "gone", "v", "PX", "100")
	clk.Add(200 * time.Millisecond)
	e.Cluster = rc
	do("GET", "a")
	q := rc.seen[len(rc.seen)-1]
	e.Lock()
	present, gone := q.Exists([]byte("present")), q.Exists([]byte("gone"))
	e.Unlock()
	if !present || gone {
		t.Fatalf("Exists: present %v, expired %v", present, gone)
	}
}
