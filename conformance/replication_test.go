package conformance

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
)

// Replication with a real Redis master: limitkv and a Debian redis-server
// both replicate it, and are compared with each other (their replies to
// the same commands) and with the master (DEBUG DIGEST after the full
// sync, after the stream, after a partial resync).

// replInfo reads one field of an INFO reply.
func replInfo(t *testing.T, c *RawConn, section, name string) string {
	t.Helper()
	r := c.MustDo(t, "INFO", section)
	for _, l := range strings.Split(r.Str, "\r\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return v
		}
	}
	return ""
}

// waitSynced waits until replica's link is up and it has applied all the
// master has written.
func waitSynced(t *testing.T, master, replica *RawConn) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		want := replInfo(t, master, "replication", "master_repl_offset")
		if replInfo(t, replica, "replication", "master_link_status") == "up" &&
			replInfo(t, replica, "replication", "slave_repl_offset") == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not in sync after 20 s: offset %s of %s, link %s", replica.Name,
				replInfo(t, replica, "replication", "slave_repl_offset"), want,
				replInfo(t, replica, "replication", "master_link_status"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func sameDigest(t *testing.T, when string, master *RawConn, replicas ...*RawConn) {
	t.Helper()
	want := master.MustDo(t, "DEBUG", "DIGEST").Str
	for _, r := range replicas {
		if got := r.MustDo(t, "DEBUG", "DIGEST").Str; got != want {
			t.Errorf("%s: %s's DEBUG DIGEST %s, the master's %s", when, r.Name, got, want)
		}
	}
}

func mustOK(t *testing.T, c *RawConn, args ...string) {
	t.Helper()
	if r := c.MustDo(t, args...); r.Type == '-' {
		t.Fatalf("%s %v: %s", c.Name, args, r.Raw)
	}
}

func TestReplicaOfRedis(t *testing.T) {
	requireServers(t)
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless sync "+diskless, func(t *testing.T) {
			master, mp := startRedisOn(t, t.TempDir(), "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0")
			// A data set of every type and encoding, with deadlines and a
			// function library, before the replicas attach.
			for _, cmd := range [][]string{
				{"SET", "s", "v"}, {"SET", "n", "12345"}, {"SET", "big", strings.Repeat("x", 100)},
				{"RPUSH", "l", "a", "b", "c"}, {"HSET", "h", "f", "v", "g", "w"}, {"SADD", "is", "1", "2", "3"},
				{"SADD", "ss", "a", "b"}, {"ZADD", "z", "1", "a", "2", "b"}, {"PFADD", "hll", "a", "b"},
				{"SET", "ttl", "v", "EX", "1000"}, {"HSET", "bigh", "f", strings.Repeat("y", 100)},
				{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"},
				{"SELECT", "3"}, {"SET", "in3", "v"}, {"SELECT", "0"},
			} {
				mustOK(t, master, cmd...)
			}
			port := strings.TrimPrefix(mp.Addr, "127.0.0.1:")
			srv, err := limitkv.Start(limitkv.Options{Dir: t.TempDir(), Config: limitkv.Config{"enable-debug-command": "yes"}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			lkv := dialRaw(t, "limitkv", srv.Addr())
			rr, _ := startRedisOn(t, t.TempDir())
			rr.Name = "redis replica"
			for _, r := range []*RawConn{lkv, rr} {
				mustOK(t, r, "REPLICAOF", "127.0.0.1", port)
			}
			for _, r := range []*RawConn{lkv, rr} {
				waitSynced(t, master, r)
			}
			sameDigest(t, "after the full sync", master, lkv, rr)
			if got := lkv.MustDo(t, "FCALL", "f", "0"); string(got.Raw) != ":1\r\n" {
				t.Errorf("the function library did not come with the sync: %q", got.Raw)
			}

			// The stream: what Redis propagates for transactions, scripts,
			// expiry, rewritten commands.
			mustOK(t, master, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
			for _, cmd := range [][]string{
				{"MULTI"}, {"INCR", "n"}, {"LPUSH", "l", "z"}, {"EXEC"},
				{"EVAL", "redis.call('set', KEYS[1], 'e') redis.call('expire', KEYS[1], 500) return 1", "1", "ev"},
				{"INCRBYFLOAT", "f", "1.5"}, {"SPOP", "ss"}, {"EXPIRE", "s", "100"}, {"GETEX", "big", "PX", "100000"},
				{"DEL", "hll"}, {"SELECT", "3"}, {"FLUSHDB"}, {"SELECT", "0"}, {"SET", "soon", "v", "PX", "50"},
				{"RL.CHECK"}, // an unknown command on Redis: not propagated
				{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib\nredis.register_function('f', function() return 2 end)"},
			} {
				master.MustDo(t, cmd...)
			}
			for _, r := range []*RawConn{lkv, rr} {
				waitSynced(t, master, r)
			}
			sameDigest(t, "after the stream", master, lkv, rr)
			if got := lkv.MustDo(t, "FCALL", "f", "0"); string(got.Raw) != ":2\r\n" {
				t.Errorf("FUNCTION LOAD REPLACE in the stream did not reach the replica: FCALL answered %q", got.Raw)
			}

			// "soon" is past its deadline; the master has not noticed (its
			// cycle is off), so nothing was propagated: a replica keeps it
			// but reads it as missing.
			time.Sleep(100 * time.Millisecond)
			runCasesOn(t, rr.Addr, lkv.Addr, []Case{
				{Name: "replica reads", KeepData: true, RESP2Only: "the replicas are compared once", Cmds: []Cmd{
					C("GET", "soon"), C("EXISTS", "soon"), C("TTL", "soon"), C("DBSIZE"), C("GET", "n"),
					C("SET", "x", "1"), C("DEL", "n"), C("MULTI"), C("SET", "x", "1"), C("EXEC"),
					C("MULTI"), C("GET", "n"), C("EXEC"), C("EVAL", "return 1", "0"),
					C("REPLICAOF", "127.0.0.1", port), C("REPLICAOF", "127.0.0.1", "x"), C("REPLICAOF", "127.0.0.1", "70000"),
					C("ROLE"), C("REPLCONF", "listening-port", "1"), C("REPLCONF", "nope", "1"), C("REPLCONF", "x"),
				}},
			})
			if g, w := infoFieldNames(t, lkv), infoFieldNames(t, rr); g != w {
				t.Errorf("INFO replication fields:\n limitkv: %s\n   redis: %s", g, w)
			}
			// The master's DEL when it expires the key reaches both.
			master.MustDo(t, "GET", "soon")
			for _, r := range []*RawConn{lkv, rr} {
				waitSynced(t, master, r)
			}
			sameDigest(t, "after the master expired a key", master, lkv, rr)

			// A broken link: both continue with a partial resync.
			before, _ := strconv.Atoi(replInfo(t, master, "stats", "sync_partial_ok"))
			master.MustDo(t, "CLIENT", "KILL", "TYPE", "replica")
			mustOK(t, master, "SET", "during", "the outage")
			for _, r := range []*RawConn{lkv, rr} {
				waitSynced(t, master, r)
			}
			if after, _ := strconv.Atoi(replInfo(t, master, "stats", "sync_partial_ok")); after != before+2 {
				t.Errorf("sync_partial_ok went from %d to %d: a replica did a full resync", before, after)
			}
			sameDigest(t, "after the partial resync", master, lkv, rr)

			// Promoted, limitkv takes writes and keeps the old history as
			// its second replication id.
			oldID := replInfo(t, master, "replication", "master_replid")
			mustOK(t, lkv, "REPLICAOF", "NO", "ONE")
			mustOK(t, lkv, "SET", "x", "1")
			if got := replInfo(t, lkv, "replication", "master_replid2"); got != oldID {
				t.Errorf("master_replid2 after REPLICAOF NO ONE: %s, want the master's %s", got, oldID)
			}
			if r := lkv.MustDo(t, "ROLE"); r.Type != '*' || len(r.Elems) != 3 || r.Elems[0].Str != "master" {
				t.Errorf("ROLE of the promoted replica: %q", r.Raw)
			}
		})
	}
}

// infoFieldNames is INFO replication's field names, in order.
func infoFieldNames(t *testing.T, c *RawConn) string {
	t.Helper()
	var names []string
	for _, l := range strings.Split(c.MustDo(t, "INFO", "replication").Str, "\r\n") {
		if k, _, ok := strings.Cut(l, ":"); ok {
			names = append(names, k)
		}
	}
	return strings.Join(names, " ")
}
