//go:build !linux

package server

import "net"

// Without epoll every connection has its own goroutine.
type loop struct{}

func (s *Server) loopAccept(net.Conn) bool { return false }
func (s *Server) tickLoop()                {}
func (l *loop) stop()                      {}
