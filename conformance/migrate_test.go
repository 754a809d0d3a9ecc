package conformance

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// migrateStep is one command of a MIGRATE scenario, sent to the source
// (dst false) or the target; {port} and {dead} stand for the target's port
// and a port nobody listens on.
type migrateStep struct {
	dst  bool
	args []string
	// norm, if set, maps the reply to what is compared (TTLs).
	norm func(r *Reply) string
}

func src(args ...string) migrateStep { return migrateStep{args: args} }
func dst(args ...string) migrateStep { return migrateStep{dst: true, args: args} }

// ttlWithin compares a PTTL as "in (0, max]".
func ttlWithin(max int64) func(r *Reply) string {
	return func(r *Reply) string {
		if r.Type == ':' && r.Int > 0 && r.Int <= max {
			return "ttl ok"
		}
		return "ttl " + string(r.Raw)
	}
}

func migrateScenario() []migrateStep {
	big := []string{"RPUSH", "biglist"}
	for i := range 2000 {
		big = append(big, strings.Repeat("e", i%100))
	}
	return []migrateStep{
		src("SET", "a", "1"), src("RPUSH", "l", "x", "y", "z"), src("HSET", "h", "f", "v"),
		src("SET", "ttl", "v", "PX", "100000"), src("ZADD", "z", "1", "m", "2.5", "n"), src("SADD", "s", "1", "2", "x"),
		src(big...),
		// Argument errors, in Redis's order.
		src("MIGRATE", "127.0.0.1", "{port}", "a", "0", "1000", "BOGUS"),
		src("MIGRATE", "127.0.0.1", "{port}", "a", "0", "1000", "AUTH"),
		src("MIGRATE", "127.0.0.1", "{port}", "a", "0", "1000", "AUTH2", "u"),
		src("MIGRATE", "127.0.0.1", "{port}", "a", "0", "1000", "KEYS", "b"),
		src("MIGRATE", "127.0.0.1", "{port}", "a", "x", "1000"),
		src("MIGRATE", "127.0.0.1", "{port}", "a", "0", "x"),
		src("MIGRATE", "127.0.0.1", "{port}", "a", "x", "y"),
		src("MIGRATE", "127.0.0.1", "{port}", "nokey", "0", "1000"),
		src("MIGRATE", "127.0.0.1", "{port}", "", "0", "1000", "KEYS", "n1", "n2"),
		src("MIGRATE", "127.0.0.1", "{dead}", "a", "0", "100"),
		src("MIGRATE", "127.0.0.1", "{dead}", "nokey", "0", "100"),
		// Moves.
		src("MIGRATE", "127.0.0.1", "{port}", "a", "0", "1000"), src("EXISTS", "a"), dst("GET", "a"), dst("OBJECT", "ENCODING", "a"),
		src("MIGRATE", "127.0.0.1", "{port}", "l", "0", "0", "COPY"), src("LRANGE", "l", "0", "-1"), dst("LRANGE", "l", "0", "-1"),
		src("MIGRATE", "127.0.0.1", "{port}", "l", "0", "1000"), src("EXISTS", "l"),
		src("MIGRATE", "127.0.0.1", "{port}", "l", "0", "1000", "COPY", "REPLACE"), src("EXISTS", "l"),
		src("MIGRATE", "127.0.0.1", "{port}", "l", "0", "1000", "replace"), src("EXISTS", "l"),
		src("MIGRATE", "127.0.0.1", "{port}", "", "0", "1000", "KEYS", "h", "ttl", "nokey", "z", "s", "biglist"),
		src("DBSIZE"), dst("DBSIZE"),
		{dst: true, args: []string{"PTTL", "ttl"}, norm: ttlWithin(100000)},
		dst("HGETALL", "h"), dst("ZRANGE", "z", "0", "-1", "WITHSCORES"), dst("SORT", "s", "ALPHA"), dst("LLEN", "biglist"),
		dst("OBJECT", "ENCODING", "s"), dst("OBJECT", "ENCODING", "z"), dst("OBJECT", "ENCODING", "h"),
		dst("DEBUG", "DIGEST"),
		// Another database, then back (the cached connection's SELECT).
		src("SET", "d", "3"), src("MIGRATE", "127.0.0.1", "{port}", "d", "3", "1000", "COPY"),
		src("MIGRATE", "127.0.0.1", "{port}", "d", "0", "1000", "COPY"),
		src("MIGRATE", "127.0.0.1", "{port}", "d", "3", "1000"),
		dst("SELECT", "3"), dst("GET", "d"), dst("SELECT", "0"), dst("GET", "d"),
		src("SET", "bad", "1"), src("MIGRATE", "127.0.0.1", "{port}", "bad", "99", "1000"), src("EXISTS", "bad"),
		src("MIGRATE", "127.0.0.1", "{port}", "bad", "0", "1000"), dst("GET", "bad"),
		// A cached connection the target closed: MIGRATE reconnects once.
		// (The count includes the previous runs' connections.)
		{dst: true, args: []string{"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}, norm: func(r *Reply) string { return string(r.Type) }},
		src("SET", "again", "1"), src("MIGRATE", "127.0.0.1", "{port}", "again", "0", "1000"), dst("GET", "again"),
		// Partial failure: the keys the target took are deleted, the
		// first error is answered.
		src("MSET", "p1", "a", "p2", "b", "p3", "c"), dst("SET", "p2", "there"),
		src("MIGRATE", "127.0.0.1", "{port}", "", "0", "1000", "KEYS", "p1", "p2", "p3"),
		src("MGET", "p1", "p2", "p3"), dst("MGET", "p1", "p2", "p3"),
		// Expired keys are not migrated.
		src("SET", "gone", "v", "PX", "1"), src("MIGRATE", "127.0.0.1", "{port}", "gone", "0", "1000"),
		// Authentication: a new host name is a new connection.
		dst("CONFIG", "SET", "requirepass", "pw"),
		src("SET", "sec", "v"),
		src("MIGRATE", "localhost", "{port}", "sec", "0", "1000"),
		src("MIGRATE", "localhost", "{port}", "sec", "0", "1000", "AUTH", "wrong"),
		src("MIGRATE", "localhost", "{port}", "sec", "0", "1000", "AUTH2", "default", "wrong"),
		src("MIGRATE", "localhost", "{port}", "sec", "0", "1000", "AUTH", "pw", "COPY"),
		src("MIGRATE", "localhost", "{port}", "sec", "5", "1000", "AUTH2", "default", "pw"),
		src("EXISTS", "sec"), dst("SELECT", "5"), dst("GET", "sec"), dst("SELECT", "0"), dst("GET", "sec"),
		dst("CONFIG", "SET", "requirepass", ""),
		dst("DEBUG", "DIGEST"), src("DEBUG", "DIGEST"), src("DBSIZE"), dst("DBSIZE"),
		dst("SELECT", "3"), dst("DBSIZE"), dst("SELECT", "5"), dst("DBSIZE"), dst("SELECT", "0"),
	}
}

// runMigrate runs the scenario from source s to the target at dstAddr and
// returns the transcript of replies.
func runMigrate(t *testing.T, s, d *RawConn, dstAddr, dead string) []string {
	t.Helper()
	_, port, _ := net.SplitHostPort(dstAddr)
	s.MustDo(t, "FLUSHALL")
	d.MustDo(t, "FLUSHALL")
	var out []string
	for _, st := range migrateScenario() {
		args := make([]string, len(st.args))
		for i, a := range st.args {
			a = strings.ReplaceAll(a, "{port}", port)
			args[i] = strings.ReplaceAll(a, "{dead}", dead)
		}
		if len(args) > 3 && args[0] == "MIGRATE" && args[3] == "gone" {
			time.Sleep(20 * time.Millisecond)
		}
		c := s
		if st.dst {
			c = d
		}
		r := c.MustDo(t, args...)
		got := string(r.Raw)
		if st.norm != nil {
			got = st.norm(r)
		}
		where := "source"
		if st.dst {
			where = "target"
		}
		shown := fmtArgs(st.args)
		out = append(out, fmt.Sprintf("%s %s -> %q", where, truncate([]byte(shown), 200), truncate([]byte(got), 300)))
	}
	return out
}

// MIGRATE from a Redis and from a limitkv, each to a Redis and to a
// limitkv: the four transcripts (the sources' replies and what the target
// then holds) are the same.
func TestMigrate(t *testing.T) {
	srcR, srcL := debugPair(t, "yes")
	dstR, dstL := debugPair(t, "yes")
	deadPort, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(deadPort)
	sources := []*RawConn{dialRaw(t, "redis", srcR), dialRaw(t, "limitkv", srcL)}
	var ref []string
	var refName string
	for _, target := range []string{dstR, dstL} {
		d := dialRaw(t, "target", target)
		for _, s := range sources {
			name := s.Name + " -> " + target
			got := runMigrate(t, s, d, target, dead)
			if ref == nil {
				ref, refName = got, name
				continue
			}
			for i := range ref {
				if got[i] != ref[i] {
					t.Errorf("step %d: %s\n  %s\n%s\n  %s", i, refName, ref[i], name, got[i])
				}
			}
		}
	}
}

// A target that accepts and never answers: the source gives up after the
// timeout with Redis's error, and keeps the key.
func TestMigrateTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	rds, lkv := dialPair(t)
	for _, cmd := range [][]string{
		{"SET", "k", "v"}, {"MIGRATE", "127.0.0.1", port, "k", "0", "200"}, {"GET", "k"},
		{"MIGRATE", "127.0.0.1", port, "k", "0", "200", "AUTH", "x"}, {"EXISTS", "k"},
	} {
		a, b := rds.MustDo(t, cmd...), lkv.MustDo(t, cmd...)
		if string(a.Raw) != string(b.Raw) {
			t.Errorf("%v: redis %q, limitkv %q", cmd, a.Raw, b.Raw)
		}
	}
	// To itself: the server is busy in MIGRATE and cannot answer its own
	// RESTORE before the timeout.
	for _, c := range []*RawConn{rds, lkv} {
		_, own, _ := net.SplitHostPort(c.Addr)
		r := c.MustDo(t, "MIGRATE", "127.0.0.1", own, "k", "0", "200")
		if string(r.Raw) != "-IOERR error or timeout reading to target instance\r\n" {
			t.Errorf("%s: MIGRATE to itself: %q", c.Name, r.Raw)
		}
		if r := c.MustDo(t, "GET", "k"); string(r.Raw) != "$1\r\nv\r\n" {
			t.Errorf("%s: after MIGRATE to itself: %q", c.Name, r.Raw)
		}
	}
	// Let the servers run the RESTORE they sent themselves (BUSYKEY to a
	// closed connection) before the key goes, so it does not come back.
	time.Sleep(100 * time.Millisecond)
	rds.MustDo(t, "DEL", "k")
	lkv.MustDo(t, "DEL", "k")
}

func TestMigrateCommandInfo(t *testing.T) {
	runCases(t, []Case{
		{Name: "info", Cmds: []Cmd{C("COMMAND", "INFO", "migrate", "restore-asking"), C("COMMAND", "DOCS", "migrate", "restore-asking").PairsUnordered()}},
		{Name: "getkeys", Cmds: []Cmd{
			C("COMMAND", "GETKEYS", "migrate", "h", "1", "k", "0", "0"),
			C("COMMAND", "GETKEYS", "migrate", "h", "1", "", "0", "0"),
			C("COMMAND", "GETKEYS", "migrate", "h", "1", "", "0", "0", "KEYS", "a", "b"),
			C("COMMAND", "GETKEYS", "migrate", "h", "1", "", "0", "0", "COPY", "AUTH", "keys", "x", "keys", "a", "b"),
			C("COMMAND", "GETKEYS", "migrate", "h", "1", "", "0", "0", "AUTH2", "u", "keys", "keys", "a"),
			C("COMMAND", "GETKEYS", "migrate", "h", "1", "k", "0", "0", "KEYS", "a"),
			C("COMMAND", "GETKEYSANDFLAGS", "migrate", "h", "1", "", "0", "0", "KEYS", "a", "b"),
			C("COMMAND", "GETKEYS", "restore-asking", "k", "0", "x"),
		}},
		{Name: "restore-asking", Cmds: []Cmd{
			C("SET", "k", "v"), C("DUMP", "k").Ignore(), C("RESTORE-ASKING", "k", "0", "x"), C("RESTORE-ASKING", "n", "0", "x"),
			C("MIGRATE", "127.0.0.1", "1"), C("MIGRATE", "127.0.0.1", "1", "k", "0"),
		}},
	})
}
