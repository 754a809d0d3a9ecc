package conformance

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/testredis"
)

// Snapshots (issue #14): DUMP and RESTORE against Redis, and RDB files
// written by each server loaded by the other.

// farExpiry is an absolute deadline both servers can be given, so that
// their DEBUG DIGEST (which mixes in deadlines) can agree.
const farExpiry = "4102444800000" // 2100-01-01

// withFooter appends a DUMP footer (RDB version ver, CRC-64) to body.
func withFooter(body []byte, ver uint16) string {
	b := binary.LittleEndian.AppendUint16(slices.Clone(body), ver)
	return string(binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b)))
}

func dumpOf(t testing.TB, v rdb.Value) string {
	t.Helper()
	p, err := rdb.EncodeDump(&v, rdb.DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(p)
}

func TestDumpRestore(t *testing.T) {
	bs := func(ss ...string) [][]byte {
		out := make([][]byte, len(ss))
		for i, s := range ss {
			out[i] = []byte(s)
		}
		return out
	}
	listPayload := dumpOf(t, rdb.Value{Type: rdb.TypeList, List: bs("a", "b", "3")})
	zsetPayload := dumpOf(t, rdb.Value{Type: rdb.TypeZSet, ZSet: []rdb.ZMember{{Member: []byte("m"), Score: 1.5}, {Member: []byte("n"), Score: 2}}})
	hashPayload := dumpOf(t, rdb.Value{Type: rdb.TypeHash, Hash: []rdb.HashField{{Field: []byte("f"), Value: []byte("v")}}})
	setPayload := dumpOf(t, rdb.Value{Type: rdb.TypeSet, Set: bs("5", "-3", "70000")})
	strPayload := dumpOf(t, rdb.Value{Type: rdb.TypeString, String: []byte("hello")})
	flipped := []byte(listPayload)
	flipped[3] ^= 1
	var many []string
	for i := range 2000 {
		many = append(many, "element-"+strconv.Itoa(i))
	}
	big := strings.Repeat("abcdefgh", 100)

	runCases(t, []Case{
		{Name: "dump strings", Cmds: []Cmd{
			C("SET", "i8", "12"), C("DUMP", "i8"),
			C("SET", "i16", "-3000"), C("DUMP", "i16"),
			C("SET", "i32", "2000000000"), C("DUMP", "i32"),
			C("SET", "i64", "9223372036854775807"), C("DUMP", "i64"),
			C("SET", "e", ""), C("DUMP", "e"),
			C("SET", "s", "hello"), C("DUMP", "s"),
			C("SET", "lzf", big), C("DUMP", "lzf"),
			C("SET", "pad", "007"), C("DUMP", "pad"),
			C("APPEND", "raw", "12"), C("DUMP", "raw"),
			C("INCRBYFLOAT", "f", "1.5"), C("DUMP", "f"),
			C("DUMP", "missing"),
		}},
		{Name: "dump listpack and intset encodings", Cmds: []Cmd{
			C("RPUSH", "l", "a", "1", "-5", "", "12345678901234567890"), C("DUMP", "l"),
			C("SADD", "si", "3", "1", "-2"), C("DUMP", "si"),
			C("SADD", "si64", "5000000000", "1"), C("DUMP", "si64"),
			C("ZADD", "z", "1", "a", "2.5", "b", "-inf", "c", "1e300", "d"), C("DUMP", "z"),
			C("HSET", "h", "f1", "v1", "f2", "22", "f3", ""), C("DUMP", "h"),
			C("HSET", "h", "f1", "changed"), C("HDEL", "h", "f2"), C("DUMP", "h"),
		}},
		{Name: "dump quicklist of many nodes", Cmds: []Cmd{
			C(append([]string{"RPUSH", "l"}, many...)...), C("DUMP", "l"),
			C("RPUSH", "fat", strings.Repeat("x", 10000), "y", strings.Repeat("z", 9000)), C("DUMP", "fat"),
		}},
		{Name: "dump list pushed at the head", Skip: "quicklist node boundaries of lists grown at the head or in the middle (LPUSH, LINSERT) are not reproduced: the writer splits nodes as RPUSH would", Cmds: []Cmd{
			C(append([]string{"LPUSH", "l"}, many...)...), C("DUMP", "l"),
		}},
		{Name: "dump list pushed at the head, one node", Cmds: []Cmd{
			C("LPUSH", "l", "a", "b", "c"), C("DUMP", "l"),
		}},
		{Name: "restore each type", Cmds: []Cmd{
			C("RESTORE", "l", "0", listPayload), C("LRANGE", "l", "0", "-1"), C("OBJECT", "ENCODING", "l"),
			C("RESTORE", "z", "0", zsetPayload), C("ZRANGE", "z", "0", "-1", "WITHSCORES"), C("OBJECT", "ENCODING", "z"),
			C("RESTORE", "h", "0", hashPayload), C("HGETALL", "h"), C("OBJECT", "ENCODING", "h"),
			C("RESTORE", "s", "0", setPayload), C("SMEMBERS", "s"), C("OBJECT", "ENCODING", "s"),
			C("RESTORE", "str", "0", strPayload), C("GET", "str"), C("OBJECT", "ENCODING", "str"),
			C("DUMP", "l"), C("DUMP", "z"), C("DUMP", "h"), C("DUMP", "s"), C("DUMP", "str"),
		}},
		{Name: "restore options", Cmds: []Cmd{
			C("RESTORE", "l", "5000", listPayload), C("PTTL", "l").TTLApprox(100),
			C("RESTORE", "l", "0", listPayload, "REPLACE"), C("PTTL", "l"),
			C("RESTORE", "l", farExpiry, listPayload, "REPLACE", "ABSTTL"), C("PEXPIRETIME", "l"),
			C("RESTORE", "l", "1000", listPayload, "REPLACE", "ABSTTL"), C("EXISTS", "l"),
			C("RESTORE", "gone", "1", listPayload, "ABSTTL"), C("EXISTS", "gone"),
			C("RESTORE", "i", "0", listPayload, "IDLETIME", "1000"), C("OBJECT", "IDLETIME", "i"),
			C("RESTORE", "f", "0", listPayload, "FREQ", "100"), C("OBJECT", "FREQ", "f"),
			C("RESTORE", "c", "0", listPayload, "replace", "absttl", "idletime", "5"), C("OBJECT", "IDLETIME", "c"),
		}},
		{Name: "restore errors", Cmds: []Cmd{
			C("RESTORE"), C("RESTORE", "k"), C("RESTORE", "k", "0"),
			C("SET", "busy", "x"),
			C("RESTORE", "busy", "0", listPayload),
			C("RESTORE", "busy", "-1", listPayload),
			C("RESTORE", "k", "-1", listPayload),
			C("RESTORE", "k", "abc", listPayload),
			C("RESTORE", "k", "1.5", listPayload),
			C("RESTORE", "k", "0", "short"),
			C("RESTORE", "k", "0", ""),
			C("RESTORE", "k", "0", string(flipped)),
			C("RESTORE", "k", "0", withFooter([]byte(listPayload[:len(listPayload)-10]), 11)),
			C("RESTORE", "k", "0", withFooter([]byte{0xff, 1, 2}, 10)),
			C("RESTORE", "k", "0", withFooter([]byte{14, 1, 2, 3}, 10)),
			C("RESTORE", "k", "0", withFooter([]byte{15, 0}, 10)),
			C("RESTORE", "k", "0", withFooter([]byte{2, 2, 1, 'a', 1, 'a'}, 10)),
			C("RESTORE", "k", "0", withFooter([]byte{2, 0}, 10)),
			C("RESTORE", "k", "0", listPayload, "BOGUS"),
			C("RESTORE", "k", "0", listPayload, "IDLETIME"),
			C("RESTORE", "k", "0", listPayload, "IDLETIME", "x"),
			C("RESTORE", "k", "0", listPayload, "IDLETIME", "-1"),
			C("RESTORE", "k", "0", listPayload, "FREQ", "-1"),
			C("RESTORE", "k", "0", listPayload, "FREQ", "256"),
			C("RESTORE", "k", "0", listPayload, "FREQ", "1", "IDLETIME", "1"),
			C("RESTORE", "k", "0", listPayload, "IDLETIME", "1", "FREQ", "1"),
			C("RESTORE", "busy", "x", listPayload, "BOGUS"),
			C("RESTORE", "busy", "x", "short", "REPLACE"),
			C("EXISTS", "k"), C("GET", "busy"),
			C("DUMP"), C("DUMP", "a", "b"),
		}},
		{Name: "restore in multi", Cmds: []Cmd{
			C("MULTI"), C("RESTORE", "k", "0", listPayload), C("RESTORE", "k", "0", listPayload), C("EXEC"),
		}},
	})
}

// encodingDataset builds every type in every encoding; both servers run it.
func encodingDataset() [][]string {
	cmds := [][]string{
		{"SET", "str:int", "42"},
		{"SET", "str:emb", "hello world"},
		{"SET", "str:raw", strings.Repeat("raw string ", 10)},
		{"SET", "str:ttl", "v", "PXAT", farExpiry},
		{"RPUSH", "list:small", "a", "b", "1", "2"},
		{"SADD", "set:intset", "1", "2", "3", "-100000"},
		{"SADD", "set:hashtable", "a", "b", "c"},
		{"ZADD", "zset:listpack", "1", "a", "2", "b", "3.5", "c"},
		{"HSET", "hash:listpack", "f1", "v1", "f2", "v2"},
		{"HSET", "hash:hashtable", "f", strings.Repeat("x", 100), "g", "1"},
		{"ZADD", "zset:skiplist", "1", strings.Repeat("m", 70), "2", "b"},
		{"PEXPIREAT", "zset:skiplist", farExpiry},
		// Converted, then shrunk: Redis keeps the big encoding in memory,
		// writes it, and picks the small one again when loading.
		{"HSET", "hash:shrunk", "f", strings.Repeat("x", 100), "g", "1"},
		{"HSET", "hash:shrunk", "f", "small"},
		{"ZADD", "zset:shrunk", "1", strings.Repeat("m", 70), "2", "b"},
		{"ZREM", "zset:shrunk", strings.Repeat("m", 70)},
		{"SADD", "set:shrunk", "a", "1", "2"},
		{"SREM", "set:shrunk", "a"},
		{"SELECT", "5"},
		{"SET", "db5", "five"},
		{"SELECT", "15"},
		{"HSET", "db15", "a", "b"},
		{"SELECT", "0"},
	}
	big := []string{"RPUSH", "list:big"}
	bigSet := []string{"SADD", "set:bigint"}
	bigZ := []string{"ZADD", "zset:big"}
	for i := range 1000 {
		big = append(big, "item-"+strconv.Itoa(i))
		bigSet = append(bigSet, strconv.Itoa(i*7))
		bigZ = append(bigZ, strconv.Itoa(i%13), "member-"+strconv.Itoa(i))
	}
	return append(cmds, big, bigSet, bigZ)
}

// encodingKeys are encodingDataset's keys in database 0.
var encodingKeys = []string{"str:int", "str:emb", "str:raw", "str:ttl", "list:small", "set:intset", "set:hashtable",
	"zset:listpack", "hash:listpack", "hash:hashtable", "zset:skiplist", "hash:shrunk", "zset:shrunk", "set:shrunk", "list:big", "set:bigint", "zset:big"}

// readsOf is what a key holds, by the reads that do not depend on a hash
// table's order: type, encoding, deadline and content (sorted where
// unordered).
func readsOf(t testing.TB, c *RawConn, key string) string {
	t.Helper()
	return reads(t, c, key, false)
}

// reads is readsOf; anyOrder sorts every hash and set, whatever its
// encoding (a listpack's order is Redis's too, but a value that a loading
// server rebuilt may take another order than the one that built it).
func reads(t testing.TB, c *RawConn, key string, anyOrder bool) string {
	t.Helper()
	typ := c.MustDo(t, "TYPE", key).Str
	enc := c.MustDo(t, "OBJECT", "ENCODING", key).Str
	exp := c.MustDo(t, "PEXPIRETIME", key).Str
	var content []string
	var r *Reply
	switch typ {
	case "string":
		r = c.MustDo(t, "GET", key)
	case "list":
		r = c.MustDo(t, "LRANGE", key, "0", "-1")
	case "set":
		r = c.MustDo(t, "SMEMBERS", key)
	case "zset":
		r = c.MustDo(t, "ZRANGE", key, "0", "-1", "WITHSCORES")
	case "hash":
		r = c.MustDo(t, "HGETALL", key)
	}
	if r != nil {
		if r.Elems == nil {
			content = []string{r.Str}
		}
		for i := 0; i < len(r.Elems); i++ {
			if typ == "hash" && i+1 < len(r.Elems) {
				content = append(content, r.Elems[i].Str+"="+r.Elems[i+1].Str)
				i++
				continue
			}
			content = append(content, r.Elems[i].Str)
		}
	}
	if typ == "set" || enc == "hashtable" || (anyOrder && typ == "hash") {
		slices.Sort(content)
	}
	return fmt.Sprintf("%s/%s/%s/%q", typ, enc, exp, content)
}

// contentOf is readsOf without the encoding.
func contentOf(t testing.TB, c *RawConn, key string) string {
	t.Helper()
	typ, rest, _ := strings.Cut(reads(t, c, key, true), "/")
	_, rest, _ = strings.Cut(rest, "/")
	return typ + "/" + rest
}

func runOn(t testing.TB, c *RawConn, cmds [][]string) {
	t.Helper()
	for _, cmd := range cmds {
		if r := c.MustDo(t, cmd...); r.Type == '-' {
			t.Fatalf("%s: %v: %s", c.Name, cmd, r.Str)
		}
	}
}

// Every type and encoding DUMPed by one server and RESTOREd by the other
// reads the same on both.
func TestDumpCrossRestore(t *testing.T) {
	flushBoth(t)
	rds, lkv := dialPair(t)
	runOn(t, rds, encodingDataset())
	runOn(t, lkv, encodingDataset())
	for _, key := range encodingKeys {
		for _, dir := range []struct{ from, to *RawConn }{{lkv, rds}, {rds, lkv}} {
			payload := dir.from.MustDo(t, "DUMP", key).Str
			copyKey, selfKey := "copy:"+key, "self:"+key
			// The reference is the source RESTOREing its own payload: a
			// RESTORE picks the encoding afresh (a shrunk hash table
			// comes back as a listpack) on both servers.
			for _, c := range []*RawConn{dir.to, dir.from} {
				k := copyKey
				if c == dir.from {
					k = selfKey
				}
				if r := c.MustDo(t, "RESTORE", k, "0", payload, "REPLACE"); string(r.Raw) != "+OK\r\n" {
					t.Errorf("%s RESTORE of %s's DUMP of %s: %q", c.Name, dir.from.Name, key, r.Raw)
				}
			}
			if got, want := readsOf(t, dir.to, copyKey), readsOf(t, dir.from, selfKey); got != want {
				t.Errorf("%s's DUMP of %s RESTOREd into %s:\n got %s\nwant %s", dir.from.Name, key, dir.to.Name, got, want)
			}
		}
	}
}

// startRedisOn starts a private redis-server with dir as its directory
// (loading dbfilename there if present), DEBUG on so that DEBUG DIGEST
// compares datasets (Redis 7.0 refuses it by default). It is stopped (dir
// is kept) at the end of the test.
func startRedisOn(t *testing.T, dir string, args ...string) (*RawConn, *testredis.Proc) {
	t.Helper()
	p := testredis.StartWith(t, testredis.Options{Path: redisServerPath, Dir: dir,
		Args: append([]string{"--enable-debug-command", "yes"}, args...)})
	return dialRaw(t, "redis", p.Addr), p
}

func checkRDB(t *testing.T, path string) {
	t.Helper()
	bin, err := testredis.FindTool("redis-check-rdb")
	if err != nil {
		t.Log("redis-check-rdb not found; not checking the file with it")
		return
	}
	out, err := exec.Command(bin, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RDB looks OK") {
		t.Errorf("redis-check-rdb %s: %v\n%s", path, err, out)
	}
}

func allKeysOf(t testing.TB, c *RawConn) []string {
	t.Helper()
	var keys []string
	for _, e := range c.MustDo(t, "KEYS", "*").Elems {
		keys = append(keys, e.Str)
	}
	slices.Sort(keys)
	return keys
}

// The same dataset built on limitkv and on Redis: limitkv's file loads into
// Redis as the dataset Redis built (DEBUG DIGEST, deadlines), and Redis's
// file loads into limitkv with the same reads, and back.
func TestRDBFilesWithRedis(t *testing.T) {
	requireServers(t)
	dir := t.TempDir()
	srv, err := limitkv.Start(limitkv.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lkv := dialRaw(t, "limitkv", srv.Addr())
	rdsDir := t.TempDir()
	rds, _ := startRedisOn(t, rdsDir)
	for _, c := range []*RawConn{lkv, rds} {
		runOn(t, c, encodingDataset())
	}
	wantDigest := rds.MustDo(t, "DEBUG", "DIGEST").Str
	if strings.Trim(wantDigest, "0") == "" {
		t.Fatalf("DEBUG DIGEST of the dataset is %q", wantDigest)
	}

	// limitkv -> Redis.
	if r := lkv.MustDo(t, "SAVE"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("limitkv SAVE: %q", r.Raw)
	}
	checkRDB(t, filepath.Join(dir, "dump.rdb"))
	loaded, _ := startRedisOn(t, dir)
	if got := loaded.MustDo(t, "DEBUG", "DIGEST").Str; got != wantDigest {
		t.Errorf("Redis loading limitkv's file: DEBUG DIGEST %s, want %s (the Redis that ran the commands)", got, wantDigest)
	}
	for db := range 16 {
		for _, c := range []*RawConn{rds, loaded} {
			c.MustDo(t, "SELECT", strconv.Itoa(db))
		}
		keys := allKeysOf(t, rds)
		if got := allKeysOf(t, loaded); !slices.Equal(got, keys) {
			t.Errorf("db %d: keys %v, want %v", db, got, keys)
		}
		for _, k := range keys {
			// Encodings aside: the Redis that built the data keeps the
			// big encodings of shrunk values, a loading one does not.
			if a, b := contentOf(t, loaded, k), contentOf(t, rds, k); a != b {
				t.Errorf("db %d key %s: loaded from limitkv's file %s, Redis built %s", db, k, a, b)
			}
		}
	}
	rds.MustDo(t, "SELECT", "0")

	// Redis -> limitkv -> Redis.
	if r := rds.MustDo(t, "SAVE"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", r.Raw)
	}
	srv2, err := limitkv.Start(limitkv.Options{Dir: rdsDir})
	if err != nil {
		t.Fatalf("limitkv on Redis's file: %v", err)
	}
	defer srv2.Close()
	lkv2 := dialRaw(t, "limitkv", srv2.Addr())
	// The reference: a Redis loading the same file (encodings included).
	rds, _ = startRedisOn(t, rdsDir)
	for db := range 16 {
		for _, c := range []*RawConn{rds, lkv2} {
			c.MustDo(t, "SELECT", strconv.Itoa(db))
		}
		keys := allKeysOf(t, rds)
		if got := allKeysOf(t, lkv2); !slices.Equal(got, keys) {
			t.Errorf("db %d: limitkv loaded keys %v, want %v", db, got, keys)
		}
		for _, k := range keys {
			if a, b := readsOf(t, lkv2, k), readsOf(t, rds, k); a != b {
				t.Errorf("db %d key %s: limitkv loaded %s, Redis has %s", db, k, a, b)
			}
		}
	}
	saveDir := t.TempDir()
	srv2.Close()
	srv3, err := limitkv.Start(limitkv.Options{Dir: rdsDir})
	if err != nil {
		t.Fatal(err)
	}
	lkv3 := dialRaw(t, "limitkv", srv3.Addr())
	if r := lkv3.MustDo(t, "SAVE"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("limitkv SAVE: %q", r.Raw)
	}
	srv3.Close()
	data, err := os.ReadFile(filepath.Join(rdsDir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(saveDir, "dump.rdb"), data, 0o644)
	checkRDB(t, filepath.Join(saveDir, "dump.rdb"))
	again, _ := startRedisOn(t, saveDir)
	if got := again.MustDo(t, "DEBUG", "DIGEST").Str; got != wantDigest {
		t.Errorf("Redis -> limitkv -> Redis: DEBUG DIGEST %s, want %s", got, wantDigest)
	}
}

// SAVE into a directory that has gone answers Redis's bare error, and both
// servers keep serving.
func TestSaveIntoMissingDir(t *testing.T) {
	requireServers(t)
	base := t.TempDir()
	lkvDir, rdsDir := filepath.Join(base, "l"), filepath.Join(base, "r")
	os.Mkdir(lkvDir, 0o755)
	os.Mkdir(rdsDir, 0o755)
	srv, err := limitkv.Start(limitkv.Options{Dir: lkvDir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lkv := dialRaw(t, "limitkv", srv.Addr())
	rds, _ := startRedisOn(t, rdsDir)
	os.RemoveAll(lkvDir)
	os.RemoveAll(rdsDir)
	for _, cmd := range [][]string{{"SET", "k", "v"}, {"SAVE"}, {"GET", "k"}, {"PING"}} {
		a, b := rds.MustDo(t, cmd...), lkv.MustDo(t, cmd...)
		if string(a.Raw) != string(b.Raw) {
			t.Errorf("%v: redis %q, limitkv %q", cmd, a.Raw, b.Raw)
		}
	}
}

// The persistence commands' argument checks and settings, on the shared
// servers (nothing here writes a file: the shared limitkv's dir is the
// package directory).
func TestPersistenceCommandsArgs(t *testing.T) {
	runCases(t, []Case{
		{Name: "arity and syntax", Cmds: []Cmd{
			C("SAVE", "x"), C("BGSAVE", "x"), C("BGSAVE", "SCHEDULE", "x"), C("LASTSAVE", "x"),
			C("LASTSAVE").Ignore(),
		}},
		{Name: "save in multi", Cmds: []Cmd{
			C("MULTI"), C("SAVE"), C("EXEC"),
		}},
		{Name: "settings", Cmds: []Cmd{
			C("CONFIG", "GET", "rdbcompression"), C("CONFIG", "GET", "rdbchecksum"), C("CONFIG", "GET", "dbfilename"),
			C("CONFIG", "SET", "dir", "/tmp"), C("CONFIG", "SET", "dbfilename", "x.rdb"),
			C("CONFIG", "SET", "rdbchecksum", "no"), C("CONFIG", "SET", "rdbcompression", "maybe"),
			C("CONFIG", "SET", "rdbcompression", "no"), C("CONFIG", "GET", "rdbcompression"),
			C("CONFIG", "SET", "rdbcompression", "yes"),
			C("CONFIG", "SET", "save", "1"), C("CONFIG", "SET", "save", "0 1"), C("CONFIG", "SET", "save", "1 -1"),
			C("CONFIG", "SET", "save", "3600 1 300 100"), C("CONFIG", "GET", "save"),
			C("CONFIG", "SET", "save", ""), C("CONFIG", "GET", "save"),
		}},
	})
}

func dirtyOf(t testing.TB, c *RawConn) int64 {
	t.Helper()
	info := c.MustDo(t, "INFO", "persistence").Str
	_, rest, _ := strings.Cut(info, "rdb_changes_since_last_save:")
	line, _, _ := strings.Cut(rest, "\r\n")
	n, err := strconv.ParseInt(line, 10, 64)
	if err != nil {
		t.Fatalf("%s: rdb_changes_since_last_save %q", c.Name, line)
	}
	return n
}

// dirtyDivergences are the commands whose change count limitkv
// approximates (it reads counts from replies, and these replies do not
// show Redis's count).
// rdb_changes_since_last_save (Redis's dirty counter, which the save points
// count) moves by what each command changed.
func TestDirtyCounter(t *testing.T) {
	requireServers(t)
	srv, err := limitkv.Start(limitkv.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lkv := dialRaw(t, "limitkv", srv.Addr())
	rds, _ := startRedisOn(t, t.TempDir())
	for _, cmd := range [][]string{
		{"SET", "k", "v"}, {"SET", "k", "v", "NX"}, {"GET", "k"}, {"APPEND", "k", "x"}, {"INCR", "n"}, {"INCRBY", "n", "5"},
		{"MSET", "a", "1", "b", "2", "c", "3"}, {"DEL", "a", "b", "nosuch"}, {"EXPIRE", "c", "100"}, {"EXPIRE", "nosuch", "100"},
		{"PERSIST", "c"}, {"SADD", "s", "1", "2", "3"}, {"SADD", "s", "1"}, {"SREM", "s", "1", "9"},
		{"ZADD", "z", "1", "a", "2", "b"}, {"ZADD", "z", "1", "a"}, {"ZADD", "z", "5", "a"}, {"ZINCRBY", "z", "1", "a"}, {"ZREM", "z", "a", "x"},
		{"HSET", "h", "f", "v", "g", "w"}, {"HSET", "h", "f", "v"}, {"HDEL", "h", "f", "x"}, {"HINCRBY", "h", "n", "1"},
		{"RPUSH", "l", "a", "b", "c"}, {"LPUSH", "l", "x"}, {"LPOP", "l"}, {"RPOP", "l", "2"}, {"LTRIM", "l", "0", "0"},
		{"RPUSH", "l2", "a", "b", "c", "d", "e"}, {"LTRIM", "l2", "1", "2"}, {"LTRIM", "l2", "0", "-1"},
		{"ZADD", "z2", "1", "a", "2", "b", "3", "c"}, {"ZADD", "z2", "1", "a", "5", "b", "6", "c", "7", "d"}, {"ZADD", "z2", "CH", "1", "a", "9", "b"},
		{"ZADD", "z2", "XX", "1", "a"}, {"ZADD", "z2", "INCR", "1", "a"},
		{"RENAME", "k", "k2"}, {"SETRANGE", "k2", "0", "zz"}, {"GETDEL", "k2"},
		{"SETBIT", "bits", "7", "1"}, {"SETBIT", "bits", "7", "1"}, {"SETBIT", "bits", "100", "0"},
		{"BITFIELD", "bits", "SET", "u8", "0", "255", "SET", "u8", "8", "255"}, {"BITFIELD", "bits", "SET", "u8", "0", "255", "SET", "u8", "8", "255"},
		{"BITFIELD", "bits", "INCRBY", "u8", "0", "0", "GET", "u8", "8"}, {"BITFIELD", "bits", "SET", "u8", "0", "1", "SET", "u8", "8", "255"},
		{"FLUSHDB"}, {"SET", "x", "1"}, {"FLUSHALL"},
	} {
		a0, b0 := dirtyOf(t, rds), dirtyOf(t, lkv)
		ra, rb := rds.MustDo(t, cmd...), lkv.MustDo(t, cmd...)
		if string(ra.Raw) != string(rb.Raw) {
			t.Fatalf("%v: redis %q, limitkv %q", cmd, ra.Raw, rb.Raw)
		}
		if da, db := dirtyOf(t, rds)-a0, dirtyOf(t, lkv)-b0; da != db {
			t.Errorf("%v: Redis counts %d changes, limitkv %d", cmd, da, db)
		}
	}
}

// BGSAVE on a private pair: the replies, LASTSAVE moving, and INFO after.
func TestBgsaveWithRedis(t *testing.T) {
	requireServers(t)
	lkvDir, rdsDir := t.TempDir(), t.TempDir()
	srv, err := limitkv.Start(limitkv.Options{Dir: lkvDir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lkv := dialRaw(t, "limitkv", srv.Addr())
	rds, _ := startRedisOn(t, rdsDir)
	same := func(cmd ...string) {
		t.Helper()
		a, b := rds.MustDo(t, cmd...), lkv.MustDo(t, cmd...)
		if string(a.Raw) != string(b.Raw) {
			t.Errorf("%v: redis %q, limitkv %q", cmd, a.Raw, b.Raw)
		}
	}
	infoField := func(c *RawConn, name string) string {
		_, rest, _ := strings.Cut(c.MustDo(t, "INFO", "persistence").Str, name+":")
		v, _, _ := strings.Cut(rest, "\r\n")
		return v
	}
	same("SET", "k", "v")
	same("BGSAVE")
	for _, c := range []*RawConn{rds, lkv} {
		deadline := time.Now().Add(10 * time.Second)
		for infoField(c, "rdb_bgsave_in_progress") != "0" && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, f := range []string{"rdb_bgsave_in_progress", "rdb_last_bgsave_status", "rdb_changes_since_last_save", "rdb_saves"} {
		if a, b := infoField(rds, f), infoField(lkv, f); a != b {
			t.Errorf("INFO %s after BGSAVE: redis %q, limitkv %q", f, a, b)
		}
	}
	for _, d := range []string{lkvDir, rdsDir} {
		if _, err := os.Stat(filepath.Join(d, "dump.rdb")); err != nil {
			t.Errorf("no dump.rdb after BGSAVE: %v", err)
		}
	}
	same("MULTI")
	same("BGSAVE")
	same("EXEC")
	same("CONFIG", "GET", "dbfilename")
	if a, b := rds.MustDo(t, "CONFIG", "GET", "dir").Elems[1].Str, lkv.MustDo(t, "CONFIG", "GET", "dir").Elems[1].Str; a != rdsDir || b != lkvDir {
		t.Errorf("CONFIG GET dir: redis %q (given %q), limitkv %q (given %q)", a, rdsDir, b, lkvDir)
	}
}

func TestPersistenceCommandInfo(t *testing.T) {
	runCases(t, []Case{
		{Name: "command info", Cmds: []Cmd{C("COMMAND", "INFO", "save", "bgsave", "lastsave", "dump", "restore")}},
		{Name: "command docs", Cmds: []Cmd{C("COMMAND", "DOCS", "save", "bgsave", "lastsave", "dump", "restore").PairsUnordered()}},
		{Name: "getkeys", Cmds: []Cmd{C("COMMAND", "GETKEYS", "dump", "k"), C("COMMAND", "GETKEYS", "restore", "k", "0", "x")}},
	})
}
