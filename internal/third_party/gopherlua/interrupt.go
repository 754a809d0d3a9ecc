package lua

// limitkv addition: an interrupt hook, the equivalent of the count hook
// Redis sets with lua_sethook(LUA_MASKCOUNT) to notice a script that runs
// too long. Instead of counting instructions, the interpreter loads one
// flag before each instruction; another goroutine (a timer) raises the flag
// and the hook then runs on the interpreter's goroutine, between two
// instructions, where it may process other work or raise an error with
// RaiseError. Cheaper per instruction than the context check gopher-lua
// offers (a channel select each time).

// SetInterrupt installs f as the interrupt hook of ls and of every thread
// (coroutine) sharing its global state; nil removes it. Call it while no
// script runs.
func (ls *LState) SetInterrupt(f func(*LState)) {
	ls.G.interruptFn = f
	if f == nil {
		ls.G.interrupt.Store(0)
	}
}

// Interrupt raises the flag: the hook runs before the next instruction that
// any thread of the state executes, and before each one after it until
// ClearInterrupt (never without a hook installed). Safe from any
// goroutine.
func (ls *LState) Interrupt() { ls.G.interrupt.Store(1) }

// ClearInterrupt lowers the flag. Safe from any goroutine.
func (ls *LState) ClearInterrupt() { ls.G.interrupt.Store(0) }
