//go:build unix

package main

import (
	"log/slog"
	"syscall"
)

// warnFileLimit warns, as redis-server does, when the open file limit is
// too low for maxclients (Go raises the soft limit to the hard one at start).
func warnFileLimit(log *slog.Logger, maxclients int64) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return
	}
	const reserved = 32 // listeners, logs, pprof
	if need := uint64(maxclients) + reserved; rl.Cur < need {
		log.Warn("open file limit is lower than maxclients needs; connections beyond it will fail to be accepted",
			"maxclients", maxclients, "nofile", rl.Cur, "need", need)
	}
}
