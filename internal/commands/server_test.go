package commands

import (
	"fmt"
	"github.com/limitkv/limitkv/internal/keyspec"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/admin"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/resp"
)

func TestServerDBSizeFlush(t *testing.T) {
	tt := newTester(t)
	db0, db1 := tt.E.DB(0), tt.E.DB(1)
	db0.Add([]byte("a"), []byte("1"))
	db0.Add([]byte("b"), []byte("2"))
	db1.Add([]byte("c"), []byte("3"))
	runSteps(t, tt, []step{
		cmd(integer(2), "DBSIZE"),
		cmd(errReply("ERR wrong number of arguments for 'dbsize' command"), "DBSIZE", "x"),
		cmd(errReply(engine.ErrSyntax), "FLUSHDB", "x"),
		cmd(errReply(engine.ErrSyntax), "FLUSHDB", "async", "sync"),
		cmd(errReply(engine.ErrSyntax), "FLUSHALL", "lazy"),
		cmd(integer(2), "DBSIZE"),
		cmd(okReply, "FLUSHDB", "aSyNc"),
		cmd(integer(0), "DBSIZE"),
		cmd(okReply, "SELECT", "1"),
		cmd(integer(1), "DBSIZE"),
		cmd(okReply, "FLUSHDB", "SYNC"),
		cmd(integer(0), "DBSIZE"),
	})
	db0.Add([]byte("a"), []byte("1"))
	db1.Add([]byte("c"), []byte("3"))
	tt.E.DB(15).Add([]byte("z"), []byte("3"))
	tt.Expect(okReply, "FLUSHALL", "SYNC")
	for i := range config.NumDBs {
		if n := tt.E.DB(i).Len(); n != 0 {
			t.Errorf("db%d has %d keys after FLUSHALL", i, n)
		}
	}
	tt.Expect(okReply, "FLUSHALL")
	tt.Expect(okReply, "FLUSHALL", "ASYNC")
}

func TestServerTime(t *testing.T) {
	tt := newTester(t)
	tt.Clock.Set(time.Unix(1_700_000_123, 456_789_000))
	tt.Expect(array(bulk("1700000123"), bulk("456789")), "TIME")
	tt.Clock.Set(time.Unix(5, 1_000))
	tt.Expect(array(bulk("5"), bulk("1")), "TIME")
	tt.Expect(errReply("ERR wrong number of arguments for 'time' command"), "TIME", "x")
}

func TestServerShutdown(t *testing.T) {
	tt := newTester(t)
	// No hook: the engine cannot stop, as Redis when its shutdown fails.
	tt.Expect(errReply(engine.ErrShutdownFailed), "SHUTDOWN")
	runSteps(t, tt, []step{
		cmd(errReply(admin.ErrNoShutdown), "SHUTDOWN", "ABORT"),
		cmd(errReply(engine.ErrSyntax), "SHUTDOWN", "foo"),
		cmd(errReply(engine.ErrSyntax), "SHUTDOWN", "NOSAVE", "SAVE"),
		cmd(errReply(engine.ErrSyntax), "SHUTDOWN", "ABORT", "NOW"),
		cmd(errReply(engine.ErrSyntax), "SHUTDOWN", "force", "abort"),
		cmd(errReply(engine.ErrSyntax), "SHUTDOWN", "now", "now", "bad"),
	})
	var calls atomic.Int32
	done := make(chan struct{})
	tt.E.Shutdown = func() { calls.Add(1); close(done) }
	if got := tt.Do("SHUTDOWN", "NOSAVE", "NOW", "FORCE"); got != "" {
		t.Fatalf("SHUTDOWN replied %q, want no reply", got)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("SHUTDOWN did not call the engine's Shutdown hook")
	}
	if !tt.C.CloseAfterReply {
		t.Error("SHUTDOWN did not close the calling connection")
	}
}

func TestServerShutdownInMulti(t *testing.T) {
	tt := newTester(t)
	tt.C.Multi = &engine.MultiState{}
	tt.E.Shutdown = func() { t.Error("SHUTDOWN ran inside MULTI") }
	tt.Expect(errReply(engine.ErrNotInMulti), "SHUTDOWN")
	if !tt.C.Multi.Dirty {
		t.Error("SHUTDOWN inside MULTI did not doom the transaction")
	}
}

func TestServerClientBasics(t *testing.T) {
	tt := newTester(t)
	runSteps(t, tt, []step{
		cmd(integer(tt.C.ID), "CLIENT", "ID"),
		cmd(errReply("ERR wrong number of arguments for 'client|id' command"), "CLIENT", "ID", "x"),
		cmd(nilReply, "CLIENT", "GETNAME"),
		cmd(errReply(engine.ErrClientName), "CLIENT", "SETNAME", "a b"),
		cmd(errReply(engine.ErrClientName), "CLIENT", "SETNAME", "a\nb"),
		cmd(errReply(engine.ErrClientName), "CLIENT", "SETNAME", "caf\xc3\xa9"),
		cmd(okReply, "CLIENT", "SETNAME", "worker-1"),
		cmd(bulk("worker-1"), "CLIENT", "GETNAME"),
		cmd(okReply, "CLIENT", "SETNAME", ""),
		cmd(nilReply, "CLIENT", "GETNAME"),
		cmd(okReply, "CLIENT", "SETINFO", "lib-name", "go-redis(limitkv)"),
		cmd(okReply, "CLIENT", "SETINFO", "LIB-VER", "9.1.0"),
		cmd(errReply("ERR LIB-VER cannot contain spaces, newlines or special characters."), "CLIENT", "SETINFO", "LIB-VER", "9 1"),
		cmd(okReply, "CLIENT", "SETINFO", "lib-name", "a\x00 b"), // 7.2 checks up to the NUL
		cmd(errReply("ERR Unrecognized option 'foo'"), "CLIENT", "SETINFO", "foo", "x"),
		cmd(errReply("ERR wrong number of arguments for 'client|setinfo' command"), "CLIENT", "SETINFO", "lib-ver"),
		cmd(errReply("ERR wrong number of arguments for 'client|help' command"), "CLIENT", "HELP", "x"),
		cmd(errReply("ERR unknown subcommand 'NOSUCH'. Try CLIENT HELP."), "CLIENT", "NOSUCH"),
	})
	if tt.C.LibVer != "9.1.0" || tt.C.LibName != "a\x00 b" {
		t.Errorf("SETINFO stored %q %q", tt.C.LibName, tt.C.LibVer)
	}
	help := tt.Do("CLIENT", "HELP")
	if !strings.HasPrefix(help, "*48\r\n+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n") ||
		!strings.HasSuffix(help, "+HELP\r\n+    Prints this help.\r\n") {
		t.Errorf("CLIENT HELP = %q", help)
	}
}

var clientLineRE = regexp.MustCompile(`^id=(\d+) addr=(\S+) laddr=(\S+) fd=\d+ name=(\S*) age=(\d+) idle=(\d+) flags=(\w+) db=(\d+) ` +
	`sub=0 psub=0 ssub=0 multi=(-?\d+) qbuf=(\d+) qbuf-free=\d+ argv-mem=(\d+) multi-mem=\d+ rbs=\d+ rbp=\d+ ` +
	`obl=0 oll=0 omem=0 tot-mem=\d+ events=r cmd=(\S+) user=default redir=-1 resp=2$`)

// bulkBody returns the payload of a bulk reply.
func bulkBody(t *testing.T, r string) string {
	t.Helper()
	i := strings.Index(r, "\r\n")
	if !strings.HasPrefix(r, "$") || i < 0 {
		t.Fatalf("not a bulk reply: %q", r)
	}
	n, _ := strconv.Atoi(r[1:i])
	body := r[i+2:]
	if len(body) != n+2 {
		t.Fatalf("bulk length mismatch: %q", r)
	}
	return body[:n]
}

func TestServerClientList(t *testing.T) {
	tt := newTester(t)
	other := tt.E.NewClient("10.0.0.2:5000", "127.0.0.1:6379")
	other.Name = "other"
	other.DB = 3
	tt.Clock.Add(7 * time.Second)
	out := bulkBody(t, tt.Do("CLIENT", "LIST"))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("CLIENT LIST: %q", out)
	}
	m := clientLineRE.FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("bad CLIENT LIST line %q", lines[0])
	}
	if m[1] != strconv.FormatInt(tt.C.ID, 10) || m[2] != "127.0.0.1:1" || m[3] != "127.0.0.1:6379" || m[5] != "7" ||
		m[7] != "N" || m[10] != "26" || m[11] != "10" || m[12] != "client|list" {
		t.Errorf("caller's line %q", lines[0])
	}
	m = clientLineRE.FindStringSubmatch(lines[1])
	if m == nil || m[4] != "other" || m[8] != "3" || m[10] != "0" || m[12] != "NULL" {
		t.Errorf("other client's line %q", lines[1])
	}
	if got := bulkBody(t, tt.Do("CLIENT", "LIST", "TYPE", "NORMAL")); strings.Count(got, "\n") != 2 {
		t.Errorf("TYPE normal: %q", got)
	}
	id := strconv.FormatInt(other.ID, 10)
	if got := bulkBody(t, tt.Do("CLIENT", "LIST", "ID", id, "999", id)); strings.Count(got, "name=other") != 2 || strings.Count(got, "\n") != 2 {
		t.Errorf("ID filter: %q", got)
	}
	info := bulkBody(t, tt.Do("CLIENT", "INFO"))
	if m := clientLineRE.FindStringSubmatch(strings.TrimSuffix(info, "\n")); m == nil || m[12] != "client|info" || !strings.HasSuffix(info, "\n") {
		t.Errorf("CLIENT INFO %q", info)
	}
	runSteps(t, tt, []step{
		cmd(bulk(""), "CLIENT", "LIST", "TYPE", "master"),
		cmd(bulk(""), "CLIENT", "LIST", "TYPE", "replica"),
		cmd(bulk(""), "CLIENT", "LIST", "TYPE", "slave"),
		cmd(bulk(""), "CLIENT", "LIST", "TYPE", "pubsub"),
		cmd(errReply("ERR Unknown client type 'foo'"), "CLIENT", "LIST", "TYPE", "foo"),
		cmd(errReply(admin.ErrInvalidClientID), "CLIENT", "LIST", "ID", "1", "x"),
		cmd(bulk(""), "CLIENT", "LIST", "ID", "0", "-1"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "LIST", "foo"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "LIST", "TYPE"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "LIST", "ID"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "LIST", "TYPE", "normal", "ID", "1"),
		cmd(errReply("ERR wrong number of arguments for 'client|info' command"), "CLIENT", "INFO", "x"),
	})
}

func TestServerClientListFlags(t *testing.T) {
	tt := newTester(t)
	tt.C.Multi = &engine.MultiState{}
	tt.C.Multi.Queue(&engine.Command{Name: "get"}, [][]byte{[]byte("get"), []byte("k")})
	var w resp.Writer
	x := &engine.Ctx{E: tt.E, C: tt.C, W: &w}
	line := string(x.AppendClientInfo(nil, tt.C))
	// multi-mem is Redis's argv_len_sums: 4 bytes of arguments and a
	// pointer for each of the 2.
	if !strings.Contains(line, " flags=x ") || !strings.Contains(line, " multi=1 ") || !strings.Contains(line, " multi-mem=20 ") {
		t.Errorf("MULTI client line %q", line)
	}
}

func TestServerClientKill(t *testing.T) {
	tt := newTester(t)
	a := tt.E.NewClient("10.0.0.2:5000", "127.0.0.1:6379")
	b := tt.E.NewClient("10.0.0.3:5000", "127.0.0.1:6380")
	runSteps(t, tt, []step{
		cmd(errReply(admin.ErrNoSuchClient), "CLIENT", "KILL", "1.2.3.4:5"),
		cmd(errReply(admin.ErrClientIDRange), "CLIENT", "KILL", "ID", "x"),
		cmd(errReply(admin.ErrClientIDRange), "CLIENT", "KILL", "ID", "0"),
		cmd(errReply(admin.ErrClientIDRange), "CLIENT", "KILL", "ID", "-5"),
		cmd(integer(0), "CLIENT", "KILL", "ID", "999"),
		cmd(errReply("ERR Unknown client type 'foo'"), "CLIENT", "KILL", "TYPE", "foo"),
		cmd(errReply("ERR Unknown client type 'foo'"), "CLIENT", "KILL", "TYPE", "foo", "ID", "x"),
		cmd(errReply("ERR No such user 'bob'"), "CLIENT", "KILL", "USER", "bob"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "KILL", "SKIPME", "maybe"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "KILL", "ID", "1", "ID"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "KILL", "foo", "bar"),
		cmd(errReply(engine.ErrSyntax), "CLIENT", "KILL", "MAXAGE", "10"),
		cmd(integer(0), "CLIENT", "KILL", "TYPE", "master"),
		cmd(integer(0), "CLIENT", "KILL", "ADDR", "1.2.3.4:5"),
		cmd(integer(1), "CLIENT", "KILL", "LADDR", "127.0.0.1:6380"),
	})
	if a.Killed || !b.Killed {
		t.Fatalf("LADDR killed a=%v b=%v", a.Killed, b.Killed)
	}
	tt.Expect(okReply, "CLIENT", "KILL", "10.0.0.2:5000")
	if !a.Killed || tt.C.CloseAfterReply {
		t.Fatalf("old form: a=%v self=%v", a.Killed, tt.C.CloseAfterReply)
	}
	// The filter form skips the caller unless SKIPME no.
	c := tt.E.NewClient("10.0.0.4:5000", "127.0.0.1:6379")
	// a and b left the client table when killed (Redis frees them at once),
	// so only c is counted.
	tt.Expect(integer(1), "CLIENT", "KILL", "USER", "default")
	if !c.Killed || tt.C.CloseAfterReply {
		t.Fatal("USER default: caller must be skipped")
	}
	tt.Expect(integer(1), "CLIENT", "KILL", "ID", strconv.FormatInt(tt.C.ID, 10), "SKIPME", "no")
	if !tt.C.CloseAfterReply || tt.C.Killed {
		t.Fatal("SKIPME no: the caller must close after its reply")
	}
}

func TestServerClientKillSelfOldForm(t *testing.T) {
	tt := newTester(t)
	tt.Expect(okReply, "CLIENT", "KILL", "127.0.0.1:1")
	if !tt.C.CloseAfterReply {
		t.Fatal("CLIENT KILL of the caller's own address must close it after the reply")
	}
}

func TestServerClientKillBlocked(t *testing.T) {
	tt := newTester(t)
	c := tt.E.NewClient("10.0.0.2:5000", "127.0.0.1:6379")
	tt.E.Lock()
	x := &engine.Ctx{E: tt.E, C: c, W: &resp.Writer{}, Args: [][]byte{[]byte("blpop"), []byte("k"), []byte("0")}}
	x.Block([][]byte{[]byte("k")}, 0)
	tt.E.RegisterBlocked(x)
	tt.E.Unlock()
	tt.Expect(integer(1), "CLIENT", "KILL", "ID", strconv.FormatInt(c.ID, 10))
	if !c.Killed || c.Blocked != nil {
		t.Fatal("a killed blocked client must be released")
	}
	select {
	case <-c.WakeCh:
	default:
		t.Fatal("a killed blocked client must be woken")
	}
}

func TestServerCommandCountAndList(t *testing.T) {
	tt := newTester(t)
	tt.Expect(integer(int64(len(engine.Table))), "COMMAND", "COUNT")
	list := tt.Do("COMMAND", "LIST")
	n := 0
	for _, c := range engine.All() {
		n += 1 + len(c.Sub)
		if !strings.Contains(list, bulk(c.Name)) {
			t.Errorf("COMMAND LIST lacks %s", c.Name)
		}
	}
	if !strings.HasPrefix(list, "*"+strconv.Itoa(n)+"\r\n") {
		t.Errorf("COMMAND LIST has not %d entries: %.40q", n, list)
	}
	runSteps(t, tt, []step{
		cmd(array(bulk("client|getname"), bulk("client|setname")), "COMMAND", "LIST", "FILTERBY", "PATTERN", "client|[gs]etname"),
		cmd(array(bulk("config|resetstat"), bulk("config|rewrite")), "COMMAND", "LIST", "FILTERBY", "pattern", "CONFIG|RE*"),
		cmd(emptyList, "COMMAND", "LIST", "FILTERBY", "MODULE", "x"),
		cmd(emptyList, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"),
		cmd(errReply(engine.ErrSyntax), "COMMAND", "LIST", "FILTERBY"),
		cmd(errReply(engine.ErrSyntax), "COMMAND", "LIST", "FILTERBY", "foo", "bar"),
		cmd(errReply(engine.ErrSyntax), "COMMAND", "LIST", "FILTERBY", "PATTERN", "x", "y"),
		cmd(errReply(engine.ErrSyntax), "COMMAND", "LIST", "foo"),
		cmd(errReply("ERR wrong number of arguments for 'command|count' command"), "COMMAND", "COUNT", "x"),
	})
	if got := tt.Do("COMMAND", "LIST", "FILTERBY", "ACLCAT", "DANGEROUS"); !strings.Contains(got, bulk("flushall")) ||
		!strings.Contains(got, bulk("config|set")) || strings.Contains(got, bulk("dbsize")) {
		t.Errorf("ACLCAT dangerous: %q", got)
	}
}

func TestServerCommandInfoSplicesRedis(t *testing.T) {
	tt := newTester(t)
	// Redis 7.0.15's reply, byte for byte.
	dbsize := "*10\r\n$6\r\ndbsize\r\n:1\r\n*2\r\n+readonly\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@keyspace\r\n+@read\r\n+@fast\r\n" +
		"*2\r\n" + bulk("request_policy:all_shards") + bulk("response_policy:agg_sum") + "*0\r\n*0\r\n"
	tt.Expect("*1\r\n"+dbsize, "COMMAND", "INFO", "DBSIZE")
	tt.Expect("*3\r\n$-1\r\n"+dbsize+"$-1\r\n", "COMMAND", "INFO", "nosuch", "dbsize", "dbsize|x")
	for _, bad := range []string{"client|", "|list", "a|b|c", "", "client list", "client|nosuch"} {
		tt.Expect("*1\r\n$-1\r\n", "COMMAND", "INFO", bad)
	}
	const clientID = "*10\r\n$9\r\nclient|id\r\n:2\r\n*3\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n" +
		"*2\r\n+@slow\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n"
	tt.Expect("*1\r\n"+clientID, "COMMAND", "INFO", "CLIENT|ID")
	// A container lists the subcommands limitkv has, sorted.
	info := tt.Do("COMMAND", "INFO", "client")
	if !strings.HasPrefix(info, "*1\r\n*10\r\n$6\r\nclient\r\n:-2\r\n*0\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@slow\r\n*0\r\n*0\r\n*"+strconv.Itoa(len(admin.ClientCommand.Sub))+"\r\n") ||
		!strings.Contains(info, clientID) {
		t.Errorf("COMMAND INFO client = %q", info)
	}
	all := tt.Do("COMMAND")
	if all != tt.Do("COMMAND", "INFO") || !strings.HasPrefix(all, "*"+strconv.Itoa(len(engine.Table))+"\r\n") || !strings.Contains(all, dbsize) {
		t.Errorf("COMMAND = %.100q", all)
	}
}

func TestServerCommandDocs(t *testing.T) {
	tt := newTester(t)
	const dbsize = "$6\r\ndbsize\r\n*8\r\n$7\r\nsummary\r\n$50\r\nReturn the number of keys in the selected database\r\n" +
		"$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nserver\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n"
	tt.Expect("*2\r\n"+dbsize, "COMMAND", "DOCS", "dbsize")
	tt.Expect("*4\r\n"+dbsize+dbsize, "COMMAND", "DOCS", "DBSIZE", "nosuch", "dbsize")
	tt.Expect(emptyList, "COMMAND", "DOCS", "nosuch")
	docs := tt.Do("COMMAND", "DOCS", "config")
	if !strings.HasPrefix(docs, "*2\r\n$6\r\nconfig\r\n*10\r\n$7\r\nsummary\r\n") ||
		!strings.Contains(docs, "$11\r\nsubcommands\r\n*10\r\n$10\r\nconfig|get\r\n") {
		t.Errorf("COMMAND DOCS config = %q", docs)
	}
	all := tt.Do("COMMAND", "DOCS")
	if !strings.HasPrefix(all, "*"+strconv.Itoa(2*len(engine.Table))+"\r\n") || !strings.Contains(all, dbsize) {
		t.Errorf("COMMAND DOCS = %.100q", all)
	}
	// CLIENT SETINFO is Redis 7.2's, built from the table.
	tt.Expect("*2\r\n$14\r\nclient|setinfo\r\n*10\r\n$7\r\nsummary\r\n$54\r\nSets information specific to the client or connection.\r\n"+
		"$5\r\nsince\r\n$5\r\n7.2.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n"+
		"$9\r\narguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$4\r\nattr\r\n$4\r\ntype\r\n$5\r\noneof\r\n$9\r\narguments\r\n*2\r\n"+
		"*6\r\n$4\r\nname\r\n$7\r\nlibname\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$8\r\nLIB-NAME\r\n"+
		"*6\r\n$4\r\nname\r\n$6\r\nlibver\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$7\r\nLIB-VER\r\n",
		"COMMAND", "DOCS", "client|setinfo")
}

func TestServerCommandBuiltEntries(t *testing.T) {
	tt := newTester(t)
	engine.Register(&engine.Command{Name: "test.limit", Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast, FirstKey: 1, LastKey: 2, Step: 1,
		Group: "generic", Summary: "A test", Since: "0.1.0", Complexity: "O(1)", Handler: func(x *engine.Ctx) { x.W.OK() }})
	defer delete(engine.Table, "test.limit")
	tt.Expect("*1\r\n*10\r\n$10\r\ntest.limit\r\n:-3\r\n*3\r\n+write\r\n+denyoom\r\n+fast\r\n:1\r\n:2\r\n:1\r\n"+
		"*3\r\n+@keyspace\r\n+@write\r\n+@fast\r\n*0\r\n"+
		"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RW\r\n+update\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n"+
		"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n",
		"COMMAND", "INFO", "test.limit")
	tt.Expect("*2\r\n$10\r\ntest.limit\r\n*8\r\n$7\r\nsummary\r\n$6\r\nA test\r\n$5\r\nsince\r\n$5\r\n0.1.0\r\n$5\r\ngroup\r\n$7\r\ngeneric\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n",
		"COMMAND", "DOCS", "test.limit")
	tt.Expect(array(bulk("a"), bulk("b")), "COMMAND", "GETKEYS", "test.limit", "a", "b", "c")
	tt.Expect("*2\r\n*2\r\n$1\r\na\r\n*2\r\n+RW\r\n+update\r\n*2\r\n$1\r\nb\r\n*2\r\n+RW\r\n+update\r\n", "COMMAND", "GETKEYSANDFLAGS", "test.limit", "a", "b")
}

func TestServerCommandGetKeys(t *testing.T) {
	tt := newTester(t)
	runSteps(t, tt, []step{
		cmd(errReply("ERR wrong number of arguments for 'command|getkeys' command"), "COMMAND", "GETKEYS", "get"),
		cmd(errReply(admin.ErrInvalidCommand), "COMMAND", "GETKEYS", "nosuch", "a"),
		cmd(errReply(admin.ErrInvalidCommand), "COMMAND", "GETKEYS", "client", "x", "y"),
		cmd(errReply(admin.ErrGetKeysNoKeys), "COMMAND", "GETKEYS", "ping", "x"),
		cmd(errReply(admin.ErrGetKeysNoKeys), "COMMAND", "GETKEYS", "dbsize", "x"),
		cmd(errReply(admin.ErrGetKeysArity), "COMMAND", "GETKEYS", "get", "a", "b"),
		cmd(array(bulk("a")), "COMMAND", "GETKEYS", "GET", "a"),
		cmd(array(bulk("a"), bulk("b")), "COMMAND", "GETKEYS", "mset", "a", "1", "b", "2"),
		cmd(array(bulk("a"), bulk("b")), "COMMAND", "GETKEYS", "mset", "a", "1", "b"),
		cmd("*1\r\n*2\r\n$1\r\na\r\n*2\r\n+OW\r\n+update\r\n", "COMMAND", "GETKEYSANDFLAGS", "set", "a", "b"),
		cmd("*1\r\n*2\r\n$1\r\na\r\n*3\r\n+RW\r\n+access\r\n+update\r\n", "COMMAND", "GETKEYSANDFLAGS", "set", "a", "b", "EX", "1", "get"),
		cmd(emptyList, "COMMAND", "GETKEYS", "eval", "s", "0"),
		cmd(emptyList, "COMMAND", "GETKEYS", "eval", "s", "x"),
		cmd(array(bulk("k1"), bulk("k2")), "COMMAND", "GETKEYS", "eval", "s", "2", "k1", "k2", "a"),
		cmd(array(bulk("k")), "COMMAND", "GETKEYS", "object", "encoding", "k"),
		cmd(errReply("ERR wrong number of arguments for 'command|help' command"), "COMMAND", "HELP", "x"),
	})
	if h := tt.Do("COMMAND", "HELP"); !strings.HasPrefix(h, "*21\r\n+COMMAND <subcommand>") {
		t.Errorf("COMMAND HELP = %q", h)
	}
	// Key specs of other kinds, as Redis's getKeysUsingKeySpecs reads them.
	args := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	zunion := []keyspec.KeySpec{
		{Flags: []string{"OW"}, BsIndex: 1, FkRange: true, Step: 1},
		{Flags: []string{"RO"}, BsIndex: 2, KeyNumIdx: 0, FirstKey: 1, Step: 1},
	}
	keys, ok := keyspec.FromSpecs(zunion, args("zunionstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"))
	if !ok || len(keys) != 3 || keys[0].Pos != 1 || keys[1].Pos != 3 || keys[2].Pos != 4 {
		t.Errorf("keynum spec: %v %v", keys, ok)
	}
	if _, ok := keyspec.FromSpecs(zunion, args("zunionstore", "d", "5", "a")); ok {
		t.Error("numkeys past the end must fail")
	}
	keyword := []keyspec.KeySpec{{Flags: []string{"RO"}, BsKeyword: "STREAMS", BsStartFrom: 1, FkRange: true, LastKey: -1, Step: 1, Limit: 2}}
	keys, ok = keyspec.FromSpecs(keyword, args("xread", "COUNT", "2", "STREAMS", "s1", "s2", "0", "0"))
	if !ok || len(keys) != 2 || keys[0].Pos != 4 || keys[1].Pos != 5 {
		t.Errorf("keyword spec: %v %v", keys, ok)
	}
}

// TestServerCommandDocsCoverage fails when a command in the table has no
// documentation: commands Redis has are documented from the generated data
// (regenerate it with go generate if Redis gained one), and the others need
// Summary, Since, Group and Complexity. It also checks that the table's arity
// agrees with Redis's, since the dispatcher enforces the table's.
func TestServerCommandDocsCoverage(t *testing.T) {
	var check func(c *engine.Command)
	check = func(c *engine.Command) {
		if d, ok := engine.RedisDocs[c.Name]; ok {
			v, _ := engine.ParseRESP(d.Info[strings.Index(d.Info, "\r\n")+2+len(c.Name)+2:])
			if int(v.N) != c.Arity {
				t.Errorf("%s: arity %d, Redis %s says %d", c.Name, c.Arity, engine.RedisDocsVersion, v.N)
			}
		} else if c.Summary == "" || c.Since == "" || c.Group == "" || c.Complexity == "" {
			t.Errorf("%s is not a Redis %s command and lacks Summary/Since/Group/Complexity for COMMAND DOCS", c.Name, engine.RedisDocsVersion)
		}
		for _, s := range c.Sub {
			check(s)
		}
	}
	for _, c := range engine.All() {
		check(c)
	}
}

// TestServerCommandDocsGenerated checks the generated data's shape: every
// entry parses as the nine COMMAND INFO elements and docsLen map elements.
func TestServerCommandDocsGenerated(t *testing.T) {
	if len(engine.RedisDocs) < 300 {
		t.Fatalf("only %d generated entries", len(engine.RedisDocs))
	}
	names := make([]string, 0, len(engine.RedisDocs))
	for n := range engine.RedisDocs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := engine.RedisDocs[n]
		count := 0
		for pos := 0; pos < len(d.Info); count++ {
			_, m := engine.ParseRESP(d.Info[pos:])
			pos += m
		}
		if count != 9 || !strings.HasPrefix(d.Info, bulk(n)) {
			t.Errorf("%s: info has %d elements", n, count)
		}
		count = 0
		for pos := 0; pos < len(d.Docs); count++ {
			_, m := engine.ParseRESP(d.Docs[pos:])
			pos += m
		}
		if count != d.DocsLen || !strings.HasPrefix(d.Docs, bulk("summary")) {
			t.Errorf("%s: docs has %d elements, docsLen %d", n, count, d.DocsLen)
		}
	}
}

func cfgErr(arg, msg string) string {
	return errReply("ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + msg)
}

func TestServerConfigGet(t *testing.T) {
	tt := newTester(t)
	pair := func(k, v string) []string { return []string{bulk(k), bulk(v)} }
	arr := func(pairs ...[]string) string {
		var all []string
		for _, p := range pairs {
			all = append(all, p...)
		}
		return array(all...)
	}
	runSteps(t, tt, []step{
		cmd(arr(pair("port", "6379")), "CONFIG", "GET", "port"),
		cmd(arr(pair("PORT", "6379")), "CONFIG", "GET", "PORT", "port"),
		cmd(arr(pair("bind", "127.0.0.1")), "CONFIG", "GET", "bind"),
		cmd(arr(pair("maxmemory", "0")), "CONFIG", "GET", "maxmemory"),
		cmd(arr(pair("maxmemory-policy", "noeviction")), "CONFIG", "GET", "maxmemory-policy"),
		cmd(arr(pair("proto-max-bulk-len", "536870912")), "CONFIG", "GET", "proto-max-bulk-len"),
		cmd(arr(pair("client-query-buffer-limit", "1073741824")), "CONFIG", "GET", "client-query-buffer-limit"),
		cmd(arr(pair("databases", "16"), pair("save", ""), pair("appendonly", "no")), "CONFIG", "GET", "databases", "save", "appendonly"),
		cmd(arr(pair("requirepass", ""), pair("protected-mode", "yes"), pair("timeout", "0"), pair("maxclients", "10000")),
			"CONFIG", "GET", "requirepass", "protected-mode", "timeout", "maxclients"),
		cmd(arr(pair("zset-max-listpack-entries", "128"), pair("zset-max-ziplist-entries", "128"),
			pair("zset-max-listpack-value", "64"), pair("zset-max-ziplist-value", "64")), "CONFIG", "GET", "zset-max-*"),
		cmd(arr(pair("lua-time-limit", "5000"), pair("busy-reply-threshold", "5000")), "CONFIG", "GET", "LUA*", "busy-reply-threshold", "lua-time-limit"),
		cmd(arr(pair("bind", "127.0.0.1")), "CONFIG", "GET", "[bp]ind"),
		cmd(emptyList, "CONFIG", "GET", "nosuch", "no*such"),
		cmd(errReply("ERR wrong number of arguments for 'config|get' command"), "CONFIG", "GET"),
	})
}

func TestServerConfigSet(t *testing.T) {
	tt := newTester(t)
	cfg := tt.E.Cfg
	runSteps(t, tt, []step{
		cmd(errReply("ERR Unknown option or number of arguments for CONFIG SET - 'foo'"), "CONFIG", "SET", "foo", "bar"),
		cmd(errReply(engine.ErrSyntax), "CONFIG", "SET", "port", "1", "2"),
		cmd(errReply("ERR wrong number of arguments for 'config|set' command"), "CONFIG", "SET", "port"),
		cmd(cfgErr("DATABASES", "can't set immutable config"), "CONFIG", "SET", "DATABASES", "3"),
		cmd(cfgErr("databases", "can't set immutable config"), "CONFIG", "SET", "databases", "16"),
		cmd(cfgErr("TIMEOUT", "duplicate parameter"), "CONFIG", "SET", "timeout", "1", "TIMEOUT", "2"),
		cmd(cfgErr("databases", "can't set immutable config"), "CONFIG", "SET", "timeout", "1", "databases", "3", "foo", "1"),
		cmd(errReply("ERR Unknown option or number of arguments for CONFIG SET - 'foo'"), "CONFIG", "SET", "foo", "1", "databases", "3"),
		cmd(errReply("ERR Unknown option or number of arguments for CONFIG SET - 'foo'"), "CONFIG", "SET", "timeout", "x", "foo", "1"),
		cmd(cfgErr("timeout", "argument must be between 0 and 2147483647 inclusive"), "CONFIG", "SET", "TIMEOUT", "-1"),
		cmd(cfgErr("timeout", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "timeout", "05"),
		cmd(cfgErr("timeout", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "timeout", "9223372036854775808"),
		cmd(cfgErr("maxclients", "argument must be between 1 and 4294967295 inclusive"), "CONFIG", "SET", "maxclients", "0"),
		cmd(cfgErr("maxclients", "argument must be between 1 and 4294967295 inclusive"), "CONFIG", "SET", "maxclients", "-1"),
		cmd(cfgErr("maxmemory", "argument must be a memory value"), "CONFIG", "SET", "maxmemory", "10x"),
		cmd(cfgErr("maxmemory", "argument must be a memory value"), "CONFIG", "SET", "maxmemory", "-1"),
		cmd(cfgErr("maxmemory", "argument must be a memory value"), "CONFIG", "SET", "maxmemory", "1.5mb"),
		cmd(cfgErr("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive"), "CONFIG", "SET", "proto-max-bulk-len", "100"),
		cmd(cfgErr("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive"), "CONFIG", "SET", "proto-max-bulk-len", "99999999999999999999"),
		cmd(cfgErr("client-query-buffer-limit", "argument must be between 1048576 and 9223372036854775807 inclusive"), "CONFIG", "SET", "client-query-buffer-limit", "99999999999999999999"),
		cmd(cfgErr("zset-max-ziplist-entries", "argument must be between 0 and 9223372036854775807 inclusive"), "CONFIG", "SET", "ZSET-MAX-ZIPLIST-ENTRIES", "-1"),
		cmd(cfgErr("lua-time-limit", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "LUA-TIME-LIMIT", "x"),
		cmd(cfgErr("protected-mode", "argument must be 'yes' or 'no'"), "CONFIG", "SET", "protected-mode", "maybe"),
		cmd(cfgErr("maxmemory-policy", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"), "CONFIG", "SET", "maxmemory-policy", "foo"),
		cmd(okReply, "CONFIG", "SET", "maxmemory-policy", "ALLKEYS-LRU"),
		cmd(array(bulk("maxmemory-policy"), bulk("allkeys-lru")), "CONFIG", "GET", "maxmemory-policy"),
		cmd(okReply, "CONFIG", "SET", "maxmemory-policy", "noeviction"),
		cmd(cfgErr("maxmemory-samples", "argument must be between 1 and 2147483647 inclusive"), "CONFIG", "SET", "maxmemory-samples", "0"),
		cmd(cfgErr("maxmemory-eviction-tenacity", "argument must be between 0 and 100 inclusive"), "CONFIG", "SET", "maxmemory-eviction-tenacity", "101"),
		cmd(cfgErr("lfu-log-factor", "argument must be between 0 and 2147483647 inclusive"), "CONFIG", "SET", "lfu-log-factor", "-1"),
		cmd(cfgErr("lfu-decay-time", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "lfu-decay-time", "x"),
		cmd(cfgErr("port", "argument must be between 0 and 65535 inclusive"), "CONFIG", "SET", "port", "70000"),
		cmd(cfgErr("port", "Unable to listen on this port. Check server logs."), "CONFIG", "SET", "port", "6380"),
		cmd(okReply, "CONFIG", "SET", "port", "6379"),
		cmd(cfgErr("bind", "Failed to bind to specified addresses."), "CONFIG", "SET", "bind", "0.0.0.0"),
		cmd(okReply, "CONFIG", "SET", "bind", "127.0.0.1"),
		cmd(cfgErr("save", "Invalid save parameters"), "CONFIG", "SET", "save", "x y"),
		cmd(cfgErr("save", "Invalid save parameters"), "CONFIG", "SET", "save", "3600 1 300"),
		cmd(cfgErr("save", "Invalid save parameters"), "CONFIG", "SET", "save", "0 1"),
		cmd(okReply, "CONFIG", "SET", "save", "3600 1"),
		cmd(array(bulk("save"), bulk("3600 1")), "CONFIG", "GET", "save"),
		cmd(okReply, "CONFIG", "SET", "save", ""),
		cmd(cfgErr("appendonly", "argument must be 'yes' or 'no'"), "CONFIG", "SET", "appendonly", "maybe"),
		cmd(cfgErr("appendfsync", "argument(s) must be one of the following: everysec, always, no"), "CONFIG", "SET", "appendfsync", "sometimes"),
		cmd(okReply, "CONFIG", "SET", "appendonly", "NO"),
	})
	if cfg.Timeout.Load() != 0 || cfg.MaxClients.Load() != 10000 {
		t.Fatal("a failed CONFIG SET changed settings")
	}
	// Atomic: a later bad value leaves earlier good ones unset.
	tt.Expect(cfgErr("maxclients", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "timeout", "5", "maxclients", "x")
	tt.Expect(cfgErr("port", "Unable to listen on this port. Check server logs."), "CONFIG", "SET", "timeout", "5", "port", "1")
	if cfg.Timeout.Load() != 0 {
		t.Fatal("CONFIG SET is not atomic")
	}
	runSteps(t, tt, []step{
		cmd(okReply, "CONFIG", "SET", "timeout", "5", "maxclients", "20", "maxmemory", "1Kb", "maxmemory-policy", "VOLATILE-TTL"),
		cmd(okReply, "CONFIG", "SET", "proto-max-bulk-len", "1mb", "client-query-buffer-limit", "2mb", "protected-mode", "NO"),
		cmd(okReply, "CONFIG", "SET", "zset-max-ziplist-entries", "100", "zset-max-listpack-entries", "200"),
		cmd(okReply, "CONFIG", "SET", "zset-max-listpack-value", "1", "lua-time-limit", "100", "requirepass", "s3cret"),
	})
	if cfg.Timeout.Load() != 5 || cfg.MaxClients.Load() != 20 || cfg.MaxMemory.Load() != 1024 || *cfg.MaxMemoryPolicy.Load() != "volatile-ttl" ||
		cfg.ProtoMaxBulkLen.Load() != 1<<20 || cfg.QueryBufLimit.Load() != 2<<20 || cfg.ProtectedMode.Load() ||
		cfg.ZsetMaxListpackEntries.Load() != 200 || cfg.ZsetMaxListpackValue.Load() != 1 || cfg.BusyThreshold.Load() != 100 || *cfg.RequirePass.Load() != "s3cret" {
		t.Fatal("CONFIG SET did not store every value")
	}
	tt.Expect(array(bulk("maxmemory-policy"), bulk("volatile-ttl")), "CONFIG", "GET", "maxmemory-policy")
	tt.Expect(array(bulk("protected-mode"), bulk("no")), "CONFIG", "GET", "protected-mode")
	tt.Expect(okReply, "CONFIG", "SET", "maxmemory", "")
	tt.Expect(array(bulk("maxmemory"), bulk("0")), "CONFIG", "GET", "maxmemory")
	tt.Expect(okReply, "CONFIG", "SET", "maxmemory", "17179869184gb") // wraps to 0, as in Redis 7.0
	tt.Expect(array(bulk("maxmemory"), bulk("0")), "CONFIG", "GET", "maxmemory")
}

func TestServerMemtoull(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"kb", 0, true}, {"1", 1, true}, {"1b", 1, true}, {"1B", 1, true},
		{"1k", 1000, true}, {"1KB", 1024, true}, {"2m", 2e6, true}, {"2mb", 2 << 20, true}, {"3g", 3e9, true}, {"3Gb", 3 << 30, true},
		{"99999999999999999999", math.MaxUint64, true}, {"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false},
		{"1.5mb", 0, false}, {"1tb", 0, false}, {"1 kb", 0, false},
	} {
		got, ok := config.Memtoull(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("memtoull(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestServerConfigOther(t *testing.T) {
	tt := newTester(t)
	tt.E.Stats.Commands = 50
	tt.E.Stats.KeyspaceHits = 3
	tt.E.Stats.NetInput.Store(100)
	tt.E.DB(2).Expired = 4
	runSteps(t, tt, []step{
		cmd(okReply, "CONFIG", "RESETSTAT"),
		cmd(errReply("ERR wrong number of arguments for 'config|resetstat' command"), "CONFIG", "RESETSTAT", "x"),
		cmd(errReply(admin.ErrNoConfigFile), "CONFIG", "REWRITE"),
		cmd(errReply("ERR wrong number of arguments for 'config|help' command"), "CONFIG", "HELP", "x"),
		cmd(errReply("ERR wrong number of arguments for 'config' command"), "CONFIG"),
		cmd(errReply("ERR unknown subcommand 'FOO'. Try CONFIG HELP."), "CONFIG", "FOO"),
	})
	if s := &tt.E.Stats; s.KeyspaceHits != 0 || s.NetInput.Load() != 0 || tt.E.DB(2).Expired != 0 || s.Commands > 5 {
		t.Errorf("RESETSTAT left %+v", s)
	}
	if h := tt.Do("CONFIG", "HELP"); !strings.HasPrefix(h, "*11\r\n+CONFIG <subcommand>") || !strings.HasSuffix(h, "+    Prints this help.\r\n") {
		t.Errorf("CONFIG HELP = %q", h)
	}
}

// infoSectionsOf splits an INFO reply into section titles and their fields.
func infoSectionsOf(t *testing.T, reply string) (titles []string, fields map[string]map[string]string) {
	t.Helper()
	body := bulkBody(t, reply)
	fields = map[string]map[string]string{}
	cur := ""
	for _, l := range strings.Split(body, "\r\n") {
		switch {
		case strings.HasPrefix(l, "# "):
			cur = l[2:]
			titles = append(titles, cur)
			fields[cur] = map[string]string{}
		case l == "":
		default:
			k, v, ok := strings.Cut(l, ":")
			if !ok || cur == "" {
				t.Fatalf("bad INFO line %q", l)
			}
			fields[cur][k] = v
		}
	}
	return titles, fields
}

func TestServerInfo(t *testing.T) {
	tt := newTester(t)
	tt.E.DB(0).Add([]byte("a"), []byte("1"))
	e := tt.E.DB(0).Add([]byte("b"), []byte("1"))
	tt.E.DB(0).SetExpiry(e, tt.Clock.Now().UnixMilli()+100_000)
	tt.E.DB(3).Add([]byte("c"), []byte("1"))
	tt.Clock.Add(90 * time.Second)
	// As Redis 7.0: Errorstats is a default section, Commandstats and
	// Latencystats come with all/everything or by name.
	def := "Server,Clients,Memory,Persistence,Stats,Replication,CPU,Modules,Errorstats,Cluster,Keyspace"
	all := "Server,Clients,Memory,Persistence,Stats,Replication,CPU,Modules,Commandstats,Errorstats,Latencystats,Cluster,Keyspace"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"INFO"}, def}, {[]string{"INFO", "default"}, def}, {[]string{"INFO", "ALL"}, all}, {[]string{"INFO", "everything"}, all},
		{[]string{"INFO", "default", "commandstats"}, strings.Replace(def, "Modules,", "Modules,Commandstats,", 1)},
	} {
		titles, _ := infoSectionsOf(t, tt.Do(c.args...))
		if strings.Join(titles, ",") != c.want {
			t.Errorf("%v: sections %v", c.args, titles)
		}
	}
	r := tt.Do("INFO", "keyspace", "SERVER", "keyspace")
	titles, f := infoSectionsOf(t, r)
	if strings.Join(titles, ",") != "Server,Keyspace" || !strings.Contains(r, "\r\n\r\n# Keyspace\r\n") || strings.HasSuffix(r, "\r\n\r\n\r\n") {
		t.Fatalf("INFO keyspace server: %q", r)
	}
	s := f["Server"]
	if s["redis_version"] != config.RedisVersion || s["limitkv_version"] != config.LimitkvVersion || s["redis_mode"] != "standalone" ||
		s["tcp_port"] != "6379" || s["uptime_in_seconds"] != "90" || s["run_id"] != tt.E.RunID || s["server_time_usec"] != strconv.FormatInt(tt.Clock.Now().UnixMicro(), 10) {
		t.Errorf("server section %v", s)
	}
	ks := f["Keyspace"]
	if !strings.HasPrefix(ks["db0"], "keys=2,expires=1,avg_ttl=") || ks["db3"] != "keys=1,expires=0,avg_ttl=0" || len(ks) != 2 {
		t.Errorf("keyspace %v", ks)
	}
	if avg, _ := strconv.Atoi(strings.TrimPrefix(ks["db0"], "keys=2,expires=1,avg_ttl=")); avg != 10_000 {
		t.Errorf("avg_ttl %v", ks["db0"])
	}
	tt.Expect(bulk(""), "INFO", "nosuch")
	tt.Expect(bulk("# Cluster\r\ncluster_enabled:0\r\n"), "INFO", "cluster")
	tt.Expect(bulk("# Modules\r\n"), "INFO", "modules")
	tt.Expect(bulk("# Keyspace\r\n"+"db0:"+ks["db0"]+"\r\n"+"db3:keys=1,expires=0,avg_ttl=0\r\n"), "INFO", "keyspace")
	_, f = infoSectionsOf(t, tt.Do("INFO", "clients", "memory", "stats"))
	if f["Clients"]["connected_clients"] != "1" || f["Clients"]["maxclients"] != "10000" || f["Memory"]["maxmemory_policy"] != "noeviction" ||
		f["Memory"]["used_memory"] == "" || f["Stats"]["total_commands_processed"] == "" {
		t.Errorf("sections %v", f)
	}
}

func TestServerBytesToHuman(t *testing.T) {
	for n, want := range map[uint64]string{0: "0B", 1023: "1023B", 1024: "1.00K", 1065488: "1.02M", 25276502016: "23.54G", 1 << 40: "1.00T"} {
		if got := admin.BytesToHuman(n); got != want {
			t.Errorf("bytesToHuman(%d) = %q, want %q", n, got, want)
		}
	}
}

// Prefetch reads the first key of each command in a batch and must change
// nothing, whatever the batch holds: commands without keys, unknown ones,
// EVAL with or without keys, too short argument lists, and more commands
// than it looks at.
func TestPrefetchChangesNothing(t *testing.T) {
	tt := newTester(t)
	tt.Do("ZADD", "z", "1", "a")
	tt.Do("SET", "s", "v")
	tt.Do("PEXPIRE", "s", "36000000")
	var batch [][][]byte
	add := func(args ...string) {
		var cmd [][]byte
		for _, a := range args {
			cmd = append(cmd, []byte(a))
		}
		batch = append(batch, cmd)
	}
	add("PING")
	add("NOSUCH", "z")
	add("GET")
	add("ZCARD", "z")
	add("EVAL", "return 1", "0")
	add("EVALSHA", "x", "1", "z", "y")
	add("EVAL", "return 1", "x", "s")
	add("OBJECT", "ENCODING", "z")
	for i := 0; i < 40; i++ {
		add("GET", "k"+strconv.Itoa(i))
	}
	state := func() string {
		db := tt.E.DB(0)
		var b strings.Builder
		for _, k := range []string{"z", "s"} {
			e := db.Peek([]byte(k))
			fmt.Fprintf(&b, "%s lru %d exp %d; ", k, e.LRU(), e.Expiry())
		}
		fmt.Fprintf(&b, "len %d rehashing %v; ", db.Len(), db.Rehashing())
		return b.String() + tt.Do("ZRANGE", "z", "0", "-1", "WITHSCORES") + tt.Do("GET", "s")
	}
	before := state()
	tt.Clock.Add(time.Hour) // an access recorded now would show
	tt.E.Lock()
	tt.E.Prefetch(tt.C, batch)
	tt.E.Prefetch(tt.C, batch[:1])
	tt.E.Unlock()
	// PrefetchEach takes one command per client: some in another
	// database, one in a transaction, more clients than it looks at.
	other := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
	other.DB = 1
	inMulti := tt.E.NewClient("127.0.0.1:3", "127.0.0.1:6379")
	tt.E.Lock()
	inMulti.Multi = &engine.MultiState{}
	var cls []*engine.Client
	for i := range batch {
		cls = append(cls, []*engine.Client{tt.C, other, inMulti}[i%3])
	}
	tt.E.PrefetchEach(cls, batch)
	tt.E.PrefetchEach(cls[:1], batch[:1])
	tt.E.PrefetchEach(nil, nil)
	tt.E.Unlock()
	if after := state(); after != before {
		t.Fatalf("state after Prefetch:\n%s\nbefore:\n%s", after, before)
	}
	tt.Expect(":1\r\n", "ZCARD", "z")
}

// The first key Prefetch touches is the first key COMMAND GETKEYS finds
// from Redis's key specs, for commands with a key count too.
func TestFirstKeyMatchesKeySpecs(t *testing.T) {
	for _, tc := range [][]string{
		{"GET", "k"},
		{"RL.CHECK", "k", "*", "1000", "5", "*"},
		{"EVAL", "return 1", "2", "k", "k2", "a"},
		{"EVALSHA", "abc", "1", "k"},
		{"EVAL_RO", "return 1", "1", "k"},
		{"ZMPOP", "2", "k", "k2", "MIN"},
		{"BZMPOP", "0", "1", "k", "MAX"},
		{"ZUNION", "2", "k", "k2"},
		{"ZINTERCARD", "1", "k"},
		{"ZUNIONSTORE", "d", "1", "k"},
	} {
		args := make([][]byte, len(tc))
		for i, a := range tc {
			args[i] = []byte(a)
		}
		cmd := engine.Lookup(args[0])
		if cmd == nil {
			t.Errorf("%s: not in the table", tc[0])
			continue
		}
		specs, _ := engine.CommandKeySpecs(cmd)
		refs, ok := keyspec.FromSpecs(specs, args)
		if !ok || len(refs) == 0 {
			t.Fatalf("%v: no keys from the key specs", tc)
		}
		got, ok := cmd.PrefetchKey(args)
		if want := tc[refs[0].Pos]; !ok || string(got) != want {
			t.Errorf("%v: firstKey %q %v, want %q", tc, got, ok, want)
		}
	}
	for _, tc := range [][]string{{"EVAL", "return 1", "0"}, {"EVAL", "return 1", "x", "k"}, {"PING"}, {"ZMPOP", "1"}} {
		args := make([][]byte, len(tc))
		for i, a := range tc {
			args[i] = []byte(a)
		}
		if k, ok := engine.Lookup(args[0]).PrefetchKey(args); ok {
			t.Errorf("%v: firstKey %q, want none", tc, k)
		}
	}
}

// The engine's lookup cache answers what Lookup does, whatever came
// before: a name repeated, another case, another command, an unknown
// name, a name longer than the cache holds.
func TestLookupCache(t *testing.T) {
	tt := newTester(t)
	long := strings.Repeat("x", 40)
	tt.E.Lock()
	defer tt.E.Unlock()
	for _, name := range []string{"PING", "PING", "ping", "Get", "GET", "nosuch", "GET", long, long, "rl.check", "RL.CHECK", "", "PING"} {
		if got, want := tt.E.Lookup([]byte(name)), engine.Lookup([]byte(name)); got != want {
			t.Errorf("lookup(%q) = %v, want %v", name, got, want)
		}
	}
}
