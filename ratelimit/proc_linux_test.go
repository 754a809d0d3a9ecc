package ratelimit

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel kill the child if the test process dies,
// so a panicking or timed-out test leaves no redis-server behind.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
