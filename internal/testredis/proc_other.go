//go:build !linux

package testredis

import "os/exec"

func setDeathSignal(*exec.Cmd) {}

func processAlive(int) bool { return true }
