//go:build !unix

package cluster

import "syscall"

// reuseAddr does nothing where SO_REUSEADDR means another thing.
func reuseAddr(_, _ string, _ syscall.RawConn) error { return nil }
