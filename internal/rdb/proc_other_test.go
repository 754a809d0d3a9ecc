//go:build !linux

package rdb

import "os/exec"

func setDeathSignal(cmd *exec.Cmd) {}
