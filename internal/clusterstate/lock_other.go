//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package clusterstate

import "os"

// flock does nothing where there is no flock, as Redis does without one
// (Solaris): the file is then not protected from a second node.
func flock(*os.File) error { return nil }
