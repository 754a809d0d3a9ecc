// Package lua runs Redis 7.0 scripts (EVAL) on gopher-lua: the sandbox Redis
// gives scripts (its libraries, the redis.* API, read-only globals), the
// conversions between RESP replies and Lua values both ways, and the hook
// that serves other clients while a script runs too long.
//
// One VM serves every script of an engine: scripts run one at a time under
// the executor lock, exactly as on Redis's single Lua interpreter, and the VM
// is reused from call to call so a cached script costs a function call, not a
// new interpreter.
//
// The interpreter is a patched copy of gopher-lua (internal/third_party/
// gopherlua) whose runtime error texts are Lua 5.1's, variable names
// included. Where it still differs from the Lua 5.1 inside Redis, replies
// differ too: syntax error texts, and the way non-integer numbers print
// when concatenated or passed to string.format ("%.14g" in Lua 5.1, Go's
// shortest form here; tostring is fixed up to match).
package lua

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"github.com/limitkv/limitkv/internal/sdsargs"
	"math"
	"strconv"
	"strings"
	"time"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
	"github.com/limitkv/limitkv/internal/third_party/gopherlua/parse"

	"github.com/limitkv/limitkv/internal/resp"
)

// Flags are the script flags a "#!lua flags=..." first line declares.
type Flags uint8

const (
	// FlagShebang: the script has a shebang line, so Redis drops the EVAL
	// compatibility mode (a script without no-writes may write, and *_RO
	// commands refuse to run it).
	FlagShebang Flags = 1 << iota
	FlagNoWrites
	FlagAllowOOM
	FlagAllowStale
	FlagNoCluster
)

// Script is a compiled script, bound to the VM that compiled it.
type Script struct {
	SHA   string // 40 lower-case hex digits of the body's SHA1
	Body  string
	Flags Flags
	// Twin names the native twin of a script Recognise knows ("" for
	// none), which the executor may run instead of the interpreter.
	Twin string
	fn   *glua.LFunction
}

// Host runs the Redis commands a script calls and receives its log lines.
type Host interface {
	// Call runs one command for redis.call / redis.pcall. It returns the
	// command's reply, in RESP3 if resp3 (the script called
	// redis.setresp(3)) and RESP2 otherwise, which the VM converts before
	// the next Call; or, when the script may not run it, the reason (Redis's
	// text, without an error code).
	Call(args [][]byte, resp3 bool) (reply []byte, refused string)
	// Log receives redis.log lines (level: 0 debug .. 3 warning).
	Log(level int, msg string)
}

// ReplHost is a Host that takes redis.set_repl: where the commands the
// script calls from then on propagate (REPL_AOF 1 | REPL_REPLICA 2). It
// starts every script at REPL_ALL.
type ReplHost interface {
	SetRepl(flags int)
}

// SHA1Hex returns the script name Redis gives body.
func SHA1Hex(body []byte) string {
	sum := sha1.Sum(body)
	return hex.EncodeToString(sum[:])
}

// VM is one Lua interpreter. It is not safe for concurrent use.
type VM struct {
	L       *glua.LState
	globals *glua.LTable // the real globals, behind the read-only proxy scripts see
	proxies map[*glua.LTable]*glua.LTable
	handler *glua.LFunction // error handler for the script's pcall

	// Per-run state.
	host    Host
	args    [][]byte
	arena   []byte
	offs    []int
	running bool
	// resp3: the script called redis.setresp(3): commands answer it in
	// RESP3 and its booleans reply as RESP3 booleans.
	resp3 bool
	// sources maps the chunk ids of the run's loadstring chunks to their
	// sources (see loadString); emptied at each run.
	sources map[string]string

	busy  busyState
	rand  uint64 // rand48 state for math.random
	keysK glua.LValue
	argvK glua.LValue

	fs *funcState // Functions' interpreter only (function.go)
}

// New returns a VM with Redis's sandbox.
func New() *VM {
	L := glua.NewState(glua.Options{
		SkipOpenLibs:    true,
		CallStackSize:   200, // Lua 5.1's LUAI_MAXCCALLS: deep recursion is a "stack overflow" error
		RegistrySize:    1024,
		RegistryMaxSize: 1 << 20,
	})
	vm := &VM{L: L, proxies: make(map[*glua.LTable]*glua.LTable), keysK: glua.LString("KEYS"), argvK: glua.LString("ARGV")}
	vm.initBusy()
	vm.srand48(0)
	vm.setup()
	return vm
}

// Close releases the interpreter.
func (vm *VM) Close() {
	vm.busy.timer.Stop()
	vm.L.Close()
}

// Compile compiles body, whose SHA1 is sha. On failure it returns the error
// reply Redis gives, e.g. "ERR Error compiling script (new function): ...".
func (vm *VM) Compile(sha string, body []byte) (*Script, string) {
	s := &Script{SHA: sha, Body: string(body)}
	src := s.Body
	if strings.HasPrefix(src, "#!") {
		nl := strings.IndexByte(src, '\n')
		if nl < 0 {
			return nil, "ERR Invalid script shebang"
		}
		flags, msg := parseShebang(src[:nl])
		if msg != "" {
			return nil, msg
		}
		s.Flags = flags | FlagShebang
		// Keep the newline so line numbers in errors stay those of the body.
		src = src[nl:]
	}
	if msg := checkSyntax51(src, chunkName); msg != "" {
		return nil, "ERR Error compiling script (new function): " + msg
	}
	chunk, err := parse.Parse(strings.NewReader(src), chunkName)
	if err != nil {
		return nil, "ERR Error compiling script (new function): " + syntaxError(err, src)
	}
	proto, err := glua.Compile(chunk, chunkName)
	if err != nil {
		msg := err.Error()
		if ce, ok := err.(*glua.CompileError); ok {
			msg = fmt.Sprintf("%s:%d: %s", chunkName, ce.Line, ce.Message)
		}
		return nil, "ERR Error compiling script (new function): " + msg
	}
	noArgTable(proto)
	if s.Flags == 0 {
		s.Twin = Recognise(chunk)
	}
	s.fn = vm.L.NewFunctionFromProto(proto)
	return s, ""
}

// noArgTable drops Lua 5.0's implicit "arg" table of vararg functions:
// Redis's Lua is built without it, and gopher-lua would allocate it on
// every call.
func noArgTable(p *glua.FunctionProto) {
	p.IsVarArg &^= glua.VarArgNeedsArg
	for _, c := range p.FunctionPrototypes {
		noArgTable(c)
	}
}

const chunkName = "user_script"

// syntaxError words a gopher-lua parse error the way Lua 5.1 starts its own
// ("user_script:LINE: ... near 'TOKEN'"); the middle is gopher-lua's.
func syntaxError(err error, src string) string {
	pe, ok := err.(*parse.Error)
	if !ok {
		return strings.TrimSpace(err.Error())
	}
	if pe.Pos.Line == parse.EOF {
		return fmt.Sprintf("%s:%d: %s near '<eof>'", chunkName, strings.Count(src, "\n")+1, pe.Message)
	}
	return fmt.Sprintf("%s:%d: %s near '%s'", chunkName, pe.Pos.Line, pe.Message, pe.Token)
}

// parseShebang reads "#!lua [flags=a,b]" as Redis 7.0's
// evalExtractShebangFlags does (sdssplitargs, flag names as in
// scripts_flags_def).
func parseShebang(line string) (Flags, string) {
	parts, ok := sdsargs.Split(line)
	if !ok || len(parts) == 0 {
		return 0, "ERR Invalid engine in script shebang"
	}
	if parts[0] != "#!lua" {
		return 0, "ERR Unexpected engine in script shebang: " + parts[0]
	}
	var f Flags
	for _, p := range parts[1:] {
		list, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, "ERR Unknown lua shebang option: " + p
		}
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			found := false
			for _, fl := range flagNames {
				if fl.name == name {
					f |= fl.flag
					found = true
					break
				}
			}
			if !found {
				return 0, "ERR Unexpected flag in script shebang: " + name
			}
		}
	}
	return f, ""
}

// Run calls s with KEYS and ARGV and writes its reply (or its error) to w.
// A script still running after timeout (busy-reply-threshold; 0: never)
// goes on running, as in Redis: from then on the VM calls the host's Busy
// about every BusyTick (see busy.go), which serves other clients and may
// stop the script.
func (vm *VM) Run(s *Script, keys, argv [][]byte, host Host, w *resp.Writer, timeout time.Duration) {
	L := vm.L
	vm.host = host
	vm.running = true
	vm.resp3 = false // every script starts in RESP2, as in Redis
	if len(vm.sources) > 0 {
		clear(vm.sources)
	}
	vm.globals.RawSet(vm.keysK, vm.array(keys))
	vm.globals.RawSet(vm.argvK, vm.array(argv))

	if timeout > 0 {
		vm.armBusy(timeout)
	}
	base := L.GetTop()
	L.Push(s.fn)
	err := L.PCall(0, 1, vm.handler)
	if timeout > 0 {
		vm.disarmBusy()
	}
	if err != nil {
		vm.writeError(w, s, err)
	} else {
		vm.writeReply(w, L.Get(-1), 0)
	}
	L.SetTop(base)
	vm.host = nil
	vm.running = false
}

func (vm *VM) array(items [][]byte) *glua.LTable {
	t := vm.L.CreateTable(len(items), 0)
	for _, it := range items {
		t.Append(glua.LString(it))
	}
	return t
}

// writeError answers a script that raised an error, in Redis's words:
// "-<err> script: <sha>, on @user_script:<line>."
func (vm *VM) writeError(w *resp.Writer, s *Script, err error) {
	ae, ok := err.(*glua.ApiError)
	if !ok {
		w.Error("ERR " + err.Error())
		return
	}
	t, ok := ae.Object.(*glua.LTable)
	if !ok {
		// The error handler could not run (a stack overflow): word it as it
		// would have, taking the line from the message's position.
		msg := luaToString(ae.Object)
		out := "ERR " + msg
		if rest, ok := strings.CutPrefix(msg, chunkName+":"); ok {
			if i := strings.IndexByte(rest, ':'); i > 0 {
				out += fmt.Sprintf(" script: %s, on @%s:%s.", s.SHA, chunkName, rest[:i])
			}
		}
		w.Error(out)
		return
	}
	msg, ok := t.RawGetString("err").(glua.LString)
	if !ok {
		// Redis 7.0 crashes on an error table without "err"; answer instead.
		msg = "ERR unknown error"
	}
	out := string(msg)
	if line, ok := t.RawGetString("line").(glua.LNumber); ok {
		if src, ok := t.RawGetString("source").(glua.LString); ok {
			out += fmt.Sprintf(" script: %s, on %s:%d.", s.SHA, src, int(line))
		}
	}
	w.Error(out)
}

// errorHandler is Redis's __redis__err__handler: it turns any error into an
// {err=..., source=..., line=...} table naming the innermost Lua line.
func (vm *VM) errorHandler(L *glua.LState) int {
	obj := L.Get(1)
	t, ok := obj.(*glua.LTable)
	if !ok {
		msg := luaToString(obj)
		t = L.NewTable()
		t.RawSetString("err", glua.LString("ERR "+msg))
	}
	if src, line := vm.currentLine(L, 1); line >= 0 {
		t.RawSetString("source", glua.LString(src))
		t.RawSetString("line", glua.LNumber(line))
	}
	L.Push(t)
	return 1
}

// currentLine returns the source (as Lua's debug.getinfo names it) and the
// line of the innermost Lua function at or above level, or line -1.
func (vm *VM) currentLine(L *glua.LState, level int) (string, int) {
	for ; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return "", -1
		}
		if _, err := L.GetInfo("Sl", dbg, glua.LNil); err != nil {
			return "", -1
		}
		if dbg.What != "G" && dbg.CurrentLine >= 0 {
			src := dbg.Source
			if src == chunkName || src == funcChunkName {
				src = "@" + src
			} else if raw, ok := vm.sources[src]; ok {
				src = raw
			}
			return src, dbg.CurrentLine
		}
	}
}

// formatArg renders a Lua number passed to redis.call as Redis does
// ("%.17g"), so 0.1 becomes "0.10000000000000001" and 3 becomes "3".
func formatArg(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e17 {
		if f == 0 && math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// formatNumber is Lua 5.1's tostring for numbers ("%.14g").
func formatNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e14 {
		if f == 0 && math.Signbit(f) {
			return "-0"
		}
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

func luaToString(v glua.LValue) string {
	if n, ok := v.(glua.LNumber); ok {
		return formatNumber(float64(n))
	}
	return v.String()
}
