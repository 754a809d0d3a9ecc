package scripting

// FUNCTIONS family (FUNCTION, FCALL; the texts of library loading are
// built in function.go and internal/lua/function.go).
const (
	errFunctionNotFound   = "ERR Function not found"
	errFcallNumKeys       = "ERR Bad number of keys provided"
	errFunctionOption     = "ERR Unknown option given: " // followed by the option
	errLibraryNotFound    = "ERR Library not found"
	errFunctionFlush      = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
	errLibraryNameMissing = "ERR library name argument was not given"
	errFunctionListArg    = "ERR Unknown argument " // followed by the argument
	errRestorePolicy      = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
)

// Moved from the engine: texts only this package gives.
const (
	errScriptOOM   = "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'"
	errDebugOption = "ERR Use SCRIPT DEBUG YES/SYNC/NO"
	errDebugUnsupp = "ERR SCRIPT DEBUG YES/SYNC is not supported by limitkv"
	errNoCluster   = "ERR Can not run script on cluster, 'no-cluster' flag is set."
)
