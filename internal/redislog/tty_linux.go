package redislog

import "golang.org/x/sys/unix"

// IsTerminal is isatty(3): the terminal ioctl succeeds.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}
