//go:build !linux

package redislog

import "os"

// IsTerminal approximates isatty(3) where the terminal ioctl's name
// differs: a character device (which /dev/null is too).
func IsTerminal(fd int) bool {
	st, err := os.NewFile(uintptr(fd), "").Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
