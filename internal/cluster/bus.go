package cluster

import "net"

// bus is the cluster bus: the listener and the links to the other nodes.
// (A placeholder until the bus lands: it accepts nothing.)
type bus struct {
	lns []net.Listener
}

// startBus starts serving the bus on lns. Call without the lock.
func (c *Cluster) startBus(lns []net.Listener) { c.bus = &bus{lns: lns} }

// stopBus closes the listener and every link, and waits for their
// goroutines. Call without the lock.
func (c *Cluster) stopBus() {
	for _, ln := range c.bus.lns {
		ln.Close()
	}
}

// cron is clusterCron's work. Call with the lock held.
func (c *Cluster) cron(now int64) {}

// PropagatePublish is clusterPropagatePublish (engine.Cluster).
func (c *Cluster) PropagatePublish(channel, message []byte, shard bool) {}
