//go:build unix

package cluster

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// reuseAddr sets SO_REUSEADDR on a link's socket before it connects, as
// Redis's anetTcpGenericConnect does. Without it, a link whose ephemeral
// port was a bus port (ports above 32767 are both: a stopped node's peers
// dial its bus port until it is back, and now and then the kernel hands one
// of them that same port, a connection to itself that Go's dialer then
// drops) leaves a TIME_WAIT that keeps the node from listening there again
// for a minute: "Failed listening on port ... (cluster)".
func reuseAddr(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
