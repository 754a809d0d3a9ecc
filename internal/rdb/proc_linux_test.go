//go:build linux

package rdb

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel kill the child if the test process dies.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
