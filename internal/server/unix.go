//go:build unix

package server

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// ListenUnix opens a unix socket listener at path as Redis's listenToPort
// and anetUnixServer: whatever is at path is removed first (a stale socket
// left by a server that died; Redis does not check what it removes
// either), then the socket is bound and, when perm is not 0, chmod'ed to
// perm before it listens, so no client connects while the bits are still
// the umask's. Closing the listener (Server.Close closes the listeners it
// serves) removes the file, as Redis at shutdown.
func ListenUnix(path string, perm os.FileMode) (*net.UnixListener, error) {
	var sa syscall.RawSockaddrUnix
	if len(path) > len(sa.Path)-1 {
		return nil, fmt.Errorf("unix socket path too long (%d), must be under %d", len(path), len(sa.Path))
	}
	os.Remove(path) // "don't care if this fails", as Redis
	// Under ForkLock, so no child started meanwhile inherits it.
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close() // FileListener dups it
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		return nil, fmt.Errorf("bind: %w", err)
	}
	if perm != 0 {
		if err := os.Chmod(path, perm); err != nil {
			os.Remove(path)
			return nil, err
		}
	}
	if err := syscall.Listen(fd, 511); err != nil { // tcp-backlog's default
		os.Remove(path)
		return nil, fmt.Errorf("listen: %w", err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	ul := ln.(*net.UnixListener)
	// A listener made from a file does not unlink on Close by default.
	ul.SetUnlinkOnClose(true)
	return ul, nil
}
