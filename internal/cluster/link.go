package cluster

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
	"github.com/limitkv/limitkv/internal/clusterstate"
)

// link is clusterLink: one TCP connection of the bus. An outbound link
// (node->link) is ours to a node, made by the cron; an inbound one is a
// peer's to us, tied to its node by the first packet that names it.
//
// The fields but sndbuf and inflight belong to the engine's lock. The
// send buffer is appended to under the engine's lock and emptied by the
// writer goroutine, which must not wait for that lock (it would stall
// the bus behind every slow command), so the buffer has a lock of its own.
type link struct {
	node    *clusterstate.Node // nil for an inbound link not yet identified
	inbound bool
	ctime   int64    // ms
	conn    net.Conn // nil while an outbound link dials
	freed   bool
	cancel  context.CancelFunc // ends the dial of an outbound link
	done    chan struct{}      // closed when the link is freed
	wake    chan struct{}      // tells the writer there is something to send

	mu       sync.Mutex
	sndbuf   []byte
	inflight int // bytes the writer took and is writing
}

func newLink(n *clusterstate.Node, now int64) *link {
	return &link{
		node:    n,
		inbound: n == nil,
		ctime:   now,
		done:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
	}
}

// freeLink is freeClusterLink: the connection closes (which ends its
// goroutines) and the node forgets the link. Call with the lock held.
func (c *Cluster) freeLink(l *link) {
	if l.freed {
		return
	}
	l.freed = true
	close(l.done)
	if l.cancel != nil {
		l.cancel()
	}
	if l.conn != nil {
		l.conn.Close()
	}
	b := c.bus
	delete(b.links, l)
	if n := l.node; n != nil {
		if b.out[n] == l {
			delete(b.out, n)
			n.Linked = false
		} else if b.in[n] == l {
			delete(b.in, n)
		}
	}
}

// setInboundLink is setClusterNodeToInboundClusterLink. A peer that
// reconnected may still have its old inbound link here, not yet seen to
// close: the old one goes, as Redis keeps one inbound link per node.
func (c *Cluster) setInboundLink(n *clusterstate.Node, l *link) {
	b := c.bus
	if old := b.in[n]; old != nil && old != l {
		c.freeLink(old)
	}
	b.in[n] = l
	l.node = n
}

// connect makes n's outbound link and dials it in the background, as
// clusterNodeCronHandleReconnect does with a non-blocking connect: the
// link exists (and the node counts as connected) from the attempt on.
// Call with the lock held.
func (c *Cluster) connect(n *clusterstate.Node, now int64) {
	b := c.bus
	l := newLink(n, now)
	ctx, cancel := context.WithCancel(b.ctx)
	l.cancel = cancel
	b.links[l] = struct{}{}
	b.out[n] = l
	n.Linked = true
	addr := net.JoinHostPort(n.IP, strconv.Itoa(n.CPort))
	timeout := max(c.st.NodeTimeout, 1000)
	b.wg.Add(1)
	go c.dial(l, addr, ctx, timeout)
}

// busDialer makes a link's connection (reuseAddr: as Redis's).
func busDialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: reuseAddr}
}

func (c *Cluster) dial(l *link, addr string, ctx context.Context, timeoutMs int64) {
	defer c.bus.wg.Done()
	conn, err := busDialer(msDuration(timeoutMs)).DialContext(ctx, "tcp", addr)
	c.e.Lock()
	defer c.e.Unlock()
	if l.freed {
		if conn != nil {
			conn.Close()
		}
		return
	}
	n := l.node
	if err != nil {
		c.log.Debug("Unable to connect to Cluster Node", "addr", addr, "err", err)
		// Redis claims a PING sent when connect fails at once: without a
		// pending ping, a node we cannot reach would never time out.
		if n.PingSent == 0 {
			n.PingSent = c.now()
		}
		c.freeLink(l)
		return
	}
	l.conn = conn
	c.startIO(l)
	// clusterLinkConnectHandler: a PING (or MEET) at once, so that the
	// new link does not look like a failure, keeping the time of a ping
	// that was pending on the old link.
	oldPingSent := n.PingSent
	if n.Flags&clusterstate.FlagMeet != 0 {
		c.sendPing(l, clusterbus.TypeMeet)
	} else {
		c.sendPing(l, clusterbus.TypePing)
	}
	if oldPingSent != 0 {
		n.PingSent = oldPingSent
	}
	// Only the first packet is a MEET: once the node answers it knows us.
	n.Flags &^= clusterstate.FlagMeet
	c.afterChange()
}

// startIO starts l's reader and writer. Call with the lock held.
func (c *Cluster) startIO(l *link) {
	c.bus.wg.Add(2)
	go c.readLoop(l, l.conn)
	go c.writeLoop(l, l.conn)
}

// readLoop is clusterReadHandler: it cuts messages off the stream and
// processes each under the lock. A stream that is not a bus (a bad
// signature or length, a message too long or malformed) closes the link:
// this node keeps serving, and a real peer reconnects.
func (c *Cluster) readLoop(l *link, conn net.Conn) {
	defer c.bus.wg.Done()
	var buf []byte
	for {
		frame, err := clusterbus.ReadFrame(conn, buf, maxFrame)
		var msg *clusterbus.Message
		if err == nil {
			msg, err = clusterbus.Decode(frame)
		}
		c.e.Lock()
		if l.freed {
			c.e.Unlock()
			return
		}
		if err != nil {
			c.log.Debug("Closing cluster bus link", "err", err, "inbound", l.inbound)
			c.freeLink(l)
			c.e.Unlock()
			return
		}
		c.processPacket(l, msg)
		c.afterChange()
		freed := l.freed
		c.e.Unlock()
		if freed {
			return
		}
		// Keep a small buffer for the next message, not a big one.
		if cap(frame) <= 64<<10 {
			buf = frame
		} else {
			buf = nil
		}
	}
}

// writeLoop is clusterWriteHandler: it writes what the send buffer holds
// without the engine's lock. A write error closes the connection, which
// the reader sees and frees the link for.
func (c *Cluster) writeLoop(l *link, conn net.Conn) {
	defer c.bus.wg.Done()
	var out []byte
	for {
		l.mu.Lock()
		out, l.sndbuf = l.sndbuf, out[:0]
		l.inflight = len(out)
		l.mu.Unlock()
		if len(out) == 0 {
			select {
			case <-l.wake:
				continue
			case <-l.done:
				return
			}
		}
		_, err := conn.Write(out)
		l.mu.Lock()
		l.inflight = 0
		l.mu.Unlock()
		if err != nil {
			conn.Close()
			return
		}
		if cap(out) > 1<<20 { // a burst is over: give its memory back
			out = nil
		}
	}
}

// sendBytes is clusterSendMessage: b, one encoded message of type t, goes
// to the end of l's send buffer. A nil link (a node without one) sends
// nothing. Call with the lock held.
func (c *Cluster) sendBytes(l *link, b []byte, t clusterbus.Type) {
	if l == nil || l.freed {
		return
	}
	l.mu.Lock()
	l.sndbuf = append(l.sndbuf, b...)
	l.mu.Unlock()
	c.countSent(t)
	l.signal()
}

// send encodes msg straight into l's send buffer.
func (c *Cluster) send(l *link, msg *clusterbus.Message) {
	if l == nil || l.freed {
		return
	}
	l.mu.Lock()
	l.sndbuf = clusterbus.AppendEncode(l.sndbuf, msg)
	l.mu.Unlock()
	c.countSent(msg.Type)
	l.signal()
}

func (l *link) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (c *Cluster) countSent(t clusterbus.Type) {
	if t < clusterbus.TypeCount {
		c.st.MessagesSent[t]++
	}
}

// nodeIP is nodeIp2String: the address a node announces, else the one
// its connection comes from.
func nodeIP(l *link, announced clusterbus.IP) (string, bool) {
	if ip := announced.String(); ip != "" {
		return ip, true
	}
	if l.conn == nil {
		return "", false
	}
	return addrIP(l.conn.RemoteAddr())
}

// addrIP is a socket address's IP as inet_ntop writes it (an IPv4 peer
// on a dual-stack socket as IPv4).
func addrIP(a net.Addr) (string, bool) {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return "", false
	}
	return ap.Addr().Unmap().WithZone("").String(), true
}
