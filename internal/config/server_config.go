package config

import (
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/hll"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/list"
	"github.com/limitkv/limitkv/internal/zset"
)

// Config holds the settings CONFIG GET/SET and the flags control, one per
// engine: embedded servers in one process keep their own. Values the
// connection loop reads outside the executor lock are atomic.
type Config struct {
	Bind string
	Port int
	// Rebind, when set, opens the client TCP listeners on bind's addresses
	// and port in place of the current ones, keeping those if it fails
	// (CONFIG SET port and bind, as changeListenPort and changeBindAddr).
	// The binary sets it; an embedded server cannot move.
	Rebind func(bind string, port int) error

	// LogLevel is the log's minimum level, which the logger reads for
	// every line, so CONFIG SET loglevel takes effect at once.
	LogLevel slog.LevelVar

	ProtoMaxBulkLen atomic.Int64 // proto-max-bulk-len
	QueryBufLimit   atomic.Int64 // client-query-buffer-limit
	// key-load-delay and loading-process-events-interval-bytes: Redis's
	// hidden settings to slow a load down and serve clients more often
	// during it, which tests of the LOADING state use.
	KeyLoadDelay       atomic.Int64
	LoadingEventsBytes atomic.Int64
	MaxClients         atomic.Int64 // maxclients
	Timeout            atomic.Int64 // timeout, seconds; 0 = never
	MaxMemory          atomic.Int64 // maxmemory, bytes; 0 = unlimited
	MaxMemoryPolicy    atomic.Pointer[string]
	// Eviction (evict.go): maxmemory-samples, maxmemory-eviction-tenacity,
	// and what lookups record for the policy in force (lfu-log-factor,
	// lfu-decay-time). Access is shared by the engine's databases and
	// changed only under the executor lock, as CONFIG SET runs.
	MaxMemorySamples atomic.Int64
	EvictionTenacity atomic.Int64
	Access           keyspace.Access
	RequirePass      atomic.Pointer[string]
	ACLFile          atomic.Pointer[string] // aclfile (immutable)
	ACLLogMaxLen     atomic.Int64           // acllog-max-len
	// aclUsers are the ACL users (acl.go): here rather than in the engine
	// since requirepass is the default user's password. authNeeded is the
	// default user's NeedsAuth, for the connection code outside the lock.
	aclUsers    *acl.Registry
	AclPending  [][]string // redis.conf's "user" lines, loaded at start
	appliedPass atomic.Pointer[string]
	authNeeded  atomic.Bool
	// Replication (replication.go): masterauth, masteruser, repl-timeout,
	// replica-read-only, replica-priority.
	MasterAuth        atomic.Pointer[string]
	MasterUser        atomic.Pointer[string]
	ReplTimeout       atomic.Int64
	ReplicaReadOnly   atomic.Bool
	ReplicaServeStale atomic.Bool // replica-serve-stale-data
	ReplicaPriority   atomic.Int64
	// The master side (replication_master.go): repl-backlog-size,
	// repl-backlog-ttl, repl-diskless-sync, repl-diskless-sync-delay,
	// repl-ping-replica-period, min-replicas-to-write, min-replicas-max-lag.
	// Replicaof is redis.conf's replicaof: "host port" to replicate from
	// at start ("" for none). REPLICAOF keeps it current, so CONFIG
	// REWRITE writes the role the server has, as Redis.
	Replicaof          atomic.Pointer[string]
	ReplBacklogSize    atomic.Int64
	ReplBacklogTTL     atomic.Int64
	ReplDisklessSync   atomic.Bool
	ReplDisklessDelay  atomic.Int64
	ReplPingPeriod     atomic.Int64
	MinReplicasToWrite atomic.Int64
	MinReplicasMaxLag  atomic.Int64
	ShutdownTimeout    atomic.Int64 // shutdown-timeout: seconds a shutdown waits for lagging replicas
	ProtectedMode      atomic.Bool
	BusyThreshold      atomic.Int64 // busy-reply-threshold (lua-time-limit), ms

	ZsetMaxListpackEntries atomic.Int64 // zset-max-listpack-entries
	ZsetMaxListpackValue   atomic.Int64 // zset-max-listpack-value, bytes
	HllSparseMaxBytes      atomic.Int64 // hll-sparse-max-bytes
	HashMaxListpackEntries atomic.Int64 // hash-max-listpack-entries
	HashMaxListpackValue   atomic.Int64 // hash-max-listpack-value, bytes

	ListMaxListpackSize atomic.Int64 // list-max-listpack-size: node entries (>0) or size class (<0)
	ListCompressDepth   atomic.Int64 // list-compress-depth (validated, not applied)
	SetMaxIntsetEntries atomic.Int64 // set-max-intset-entries

	StreamNodeMaxBytes   atomic.Int64 // stream-node-max-bytes
	StreamNodeMaxEntries atomic.Int64 // stream-node-max-entries

	TrackingTableMaxKeys atomic.Int64 // tracking-table-max-keys; 0 = no limit

	NotifyEvents atomic.Int32 // notify-keyspace-events, as notify.go's bits

	outputLimits atomic.Pointer[OutputLimits] // client-output-buffer-limit; nil: DefaultOutputLimits

	// Persistence (persist.go). Dir is absolute: Redis chdirs to its dir and
	// reports getcwd(); limitkv engines share a process, so each keeps its
	// own directory instead of changing the process's.
	Dir            atomic.Pointer[string] // dir
	DBFilename     atomic.Pointer[string] // dbfilename
	RDBCompression atomic.Bool            // rdbcompression
	RDBChecksum    atomic.Bool            // rdbchecksum (immutable, as in Redis)
	savePoints     atomic.Pointer[[]SavePoint]

	// StopWritesOnBgsaveError is stop-writes-on-bgsave-error: after a failed
	// background save (with save points set) writes answer MISCONF.
	StopWritesOnBgsaveError atomic.Bool
	// EnableDebugCommand is enable-debug-command (DebugCommandNo, Yes or
	// Local; debug.go), immutable at runtime as in Redis: set it before the
	// server starts.
	EnableDebugCommand atomic.Int32
	// ListPackedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD: list elements
	// from this size are plain quicklist nodes in snapshots (0: 1 GB).
	ListPackedThreshold atomic.Int64
	// Rewrite, if set, is CONFIG REWRITE: the binary sets it when it
	// started from a config file (internal/config); nil answers Redis's
	// "running without a config file".
	Rewrite func() error

	// stored are the settings limitkv keeps for CONFIG GET and REWRITE
	// only, or reads through Stored (config_redis.go); the map is fixed
	// once made, the values atomic.
	stored map[string]*atomic.Pointer[string]

	Obs  ObsConfig  // statistics, slow log and latency monitor (obs_config.go)
	Repl ReplConfig // replica-announce-ip/port, replica-announced (replication_config.go)
	AOF  AOFConfig  // appendonly and the other AOF settings (aof.go)
}

// DefaultConfig returns Redis's defaults for the settings limitkv has.
func DefaultConfig() *Config {
	c := &Config{Bind: "127.0.0.1", Port: 6379}
	c.ProtoMaxBulkLen.Store(512 << 20)
	c.QueryBufLimit.Store(1 << 30)
	c.LoadingEventsBytes.Store(loadYieldBytes)
	c.MaxClients.Store(10000)
	c.MaxMemoryPolicy.Store(Ptr("noeviction"))
	c.MaxMemorySamples.Store(5)
	c.EvictionTenacity.Store(10)
	c.Access = keyspace.DefaultAccess
	c.RequirePass.Store(Ptr(""))
	c.MasterAuth.Store(Ptr(""))
	c.MasterUser.Store(Ptr(""))
	c.ReplTimeout.Store(60)
	c.ReplicaReadOnly.Store(true)
	c.ReplicaServeStale.Store(true)
	c.ReplicaPriority.Store(100)
	c.Replicaof.Store(Ptr(""))
	c.ReplBacklogSize.Store(1 << 20)
	c.ReplBacklogTTL.Store(3600)
	c.ReplDisklessSync.Store(true)
	c.ReplDisklessDelay.Store(5)
	c.ReplPingPeriod.Store(10)
	c.MinReplicasMaxLag.Store(10)
	c.ShutdownTimeout.Store(10)
	c.ACLFile.Store(Ptr(""))
	c.ACLLogMaxLen.Store(128)
	c.ProtectedMode.Store(true)
	c.BusyThreshold.Store(5000)
	lim := zset.DefaultLimits()
	c.ZsetMaxListpackEntries.Store(lim.Entries)
	c.ZsetMaxListpackValue.Store(lim.Value)
	c.HllSparseMaxBytes.Store(hll.DefaultSparseMaxBytes)
	hlim := hash.DefaultLimits()
	c.HashMaxListpackEntries.Store(hlim.Entries)
	c.HashMaxListpackValue.Store(hlim.Value)
	c.ListMaxListpackSize.Store(int64(list.DefaultFill))
	c.SetMaxIntsetEntries.Store(512)
	c.StreamNodeMaxBytes.Store(4096)
	c.StreamNodeMaxEntries.Store(100)
	c.TrackingTableMaxKeys.Store(1_000_000)
	// Redis's dir defaults to the directory it was started in.
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	c.Dir.Store(&wd)
	c.DBFilename.Store(Ptr("dump.rdb"))
	c.RDBCompression.Store(true)
	c.RDBChecksum.Store(true)
	// No save points: an embedded server keeps nothing unless asked to.
	// The binary applies Redis's DefaultSave (cmd/limitkv).
	c.savePoints.Store(&[]SavePoint{})
	c.Obs.init()
	c.Repl.init()
	c.StopWritesOnBgsaveError.Store(true)
	c.AOF.init()
	c.initStored()
	return c
}

// ZsetLimits are the sorted set encoding thresholds to pass to every
// zset call that may convert a set.
func (c *Config) ZsetLimits() zset.Limits {
	return zset.Limits{Entries: c.ZsetMaxListpackEntries.Load(), Value: c.ZsetMaxListpackValue.Load()}
}

// HashLimits are the hash encoding thresholds to pass to every hash call
// that may convert a hash.
func (c *Config) HashLimits() hash.Limits {
	return hash.Limits{Entries: c.HashMaxListpackEntries.Load(), Value: c.HashMaxListpackValue.Load()}
}

// ListFill is the node limit new lists take (Redis applies
// list-max-listpack-size when a list is created).
func (c *Config) ListFill() list.Fill { return list.Fill(c.ListMaxListpackSize.Load()) }

func Ptr[T any](v T) *T { return &v }

// AuthRequired reports whether clients must AUTH first: the default user
// has a password or is disabled. Safe without the engine lock.
func (c *Config) AuthRequired() bool {
	if p := c.RequirePass.Load(); p != c.appliedPass.Load() {
		return *p != "" // set, not yet applied to the default user
	}
	return c.authNeeded.Load()
}

// users is the ACL user set. requirepass is Redis's
// ACLUpdateDefaultUserPassword: a value stored since the last call becomes
// the default user's only password (nopass for ""). Call with the engine
// lock held.
func (c *Config) Users() *acl.Registry {
	if c.aclUsers == nil {
		c.aclUsers = newACLRegistry()
	}
	if p := c.RequirePass.Load(); p != c.appliedPass.Load() {
		c.aclUsers.SetDefaultPassword(*p)
		c.appliedPass.Store(p)
		c.SyncDefaultAuth()
	}
	return c.aclUsers
}

// syncDefaultAuth publishes the default user's NeedsAuth to AuthRequired
// after its password or state changed.
func (c *Config) SyncDefaultAuth() { c.authNeeded.Store(c.aclUsers.Default.NeedsAuth()) }

// ParseMemory reads a size as redis.conf does (memtoull): a plain number of
// bytes, or a number with k, kb, m, mb, g, gb (any case; k=1000, kb=1024).
func ParseMemory(s string) (int64, bool) {
	units := []struct {
		suffix string
		mul    int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}}
	ls := strings.ToLower(s)
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(ls, u.suffix) {
			ls, mul = ls[:len(ls)-len(u.suffix)], u.mul
			break
		}
	}
	n, err := strconv.ParseUint(ls, 10, 63)
	if err != nil || (mul > 1 && int64(n) > math.MaxInt64/mul) {
		return 0, false
	}
	return int64(n) * mul, true
}
