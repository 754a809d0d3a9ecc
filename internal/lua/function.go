package lua

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
	"github.com/limitkv/limitkv/internal/third_party/gopherlua/parse"

	"github.com/limitkv/limitkv/internal/resp"
)

// Redis 7.0 Functions (function_lua.c): a library's code runs once, at
// FUNCTION LOAD, to register its functions; FCALL later calls them. They get
// an interpreter of their own (NewFunctionVM), as on Redis, whose globals a
// library sees through an empty, read-only table: while the library loads,
// that table reads through to a "library API" holding only
// redis.register_function, redis.log and the version fields; afterwards it
// reads through to the ordinary sandbox (without KEYS/ARGV, and without
// EVAL's redis.breakpoint/debug/replicate_commands, which Functions lack).

// FlagAllowCrossSlot is the allow-cross-slot-keys script flag.
const FlagAllowCrossSlot = FlagNoCluster << 1

// flagNames are Redis's scripts_flags_def, in its order: the order FUNCTION
// LIST lists them in.
var flagNames = []struct {
	name string
	flag Flags
}{
	{"no-writes", FlagNoWrites},
	{"allow-oom", FlagAllowOOM},
	{"allow-stale", FlagAllowStale},
	{"no-cluster", FlagNoCluster},
	{"allow-cross-slot-keys", FlagAllowCrossSlot},
}

// FlagNames lists the names of the flags set in f, in Redis's order.
func FlagNames(f Flags) []string {
	var out []string
	for _, fl := range flagNames {
		if f&fl.flag != 0 {
			out = append(out, fl.name)
		}
	}
	return out
}

// Function is one function a library registered.
type Function struct {
	Name    string
	Desc    string
	HasDesc bool
	Flags   Flags
	fn      *glua.LFunction
}

const funcChunkName = "user_function"

// loadCtx is the state of a FUNCTION LOAD in progress.
type loadCtx struct {
	funcs []*Function
}

// funcState is what a function VM adds to a VM.
type funcState struct {
	env     *glua.LTable // the globals every library sees, empty and read-only
	envMeta *glua.LTable // its metatable
	libAPI  *glua.LTable // what they see while loading
	runtime *glua.LTable // what they see afterwards
	loading *loadCtx
}

// NewFunctionVM returns the interpreter Functions run in.
func NewFunctionVM() *VM {
	vm := New()
	L := vm.L
	g := vm.globals
	real := vm.proxies[g.RawGetString("redis").(*glua.LTable)]
	for _, name := range []string{"breakpoint", "debug", "replicate_commands"} {
		real.RawSetString(name, glua.LNil)
	}
	readonly := L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("%s", errReadonly)
		return 0
	})
	missing := L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("%s%s'", errNoGlobal, L.Get(2).String())
		return 0
	})
	// The library API: a redis table with registration, logging and the
	// version, both tables erring on a missing name as Redis's
	// luaSetErrorMetatable does.
	lr := L.NewTable()
	lr.RawSetString("register_function", L.NewFunction(vm.registerFunction))
	lr.RawSetString("log", L.NewFunction(vm.log))
	for name, v := range map[string]float64{"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3, "REDIS_VERSION_NUM": redisVersionNum} {
		lr.RawSetString(name, glua.LNumber(v))
	}
	lr.RawSetString("REDIS_VERSION", glua.LString(redisVersion))
	api := L.NewTable()
	api.RawSetString("redis", vm.protectStrict(lr, readonly, missing))
	fs := &funcState{libAPI: vm.protectStrict(api, readonly, missing), runtime: vm.L.Env}
	fs.envMeta = L.NewTable()
	fs.envMeta.RawSetString("__index", fs.runtime)
	fs.envMeta.RawSetString("__newindex", readonly)
	fs.envMeta.RawSetString("__metatable", glua.LFalse)
	fs.env = L.NewTable()
	fs.env.Metatable = fs.envMeta
	vm.proxies[fs.env] = fs.env // read-only for rawset and setmetatable too
	vm.fs = fs
	return vm
}

// protectStrict is protect, with reads of a missing name raising Redis's
// "nonexistent global variable" error.
func (vm *VM) protectStrict(t *glua.LTable, readonly, missing *glua.LFunction) *glua.LTable {
	mt := vm.L.NewTable()
	mt.RawSetString("__index", missing)
	t.Metatable = mt
	return vm.protect(t, readonly)
}

// LoadLibrary runs a library's code (the part after its shebang line, the
// newline included) so that it registers its functions; host receives its
// redis.log lines (it runs no commands: redis.call does not exist then). A
// load still running after timeout (0: no limit) is stopped. On failure it
// returns Redis's error text, without the "ERR " code FUNCTION LOAD adds.
func (vm *VM) LoadLibrary(code string, host Host, timeout time.Duration) ([]*Function, string) {
	if vm.fs == nil {
		panic("lua: LoadLibrary on a VM not made by NewFunctionVM")
	}
	L := vm.L
	chunk, err := parse.Parse(strings.NewReader(code), funcChunkName)
	if err != nil {
		return nil, "Error compiling function: " + namedSyntaxError(err, code, funcChunkName)
	}
	proto, err := glua.Compile(chunk, funcChunkName)
	if err != nil {
		msg := err.Error()
		if ce, ok := err.(*glua.CompileError); ok {
			msg = fmt.Sprintf("%s:%d: %s", funcChunkName, ce.Line, ce.Message)
		}
		return nil, "Error compiling function: " + msg
	}
	noArgTable(proto)
	fn := L.NewFunctionFromProto(proto)
	fn.Env = vm.fs.env

	lc := &loadCtx{}
	vm.fs.loading = lc
	// A load past its time limit is stopped, not served around: the
	// busy mechanism with a host that kills at the first call.
	vm.host = loadTimeout{host}
	vm.fs.envMeta.RawSetString("__index", vm.fs.libAPI)
	if timeout > 0 {
		vm.running = true
		vm.armBusy(timeout)
	}
	base := L.GetTop()
	L.Push(fn)
	err = L.PCall(0, 0, nil)
	killed := false
	if timeout > 0 {
		killed = vm.busy.killed
		vm.disarmBusy()
		vm.running = false
	}
	L.SetTop(base)
	vm.fs.envMeta.RawSetString("__index", vm.fs.runtime)
	vm.fs.loading = nil
	vm.host = nil
	switch {
	case killed:
		return nil, "Error registering functions: ERR FUNCTION LOAD timeout"
	case err != nil:
		return nil, "Error registering functions: " + loadErrorMessage(err)
	}
	return lc.funcs, ""
}

// loadErrorMessage is luaExtractErrorInformation's message for an error
// raised while a library loads (no error handler runs then).
func loadErrorMessage(err error) string {
	ae, ok := err.(*glua.ApiError)
	if !ok {
		return "ERR " + err.Error()
	}
	switch o := ae.Object.(type) {
	case *glua.LTable:
		if s, ok := o.RawGetString("err").(glua.LString); ok {
			return string(s)
		}
		return "(null)"
	case glua.LString:
		return "ERR " + string(o)
	case glua.LNumber:
		return "ERR " + luaToString(o)
	}
	return "(null)"
}

func namedSyntaxError(err error, src, name string) string {
	pe, ok := err.(*parse.Error)
	if !ok {
		return strings.TrimSpace(err.Error())
	}
	if pe.Pos.Line == parse.EOF {
		return fmt.Sprintf("%s:%d: %s near '<eof>'", name, strings.Count(src, "\n")+1, pe.Message)
	}
	return fmt.Sprintf("%s:%d: %s near '%s'", name, pe.Pos.Line, pe.Message, pe.Token)
}

// registerFunction is redis.register_function, positional (name, callback)
// or named ({function_name=, callback=, flags=, description=}).
func (vm *VM) registerFunction(L *glua.LState) int {
	fail := func(msg string) int {
		L.Error(errorTable(L, msg), 0)
		return 0
	}
	lc := vm.fs.loading
	if lc == nil {
		return fail("redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &Function{}
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*glua.LTable)
		if !ok {
			return fail("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		var msg string
		hasName := false
		t.ForEach(func(k, v glua.LValue) {
			if msg != "" {
				return
			}
			key, ok := luaString(k)
			if !ok {
				msg = "named argument key given to redis.register_function is not a string"
				return
			}
			switch strings.ToLower(key) {
			case "function_name":
				if f.Name, ok = luaString(v); !ok {
					msg = "function_name argument given to redis.register_function must be a string"
				}
				hasName = ok
			case "description":
				if f.Desc, ok = luaString(v); !ok {
					msg = "description argument given to redis.register_function must be a string"
				}
				f.HasDesc = ok
			case "callback":
				if f.fn, ok = v.(*glua.LFunction); !ok {
					msg = "callback argument given to redis.register_function must be a function"
				}
			case "flags":
				ft, ok := v.(*glua.LTable)
				if !ok {
					msg = "flags argument to redis.register_function must be a table representing function flags"
					return
				}
				if f.Flags, ok = readFunctionFlags(ft); !ok {
					msg = "unknown flag given"
				}
			default:
				msg = "unknown argument given to redis.register_function"
			}
		})
		switch {
		case msg != "":
			return fail(msg)
		case !hasName:
			return fail("redis.register_function must get a function name argument")
		case f.fn == nil:
			return fail("redis.register_function must get a callback argument")
		}
	case 2:
		name, ok := luaString(L.Get(1))
		if !ok {
			return fail("first argument to redis.register_function must be a string")
		}
		fn, ok := L.Get(2).(*glua.LFunction)
		if !ok {
			return fail("second argument to redis.register_function must be a function")
		}
		f.Name, f.fn = name, fn
	default:
		return fail("wrong number of arguments to redis.register_function")
	}
	if !ValidName(f.Name) {
		return fail("Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	for _, o := range lc.funcs {
		if o.Name == f.Name {
			return fail("Function already exists in the library")
		}
	}
	lc.funcs = append(lc.funcs, f)
	return 0
}

// readFunctionFlags reads the flags array: names are matched without
// regard to case; anything else is refused.
func readFunctionFlags(t *glua.LTable) (Flags, bool) {
	var f Flags
	for i := 1; ; i++ {
		v := t.RawGetInt(i)
		if v == glua.LNil {
			return f, true
		}
		s, ok := luaString(v)
		if !ok {
			return 0, false
		}
		found := false
		for _, fl := range flagNames {
			if strings.EqualFold(fl.name, s) {
				f |= fl.flag
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
}

// luaString is lua_isstring + lua_tostring: strings, and numbers as Lua
// prints them.
func luaString(v glua.LValue) (string, bool) {
	switch v := v.(type) {
	case glua.LString:
		return string(v), true
	case glua.LNumber:
		return formatNumber(float64(v)), true
	}
	return "", false
}

// ValidName is functionsVerifyName: letters, digits and underscores, at
// least one.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// CallFunction runs f with its keys and args and writes its reply (or its
// error, "... script: <name>, on @user_function:<line>.") to w. Past the
// time limit it is served around as Run's scripts are (busy.go).
func (vm *VM) CallFunction(f *Function, keys, argv [][]byte, host Host, w *resp.Writer, timeout time.Duration) {
	L := vm.L
	vm.host = host
	vm.running = true
	vm.resp3 = false
	if timeout > 0 {
		vm.armBusy(timeout)
	}
	base := L.GetTop()
	L.Push(f.fn)
	L.Push(vm.array(keys))
	L.Push(vm.array(argv))
	err := L.PCall(2, 1, vm.handler)
	if timeout > 0 {
		vm.disarmBusy()
	}
	switch {
	case err != nil:
		vm.writeError(w, &Script{SHA: f.Name}, err)
	default:
		vm.writeReply(w, L.Get(-1), 0)
	}
	L.SetTop(base)
	vm.host = nil
	vm.running = false
}

// ShebangFlags reads the flags of an EVAL script's "#!lua" line as
// evalExtractShebangFlags does, FlagShebang included; ok is false when the
// script has no shebang or a bad one.
func ShebangFlags(body []byte) (f Flags, ok bool) {
	if len(body) < 2 || body[0] != '#' || body[1] != '!' {
		return 0, false
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return 0, false
	}
	f, msg := parseShebang(string(body[:nl]))
	if msg != "" {
		return 0, false
	}
	return f | FlagShebang, true
}

// loadTimeout is the host of a library being loaded: past the load's time
// limit the load is stopped ("FUNCTION LOAD timeout"), nobody is served.
type loadTimeout struct{ Host }

func (loadTimeout) Busy(bool) bool { return true }
