//go:build linux

package testredis

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel SIGKILL the child when this process dies
// (a panic, a -timeout, ^C), so a redis-server is never left running.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

func processAlive(pid int) bool { return syscall.Kill(pid, 0) != syscall.ESRCH }
