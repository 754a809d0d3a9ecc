//go:build linux

package conformance

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel SIGKILL the child when this test process dies
// (a panic, a -timeout, ^C), so a redis-server is never left running.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
