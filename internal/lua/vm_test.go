package lua

import (
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/resp"
)

// fakeHost answers a few commands the way the executor would.
type fakeHost struct {
	calls [][]string
	logs  []string
}

func (h *fakeHost) Call(args [][]byte, _ bool) ([]byte, string) {
	var s []string
	for _, a := range args {
		s = append(s, string(a))
	}
	h.calls = append(h.calls, s)
	var w resp.Writer
	switch strings.ToLower(s[0]) {
	case "ping":
		w.Simple("PONG")
	case "echo":
		w.BulkString(s[1])
	case "get":
		w.Null()
	case "incr":
		w.Error("ERR value is not an integer or out of range")
	case "wrongtype":
		w.Error("WRONGTYPE Operation against a key holding the wrong kind of value")
	case "one":
		w.Int(1)
	case "arr":
		w.Array(3)
		w.Int(7)
		w.BulkString("x")
		w.Null()
	case "nested":
		w.Array(2)
		w.Array(1)
		w.Simple("OK")
		w.NullArray()
	case "nosuch":
		return nil, "Unknown Redis command called from script"
	default:
		w.OK()
	}
	return w.Bytes(), ""
}

func (h *fakeHost) Log(level int, msg string) { h.logs = append(h.logs, msg) }

func run(t *testing.T, vm *VM, body string, keys, argv []string) string {
	t.Helper()
	s, msg := vm.Compile(SHA1Hex([]byte(body)), []byte(body))
	if msg != "" {
		return "-" + msg + "\r\n"
	}
	var w resp.Writer
	vm.Run(s, bytesOf(keys), bytesOf(argv), &fakeHost{}, &w, time.Second)
	return string(w.Bytes())
}

func bytesOf(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func TestLuaConversions(t *testing.T) {
	vm := New()
	defer vm.Close()
	sha := func(body string) string { return SHA1Hex([]byte(body)) }
	tests := []struct{ body, want string }{
		{"return 3.7", ":3\r\n"},
		{"return -3.7", ":-3\r\n"},
		{"return 'x'", "$1\r\nx\r\n"},
		{"return true", ":1\r\n"},
		{"return false", "$-1\r\n"},
		{"return nil", "$-1\r\n"},
		{"return", "$-1\r\n"},
		{"return 1, 2", ":1\r\n"},
		{"return {1,2,nil,3}", "*2\r\n:1\r\n:2\r\n"},
		{"return {1,{2,{3,'a'}},true,false}", "*4\r\n:1\r\n*2\r\n:2\r\n*2\r\n:3\r\n$1\r\na\r\n:1\r\n$-1\r\n"},
		{"return {err='x'}", "-x\r\n"},
		{"return {err='MY x y'}", "-MY x y\r\n"},
		{"return {ok='fine'}", "+fine\r\n"},
		{"return {err=1}", "*0\r\n"},
		{"return {err='e', ok='o'}", "-e\r\n"},
		{"return {ok='a\\r\\nb'}", "+a  b\r\n"},
		{"return {err=''}", "-\r\n"},
		{"return 1e20", ":-9223372036854775808\r\n"},
		{"return 0/0", ":-9223372036854775808\r\n"},
		{"return 9007199254740993", ":9007199254740992\r\n"},
		{"return {a=1}", "*0\r\n"},
		{"return function() end", "$-1\r\n"},
		{"return {double=3.5}", "$3\r\n3.5\r\n"},
		{"return redis.error_reply('x')", "-ERR x\r\n"},
		{"return redis.error_reply('MY x y')", "-MY x y\r\n"},
		{"return redis.error_reply('-x')", "-ERR x\r\n"},
		{"return redis.error_reply('')", "-ERR \r\n"},
		{"return redis.error_reply(1)", "-ERR wrong number or type of arguments\r\n"},
		{"return redis.error_reply('x ')", "-x \r\n"},
		{"return redis.status_reply('x y')", "+x y\r\n"},
		{"return redis.status_reply()", "-ERR wrong number or type of arguments\r\n"},
		{"return redis.call('ping')", "+PONG\r\n"},
		{"local r = redis.call('ping'); return type(r) .. ':' .. r.ok", "$10\r\ntable:PONG\r\n"},
		{"return type(redis.call('get', 'k'))", "$7\r\nboolean\r\n"},
		{"return redis.call('one') + 0.5", ":1\r\n"},
		{"return redis.call('arr')", "*3\r\n:7\r\n$1\r\nx\r\n$-1\r\n"},
		{"return redis.call('nested')", "*2\r\n*1\r\n+OK\r\n$-1\r\n"},
		{"return redis.call('echo', 0.1)", "$19\r\n0.10000000000000001\r\n"},
		{"return redis.call('echo', 12)", "$2\r\n12\r\n"},
		{"return redis.call('echo', 1e20)", "$5\r\n1e+20\r\n"},
		{"return redis.call('echo', -0.0)", "$2\r\n-0\r\n"},
		{"return redis.call('echo', 1/0)", "$3\r\ninf\r\n"},
		{"return redis.pcall('incr', 'k')", "-ERR value is not an integer or out of range\r\n"},
		{"local e = redis.pcall('wrongtype'); return e.err", "$65\r\nWRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"return redis.pcall('nosuch')", "-ERR Unknown Redis command called from script\r\n"},
		{"return redis.pcall()", "-ERR Please specify at least one argument for this redis lib call\r\n"},
		{"return redis.pcall('echo', {})", "-ERR Lua redis lib command arguments must be strings or integers\r\n"},
		{"return redis.call('incr', 'k')", "-ERR value is not an integer or out of range script: " + sha("return redis.call('incr', 'k')") + ", on @user_script:1.\r\n"},
		{"return redis.call('nosuch')", "-ERR Unknown Redis command called from script script: " + sha("return redis.call('nosuch')") + ", on @user_script:1.\r\n"},
		{"local ok, e = pcall(redis.call, 'nosuch'); return e", "$44\r\nERR Unknown Redis command called from script\r\n"},
		{"local ok, e = pcall(function() error({err='zz'}) end); return e", "$2\r\nzz\r\n"},
		{"local ok, e = pcall(function() error({a='zz'}) end); return type(e)", "$5\r\ntable\r\n"},
		{"local ok, e = pcall(function() error('zz') end); return e", "$17\r\nuser_script:1: zz\r\n"},
		{"error('foo')", "-ERR user_script:1: foo script: " + sha("error('foo')") + ", on @user_script:1.\r\n"},
		{"error('foo', 0)", "-ERR foo script: " + sha("error('foo', 0)") + ", on @user_script:1.\r\n"},
		{"error({err='MY x'})", "-MY x script: " + sha("error({err='MY x'})") + ", on @user_script:1.\r\n"},
		{"\n\nerror(nil)", "-ERR nil script: " + sha("\n\nerror(nil)") + ", on @user_script:3.\r\n"},
		{"local function f()\n redis.call('nosuch')\nend\n\nreturn f()", "-ERR Unknown Redis command called from script script: " + sha("local function f()\n redis.call('nosuch')\nend\n\nreturn f()") + ", on @user_script:2.\r\n"},
		{"x = 1", "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("x = 1") + ", on @user_script:1.\r\n"},
		{"return y", "-ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: " + sha("return y") + ", on @user_script:1.\r\n"},
		{"return _G.y", "-ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: " + sha("return _G.y") + ", on @user_script:1.\r\n"},
		{"rawset(_G, 'z', 1)", "-ERR Attempt to modify a readonly table script: " + sha("rawset(_G, 'z', 1)") + ", on @user_script:1.\r\n"},
		{"string.foo = 1", "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("string.foo = 1") + ", on @user_script:1.\r\n"},
		{"redis.call = nil", "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("redis.call = nil") + ", on @user_script:1.\r\n"},
		{"setmetatable(_G, nil)", "-ERR Attempt to modify a readonly table script: " + sha("setmetatable(_G, nil)") + ", on @user_script:1.\r\n"},
		{"local t = {} ; t.x = 1; return t.x", ":1\r\n"},
		{"return ('x'):rep(3)", "$3\r\nxxx\r\n"},
		{"return tostring(10/3) .. ' ' .. tostring(2^53) .. ' ' .. tostring(0.1) .. ' ' .. tostring(1/0) .. tostring(-1/0)", "$46\r\n3.3333333333333 9.007199254741e+15 0.1 inf-inf\r\n"},
		{"return redis.sha1hex('')", "$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"},
		{"return redis.sha1hex(12)", "$40\r\n7b52009b64fd0a2a49e6d8a939753077792b0554\r\n"},
		{"return {redis.REPL_ALL, redis.LOG_WARNING, redis.REDIS_VERSION}", "*3\r\n:3\r\n:3\r\n$6\r\n7.0.15\r\n"},
		{"return redis.replicate_commands()", ":1\r\n"},
		{"return redis.setresp(2)", "$-1\r\n"},
		{"return redis.setresp(4)", "-ERR RESP version must be 2 or 3. script: " + sha("return redis.setresp(4)") + ", on @user_script:1.\r\n"},
		{"return redis.log(redis.LOG_WARNING, 'hi', 1)", "$-1\r\n"},
		{"return redis.log(1)", "-ERR redis.log() requires two arguments or more. script: " + sha("return redis.log(1)") + ", on @user_script:1.\r\n"},
		{"return bit.band(0xff, 0x0f) + bit.bor(1, 2) + bit.lshift(1, 4)", ":34\r\n"},
		{"return bit.tohex(255)", "$8\r\n000000ff\r\n"},
		{"return bit.tobit(0xffffffff)", ":-1\r\n"},
		{"return #KEYS + #ARGV", ":0\r\n"},
		{"return _VERSION", "$7\r\nLua 5.1\r\n"},
		{"#!lua\nreturn nil + 1", "-ERR user_script:2: attempt to perform arithmetic on a nil value script: " + sha("#!lua\nreturn nil + 1") + ", on @user_script:2.\r\n"},
		{"#!lua flags=bogus\nreturn 1", "-ERR Unexpected flag in script shebang: bogus\r\n"},
		{"#!luax\nreturn 1", "-ERR Unexpected engine in script shebang: #!luax\r\n"},
		{"#!lua foo=bar\nreturn 1", "-ERR Unknown lua shebang option: foo=bar\r\n"},
		{"#!lua", "-ERR Invalid script shebang\r\n"},
		{"#!\nreturn 1", "-ERR Unexpected engine in script shebang: #!\r\n"},
		{"#!lua  flags=no-writes,allow-oom\nreturn 1", ":1\r\n"},
		{"return redis.call('get'", "-ERR Error compiling script (new function): user_script:1: ')' expected near '<eof>'\r\n"},
	}
	for _, tc := range tests {
		if got := run(t, vm, tc.body, nil, nil); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.body, got, tc.want)
		}
	}
}

func TestLuaKeysArgv(t *testing.T) {
	vm := New()
	defer vm.Close()
	got := run(t, vm, "return {KEYS[1], KEYS[2], ARGV[1], ARGV[3], #KEYS, #ARGV}", []string{"a", "b"}, []string{"c", "d", "e"})
	want := "*6\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\ne\r\n:2\r\n:3\r\n"
	if got != want {
		t.Fatalf("got %q", got)
	}
	// A later run sees only its own arguments.
	if got := run(t, vm, "return #KEYS", nil, nil); got != ":0\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestLuaGlobalsMatchRedis(t *testing.T) {
	vm := New()
	defer vm.Close()
	got := run(t, vm, "local t = {} for k in pairs(_G) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')", nil, nil)
	want := "ARGV KEYS _G _VERSION __redis__err__handler assert bit cjson cmsgpack collectgarbage coroutine error gcinfo getmetatable ipairs load loadstring math next pairs pcall rawequal rawget rawset redis select setmetatable string struct table tonumber tostring type unpack xpcall"
	if got != bulkOf(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// loadstring'd code is sandboxed too.
	if got := run(t, vm, "return loadstring('x = 1')()", nil, nil); !strings.Contains(got, "Attempt to modify a readonly table") {
		t.Fatalf("got %q", got)
	}
	if got := run(t, vm, "local mt = getmetatable('') ; mt.__index.rep = nil", nil, nil); !strings.Contains(got, "Attempt to modify a readonly table") {
		t.Fatalf("got %q", got)
	}
	if got := run(t, vm, "return ('ab'):upper()", nil, nil); got != bulkOf("AB") {
		t.Fatalf("got %q", got)
	}
}

func bulkOf(s string) string { return "$" + itoa(len(s)) + "\r\n" + s + "\r\n" }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// busyHost kills its script at the killAt-th busy tick.
type busyHost struct {
	fakeHost
	ticks, killAt int
	first         int // ticks that said first
}

func (h *busyHost) Busy(first bool) bool {
	h.ticks++
	if first {
		h.first++
	}
	return h.ticks >= h.killAt
}

// TestLuaBusy: a script past its time limit goes on running, with a busy
// tick about every BusyTick, until the host kills it; pcall cannot swallow
// the kill, nor can a coroutine.
func TestLuaBusy(t *testing.T) {
	vm := New()
	defer vm.Close()
	for _, tc := range []struct{ body, line string }{
		{"while true do end", "1"},
		{"local n = 0\nwhile true do n = n + 1 end", "2"},
		{"while true do pcall(function() while true do end end) end", "1"},
		{"local co = coroutine.create(function() while true do end end)\nwhile true do coroutine.resume(co) end", ""},
	} {
		s, msg := vm.Compile(SHA1Hex([]byte(tc.body)), []byte(tc.body))
		if s == nil {
			t.Fatal(msg)
		}
		var w resp.Writer
		h := &busyHost{killAt: 10}
		start := time.Now()
		vm.Run(s, nil, nil, h, &w, 50*time.Millisecond)
		d := time.Since(start)
		if d < 50*time.Millisecond+9*BusyTick || d > 2*time.Second {
			t.Errorf("%q: took %v", tc.body, d)
		}
		if h.ticks != 10 || h.first != 1 {
			t.Errorf("%q: %d ticks, %d first", tc.body, h.ticks, h.first)
		}
		want := "-" + KilledMessage + " script: " + s.SHA + ", on @user_script:" + tc.line + ".\r\n"
		if got := string(w.Bytes()); (tc.line != "" && got != want) || !strings.HasPrefix(got, "-"+KilledMessage) {
			t.Errorf("%q: got %q, want %q", tc.body, got, want)
		}
	}
	// A quick script after a killed one runs normally, and a host that is
	// no BusyHost just lets a slow script finish.
	body := "local t = 0 for i = 1, 3000000 do t = t + i end return 7"
	s, _ := vm.Compile(SHA1Hex([]byte(body)), []byte(body))
	var w resp.Writer
	vm.Run(s, nil, nil, &fakeHost{}, &w, time.Millisecond)
	if string(w.Bytes()) != ":7\r\n" {
		t.Fatalf("got %q", w.Bytes())
	}
}

func TestLuaStackOverflow(t *testing.T) {
	vm := New()
	defer vm.Close()
	got := run(t, vm, "local function f() return f() + 1 end return f()", nil, nil)
	if !strings.Contains(got, "stack overflow") {
		t.Fatalf("got %q", got)
	}
	if got := run(t, vm, "return 2", nil, nil); got != ":2\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestLuaSelfReferencingTable(t *testing.T) {
	vm := New()
	defer vm.Close()
	got := run(t, vm, "local t = {} t[1] = t return t", nil, nil)
	if !strings.Contains(got, "reached lua stack limit") {
		t.Fatalf("got %.100q", got)
	}
}
