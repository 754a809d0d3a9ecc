package conformance

import (
	"bufio"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
)

// debugPair starts a private redis-server and a private limitkv with
// enable-debug-command set to mode (the shared pair keeps Redis's default,
// no), each in its own temporary directory. It returns their addresses.
func debugPair(t *testing.T, mode string, extra ...string) (rdsAddr, lkvAddr string) {
	t.Helper()
	requireServers(t)
	_, p := startRedisOn(t, t.TempDir(), append([]string{"--enable-debug-command", mode}, extra...)...)
	cfg := limitkv.Config{"enable-debug-command": mode}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i] == "--protected-mode" {
			cfg["protected-mode"] = extra[i+1]
		}
	}
	srv, err := limitkv.Start(limitkv.Options{Dir: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return p.Addr, srv.Addr()
}

// runCasesOn is runCases against another pair of servers: the runner dials
// the package's addresses, which are swapped for the duration (tests run
// one at a time).
func runCasesOn(t *testing.T, rdsAddr, lkvAddr string, cases []Case) {
	t.Helper()
	oldR, oldL := redisAddr, limitkvAddr
	redisAddr, limitkvAddr = rdsAddr, lkvAddr
	defer func() { redisAddr, limitkvAddr = oldR, oldL }()
	runCases(t, cases)
}

// With the default (no), DEBUG is refused with Redis's text, after the
// arity check, and a refused DEBUG dooms a transaction.
func TestDebugDisabled(t *testing.T) {
	runCases(t, []Case{
		{Name: "refused", Cmds: []Cmd{C("DEBUG", "DIGEST"), C("DEBUG", "HELP"), C("debug", "nosuch"), C("DEBUG", "SLEEP", "0")}},
		{Name: "arity first", Cmds: []Cmd{C("DEBUG")}},
		{Name: "in multi", Cmds: []Cmd{C("MULTI"), C("DEBUG", "DIGEST"), C("SET", "k", "v"), C("EXEC"), C("GET", "k")}},
		{Name: "in script", Cmds: []Cmd{C("EVAL", "return redis.pcall('debug','digest')", "0")}},
		{Name: "config", Cmds: []Cmd{
			C("CONFIG", "GET", "enable-debug-command"),
			C("CONFIG", "SET", "enable-debug-command", "yes"),
			C("CONFIG", "SET", "enable-debug-command", "bogus"),
		}},
		{Name: "command info", Cmds: []Cmd{C("COMMAND", "INFO", "debug"), C("COMMAND", "DOCS", "debug")}},
	})
}

// dialFrom connects to addr from a given loopback source address.
func dialFrom(t *testing.T, name, addr, src string) *RawConn {
	t.Helper()
	d := net.Dialer{Timeout: dialTimeout, LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial %s from %s: %v", addr, src, err)
	}
	c := &RawConn{Name: name, Addr: addr, Timeout: replyTimeout, nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}
	t.Cleanup(func() { c.Close() })
	return c
}

// "local" admits 127.0.0.1 and refuses any other source, loopback
// addresses such as 127.0.0.2 included (islocalClient compares the text).
func TestDebugLocal(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "local", "--protected-mode", "no")
	for _, src := range []string{"127.0.0.1", "127.0.0.2"} {
		rds, lkv := dialFrom(t, "redis", rdsAddr, src), dialFrom(t, "limitkv", lkvAddr, src)
		for _, cmd := range [][]string{{"DEBUG", "DIGEST"}, {"DEBUG", "PROTOCOL", "integer"}, {"CONFIG", "GET", "enable-debug-command"}} {
			a, b := rds.MustDo(t, cmd...), lkv.MustDo(t, cmd...)
			if string(a.Raw) != string(b.Raw) {
				t.Errorf("from %s, %v: redis %q, limitkv %q", src, cmd, a.Raw, b.Raw)
			}
		}
	}
}

func TestDebugCommands(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "yes")
	runCasesOn(t, rdsAddr, lkvAddr, []Case{
		{Name: "help", Cmds: []Cmd{C("DEBUG", "HELP"), C("debug", "help"), C("DEBUG", "HELP", "x")}},
		{Name: "unknown", Cmds: []Cmd{
			C("DEBUG", "nosuch"), C("DEBUG", "nosuch", "a", "b"), C("DEBUG", strings.Repeat("x", 200)),
			C("DEBUG", "digest", "x"), C("DEBUG", "object"), C("DEBUG", "object", "a", "b"), C("DEBUG", "log"),
			C("DEBUG", "sleep"), C("DEBUG", "protocol"), C("DEBUG", "populate"), C("DEBUG", "populate", "1", "a", "1", "x"),
			C("DEBUG", "replybuffer", "resizing"), C("DEBUG", "change-repl-id", "x"), C("DEBUG", "pause-cron"),
			C("DEBUG", "clusterlink", "kill", "to"), C("DEBUG", "clusterlink", "nope", "to", "x"),
		}},
		{Name: "protocol", Cmds: []Cmd{
			C("DEBUG", "PROTOCOL", "string"), C("DEBUG", "PROTOCOL", "integer"), C("DEBUG", "PROTOCOL", "double"),
			C("DEBUG", "PROTOCOL", "bignum"), C("DEBUG", "PROTOCOL", "null"), C("DEBUG", "PROTOCOL", "array"),
			C("DEBUG", "PROTOCOL", "set"), C("DEBUG", "PROTOCOL", "map"), C("DEBUG", "PROTOCOL", "attrib"),
			C("DEBUG", "PROTOCOL", "true"), C("DEBUG", "PROTOCOL", "false"), C("DEBUG", "PROTOCOL", "verbatim"),
			C("DEBUG", "PROTOCOL", "VERBATIM"), C("DEBUG", "PROTOCOL", "nope"),
		}},
		// RESP3's push comes with the real reply after it: two replies.
		{Name: "protocol push", RESP2Only: "the RESP3 form is the case below", Cmds: []Cmd{C("DEBUG", "PROTOCOL", "push")}},
		{Name: "protocol push resp3", RESP2Only: "sends HELLO 3 itself", Cmds: []Cmd{
			C("HELLO", "3").Ignore(), C("DEBUG", "PROTOCOL", "push").Replies(2), C("DEBUG", "PROTOCOL", "attrib"), C("PING"),
		}},
		{Name: "switches", Cmds: []Cmd{
			C("DEBUG", "SLEEP", "0"), C("DEBUG", "SLEEP", "abc"), C("DEBUG", "SLEEP", "0.01"), C("DEBUG", "SLEEP", "-1"),
			C("DEBUG", "SET-ACTIVE-EXPIRE", "1"), C("DEBUG", "SET-ACTIVE-EXPIRE", "x"), C("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
			C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"), C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1kb"),
			C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb"), C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4gb"),
			C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "-1"), C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "x"),
			C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"),
			C("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "0"), C("DEBUG", "AOF-FLUSH-SLEEP", "0"),
			C("DEBUG", "REPLICATE", "SET", "k", "v"), C("GET", "k"),
			C("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"), C("DEBUG", "PAUSE-CRON", "0"),
			C("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "never"), C("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "reset"),
			C("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "100"), C("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "x"),
			C("DEBUG", "REPLYBUFFER", "RESIZING", "1"), C("DEBUG", "REPLYBUFFER", "other", "1"),
			C("DEBUG", "DROP-CLUSTER-PACKET-FILTER", "-1"), C("DEBUG", "DROP-CLUSTER-PACKET-FILTER", "x"),
			C("DEBUG", "CLUSTERLINK", "KILL", "to", "abc"), C("DEBUG", "CLIENT-EVICTION"),
			C("DEBUG", "CONFIG-REWRITE-FORCE-ALL"),
			C("DEBUG", "LOG", "hello from the conformance suite"), C("DEBUG", "LEAK", "x"),
			C("DEBUG", "ERROR", "MYERR something\r\nbad"), C("DEBUG", "ERROR", ""),
			C("DEBUG", "STRINGMATCH-TEST").Timeout(20 * time.Second),
			C("DEBUG", "RESTART", "x"), C("DEBUG", "CRASH-AND-RECOVER", "x"),
		}},
		{Name: "key errors", Cmds: []Cmd{
			C("DEBUG", "OBJECT", "nokey"), C("DEBUG", "SDSLEN", "nokey"), C("DEBUG", "LISTPACK", "nokey"),
			C("DEBUG", "QUICKLIST", "nokey"), C("DEBUG", "HTSTATS-KEY", "nokey"),
			C("SET", "int", "12"), C("DEBUG", "SDSLEN", "int"), C("DEBUG", "LISTPACK", "int"), C("DEBUG", "QUICKLIST", "int"),
			C("DEBUG", "HTSTATS-KEY", "int"),
			C("HSET", "h", "a", "b"), C("DEBUG", "LISTPACK", "h"), C("DEBUG", "QUICKLIST", "h"), C("DEBUG", "HTSTATS-KEY", "h"),
			C("RPUSH", "l", "a", "b"), C("DEBUG", "QUICKLIST", "l"), C("DEBUG", "QUICKLIST", "l", "1"), C("DEBUG", "LISTPACK", "l"),
			C("ZADD", "z", "1", "a"), C("DEBUG", "LISTPACK", "z"),
			C("SET", "gone", "v", "PX", "1"), Sleep(20 * time.Millisecond),
			C("DEBUG", "LISTPACK", "gone"), C("DEBUG", "HTSTATS", "x"), C("DEBUG", "HTSTATS", "16"), C("DEBUG", "HTSTATS", "-1"),
		}},
		{Name: "populate", Cmds: []Cmd{
			C("DEBUG", "POPULATE", "10"), C("DBSIZE"), C("GET", "key:3"), C("OBJECT", "ENCODING", "key:3"),
			C("DEBUG", "POPULATE", "5", "p", "3"), C("GET", "p:4"), C("MGET", "p:0", "p:1"),
			C("DEBUG", "POPULATE", "3", "big", "60"), C("STRLEN", "big:2"), C("OBJECT", "ENCODING", "big:2"), C("GET", "big:1"),
			C("SET", "key:0", "mine"), C("DEBUG", "POPULATE", "12"), C("GET", "key:0"), C("DBSIZE"),
			C("DEBUG", "POPULATE", "-1"), C("DEBUG", "POPULATE", "x"), C("DEBUG", "POPULATE", "1", "p", "-1"),
			C("DEBUG", "POPULATE", "0"), C("DEBUG", "DIGEST"),
		}},
		{Name: "reload options", Cmds: []Cmd{C("DEBUG", "RELOAD", "bogus"), C("DEBUG", "RELOAD", "MERGE", "x")}},
	})
}

// debugDataset is every type and encoding, with and without deadlines,
// spread over several databases, including values Redis would encode
// differently depending on how they were built.
func debugDataset() [][]string {
	cmds := encodingDataset()
	cmds = append(cmds,
		[]string{"SET", "str:negint", "-123456789012"},
		[]string{"SET", "str:notint", "007"},
		[]string{"SET", "str:empty", ""},
		[]string{"SET", "str:bin", "a\x00b\r\nc"},
		[]string{"SET", "str:float", "3.25"},
		[]string{"APPEND", "str:appended", "12"},
		[]string{"INCRBYFLOAT", "str:incrf", "1.5"},
		[]string{"PFADD", "hll:sparse", "a", "b", "c"},
		[]string{"SET", "str:ttl2", "v", "EX", "1000"},
		[]string{"ZADD", "zset:scores", "-inf", "a", "+inf", "b", "0.1", "c", "-0", "d", "1e300", "e", "-2.5", "f"},
		[]string{"ZADD", "zset:intmembers", "1", "10", "2", "-20", "3", "007"},
		[]string{"SADD", "set:mixed", "1", "x", "-5"},
		[]string{"RPUSH", "list:ints", "1", "-1", "9223372036854775807", "007", ""},
		[]string{"LPUSH", "list:ttl", "x", "y"},
		[]string{"EXPIRE", "list:ttl", "5000"},
		[]string{"HSET", "hash:ttl", "n", "1"},
		[]string{"EXPIRE", "hash:ttl", "5000"},
		[]string{"SELECT", "3"},
		[]string{"SET", "str:int", "42"}, // same key and value in another database
		[]string{"SADD", "s", "only", "in", "three"},
		[]string{"SELECT", "0"},
	)
	hll := []string{"PFADD", "hll:dense"}
	for i := range 5000 {
		hll = append(hll, "el-"+strconv.Itoa(i))
	}
	bigHash := []string{"HSET", "hash:big"}
	for i := range 600 {
		bigHash = append(bigHash, "f"+strconv.Itoa(i), strconv.Itoa(i*i))
	}
	bigSet := []string{"SADD", "set:big"}
	for i := range 700 {
		bigSet = append(bigSet, "m"+strconv.Itoa(i))
	}
	return append(cmds, hll, bigHash, bigSet)
}

// The dataset built on both servers has the same DEBUG DIGEST, and every
// key the same DIGEST-VALUE; an empty dataset is 40 zeros, a missing key
// too, and the digest moves with any change of value, deadline or
// database.
func TestDebugDigest(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "yes")
	rds, lkv := dialRaw(t, "redis", rdsAddr), dialRaw(t, "limitkv", lkvAddr)
	same := func(cmd ...string) string {
		t.Helper()
		a, b := rds.MustDo(t, cmd...), lkv.MustDo(t, cmd...)
		if string(a.Raw) != string(b.Raw) {
			t.Errorf("%v: redis %q, limitkv %q", cmd, truncate(a.Raw, 300), truncate(b.Raw, 300))
		}
		return string(a.Raw)
	}
	if got := same("DEBUG", "DIGEST"); got != "+"+strings.Repeat("0", 40)+"\r\n" {
		t.Errorf("empty dataset: %q", got)
	}
	for _, c := range []*RawConn{rds, lkv} {
		runOn(t, c, debugDataset())
	}
	full := same("DEBUG", "DIGEST")
	var keys []string
	for db := range 16 {
		same("SELECT", strconv.Itoa(db))
		keys = allKeysOf(t, rds)
		if len(keys) > 0 {
			same(append([]string{"DEBUG", "DIGEST-VALUE"}, keys...)...)
		}
		for _, k := range keys {
			same("DEBUG", "DIGEST-VALUE", k)
		}
	}
	same("SELECT", "0")
	same("DEBUG", "DIGEST-VALUE", "nokey", "str:int", "nokey2")
	same("DEBUG", "DIGEST-VALUE")
	// Every change shows, the same on both.
	for _, cmd := range [][]string{
		{"PERSIST", "str:ttl"}, {"LSET", "list:small", "0", "z"}, {"ZADD", "zset:big", "99", "member-1"},
		{"HSET", "hash:big", "f1", "x"}, {"MOVE", "str:emb", "7"}, {"SETRANGE", "str:raw", "0", "R"},
	} {
		same(cmd...)
		if d := same("DEBUG", "DIGEST"); d == full {
			t.Errorf("after %v the digest did not change", cmd)
		}
	}
	same("FLUSHALL")
	same("DEBUG", "DIGEST")
}

// debugObjectLine matches DEBUG OBJECT's status line around the pointer
// and the LRU fields, which are compared apart.
var debugObjectLine = regexp.MustCompile(`^\+Value at:0x[0-9a-f]+ (refcount:\d+ encoding:\S+ serializedlength:\d+) lru:(\d+) lru_seconds_idle:(\d+)(.*)\r\n$`)

// cmpDebugObject compares DEBUG OBJECT lines with the address masked and
// the LRU clock and idle time within a second (the servers' clocks tick
// apart).
func cmpDebugObject(rds, lkv *Reply) error {
	a, b := debugObjectLine.FindStringSubmatch(string(rds.Raw)), debugObjectLine.FindStringSubmatch(string(lkv.Raw))
	if a == nil || b == nil {
		return fmt.Errorf("not a DEBUG OBJECT line: redis %q, limitkv %q", rds.Raw, lkv.Raw)
	}
	if a[1] != b[1] || a[4] != b[4] {
		return fmt.Errorf("redis %q, limitkv %q", a[1]+a[4], b[1]+b[4])
	}
	for _, i := range []int{2, 3} {
		x, _ := strconv.ParseInt(a[i], 10, 64)
		y, _ := strconv.ParseInt(b[i], 10, 64)
		if x-y > 1 || y-x > 1 {
			return fmt.Errorf("lru fields differ by more than 1: redis %s, limitkv %s", a[i], b[i])
		}
	}
	return nil
}

func dobj(key string) Cmd {
	return C("DEBUG", "OBJECT", key).Check("DEBUG OBJECT, address masked", cmpDebugObject)
}

func TestDebugObject(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "yes")
	setup := make([]Cmd, 0, 64)
	for _, cmd := range debugDataset() {
		setup = append(setup, C(cmd...).Ignore())
	}
	var checks []Cmd
	checks = append(checks, setup...)
	for _, k := range append(encodingKeys, "str:negint", "str:notint", "str:empty", "str:bin", "str:float", "str:appended",
		"str:incrf", "hll:sparse", "hll:dense", "zset:scores", "zset:intmembers", "set:mixed", "list:ints", "hash:big", "set:big") {
		checks = append(checks, dobj(k))
	}
	longList := []string{"RPUSH", "list:nodes"}
	for i := range 3000 {
		longList = append(longList, strings.Repeat("v", i%50))
	}
	runCasesOn(t, rdsAddr, lkvAddr, []Case{
		{Name: "dataset", Cmds: checks},
		{Name: "lists", Cmds: []Cmd{
			C(longList...), dobj("list:nodes"),
			C("RPUSH", "big", strings.Repeat("x", 10000), "a", strings.Repeat("y", 9000)), dobj("big"),
			C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1000"),
			// limitkv describes a list as the current settings would build
			// it: the lists are not looked at again after the threshold moves.
			C("RPUSH", "plain", strings.Repeat("x", 2000), "a", "b"), dobj("plain"),
			C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"),
			C("CONFIG", "SET", "list-max-listpack-size", "5"), C("RPUSH", "five", "1", "2", "3", "4", "5", "6", "7"), dobj("five"),
			C("CONFIG", "SET", "list-max-listpack-size", "-2"),
		}},
		{Name: "compression", Cmds: []Cmd{
			C("SET", "rep", strings.Repeat("abc", 100)), dobj("rep"),
			C("CONFIG", "SET", "rdbcompression", "no"), dobj("rep"), C("CONFIG", "SET", "rdbcompression", "yes"),
		}},
		{Name: "idle", Cmds: []Cmd{
			C("SET", "k", "hello"), Sleep(2100 * time.Millisecond), dobj("k"), C("GET", "k"), dobj("k"),
		}},
		{Name: "restore idletime", Cmds: []Cmd{
			C("SET", "src", "hello"),
			C("EVAL", "local p = redis.call('dump','src'); return redis.call('restore','i','0',p,'IDLETIME','1000')", "0"),
			dobj("i"), C("OBJECT", "IDLETIME", "i").TTLApprox(1),
			C("EVAL", "local p = redis.call('dump','src'); return redis.call('restore','f','0',p,'FREQ','100')", "0"),
			dobj("f"), C("OBJECT", "FREQ", "f"),
		}},
		{Name: "expired but present", Cmds: []Cmd{
			C("DEBUG", "SET-ACTIVE-EXPIRE", "0"), C("SET", "k", "hello", "PX", "1"), Sleep(30 * time.Millisecond),
			dobj("k"), C("DEBUG", "DIGEST-VALUE", "k"), C("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
		}},
	})
}

// SET-ACTIVE-EXPIRE 0 leaves expired keys in place until they are looked
// up; 1 lets the cycle reclaim them again.
func TestDebugActiveExpire(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "yes")
	runCasesOn(t, rdsAddr, lkvAddr, []Case{{Name: "off and on", RESP2Only: "timing-heavy; the replies are RESP2/3-neutral", Cmds: []Cmd{
		C("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		C("SET", "a", "1", "PX", "50"), C("SET", "b", "1", "PX", "50"),
		Sleep(600 * time.Millisecond), C("DBSIZE"), C("GET", "a"), C("DBSIZE"),
		C("DEBUG", "SET-ACTIVE-EXPIRE", "1"), Sleep(600 * time.Millisecond), C("DBSIZE"),
	}}})
}

// DEBUG RELOAD with its options, against Redis.
func TestDebugReload(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "yes")
	dataset := debugDataset()
	var build []Cmd
	for _, cmd := range dataset {
		build = append(build, C(cmd...).Ignore())
	}
	digest := C("DEBUG", "DIGEST")
	runCasesOn(t, rdsAddr, lkvAddr, []Case{
		{Name: "missing file", RESP2Only: "file state", Cmds: []Cmd{C("DEBUG", "RELOAD", "NOSAVE")}},
		{Name: "save flush load", Cmds: append(build, digest, C("DEBUG", "RELOAD"), digest, C("DBSIZE"),
			C("OBJECT", "ENCODING", "hash:shrunk"), C("OBJECT", "ENCODING", "zset:shrunk"), C("TTL", "str:ttl2").TTLApprox(2),
			C("INFO", "persistence").Check("loaded keys", func(rds, lkv *Reply) error {
				f := func(r *Reply) string {
					_, v, _ := strings.Cut(r.Str, "rdb_changes_since_last_save:")
					v, _, _ = strings.Cut(v, "\r\n")
					return v
				}
				if f(rds) != f(lkv) {
					return fmt.Errorf("rdb_changes_since_last_save: redis %s, limitkv %s", f(rds), f(lkv))
				}
				return nil
			}))},
		{Name: "nosave and merge", Cmds: []Cmd{
			C("SET", "a", "1"), C("SET", "b", "2"), C("DEBUG", "RELOAD"),
			C("SET", "a", "changed"), C("SET", "c", "new"), C("DEBUG", "RELOAD", "NOSAVE"), C("MGET", "a", "b", "c"),
			C("SET", "a", "changed"), C("SET", "c", "new"), C("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"), C("MGET", "a", "b", "c"),
			digest,
			C("DEL", "a", "b"), C("DEBUG", "RELOAD", "nosave", "noflush", "merge"), C("MGET", "a", "b", "c"),
		}},
		{Name: "expired dropped", Cmds: []Cmd{
			C("DEBUG", "SET-ACTIVE-EXPIRE", "0"), C("SET", "x", "1", "PX", "1"), C("SET", "y", "1"), Sleep(20 * time.Millisecond),
			C("DEBUG", "RELOAD"), C("DBSIZE"), C("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
		}},
	})
}

// SET-DISABLE-DENY-SCRIPTS 1 lets scripts run noscript commands.
func TestDebugDenyScripts(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "yes")
	runCasesOn(t, rdsAddr, lkvAddr, []Case{{Name: "deny scripts", Cmds: []Cmd{
		C("SET", "k", "v"),
		C("EVAL", "return redis.pcall('debug','digest-value','k')", "0"),
		C("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"),
		C("EVAL", "return redis.pcall('debug','digest-value','k')", "0"),
		C("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"),
		C("EVAL", "return redis.pcall('debug','digest-value','k')", "0"),
	}}})
}

// CHANGE-REPL-ID draws a new master_replid and keeps the run id.
func TestDebugChangeReplID(t *testing.T) {
	rdsAddr, lkvAddr := debugPair(t, "yes")
	for _, c := range []*RawConn{dialRaw(t, "redis", rdsAddr), dialRaw(t, "limitkv", lkvAddr)} {
		field := func(section, name string) string {
			_, v, _ := strings.Cut(c.MustDo(t, "INFO", section).Str, name+":")
			v, _, _ = strings.Cut(v, "\r\n")
			return v
		}
		id, run := field("replication", "master_replid"), field("server", "run_id")
		if r := c.MustDo(t, "DEBUG", "CHANGE-REPL-ID"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("%s: %q", c.Name, r.Raw)
		}
		id2 := field("replication", "master_replid")
		if id2 == id || len(id2) != 40 || field("server", "run_id") != run {
			t.Errorf("%s: master_replid %s -> %s, run_id %s -> %s", c.Name, id, id2, run, field("server", "run_id"))
		}
	}
}
