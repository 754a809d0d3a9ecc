package lua

import (
	"time"

	glua "github.com/limitkv/limitkv/internal/third_party/gopherlua"
)

// A script that runs past busy-reply-threshold is not stopped: Redis's Lua
// count hook (luaMaskCountHook, every 100000 instructions) notices it and
// calls processEventsWhileBlocked, which serves other clients (BUSY to most
// commands; SCRIPT KILL, SHUTDOWN NOSAVE and a few more are run) while the
// script is paused in the hook. Here a timer raises the interpreter's
// interrupt flag at the threshold and then every BusyTick; the interrupt
// hook runs on the script's goroutine between two instructions and calls
// the host's Busy, which does that serving. Before the threshold a script
// pays one flag load per instruction and nothing else.

// BusyTick is how often a script past its time limit lets other clients
// in: about what 100000 Lua 5.1 instructions take.
const BusyTick = 2 * time.Millisecond

// KilledMessage is the error a killed script raises (Redis's words, for
// SCRIPT KILL and FUNCTION KILL alike).
const KilledMessage = "ERR Script killed by user with SCRIPT KILL..."

// BusyHost is a Host that serves other clients while its script runs too
// long.
type BusyHost interface {
	// Busy is called on the script's goroutine, between two instructions,
	// once the script has run past its time limit (first is true that
	// time) and then about every BusyTick until it ends. It reports
	// whether to stop the script: the script then raises KilledMessage
	// before every instruction it would still run, so pcall cannot keep it
	// alive.
	Busy(first bool) (kill bool)
}

type busyState struct {
	timer    *time.Timer
	deadline time.Time // the threshold of the run in progress (zero: none)
	timedOut bool      // Busy has been called for this run
	killed   bool
}

func (vm *VM) initBusy() {
	L := vm.L
	L.SetInterrupt(vm.interrupted)
	vm.busy.timer = time.AfterFunc(time.Hour, L.Interrupt)
	vm.busy.timer.Stop()
}

func (vm *VM) armBusy(timeout time.Duration) {
	b := &vm.busy
	b.deadline = time.Now().Add(timeout)
	b.timedOut, b.killed = false, false
	b.timer.Reset(timeout)
}

func (vm *VM) disarmBusy() {
	b := &vm.busy
	b.timer.Stop()
	b.deadline = time.Time{}
	b.killed = false
	vm.L.ClearInterrupt()
}

// interrupted is the interpreter's interrupt hook.
func (vm *VM) interrupted(L *glua.LState) {
	b := &vm.busy
	if b.killed {
		vm.raiseKilled(L)
	}
	// Lowered before the deadline is looked at: a timer firing from now on
	// raises it again, so no firing is lost. A firing left over from an
	// earlier run (Stop cannot take back one already under way) finds the
	// deadline not reached, or no run, and is ignored.
	L.ClearInterrupt()
	if !vm.running || b.deadline.IsZero() || time.Now().Before(b.deadline) {
		return
	}
	first := !b.timedOut
	b.timedOut = true
	if bh, ok := vm.host.(BusyHost); ok && bh.Busy(first) {
		b.killed = true
		vm.raiseKilled(L)
	}
	b.timer.Reset(BusyTick)
}

func (vm *VM) raiseKilled(L *glua.LState) {
	L.Interrupt() // and again before the next instruction
	t := L.NewTable()
	t.RawSetString("err", glua.LString(KilledMessage))
	L.Error(t, 0)
}
