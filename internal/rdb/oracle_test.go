package rdb

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// oracleDataset is the neutral dataset both directions use: every type in
// its small and large encodings, TTLs, several databases.
func oracleDataset(expireBase int64) []Entry {
	var es []Entry
	add := func(db int, key string, v Value, expire int64) {
		e := Entry{DB: db, Key: []byte(key), Value: v}
		if expire != 0 {
			e.Expire, e.HasExpire = expire, true
		}
		es = append(es, e)
	}
	str := func(s string) Value { return Value{Type: TypeString, String: []byte(s)} }
	bs := func(ss ...string) [][]byte {
		out := make([][]byte, len(ss))
		for i, s := range ss {
			out[i] = []byte(s)
		}
		return out
	}
	seq := func(n int, f func(i int) string) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = []byte(f(i))
		}
		return out
	}
	add(0, "str:short", str("hello"), 0)
	add(0, "str:empty", str(""), 0)
	add(0, "str:int8", str("-100"), 0)
	add(0, "str:int16", str("30000"), 0)
	add(0, "str:int32", str("-2000000000"), 0)
	add(0, "str:int64", str("9223372036854775807"), 0)
	add(0, "str:zeropad", str("007"), 0)
	add(0, "str:lzf", str(strings.Repeat("abcabcabd", 40)), 0)
	add(0, "str:21", str(strings.Repeat("x", 21)), 0)
	add(0, "str:incompressible", str("the quick brown fox jumps over the lazy dog 0123456789"), 0)
	add(0, "str:big", str(strings.Repeat("0123456789abcdef", 5000)), 0)
	add(0, "str:ttl", str("expiring"), expireBase+12345)
	add(0, "12345", str("integer key"), 0)
	add(0, strings.Repeat("k", 40), str("long compressible key"), 0)

	add(0, "list:small", Value{Type: TypeList, List: bs("a", "1", "-5", "b", "12345678901234567890", "")}, 0)
	add(0, "list:big", Value{Type: TypeList, List: seq(1000, func(i int) string { return "item-" + strconv.Itoa(i) })}, 0)
	add(0, "list:ints", Value{Type: TypeList, List: seq(3000, func(i int) string { return strconv.Itoa(i * 997) })}, expireBase+1)
	add(0, "list:fat", Value{Type: TypeList, List: bs("x", strings.Repeat("y", 10000), "z", strings.Repeat("w", 5000), strings.Repeat("v", 5000))}, 0)

	add(0, "set:int16", Value{Type: TypeSet, Set: bs("3", "1", "2", "-7")}, 0)
	add(0, "set:int32", Value{Type: TypeSet, Set: bs("100000", "-1")}, 0)
	add(0, "set:int64", Value{Type: TypeSet, Set: bs("5000000000", "1", "-9223372036854775808")}, 0)
	add(0, "set:str", Value{Type: TypeSet, Set: bs("a", "b", "c", "1")}, 0)
	add(0, "set:bigint", Value{Type: TypeSet, Set: seq(600, func(i int) string { return strconv.Itoa(i * 3) })}, 0)
	add(0, "set:bigstr", Value{Type: TypeSet, Set: seq(1000, func(i int) string { return "member:" + strconv.Itoa(i) })}, expireBase+2)

	add(0, "zset:small", Value{Type: TypeZSet, ZSet: []ZMember{
		{[]byte("a"), 1}, {[]byte("b"), 2.5}, {[]byte("c"), math.Inf(-1)}, {[]byte("d"), math.Inf(1)},
		{[]byte("e"), 1e20}, {[]byte("f"), -0.1}, {[]byte("g"), 1.0 / 3}, {[]byte("h"), 1}, {[]byte("i"), -3},
		{[]byte("j"), 123456789012}, {[]byte("k"), 5e-324}, {[]byte("l"), 4611686018427387904}}}, 0)
	big := make([]ZMember, 200)
	for i := range big {
		big[i] = ZMember{[]byte("m" + strconv.Itoa(i)), float64(i%50) * 1.25}
	}
	add(0, "zset:big", Value{Type: TypeZSet, ZSet: big}, 0)
	add(0, "zset:longmember", Value{Type: TypeZSet, ZSet: []ZMember{{[]byte(strings.Repeat("m", 65)), 1}, {[]byte("x"), 2}}}, 0)

	add(0, "hash:small", Value{Type: TypeHash, Hash: []HashField{
		{[]byte("f1"), []byte("v1")}, {[]byte("f2"), []byte("123")}, {[]byte("3"), []byte("")}, {[]byte("-4"), []byte("-9999999")}}}, 0)
	h := make([]HashField, 200)
	for i := range h {
		h[i] = HashField{[]byte("field" + strconv.Itoa(i)), []byte("value" + strconv.Itoa(i*i))}
	}
	add(0, "hash:big", Value{Type: TypeHash, Hash: h}, expireBase+3)
	hh := make([]HashField, 600)
	for i := range hh {
		hh[i] = HashField{[]byte("f" + strconv.Itoa(i)), []byte(strconv.Itoa(i))}
	}
	add(0, "hash:huge", Value{Type: TypeHash, Hash: hh}, 0)
	add(0, "hash:longvalue", Value{Type: TypeHash, Hash: []HashField{{[]byte("a"), []byte(strings.Repeat("v", 100))}}}, 0)

	add(1, "db1:str", str("in db 1"), 0)
	add(1, "db1:hash", Value{Type: TypeHash, Hash: []HashField{{[]byte("x"), []byte("y")}}}, expireBase+4)
	add(5, "db5:list", Value{Type: TypeList, List: bs("only")}, 0)
	return es
}

// loadByCommands builds the dataset in a Redis with ordinary commands.
func loadByCommands(p *redisProc, es []Entry) {
	db := -1
	for _, e := range es {
		if e.DB != db {
			p.do("SELECT", e.DB)
			db = e.DB
		}
		k := e.Key
		v := e.Value
		switch v.Type {
		case TypeString:
			p.do("SET", k, v.String)
		case TypeList:
			for i := 0; i < len(v.List); i += 500 {
				args := []any{"RPUSH", k}
				for _, x := range v.List[i:min(i+500, len(v.List))] {
					args = append(args, x)
				}
				p.do(args...)
			}
		case TypeSet:
			args := []any{"SADD", k}
			for _, x := range v.Set {
				args = append(args, x)
			}
			p.do(args...)
		case TypeZSet:
			args := []any{"ZADD", k}
			for _, m := range v.ZSet {
				args = append(args, strconv.FormatFloat(m.Score, 'g', 17, 64), m.Member)
			}
			p.do(args...)
		case TypeHash:
			args := []any{"HSET", k}
			for _, f := range v.Hash {
				args = append(args, f.Field, f.Value)
			}
			p.do(args...)
		}
		if e.HasExpire {
			p.do("PEXPIREAT", k, e.Expire)
		}
	}
	p.do("SELECT", 0)
}

// redisValue reads a key back from Redis into the neutral model (sets
// sorted, zsets in ZRANGE order, lists and hashes in Redis's order).
func redisValue(t *testing.T, p *redisProc, key []byte) (Value, int64, string) {
	t.Helper()
	typ := p.do("TYPE", key).(string)
	enc := p.do("OBJECT", "ENCODING", key).(string)
	pexp := p.do("PEXPIRETIME", key).(int64)
	strs := func(r any) [][]byte {
		var out [][]byte
		for _, x := range r.([]any) {
			out = append(out, []byte(x.(string)))
		}
		return out
	}
	var v Value
	switch typ {
	case "string":
		v = Value{Type: TypeString, String: []byte(p.do("GET", key).(string))}
	case "list":
		v = Value{Type: TypeList, List: strs(p.do("LRANGE", key, 0, -1))}
	case "set":
		s := strs(p.do("SMEMBERS", key))
		slices.SortFunc(s, bytes.Compare)
		v = Value{Type: TypeSet, Set: s}
	case "zset":
		r := strs(p.do("ZRANGE", key, 0, -1, "WITHSCORES"))
		v = Value{Type: TypeZSet}
		for i := 0; i < len(r); i += 2 {
			f, err := strconv.ParseFloat(string(r[i+1]), 64)
			if err != nil {
				t.Fatal(err)
			}
			v.ZSet = append(v.ZSet, ZMember{r[i], f})
		}
	case "hash":
		r := strs(p.do("HGETALL", key))
		v = Value{Type: TypeHash}
		for i := 0; i < len(r); i += 2 {
			v.Hash = append(v.Hash, HashField{r[i], r[i+1]})
		}
	default:
		t.Fatalf("key %q: type %s", key, typ)
	}
	return v, pexp, enc
}

// canonical puts a value in the order redisValue uses.
func canonical(v Value, hashInOrder bool) Value {
	v.Encoding = 0
	switch v.Type {
	case TypeSet:
		v.Set = slices.Clone(v.Set)
		slices.SortFunc(v.Set, bytes.Compare)
	case TypeZSet:
		v.ZSet = slices.Clone(v.ZSet)
		slices.SortStableFunc(v.ZSet, func(a, b ZMember) int {
			if a.Score != b.Score {
				if a.Score < b.Score {
					return -1
				}
				return 1
			}
			return bytes.Compare(a.Member, b.Member)
		})
	case TypeHash:
		if !hashInOrder {
			v.Hash = slices.Clone(v.Hash)
			slices.SortFunc(v.Hash, func(a, b HashField) int { return bytes.Compare(a.Field, b.Field) })
		}
	}
	return v
}

func sameValue(a, b Value) bool {
	return describe(canonical(a, false)) == describe(canonical(b, false))
}

// describe prints a value deterministically (nil and empty alike).
func describe(v Value) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s ", v.Type)
	switch v.Type {
	case TypeString:
		fmt.Fprintf(&sb, "%q", v.String)
	case TypeList:
		for _, x := range v.List {
			fmt.Fprintf(&sb, "%q ", x)
		}
	case TypeSet:
		for _, x := range v.Set {
			fmt.Fprintf(&sb, "%q ", x)
		}
	case TypeZSet:
		for _, m := range v.ZSet {
			fmt.Fprintf(&sb, "%q=%v ", m.Member, m.Score)
		}
	case TypeHash:
		for _, f := range v.Hash {
			fmt.Fprintf(&sb, "%q=%q ", f.Field, f.Value)
		}
	}
	return sb.String()
}

func encodingName(e Encoding) string {
	switch e {
	case EncodingRaw:
		return "string"
	}
	return e.String()
}

// compareWithRedis checks that every entry is in p with the same value,
// expiry and (if checkEnc) encoding, and that p holds nothing else.
func compareWithRedis(t *testing.T, p *redisProc, es []Entry, checkEnc bool) {
	t.Helper()
	perDB := map[int]int{}
	for _, e := range es {
		perDB[e.DB]++
	}
	for db := 0; db < 16; db++ {
		p.do("SELECT", db)
		if n := p.do("DBSIZE").(int64); n != int64(perDB[db]) {
			t.Errorf("db %d has %d keys, want %d", db, n, perDB[db])
		}
	}
	db := -1
	for _, e := range es {
		if e.DB != db {
			p.do("SELECT", e.DB)
			db = e.DB
		}
		v, pexp, enc := redisValue(t, p, e.Key)
		if !sameValue(v, e.Value) {
			t.Errorf("db %d key %q: redis has %.300s, we have %.300s", e.DB, e.Key, describe(canonical(v, false)), describe(canonical(e.Value, false)))
		}
		want := int64(-1)
		if e.HasExpire {
			want = e.Expire
		}
		if pexp != want {
			t.Errorf("key %q: PEXPIRETIME %d, want %d", e.Key, pexp, want)
		}
		if checkEnc {
			got := enc
			if got == "embstr" || got == "int" || got == "raw" {
				got = "string"
			}
			if got != encodingName(e.Value.Encoding) {
				t.Errorf("key %q: redis encoding %s, ours %s", e.Key, enc, e.Value.Encoding)
			}
		}
	}
	p.do("SELECT", 0)
}

const testLibrary = "#!lua name=rdbtestlib\nredis.register_function('rdbtest_f', function(keys, args) return 42 end)"

func TestOracleReadRedisFiles(t *testing.T) {
	dir := t.TempDir()
	src := startRedis(t, dir)
	expireBase := time.Now().Add(time.Hour).UnixMilli()
	es := oracleDataset(expireBase)
	loadByCommands(src, es)
	src.do("FUNCTION", "LOAD", testLibrary)
	for _, compression := range []string{"yes", "no"} {
		t.Run("rdbcompression="+compression, func(t *testing.T) {
			src.do("CONFIG", "SET", "rdbcompression", compression)
			src.do("SAVE")
			data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Decode(bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Version != 10 {
				t.Errorf("version %d", s.Version)
			}
			aux := map[string]string{}
			for _, a := range s.Aux {
				aux[string(a.Key)] = string(a.Value)
			}
			if aux["redis-ver"] != "7.0.15" || aux["redis-bits"] != "64" || aux["aof-base"] != "0" {
				t.Errorf("aux %q", aux)
			}
			// Our writer writes the same aux fields in the same order.
			var ours bytes.Buffer
			if err := Encode(&ours, &Snapshot{}, WriterOptions{}); err != nil {
				t.Fatal(err)
			}
			mine, err := Decode(bytes.NewReader(ours.Bytes()), nil)
			if err != nil {
				t.Fatal(err)
			}
			var theirKeys, ourKeys []string
			for _, a := range s.Aux {
				theirKeys = append(theirKeys, string(a.Key))
			}
			for _, a := range mine.Aux {
				ourKeys = append(ourKeys, string(a.Key))
			}
			if !slices.Equal(theirKeys, ourKeys) {
				t.Errorf("aux fields: redis %q, ours %q", theirKeys, ourKeys)
			}
			if len(s.Functions) != 1 || string(s.Functions[0]) != testLibrary {
				t.Errorf("functions %q", s.Functions)
			}
			if len(s.Entries) != len(es) {
				t.Fatalf("%d keys, want %d", len(s.Entries), len(es))
			}
			// Re-encoding what we read, in the file's order and with its aux
			// values, gives Redis's file byte for byte.
			ctime, _ := strconv.ParseInt(aux["ctime"], 10, 64)
			usedMem, _ := strconv.ParseInt(aux["used-mem"], 10, 64)
			var again bytes.Buffer
			if err := Encode(&again, s, WriterOptions{NoCompression: compression == "no", CTime: time.Unix(ctime, 0), UsedMem: usedMem}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), data) {
				n := 0
				for n < len(data) && n < again.Len() && data[n] == again.Bytes()[n] {
					n++
				}
				t.Errorf("re-encoded file differs from Redis's at byte %d of %d (ours %d bytes)", n, len(data), again.Len())
			}
			// compare with Redis (values, TTLs, encodings) and with the dataset
			compareWithRedis(t, src, s.Entries, true)
			byKey := map[string]Entry{}
			for _, e := range s.Entries {
				byKey[fmt.Sprint(e.DB, string(e.Key))] = e
			}
			for _, e := range es {
				g, ok := byKey[fmt.Sprint(e.DB, string(e.Key))]
				if !ok || !sameValue(g.Value, e.Value) || g.HasExpire != e.HasExpire || g.Expire != e.Expire {
					t.Errorf("key %q differs from the dataset", e.Key)
				}
				if e.Value.Type == TypeHash || e.Value.Type == TypeList {
					// listpack hashes and lists keep insertion order
					if g.Value.Encoding != EncodingHashtable && describe(canonical(g.Value, true)) != describe(canonical(e.Value, true)) {
						t.Errorf("key %q: order differs", e.Key)
					}
				}
			}
		})
	}
}

// redisEncodings returns each key's OBJECT ENCODING as an Encoding.
func withRedisEncodings(t *testing.T, p *redisProc, es []Entry) []Entry {
	out := slices.Clone(es)
	db := -1
	for i := range out {
		if out[i].DB != db {
			p.do("SELECT", out[i].DB)
			db = out[i].DB
		}
		enc := p.do("OBJECT", "ENCODING", out[i].Key).(string)
		switch enc {
		case "embstr", "int", "raw":
			out[i].Value.Encoding = EncodingRaw
		case "quicklist":
			out[i].Value.Encoding = EncodingQuicklist
		case "intset":
			out[i].Value.Encoding = EncodingIntset
		case "hashtable":
			out[i].Value.Encoding = EncodingHashtable
		case "listpack":
			out[i].Value.Encoding = EncodingListpack
		case "skiplist":
			out[i].Value.Encoding = EncodingSkiplist
		default:
			t.Fatalf("encoding %s", enc)
		}
	}
	p.do("SELECT", 0)
	return out
}

func TestOracleWriteFiles(t *testing.T) {
	checkRDB := testredis.RequireTool(t, "redis-check-rdb")
	dir := t.TempDir()
	ref := startRedis(t, dir)
	expireBase := time.Now().Add(time.Hour).UnixMilli()
	es := oracleDataset(expireBase)
	loadByCommands(ref, es)
	ref.do("FUNCTION", "LOAD", testLibrary)
	// Auto encoding must agree with what Redis chose building the dataset.
	withEnc := withRedisEncodings(t, ref, es)
	for i := range es {
		if got := AutoEncoding(&es[i].Value, Limits{}); got != withEnc[i].Value.Encoding {
			t.Errorf("key %q: auto encoding %s, redis %s", es[i].Key, got, withEnc[i].Value.Encoding)
		}
	}
	refDigest := ref.do("DEBUG", "DIGEST").(string)
	for _, opts := range []WriterOptions{{}, {NoCompression: true}, {NoChecksum: true}} {
		t.Run(fmt.Sprintf("nocompression=%v,nochecksum=%v", opts.NoCompression, opts.NoChecksum), func(t *testing.T) {
			wdir := t.TempDir()
			path := filepath.Join(wdir, "ours.rdb")
			var buf bytes.Buffer
			snap := &Snapshot{Entries: es, Functions: [][]byte{[]byte(testLibrary)}}
			if err := Encode(&buf, snap, opts); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(checkRDB, path).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "RDB looks OK") {
				t.Fatalf("redis-check-rdb: %v\n%s", err, out)
			}
			p := startRedis(t, wdir, "--dbfilename", "ours.rdb")
			compareWithRedis(t, p, withEnc, true)
			if d := p.do("DEBUG", "DIGEST").(string); d != refDigest {
				t.Errorf("DEBUG DIGEST %s, reference %s", d, refDigest)
			}
			libs := fmt.Sprint(p.do("FUNCTION", "LIST"))
			if !strings.Contains(libs, "rdbtestlib") {
				t.Errorf("FUNCTION LIST %s", libs)
			}
			// And what Redis saves of it, we read back unchanged.
			p.do("SAVE")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Decode(bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Entries) != len(es) {
				t.Fatalf("resaved %d keys", len(s.Entries))
			}
		})
	}
}

// TestOracleDump compares our DUMP payloads with Redis's byte for byte where
// Redis's are deterministic, and RESTOREs ours in Redis for every key.
func TestOracleDump(t *testing.T) {
	dir := t.TempDir()
	p := startRedis(t, dir)
	expireBase := time.Now().Add(time.Hour).UnixMilli()
	es := oracleDataset(expireBase)
	loadByCommands(p, es)
	withEnc := withRedisEncodings(t, p, es)
	for _, compression := range []string{"yes", "no"} {
		p.do("CONFIG", "SET", "rdbcompression", compression)
		db := -1
		identical := 0
		for _, e := range withEnc {
			if e.DB != db {
				p.do("SELECT", e.DB)
				db = e.DB
			}
			theirs := []byte(p.do("DUMP", e.Key).(string))
			ours, err := EncodeDump(&e.Value, DumpOptions{NoCompression: compression == "no"})
			if err != nil {
				t.Fatal(err)
			}
			deterministic := e.Value.Encoding != EncodingHashtable
			if deterministic {
				if !bytes.Equal(ours, theirs) {
					t.Errorf("compression %s key %q (%s): DUMP differs\n ours % x\nredis % x", compression, e.Key, e.Value.Encoding, head(ours), head(theirs))
				} else {
					identical++
				}
			}
			// Redis's payload decodes to the same value.
			v, err := DecodeDump(theirs, nil)
			if err != nil {
				t.Fatalf("key %q: %v", e.Key, err)
			}
			if !sameValue(*v, e.Value) {
				t.Errorf("key %q: decoded DUMP differs", e.Key)
			}
			if v.Encoding != e.Value.Encoding {
				t.Errorf("key %q: decoded encoding %s, redis %s", e.Key, v.Encoding, e.Value.Encoding)
			}
			// Ours restores to the same value.
			copyKey := append([]byte("restored:"), e.Key...)
			p.do("RESTORE", copyKey, 0, ours, "REPLACE")
			rv, _, enc := redisValue(t, p, copyKey)
			if !sameValue(rv, e.Value) {
				t.Errorf("key %q: restored value differs", e.Key)
			}
			if enc != p.do("OBJECT", "ENCODING", e.Key).(string) {
				t.Errorf("key %q: restored encoding %s", e.Key, enc)
			}
			p.do("DEL", copyKey)
		}
		if identical < 20 {
			t.Errorf("only %d identical payloads", identical)
		}
		p.do("SELECT", 0)
	}
	// Redis refuses what we refuse.
	bad, _ := EncodeDump(&Value{Type: TypeString, String: []byte("x")}, DumpOptions{})
	bad[len(bad)-10] = 11
	if _, err := p.conn.do("RESTORE", "bad", 0, bad); err == nil || !strings.Contains(err.Error(), "DUMP payload version or checksum are wrong") {
		t.Errorf("redis accepted version 11: %v", err)
	}
}

func head(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// TestOracleLZF compares our LZF output with Redis's on many strings: the
// DUMP of a string over 20 bytes holds Redis's compressed form.
func TestOracleLZF(t *testing.T) {
	p := startRedis(t, t.TempDir())
	r := newTestRand(3)
	same, compressed := 0, 0
	for i := 0; i < 300; i++ {
		n := 21 + r.Intn(3000)
		alpha := 1 + r.Intn(12)
		b := make([]byte, n)
		for j := range b {
			if r.Intn(8) == 0 {
				b[j] = byte(r.Intn(256))
			} else {
				b[j] = byte('a' + r.Intn(alpha))
			}
		}
		p.do("SET", "k", b)
		theirs := []byte(p.do("DUMP", "k").(string))
		ours, err := EncodeDump(&Value{Type: TypeString, String: b}, DumpOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if theirs[1] == 0xC3 {
			compressed++
		}
		if bytes.Equal(ours, theirs) {
			same++
		} else if v, err := DecodeDump(theirs, nil); err != nil || !bytes.Equal(v.String, b) {
			t.Fatalf("redis's payload does not decode: %v", err)
		}
	}
	t.Logf("%d of 300 identical (%d compressed by Redis)", same, compressed)
	if same < 295 || compressed < 100 {
		t.Errorf("only %d of 300 LZF payloads identical (%d compressed)", same, compressed)
	}
}

// TestOracleLRULFU: Redis writes IDLE under an LRU policy and FREQ under an
// LFU one; we read both, and Redis loads ours into OBJECT IDLETIME/FREQ.
func TestOracleLRULFU(t *testing.T) {
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu"} {
		dir := t.TempDir()
		p := startRedis(t, dir, "--maxmemory-policy", policy)
		p.do("SET", "k", "v")
		p.do("SAVE")
		data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Decode(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		e := s.Entries[0]
		if policy == "allkeys-lru" && (!e.HasLRUIdle || e.HasLFUFreq || e.LRUIdle > 5) {
			t.Errorf("%s: %+v", policy, e)
		}
		if policy == "allkeys-lfu" && (!e.HasLFUFreq || e.HasLRUIdle) {
			t.Errorf("%s: %+v", policy, e)
		}
		// Now ours.
		e = Entry{Key: []byte("k"), Value: Value{Type: TypeString, String: []byte("v")}}
		if policy == "allkeys-lru" {
			e.LRUIdle, e.HasLRUIdle = 1000, true
		} else {
			e.LFUFreq, e.HasLFUFreq = 77, true
		}
		var buf bytes.Buffer
		if err := Encode(&buf, &Snapshot{Entries: []Entry{e}}, WriterOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ours.rdb"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		q := startRedis(t, dir, "--maxmemory-policy", policy, "--dbfilename", "ours.rdb")
		if policy == "allkeys-lru" {
			if idle := q.do("OBJECT", "IDLETIME", "k").(int64); idle < 1000 || idle > 1005 {
				t.Errorf("OBJECT IDLETIME %d", idle)
			}
		} else if freq := q.do("OBJECT", "FREQ", "k").(int64); freq != 77 {
			t.Errorf("OBJECT FREQ %d", freq)
		}
	}
}

// TestOracleQuicklistPlain lowers Redis's packed threshold so that big list
// elements get PLAIN nodes, and compares DUMPs.
func TestOracleQuicklistPlain(t *testing.T) {
	p := startRedis(t, t.TempDir())
	p.do("DEBUG", "QUICKLIST-PACKED-THRESHOLD", 100)
	list := [][]byte{[]byte("a"), bytes.Repeat([]byte("P"), 150), []byte("b"), []byte("c"), bytes.Repeat([]byte("Q"), 100), []byte("d")}
	args := []any{"RPUSH", "l"}
	for _, x := range list {
		args = append(args, x)
	}
	p.do(args...)
	theirs := []byte(p.do("DUMP", "l").(string))
	v, err := DecodeDump(theirs, nil)
	if err != nil || !sameValue(*v, Value{Type: TypeList, List: list}) {
		t.Fatalf("decoded %v: %s", err, describe(*v))
	}
	ours, err := EncodeDump(&Value{Type: TypeList, List: list}, DumpOptions{Limits: Limits{ListPackedThreshold: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Errorf("DUMP differs\n ours % x\nredis % x", ours, theirs)
	}
	p.do("DEBUG", "QUICKLIST-PACKED-THRESHOLD", 0)
}

// TestOracleQuicklistFill checks node splitting for other list-max-listpack-size values.
func TestOracleQuicklistFill(t *testing.T) {
	p := startRedis(t, t.TempDir())
	r := newTestRand(5)
	for _, fill := range []int{-1, -3, -5, 1, 5, 100} {
		p.do("CONFIG", "SET", "list-max-listpack-size", fill)
		p.do("DEL", "l")
		var list [][]byte
		args := []any{"RPUSH", "l"}
		for i := 0; i < 400; i++ {
			var el []byte
			if r.Intn(3) == 0 {
				el = []byte(strconv.Itoa(r.Intn(1 << 20)))
			} else {
				el = bytes.Repeat([]byte{byte('a' + r.Intn(26))}, r.Intn(400))
			}
			list = append(list, el)
			args = append(args, el)
		}
		p.do(args...)
		theirs := []byte(p.do("DUMP", "l").(string))
		ours, err := EncodeDump(&Value{Type: TypeList, List: list}, DumpOptions{Limits: Limits{ListMaxListpackSize: fill}})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("fill %d: DUMP differs (ours %d bytes, redis %d)", fill, len(ours), len(theirs))
		}
	}
}

// TestOracleStreamFile: a file Redis saved with a stream in it is read,
// the stream included (stream_oracle_test.go checks streams in depth).
func TestOracleStreamFile(t *testing.T) {
	dir := t.TempDir()
	p := startRedis(t, dir)
	p.do("SET", "a", "1")
	p.do("XADD", "s", "1-1", "f", "v")
	p.do("SAVE")
	data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Decode(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range snap.Entries {
		if string(e.Key) == "s" && (e.Value.Type != TypeStream || e.Value.Stream.Len() != 1 || e.Value.Stream.LastID().String() != "1-1") {
			t.Fatalf("stream read as %+v", e.Value)
		}
	}
	var out bytes.Buffer
	if err := Encode(&out, snap, WriterOptions{CTime: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(bytes.NewReader(out.Bytes()), nil); err != nil {
		t.Fatalf("re-reading our file: %v", err)
	}
}
