package conformance

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
)

// Functions survive FLUSHALL, so every case starts from FUNCTION FLUSH.

// lib is a library's code: the shebang line naming it, then body.
func lib(name, body string) string { return "#!lua name=" + name + "\n" + body }

// fload is FUNCTION LOAD [REPLACE] of code.
func fload(code string, replace ...bool) Cmd {
	if len(replace) > 0 && replace[0] {
		return C("FUNCTION", "LOAD", "REPLACE", code)
	}
	return C("FUNCTION", "LOAD", code)
}

// regErr loads a library whose body is code (expected to fail while
// registering).
func regErr(code string) Cmd { return fload(lib("bad", code)) }

var fflush = C("FUNCTION", "FLUSH")

// flist is FUNCTION LIST args, compared with the libraries, and the
// functions of each, in any order: Redis lists both in hash order, which
// changes from run to run.
func flist(args ...string) Cmd {
	return C(append([]string{"FUNCTION", "LIST"}, args...)...).Check("libraries and functions unordered", cmpFunctionList)
}

func cmpFunctionList(rds, lkv *Reply) error {
	if rds.Type != '*' || lkv.Type != '*' {
		if string(rds.Raw) != string(lkv.Raw) {
			return fmt.Errorf("not both arrays, and differ")
		}
		return nil
	}
	return sameMultiset(canonLibs(rds), canonLibs(lkv))
}

// canonLibs renders each library of a FUNCTION LIST reply with its
// functions sorted.
func canonLibs(r *Reply) []string {
	var out []string
	for _, l := range r.Elems {
		var b strings.Builder
		b.WriteByte(l.Type)
		for i := 0; i+1 < len(l.Elems); i += 2 {
			b.Write(l.Elems[i].Raw)
			v := l.Elems[i+1]
			if l.Elems[i].Str == "functions" {
				fs := rawElems(v.Elems, 1)
				sort.Strings(fs)
				b.WriteString(strings.Join(fs, ""))
				continue
			}
			b.Write(v.Raw)
		}
		out = append(out, b.String())
	}
	return out
}

// Compile errors agree up to the line number: the parser's own words are
// gopher-lua's, not Lua 5.1's (the harness compares errors exactly, so this
// is a test of its own).
func TestFunctionCompileError(t *testing.T) {
	requireServers(t)
	rds, lkv := dialPair(t)
	defer rds.Close()
	defer lkv.Close()
	for _, body := range []string{"local a = ", "\n\nfunction(", "redis.register_function('a', function() end"} {
		code := lib("x", body)
		if err := cmpCompileError(rds.MustDo(t, "FUNCTION", "LOAD", code), lkv.MustDo(t, "FUNCTION", "LOAD", code)); err != nil {
			t.Errorf("FUNCTION LOAD %q: %v", code, err)
		}
	}
}

// cmpCompileError compares compile errors up to the line number: the
// parser's own words are gopher-lua's, not Lua 5.1's.
func cmpCompileError(rds, lkv *Reply) error {
	const pfx = "ERR Error compiling function: user_function:"
	a, b := strings.TrimPrefix(rds.Str, "-"), strings.TrimPrefix(lkv.Str, "-")
	if !rds.IsError() || !lkv.IsError() || !strings.HasPrefix(a, pfx) || !strings.HasPrefix(b, pfx) {
		return fmt.Errorf("not both compile errors")
	}
	a, b = a[len(pfx):], b[len(pfx):]
	if a[:strings.IndexByte(a, ':')] != b[:strings.IndexByte(b, ':')] {
		return fmt.Errorf("lines differ: %q vs %q", rds.Raw, lkv.Raw)
	}
	return nil
}

// cmpContainerInfo compares COMMAND INFO of one container command with its
// subcommands in any order.
func cmpContainerInfo(rds, lkv *Reply) error {
	if len(rds.Elems) != 1 || len(lkv.Elems) != 1 || len(rds.Elems[0].Elems) != 10 || len(lkv.Elems[0].Elems) != 10 {
		return fmt.Errorf("not one command's info each")
	}
	a, b := rds.Elems[0].Elems, lkv.Elems[0].Elems
	for i := range 9 {
		if string(a[i].Raw) != string(b[i].Raw) {
			return fmt.Errorf("field %d: %q vs %q", i, a[i].Raw, b[i].Raw)
		}
	}
	return sameMultiset(rawElems(a[9].Elems, 1), rawElems(b[9].Elems, 1))
}

const fnLib = `redis.register_function('fset', function(keys, args) return redis.call('set', keys[1], args[1]) end)
redis.register_function{function_name='fget', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads a key'}
redis.register_function{function_name='foom', callback=function(keys, args) return redis.call('set', keys[1], 'x') end, flags={'allow-oom'}}
redis.register_function{function_name='fall', callback=function() return 1 end, flags={'NO-WRITES', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}`

func TestFunctions(t *testing.T) {
	runCases(t, []Case{
		{Name: "load and call", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), C("FCALL", "fset", "1", "k", "v"), C("FCALL", "fget", "1", "k"),
			C("FCALL", "FGET", "1", "k"), C("FCALL_RO", "fget", "1", "k"), C("FCALL_RO", "fset", "1", "k", "v"), C("FCALL", "fall", "0"),
			C("FCALL_RO", "fall", "0"), C("GET", "k"), fflush}},
		{Name: "fcall errors", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), C("FCALL", "nosuch", "0"), C("FCALL", "fset", "x"), C("FCALL", "fset", "x", "k"),
			C("FCALL", "fset", "-1"), C("FCALL", "fset", "2", "k"), C("FCALL", "fset", "1.5", "k"), C("FCALL_RO", "nosuch", "0"), C("FCALL"), C("FCALL", "fset"),
			C("FCALL", "nosuch", "x"), fflush}},
		{Name: "load errors", Cmds: []Cmd{fflush, fload("return 1"), fload("#!lua"), fload("#!lua\nreturn 1"), fload("#!lua name=x\n"), fload("#!lua foo=bar name=x\n"),
			fload("#!py name=x\nreturn 1"), fload("#!lua name=x name=y\n"), fload("#!lua name=x-y\n"), fload("#!lua name=\n"), fload("#!lua name=\"unbalanced\n"),
			fload("#!lua \"name=quoted\"\nredis.register_function('q', function() return 1 end)"), fload("#!LUA NAME=upper\nredis.register_function('u', function() return 2 end)"),
			C("FCALL", "q", "0"), C("FCALL", "u", "0"), C("FUNCTION", "LOAD"), C("FUNCTION", "LOAD", "BOGUS", lib("x", "")),
			C("FUNCTION", "LOAD", "REPLACE"), C("FUNCTION", "LOAD", "REPLACE", "REPLACE", lib("rr", "redis.register_function('rr', function() return 3 end)")),
			fflush}},
		{Name: "replace and collisions", Cmds: []Cmd{fflush, fload(lib("l1", "redis.register_function('f1', function() return 1 end)")),
			fload(lib("l1", "redis.register_function('f1', function() return 2 end)")),
			fload(lib("l2", "redis.register_function('f1', function() return 3 end)")),
			fload(lib("l2", "redis.register_function('F1', function() return 3 end)")),
			fload(lib("l1", "redis.register_function('f1', function() return 4 end)"), true), C("FCALL", "f1", "0"),
			fload(lib("l1", "redis.register_function('f2', function() return 5 end)"), true), C("FCALL", "f1", "0"), C("FCALL", "f2", "0"),
			fload(lib("l1", "error('x')"), true), C("FCALL", "f2", "0"),
			fload(lib("l2", "redis.register_function('f2', function() return 6 end)"), true), flist(), fflush}},
		{Name: "register_function errors", Cmds: []Cmd{fflush,
			regErr("redis.register_function()"), regErr("redis.register_function(1,2,3)"), regErr("redis.register_function('a')"),
			regErr("redis.register_function({})"), regErr("redis.register_function({function_name='a'})"), regErr("redis.register_function({callback=function() end})"),
			regErr("redis.register_function({function_name={}, callback=function() end})"), regErr("redis.register_function({function_name='a', callback=1})"),
			regErr("redis.register_function({function_name='a', callback=function() end, flags=1})"),
			regErr("redis.register_function({function_name='a', callback=function() end, flags={'bad'}})"),
			regErr("redis.register_function({function_name='a', callback=function() end, flags={1}})"),
			regErr("redis.register_function({function_name='a', callback=function() end, flags={'no-writes', {}}})"),
			regErr("redis.register_function({function_name='a', callback=function() end, description={}})"),
			regErr("redis.register_function({function_name='a', callback=function() end, foo=1})"), regErr("redis.register_function({[true]=1})"),
			regErr("redis.register_function({function_name='a-b', callback=function() end})"), regErr("redis.register_function({}, 1)"),
			regErr("redis.register_function('a', 1)"), regErr("redis.register_function('', function() end)"),
			regErr("redis.register_function('a', function() end) redis.register_function('a', function() end)"),
			fload(lib("num", "redis.register_function(12, function() return 5 end)")), C("FCALL", "12", "0"),
			fload(lib("desc", "redis.register_function({function_name='d', callback=function() return 6 end, description=7, FLAGS={}})")),
			C("FCALL", "d", "0"), flist("LIBRARYNAME", "desc"), fflush}},
		{Name: "load sandbox", Cmds: []Cmd{fflush, regErr("local x = string.format('%d', 1)"), regErr("redis.call('ping')"), regErr("redis.pcall('ping')"),
			regErr("x = 1"), regErr("error('boom')"), regErr("local t = redis; t.x = 1"), regErr("redis.foo()"), regErr("return 1"), regErr("redis.setresp(3)"),
			regErr("return KEYS"), regErr("_G.x = 1"), regErr("print(1)"), regErr("redis.register_function = 1"),
			fload(lib("logs", "redis.log(redis.LOG_WARNING, 'loading') redis.register_function('v', function() return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM, redis.LOG_NOTICE} end)")),
			C("FCALL", "v", "0"),
			fload(lib("late", "local r = redis.register_function; r('late', function() return r('q', function() end) end)")), C("FCALL", "late", "0"),
			fflush}},
		{Name: "runtime sandbox", Cmds: []Cmd{fflush, fload(lib("rt", `redis.register_function('e1', function(k,a) error('boom') end)
redis.register_function('e2', function(k,a) return KEYS end)
redis.register_function('e3', function(k,a) x = 5 end)
redis.register_function('e4', function(k,a) return {type(redis.breakpoint), type(redis.debug), type(redis.replicate_commands), type(redis.register_function), type(redis.call)} end)
redis.register_function('e5', function(k,a) return {k[1], a[1], a[2], #k, #a, string.format('%d', 7), cjson.encode({1}), bit.band(3,1)} end)
redis.register_function('e6', function(k,a) redis.setresp(3) return redis.call('hgetall', k[1]) end)
redis.register_function('e7', function(k,a) return redis.error_reply('MY err') end)
redis.register_function('e8', function(k,a) return redis.call('nosuch') end)
redis.register_function('e9', function(k,a) return redis.pcall('incr', k[1]) end)
redis.register_function('e10', function(k,a) return {redis.sha1hex('x'), redis.set_repl(redis.REPL_ALL), redis.status_reply('fine')} end)
redis.register_function('e11', function(k,a) return redis.call('fcall', 'e1', '0') end)
redis.register_function('e12', function(k,a) return {err='custom'} end)
redis.register_function('e13', function(k,a) return redis.call('set', k[1]) end)`)),
			C("HSET", "h", "a", "1"), C("SET", "s", "x"),
			C("FCALL", "e1", "0"), C("FCALL", "e2", "0"), C("FCALL", "e3", "0"), C("FCALL", "e4", "0"), C("FCALL", "e5", "1", "k", "a", "b"),
			C("FCALL", "e6", "1", "h"), C("FCALL", "e7", "0"), C("FCALL", "e8", "0"), C("FCALL", "e9", "1", "s"), C("FCALL", "e10", "0"),
			C("FCALL", "e11", "0"), C("FCALL", "e12", "0"), C("FCALL", "e13", "1", "k"), fflush}},
		{Name: "no-writes", Cmds: []Cmd{fflush, fload(lib("nw", `redis.register_function{function_name='w', callback=function(k) return redis.call('set', k[1], 'v') end, flags={'no-writes'}}
redis.register_function{function_name='pw', callback=function(k) return redis.pcall('incr', k[1]) end, flags={'no-writes'}}
redis.register_function{function_name='r', callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}}
redis.register_function('plain', function(k) return redis.call('get', k[1]) end)`)),
			C("SET", "k", "1"), C("FCALL", "w", "1", "k"), C("FCALL", "pw", "1", "k"), C("FCALL_RO", "w", "1", "k"), C("FCALL", "r", "1", "k"),
			C("FCALL_RO", "r", "1", "k"), C("FCALL_RO", "plain", "1", "k"), C("FCALL", "plain", "1", "k"), fflush}},
		{Name: "oom", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), C("CONFIG", "SET", "maxmemory", "1"),
			C("FCALL", "fset", "1", "k", "v"), C("FCALL", "foom", "1", "k"), C("FCALL", "fget", "1", "k"), C("FCALL", "nosuch", "0"),
			fload(lib("oomlib", "redis.register_function('x', function() return 1 end)")),
			C("CONFIG", "SET", "maxmemory", "0"), C("GET", "k"), fflush}},
		{Name: "oom in multi", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), C("MULTI"), C("FCALL", "fset", "1", "k", "v"),
			C("CONFIG", "SET", "maxmemory", "1").On(1), C("EXEC"), C("MULTI"), C("FCALL", "fget", "1", "k"), C("EVAL", "#!lua\nreturn 1", "0"),
			C("CONFIG", "SET", "maxmemory", "1").On(1), C("EXEC"), C("CONFIG", "SET", "maxmemory", "0").On(1), fflush}},
		{Name: "delete", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), C("FUNCTION", "DELETE", "MYLIB"), C("FUNCTION", "DELETE", "mylib"),
			C("FUNCTION", "DELETE", "mylib"), C("FCALL", "fset", "1", "k", "v"), C("FUNCTION", "DELETE"), C("FUNCTION", "DELETE", "a", "b"), fflush}},
		{Name: "flush", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), C("FUNCTION", "FLUSH", "ASYNC"), flist(),
			fload(lib("mylib", fnLib)), C("FUNCTION", "FLUSH", "sync"), flist(), C("FUNCTION", "FLUSH", "bogus"),
			C("FUNCTION", "FLUSH", "sync", "async"), fload(lib("mylib", fnLib)), C("FLUSHALL"), flist("WITHCODE"), fflush}},
		{Name: "list", Cmds: []Cmd{fflush, flist(), fload(lib("mylib", fnLib)), flist(), flist("WITHCODE"),
			fload(lib("other", "redis.register_function('o', function() return 1 end)")),
			flist(), flist("LIBRARYNAME", "my*"), flist("LIBRARYNAME", "MY*", "WITHCODE"),
			flist("withcode", "libraryname", "o?her"), flist("LIBRARYNAME", "none"),
			flist("LIBRARYNAME"), flist("WITHCODE", "WITHCODE"), flist("LIBRARYNAME", "a", "LIBRARYNAME", "b"),
			flist("bogus"), fflush}},
		{Name: "stats and kill", Cmds: []Cmd{fflush, C("FUNCTION", "STATS"), fload(lib("mylib", fnLib)), C("FUNCTION", "STATS"), C("FUNCTION", "KILL"),
			C("FUNCTION", "STATS", "x"), C("FUNCTION", "KILL", "x"), C("FUNCTION", "HELP"), C("FUNCTION", "help", "x"), C("FUNCTION", "nosuch"), C("FUNCTION"), fflush}},
		{Name: "dump and restore", Cmds: []Cmd{fflush, C("FUNCTION", "DUMP"), fload(lib("mylib", fnLib)), C("FUNCTION", "DUMP"),
			C("FUNCTION", "RESTORE", "bogus"), C("FUNCTION", "RESTORE", "0123456789"), C("FUNCTION", "RESTORE", "x", "bogus"),
			C("FUNCTION", "RESTORE", "x", "flush", "more"), C("FUNCTION", "RESTORE"), fflush}},
		{Name: "in multi", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), C("MULTI"), C("FCALL", "fset", "1", "k", "v"), C("FCALL", "fget", "1", "k"),
			C("FUNCTION", "DELETE", "mylib"), C("EXEC"), C("FCALL", "fget", "1", "k"), fflush}},
		{Name: "fcall from eval", Cmds: []Cmd{fflush, fload(lib("mylib", fnLib)), ev("return redis.pcall('fcall', 'fget', '1', 'k')"),
			ev("return redis.pcall('function', 'list')"), fflush}},
		{Name: "command info", Cmds: []Cmd{C("COMMAND", "INFO", "fcall", "fcall_ro"), C("COMMAND", "INFO", "function").Check("subcommands unordered", cmpContainerInfo), C("COMMAND", "DOCS", "fcall", "fcall_ro"),
			C("COMMAND", "GETKEYS", "FCALL", "f", "2", "a", "b", "c"), C("COMMAND", "GETKEYS", "FCALL_RO", "f", "0", "a")}},
	})
}

// Dumps restore across servers, both ways, and the payloads are the same
// bytes.
func TestFunctionDumpRestore(t *testing.T) {
	requireServers(t)
	rds, lkv := dialPair(t)
	defer rds.Close()
	defer lkv.Close()
	both := func(args ...string) {
		t.Helper()
		a, b := rds.MustDo(t, args...), lkv.MustDo(t, args...)
		if len(args) > 1 && args[1] == "LIST" {
			if err := cmpFunctionList(a, b); err != nil {
				t.Errorf("%v: %v: redis %q, limitkv %q", args, err, a.Raw, b.Raw)
			}
			return
		}
		if string(a.Raw) != string(b.Raw) {
			t.Errorf("%v: redis %q, limitkv %q", args, a.Raw, b.Raw)
		}
	}
	defer both("FUNCTION", "FLUSH")
	both("FUNCTION", "FLUSH")
	both("FUNCTION", "LOAD", lib("mylib", fnLib))
	a, b := rds.MustDo(t, "FUNCTION", "DUMP"), lkv.MustDo(t, "FUNCTION", "DUMP")
	if a.Str != b.Str {
		t.Errorf("FUNCTION DUMP: redis %q, limitkv %q", a.Raw, b.Raw)
	}
	// A short library: no compression.
	both("FUNCTION", "LOAD", "#!lua name=s\nredis.register_function('s', function() return 1 end)")
	both("FUNCTION", "DELETE", "mylib")
	sa, sb := rds.MustDo(t, "FUNCTION", "DUMP"), lkv.MustDo(t, "FUNCTION", "DUMP")
	if sa.Str != sb.Str {
		t.Errorf("FUNCTION DUMP: redis %q, limitkv %q", sa.Raw, sb.Raw)
	}
	redisDump, lkvDump := a.Str, b.Str
	both("FUNCTION", "FLUSH")

	// Redis's payload into limitkv and limitkv's into Redis.
	if r := lkv.MustDo(t, "FUNCTION", "RESTORE", redisDump); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("limitkv RESTORE of Redis's dump: %q", r.Raw)
	}
	if r := rds.MustDo(t, "FUNCTION", "RESTORE", lkvDump); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("Redis RESTORE of limitkv's dump: %q", r.Raw)
	}
	both("FUNCTION", "LIST", "WITHCODE")
	both("FCALL", "fset", "1", "k", "v")
	both("FCALL", "fget", "1", "k")
	// Policies.
	both("FUNCTION", "RESTORE", redisDump)
	both("FUNCTION", "RESTORE", redisDump, "APPEND")
	both("FUNCTION", "RESTORE", redisDump, "REPLACE")
	both("FUNCTION", "LOAD", "REPLACE", lib("mylib", "redis.register_function('other', function() return 1 end)"))
	both("FUNCTION", "LOAD", lib("thief", "redis.register_function('fset', function() return 1 end)"))
	both("FUNCTION", "RESTORE", redisDump, "REPLACE")
	both("FUNCTION", "RESTORE", redisDump, "APPEND")
	both("FUNCTION", "RESTORE", redisDump, "FLUSH")
	both("FUNCTION", "LIST", "WITHCODE")
	// Corruptions: a bad checksum, a newer RDB version, a payload that is
	// not a function, a truncated string.
	bad := []byte(redisDump)
	bad[5] ^= 1
	both("FUNCTION", "RESTORE", string(bad))
	newer := []byte(redisDump)
	newer[len(newer)-10] = 11
	both("FUNCTION", "RESTORE", string(newer))
	both("SET", "str", "value")
	keyDump := rds.MustDo(t, "DUMP", "str").Str
	both("FUNCTION", "RESTORE", keyDump)
	both("FUNCTION", "RESTORE", withFooter([]byte{245, 0x10, 'a'}, 10))
	both("FUNCTION", "RESTORE", withFooter(nil, 10))
	both("FUNCTION", "RESTORE", withFooter([]byte("\xf5\x0b#!lua name=x"), 10))
	both("FUNCTION", "RESTORE", withFooter([]byte("\xf5\x11#!lua name=x\nx=1"), 10))
}

// A Redis starting on limitkv's RDB file has its functions, and the
// reverse; FUNCTION FLUSH and BGSAVE included.
func TestFunctionRDBWithRedis(t *testing.T) {
	requireServers(t)
	code1 := lib("mylib", fnLib)
	code2 := "#!lua name=short\nredis.register_function('s', function() return 1 end)"

	lkvDir := t.TempDir()
	srv, err := limitkv.Start(limitkv.Options{Dir: lkvDir})
	if err != nil {
		t.Fatal(err)
	}
	lkv := dialRaw(t, "limitkv", srv.Addr())
	for _, cmd := range [][]string{{"FUNCTION", "LOAD", code1}, {"FUNCTION", "LOAD", code2}, {"SET", "k", "v"}} {
		lkv.MustDo(t, cmd...)
	}
	if r := lkv.MustDo(t, "SAVE"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("limitkv SAVE: %q", r.Raw)
	}
	want := lkv.MustDo(t, "FUNCTION", "LIST", "LIBRARYNAME", "mylib", "WITHCODE")
	srv.Close()
	checkRDB(t, filepath.Join(lkvDir, "dump.rdb"))

	rds, _ := startRedisOn(t, lkvDir)
	if got := rds.MustDo(t, "FUNCTION", "LIST", "LIBRARYNAME", "mylib", "WITHCODE"); cmpFunctionList(got, want) != nil {
		t.Errorf("Redis on limitkv's file lists %q, want %q", got.Raw, want.Raw)
	}
	for _, cmd := range [][]string{{"FCALL", "fget", "1", "k"}, {"FCALL", "s", "0"}} {
		if r := rds.MustDo(t, cmd...); r.IsError() {
			t.Errorf("Redis on limitkv's file: %v: %q", cmd, r.Raw)
		}
	}
	// Redis saves; limitkv starts on its file.
	rds.MustDo(t, "FUNCTION", "DELETE", "short")
	rds.MustDo(t, "FUNCTION", "LOAD", lib("fromredis", "redis.register_function('fr', function(k) return redis.call('get', k[1]) end)"))
	if r := rds.MustDo(t, "SAVE"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", r.Raw)
	}
	rdsList := rds.MustDo(t, "FUNCTION", "LIST", "LIBRARYNAME", "fromredis", "WITHCODE").Raw
	rdsStats := rds.MustDo(t, "FUNCTION", "STATS").Raw
	srv2, err := limitkv.Start(limitkv.Options{Dir: lkvDir})
	if err != nil {
		t.Fatalf("limitkv on Redis's file: %v", err)
	}
	defer srv2.Close()
	lkv2 := dialRaw(t, "limitkv", srv2.Addr())
	if got := lkv2.MustDo(t, "FUNCTION", "LIST", "LIBRARYNAME", "fromredis", "WITHCODE").Raw; string(got) != string(rdsList) {
		t.Errorf("limitkv on Redis's file lists %q, want %q", got, rdsList)
	}
	if got := lkv2.MustDo(t, "FUNCTION", "STATS").Raw; string(got) != string(rdsStats) {
		t.Errorf("limitkv on Redis's file: FUNCTION STATS %q, want %q", got, rdsStats)
	}
	if r := lkv2.MustDo(t, "FCALL", "fr", "1", "k"); string(r.Raw) != "$1\r\nv\r\n" {
		t.Errorf("limitkv on Redis's file: FCALL fr: %q", r.Raw)
	}
	// FLUSHALL keeps them; BGSAVE writes them.
	lkv2.MustDo(t, "FLUSHALL")
	if r := lkv2.MustDo(t, "BGSAVE"); r.IsError() {
		t.Fatalf("BGSAVE: %q", r.Raw)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(lkv2.MustDo(t, "INFO", "persistence").Str, "rdb_bgsave_in_progress:0") {
		if time.Now().After(deadline) {
			t.Fatal("BGSAVE did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	checkRDB(t, filepath.Join(lkvDir, "dump.rdb"))
	again, _ := startRedisOn(t, lkvDir)
	if got := again.MustDo(t, "FUNCTION", "LIST", "LIBRARYNAME", "fromredis", "WITHCODE").Raw; string(got) != string(rdsList) {
		t.Errorf("Redis on limitkv's BGSAVE file lists %q, want %q", got, rdsList)
	}
	if got := again.MustDo(t, "DBSIZE").Raw; string(got) != ":0\r\n" {
		t.Errorf("Redis on limitkv's BGSAVE file after FLUSHALL: DBSIZE %q", got)
	}
}

func shaOf(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// EVAL's Redis 7.0 side: shebang flags (sdssplitargs, every flag of
// scripts_flags_def), their OOM rules, and the redis.* helpers of 7.0.
func TestEvalShebangFlags(t *testing.T) {
	runCases(t, []Case{
		{Name: "shebang parsing", Cmds: []Cmd{ev("#!lua flags=allow-cross-slot-keys\nreturn 1"), ev("#!lua \"flags=no-writes\"\nreturn redis.pcall('set','a','b')"),
			ev("#!lua \"flags=no-writes\nreturn 1"), ev("#!lua flags=no-writes,,allow-oom\nreturn 1"), ev("#!lua flags=NO-WRITES\nreturn 1"),
			ev("#!lua flags=no-writes flags=allow-oom\nreturn redis.pcall('set','a','b')"), ev("#!lua\"x\"\nreturn 1"), ev("#!lua 'flags=no-writes'x\nreturn 1"),
			ev("#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 2")}},
		{Name: "shebang oom", Cmds: []Cmd{C("CONFIG", "SET", "maxmemory", "1"), ev("#!lua\nreturn redis.call('set','a','b')"),
			ev("#!lua flags=allow-oom\nreturn redis.call('set','a','b')"), ev("#!lua flags=no-writes\nreturn redis.call('get','a')"),
			ev("return redis.call('set','a','c')"), ev("return redis.pcall('set','a','c')"), ev("return redis.call('get','a')"),
			C("EVAL_RO", "#!lua\nreturn 1", "0"), C("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"), C("EVAL_RO", "return 1", "0"),
			C("EVAL", "#!lua\nreturn 1", "x"), C("EVAL", "return 1", "x"), C("EVAL", "#!lua flags=bogus\nreturn 1", "x"),
			C("SCRIPT", "LOAD", "#!lua\nreturn 1"), C("EVALSHA", shaOf("#!lua\nreturn 1"), "x"), C("EVALSHA", shaOf("#!lua\nreturn 2"), "x"),
			C("CONFIG", "SET", "maxmemory", "0"), C("GET", "a")}},
		{Name: "redis helpers", Cmds: []Cmd{ev("#!lua\nreturn redis.set_repl(redis.REPL_NONE)"), ev("return redis.set_repl(8)"), ev("return redis.set_repl()"),
			ev("return redis.set_repl(1, 2)"), ev("return redis.replicate_commands()"), ev("return redis.breakpoint()"), ev("return redis.debug('x')"),
			ev("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}"),
			ev("return redis.log(redis.LOG_WARNING, 'from a script')")}},
	})
}
