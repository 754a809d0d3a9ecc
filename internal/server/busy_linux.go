//go:build linux

package server

import (
	"golang.org/x/sys/unix"

	"github.com/limitkv/limitkv/internal/resp"
)

// serveBusy is the event loop's part of Redis's processEventsWhileBlocked
// (see internal/commands/busy.go): a script run by one of the loop's
// clients has passed busy-reply-threshold, and about every lua.BusyTick the
// interpreter lets the loop serve its other connections from inside the
// script's command, on the loop goroutine, with the executor lock held.
// Their commands run through the engine as usual, which answers BUSY to
// all but the allow-busy ones, and their replies are written at once. The
// script's own client is not read meanwhile (Redis's protectClient).
//
// Only what is safe inside a turn is done: new connections are adopted,
// ready sockets read and their commands run, pending output written.
// Closing connections, the loop's control requests and woken blocked
// clients wait for the end of the turn, after the script.
func (l *loop) serveBusy() {
	caller := l.s.E.BusyClient()
	l.adoptIncoming()
	// Commands parsed earlier this turn and not run yet come first, as
	// they would have been served before anything read now.
	for _, list := range [][]*lconn{l.ready, l.runnable} {
		for _, c := range list {
			if c.cl != caller && !c.closed && !c.waiting && len(c.cmds) > 0 {
				l.runConn(c)
				l.flush(c)
			}
		}
	}
	if l.busyEvents == nil {
		l.busyEvents = make([]unix.EpollEvent, maxEvents)
	}
	n, err := unix.EpollWait(l.epfd, l.busyEvents, 0)
	if err != nil {
		return
	}
	for _, ev := range l.busyEvents[:n] {
		if int(ev.Fd) == l.wfd {
			continue // left pending for the loop's next turn
		}
		c := l.conns[ev.Fd]
		if c == nil || c.closed || c.cl == caller {
			continue
		}
		if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			if c.interest&unix.EPOLLIN == 0 {
				if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
					l.kill(c)
				}
			} else if len(c.cmds) == 0 && c.rerr == nil {
				cmds, err := c.rd.ReadBatch(l.s.limits(c.cl))
				if err != resp.ErrWouldBlock {
					c.cmds, c.rerr = cmds, err
					l.runConn(c)
				}
			}
		}
		if !c.closed {
			l.flush(c)
		}
	}
}

// adoptIncoming takes the connections accepted since the turn began (their
// accept waited for the executor lock until the script let go of it), as
// control does, leaving its other requests for the next turn.
func (l *loop) adoptIncoming() {
	l.mu.Lock()
	in := l.incoming
	l.incoming = nil
	l.mu.Unlock()
	for _, c := range in {
		c.interest = unix.EPOLLIN | unix.EPOLLRDHUP
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, c.fd, &unix.EpollEvent{Events: c.interest, Fd: int32(c.fd)}); err != nil {
			l.s.Log.Warn("epoll_ctl add failed", "err", err)
			l.kill(c)
			continue
		}
		l.conns[int32(c.fd)] = c
	}
}
