//go:build !unix

package server

import (
	"errors"
	"net"
	"os"
)

// ListenUnix: unix sockets are served where the system has them.
func ListenUnix(path string, perm os.FileMode) (*net.UnixListener, error) {
	return nil, errors.New("unix sockets are not supported on this system")
}
