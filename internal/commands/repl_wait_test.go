package commands

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

// WAIT, c->woff and min-replicas-to-write as Redis 7.0.15 decides them
// (waitCommand, replicationCountAcksByOffset, processClientsWaitingReplicas,
// processCommand's woff, checkGoodReplicasStatus), with the whole command set and
// fake replicas: connections made with NewClient that sent PSYNC, whose
// ACKs go through REPLCONF ACK as a replica's do.

// execW runs args for c through the command path and returns the writer,
// which a blocked command answers into later.
func execW(tt *tester, c *engine.Client, args ...string) (*resp.Writer, engine.Outcome) {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	w := &resp.Writer{}
	tt.E.Lock()
	out := tt.E.Exec(c, bargs, w)
	tt.E.Unlock()
	return w, out
}

func replDo(tt *tester, c *engine.Client, args ...string) string {
	w, _ := execW(tt, c, args...)
	return string(w.Bytes())
}

// syncedReplica is a replica connection after its full sync: online, its
// RDB sent (the snapshot goroutine done).
func syncedReplica(t *testing.T, tt *tester, addr string) *engine.Client {
	t.Helper()
	c := tt.E.NewClient(addr, "127.0.0.1:6379")
	tt.E.Lock()
	c.Out = &resp.Writer{}
	c.Unsent = func() int { return 0 }
	tt.E.Unlock()
	replDo(tt, c, "REPLCONF", "capa", "psync2")
	if got := replDo(tt, c, "PSYNC", "?", "-1"); got != "" {
		t.Fatalf("PSYNC ? -1: %q", got)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		tt.E.Lock()
		online := durability.IsOnlineReplica(c)
		tt.E.Unlock()
		if online {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica's full sync did not end")
		}
	}
}

func (tt *tester) replOffset() int64 {
	tt.E.Lock()
	defer tt.E.Unlock()
	return tt.E.ReplOffset()
}

func ackOn(tt *tester, c *engine.Client, off int64) {
	tt.t.Helper()
	// A replica's ACK is never answered.
	if got := replDo(tt, c, "REPLCONF", "ACK", strconv.FormatInt(off, 10)); got != "" {
		tt.t.Fatalf("REPLCONF ACK answered %q", got)
	}
}

var getAck = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"

// TestWait is WAIT on a master: answered at once when enough replicas have
// acked the client's last write (woff), else blocked until the ACKs arrive
// (REPLCONF ACK wakes it) or its timeout passes (answered with the count
// then); a blocked WAIT asks the replicas for an ACK (REPLCONF GETACK *
// down the stream, after the WAIT's woff).
func TestWait(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replicas int
		acked    []int64 // per replica, before the WAIT: its ACK relative to the client's woff (nil: none sent)
		args     []string
		now      string  // the reply at once; "" if it blocks
		later    []int64 // ACKs after it blocked, replica i sends later[i] relative to woff
		wokenBy  int     // the later ACK (1-based) that answers it; 0: none, it times out
		reply    string  // the reply when woken or timed out
		forever  bool    // timeout 0: no deadline
	}{
		{name: "no replica wanted", args: []string{"0", "0"}, now: ":0\r\n"},
		{name: "already satisfied", replicas: 2, acked: []int64{0, 0}, args: []string{"2", "100"}, now: ":2\r\n"},
		// The reply is the count acked, not the count asked.
		{name: "more acked than asked", replicas: 3, acked: []int64{0, 5, 0}, args: []string{"1", "100"}, now: ":3\r\n"},
		{name: "times out with the count acked", replicas: 3, acked: []int64{0, -1, -1}, args: []string{"3", "100"},
			later: []int64{0, 0, -1}, reply: ":2\r\n"},
		{name: "acks wake it", replicas: 2, args: []string{"2", "0"}, forever: true,
			later: []int64{0, 3}, wokenBy: 2, reply: ":2\r\n"},
		{name: "an ack behind the write does not count", replicas: 1, args: []string{"1", "50"},
			later: []int64{-1}, reply: ":0\r\n"},
		{name: "negative timeout", args: []string{"1", "-1"}, now: "-ERR timeout is negative\r\n"},
		{name: "timeout not an integer", args: []string{"1", "x"}, now: "-ERR timeout is not an integer or out of range\r\n"},
		{name: "numreplicas not an integer", args: []string{"x", "0"}, now: "-ERR value is not an integer or out of range\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTester(t)
			var reps []*engine.Client
			for i := range tc.replicas {
				reps = append(reps, syncedReplica(t, tt, fmt.Sprintf("10.0.0.%d:5000", i+1)))
			}
			tt.Expect(okReply, "SET", "k", "v")
			woff := tt.replOffset()
			for i, a := range tc.acked {
				ackOn(tt, reps[i], woff+a)
			}
			start := time.Now()
			w, out := execW(tt, tt.C, append([]string{"WAIT"}, tc.args...)...)
			var problems []string
			defer func() { failIf(t, problems) }()
			if tc.now != "" {
				if got := string(w.Bytes()); got != tc.now || out == engine.Blocked {
					problems = append(problems, fmt.Sprintf("WAIT %v: %q (blocked %v), want %q at once", tc.args, got, out == engine.Blocked, tc.now))
					tt.E.Lock()
					tt.E.Unblock(tt.C)
					tt.E.Unlock()
				}
				return
			}
			if out != engine.Blocked || w.Len() != 0 {
				t.Fatalf("WAIT %v: %q, want it blocked", tc.args, w.Bytes())
			}
			tt.E.Lock()
			deadline := tt.C.BlockDeadline()
			for i, r := range reps {
				if !strings.HasSuffix(string(r.Out.Bytes()), getAck) {
					t.Errorf("replica %d was not asked for an ACK: %q", i, r.Out.Bytes())
				}
			}
			if got := tt.E.ReplOffset(); tc.replicas > 0 && got != woff+int64(len(getAck)) {
				t.Errorf("master offset %d, want %d (the write, then GETACK)", got, woff+int64(len(getAck)))
			}
			tt.E.Unlock()
			ms, _ := strconv.Atoi(tc.args[1])
			switch {
			case tc.forever && !deadline.IsZero():
				t.Errorf("WAIT with timeout 0 has a deadline")
			case !tc.forever && (deadline.Before(start.Add(time.Duration(ms)*time.Millisecond)) || deadline.After(time.Now().Add(time.Duration(ms)*time.Millisecond))):
				t.Errorf("deadline %v not %dms after the WAIT", deadline.Sub(start), ms)
			}
			for i, a := range tc.later {
				ackOn(tt, reps[i], woff+a)
				tt.E.Lock()
				blocked := tt.C.IsBlocked()
				tt.E.Unlock()
				if woken := i+1 >= tc.wokenBy && tc.wokenBy > 0; blocked == woken {
					t.Fatalf("after ACK %d: blocked %v, want %v", i+1, blocked, !woken)
				}
			}
			if tc.wokenBy == 0 {
				// What the connection does when the deadline passes.
				tt.E.Lock()
				if !tt.E.TimeoutBlocked(tt.C) {
					t.Error("not blocked at its timeout")
				}
				tt.E.Unlock()
			} else {
				select {
				case <-tt.C.Wake():
				default:
					t.Error("the answered WAIT's connection was not woken")
				}
			}
			if got := string(w.Bytes()); got != tc.reply {
				t.Errorf("WAIT %v answered %q, want %q", tc.args, got, tc.reply)
			}
		})
	}
}

// TestWaitNeverBlocks is WAIT where Redis answers at once or refuses:
// inside MULTI (CLIENT_DENY_BLOCKING: the count acked now), from a script
// (WAIT is no-script in 7.0), and on a replica.
func TestWaitNeverBlocks(t *testing.T) {
	tt := newTester(t)
	rep := syncedReplica(t, tt, "10.0.0.1:5000")
	tt.Expect(okReply, "SET", "k", "v")
	woff := tt.replOffset()

	tt.Expect(okReply, "MULTI")
	tt.Expect("+QUEUED\r\n", "WAIT", "1", "1000")
	w, out := execW(tt, tt.C, "EXEC")
	if got := string(w.Bytes()); got != array(integer(0)) || out == engine.Blocked {
		t.Errorf("WAIT in MULTI, nothing acked: %q (blocked %v), want *1 :0 at once", got, out == engine.Blocked)
	}
	ackOn(tt, rep, woff)
	tt.Expect(okReply, "MULTI")
	tt.Expect("+QUEUED\r\n", "WAIT", "2", "1000")
	tt.Expect(array(integer(1)), "EXEC")

	tt.Expect(errReply("ERR This Redis command is not allowed from script"), "EVAL", "return redis.pcall('wait','0','0')", "0")

	tt.E.Lock()
	durability.Of(tt.E).SetLinkUp("10.9.9.9", 6379)
	tt.E.Unlock()
	tt.Expect(errReply("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."), "WAIT", "0", "0")
}

// TestWaitWoff is c->woff, WAIT's target, as Redis 7.0.15's processCommand
// sets it: the master offset right after each command the client ran
// (whatever moved it, other clients' writes included; 7.2 changed this to
// the offset after the client's last propagated command), untouched by a
// command that is only queued in MULTI.
func TestWaitWoff(t *testing.T) {
	tt := newTester(t)
	syncedReplica(t, tt, "10.0.0.1:5000")
	a, b := tt.C, tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
	var offs []int64 // the master offset after each step
	for i, st := range []struct {
		c    *engine.Client
		args []string
		woff int // the step whose offset the client's woff is; -1: 0, it never wrote
	}{
		{b, []string{"SET", "b", "1"}, 0},
		{a, []string{"PING"}, 1},
		{a, []string{"SET", "a", "1"}, 2},
		{b, []string{"SET", "b", "2"}, 3},
		{a, []string{"GET", "a"}, 4},
		{a, []string{"DEL", "nosuchkey"}, 5}, // a write that changed nothing
		{a, []string{"EVAL", "redis.call('set','a','2')", "0"}, 6},
		{a, []string{"WAIT", "0", "0"}, 6},
		{b, []string{"INCR", "n"}, 8},
		{a, []string{"MULTI"}, 9},
		{a, []string{"SET", "a", "3"}, 9}, // queued: woff is still MULTI's
		{a, []string{"EXEC"}, 11},
	} {
		replDo(tt, st.c, st.args...)
		offs = append(offs, tt.replOffset())
		t.Run(fmt.Sprintf("%d %s", i, strings.Join(st.args, " ")), func(t *testing.T) {
			want := int64(0)
			if st.woff >= 0 {
				want = offs[st.woff]
			}
			var problems []string
			tt.E.Lock()
			if st.c.Woff != want {
				problems = append(problems, fmt.Sprintf("woff %d, want %d (offsets so far %v)", st.c.Woff, want, offs))
			}
			tt.E.Unlock()
			failIf(t, problems)
		})
	}
}

// TestReplMinReplicas is processCommand's min-replicas-to-write refusal
// (NOREPLICAS) of writes when fewer replicas than the minimum acked within
// min-replicas-max-lag seconds, the lag measured on the engine's clock (a
// manual one here). A write refused while queued dooms the transaction
// (EXECABORT); an EXEC whose queue holds a write is itself refused when
// the replicas went bad after the queueing (rejectCommand's
// execCommandAbort: EXECABORT naming the reason).
func TestReplMinReplicas(t *testing.T) {
	const noReplicas = "-NOREPLICAS Not enough good replicas to write.\r\n"
	const execAbort = "-EXECABORT Transaction discarded because of previous errors.\r\n"
	for _, tc := range []struct {
		name    string
		toWrite string
		lags    []time.Duration // per replica: how long ago its last ACK was
		cmds    [][]string
		want    []string
		lateBy  time.Duration // the clock moves this much before the last command
	}{
		{name: "enough good replicas", toWrite: "2", lags: []time.Duration{0, 10 * time.Second},
			cmds: [][]string{{"SET", "k", "v"}}, want: []string{okReply}},
		{name: "one lags past max-lag", toWrite: "2", lags: []time.Duration{0, 11 * time.Second},
			cmds: [][]string{{"SET", "k", "v"}}, want: []string{noReplicas}},
		{name: "no replica", toWrite: "1", cmds: [][]string{{"SET", "k", "v"}}, want: []string{noReplicas}},
		{name: "reads are served", toWrite: "1", cmds: [][]string{{"GET", "k"}}, want: []string{nilReply}},
		{name: "a write refused while queued", toWrite: "1",
			cmds: [][]string{{"MULTI"}, {"SET", "k", "v"}, {"EXEC"}}, want: []string{okReply, noReplicas, execAbort}},
		{name: "EXEC of reads", toWrite: "1",
			cmds: [][]string{{"MULTI"}, {"GET", "k"}, {"EXEC"}}, want: []string{okReply, "+QUEUED\r\n", array(nilReply)}},
		{name: "EXEC of a write after the replica went quiet", toWrite: "1", lags: []time.Duration{0}, lateBy: 11 * time.Second,
			cmds: [][]string{{"MULTI"}, {"SET", "k", "v"}, {"EXEC"}}, want: []string{okReply, "+QUEUED\r\n", "-EXECABORT Transaction discarded because of: NOREPLICAS Not enough good replicas to write.\r\n"}},
		{name: "EXEC of a write, replica still good", toWrite: "1", lags: []time.Duration{0}, lateBy: 10 * time.Second,
			cmds: [][]string{{"MULTI"}, {"SET", "k", "v"}, {"EXEC"}}, want: []string{okReply, "+QUEUED\r\n", array(okReply)}},
		{name: "off with min-replicas-to-write 0", toWrite: "0", cmds: [][]string{{"SET", "k", "v"}}, want: []string{okReply}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTester(t)
			start := tt.Clock.Now()
			tt.Expect(okReply, "CONFIG", "SET", "min-replicas-max-lag", "10")
			for i, lag := range tc.lags {
				r := syncedReplica(t, tt, fmt.Sprintf("10.0.0.%d:5000", i+1))
				tt.Clock.Set(start.Add(time.Minute - lag))
				ackOn(tt, r, tt.replOffset())
			}
			tt.Clock.Set(start.Add(time.Minute))
			tt.Expect(okReply, "CONFIG", "SET", "min-replicas-to-write", tc.toWrite)
			for i, args := range tc.cmds {
				if i == len(tc.cmds)-1 {
					tt.Clock.Add(tc.lateBy)
				}
				tt.Expect(tc.want[i], args...)
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
