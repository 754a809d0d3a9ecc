// Package cluster is the Redis Cluster component: a limitkv node in a
// cluster beside real Redis 7.0 nodes. Redis 7.0.15's cluster.c is the
// specification. The node's view of the cluster is internal/clusterstate's
// State, the bus's wire format internal/clusterbus's; this package owns
// them at run time: nodes.conf (locked, loaded at start, saved on every
// change Redis saves on), the bus (its listener, the links, PING/PONG and
// gossip, failure detection, UPDATE, PUBLISH across nodes), the CLUSTER,
// ASKING, READONLY and READWRITE commands, and the routing of every command
// with keys (engine.Cluster: MOVED, ASK, CROSSSLOT, TRYAGAIN, CLUSTERDOWN).
//
// Everything here runs under the engine's lock, as cluster.c runs on
// Redis's one thread: the bus's goroutines only read and write bytes, and
// take the lock to act on what they read.
package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"

	"github.com/limitkv/limitkv/internal/clusterstate"
	"github.com/limitkv/limitkv/internal/engine"
)

// Cluster is one node's cluster component.
type Cluster struct {
	e   *engine.Engine
	log *slog.Logger
	st  *clusterstate.State
	cf  *clusterstate.ConfigFile
	bus *bus          // the listener and the links (bus.go)
	fo  failoverState // the election and the manual failover (failover.go)
	// listsIdle counts the cron's turns since the slot index's key lists
	// were last asked for (releaseSlotLists).
	listsIdle int
}

// Open makes e a cluster node when cluster-enabled is yes (else it returns
// nil, nil), as clusterInit does: it locks and loads nodes.conf (a node
// that finds none makes itself a new name and saves it at once), listens on
// the bus port (cluster-port, or the client port plus 10000) on the
// addresses listen opens it on, and attaches to the engine. The caller closes it after the
// clients are gone.
func Open(e *engine.Engine, log *slog.Logger, listen Listener) (*Cluster, error) {
	if !e.Cfg.ClusterEnabled() {
		return nil, nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Cluster{e: e, log: log}
	// The file is relative to the working directory, which dir sets
	// (Redis chdirs there).
	path := e.Cfg.Stored("cluster-config-file")
	if !filepath.IsAbs(path) {
		path = filepath.Join(*e.Cfg.Dir.Load(), path)
	}
	cf, err := clusterstate.LockConfig(path)
	if err != nil {
		return nil, err
	}
	c.cf = cf
	now := c.now()
	st, err := cf.Load(clusterstate.LoadOptions{Now: now, Warn: func(msg string) { log.Warn(msg) }})
	switch {
	case errors.Is(err, clusterstate.ErrNoConfig):
		st = clusterstate.New(now)
		log.Info(fmt.Sprintf("No cluster configuration found, I'm %s", st.Myself.ID()))
		c.st = st
		c.applySettings()
		if err := cf.Save(st, true); err != nil {
			cf.Close()
			return nil, fmt.Errorf("Fatal: can't update cluster config file: %w", err)
		}
	case err != nil:
		cf.Close()
		return nil, err
	default:
		log.Info(fmt.Sprintf("Node configuration loaded, I'm %.40s", st.Myself.ID()))
		c.st = st
	}
	c.applySettings()
	cport := c.busPort()
	if cport > 65535 {
		cf.Close()
		return nil, errors.New("Redis port number too high. Cluster communication port is 10,000 port numbers higher than your Redis port. Your Redis port number must be 55535 or less.")
	}
	st.OnShardSlotDeleted = func(slot int) { e.DropShardChannelsInSlot(slot) }
	e.Lock()
	e.EnableSlotIndex()
	e.Cluster = c
	e.Unlock()
	lns, err := listen(cport)
	if err != nil {
		e.Lock()
		c.detach()
		e.Unlock()
		cf.Close()
		return nil, fmt.Errorf("Failed listening on port %d (cluster), aborting.", cport)
	}
	c.startBus(lns)
	return c, nil
}

// Listener opens the bus's listening sockets on port, on the server's bind
// addresses.
type Listener func(port int) ([]net.Listener, error)

// ListenOn is a Listener on the given addresses ("127.0.0.1", "::1").
func ListenOn(addrs ...string) Listener {
	return func(port int) ([]net.Listener, error) {
		var lns []net.Listener
		for _, a := range addrs {
			ln, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				for _, l := range lns {
					l.Close()
				}
				return nil, err
			}
			lns = append(lns, ln)
		}
		return lns, nil
	}
}

// busPort is the port the bus listens on.
func (c *Cluster) busPort() int {
	if p, _ := strconv.Atoi(c.e.Cfg.Stored("cluster-port")); p != 0 {
		return p
	}
	return c.e.Cfg.Port + clusterstate.PortIncr
}

// applySettings copies the settings the state reads, and what myself
// announces (deriveAnnouncedPorts, clusterUpdateMyselfIp/Hostname), into
// the state.
func (c *Cluster) applySettings() {
	cfg := c.e.Cfg
	st := c.st
	if t, err := strconv.ParseInt(cfg.Stored("cluster-node-timeout"), 10, 64); err == nil {
		st.NodeTimeout = t
	}
	st.RequireFullCoverage = cfg.Stored("cluster-require-full-coverage") == "yes"
	me := st.Myself
	me.Port = cfg.Port
	if p, _ := strconv.Atoi(cfg.Stored("cluster-announce-port")); p != 0 {
		me.Port = p
	}
	me.CPort = c.busPort()
	if p, _ := strconv.Atoi(cfg.Stored("cluster-announce-bus-port")); p != 0 {
		me.CPort = p
	}
	me.Hostname = cfg.Stored("cluster-announce-hostname")
	if cfg.Stored("cluster-replica-no-failover") == "yes" {
		me.Flags |= clusterstate.FlagNoFailover
	} else {
		me.Flags &^= clusterstate.FlagNoFailover
	}
}

// announcedIP is cluster-announce-ip ("" when unset: peers learn our
// address from the connection).
func (c *Cluster) announcedIP() string { return c.e.Cfg.Stored("cluster-announce-ip") }

// Close stops the bus and saves nodes.conf a last time, then releases
// its lock. Call it once the clients are gone.
func (c *Cluster) Close() error {
	c.stopBus()
	c.e.Lock()
	err := c.cf.Save(c.st, true)
	c.detach()
	c.e.Unlock()
	return errors.Join(err, c.cf.Close())
}

func (c *Cluster) detach() {
	if c.e.Cluster == engine.Cluster(c) {
		c.e.Cluster = nil
	}
}

// now is the engine clock in Unix milliseconds, cluster.c's mstime().
func (c *Cluster) now() int64 { return c.e.Clock.Now().UnixMilli() }

// Cron is clusterCron, ten times a second, with clusterBeforeSleep's work
// after it. It takes the engine's lock.
func (c *Cluster) Cron() {
	c.e.Lock()
	defer c.e.Unlock()
	c.applySettings() // CONFIG SET of a cluster-* setting takes effect here
	c.cron(c.now())
	c.e.RedirectBlocked(c.redirectBlocked)
	// clusterCron's last step: a failed cluster is re-evaluated each time
	// (its rejoin delay ends on its own).
	if c.st.Health == clusterstate.StateFail {
		c.st.Todo |= clusterstate.TodoUpdateState
	}
	c.afterChange()
}

// afterChange is clusterBeforeSleep: what the operations left in the
// state's Todo, the failover's steps first, done before the
// replies go out, as Redis does before it sleeps. Call with the lock held.
func (c *Cluster) afterChange() {
	st := c.st
	todo := st.Todo
	st.Todo = 0
	// The failover steps may ask for more of themselves (a manual failover
	// goes from "can start" to scheduled to asking for votes): a few
	// rounds here do at once what Redis does over as many event loop
	// turns; what is left waits for the next call.
	const failoverBits = clusterstate.TodoHandleFailover | clusterstate.TodoHandleManualFailover
	for i := 0; i < 3 && todo&failoverBits != 0; i++ {
		c.handleFailoverTodo(todo)
		todo = todo&^failoverBits | st.Todo
		st.Todo = 0
	}
	st.Todo = todo & failoverBits
	todo &^= failoverBits
	if todo&clusterstate.TodoUpdateState != 0 {
		if st.UpdateState(c.now()) {
			c.logStateChange()
		}
	}
	if todo&clusterstate.TodoSaveConfig != 0 {
		if err := c.cf.Save(st, todo&clusterstate.TodoFsyncConfig != 0); err != nil {
			// Redis exits here (clusterSaveConfigOrDie); this node keeps
			// serving and tries again at the next turn, so a disk that
			// filled up for a moment does not take a shard down.
			c.log.Warn("Can't update cluster config file, retrying", "err", err)
			st.Todo |= todo & (clusterstate.TodoSaveConfig | clusterstate.TodoFsyncConfig)
		}
	}
}

// logStateChange is clusterUpdateState's log line.
func (c *Cluster) logStateChange() {
	if c.st.Health == clusterstate.StateOK {
		c.log.Warn("Cluster state changed: ok")
	} else {
		c.log.Warn("Cluster state changed: fail")
	}
}

// of is e's cluster component, nil when the server is not in cluster mode.
func of(e *engine.Engine) *Cluster {
	c, _ := e.Cluster.(*Cluster)
	return c
}
