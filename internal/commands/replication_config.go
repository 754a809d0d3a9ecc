package commands

import (
	"strconv"
	"strings"
	"sync/atomic"
)

// The replication settings a Sentinel-managed group relies on: replicaof
// (the master a server starts following, and the line CONFIG REWRITE keeps
// for it, which Sentinel's failover transaction relies on to make a
// promotion or a reconfiguration survive a restart), and what a replica
// tells its master and INFO about itself (replica-announce-ip,
// replica-announce-port, replica-announced), which decide the address
// Sentinel learns for it from the master's INFO and whether SENTINEL
// REPLICAS lists it.

// ReplConfig holds those settings, with Redis 7.0's defaults.
type ReplConfig struct {
	AnnounceIP   atomic.Pointer[string] // replica-announce-ip ("" = the link's source address)
	AnnouncePort atomic.Int64           // replica-announce-port (0 = port)
	Announced    atomic.Bool            // replica-announced
	// replicaOf is the replicaof directive read at start ("host port", or
	// ""); once an engine runs, now reports its current master instead.
	replicaOf atomic.Pointer[string]
	now       func() string
}

func (r *ReplConfig) init() {
	r.AnnounceIP.Store(ptr(""))
	r.Announced.Store(true)
	r.replicaOf.Store(ptr(""))
}

// replicaOfValue is CONFIG GET replicaof: "host port" on a replica, "" on
// a master (getConfigReplicaOfOption).
func (c *Config) replicaOfValue() string {
	if f := c.Repl.now; f != nil {
		return f()
	}
	return *c.Repl.replicaOf.Load()
}

// parseReplicaOf is setConfigReplicaOfOption's check of "host port"
// ("no one" unsets).
func parseReplicaOf(v string) (host string, port int, errstr string) {
	args, ok := SplitArgs(v)
	if !ok || len(args) != 2 {
		return "", 0, "wrong number of arguments"
	}
	if strings.EqualFold(args[0], "no") && strings.EqualFold(args[1], "one") {
		return "", 0, ""
	}
	n, ok := strtoll(args[1])
	if !ok || n < 0 || n > 65535 {
		return "", 0, "Invalid master port"
	}
	return args[0], int(n), ""
}

var replConfigParams = []configParam{
	{
		// IMMUTABLE_CONFIG | MULTI_ARG_CONFIG: set from redis.conf or the
		// command line, changed at run time by REPLICAOF only.
		name: "replicaof", alias: "slaveof", immutable: true, multi: true,
		get: func(c *Config) string { return c.replicaOfValue() },
		start: func(c *Config, v string) string {
			host, port, err := parseReplicaOf(v)
			if err != "" {
				return err
			}
			s := ""
			if host != "" {
				s = host + " " + strconv.Itoa(port)
			}
			c.Repl.replicaOf.Store(&s)
			return ""
		},
		// rewriteConfigReplicaOfOption: a master drops every replicaof
		// line; a replica writes its master's.
		rewrite: func(c *Config) []string {
			if v := c.replicaOfValue(); v != "" {
				return []string{"replicaof " + v}
			}
			return nil
		},
	},
	{
		name: "replica-announce-ip", alias: "slave-announce-ip",
		get: func(c *Config) string { return *c.Repl.AnnounceIP.Load() },
		// EMPTY_STRING_IS_NULL: an unset address writes no line.
		rewrite: func(c *Config) []string {
			if v := *c.Repl.AnnounceIP.Load(); v != "" {
				return []string{"replica-announce-ip " + QuoteArg(v)}
			}
			return nil
		},
		parse: func(c *Config, v string) (func(), string) {
			return func() { c.Repl.AnnounceIP.Store(&v) }, ""
		},
	},
	numParam("replica-announce-port", "slave-announce-port", numSpec{lo: 0, hi: 65535},
		func(c *Config) int64 { return c.Repl.AnnouncePort.Load() }, func(c *Config, n int64) { c.Repl.AnnouncePort.Store(n) }),
	boolParam("replica-announced", func(c *Config) bool { return c.Repl.Announced.Load() },
		func(c *Config, b bool) { c.Repl.Announced.Store(b) }),
}

func init() { configParams = append(configParams, replConfigParams...) }

// StartReplication follows the master the replicaof directive named, as
// Redis connects to it once the data is loaded; it is a no-op without the
// directive. From here on CONFIG GET and CONFIG REWRITE report the
// engine's master, which REPLICAOF changes.
func (e *Engine) StartReplication() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Cfg.Repl.now = e.replicaOfNow
	host, port, _ := parseReplicaOf(*e.Cfg.Repl.replicaOf.Load())
	if host != "" && !e.IsReplica() {
		e.setMaster(host, port)
		e.Log.Info("Connecting to MASTER (replicaof directive)", "master", host+":"+strconv.Itoa(port))
	}
}

// replicaOfNow is the engine's master as replicaof's value. Called with
// the lock held (CONFIG GET, CONFIG REWRITE).
func (e *Engine) replicaOfNow() string {
	if !e.IsReplica() {
		return ""
	}
	return e.repl.host + " " + strconv.Itoa(e.repl.port)
}

// announcedPort and announcedIP are what the replica link tells the
// master in REPLCONF listening-port and ip-address.
func (c *Config) announcedPort() int {
	if p := c.Repl.AnnouncePort.Load(); p != 0 {
		return int(p)
	}
	return c.Port
}

func (c *Config) announcedIP() string { return *c.Repl.AnnounceIP.Load() }

// replicaAnnounced is INFO's replica_announced.
func (c *Config) replicaAnnounced() int64 {
	if c.Repl.Announced.Load() {
		return 1
	}
	return 0
}
