package conformance

import (
	"strings"
	"sync"
	"time"
)

// Settling: the steps of a case are ordered on each connection, but a
// server owes no order between connections. Redis, single-threaded, happens
// to run a command sent earlier on one connection before one sent later on
// another; limitkv's goroutine front (TLS's path) runs each connection on its
// own goroutine and need not. Two places in the runner rely on the order, and
// wait for it instead:
//   - a blocking command sent without reading its reply (.NoReply()) must be
//     waiting before the next step writes the key it waits on (else it is
//     served at once and its events come after a later step's);
//   - the connections of a case must be gone before the next case starts
//     (else a subscriber of the last case still counts in PUBLISH's reply).

// blockingCommands are the commands that can wait for a key.
var blockingCommands = map[string]bool{
	"BLPOP": true, "BRPOP": true, "BLMOVE": true, "BRPOPLPUSH": true, "BLMPOP": true,
	"BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true, "XREAD": true, "XREADGROUP": true,
}

const settleWait = 3 * time.Second

// closedConns are the local addresses of connections earlier cases closed,
// by server address, until a case start sees the server forget them.
var closedConns struct {
	mu sync.Mutex
	m  map[string][]string
}

func noteClosed(c *RawConn) {
	c.Close()
	closedConns.mu.Lock()
	defer closedConns.mu.Unlock()
	if closedConns.m == nil {
		closedConns.m = map[string][]string{}
	}
	closedConns.m[c.Addr] = append(closedConns.m[c.Addr], c.nc.LocalAddr().String())
}

// awaitClosedGone waits, asking on c, until c's server lists none of the
// connections earlier cases closed. It reports false if they linger.
func awaitClosedGone(c *RawConn) bool {
	closedConns.mu.Lock()
	addrs := closedConns.m[c.Addr]
	delete(closedConns.m, c.Addr)
	closedConns.mu.Unlock()
	if len(addrs) == 0 {
		return true
	}
	deadline := time.Now().Add(settleWait)
	for {
		r, err := c.Do("CLIENT", "LIST")
		if err != nil || (r.Type != '$' && r.Type != '=') {
			return false
		}
		left := false
		for _, a := range addrs {
			if strings.Contains(r.Str, "addr="+a+" ") {
				left = true
				break
			}
		}
		if !left {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// awaitBlocked waits until the blocking command just written on c has run:
// its server lists c as blocked, or its reply has arrived. side is another
// connection to the same server.
func awaitBlocked(c, side *RawConn) bool {
	me := "addr=" + c.nc.LocalAddr().String() + " "
	deadline := time.Now().Add(settleWait)
	for {
		r, err := side.Do("CLIENT", "LIST")
		if err != nil || (r.Type != '$' && r.Type != '=') {
			return false
		}
		for _, line := range strings.Split(r.Str, "\n") {
			if !strings.Contains(line, me) {
				continue
			}
			for _, f := range strings.Fields(line) {
				if flags, ok := strings.CutPrefix(f, "flags="); ok && strings.Contains(flags, "b") {
					return true
				}
			}
		}
		if c.replyPending(time.Millisecond) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// replyPending reports whether bytes from the server wait to be read on c,
// waiting at most d for them, without consuming any.
func (c *RawConn) replyPending(d time.Duration) bool {
	if c.br.Buffered() > 0 {
		return true
	}
	c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := c.br.Peek(1)
	c.nc.SetReadDeadline(time.Time{})
	return err == nil
}
