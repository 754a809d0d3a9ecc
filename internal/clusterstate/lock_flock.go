//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package clusterstate

import (
	"os"

	"golang.org/x/sys/unix"
)

// flock takes clusterLockConfig's lock: exclusive, failing at once
// (EWOULDBLOCK) when another process holds it. It is Redis's kind of lock,
// so a redis-server and a limitkv node exclude each other too.
func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			return err
		}
	}
}
