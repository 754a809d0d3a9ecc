package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/propagate"
)

// The AOF paths that are not the everyday multi-part one, against
// redis-server 7.0.15: a single-file AOF of Redis 6 migrated into the
// directory at start, a base written as commands (aof-use-rdb-preamble
// no), and DEBUG LOADAOF.

// resp encodes commands as an AOF holds them.
func resp(cmds ...[]string) []byte {
	var out []byte
	for _, c := range cmds {
		args := make([][]byte, len(c))
		for i, a := range c {
			args[i] = []byte(a)
		}
		out = propagate.AppendCommand(out, args)
	}
	return out
}

// aofDirState is what a test compares of an AOF directory: the manifest
// and each file's name and size.
func aofDirState(t *testing.T, dir string) (manifest string, files []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	ls, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ls {
		info, _ := f.Info()
		files = append(files, f.Name()+" "+strconv.FormatInt(info.Size(), 10))
	}
	return string(data), files
}

var logSeconds = regexp.MustCompile(`[0-9]+\.[0-9]+ seconds`)

// logMessages are the lines of a Redis-format log that contain one of
// subs, without the pid, role, time and level, seconds masked.
func logMessages(log string, subs ...string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		for _, s := range subs {
			if strings.Contains(line, s) {
				if i := strings.Index(line, s); i >= 0 {
					// The message starts after the level marker ("* ", "# ").
					if j := strings.LastIndex(line[:i], "* "); j >= 0 {
						line = line[j+2:]
					} else if j := strings.LastIndex(line[:i], "# "); j >= 0 {
						line = line[j+2:]
					}
				}
				out = append(out, logSeconds.ReplaceAllString(strings.TrimSpace(line), "N seconds"))
				break
			}
		}
	}
	return out
}

// waitLog waits for the process's output to hold want (it reaches the
// buffer through a pipe, possibly after the server answers).
func waitLog(log func() string, want string) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(log(), want) {
			return true
		}
	}
	return strings.Contains(log(), want)
}

// preambleFromRedis has a real Redis write an RDB-preamble base of a
// dataset of every type, as a Redis 6 with aof-use-rdb-preamble yes
// writes the head of its single file.
func preambleFromRedis(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	c, p := startRedisOn(t, dir, "--appendonly", "yes", "--aof-use-rdb-preamble", "yes")
	for _, cmd := range legacyDataset {
		if r := c.MustDo(t, cmd...); r.IsError() {
			t.Fatalf("%q: %s", cmd, r.Str)
		}
	}
	c.MustDo(t, "BGREWRITEAOF")
	waitAOFRewrite(t, c)
	data, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	m, err := aof.Parse("appendonly.aof", data)
	if err != nil || m.Base == nil {
		t.Fatalf("Redis's manifest %q: %v", data, err)
	}
	base, err := os.ReadFile(filepath.Join(dir, "appendonlydir", m.Base.Name))
	if err != nil || !bytes.HasPrefix(base, []byte("REDIS")) {
		t.Fatalf("Redis's base %s: %v", m.Base.Name, err)
	}
	p.Stop()
	return base
}

var legacyDataset = [][]string{
	{"SET", "s", "v"}, {"SET", "n", "42"}, {"RPUSH", "l", "a", "b", "3"}, {"SADD", "is", "3", "1", "2"},
	{"SADD", "ss", "x", "y"}, {"ZADD", "z", "1.5", "a", "-2", "b"}, {"HSET", "h", "f", "v", "g", "1"},
	{"XADD", "st", "1-1", "f", "v"}, {"XADD", "st", "2-1", "g", "w"}, {"XGROUP", "CREATE", "st", "grp", "0"},
	{"SET", "ttl", "v"}, {"PEXPIREAT", "ttl", "4102444800000"},
	{"FUNCTION", "LOAD", "#!lua name=legacylib\nredis.register_function('legacyf', function() return 1 end)"},
	{"SELECT", "5"}, {"SET", "in5", "x"},
}

// legacyTail is what a Redis 6 appends after its preamble: commands,
// a transaction among them.
var legacyTail = [][]string{
	{"SELECT", "0"}, {"SET", "tail", "1"}, {"RPUSH", "l", "c"}, {"MULTI"}, {"INCR", "n"}, {"HSET", "h", "t", "x"}, {"EXEC"},
	{"SELECT", "2"}, {"ZADD", "z2", "3", "m"}, {"PEXPIREAT", "z2", "4102444800000"},
}

// TestAOFLegacyMigration: a data dir holding only appendonly.aof (the
// appendfilename, as Redis 6 leaves it), commands only or an RDB preamble
// and commands, started with appendonly yes: both servers move it into
// appendonlydir as the base, under its own name, add an incr file, write
// the same manifest and log the same lines, and load the same dataset.
func TestAOFLegacyMigration(t *testing.T) {
	requireServers(t)
	cases := []struct {
		name string
		file func(t *testing.T) []byte
		logs []string // lines both must log
	}{
		{"commands only", func(t *testing.T) []byte {
			return resp(append(append([][]string{{"SELECT", "0"}}, legacyDataset...), legacyTail...)...)
		}, nil},
		{"rdb preamble", func(t *testing.T) []byte {
			return append(preambleFromRedis(t), resp(legacyTail...)...)
		}, []string{"Reading RDB preamble from AOF file...", "Reading the remaining AOF tail..."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			legacy := tc.file(t)
			rdir, ldir := t.TempDir(), t.TempDir()
			for _, d := range []string{rdir, ldir} {
				if err := os.WriteFile(filepath.Join(d, "appendonly.aof"), legacy, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, rp := startRedisOn(t, rdir, "--appendonly", "yes")
			lp := startLimitkvProc(t, ldir, false, "--appendonly", "yes")
			l := dialRaw(t, "limitkv", lp.Addr)
			rd, ld := r.MustDo(t, "DEBUG", "DIGEST").Str, l.MustDo(t, "DEBUG", "DIGEST").Str
			if rd != ld || rd == strings.Repeat("0", 40) {
				t.Errorf("after the migration: redis digest %s, limitkv %s", rd, ld)
			}
			for _, d := range []string{rdir, ldir} {
				if _, err := os.Stat(filepath.Join(d, "appendonly.aof")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: appendonly.aof still in the data dir (%v)", d, err)
				}
			}
			rman, rfiles := aofDirState(t, filepath.Join(rdir, "appendonlydir"))
			lman, lfiles := aofDirState(t, filepath.Join(ldir, "appendonlydir"))
			if rman != lman || !slices.Equal(rfiles, lfiles) {
				t.Errorf("appendonlydir: redis %q %q, limitkv %q %q", rman, rfiles, lman, lfiles)
			}
			t.Logf("manifest after the migration (both):\n%s", rman)
			subs := []string{"migrated an old-style AOF", "DB loaded from base file", "Creating AOF incr file",
				"Reading RDB preamble", "Reading the remaining AOF tail"}
			want := logMessages(rp.Log(), subs...)
			for _, s := range tc.logs {
				if !slices.Contains(want, s) {
					t.Errorf("Redis did not log %q:\n%s", s, rp.Log())
				}
			}
			waitLog(lp.Log, "Creating AOF incr file")
			t.Logf("Redis's lines: %q", want)
			if got := logMessages(lp.Log(), subs...); !slices.Equal(got, want) {
				t.Errorf("log lines: limitkv %q, redis %q", got, want)
			}
			// Both go on from there: a write, a rewrite, a restart.
			for _, c := range []*RawConn{r, l} {
				c.MustDo(t, "SET", "after", "1")
				c.MustDo(t, "BGREWRITEAOF")
				waitAOFRewrite(t, c)
			}
			digest := l.MustDo(t, "DEBUG", "DIGEST").Str
			term(t, lp)
			checkAOF(t, filepath.Join(ldir, "appendonlydir", "appendonly.aof.manifest"))
			l2 := startLimitkvProc(t, ldir, false, "--appendonly", "yes")
			if got := dialRaw(t, "limitkv", l2.Addr).MustDo(t, "DEBUG", "DIGEST").Str; got != digest || got != r.MustDo(t, "DEBUG", "DIGEST").Str {
				t.Errorf("restart after the migration: digest %s, want %s", got, digest)
			}
		})
	}
}

// cmdBaseDataset covers every type in each encoding Redis 7.0 has for it,
// collections over AOF_REWRITE_ITEMS_PER_CMD, absolute deadlines and
// pending entries with fixed delivery times (so the two bases can be
// compared byte for byte), a function library and a second database.
func cmdBaseDataset() [][]string {
	cmds := [][]string{
		{"SET", "str", "hello"}, {"SET", "int", "12345"}, {"SET", "long", strings.Repeat("x", 100)},
		{"SET", "ttl", "v"}, {"PEXPIREAT", "ttl", "4102444800123"},
		{"RPUSH", "list", "a", "b", "c", "1", "-2", "300000"},
		{"SADD", "intset", "30", "1", "-2", "7"},
		{"ZADD", "zset", "1", "a", "2.5", "b", "-3", "c", "0.1", "d", "1e20", "e", "inf", "f", "-inf", "g"},
		{"HSET", "hash", "f1", "v1", "f2", "2", "f3", ""},
		{"XADD", "stream", "1-1", "f", "v"}, {"XADD", "stream", "2-1", "a", "b", "c", "d"}, {"XADD", "stream", "3-0", "x", "y"},
		{"XADD", "stream", "4-0", "f", "v"}, {"XDEL", "stream", "2-1"},
		{"XGROUP", "CREATE", "stream", "g1", "0"}, {"XGROUP", "CREATE", "stream", "g0", "$", "ENTRIESREAD", "3"},
		{"XGROUP", "CREATE", "stream", "gmid", "3-0"}, // entries read unknown: ENTRIESREAD -1
		{"XGROUP", "CREATECONSUMER", "stream", "g1", "alice"},
		{"XCLAIM", "stream", "g1", "bob", "0", "1-1", "TIME", "1700000000000", "RETRYCOUNT", "3", "FORCE", "JUSTID"},
		{"XCLAIM", "stream", "g1", "bob", "0", "3-0", "TIME", "1700000000500", "RETRYCOUNT", "1", "FORCE", "JUSTID"},
		{"XCLAIM", "stream", "g0", "carol", "0", "4-0", "TIME", "1700000000900", "RETRYCOUNT", "2", "FORCE", "JUSTID"},
		{"XADD", "emptystream", "MAXLEN", "0", "5-5", "x", "y"},
		{"FUNCTION", "LOAD", "#!lua name=baselib\nredis.register_function('basef', function(keys, args) return 1 end)"},
	}
	big := func(cmd, key string, n int, item func(i int) []string) {
		c := []string{cmd, key}
		for i := 0; i < n; i++ {
			c = append(c, item(i)...)
		}
		cmds = append(cmds, c)
	}
	big("RPUSH", "biglist", 200, func(i int) []string { return []string{"e" + strconv.Itoa(i)} })
	big("SADD", "bigintset", 130, func(i int) []string { return []string{strconv.Itoa(i * 3)} })
	// Unordered in Redis (hash tables): compared as sets of items.
	big("SADD", "ht:set", 100, func(i int) []string { return []string{"m" + strconv.Itoa(i)} })
	big("ZADD", "ht:zset", 200, func(i int) []string { return []string{strconv.Itoa(i) + ".5", "z" + strconv.Itoa(i)} })
	big("HSET", "ht:hash", 600, func(i int) []string { return []string{"f" + strconv.Itoa(i), "v" + strconv.Itoa(i)} })
	cmds = append(cmds, []string{"HSET", "ht:hashlong", "f", strings.Repeat("y", 100)},
		[]string{"PEXPIREAT", "biglist", "4102444800000"},
		[]string{"SELECT", "3"}, []string{"SET", "db3", "x"}, []string{"HSET", "h3", "a", "b"}, []string{"SELECT", "0"})
	return cmds
}

// baseBlocks splits a base of commands into its functions and, per
// database, each key's commands (their bytes as written).
func baseBlocks(t *testing.T, data []byte) (funcs []string, keys map[string][]byte) {
	t.Helper()
	keys = map[string][]byte{}
	rd := aof.NewReader(bufio.NewReader(bytes.NewReader(data)), 0)
	db, prev := "", int64(0)
	for {
		args, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return funcs, keys
		}
		if err != nil {
			t.Fatalf("base at %d: %v", rd.Offset(), err)
		}
		raw := data[prev:rd.Offset()]
		prev = rd.Offset()
		switch name := strings.ToUpper(string(args[0])); {
		case name == "SELECT":
			db = string(args[1])
		case name == "FUNCTION":
			funcs = append(funcs, string(args[2]))
		case name == "XGROUP":
			keys[db+"/"+string(args[2])] = append(keys[db+"/"+string(args[2])], raw...)
		default:
			keys[db+"/"+string(args[1])] = append(keys[db+"/"+string(args[1])], raw...)
		}
	}
}

// items are a block's commands with their elements sorted, for values
// Redis keeps in hash tables (and writes in the table's order).
func items(t *testing.T, block []byte) []string {
	rd := aof.NewReader(bufio.NewReader(bytes.NewReader(block)), 0)
	var out []string
	for {
		args, err := rd.Next()
		if err != nil {
			break
		}
		width := 1
		if n := strings.ToUpper(string(args[0])); n == "ZADD" || n == "HMSET" {
			width = 2
		}
		out = append(out, string(args[0])+" "+strconv.Itoa(len(args)))
		for i := 2; i+width <= len(args); i += width {
			out = append(out, string(bytes.Join(args[i:i+width], []byte(" "))))
		}
	}
	sort.Strings(out)
	return out
}

// readBase is the base the manifest in dir names, and its name.
func readBase(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := aof.Parse("appendonly.aof", data)
	if err != nil || m.Base == nil {
		t.Fatalf("manifest %q: %v", data, err)
	}
	base, err := os.ReadFile(filepath.Join(dir, m.Base.Name))
	if err != nil {
		t.Fatal(err)
	}
	return m.Base.Name, base
}

// compareBases compares limitkv's base of commands with Redis's: the same
// functions, the same keys, each key's commands the same bytes (the same
// items for hash-table values). It reports whether the whole files are
// identical.
func compareBases(t *testing.T, got, want []byte) bool {
	t.Helper()
	gf, gk := baseBlocks(t, got)
	wf, wk := baseBlocks(t, want)
	if !slices.Equal(gf, wf) {
		t.Errorf("functions: limitkv %q, redis %q", gf, wf)
	}
	var same, reordered []string
	for k, w := range wk {
		g, ok := gk[k]
		switch {
		case !ok:
			t.Errorf("key %s: missing from limitkv's base", k)
		case bytes.Equal(g, w):
			same = append(same, k)
		case strings.Contains(k, "/ht:"):
			if !slices.Equal(items(t, g), items(t, w)) {
				t.Errorf("key %s: limitkv's items differ from Redis's", k)
			}
			reordered = append(reordered, k)
		default:
			t.Errorf("key %s:\nlimitkv %q\nredis   %q", k, g, w)
		}
	}
	sort.Strings(same)
	sort.Strings(reordered)
	t.Logf("keys byte-identical: %q; same items in another order: %q", same, reordered)
	for k := range gk {
		if _, ok := wk[k]; !ok {
			t.Errorf("key %s: in limitkv's base, not Redis's", k)
		}
	}
	return bytes.Equal(got, want)
}

// TestAOFBaseWithoutPreamble: with aof-use-rdb-preamble no, BGREWRITEAOF
// (and the first rewrite after CONFIG SET appendonly yes) writes the base
// as commands, named .base.aof: the same commands Redis writes for each
// key, a file redis-check-aof accepts, and one redis-server loads to the
// same digest and writes back the same (its own rewrite of what it
// loaded), as limitkv loads it again.
func TestAOFBaseWithoutPreamble(t *testing.T) {
	requireServers(t)
	rdir, ldir := t.TempDir(), t.TempDir()
	args := []string{"--appendonly", "yes", "--aof-use-rdb-preamble", "no"}
	r, rp := startRedisOn(t, rdir, args...)
	lp := startLimitkvProc(t, ldir, false, args...)
	l := dialRaw(t, "limitkv", lp.Addr)
	for _, c := range []*RawConn{r, l} {
		for _, cmd := range cmdBaseDataset() {
			if rep := c.MustDo(t, cmd...); rep.IsError() {
				t.Fatalf("%s %q: %s", c.Name, cmd[:min(len(cmd), 4)], rep.Str)
			}
		}
		c.MustDo(t, "BGREWRITEAOF")
		waitAOFRewrite(t, c)
	}
	digest := r.MustDo(t, "DEBUG", "DIGEST").Str
	if got := l.MustDo(t, "DEBUG", "DIGEST").Str; got != digest {
		t.Errorf("DEBUG DIGEST: limitkv %s, redis %s", got, digest)
	}
	rman, rfiles := aofDirState(t, filepath.Join(rdir, "appendonlydir"))
	lman, lfiles := aofDirState(t, filepath.Join(ldir, "appendonlydir"))
	if rman != lman {
		t.Errorf("manifest: limitkv %q, redis %q", lman, rman)
	}
	rname, rbase := readBase(t, filepath.Join(rdir, "appendonlydir"))
	lname, lbase := readBase(t, filepath.Join(ldir, "appendonlydir"))
	if lname != "appendonly.aof.2.base.aof" || lname != rname {
		t.Errorf("base: limitkv %s, redis %s", lname, rname)
	}
	t.Logf("redis %q\nlimitkv %q\nmanifest:\n%s", rfiles, lfiles, lman)
	identical := compareBases(t, lbase, rbase)
	t.Logf("bases: %d bytes (limitkv), %d (redis); whole files identical: %v", len(lbase), len(rbase), identical)
	term(t, lp)
	rp.Stop()
	checkAOF(t, filepath.Join(ldir, "appendonlydir", "appendonly.aof.manifest"))

	// Redis on a copy of limitkv's directory: the same dataset, and its
	// own rewrite of it the same commands (the stream's groups, which the
	// digest leaves out, among them).
	cdir := t.TempDir()
	copyDir(t, filepath.Join(ldir, "appendonlydir"), filepath.Join(cdir, "appendonlydir"))
	r2, _ := startRedisOn(t, cdir, args...)
	if got := r2.MustDo(t, "DEBUG", "DIGEST").Str; got != digest {
		t.Errorf("redis-server on limitkv's base: digest %s, want %s", got, digest)
	}
	r2.MustDo(t, "BGREWRITEAOF")
	waitAOFRewrite(t, r2)
	_, again := readBase(t, filepath.Join(cdir, "appendonlydir"))
	compareBases(t, again, rbase)

	l2 := startLimitkvProc(t, ldir, false, args...)
	if got := dialRaw(t, "limitkv", l2.Addr).MustDo(t, "DEBUG", "DIGEST").Str; got != digest {
		t.Errorf("limitkv on its own base: digest %s, want %s", got, digest)
	}

	t.Run("CONFIG SET appendonly yes", func(t *testing.T) {
		rdir, ldir := t.TempDir(), t.TempDir()
		r, _ := startRedisOn(t, rdir, "--aof-use-rdb-preamble", "no")
		lp := startLimitkvProc(t, ldir, false, "--aof-use-rdb-preamble", "no")
		l := dialRaw(t, "limitkv", lp.Addr)
		for _, c := range []*RawConn{r, l} {
			for _, cmd := range cmdBaseDataset()[:10] {
				c.MustDo(t, cmd...)
			}
			c.MustDo(t, "CONFIG", "SET", "appendonly", "yes")
			waitAOFRewrite(t, c)
		}
		rman, _ := aofDirState(t, filepath.Join(rdir, "appendonlydir"))
		lman, _ := aofDirState(t, filepath.Join(ldir, "appendonlydir"))
		if rman != lman || !strings.Contains(lman, "appendonly.aof.1.base.aof") {
			t.Errorf("manifest: limitkv %q, redis %q", lman, rman)
		}
		_, rbase := readBase(t, filepath.Join(rdir, "appendonlydir"))
		_, lbase := readBase(t, filepath.Join(ldir, "appendonlydir"))
		compareBases(t, lbase, rbase)
	})
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	ls, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ls {
		data, err := os.ReadFile(filepath.Join(from, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, f.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAOFDebugLoadAOF: DEBUG LOADAOF answers OK and reloads the same
// dataset on both servers, from an RDB base and its incr files, and
// after a rewrite; the reload writes nothing to the AOF.
func TestAOFDebugLoadAOF(t *testing.T) {
	requireServers(t)
	r, _, _, l, _, ldir := startAOFPair(t)
	writes := append([][]string{{"SELECT", "0"}}, legacyDataset...)
	writes = append(writes, legacyTail...)
	for _, c := range []*RawConn{r, l} {
		for _, cmd := range writes {
			c.MustDo(t, cmd...)
		}
	}
	check := func(when string) {
		t.Helper()
		want := r.MustDo(t, "DEBUG", "DIGEST").Str
		if got := l.MustDo(t, "DEBUG", "DIGEST").Str; got != want {
			t.Fatalf("%s: limitkv digest %s, redis %s", when, got, want)
		}
		before := aofCmds(t, filepath.Join(ldir, "appendonlydir"))
		for _, c := range []*RawConn{r, l} {
			if rep := c.MustDo(t, "DEBUG", "LOADAOF"); rep.Str != "OK" {
				t.Fatalf("%s: %s DEBUG LOADAOF: %q", when, c.Name, rep.Raw)
			}
			if got := c.MustDo(t, "DEBUG", "DIGEST").Str; got != want {
				t.Errorf("%s: %s after DEBUG LOADAOF: digest %s, want %s", when, c.Name, got, want)
			}
		}
		if after := aofCmds(t, filepath.Join(ldir, "appendonlydir")); len(after) != len(before) {
			t.Errorf("%s: DEBUG LOADAOF wrote to the AOF: %d commands, then %d", when, len(before), len(after))
		}
		if got := l.MustDo(t, "FCALL", "legacyf", "0"); got.Int != 1 {
			t.Errorf("%s: the function after DEBUG LOADAOF: %q", when, got.Raw)
		}
	}
	check("incr files")
	for _, c := range []*RawConn{r, l} {
		c.MustDo(t, "BGREWRITEAOF")
		waitAOFRewrite(t, c)
		c.MustDo(t, "SET", "after-rewrite", "1")
		c.MustDo(t, "DEL", "s")
	}
	check("after a rewrite")
}
