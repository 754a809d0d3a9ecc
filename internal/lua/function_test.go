package lua

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/resp"
)

func TestLoadLibraryAndCall(t *testing.T) {
	vm := NewFunctionVM()
	defer vm.Close()
	h := &fakeHost{}
	funcs, msg := vm.LoadLibrary(`
redis.log(redis.LOG_NOTICE, 'loading', 1)
redis.register_function('echo', function(keys, args) return {keys[1], args[1], redis.call('echo', args[1])} end)
redis.register_function{function_name='ro', callback=function() return 'r' end, flags={'no-writes', 'ALLOW-OOM'}, description='d'}`, h, time.Second)
	if msg != "" {
		t.Fatal(msg)
	}
	if len(funcs) != 2 || funcs[0].Name != "echo" || funcs[1].Name != "ro" || !funcs[1].HasDesc || funcs[1].Desc != "d" || funcs[0].HasDesc {
		t.Fatalf("funcs %+v", funcs)
	}
	if got := FlagNames(funcs[1].Flags); !slices.Equal(got, []string{"no-writes", "allow-oom"}) {
		t.Errorf("flags %v", got)
	}
	if !slices.Equal(h.logs, []string{"loading 1"}) {
		t.Errorf("logs %q", h.logs)
	}
	var w resp.Writer
	vm.CallFunction(funcs[0], [][]byte{[]byte("k")}, [][]byte{[]byte("a")}, h, &w, time.Second)
	if got, want := string(w.Bytes()), "*3\r\n$1\r\nk\r\n$1\r\na\r\n$1\r\na\r\n"; got != want {
		t.Errorf("call: %q, want %q", got, want)
	}
}

func TestLoadLibraryErrors(t *testing.T) {
	vm := NewFunctionVM()
	defer vm.Close()
	for _, tt := range []struct{ code, want string }{
		{"\nreturn 1", ""},
		{"\nx = 1", "Error registering functions: ERR user_function:2: Attempt to modify a readonly table"},
		{"\nstring.len('x')", "Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'string'"},
		{"\nredis.call('ping')", "Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'"},
		{"\nredis.register_function('a-b', function() end)", "Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"},
		{"\nredis.register_function({function_name='a', callback=function() end, flags={'x'}})", "Error registering functions: ERR unknown flag given"},
		{"\nlocal a = ", "Error compiling function: user_function:2:"},
	} {
		funcs, msg := vm.LoadLibrary(tt.code, &fakeHost{}, time.Second)
		if !strings.HasPrefix(msg, tt.want) || (tt.want == "" && (msg != "" || len(funcs) != 0)) {
			t.Errorf("%q: %q, want %q", tt.code, msg, tt.want)
		}
	}
	// A library that never ends is stopped.
	_, msg := vm.LoadLibrary("\nwhile true do end", &fakeHost{}, 50*time.Millisecond)
	if msg != "Error registering functions: ERR FUNCTION LOAD timeout" {
		t.Errorf("endless load: %q", msg)
	}
	// The interpreter is usable afterwards, and the globals are the
	// runtime ones again.
	funcs, msg := vm.LoadLibrary("\nredis.register_function('f', function() return string.len('abc') end)", &fakeHost{}, time.Second)
	if msg != "" {
		t.Fatal(msg)
	}
	var w resp.Writer
	vm.CallFunction(funcs[0], nil, nil, &fakeHost{}, &w, time.Second)
	if got := string(w.Bytes()); got != ":3\r\n" {
		t.Errorf("after the failures: %q", got)
	}
}

func TestCallFunctionTimeout(t *testing.T) {
	vm := NewFunctionVM()
	defer vm.Close()
	funcs, msg := vm.LoadLibrary("\nredis.register_function('spin', function()\n while true do end\nend)", &fakeHost{}, time.Second)
	if msg != "" {
		t.Fatal(msg)
	}
	// Past the threshold the function is served around (Busy), and a
	// FUNCTION KILL stops it.
	var w resp.Writer
	h := &killingHost{}
	vm.CallFunction(funcs[0], nil, nil, h, &w, 50*time.Millisecond)
	if got, want := string(w.Bytes()), "-"+KilledMessage+" script: spin, on @user_function:3.\r\n"; got != want || h.calls != 3 {
		t.Errorf("got %q after %d Busy calls, want %q after 3", got, h.calls, want)
	}
	// The interpreter still works.
	w.Reset(0)
	funcs, msg = vm.LoadLibrary("\nredis.register_function('one', function() return 1 end)", &fakeHost{}, time.Second)
	if msg != "" {
		t.Fatal(msg)
	}
	vm.CallFunction(funcs[0], nil, nil, &fakeHost{}, &w, 50*time.Millisecond)
	if got := string(w.Bytes()); got != ":1\r\n" {
		t.Errorf("after the kill: %q", got)
	}
}

// killingHost asks to stop the script at its third Busy call.
type killingHost struct {
	fakeHost
	calls int
}

func (h *killingHost) Busy(first bool) bool {
	h.calls++
	return h.calls == 3
}
