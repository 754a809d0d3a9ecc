package engine

import "github.com/limitkv/limitkv/internal/lua"

// Scripting is what the engine and the other components ask of the
// scripting component (EVAL and FUNCTION), which keeps its state behind it.
type Scripting interface {
	// DeniesOOM is the deny-oom flag Redis derives for EVAL and FCALL from
	// the script they name, for the maxmemory check and MULTI.
	DeniesOOM(cmd *Command, args [][]byte) bool
	// LookupScript finds a cached script by its SHA (lower-case hex).
	LookupScript(sha []byte) *lua.Script
	ScriptCount() int
	FunctionCounts() (funcs, libs int)
	// FunctionCodes are the libraries' sources, as an RDB saves them.
	FunctionCodes() [][]byte
	LoadFunctions(codes [][]byte) error
	// DropFunctions empties the libraries (a full resync's payload replaces them).
	DropFunctions()
}
