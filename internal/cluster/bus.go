package cluster

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/limitkv/limitkv/internal/clusterstate"
)

// maxFrame bounds the length a peer may announce for one message. Redis
// sets no bound, but a reader that trusts the 32-bit length lets any
// stranger on the bus port make it wait for (and buffer) gigabytes. The
// largest legitimate messages are PUBLISH payloads, bounded by the
// clients' own proto-max-bulk-len (512 MB by default) twice over; gossip
// is at most a few megabytes.
const maxFrame = 1 << 30

// bus is the cluster bus: the listeners, and the links to and from the
// other nodes. Its maps and flags belong to the engine's lock, as the
// link fields of clusterNode belong to Redis's one thread.
type bus struct {
	lns    []net.Listener
	ctx    context.Context // cancelled by stopBus: ends the dials under way
	cancel context.CancelFunc
	wg     sync.WaitGroup // accept loops, dials, readers and writers

	closing bool
	links   map[*link]struct{}           // every live link, named or not
	out     map[*clusterstate.Node]*link // node->link
	in      map[*clusterstate.Node]*link // node->inbound_link

	// notClaiming is owner_not_claiming_slot: slots still bound to a master
	// that stopped claiming them. They stay bound (unbinding would fail
	// the cluster) but count as unclaimed, so no UPDATE spreads them.
	notClaiming clusterstate.Bitmap

	iteration uint64 // clusterCron's calls, for the once-a-second ping
}

// startBus starts serving the bus on lns. Call without the lock.
func (c *Cluster) startBus(lns []net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	b := &bus{
		lns:    lns,
		ctx:    ctx,
		cancel: cancel,
		links:  map[*link]struct{}{},
		out:    map[*clusterstate.Node]*link{},
		in:     map[*clusterstate.Node]*link{},
	}
	c.e.Lock()
	c.bus = b
	c.e.Unlock()
	for _, ln := range lns {
		b.wg.Add(1)
		go c.acceptLoop(ln)
	}
}

// stopBus closes the listeners and every link, and waits for their
// goroutines. Call without the lock.
func (c *Cluster) stopBus() {
	b := c.bus
	if b == nil {
		return
	}
	c.e.Lock()
	b.closing = true
	for l := range b.links {
		c.freeLink(l)
	}
	c.e.Unlock()
	b.cancel()
	for _, ln := range b.lns {
		ln.Close()
	}
	b.wg.Wait()
}

// acceptLoop is clusterAcceptHandler: every connection becomes an inbound
// link that knows its node only once a PING or MEET names it.
func (c *Cluster) acceptLoop(ln net.Listener) {
	b := c.bus
	defer b.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors and the like: the condition may pass,
			// and a node that stops accepting leaves the cluster.
			c.log.Debug("Error accepting cluster node", "err", err)
			select {
			case <-b.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		c.e.Lock()
		if b.closing {
			c.e.Unlock()
			conn.Close()
			return
		}
		l := newLink(nil, c.now())
		l.conn = conn
		b.links[l] = struct{}{}
		c.startIO(l)
		c.e.Unlock()
	}
}
