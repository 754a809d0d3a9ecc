package conformance

import (
	"strings"
	"testing"
	"time"
)

// FAILOVER, Redis 7.0's coordinated switch of a master and a replica:
// its errors beside Redis's, and the switch itself between every pair of
// kinds (a limitkv master handing over to a Redis replica and the
// reverse), its timeout, FORCE and ABORT.

func TestFailoverErrors(t *testing.T) {
	runCases(t, []Case{{Name: "failover arguments", Cmds: []Cmd{
		C("FAILOVER", "ABORT"),
		C("FAILOVER", "TIMEOUT", "0"),
		C("FAILOVER", "TIMEOUT", "-5"),
		C("FAILOVER", "TIMEOUT", "x"),
		C("FAILOVER", "TIMEOUT", "5", "TIMEOUT", "5"),
		C("FAILOVER", "TO", "127.0.0.1"),
		C("FAILOVER", "TO", "127.0.0.1", "port"),
		C("FAILOVER", "TO", "127.0.0.1", "1", "TO", "127.0.0.1", "2"),
		C("FAILOVER", "FORCE", "FORCE"),
		C("FAILOVER", "ABORT", "TIMEOUT", "5"),
		C("FAILOVER", "bogus"),
		C("FAILOVER"),
		C("FAILOVER", "FORCE"),
		C("FAILOVER", "TO", "127.0.0.1", "1", "FORCE", "TIMEOUT", "10"),
		C("PSYNC", "0123456789012345678901234567890123456789", "1", "FAILOVER"),
	}}})
}

type failoverNode struct {
	c    *RawConn
	port string
}

func startFailoverNode(t *testing.T, kind, name string) failoverNode {
	t.Helper()
	if kind == "redis" {
		c, p := startRedisOn(t, t.TempDir(), "--repl-diskless-sync-delay", "0")
		c.Name = name
		return failoverNode{c, portOf(p.Addr)}
	}
	c, port := startLimitkvOn(t, name, nil)
	return failoverNode{c, port}
}

func failoverState(t *testing.T, c *RawConn) string {
	return replInfo(t, c, "replication", "master_failover_state")
}

func waitFailoverState(t *testing.T, c *RawConn, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for failoverState(t, c) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: master_failover_state %s after 15 s, want %s", c.Name, failoverState(t, c), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestFailoverSwitch(t *testing.T) {
	requireServers(t)
	for _, kinds := range [][2]string{{"limitkv", "redis"}, {"redis", "limitkv"}, {"limitkv", "limitkv"}} {
		t.Run(kinds[0]+" master to "+kinds[1]+" replica", func(t *testing.T) {
			m := startFailoverNode(t, kinds[0], kinds[0]+" master")
			r := startFailoverNode(t, kinds[1], kinds[1]+" replica")
			for _, w := range masterWrites {
				m.c.MustDo(t, w...)
			}
			mustOK(t, r.c, "REPLICAOF", "127.0.0.1", m.port)
			waitSynced(t, m.c, r.c)
			waitOnline(t, m.c, 1)
			partial := syncStat(t, r.c, "sync_partial_ok")
			mustOK(t, m.c, "FAILOVER", "TO", "127.0.0.1", r.port)
			waitFailoverState(t, m.c, "no-failover")
			// Roles swapped: the old master follows the new one, which it
			// continued from partially.
			if role := replInfo(t, r.c, "replication", "role"); role != "master" {
				t.Fatalf("the target's role is %s", role)
			}
			if host := replInfo(t, m.c, "replication", "master_port"); host != r.port {
				t.Fatalf("the old master follows port %q, want %s", host, r.port)
			}
			waitSynced(t, r.c, m.c)
			if got := syncStat(t, r.c, "sync_partial_ok"); got != partial+1 {
				t.Errorf("sync_partial_ok %d on the new master, want %d: the old master did not continue partially", got, partial+1)
			}
			sameDigest(t, "after the switch", r.c, m.c)
			mustOK(t, r.c, "SET", "after", "switch")
			waitSynced(t, r.c, m.c)
			if got := m.c.MustDo(t, "GET", "after"); got.Str != "switch" {
				t.Errorf("the old master did not get the new master's write: %q", got.Raw)
			}
			if got := m.c.MustDo(t, "SET", "x", "y"); !strings.HasPrefix(got.Str, "READONLY") {
				t.Errorf("a write to the old master: %q", got.Raw)
			}
		})
	}
}

// A replica that does not catch up: the timeout aborts and writes resume;
// ABORT does the same at once; FORCE switches anyway.
func TestFailoverLaggingReplica(t *testing.T) {
	requireServers(t)
	for _, kind := range []string{"redis", "limitkv"} {
		t.Run(kind, func(t *testing.T) {
			m := startFailoverNode(t, kind, kind+" master")
			r := startFailoverNode(t, "redis", "redis replica")
			mustOK(t, r.c, "REPLICAOF", "127.0.0.1", m.port)
			waitSynced(t, m.c, r.c)
			waitOnline(t, m.c, 1)
			// The replica's ACKs stop while it sleeps; a write after that
			// leaves it behind.
			lag := func(secs string) {
				r.c.Send("DEBUG", "SLEEP", secs)
				time.Sleep(50 * time.Millisecond)
				mustOK(t, m.c, "INCR", "n")
			}
			settle := func() {
				t.Helper()
				if _, err := r.c.ReadReply(); err != nil {
					t.Fatal(err)
				}
				if replInfo(t, r.c, "replication", "role") != "slave" {
					t.Fatalf("the replica left: %s\nthe master: %s", r.c.MustDo(t, "INFO", "replication").Str, m.c.MustDo(t, "INFO", "replication").Str)
				}
				waitSynced(t, m.c, r.c)
			}

			lag("1")
			mustOK(t, m.c, "FAILOVER", "TO", "127.0.0.1", r.port, "TIMEOUT", "200")
			if got := failoverState(t, m.c); got != "waiting-for-sync" {
				t.Errorf("state %q while the replica lags", got)
			}
			if got := m.c.MustDo(t, "FAILOVER"); got.Str != "ERR FAILOVER already in progress." {
				t.Errorf("a second FAILOVER: %q", got.Raw)
			}
			if got := m.c.MustDo(t, "REPLICAOF", "127.0.0.1", r.port); got.Str != "ERR REPLICAOF not allowed while failing over." {
				t.Errorf("REPLICAOF while failing over: %q", got.Raw)
			}
			waitFailoverState(t, m.c, "no-failover")
			mustOK(t, m.c, "SET", "writes", "resume") // not paused any more
			settle()

			lag("1")
			mustOK(t, m.c, "FAILOVER")
			mustOK(t, m.c, "FAILOVER", "ABORT")
			if got := failoverState(t, m.c); got != "no-failover" {
				t.Errorf("state %q after ABORT", got)
			}
			mustOK(t, m.c, "SET", "writes", "resume")
			settle()

			lag("2")
			mustOK(t, m.c, "FAILOVER", "TO", "127.0.0.1", r.port, "TIMEOUT", "100", "FORCE")
			if _, err := r.c.ReadReply(); err != nil { // DEBUG SLEEP's
				t.Fatal(err)
			}
			waitFailoverState(t, m.c, "no-failover")
			if role := replInfo(t, r.c, "replication", "role"); role != "master" {
				t.Fatalf("FORCE: the target's role is %s", role)
			}
			if port := replInfo(t, m.c, "replication", "master_port"); port != r.port {
				t.Fatalf("FORCE: the old master follows %q", port)
			}
		})
	}
}
