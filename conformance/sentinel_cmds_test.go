package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/testredis"
)

// What Sentinel sends an instance it monitors, against real Redis: the
// replication settings it reads and the replicas announce, and its
// failover transaction (sentinelSendSlaveOf: MULTI, SLAVEOF, CONFIG
// REWRITE, CLIENT KILL TYPE normal, CLIENT KILL TYPE pubsub, EXEC), which
// must be queued and run whole, the caller's connection spared by the
// kills. Private servers: the kills would cut other tests' connections.

func TestSentinelInstanceCommands(t *testing.T) {
	requireServers(t)
	rc, rp := startRedisOn(t, t.TempDir())
	defer rc.Close()
	srv, err := limitkv.Start(limitkv.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	// startRedisOn keeps a connection open on Redis: one on limitkv too,
	// so that CLIENT KILL TYPE normal counts the same.
	lc := dialRaw(t, "limitkv", srv.Addr())
	defer lc.Close()
	closed, err := testredis.FreePort() // nothing listens there: the replica link retries
	if err != nil {
		t.Fatal(err)
	}
	nowhere := strconv.Itoa(closed)
	replFields := func(c Cmd) Cmd {
		for _, f := range []string{"role", "master_host", "master_port", "master_link_status", "slave_priority",
			"slave_read_only", "replica_announced", "master_link_down_since_seconds"} {
			c = c.Check(f, infoField(f))
		}
		return c
	}
	runCasesOn(t, rp.Addr, srv.Addr(), []Case{
		{Name: "what Sentinel reads of a master", Cmds: []Cmd{
			C("INFO", "server").Check("run_id", func(r, l *Reply) error {
				// Sentinel takes exactly 40 characters after "run_id:".
				re := regexp.MustCompile(`(?m)^run_id:([0-9a-f]{40})\r$`)
				if re.FindSubmatch(r.Raw) == nil || re.FindSubmatch(l.Raw) == nil {
					return fmt.Errorf("run_id is not 40 hex digits")
				}
				return nil
			}),
			C("INFO", "replication").Check("role", infoField("role")).Check("connected_slaves", infoField("connected_slaves")),
			C("PING"), C("CLIENT", "SETNAME", "sentinel-0123abcd-pubsub"), C("SUBSCRIBE", "__sentinel__:hello"),
			C("PUBLISH", "__sentinel__:hello", "127.0.0.1,26379,0123abcd,0,mymaster,127.0.0.1,6379,0").On(1),
			Recv(),
		}},
		{Name: "replication settings", Cmds: []Cmd{
			C("CONFIG", "GET", "replicaof"), C("CONFIG", "GET", "slaveof"),
			C("CONFIG", "GET", "replica-announce*").PairsUnordered(), C("CONFIG", "GET", "slave-announce-*").PairsUnordered(),
			C("CONFIG", "SET", "replicaof", "127.0.0.1 1"), C("CONFIG", "SET", "slaveof", "no one"),
			C("CONFIG", "SET", "replica-announce-port", "65536"), C("CONFIG", "SET", "replica-announce-port", "-1"),
			C("CONFIG", "SET", "slave-announce-port", "x"), C("CONFIG", "SET", "replica-announce-port", "6000"),
			C("CONFIG", "GET", "slave-announce-port"), C("CONFIG", "SET", "replica-announce-port", "0"),
			C("CONFIG", "SET", "slave-announce-ip", "10.0.0.9"), C("CONFIG", "GET", "replica-announce-ip"),
			C("CONFIG", "SET", "replica-announce-ip", ""), C("CONFIG", "GET", "replica-announce-ip"),
			C("CONFIG", "SET", "replica-announced", "maybe"), C("CONFIG", "SET", "replica-announced", "no"),
			C("CONFIG", "GET", "replica-announced"), C("CONFIG", "SET", "replica-announced", "yes"),
		}},
		{Name: "failover transaction on a master", Cmds: []Cmd{
			C("SUBSCRIBE", "__sentinel__:hello").On(1), C("PING").On(2),
			C("CLIENT", "SETNAME", "sentinel-0123abcd-cmd"),
			C("MULTI"), C("SLAVEOF", "NO", "ONE"), C("CONFIG", "REWRITE"),
			C("CLIENT", "KILL", "TYPE", "normal"), C("CLIENT", "KILL", "TYPE", "pubsub"), C("EXEC"),
			C("PING"), C("ROLE").Check("master", func(r, l *Reply) error {
				if len(l.Elems) != 3 || l.Elems[0].Str != "master" {
					return fmt.Errorf("not a master's ROLE")
				}
				return nil
			}),
		}},
		{Name: "reconfiguration transaction", Cmds: []Cmd{
			C("MULTI"), C("SLAVEOF", "127.0.0.1", nowhere), C("CONFIG", "REWRITE"),
			C("CLIENT", "KILL", "TYPE", "normal"), C("CLIENT", "KILL", "TYPE", "pubsub"), C("CONFIG", "GET", "replicaof"), C("EXEC"),
			C("CONFIG", "GET", "replicaof"), C("SLAVEOF", "127.0.0.1", nowhere),
			C("CONFIG", "SET", "replica-announced", "no"), C("CONFIG", "SET", "replica-priority", "7"),
			replFields(C("INFO", "replication")),
			C("CONFIG", "SET", "replica-announced", "yes"), C("CONFIG", "SET", "replica-priority", "100"),
			C("SET", "k", "v"), C("MULTI"), C("SLAVEOF", "NO", "ONE"), C("EXEC"), C("CONFIG", "GET", "replicaof"), C("SET", "k", "v"),
		}},
		{Name: "slaveof arguments in a transaction", Cmds: []Cmd{
			C("MULTI"), C("SLAVEOF", "127.0.0.1", "x"), C("SLAVEOF", "127.0.0.1", "70000"), C("SLAVEOF", "no", "one"), C("EXEC"),
			C("MULTI"), C("SLAVEOF", "127.0.0.1"), C("EXEC"),
		}},
	})
}

// The failover transaction on servers started from a config file: CONFIG
// REWRITE in it records the new master (or drops the line on promotion),
// so a restart keeps the role Sentinel gave. The replies and the files'
// replication lines are compared with Redis's, and limitkv is restarted
// from its file.
func TestSentinelConfigRewrite(t *testing.T) {
	requireServers(t)
	closed, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	nowhere := strconv.Itoa(closed)
	const file = "# a replica's file\nslaveof 127.0.0.1 1\nreplica-priority 50\n"
	type server struct {
		name, conf string
		bin        string
		p          *testredis.Proc
		c          *RawConn
	}
	start := func(s *server) {
		t.Helper()
		s.p = startConfProc(t, s.bin, s.conf)
		s.c = dialRaw(t, s.name, s.p.Addr)
	}
	var servers []*server
	for _, s := range []*server{{name: "redis", bin: redisServerPath}, {name: "limitkv", bin: limitkvBinary(t)}} {
		s.conf = filepath.Join(t.TempDir(), "redis.conf")
		if err := os.WriteFile(s.conf, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		start(s)
		servers = append(servers, s)
	}
	replLines := func(s *server) string {
		b, err := os.ReadFile(s.conf)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "replicaof ") || strings.HasPrefix(l, "slaveof ") || strings.HasPrefix(l, "replica-priority ") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "; ")
	}
	for _, step := range []struct {
		name   string
		master []string
	}{{"promotion", []string{"NO", "ONE"}}, {"reconfiguration", []string{"127.0.0.1", nowhere}}} {
		var got []string
		for _, s := range servers {
			var replies []string
			for _, cmd := range [][]string{{"CONFIG", "GET", "replicaof"}, {"MULTI"}, append([]string{"SLAVEOF"}, step.master...),
				{"CONFIG", "REWRITE"}, {"CLIENT", "KILL", "TYPE", "normal"}, {"CLIENT", "KILL", "TYPE", "pubsub"}, {"EXEC"},
				{"CONFIG", "GET", "replicaof"}} {
				replies = append(replies, string(s.c.MustDo(t, cmd...).Raw))
			}
			got = append(got, strings.Join(replies, "")+" | file: "+replLines(s))
		}
		t.Logf("%s: %q", step.name, got[1])
		if got[0] != got[1] {
			t.Errorf("%s:\n  redis:   %q\n  limitkv: %q", step.name, got[0], got[1])
		}
	}
	// limitkv restarted from the rewritten file follows the master it names.
	lkv := servers[1]
	term(t, lkv.p)
	start(lkv)
	if got := lkv.c.MustDo(t, "CONFIG", "GET", "replicaof"); len(got.Elems) != 2 || got.Elems[1].Str != "127.0.0.1 "+nowhere {
		t.Errorf("CONFIG GET replicaof after the restart: %q", got.Raw)
	}
	// limitkv acts on the directive at its first cron tick after the
	// load (Redis is a replica from the moment it reads the file): ROLE
	// says master until then.
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := lkv.c.MustDo(t, "ROLE")
		if len(got.Elems) >= 3 && got.Elems[0].Str == "slave" && got.Elems[2].Int == int64(closed) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ROLE 2 s after the restart: %q", got.Raw)
		}
	}
}

// startConfProc starts bin (redis-server or limitkv) on a config file, the
// file first as both want it, on a free port in the file's directory. It
// is killed at the end of the test.
func startConfProc(t *testing.T, bin, conf string) *testredis.Proc {
	t.Helper()
	p, err := testredis.Start(testredis.Options{Path: bin, Conf: conf, Dir: filepath.Dir(conf)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

// Sentinel does not promote a replica whose link has been down much
// longer than the master (master_link_down_since_seconds, in INFO while
// the link is down): limitkv's counts from the moment a connected link
// was lost, as Redis's.
func TestSentinelLinkDownSince(t *testing.T) {
	requireServers(t)
	master, mp := startRedisOn(t, t.TempDir())
	rr, _ := startRedisOn(t, t.TempDir())
	rr.Name = "redis replica"
	lkv, _ := startLimitkvOn(t, "limitkv", nil)
	port := strings.TrimPrefix(mp.Addr, "127.0.0.1:")
	for _, r := range []*RawConn{lkv, rr} {
		mustOK(t, r, "REPLICAOF", "127.0.0.1", port)
	}
	for _, r := range []*RawConn{lkv, rr} {
		waitSynced(t, master, r)
	}
	mp.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for _, r := range []*RawConn{lkv, rr} {
		for replInfo(t, r, "replication", "master_link_status") != "down" {
			if time.Now().After(deadline) {
				t.Fatalf("%s's link still up after the master stopped", r.Name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	time.Sleep(2100 * time.Millisecond)
	if g, w := infoFieldNames(t, lkv), infoFieldNames(t, rr); g != w {
		t.Errorf("INFO replication fields with the link down:\n limitkv: %s\n   redis: %s", g, w)
	}
	g, _ := strconv.Atoi(replInfo(t, lkv, "replication", "master_link_down_since_seconds"))
	w, _ := strconv.Atoi(replInfo(t, rr, "replication", "master_link_down_since_seconds"))
	if g < 2 || g > 3 || w-g > 1 || g-w > 1 {
		t.Errorf("master_link_down_since_seconds about 2 s after the master stopped: limitkv %d, redis %d", g, w)
	}
}

// Sentinel learns a replica's address from its master's INFO (slaveN:
// ip=...,port=...), which is what the replica's link announced: the
// connection's address and listening port, or replica-announce-ip and
// replica-announce-port. limitkv's link announces as a Redis replica's.
func TestSentinelReplicaAnnounce(t *testing.T) {
	requireServers(t)
	master, mp := startRedisOn(t, t.TempDir())
	rr, _ := startRedisOn(t, t.TempDir())
	rr.Name = "redis replica"
	lkv, lport := startLimitkvOn(t, "limitkv", nil)
	port := strings.TrimPrefix(mp.Addr, "127.0.0.1:")
	// Where each replica is listed, as "ip,port" (state, offset and lag
	// left out).
	listed := func() map[string]bool {
		out := map[string]bool{}
		for _, l := range strings.Split(master.MustDo(t, "INFO", "replication").Str, "\r\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasPrefix(k, "slave") && strings.Contains(v, "ip=") {
				f := strings.Split(v, ",")
				out[f[0]+","+f[1]] = true
			}
		}
		return out
	}
	waitListed := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := listed()
			ok := len(got) == len(want)
			for _, w := range want {
				ok = ok && got[w]
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the master lists %v, want %v", got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, r := range []*RawConn{lkv, rr} {
		mustOK(t, r, "REPLICAOF", "127.0.0.1", port)
	}
	rport := strings.TrimPrefix(rr.Addr, "127.0.0.1:")
	waitListed("ip=127.0.0.1,port="+lport, "ip=127.0.0.1,port="+rport)
	// Announced: both tell the master the same made-up addresses; the
	// settings apply from the next link, so the links are cut.
	for i, r := range []*RawConn{lkv, rr} {
		mustOK(t, r, "CONFIG", "SET", "replica-announce-ip", "10.9.8.7", "replica-announce-port", strconv.Itoa(7000+i))
	}
	master.MustDo(t, "CLIENT", "KILL", "TYPE", "replica")
	waitListed("ip=10.9.8.7,port=7000", "ip=10.9.8.7,port=7001")
}
