package config

import "sync/atomic"

// The replication settings a Sentinel-managed group relies on beyond the
// link itself: replicaof as CONFIG GET shows it (the directive and CONFIG
// REWRITE's line are config_start.go's, kept current by REPLICAOF), and
// what a replica tells its master and INFO about itself
// (replica-announce-ip, replica-announce-port, replica-announced), which
// decide the address Sentinel learns for it from the master's INFO and
// whether SENTINEL REPLICAS lists it.

// ReplConfig holds the announce settings, with Redis 7.0's defaults.
type ReplConfig struct {
	AnnounceIP   atomic.Pointer[string] // replica-announce-ip ("" = the link's source address)
	AnnouncePort atomic.Int64           // replica-announce-port (0 = port)
	Announced    atomic.Bool            // replica-announced
}

func (r *ReplConfig) init() {
	r.AnnounceIP.Store(Ptr(""))
	r.Announced.Store(true)
}

var replConfigParams = []ConfigParam{
	{
		// IMMUTABLE_CONFIG: redis.conf and the command line set it
		// (ApplyDirective), REPLICAOF changes it; CONFIG GET reads
		// "host port" on a replica, "" on a master.
		Name: "replicaof", Alias: "slaveof", Immutable: true, multi: true,
		Get: func(c *Config) string { return *c.Replicaof.Load() },
		// Directives writes replicaof's line itself.
		rewrite: func(*Config) []string { return nil },
	},
	{
		Name: "replica-announce-ip", Alias: "slave-announce-ip",
		Get: func(c *Config) string { return *c.Repl.AnnounceIP.Load() },
		// EMPTY_STRING_IS_NULL: an unset address writes no line.
		rewrite: func(c *Config) []string {
			if v := *c.Repl.AnnounceIP.Load(); v != "" {
				return []string{"replica-announce-ip " + QuoteArg(v)}
			}
			return nil
		},
		Parse: func(c *Config, v string) (func(), string) {
			return func() { c.Repl.AnnounceIP.Store(&v) }, ""
		},
	},
	numParam("replica-announce-port", "slave-announce-port", numSpec{lo: 0, hi: 65535},
		func(c *Config) int64 { return c.Repl.AnnouncePort.Load() }, func(c *Config, n int64) { c.Repl.AnnouncePort.Store(n) }),
	boolParam("replica-announced", func(c *Config) bool { return c.Repl.Announced.Load() },
		func(c *Config, b bool) { c.Repl.Announced.Store(b) }),
}

func init() { ConfigParams = append(ConfigParams, replConfigParams...) }

// announcedPort and announcedIP are what the replica link tells the
// master in REPLCONF listening-port and ip-address.
func (c *Config) AnnouncedPort() int {
	if p := c.Repl.AnnouncePort.Load(); p != 0 {
		return int(p)
	}
	return c.Port
}

func (c *Config) AnnouncedIP() string { return *c.Repl.AnnounceIP.Load() }

// replicaAnnounced is INFO's replica_announced.
func (c *Config) ReplicaAnnounced() int64 {
	if c.Repl.Announced.Load() {
		return 1
	}
	return 0
}
