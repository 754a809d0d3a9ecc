package scripting

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/glob"

	"github.com/limitkv/limitkv/internal/sdsargs"

	"github.com/limitkv/limitkv/internal/lua"
	"github.com/limitkv/limitkv/internal/rdb"
)

// The Functions family, after Redis 7.0's functions.c: FUNCTION LOAD,
// DELETE, FLUSH, LIST, DUMP, RESTORE, STATS, KILL, HELP, and FCALL /
// FCALL_RO. The Lua side (registration, the load-time sandbox, calls) is
// internal/lua/function.go; this file keeps the libraries.
//
// Libraries are data: SAVE/BGSAVE write them (FUNCTION2 records), loading
// an RDB restores them, FLUSHALL leaves them, FUNCTION DUMP/RESTORE move
// them in Redis's payload format.
//
// Where Redis lists libraries (and a library's functions) in hash order,
// which changes from run to run, limitkv lists libraries by name and
// functions in the order they were registered.
var FunctionCommands = []*engine.Command{
	{Name: "fcall", Arity: -3, Flags: engine.FlagNoScript | engine.FlagStale | engine.FlagSkipMonitor | engine.FlagMayReplicate, Group: "scripting",
		Handler: cmdFcall},
	{Name: "fcall_ro", Arity: -3, Flags: engine.FlagReadOnly | engine.FlagNoScript | engine.FlagStale | engine.FlagSkipMonitor, Group: "scripting",
		Handler: cmdFcallRO},
	{Name: "function", Arity: -2, Group: "scripting",
		Sub: map[string]*engine.Command{
			"load": {Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagNoScript, Group: "scripting",
				Handler: cmdFunctionLoad},
			"delete": {Arity: 3, Flags: engine.FlagWrite | engine.FlagNoScript, Group: "scripting",
				Handler: cmdFunctionDelete},
			"flush": {Arity: -2, Flags: engine.FlagWrite | engine.FlagNoScript, Group: "scripting",
				Handler: cmdFunctionFlush},
			"list": {Arity: -2, Flags: engine.FlagNoScript, Group: "scripting",
				Handler: cmdFunctionList},
			"dump": {Arity: 2, Flags: engine.FlagNoScript, Group: "scripting",
				Handler: cmdFunctionDump},
			"restore": {Arity: -3, Flags: engine.FlagWrite | engine.FlagDenyOOM | engine.FlagNoScript, Group: "scripting",
				Handler: cmdFunctionRestore},
			"stats": {Arity: 2, Flags: engine.FlagNoScript | engine.FlagAllowBusy, Group: "scripting",
				Handler: cmdFunctionStats},
			"kill": {Arity: 2, Flags: engine.FlagNoScript | engine.FlagAllowBusy, Group: "scripting",
				Handler: cmdFunctionKill},
			"help": {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "scripting",
				Handler: cmdFunctionHelp},
		}},
}

// functionLoadTimeout is Redis's LOAD_TIMEOUT_MS: a library's code only
// registers functions, so it gets half a second.
const functionLoadTimeout = 500 * time.Millisecond

type library struct {
	name  string
	code  []byte // as loaded, shebang line included
	funcs []*lua.Function
}

type libFunction struct {
	f   *lua.Function
	lib *library
}

// libraries is Redis's functionsLibCtx: libraries by name (case matters)
// and their functions by name (case does not).
type libraries struct {
	libs  map[string]*library
	funcs map[string]*libFunction
}

func newLibraries() *libraries {
	return &libraries{libs: make(map[string]*library), funcs: make(map[string]*libFunction)}
}

func (l *libraries) nFuncs() int {
	n := 0
	for _, lib := range l.libs {
		n += len(lib.funcs)
	}
	return n
}

func (l *libraries) sorted() []*library {
	out := make([]*library, 0, len(l.libs))
	for _, lib := range l.libs {
		out = append(out, lib)
	}
	slices.SortFunc(out, func(a, b *library) int { return strings.Compare(a.name, b.name) })
	return out
}

func (l *libraries) link(lib *library) {
	l.libs[lib.name] = lib
	for _, f := range lib.funcs {
		k := strings.ToLower(f.Name)
		if _, ok := l.funcs[k]; !ok {
			l.funcs[k] = &libFunction{f: f, lib: lib}
		}
	}
}

func (l *libraries) unlink(lib *library) {
	delete(l.libs, lib.name)
	for _, f := range lib.funcs {
		k := strings.ToLower(f.Name)
		if lf, ok := l.funcs[k]; ok && lf.lib == lib {
			delete(l.funcs, k)
		}
	}
}

// funcState returns the engine's libraries and the interpreter their
// functions run in, creating them on first use.
func funcState(e *engine.Engine) *functionsState {
	ext := stateOf(e)
	if ext.functions == nil {
		ext.functions = &functionsState{vm: lua.NewFunctionVM(), libs: newLibraries(), log: e.Log}
	}
	return ext.functions
}

type functionsState struct {
	vm   *lua.VM
	libs *libraries
	log  *slog.Logger
	// running is the function FCALL is running, for FUNCTION STATS.
	running      *lua.Function
	runningArgs  [][]byte
	runningStart time.Time
}

// loadLog takes the redis.log lines of a library loading.
type loadLog struct{ log *slog.Logger }

func (l loadLog) Call([][]byte, bool) ([]byte, string) { return nil, engine.RefusedUnknown }

func (l loadLog) Log(level int, msg string) {
	lv := slog.LevelDebug
	switch level {
	case 2:
		lv = slog.LevelInfo
	case 3:
		lv = slog.LevelWarn
	}
	l.log.Log(context.Background(), lv, msg, "source", "function load")
}

// parseLibraryMeta is functionExtractLibMetaData: the engine and the name
// from "#!<engine> name=<name>", and the code after the shebang line (its
// newline included, so line numbers stay those of the whole text).
func parseLibraryMeta(code []byte) (lang, name, body string, errMsg string) {
	if !bytes.HasPrefix(code, []byte("#!")) {
		return "", "", "", "Missing library metadata"
	}
	s := string(engine.Cstr(code))
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return "", "", "", "Invalid library metadata"
	}
	parts, ok := sdsargs.Split(s[:nl])
	if !ok || len(parts) == 0 {
		return "", "", "", "Invalid library metadata"
	}
	lang = parts[0][2:]
	gotName := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if gotName {
				return "", "", "", "Invalid metadata value, name argument was given multiple times"
			}
			name, gotName = p[5:], true
			continue
		}
		return "", "", "", "Invalid metadata value given: " + string(engine.Cstr([]byte(p)))
	}
	if !gotName {
		return "", "", "", "Library name was not given"
	}
	return lang, name, string(code[nl:]), ""
}

// createLibrary is functionsCreateWithLibraryCtx: it compiles code and
// links the library into l (replacing one of the same name if replace).
// On failure l is unchanged and errMsg is Redis's text, without "ERR ".
func (st *functionsState) createLibrary(l *libraries, code []byte, replace bool, timeout time.Duration) (string, string) {
	engine, name, body, msg := parseLibraryMeta(code)
	if msg != "" {
		return "", msg
	}
	if !lua.ValidName(name) {
		return "", "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	}
	if !strings.EqualFold(engine, "lua") {
		return "", "Engine '" + engine + "' not found"
	}
	old := l.libs[name]
	if old != nil && !replace {
		return "", "Library '" + name + "' already exists"
	}
	if old != nil {
		l.unlink(old)
	}
	funcs, msg := st.vm.LoadLibrary(body, loadLog{st.log}, timeout)
	if msg == "" && len(funcs) == 0 {
		msg = "No functions registered"
	}
	if msg == "" {
		for _, f := range funcs {
			if _, ok := l.funcs[strings.ToLower(f.Name)]; ok {
				msg = "Function " + f.Name + " already exists"
				break
			}
		}
	}
	if msg != "" {
		if old != nil {
			l.link(old)
		}
		return "", msg
	}
	l.link(&library{name: name, code: bytes.Clone(code), funcs: funcs})
	return name, ""
}

// join is libraryJoin: src's libraries move into l; a library name already
// in l is an error unless replace; a function name already in l always is.
func (l *libraries) join(src *libraries, replace bool) string {
	var replaced []*library
	restore := func() {
		for _, lib := range replaced {
			l.link(lib)
		}
	}
	for _, lib := range src.sorted() {
		if old := l.libs[lib.name]; old != nil {
			if !replace {
				restore()
				return "Library " + lib.name + " already exists"
			}
			l.unlink(old)
			replaced = append(replaced, old)
		}
	}
	for _, lib := range src.sorted() {
		for _, f := range lib.funcs {
			if _, ok := l.funcs[strings.ToLower(f.Name)]; ok {
				restore()
				return "Function " + f.Name + " already exists"
			}
		}
	}
	for _, lib := range src.sorted() {
		l.link(lib)
	}
	return ""
}

func cmdFunctionLoad(x *engine.Ctx) {
	replace := false
	i := 2
	for ; i < len(x.Args)-1; i++ {
		if !engine.CEqualFold(x.Args[i], "replace") {
			x.W.Error(errFunctionOption + string(engine.Cstr(x.Args[i])))
			return
		}
		replace = true
	}
	st := funcState(x.E)
	name, msg := st.createLibrary(st.libs, x.Args[i], replace, functionLoadTimeout)
	if msg != "" {
		x.W.Error("ERR " + msg)
		return
	}
	x.Dirty()
	x.W.BulkString(name)
}

func cmdFunctionDelete(x *engine.Ctx) {
	st := funcState(x.E)
	lib := st.libs.libs[string(x.Args[2])]
	if lib == nil {
		x.W.Error(errLibraryNotFound)
		return
	}
	st.libs.unlink(lib)
	x.Dirty()
	x.W.OK()
}

func cmdFunctionFlush(x *engine.Ctx) {
	switch {
	case len(x.Args) > 3:
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	case len(x.Args) == 3 && !engine.CEqualFold(x.Args[2], "sync") && !engine.CEqualFold(x.Args[2], "async"):
		x.W.Error(errFunctionFlush)
		return
	}
	funcState(x.E).libs = newLibraries()
	x.Dirty()
	x.W.OK()
}

func cmdFunctionList(x *engine.Ctx) {
	withCode := false
	var pattern []byte
	hasPattern := false
	for i := 2; i < len(x.Args); i++ {
		a := x.Args[i]
		if !withCode && engine.CEqualFold(a, "withcode") {
			withCode = true
			continue
		}
		if !hasPattern && engine.CEqualFold(a, "libraryname") {
			if i >= len(x.Args)-1 {
				x.W.Error(errLibraryNameMissing)
				return
			}
			i++
			pattern, hasPattern = x.Args[i], true
			continue
		}
		x.W.Error(errFunctionListArg + string(engine.Cstr(a)))
		return
	}
	var libs []*library
	for _, lib := range funcState(x.E).libs.sorted() {
		if hasPattern && !glob.Match(engine.Cstr(pattern), lib.name, true) {
			continue
		}
		libs = append(libs, lib)
	}
	w := x.W
	w.Array(len(libs))
	for _, lib := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(lib.name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(lib.funcs))
		for _, f := range lib.funcs {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.HasDesc {
				w.BulkString(f.Desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			names := lua.FlagNames(f.Flags)
			w.Set(len(names))
			for _, n := range names {
				w.Simple(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.Bulk(lib.code)
		}
	}
}

// functionCodes are the libraries' codes, in the order SAVE and FUNCTION
// DUMP write them (rdbSaveFunctions: a FUNCTION2 record each).
func functionCodes(e *engine.Engine) [][]byte {
	ext := stateOf(e)
	if ext.functions == nil {
		return nil
	}
	var out [][]byte
	for _, lib := range ext.functions.libs.sorted() {
		out = append(out, lib.code)
	}
	return out
}

// functionCounts is what INFO reports: the functions and the libraries.
func functionCounts(e *engine.Engine) (funcs, libs int) {
	ext := stateOf(e)
	if ext.functions == nil {
		return 0, 0
	}
	l := ext.functions.libs
	return len(l.funcs), len(l.libs)
}

func cmdFunctionDump(x *engine.Ctx) {
	x.W.Bulk(rdb.EncodeFunctionDump(functionCodes(x.E), x.E.Cfg.DumpOptions()))
}

func cmdFunctionRestore(x *engine.Ctx) {
	if len(x.Args) > 4 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	policy := "append"
	if len(x.Args) == 4 {
		switch {
		case engine.CEqualFold(x.Args[3], "append"), engine.CEqualFold(x.Args[3], "replace"), engine.CEqualFold(x.Args[3], "flush"):
			policy = strings.ToLower(string(x.Args[3]))
		default:
			x.W.Error(errRestorePolicy)
			return
		}
	}
	st := funcState(x.E)
	tmp := newLibraries()
	msg := rdb.DecodeFunctionDump(x.Args[2], false, func(code []byte) string {
		_, msg := st.createLibrary(tmp, code, false, 0)
		return msg
	})
	if msg != "" {
		x.W.Error("ERR " + msg)
		return
	}
	if policy == "flush" {
		st.libs = tmp
	} else if msg := st.libs.join(tmp, policy == "replace"); msg != "" {
		x.W.Error("ERR " + msg)
		return
	}
	x.Dirty()
	x.W.OK()
}

// loadFunctions loads the libraries an RDB file holds, as rdbLoad does
// before the keys; any failure fails the load.
func loadFunctions(e *engine.Engine, codes [][]byte) error {
	if len(codes) == 0 {
		return nil
	}
	st := funcState(e)
	tmp := newLibraries()
	for _, code := range codes {
		if _, msg := st.createLibrary(tmp, code, false, 0); msg != "" {
			return fmtLoadErr(msg)
		}
	}
	if msg := st.libs.join(tmp, true); msg != "" {
		return fmtLoadErr(msg)
	}
	return nil
}

func fmtLoadErr(msg string) error {
	return fmt.Errorf("%w: failed loading a function library: %s", rdb.ErrCorrupt, msg)
}

func cmdFunctionStats(x *engine.Ctx) {
	st := funcState(x.E)
	w := x.W
	w.Map(2)
	w.BulkString("running_script")
	if st.running == nil {
		w.Null()
	} else {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(st.running.Name)
		w.BulkString("command")
		w.Array(len(st.runningArgs))
		for _, a := range st.runningArgs {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(x.E.Clock.Now().Sub(st.runningStart).Milliseconds())
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(len(st.libs.libs)))
	w.BulkString("functions_count")
	w.Int(int64(st.libs.nFuncs()))
}

// cmdFunctionKill: a function holds the executor lock while it runs, so no
// client can ever reach this while one runs (see SCRIPT KILL).
func cmdFunctionKill(x *engine.Ctx) { x.KillFunction() }

var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}

func cmdFunctionHelp(x *engine.Ctx) { engine.WriteHelp(x, functionHelp) }

// fcallDeniesOOM: a function that may write is deny-oom unless it says
// allow-oom (fcallGetCommandFlags); an unknown one is not.
func fcallDeniesOOM(e *engine.Engine, name []byte) bool {
	ext := stateOf(e)
	if ext.functions == nil {
		return false
	}
	lf := ext.functions.libs.funcs[strings.ToLower(string(name))]
	return lf != nil && lf.f.Flags&(lua.FlagNoWrites|lua.FlagAllowOOM) == 0
}

func cmdFcall(x *engine.Ctx)   { fcallGeneric(x, false) }
func cmdFcallRO(x *engine.Ctx) { fcallGeneric(x, true) }

// fcallGeneric is fcallCommandGeneric with scriptPrepareForRun's checks
// that apply here (no replication, no cluster).
func fcallGeneric(x *engine.Ctx, ro bool) {
	x.NoPropagate() // as its effects, as EVAL
	st := funcState(x.E)
	lf := st.libs.funcs[strings.ToLower(string(x.Args[1]))]
	if lf == nil {
		x.W.Error(errFunctionNotFound)
		return
	}
	f := lf.f
	numkeys, ok := parseNumKeys(x, errFcallNumKeys)
	if !ok {
		return
	}
	if f.Flags&lua.FlagNoCluster != 0 && x.E.Cluster != nil {
		x.W.Error(errNoCluster)
		return
	}
	if f.Flags&lua.FlagNoWrites == 0 && ro {
		x.W.Error(engine.ErrScriptWriteRO)
		return
	}
	// The dispatcher refused a deny-oom function already (fcallDeniesOOM);
	// this is scriptPrepareForRun's check, which only a call queued in
	// MULTI before the function changed can reach.
	if f.Flags&(lua.FlagNoWrites|lua.FlagAllowOOM) == 0 && x.E.Cfg.MaxMemory.Load() > 0 && !x.E.CheckMemory(false) {
		x.W.Error(errScriptOOM)
		return
	}
	keys := x.Args[3 : 3+numkeys]
	argv := x.Args[3+numkeys:]

	oom := f.Flags&lua.FlagAllowOOM == 0 && x.E.Cfg.MaxMemory.Load() > 0 && !x.E.CheckMemory(false)
	st.running, st.runningArgs, st.runningStart = f, x.Args, x.E.Clock.Now()
	onScriptHost(x, stateOf(x.E), ro || f.Flags&lua.FlagNoWrites != 0, true, oom, f.Flags&lua.FlagAllowCrossSlot != 0, func(h *scriptHost, timeout time.Duration) {
		st.vm.CallFunction(f, keys, argv, h, x.W, timeout)
	})
	st.running, st.runningArgs = nil, nil
}
