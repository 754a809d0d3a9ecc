package conformance

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/testredis"
)

// limitkv as a master: a Debian redis-server and a limitkv replicate it,
// beside a Redis master with a Redis replica receiving the same commands.
// The replicas must end with their master's digest, and the two masters
// must answer WAIT, ROLE, INFO replication and min-replicas alike.

// startLimitkvOn starts an embedded limitkv with cfg, DEBUG on, and dials it.
func startLimitkvOn(t *testing.T, name string, cfg limitkv.Config) (*RawConn, string) {
	t.Helper()
	c := limitkv.Config{"enable-debug-command": "yes"}
	for k, v := range cfg {
		c[k] = v
	}
	srv, err := limitkv.Start(limitkv.Options{Dir: t.TempDir(), Config: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	conn := dialRaw(t, name, srv.Addr())
	return conn, strings.TrimPrefix(srv.Addr(), "127.0.0.1:")
}

func portOf(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }

// syncStat is one sync_* counter of INFO stats.
func syncStat(t *testing.T, c *RawConn, name string) int {
	t.Helper()
	n, _ := strconv.Atoi(replInfo(t, c, "stats", name))
	return n
}

// waitOnline waits until master lists n replicas online.
func waitOnline(t *testing.T, master *RawConn, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		info := master.MustDo(t, "INFO", "replication").Str
		if strings.Count(info, "state=online") == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d replicas not online after 20 s:\n%s", master.Name, n, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// masterWrites is a stream of every kind of write, with absolute
// deadlines so that the two masters' datasets (and digests) are equal.
var masterWrites = [][]string{
	{"SET", "s", "v"}, {"SET", "n", "10"}, {"INCR", "n"}, {"APPEND", "s", "w"},
	{"RPUSH", "l", "a", "b", "c"}, {"LPOP", "l"}, {"HSET", "h", "f", "v", "g", "w"}, {"HDEL", "h", "g"},
	{"SADD", "is", "1", "2", "3"}, {"SREM", "is", "2"}, {"ZADD", "z", "1", "a", "2", "b"}, {"ZINCRBY", "z", "5", "a"},
	{"PFADD", "hll", "a", "b"}, {"SET", "ttl", "v", "PXAT", "4102444800000"}, {"PEXPIREAT", "s", "4102444800000"},
	{"MULTI"}, {"INCR", "n"}, {"LPUSH", "l", "z"}, {"EXEC"},
	{"EVAL", "redis.call('set', KEYS[1], 'e') redis.call('pexpireat', KEYS[1], 4102444800000) return 1", "1", "ev"},
	{"SELECT", "3"}, {"SET", "in3", "v"}, {"SELECT", "0"},
	{"SET", "n", "10"}, {"INCRBYFLOAT", "f", "1.5"}, {"DEL", "hll"}, {"PERSIST", "ttl"},
	{"SET", "gone", "v"}, {"UNLINK", "gone"}, {"SETRANGE", "big", "100", "x"},
	{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"},
	{"FLUSHDB"}, // db 0 only: in3 stays
	{"SET", "after", "flush"}, {"ZADD", "z", "3", "c"},
}

func TestLimitkvMaster(t *testing.T) {
	requireServers(t)
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless sync "+diskless, func(t *testing.T) {
			rm, rmp := startRedisOn(t, t.TempDir(), "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0")
			rm.Name = "redis master"
			lm, lport := startLimitkvOn(t, "limitkv master", limitkv.Config{"repl-diskless-sync": diskless, "repl-diskless-sync-delay": "0"})
			// Data before the replicas come, so the full sync carries it.
			for _, m := range []*RawConn{rm, lm} {
				for _, cmd := range masterWrites[:20] {
					m.MustDo(t, cmd...)
				}
			}
			rr, _ := startRedisOn(t, t.TempDir())
			rr.Name = "redis replica of redis"
			lr, lrp := startRedisOn(t, t.TempDir())
			lr.Name = "redis replica of limitkv"
			ll, _ := startLimitkvOn(t, "limitkv replica of limitkv", nil)
			mustOK(t, rr, "REPLICAOF", "127.0.0.1", portOf(rmp.Addr))
			for _, r := range []*RawConn{lr, ll} {
				mustOK(t, r, "REPLICAOF", "127.0.0.1", lport)
			}
			waitSynced(t, rm, rr)
			for _, r := range []*RawConn{lr, ll} {
				waitSynced(t, lm, r)
			}
			// The payload's form: the EOF mark to a replica that can read
			// it when diskless, its length otherwise.
			form := map[string]string{"yes": "receiving streamed RDB from master with EOF", "no": "bytes from master"}[diskless]
			if log := lrp.Log(); !strings.Contains(log, form) {
				t.Errorf("the Redis replica's log does not say %q:\n%s", form, log)
			}
			sameDigest(t, "full sync (redis)", rm, rr)
			sameDigest(t, "full sync", lm, lr, ll)
			sameDigest(t, "the two masters after the first writes", rm, lm)
			if got, want := syncStat(t, lm, "sync_full"), syncStat(t, rm, "sync_full")+1; got != want {
				t.Errorf("limitkv master's sync_full %d, want %d (Redis's with one more replica)", got, want)
			}

			// The stream.
			for _, m := range []*RawConn{rm, lm} {
				for _, cmd := range masterWrites[20:] {
					m.MustDo(t, cmd...)
				}
			}
			waitSynced(t, rm, rr)
			for _, r := range []*RawConn{lr, ll} {
				waitSynced(t, lm, r)
			}
			sameDigest(t, "after the stream (redis)", rm, rr)
			sameDigest(t, "after the stream", lm, lr, ll)
			sameDigest(t, "the two masters after the stream", rm, lm)
			if got := ll.MustDo(t, "FCALL", "f", "0"); string(got.Raw) != ":1\r\n" {
				t.Errorf("the function library did not reach the limitkv replica: FCALL answered %q", got.Raw)
			}

			// The masters' own view. Redis has one replica, limitkv two:
			// field names compared on the Redis master with a second
			// replica attached would differ only by slave1.
			for _, m := range []*RawConn{rm, lm} {
				waitOnline(t, m, map[*RawConn]int{rm: 1, lm: 2}[m])
			}
			names := func(c *RawConn) string {
				return strings.ReplaceAll(infoFieldNames(t, c), " slave1", "")
			}
			if g, w := names(lm), names(rm); g != w {
				t.Errorf("INFO replication fields of the masters:\n limitkv: %s\n   redis: %s", g, w)
			}
			role := lm.MustDo(t, "ROLE")
			if role.Type != '*' || len(role.Elems) != 3 || role.Elems[0].Str != "master" || len(role.Elems[2].Elems) != 2 {
				t.Fatalf("ROLE of the limitkv master: %q", role.Raw)
			}
			for _, e := range role.Elems[2].Elems {
				if len(e.Elems) != 3 || e.Elems[0].Type != '$' || e.Elems[1].Type != '$' || e.Elems[2].Type != '$' {
					t.Errorf("ROLE's replica entry %q: want three bulk strings, as Redis", e.Raw)
				}
			}

			// WAIT and min-replicas, the same on both masters (Redis with
			// its one replica, limitkv asked for one more than it has).
			cases := func(extra int) []Cmd {
				n := strconv.Itoa
				return []Cmd{
					C("SET", "w", "1"), C("WAIT", n(1+extra), "2000"), C("WAIT", n(2+extra), "100"),
					C("WAIT", "0", "0"), C("WAIT", "x", "0"), C("WAIT", "1", "-1"), C("WAIT", "1", "x"),
					C("WAIT"), C("MULTI"), C("SET", "w", "2"), C("WAIT", n(5+extra), "0"), C("EXEC"),
					C("EVAL", "return redis.call('wait', 1, 0)", "0"),
					C("CONFIG", "SET", "min-replicas-to-write", n(2+extra)), C("CONFIG", "GET", "min-replicas-max-lag"),
					C("SET", "w", "3"), C("GET", "w"), C("INCR", "w"), C("EVAL", "return redis.call('set', 'w', '4')", "0"),
					C("MULTI"), C("SET", "w", "5"), C("EXEC"), C("MULTI"), C("GET", "w"), C("EXEC"),
					C("CONFIG", "SET", "min-replicas-max-lag", "0"), C("SET", "w", "6"),
					C("CONFIG", "SET", "min-replicas-max-lag", "10"), C("CONFIG", "SET", "min-replicas-to-write", n(1+extra)),
					C("SET", "w", "7"), C("CONFIG", "SET", "min-replicas-to-write", "0"),
					C("CONFIG", "SET", "min-slaves-to-write", "1"), C("CONFIG", "GET", "min-slaves-to-write"),
					C("CONFIG", "SET", "min-slaves-to-write", "0"),
					C("CONFIG", "SET", "repl-backlog-size", "2mb"), C("CONFIG", "GET", "repl-backlog-size"),
					C("CONFIG", "SET", "repl-backlog-size", "0"), C("CONFIG", "SET", "repl-backlog-size", "1mb"),
					C("CONFIG", "GET", "repl-ping-replica-period"), C("CONFIG", "GET", "repl-ping-slave-period"),
					C("CONFIG", "GET", "repl-diskless-sync-delay"), C("CONFIG", "GET", "repl-backlog-ttl"),
					C("REPLCONF", "listening-port", "x"), C("PING"),
				}
			}
			// The two sides differ by one replica, so the cases are sent to
			// each and compared by their replies' shape: counts are
			// compared after removing limitkv's extra replica.
			for i, cmd := range cases(0) {
				want := rm.MustDo(t, cmd.Args...)
				got := lm.MustDo(t, cases(1)[i].Args...)
				if cmd.Args[0] == "WAIT" && want.Type == ':' && got.Type == ':' {
					if got.Int != want.Int+1 {
						t.Errorf("%v: limitkv (2 replicas) %d, Redis (1 replica) %d", cmd.Args, got.Int, want.Int)
					}
					continue
				}
				if string(got.Raw) != string(want.Raw) {
					t.Errorf("%v: limitkv %q, Redis %q", cases(1)[i].Args, got.Raw, want.Raw)
				}
			}

			// A broken link: both of limitkv's replicas continue with a
			// partial resync.
			before := syncStat(t, lm, "sync_partial_ok")
			mustOK(t, lm, "CLIENT", "KILL", "TYPE", "replica")
			mustOK(t, lm, "SET", "during", "the outage")
			for _, r := range []*RawConn{lr, ll} {
				waitSynced(t, lm, r)
			}
			if after := syncStat(t, lm, "sync_partial_ok"); after != before+2 {
				t.Errorf("sync_partial_ok went from %d to %d: a replica did a full resync", before, after)
			}
			sameDigest(t, "after the partial resync", lm, lr, ll)

			// A failover: the limitkv replica is promoted and the Redis
			// replica follows it, continuing from the old history.
			mustOK(t, ll, "REPLICAOF", "NO", "ONE")
			mustOK(t, lr, "REPLICAOF", "127.0.0.1", portOf(ll.Addr))
			mustOK(t, ll, "SET", "after", "failover")
			waitSynced(t, ll, lr)
			if got := syncStat(t, ll, "sync_partial_ok"); got != 1 {
				t.Errorf("the promoted limitkv's sync_partial_ok %d, want 1 (the Redis replica continued)", got)
			}
			sameDigest(t, "after the failover", ll, lr)
		})
	}
}

// TestReplicaRestartPartialResync: a limitkv replica started from
// redis.conf's replicaof, saved and restarted, continues with a partial
// resync (the RDB file's repl-id and repl-offset), from a Redis master and
// from a limitkv one.
func TestReplicaRestartPartialResync(t *testing.T) {
	requireServers(t)
	for _, kind := range []string{"redis", "limitkv"} {
		t.Run(kind+" master", func(t *testing.T) {
			var m *RawConn
			if kind == "redis" {
				m, _ = startRedisOn(t, t.TempDir(), "--repl-diskless-sync-delay", "0")
			} else {
				m, _ = startLimitkvOn(t, "limitkv master", nil)
			}
			mustOK(t, m, "SELECT", "2")
			mustOK(t, m, "SET", "a", "1")
			dir := t.TempDir()
			cfg := limitkv.Config{"enable-debug-command": "yes", "replicaof": "127.0.0.1 " + portOf(m.Addr)}
			start := func() (*limitkv.Server, *RawConn) {
				srv, err := limitkv.Start(limitkv.Options{Dir: dir, Config: cfg})
				if err != nil {
					t.Fatal(err)
				}
				return srv, dialRaw(t, "limitkv replica", srv.Addr())
			}
			srv, r := start()
			waitSynced(t, m, r)
			mustOK(t, r, "SAVE")
			srv.Close()
			// Written while the replica is down, in the database the stream
			// had selected: the resync continues in it without a SELECT.
			mustOK(t, m, "SET", "b", "2")
			mustOK(t, m, "INCR", "a")
			before := syncStat(t, m, "sync_partial_ok")
			srv, r = start()
			defer srv.Close()
			waitSynced(t, m, r)
			if after := syncStat(t, m, "sync_partial_ok"); after != before+1 {
				t.Errorf("sync_partial_ok went from %d to %d: the restarted replica did not continue", before, after)
			}
			sameDigest(t, "after the restart", m, r)
			mustOK(t, r, "SELECT", "2")
			if got := r.MustDo(t, "MGET", "a", "b"); string(got.Raw) != "*2\r\n$1\r\n2\r\n$1\r\n2\r\n" {
				t.Errorf("db 2 after the resync: %q", got.Raw)
			}
		})
	}
}

// TestReplicationChain: Redis master, limitkv replica, Redis replica of
// the limitkv replica. The middle one passes its master's stream on as it
// came, so the chain's offsets agree end to end.
func TestReplicationChain(t *testing.T) {
	requireServers(t)
	m, _ := startRedisOn(t, t.TempDir(), "--repl-diskless-sync-delay", "0")
	m.Name = "redis master"
	mid, midPort := startLimitkvOn(t, "limitkv replica", limitkv.Config{"replicaof": "127.0.0.1 " + portOf(m.Addr)})
	sub, _ := startRedisOn(t, t.TempDir())
	sub.Name = "redis replica of the limitkv replica"
	mustOK(t, m, "SET", "before", "1")
	waitSynced(t, m, mid)
	mustOK(t, sub, "REPLICAOF", "127.0.0.1", midPort)
	for _, cmd := range masterWrites {
		m.MustDo(t, cmd...)
	}
	waitSynced(t, m, mid)
	waitSynced(t, m, sub) // the sub-replica's offset is the top master's
	sameDigest(t, "down the chain", m, mid, sub)
	// The middle one's link breaks: it continues partially, and so does
	// the sub-replica with it.
	subFull := syncStat(t, mid, "sync_full")
	mustOK(t, m, "CLIENT", "KILL", "TYPE", "replica")
	mustOK(t, m, "SET", "after", "break")
	waitSynced(t, m, mid)
	waitSynced(t, m, sub)
	sameDigest(t, "after the break", m, mid, sub)
	if got := syncStat(t, mid, "sync_full"); got != subFull {
		t.Errorf("the sub-replica needed a full sync after its master's partial resync (sync_full %d -> %d)", subFull, got)
	}
}

// TestReplicaServeStaleData: a replica whose master is unreachable, with
// replica-serve-stale-data no, refuses what Redis refuses.
func TestReplicaServeStaleData(t *testing.T) {
	requireServers(t)
	rds, _ := startRedisOn(t, t.TempDir())
	lkv, _ := startLimitkvOn(t, "limitkv", nil)
	port, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*RawConn{rds, lkv} {
		mustOK(t, c, "SET", "k", "v")
		mustOK(t, c, "REPLICAOF", "127.0.0.1", strconv.Itoa(port)) // nobody listens there
	}
	runCasesOn(t, rds.Addr, lkv.Addr, []Case{
		{Name: "stale data served", KeepData: true, Cmds: []Cmd{
			C("CONFIG", "GET", "replica-serve-stale-data"), C("CONFIG", "GET", "slave-serve-stale-data"), C("GET", "k"),
		}},
		{Name: "stale data refused", KeepData: true, Cmds: []Cmd{
			C("CONFIG", "SET", "replica-serve-stale-data", "no"), C("GET", "k"), C("DBSIZE"), C("PING"), C("INFO", "keyspace"),
			C("ECHO", "x"), C("MULTI"), C("GET", "k"), C("EXEC"), C("MULTI"), C("PING"), C("EXEC"),
			C("SET", "k", "w"), C("CONFIG", "GET", "replica-serve-stale-data"),
			C("CONFIG", "SET", "slave-serve-stale-data", "yes"), C("GET", "k"),
		}},
	})
}

// TestShutdownWaitsForReplicas: SHUTDOWN on a master with a lagging
// replica pauses writes and waits up to shutdown-timeout for it, and
// SHUTDOWN ABORT ends the wait, as Redis 7.0.
func TestShutdownWaitsForReplicas(t *testing.T) {
	requireServers(t)
	rm, rmp := startRedisOn(t, t.TempDir(), "--repl-diskless-sync-delay", "0")
	rm.Name = "redis master"
	defer func() {
		if t.Failed() {
			t.Logf("redis master's log:\n%s", rmp.Log())
		}
	}()
	lm, _ := startLimitkvOn(t, "limitkv master", nil)
	type side struct {
		m       *RawConn
		replica *testredis.Proc
	}
	var sides []side
	for _, m := range []*RawConn{rm, lm} {
		_, rp := startRedisOn(t, t.TempDir())
		r := dialRaw(t, "replica", rp.Addr)
		mustOK(t, r, "REPLICAOF", "127.0.0.1", portOf(m.Addr))
		mustOK(t, m, "SET", "k", "v")
		waitSynced(t, m, r)
		mustOK(t, m, "CONFIG", "SET", "shutdown-timeout", "5")
		sides = append(sides, side{m, rp})
	}
	var got [2][]string
	for i, s := range sides {
		// The replica stops reading: the write after it lags.
		if err := s.replica.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		mustOK(t, s.m, "SET", "k", "w")
		if err := s.m.Send("SHUTDOWN"); err != nil {
			t.Fatal(err)
		}
		other := dialRaw(t, s.m.Name+" (2)", s.m.Addr)
		time.Sleep(200 * time.Millisecond)
		record := func(r *Reply, err error) {
			if err != nil {
				got[i] = append(got[i], "error: "+err.Error())
				return
			}
			got[i] = append(got[i], string(r.Raw))
		}
		record(other.Do("GET", "k")) // reads go on
		if err := other.Send("SET", "k", "paused"); err != nil {
			t.Fatal(err)
		}
		abort := dialRaw(t, s.m.Name+" (3)", s.m.Addr)
		record(abort.Do("SHUTDOWN", "ABORT"))
		record(s.m.ReadReply())   // the SHUTDOWN's answer
		record(other.ReadReply()) // the paused write ran once the pause ended
		record(abort.Do("SHUTDOWN", "ABORT"))
		record(abort.Do("GET", "k"))
		s.replica.Cmd.Process.Signal(syscall.SIGCONT)
	}
	if strings.Join(got[1], " | ") != strings.Join(got[0], " | ") {
		t.Errorf("limitkv: %q\n  redis: %q", got[1], got[0])
	}
	// With the replica reading again, SHUTDOWN waits for it and then stops
	// the server: the replica has every write. (A fresh connection: Redis
	// 7.0.15 fails an assertion, networking.c:2295, when the client whose
	// SHUTDOWN was aborted sends its next command.)
	for _, s := range sides {
		s.m = dialRaw(t, s.m.Name, s.m.Addr)
		r := dialRaw(t, "replica", s.replica.Addr)
		waitSynced(t, s.m, r)
		mustOK(t, s.m, "SET", "last", "write")
		if err := s.m.Send("SHUTDOWN", "NOSAVE"); err != nil {
			t.Fatal(err)
		}
		if closed, _ := s.m.AwaitClose(10 * time.Second); !closed {
			t.Fatalf("%s did not stop", s.m.Name)
		}
		if v := r.MustDo(t, "GET", "last"); v.Str != "write" {
			t.Errorf("%s's replica lacks the last write after the shutdown: %q", s.m.Name, v.Raw)
		}
	}
}
