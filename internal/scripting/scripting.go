package scripting

import (
	"context"
	"log/slog"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/lua"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/propagate"
	"github.com/limitkv/limitkv/internal/resp"
)

// The scripting family, after Redis 7.0's eval.c and script.c: EVAL,
// EVALSHA, their _RO forms, and SCRIPT. The Lua side (sandbox, conversions,
// time limit) is internal/lua; this file checks arguments, keeps the script
// cache, and runs the commands scripts call.
//
// A script running longer than busy-reply-threshold goes on, while other
// clients are answered BUSY and may SCRIPT KILL it (busy.go).
//
// Difference from Redis, by design: SCRIPT DEBUG YES/SYNC (the Lua
// debugger) is refused; NO is accepted.
var ScriptCommands = []*engine.Command{
	{Name: "eval", Arity: -3, Flags: engine.FlagNoScript | engine.FlagStale | engine.FlagSkipMonitor, Group: "scripting",
		Handler: cmdEval},
	{Name: "evalsha", Arity: -3, Flags: engine.FlagNoScript | engine.FlagStale | engine.FlagSkipMonitor, Group: "scripting",
		Handler: cmdEvalSHA},
	{Name: "eval_ro", Arity: -3, Flags: engine.FlagReadOnly | engine.FlagNoScript | engine.FlagStale | engine.FlagSkipMonitor, Group: "scripting",
		Handler: cmdEvalRO},
	{Name: "evalsha_ro", Arity: -3, Flags: engine.FlagReadOnly | engine.FlagNoScript | engine.FlagStale | engine.FlagSkipMonitor, Group: "scripting",
		Handler: cmdEvalSHARO},
	{Name: "script", Arity: -2, Group: "scripting",
		Sub: map[string]*engine.Command{
			"exists": {Arity: -3, Flags: engine.FlagNoScript, Group: "scripting",
				Handler: cmdScriptExists},
			"load": {Arity: 3, Flags: engine.FlagNoScript | engine.FlagStale, Group: "scripting",
				Handler: cmdScriptLoad},
			"flush": {Arity: -2, Flags: engine.FlagNoScript, Group: "scripting",
				Handler: cmdScriptFlush},
			"kill": {Arity: 2, Flags: engine.FlagNoScript | engine.FlagAllowBusy, Group: "scripting",
				Handler: engine.CmdScriptKill},
			"debug": {Arity: 3, Flags: engine.FlagNoScript, Group: "scripting",
				Handler: cmdScriptDebug},
			"help": {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "scripting",
				Handler: cmdScriptHelp},
		}},
}

var scriptHelp = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

func cmdEval(x *engine.Ctx)      { evalGeneric(x, false, false) }
func cmdEvalSHA(x *engine.Ctx)   { evalGeneric(x, true, false) }
func cmdEvalRO(x *engine.Ctx)    { evalGeneric(x, false, true) }
func cmdEvalSHARO(x *engine.Ctx) { evalGeneric(x, true, true) }

// scriptVM returns the engine's interpreter and script cache, creating them
// on first use.
func scriptVM(e *engine.Engine) *scriptState {
	ext := stateOf(e)
	if ext.vm == nil {
		ext.vm = lua.New()
		ext.scripts = make(map[string]*lua.Script)
	}
	return ext
}

// lookupScript is the one place a cached script is found by its SHA (40
// lower-case hex digits): a native fast path for well-known scripts hooks
// in here.
func (ext *scriptState) lookupScript(sha []byte) *lua.Script {
	return ext.scripts[string(sha)]
}

// loadScript returns the cached script for body, compiling and caching it
// if needed; on a compile error it returns Redis's error reply text.
func (ext *scriptState) loadScript(body []byte) (*lua.Script, string) {
	sha := lua.SHA1Hex(body)
	if s := ext.lookupScript([]byte(sha)); s != nil {
		return s, ""
	}
	s, msg := ext.vm.Compile(sha, body)
	if msg != "" {
		return nil, msg
	}
	ext.scripts[sha] = s
	return s, ""
}

func evalGeneric(x *engine.Ctx, bySHA, ro bool) {
	x.NoPropagate() // a script propagates as its effects (scriptResetRun)
	var sha [40]byte
	if bySHA {
		// Redis checks the length before anything else.
		if len(x.Args[1]) != 40 {
			x.W.Error(engine.ErrNoScript)
			return
		}
		for i, c := range x.Args[1] {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			sha[i] = c
		}
	}
	numkeys, ok := parseNumKeys(x, engine.ErrNotInt)
	if !ok {
		return
	}
	ext := scriptVM(x.E)
	var s *lua.Script
	if bySHA {
		if s = ext.lookupScript(sha[:]); s == nil {
			x.W.Error(engine.ErrNoScript)
			return
		}
	} else {
		var msg string
		if s, msg = ext.loadScript(x.Args[1]); s == nil {
			x.W.Error(msg)
			return
		}
	}
	// With a shebang the script declares whether it writes; without one
	// (EVAL compatibility mode) only the commands it calls are checked.
	shebang := s.Flags&lua.FlagShebang != 0
	// scriptPrepareForRun's first check: a script flagged no-cluster
	// does not run on a cluster node.
	if shebang && s.Flags&lua.FlagNoCluster != 0 && x.E.Cluster != nil {
		x.W.Error(errNoCluster)
		return
	}
	// The dispatcher refused a deny-oom script already (scriptDeniesOOM);
	// this is scriptPrepareForRun's check, which only a script queued in
	// MULTI while it was another one can reach.
	if shebang && s.Flags&(lua.FlagNoWrites|lua.FlagAllowOOM) == 0 && x.E.Cfg.MaxMemory.Load() > 0 && !x.E.CheckMemory(false) {
		x.W.Error(errScriptOOM)
		return
	}
	if shebang && s.Flags&lua.FlagNoWrites == 0 && ro {
		x.W.Error(engine.ErrScriptWriteRO)
		return
	}
	keys := x.Args[3 : 3+numkeys]
	argv := x.Args[3+numkeys:]
	// With a monitor the script runs in Lua, so its commands are shown.
	if s.Twin != "" && !ro && len(x.E.Cs.Monitors) == 0 && x.RunTwin(s.Twin, keys, argv) { // recognised scripts run by their native twin (engine/table.go)
		return
	}
	runScript(x, ext, s, keys, argv, ro || (shebang && s.Flags&lua.FlagNoWrites != 0))
}

// scriptDeniesOOM is the deny-oom flag Redis gives EVAL and FCALL from
// the flags of the script they name (evalGetCommandFlags,
// fcallGetCommandFlags), for the dispatcher's maxmemory check and MULTI.
func scriptDeniesOOM(e *engine.Engine, cmd *engine.Command, args [][]byte) bool {
	switch cmd.Name {
	case "eval", "eval_ro":
		return evalDeniesOOM(e, args[1], false, nil)
	case "evalsha", "evalsha_ro":
		var sha [40]byte
		if len(args[1]) != 40 {
			return false
		}
		for i, c := range args[1] {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			sha[i] = c
		}
		return evalDeniesOOM(e, args[1], true, sha[:])
	case "fcall", "fcall_ro":
		return fcallDeniesOOM(e, args[1])
	}
	return false
}

// evalDeniesOOM tells whether an EVAL of body (EVALSHA of sha) runs a
// script whose shebang makes it deny-oom: flags without allow-oom or
// no-writes. A script without a shebang, or one not found, is not.
func evalDeniesOOM(e *engine.Engine, body []byte, bySHA bool, sha []byte) bool {
	var f lua.Flags
	if bySHA {
		if len(body) != 40 {
			return false
		}
		s := scriptVM(e).lookupScript(sha)
		if s == nil {
			return false
		}
		f = s.Flags
	} else {
		f, _ = lua.ShebangFlags(body)
	}
	return f&lua.FlagShebang != 0 && f&(lua.FlagNoWrites|lua.FlagAllowOOM) == 0
}

// runScript runs s for x's client.
func runScript(x *engine.Ctx, ext *scriptState, s *lua.Script, keys, argv [][]byte, ro bool) {
	// As Redis 7 does for scripts without flags: memory is judged once, at
	// the start, and deny-oom commands then fail inside the script.
	// allow-oom (with a shebang) lets the script's commands run regardless.
	oom := x.E.Cfg.MaxMemory.Load() > 0 && !x.E.CheckMemory(false) &&
		s.Flags&(lua.FlagShebang|lua.FlagAllowOOM) != lua.FlagShebang|lua.FlagAllowOOM
	// Without a shebang (EVAL compatibility mode) keys may be of any slot.
	crossSlot := s.Flags&lua.FlagShebang == 0 || s.Flags&lua.FlagAllowCrossSlot != 0
	onScriptHost(x, ext, ro, false, oom, crossSlot, func(h *scriptHost, timeout time.Duration) {
		ext.vm.Run(s, keys, argv, h, x.W, timeout)
	})
}

// onScriptHost runs a script or a function (run) for x's client, as Redis
// runs both: with the host that serves its redis.call set up for it, the
// busy state around it (busy.go), and the caller's database kept (SELECT
// inside does not change it: Redis 7.0 runs scripts on a client of their
// own). A script stopped by SHUTDOWN NOSAVE ends without an answer.
func onScriptHost(x *engine.Ctx, ext *scriptState, ro, function, oom, crossSlot bool, run func(h *scriptHost, timeout time.Duration)) {
	c := x.C
	db := c.DB
	wasIn := c.InScript
	c.InScript = true
	h := &ext.host
	prev := *h
	h.x, h.ro, h.wrote, h.function, h.oom, h.target = x, ro, false, function, oom, propagate.ToAll
	h.crossSlot = crossSlot
	timeout := time.Duration(x.E.Cfg.BusyThreshold.Load()) * time.Millisecond
	x.E.BusyBegin()
	mark := x.W.Len()
	run(h, timeout)
	if x.E.BusyEnd() {
		x.W.Truncate(mark)
		c.CloseAfterReply = true
	}
	*h = prev
	c.InScript = wasIn
	c.DB = db
}

// scriptHost runs the commands a script calls (redis.call / redis.pcall).
type scriptHost struct {
	x  *engine.Ctx
	ro bool
	// function: the script is a function (FCALL): BUSY replies and
	// the kill command are FUNCTION KILL's (busy.go).
	function bool
	oom      bool // over maxmemory when the script started
	// crossSlot: in cluster mode the script's keys need not share a slot
	// (allow-cross-slot-keys, or no shebang).
	crossSlot bool
	wrote     bool             // a write command ran (Redis's SCRIPT_WRITE_DIRTY)
	target    propagate.Target // where its calls propagate (redis.set_repl)
	w         resp.Writer      // scratch reply buffer, reused from call to call
	inner     engine.Ctx
}

// maxScratch bounds the scratch reply buffer kept between calls.
const maxScratch = 64 << 10

func (h *scriptHost) Call(args [][]byte, resp3 bool) ([]byte, string) {
	cmd := engine.Lookup(args[0])
	if cmd != nil && cmd.Sub != nil && len(args) >= 2 {
		cmd = engine.LookupSub(cmd, args[1])
	}
	if cmd == nil {
		return nil, engine.RefusedUnknown
	}
	if !engine.ArityOK(cmd.Arity, len(args)) {
		return nil, engine.RefusedArity
	}
	if cmd.Flags&engine.FlagNoScript != 0 && !h.x.E.Debug.DisableDenyScripts {
		return nil, engine.RefusedNoScript
	}
	if u := h.x.C.User; u != nil && !u.Unrestricted {
		if msg := h.x.E.AclScriptDenied(h.x, cmd, args); msg != "" {
			return nil, msg
		}
	}
	if h.ro && cmd.Flags&(engine.FlagWrite|engine.FlagMayReplicate) != 0 {
		return nil, engine.RefusedWriteRO
	}
	if cmd.Flags&engine.FlagWrite != 0 && !h.wrote && h.x.E.Dur.WritesRefused() {
		// Once the script has written it cannot fail on the disk state.
		return nil, "-" + engine.ErrMisconf
	}
	if cmd.Flags&engine.FlagWrite != 0 && h.x.E.Cfg.MinReplicasToWrite.Load() > 0 && !h.x.C.IsMaster && h.x.E.Dur.NoGoodReplicas() {
		return nil, "-" + engine.ErrNoReplicas
	}
	if h.oom && cmd.Flags&engine.FlagDenyOOM != 0 {
		return nil, "-" + engine.ErrOOM
	}
	if cmd.Flags&engine.FlagWrite != 0 {
		h.wrote = true
		h.x.E.BusyScript.Wrote = true // SCRIPT KILL can no longer undo the script
	}
	if h.x.E.Cluster != nil {
		if msg := h.x.E.ScriptClusterCheck(h.x.C, cmd, args, h.crossSlot); msg != "" {
			return nil, msg
		}
	}
	h.w.Reset(maxScratch)
	h.w.SetRESP3(resp3)
	x := h.x
	// The inner context lives in the host, so a call allocates nothing.
	h.inner = engine.Ctx{E: x.E, C: x.C, W: &h.w, DB: x.E.Dbs[x.C.DB], Now: x.Now, Args: args, Cmd: cmd}
	prev := x.E.Prop.Stream.SetTarget(h.target)
	x.E.Call(&h.inner)
	x.E.Prop.Stream.SetTarget(prev)
	h.inner = engine.Ctx{}
	return h.w.Bytes(), ""
}

// SetRepl is redis.set_repl (lua.ReplHost).
func (h *scriptHost) SetRepl(flags int) { h.target = propagate.Target(flags) }

func (h *scriptHost) Log(level int, msg string) {
	lv := slog.LevelDebug
	switch level {
	case 2:
		lv = slog.LevelInfo
	case 3:
		lv = slog.LevelWarn
	}
	h.x.E.Log.Log(context.Background(), lv, msg, "source", "script")
}

func cmdScriptLoad(x *engine.Ctx) {
	s, msg := scriptVM(x.E).loadScript(x.Args[2])
	if s == nil {
		x.W.Error(msg)
		return
	}
	x.W.BulkString(s.SHA)
}

func cmdScriptExists(x *engine.Ctx) {
	ext := scriptVM(x.E)
	x.W.Array(len(x.Args) - 2)
	var sha [40]byte
	for _, a := range x.Args[2:] {
		found := false
		if len(a) == 40 {
			for i, c := range a {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				sha[i] = c
			}
			found = ext.lookupScript(sha[:]) != nil
		}
		if found {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
	}
}

// cmdScriptFlush empties the cache and starts a fresh interpreter, as
// Redis's scriptingReset. ASYNC and SYNC behave alike: the old interpreter
// is left to the garbage collector either way.
func cmdScriptFlush(x *engine.Ctx) {
	if len(x.Args) > 3 || (len(x.Args) == 3 && !engine.CEqualFold(x.Args[2], "sync") && !engine.CEqualFold(x.Args[2], "async")) {
		x.W.Error(engine.ErrFlushOption)
		return
	}
	ext := stateOf(x.E)
	if ext.vm != nil {
		ext.vm.Close()
		ext.vm = nil
		ext.scripts = nil
	}
	x.W.OK()
}

func cmdScriptDebug(x *engine.Ctx) {
	switch {
	case engine.CEqualFold(x.Args[2], "no"):
		x.W.OK()
	case engine.CEqualFold(x.Args[2], "yes"), engine.CEqualFold(x.Args[2], "sync"):
		x.W.Error(errDebugUnsupp)
	default:
		x.W.Error(errDebugOption)
	}
}

func cmdScriptHelp(x *engine.Ctx) { engine.WriteHelp(x, scriptHelp) }

// parseNumKeys reads EVAL's and FCALL's numkeys (argument 2) with their
// checks in Redis's order; notInt is the caller's text for a non-integer.
// On false the error is answered.
func parseNumKeys(x *engine.Ctx, notInt string) (int64, bool) {
	n, ok := num.ParseInt(x.Args[2])
	switch {
	case !ok:
		x.W.Error(notInt)
	case n > int64(len(x.Args)-3):
		x.W.Error(engine.ErrNumKeysTooBig)
	case n < 0:
		x.W.Error(engine.ErrNumKeysNegative)
	default:
		return n, true
	}
	return 0, false
}
