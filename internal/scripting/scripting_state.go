package scripting

import (
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/lua"
)

// scriptState is the scripting component's state: the script cache by SHA
// and its interpreter (EVAL), the function libraries and theirs (FCALL),
// and the host their calls run through. The engine reaches it only through
// the Scripting interface.
type scriptState struct {
	e       *engine.Engine
	scripts map[string]*lua.Script
	vm      *lua.VM
	host    scriptHost
	// functions: made on first use (funcState).
	functions *functionsState
}

// AttachScripting gives e its scripting component.
func Attach(e *engine.Engine) { e.Scripts = &scriptState{e: e} }

func stateOf(e *engine.Engine) *scriptState { return e.Scripts.(*scriptState) }

func (s *scriptState) DeniesOOM(cmd *engine.Command, args [][]byte) bool {
	return scriptDeniesOOM(s.e, cmd, args)
}

func (s *scriptState) LookupScript(sha []byte) *lua.Script {
	if s.scripts == nil {
		return nil
	}
	return s.lookupScript(sha)
}

func (s *scriptState) ScriptCount() int { return len(s.scripts) }

func (s *scriptState) FunctionCounts() (funcs, libs int) { return functionCounts(s.e) }

func (s *scriptState) FunctionCodes() [][]byte { return functionCodes(s.e) }

func (s *scriptState) LoadFunctions(codes [][]byte) error { return loadFunctions(s.e, codes) }

func (s *scriptState) DropFunctions() { funcState(s.e).libs = newLibraries() }

// Busy is the interpreter's busy tick (lua.BusyHost).
func (h *scriptHost) Busy(first bool) bool { return h.x.BusyTick(h.function, first) }

// ACLCheck is redis.acl_check_cmd.
func (h *scriptHost) ACLCheck(args [][]byte) (allowed, known bool) { return h.x.ACLCheckCommand(args) }
