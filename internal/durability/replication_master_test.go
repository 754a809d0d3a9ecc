package durability

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/lua"
	"github.com/limitkv/limitkv/internal/resp"
)

// These tests check the replication master's decisions against Redis
// 7.0.15's replication.c, driving the real command path (engine.Exec) on
// an engine that has only this package's commands and the engine's own:
// internal/commands cannot be imported from here (it imports us), and
// nothing here needs another family. The stream is fed with replFeedBytes,
// as the propagation stream feeds it, so the bytes and offsets are known.

var installOnce sync.Once

// noScripts stands in for the scripting component: a full sync's snapshot
// asks it for the function libraries, and there are none.
type noScripts struct{}

func (noScripts) DeniesOOM(*engine.Command, [][]byte) bool { return false }
func (noScripts) LookupScript([]byte) *lua.Script          { return nil }
func (noScripts) ScriptCount() int                         { return 0 }
func (noScripts) FunctionCounts() (int, int)               { return 0, 0 }
func (noScripts) FunctionCodes() [][]byte                  { return nil }
func (noScripts) LoadFunctions([][]byte) error             { return nil }
func (noScripts) DropFunctions()                           {}

func newReplEngine(t *testing.T) (*engine.Engine, *clock.Manual) {
	t.Helper()
	installOnce.Do(func() { engine.Install(Commands) })
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	cfg := config.DefaultConfig()
	cfg.SetDir(t.TempDir(), "")
	e := engine.New(cfg, clk, nil)
	e.Scripts = noScripts{}
	Attach(e)
	t.Cleanup(func() { WaitBgsave(e) })
	return e, clk
}

// newConn is a client with a connection's output buffer, which SYNC and
// PSYNC need (an in-process client cannot be a replica).
func newConn(e *engine.Engine, addr string) *engine.Client {
	c := e.NewClient(addr, "127.0.0.1:6379")
	e.Lock()
	c.Out = &resp.Writer{}
	c.Unsent = func() int { return 0 }
	e.Unlock()
	return c
}

// run executes args for c through the command path and returns the reply.
func run(e *engine.Engine, c *engine.Client, args ...string) string {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var w resp.Writer
	e.Lock()
	e.Exec(c, bargs, &w)
	e.Unlock()
	return string(w.Bytes())
}

// outOf reads what c's connection was sent unasked.
func outOf(e *engine.Engine, c *engine.Client) string {
	e.Lock()
	defer e.Unlock()
	return string(c.Out.Bytes())
}

// waitOnline waits for c's full sync to end (its RDB sent, the replica
// online), so that no snapshot goroutine outlives the test.
func waitOnline(t *testing.T, e *engine.Engine, c *engine.Client) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		e.Lock()
		rp := replicaOf(c)
		online := rp != nil && rp.state == replicaOnline
		e.Unlock()
		if online {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica's full sync did not end")
		}
		time.Sleep(time.Millisecond)
	}
}

const (
	idCur = "1111111111111111111111111111111111111111"
	idOld = "2222222222222222222222222222222222222222"
	idNew = "3333333333333333333333333333333333333333"
)

// testStream is 40 distinct bytes: stream offset i is testStream[i-1].
var testStream = []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN")

// masterWithBacklog makes e a master whose backlog of 16 bytes holds the
// last 16 of testStream (offsets 25..40; master_repl_offset 40), with
// replid idCur and replid2 idOld valid up to offset 30.
func masterWithBacklog(e *engine.Engine) {
	e.Lock()
	defer e.Unlock()
	e.Cfg.ReplBacklogSize.Store(16)
	d := Of(e)
	d.createBacklog()
	d.replFeedBytes(testStream)
	r := &d.repl
	e.Debug.ReplID, r.replid = idCur, idCur
	r.replid2, r.secondOffset = idOld, 30
}

// TestPsyncDecision is masterTryPartialResynchronization and syncCommand's
// answer to PSYNC: +CONTINUE (with the new replid for a psync2 replica)
// followed by the backlog from the requested offset, or a full resync whose
// +FULLRESYNC line goes out when the snapshot starts, followed by the RDB.
func TestPsyncDecision(t *testing.T) {
	tail := func(from int64) string { return string(testStream[from-1:]) }
	for _, tc := range []struct {
		name       string
		noBacklog  bool   // a master that never had a replica
		noPsync2   bool   // the replica did not send REPLCONF capa psync2
		id         string // PSYNC's replid
		off        int64
		cont       string // the whole reply of a partial resync; "" for a full one
		partialErr int64  // sync_partial_err after a full resync
	}{
		// replid matches, offset inside [first, first+histlen].
		{name: "first byte held", id: idCur, off: 25, cont: "+CONTINUE " + idCur + "\r\n" + tail(25)},
		{name: "middle of the backlog", id: idCur, off: 33, cont: "+CONTINUE " + idCur + "\r\n" + tail(33)},
		{name: "last byte held", id: idCur, off: 40, cont: "+CONTINUE " + idCur + "\r\n" + tail(40)},
		// The replica has every byte: nothing follows the +CONTINUE.
		{name: "one past the end", id: idCur, off: 41, cont: "+CONTINUE " + idCur + "\r\n"},
		// A replica without capa psync2 gets the bare form (it could not
		// parse the id), the stream the same.
		{name: "no capa psync2", noPsync2: true, id: idCur, off: 33, cont: "+CONTINUE\r\n" + tail(33)},
		// replid2 is valid up to second_repl_offset inclusive; the reply
		// names the current id, which the replica adopts.
		{name: "replid2 at second offset", id: idOld, off: 30, cont: "+CONTINUE " + idCur + "\r\n" + tail(30)},
		{name: "replid2 before second offset", id: idOld, off: 25, cont: "+CONTINUE " + idCur + "\r\n" + tail(25)},
		{name: "replid2 past second offset", id: idOld, off: 31, partialErr: 1},
		{name: "replid2 outside the backlog", id: idOld, off: 24, partialErr: 1},
		{name: "offset before the backlog", id: idCur, off: 24, partialErr: 1},
		{name: "offset past the master's", id: idCur, off: 42, partialErr: 1},
		{name: "unknown replid", id: idNew, off: 33, partialErr: 1},
		// Only "?" asks for a full resync without counting as a failure.
		{name: "offset -1 with the current id", id: idCur, off: -1, partialErr: 1},
		// "?" is a replica asking for a full resync on purpose: not
		// counted as a failed partial one.
		{name: "PSYNC ? -1", id: "?", off: -1},
		{name: "no backlog", noBacklog: true, id: idCur, off: 1, partialErr: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newReplEngine(t)
			if !tc.noBacklog {
				masterWithBacklog(e)
			} else {
				e.Lock()
				e.Debug.ReplID, Of(e).repl.replid = idCur, idCur
				e.Unlock()
			}
			c := newConn(e, "10.0.0.1:5000")
			capa := "psync2"
			if tc.noPsync2 {
				capa = "eof"
			}
			if got := run(e, c, "REPLCONF", "capa", capa); got != "+OK\r\n" {
				t.Fatalf("REPLCONF capa: %q", got)
			}
			got := run(e, c, "PSYNC", tc.id, strconv.FormatInt(tc.off, 10))
			r := &Of(e).repl
			if tc.cont != "" {
				if got != tc.cont {
					t.Fatalf("PSYNC %s %d: %q, want %q", tc.id, tc.off, got, tc.cont)
				}
				e.Lock()
				defer e.Unlock()
				if rp := replicaOf(c); rp == nil || rp.state != replicaOnline || len(r.replicas) != 1 {
					t.Fatalf("a partially resynced replica must be online at once")
				}
				if r.syncPartialOK != 1 || r.syncFull != 0 || r.syncPartialErr != 0 {
					t.Fatalf("counters ok/full/err %d/%d/%d, want 1/0/0", r.syncPartialOK, r.syncFull, r.syncPartialErr)
				}
				if len(c.Out.Bytes()) != 0 {
					t.Fatalf("a partial resync sends nothing unasked: %q", c.Out.Bytes())
				}
				return
			}
			// A full resync: PSYNC itself answers nothing; +FULLRESYNC
			// goes out with the snapshot's replid and offset, then the RDB.
			if got != "" {
				t.Fatalf("PSYNC %s %d answered %q; a full resync's reply comes with the snapshot", tc.id, tc.off, got)
			}
			waitOnline(t, e, c)
			out := outOf(e, c)
			e.Lock()
			id, off := e.ReplicationID(), e.ReplOffset()
			ok, full, perr := r.syncPartialOK, r.syncFull, r.syncPartialErr
			e.Unlock()
			wantID := idCur
			if tc.noBacklog {
				// The backlog created for the first replica starts a new
				// history (changeReplicationId, clearReplicationId2).
				if id == idCur || len(id) != 40 {
					t.Fatalf("the first replica's backlog kept replid %q", id)
				}
				wantID = id
			}
			line := "+FULLRESYNC " + wantID + " " + strconv.FormatInt(off, 10) + "\r\n"
			if !strings.HasPrefix(out, line) {
				t.Fatalf("sent %q, want it to start with %q", out, line)
			}
			if rest := out[len(line):]; !strings.HasPrefix(rest, "$") || !strings.Contains(rest, "REDIS") {
				t.Fatalf("after +FULLRESYNC: %q, want the RDB as a bulk", rest)
			}
			if ok != 0 || full != 1 || perr != tc.partialErr {
				t.Fatalf("counters ok/full/err %d/%d/%d, want 0/1/%d", ok, full, perr, tc.partialErr)
			}
		})
	}
}

// TestPsyncRefused is syncCommand's refusals before any decision.
func TestPsyncRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(e *engine.Engine)
		conn  bool // the client has a connection
		args  []string
		want  string
	}{
		{name: "not an integer offset", conn: true, args: []string{"PSYNC", idCur, "x"}, want: "-" + engine.ErrNotInt + "\r\n"},
		// A replica whose own link is down has nothing valid to give.
		{name: "replica without its link", conn: true, setup: func(e *engine.Engine) {
			Of(e).setLink("10.9.9.9", 6379, replConnect)
		}, args: []string{"PSYNC", "?", "-1"}, want: "-" + errNoMasterLink + "\r\n"},
		{name: "no connection", args: []string{"SYNC"}, want: "-ERR SYNC and PSYNC need a network connection\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newReplEngine(t)
			if tc.setup != nil {
				e.Lock()
				tc.setup(e)
				e.Unlock()
			}
			var c *engine.Client
			if tc.conn {
				c = newConn(e, "10.0.0.1:5000")
			} else {
				c = e.NewClient("10.0.0.1:5000", "127.0.0.1:6379")
			}
			if got := run(e, c, tc.args...); got != tc.want {
				t.Fatalf("%v: %q, want %q", tc.args, got, tc.want)
			}
			e.Lock()
			defer e.Unlock()
			if r := &Of(e).repl; replicaOf(c) != nil || len(r.replicas) != 0 || r.backlog != nil {
				t.Fatalf("a refused PSYNC made a replica or a backlog")
			}
		})
	}
}

// continueReplica makes a new connection a replica of e by a partial
// resync at e's next offset (online at once, no snapshot).
func continueReplica(t *testing.T, e *engine.Engine, addr string) *engine.Client {
	t.Helper()
	c := newConn(e, addr)
	e.Lock()
	id, next := e.ReplicationID(), e.ReplOffset()+1
	e.Unlock()
	if got := run(e, c, "PSYNC", id, strconv.FormatInt(next, 10)); !strings.HasPrefix(got, "+CONTINUE") {
		t.Fatalf("PSYNC %s %d: %q", id, next, got)
	}
	return c
}

func clearedReplid2(e *engine.Engine) bool {
	r := &Of(e).repl
	return (r.replid2 == "" || r.replid2 == strings.Repeat("0", 40)) && r.secondOffset == -1
}

// TestReplBacklogCreatedForFirstReplica is syncCommand's creation of the
// backlog: with the first replica of a master that has none, empty, its
// first byte the next of the stream, under a new replid with replid2
// cleared (a backlog made from nothing has no history to continue); a
// second replica finds it and changes nothing.
func TestReplBacklogCreatedForFirstReplica(t *testing.T) {
	e, _ := newReplEngine(t)
	d := Of(e)
	e.Lock()
	// A master that was a replica once: an offset and a replid2 of its
	// own, both of a history no backlog holds.
	e.SetReplOffset(500)
	d.repl.replid2, d.repl.secondOffset = idOld, 300
	before := e.ReplicationID()
	e.Unlock()

	c1 := newConn(e, "10.0.0.1:5000")
	run(e, c1, "PSYNC", "?", "-1")
	waitOnline(t, e, c1)
	e.Lock()
	b, id := d.repl.backlog, e.ReplicationID()
	switch {
	case b == nil:
		t.Fatal("no backlog after the first replica")
	case b.First() != 501 || b.Histlen() != 0:
		t.Errorf("backlog first %d histlen %d, want 501 and 0", b.First(), b.Histlen())
	case id == before || len(id) != 40 || d.repl.replid != id:
		t.Errorf("replid %q (Replid %q), want a new one, not %q", id, d.repl.replid, before)
	case !clearedReplid2(e):
		t.Errorf("replid2 %q up to %d, want it cleared", d.repl.replid2, d.repl.secondOffset)
	}
	e.Unlock()

	c2 := newConn(e, "10.0.0.2:5000")
	run(e, c2, "PSYNC", "?", "-1")
	waitOnline(t, e, c2)
	e.Lock()
	defer e.Unlock()
	if d.repl.backlog != b || e.ReplicationID() != id {
		t.Errorf("a second replica replaced the backlog or the replid")
	}
}

// TestReplBacklogTTL is replicationCron's freeing of the backlog: on a
// master, once no replica has been connected for more than
// repl-backlog-ttl seconds (strictly more: idle > limit), never with ttl 0,
// never on a replica (which keeps it for a promotion), and with a new
// replid and replid2 cleared, since the offset stops counting writes while
// there is no backlog.
func TestReplBacklogTTL(t *testing.T) {
	const ttl = 3600
	for _, tc := range []struct {
		name     string
		ttl      int64
		keep     bool          // a replica stays connected
		replica  bool          // the server is itself a replica
		promoted bool          // a replica with no replica of its own, just promoted (REPLICAOF NO ONE)
		after    time.Duration // since the last replica left (or the promotion)
		freed    bool
	}{
		{name: "before the ttl", ttl: ttl, after: ttl * time.Second, freed: false},
		// Redis: changeReplicationId(); clearReplicationId2(); freeReplicationBacklog().
		{name: "past the ttl", ttl: ttl, after: (ttl + 1) * time.Second, freed: true},
		{name: "ttl 0 never frees", ttl: 0, after: 1000 * ttl * time.Second, freed: false},
		{name: "a replica connected", ttl: ttl, keep: true, after: 2 * ttl * time.Second, freed: false},
		{name: "on a replica", ttl: ttl, replica: true, after: 2 * ttl * time.Second, freed: false},
		// replicationUnsetMaster sets repl_no_slaves_since to now, so a
		// promoted replica keeps its backlog (its old peers continue
		// from it by replid2) for the ttl.
		{name: "promoted replica within the ttl", ttl: ttl, promoted: true, after: time.Second, freed: false},
		{name: "promoted replica past the ttl", ttl: ttl, promoted: true, after: (ttl + 1) * time.Second, freed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newReplEngine(t)
			e.Cfg.ReplBacklogTTL.Store(tc.ttl)
			masterWithBacklog(e)
			switch {
			case tc.promoted:
				e.Lock()
				Of(e).setLink("10.9.9.9", 6379, replConnected)
				Of(e).repl.startChecked = true // no link to start: the test has no master
				e.Unlock()
				clk.Add(10 * ttl * time.Second) // the replica has run for long
				if got := run(e, newConn(e, "10.0.0.9:1"), "REPLICAOF", "NO", "ONE"); got != "+OK\r\n" {
					t.Fatalf("REPLICAOF NO ONE: %q", got)
				}
			default:
				c := continueReplica(t, e, "10.0.0.1:5000")
				if !tc.keep {
					e.RemoveClient(c)
				}
				if tc.replica {
					e.Lock()
					Of(e).setLink("10.9.9.9", 6379, replConnected)
					Of(e).repl.startChecked = true
					e.Unlock()
				}
			}
			e.Lock()
			id := e.ReplicationID()
			e.Unlock()
			clk.Add(tc.after)
			ReplicationCron(e)
			e.Lock()
			defer e.Unlock()
			var problems []string
			r := &Of(e).repl
			if freed := r.backlog == nil; freed != tc.freed {
				problems = append(problems, fmt.Sprintf("backlog freed: %v, want %v", freed, tc.freed))
			}
			if tc.freed && r.backlog == nil {
				if e.ReplicationID() == id {
					problems = append(problems, "the replid stayed "+id)
				}
				if !clearedReplid2(e) {
					problems = append(problems, fmt.Sprintf("replid2 %q up to %d stayed", r.replid2, r.secondOffset))
				}
			}
			failIf(t, problems)
		})
	}
}

// TestReplRoleChange is replicationUnsetMaster's shiftReplicationId: a
// replica made a master keeps its master's replid as replid2, valid up to
// its offset+1 (the first byte it lacks), takes a new replid, keeps its
// backlog, and drops its own replicas so they learn the new id; they and
// its old peers then continue with a partial resync up to that offset.
func TestReplRoleChange(t *testing.T) {
	e, _ := newReplEngine(t)
	masterWithBacklog(e) // the stream the replica proxied: offsets 25..40 held
	e.Lock()
	r := &Of(e).repl
	Of(e).setLink("10.9.9.9", 6379, replConnected)
	r.startChecked = true
	e.Debug.ReplID, r.replid, r.synced = idOld, idOld, true
	r.replid2, r.secondOffset = strings.Repeat("0", 40), -1
	backlog := r.backlog
	e.Unlock()
	sub := continueReplica(t, e, "10.0.0.1:5000") // a replica of the replica

	if got := run(e, newConn(e, "10.0.0.9:1"), "REPLICAOF", "NO", "ONE"); got != "+OK\r\n" {
		t.Fatalf("REPLICAOF NO ONE: %q", got)
	}
	e.Lock()
	newID := e.ReplicationID()
	switch {
	case e.IsReplica():
		t.Error("still a replica")
	case r.replid2 != idOld || r.secondOffset != 41:
		t.Errorf("replid2 %q up to %d, want %q up to 41", r.replid2, r.secondOffset, idOld)
	case newID == idOld || len(newID) != 40 || r.replid != newID:
		t.Errorf("replid %q (Replid %q): want a new one", newID, r.replid)
	case r.backlog != backlog || r.backlog.First() != 25 || e.ReplOffset() != 40:
		t.Errorf("the backlog or the offset changed")
	case !sub.Killed || replicaOf(sub) != nil || len(r.replicas) != 0:
		t.Errorf("the replica's own replica was not disconnected")
	}
	e.Unlock()

	// The new master's first write, then PSYNCs by both ids.
	e.Lock()
	Of(e).replFeedBytes([]byte("XY")) // offsets 41, 42
	e.Unlock()
	for _, tc := range []struct {
		id   string
		off  int64
		want string // "" for a full resync
	}{
		{idOld, 41, "+CONTINUE " + newID + "\r\nXY"},
		{idOld, 33, "+CONTINUE " + newID + "\r\n" + string(testStream[32:]) + "XY"},
		{idOld, 42, ""}, // past second_repl_offset: that byte is of the new history
		{newID, 42, "+CONTINUE " + newID + "\r\nY"},
		{newID, 43, "+CONTINUE " + newID + "\r\n"},
	} {
		c := newConn(e, "10.0.0.2:5000")
		run(e, c, "REPLCONF", "capa", "psync2")
		got := run(e, c, "PSYNC", tc.id, strconv.FormatInt(tc.off, 10))
		if tc.want == "" {
			if got != "" {
				t.Errorf("PSYNC %s %d: %q, want a full resync", tc.id, tc.off, got)
				continue
			}
			waitOnline(t, e, c)
			if out := outOf(e, c); !strings.HasPrefix(out, "+FULLRESYNC "+newID+" 42\r\n") {
				t.Errorf("PSYNC %s %d sent %.60q, want +FULLRESYNC %s 42", tc.id, tc.off, out, newID)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("PSYNC %s %d: %q, want %q", tc.id, tc.off, got, tc.want)
		}
	}
}

// TestReplAcksAndGoodReplicas is replicationCountAcksByOffset (WAIT's
// count: online replicas whose REPLCONF ACK reached the offset) and
// refreshGoodSlavesCount / checkGoodReplicasStatus (min-replicas-to-write:
// online replicas whose last ACK is at most min-replicas-max-lag seconds
// old; either setting 0 turns the check off, and a replica never refuses).
// The replicas ack at various times on the manual clock.
func TestReplAcksAndGoodReplicas(t *testing.T) {
	type rep struct {
		ackOff  int64
		ackAge  int64 // seconds since its last ACK
		waiting bool  // still waiting for its RDB: not online
	}
	for _, tc := range []struct {
		name            string
		reps            []rep
		toWrite, maxLag int64
		replica         bool
		countAt         int64 // countAcks(countAt)
		acked, good     int64
		refuse          bool
	}{
		{name: "no replicas", toWrite: 1, maxLag: 10, countAt: 1, acked: 0, good: 0, refuse: true},
		{name: "one fresh ack", reps: []rep{{40, 0, false}}, toWrite: 1, maxLag: 10, countAt: 40, acked: 1, good: 1},
		{name: "ack at exactly the lag", reps: []rep{{40, 10, false}}, toWrite: 1, maxLag: 10, countAt: 40, acked: 1, good: 1},
		{name: "ack one second too old", reps: []rep{{40, 11, false}}, toWrite: 1, maxLag: 10, countAt: 40, acked: 1, good: 0, refuse: true},
		{name: "two of three good, two wanted", reps: []rep{{40, 1, false}, {39, 5, false}, {40, 30, false}},
			toWrite: 2, maxLag: 10, countAt: 40, acked: 2, good: 2},
		{name: "two of three good, three wanted", reps: []rep{{40, 1, false}, {39, 5, false}, {40, 30, false}},
			toWrite: 3, maxLag: 10, countAt: 40, acked: 2, good: 2, refuse: true},
		// Acked below the offset: not counted by WAIT, still good.
		{name: "behind the offset", reps: []rep{{39, 0, false}}, toWrite: 1, maxLag: 10, countAt: 40, acked: 0, good: 1},
		{name: "offset 0 counts every online replica", reps: []rep{{0, 0, false}, {5, 0, false}}, toWrite: 1, maxLag: 10, countAt: 0, acked: 2, good: 2},
		// Not online yet: neither acked nor good, whatever it sent.
		{name: "still syncing", reps: []rep{{40, 0, true}}, toWrite: 1, maxLag: 10, countAt: 40, acked: 0, good: 0, refuse: true},
		{name: "to-write 0 turns it off", reps: []rep{{40, 100, false}}, toWrite: 0, maxLag: 10, countAt: 40, acked: 1, good: 0},
		{name: "max-lag 0 turns it off", reps: []rep{{40, 100, false}}, toWrite: 1, maxLag: 0, countAt: 40, acked: 1, good: 0},
		{name: "a replica never refuses", replica: true, toWrite: 1, maxLag: 10, countAt: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newReplEngine(t)
			masterWithBacklog(e)
			e.Cfg.MinReplicasToWrite.Store(tc.toWrite)
			e.Cfg.MinReplicasMaxLag.Store(tc.maxLag)
			start := clk.Now()
			for i, rp := range tc.reps {
				c := continueReplica(t, e, fmt.Sprintf("10.0.0.%d:5000", i+1))
				// Each replica acks at its own time; the clock then
				// stands 100s after the start.
				clk.Set(start.Add(time.Duration(100-rp.ackAge) * time.Second))
				run(e, c, "REPLCONF", "ACK", strconv.FormatInt(rp.ackOff, 10))
				if rp.waiting {
					e.Lock()
					replicaOf(c).state = replicaWaitEnd
					e.Unlock()
				}
			}
			clk.Set(start.Add(100 * time.Second))
			e.Lock()
			defer e.Unlock()
			if tc.replica {
				Of(e).setLink("10.9.9.9", 0, replNone)
			}
			if got := Of(e).countAcks(tc.countAt); got != tc.acked {
				t.Errorf("countAcks(%d) = %d, want %d", tc.countAt, got, tc.acked)
			}
			if got := Of(e).goodReplicas(); got != tc.good {
				t.Errorf("good replicas %d, want %d", got, tc.good)
			}
			if got := Of(e).NoGoodReplicas(); got != tc.refuse {
				t.Errorf("NoGoodReplicas %v, want %v", got, tc.refuse)
			}
		})
	}
}

// failIf ends the case with every problem found.
func failIf(t *testing.T, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Fatal(strings.Join(problems, "; "))
	}
}
