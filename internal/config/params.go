package config

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/limitkv/limitkv/internal/num"
)

// configParam is one setting. parse validates a value and returns the
// function that stores it; apply-time failures (a port or address limitkv
// cannot move to) come from check, run after every value parsed, as Redis
// runs its apply functions after setting all values.
type ConfigParam struct {
	Name      string
	Alias     string
	Immutable bool
	Hidden    bool // HIDDEN_CONFIG: not matched by CONFIG GET's patterns
	// protected settings (dir, dbfilename) are refused by CONFIG SET, as
	// Redis 7.0 refuses them with enable-protected-configs no, its default.
	Protected bool
	Get       func(c *Config) string
	Parse     func(c *Config, v string) (store func(), errstr string)
	Check     func(c *Config, v string) string

	// multi settings take several words in redis.conf (MULTI_ARG_CONFIG):
	// "save 3600 1 300 100" is the value "3600 1 300 100".
	multi bool
	// start sets what CONFIG SET may not change once the server serves
	// (port, bind, dir, ...) from redis.conf or the command line; nil:
	// parse and store, as CONFIG SET.
	start func(c *Config, v string) string
	// rewrite formats the setting's redis.conf lines for CONFIG REWRITE;
	// nil: "name value" with get's value.
	rewrite func(c *Config) []string
	// storedDef, if set, is the default of a setting kept in Config.stored
	// (config_redis.go).
	storedDef *string
	// sensitive settings (SENSITIVE_CONFIG) have their values redacted
	// from the slow log and MONITOR by CONFIG SET.
	Sensitive bool
}

// Numeric settings in Redis's terms: MEMORY_CONFIG values accept units, and
// the bounds are checked as the C type (unsigned or not) would.
type numSpec struct {
	memory   bool
	unsigned bool
	octal    bool   // OCTAL_CONFIG: read and shown in base 8
	percent  bool   // PERCENT_CONFIG: "N%" too, kept as -N
	lo, hi   uint64 // hi as unsigned; signed types have hi <= MaxInt64
}

const (
	longMax = math.MaxInt64
	intMax  = math.MaxInt32
	uintMax = math.MaxUint32
)

// strParam is a free-form string setting.
func strParam(name string, field func(c *Config) *atomic.Pointer[string]) ConfigParam {
	return ConfigParam{
		Name:    name,
		Get:     func(c *Config) string { return *field(c).Load() },
		rewrite: func(c *Config) []string { return []string{name + " " + QuoteArg(*field(c).Load())} },
		Parse: func(c *Config, v string) (func(), string) {
			return func() { field(c).Store(&v) }, ""
		},
	}
}

func hide(p ConfigParam) ConfigParam { p.Hidden = true; return p }

func sensitive(p ConfigParam) ConfigParam { p.Sensitive = true; return p }

// intMinSigned is INT_MIN, the lower bound of signed int settings, stored in
// numSpec.lo as its two's complement.
var intMinSigned int64 = math.MinInt32

// parseNumber is Redis's numericParseString + numericBoundaryCheck.
func (s numSpec) parseNumber(v string) (int64, string) {
	var n int64
	ok := false
	if s.memory {
		var u uint64
		u, ok = Memtoull(v)
		n = int64(u)
	}
	if !ok && s.percent && len(v) > 1 && v[len(v)-1] == '%' {
		if p, pok := num.ParseInt([]byte(v[:len(v)-1])); pok && p >= 0 {
			n, ok = -p, true
		}
	}
	if !ok && s.octal {
		if o, err := strconv.ParseInt(v, 8, 64); err == nil {
			n, ok = o, true
		}
	}
	if !ok && !s.memory && !s.percent && !s.octal {
		n, ok = num.ParseInt([]byte(v))
	}
	if !ok {
		switch {
		case s.memory && s.percent:
			return 0, "argument must be a memory or percent value"
		case s.memory:
			return 0, "argument must be a memory value"
		case s.octal:
			return 0, "argument couldn't be parsed as an octal number"
		}
		return 0, "argument couldn't be parsed into an integer"
	}
	if s.percent && n < 0 {
		if n < int64(s.lo) {
			return 0, "percentage argument must be less or equal to " + strconv.FormatInt(-int64(s.lo), 10)
		}
		return n, ""
	}
	var out bool
	if s.unsigned {
		out = uint64(n) > s.hi || uint64(n) < s.lo
	} else {
		out = n > int64(s.hi) || n < int64(s.lo)
	}
	if out {
		lo, hi := strconv.FormatUint(s.lo, 10), strconv.FormatUint(s.hi, 10)
		if s.octal {
			lo, hi = strconv.FormatUint(s.lo, 8), strconv.FormatUint(s.hi, 8)
		}
		if !s.unsigned {
			// A signed setting may have a negative lower bound (list-max-listpack-size).
			lo, hi = strconv.FormatInt(int64(s.lo), 10), strconv.FormatInt(int64(s.hi), 10)
		}
		return 0, "argument must be between " + lo + " and " + hi + " inclusive"
	}
	return n, ""
}

// memtoull is Redis 7.0.15's memtoull: digits, then an optional unit
// (b, k, kb, m, mb, g, gb, any case). Its quirks are kept: no digits reads as
// 0, an overlong number saturates, and the unit multiplication wraps.
func Memtoull(p string) (uint64, bool) {
	if strings.HasPrefix(p, "-") {
		return 0, false
	}
	i := 0
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(p[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var val uint64
	for _, c := range p[:i] {
		d := uint64(c - '0')
		if val > (math.MaxUint64-d)/10 {
			val = math.MaxUint64 // strtoull saturates on overflow
			break
		}
		val = val*10 + d
	}
	return val * mul, true
}

func numParam(name, alias string, spec numSpec, load func(*Config) int64, store func(*Config, int64)) ConfigParam {
	var rewrite func(c *Config) []string
	if spec.memory {
		rewrite = func(c *Config) []string { return []string{name + " " + formatMemory(load(c))} }
	}
	return ConfigParam{
		Name: name, Alias: alias, rewrite: rewrite,
		Get: func(c *Config) string { return strconv.FormatInt(load(c), 10) },
		Parse: func(c *Config, v string) (func(), string) {
			n, err := spec.parseNumber(v)
			if err != "" {
				return nil, err
			}
			return func() { store(c, n) }, ""
		},
	}
}

// aliased gives p an alias (replica-* settings keep their slave-* names).
func aliased(p ConfigParam, alias string) ConfigParam {
	p.Alias = alias
	return p
}

func boolParam(name string, load func(*Config) bool, store func(*Config, bool)) ConfigParam {
	return ConfigParam{
		Name: name,
		Get: func(c *Config) string {
			if load(c) {
				return "yes"
			}
			return "no"
		},
		Parse: func(c *Config, v string) (func(), string) {
			switch strings.ToLower(v) {
			case "yes":
				return func() { store(c, true) }, ""
			case "no":
				return func() { store(c, false) }, ""
			}
			return nil, "argument must be 'yes' or 'no'"
		},
	}
}

var maxmemoryPolicies = []string{
	"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
	"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction",
}

var ConfigParams = []ConfigParam{
	{
		Name: "bind", multi: true,
		Get: func(c *Config) string { return c.Bind },
		start: func(c *Config, v string) string {
			if len(strings.Split(v, " ")) > 16 {
				return "Too many bind addresses specified."
			}
			c.Bind = v
			return ""
		},
		Parse: func(c *Config, v string) (func(), string) {
			if len(strings.Split(v, " ")) > 16 {
				return nil, "Too many bind addresses specified."
			}
			return func() {}, ""
		},
		Check: func(c *Config, v string) string {
			if v == c.Bind {
				return ""
			}
			if c.Rebind == nil || c.Rebind(v, c.Port) != nil {
				return "Failed to bind to specified addresses."
			}
			c.Bind = v
			return ""
		},
	},
	{
		Name: "port",
		Get:  func(c *Config) string { return strconv.Itoa(c.Port) },
		start: func(c *Config, v string) string {
			n, err := numSpec{lo: 0, hi: 65535}.parseNumber(v)
			if err == "" {
				c.Port = int(n)
			}
			return err
		},
		Parse: func(c *Config, v string) (func(), string) {
			_, err := numSpec{lo: 0, hi: 65535}.parseNumber(v)
			if err != "" {
				return nil, err
			}
			return func() {}, ""
		},
		Check: func(c *Config, v string) string {
			n, _ := num.ParseInt([]byte(v))
			if n == int64(c.Port) {
				return ""
			}
			if c.Rebind == nil || c.Rebind(c.Bind, int(n)) != nil {
				return "Unable to listen on this port. Check server logs."
			}
			c.Port = int(n)
			return ""
		},
	},
	sensitive(strParam("masterauth", func(c *Config) *atomic.Pointer[string] { return &c.MasterAuth })),
	sensitive(strParam("masteruser", func(c *Config) *atomic.Pointer[string] { return &c.MasterUser })),
	{
		// Immutable as in Redis: the ACL file is read at start and by ACL LOAD.
		Name: "aclfile", Immutable: true,
		Get: func(c *Config) string { return *c.ACLFile.Load() },
		Parse: func(c *Config, v string) (func(), string) {
			return func() { c.ACLFile.Store(&v) }, ""
		},
	},
	numParam("acllog-max-len", "", numSpec{lo: 0, hi: longMax},
		func(c *Config) int64 { return c.ACLLogMaxLen.Load() }, func(c *Config, n int64) { c.ACLLogMaxLen.Store(n) }),
	{
		Name: "requirepass", Sensitive: true,
		Get:     func(c *Config) string { return *c.RequirePass.Load() },
		rewrite: func(c *Config) []string { return []string{"requirepass " + QuoteArg(*c.RequirePass.Load())} },
		Parse: func(c *Config, v string) (func(), string) {
			return func() { c.RequirePass.Store(&v) }, ""
		},
	},
	numParam("proto-max-bulk-len", "", numSpec{memory: true, lo: 1 << 20, hi: longMax},
		func(c *Config) int64 { return c.ProtoMaxBulkLen.Load() }, func(c *Config, n int64) { c.ProtoMaxBulkLen.Store(n) }),
	numParam("client-query-buffer-limit", "", numSpec{memory: true, unsigned: true, lo: 1 << 20, hi: longMax},
		func(c *Config) int64 { return c.QueryBufLimit.Load() }, func(c *Config, n int64) { c.QueryBufLimit.Store(n) }),
	hide(numParam("key-load-delay", "", numSpec{lo: uint64(intMinSigned), hi: intMax},
		func(c *Config) int64 { return c.KeyLoadDelay.Load() }, func(c *Config, n int64) { c.KeyLoadDelay.Store(n) })),
	hide(numParam("loading-process-events-interval-bytes", "", numSpec{lo: 1024, hi: intMax},
		func(c *Config) int64 { return c.LoadingEventsBytes.Load() }, func(c *Config, n int64) { c.LoadingEventsBytes.Store(n) })),
	numParam("maxclients", "", numSpec{unsigned: true, lo: 1, hi: uintMax},
		func(c *Config) int64 { return c.MaxClients.Load() }, func(c *Config, n int64) { c.MaxClients.Store(n) }),
	numParam("timeout", "", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.Timeout.Load() }, func(c *Config, n int64) { c.Timeout.Store(n) }),
	numParam("maxmemory", "", numSpec{memory: true, unsigned: true, lo: 0, hi: math.MaxUint64},
		func(c *Config) int64 { return c.MaxMemory.Load() },
		func(c *Config, n int64) {
			// Redis takes up to 2^64-1; limitkv's limit is an int64, and a
			// value that large means no limit either way.
			if n < 0 {
				n = math.MaxInt64
			}
			c.MaxMemory.Store(n)
		}),
	{
		Name: "client-output-buffer-limit", multi: true,
		Get: func(c *Config) string { return c.OutputLimits().String() },
		Parse: func(c *Config, v string) (func(), string) {
			var args []string
			if v != "" {
				args = strings.Split(v, " ")
			}
			l, err := c.OutputLimits().Set(args)
			if err != "" {
				return nil, err
			}
			return func() { c.SetOutputLimits(l) }, ""
		},
	},
	{
		Name: "maxmemory-policy",
		Get:  func(c *Config) string { return *c.MaxMemoryPolicy.Load() },
		Parse: func(c *Config, v string) (func(), string) {
			lv := strings.ToLower(v)
			for _, p := range maxmemoryPolicies {
				if lv == p {
					return func() {
						c.MaxMemoryPolicy.Store(&p)
						c.Access.LFU = strings.HasSuffix(p, "-lfu")
					}, ""
				}
			}
			return nil, "argument(s) must be one of the following: " + strings.Join(maxmemoryPolicies, ", ")
		},
	},
	aliased(boolParam("replica-read-only", func(c *Config) bool { return c.ReplicaReadOnly.Load() }, func(c *Config, b bool) { c.ReplicaReadOnly.Store(b) }), "slave-read-only"),
	aliased(boolParam("replica-serve-stale-data", func(c *Config) bool { return c.ReplicaServeStale.Load() }, func(c *Config, b bool) { c.ReplicaServeStale.Store(b) }), "slave-serve-stale-data"),
	numParam("repl-timeout", "", numSpec{lo: 1, hi: intMax},
		func(c *Config) int64 { return c.ReplTimeout.Load() }, func(c *Config, n int64) { c.ReplTimeout.Store(n) }),
	numParam("replica-priority", "slave-priority", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.ReplicaPriority.Load() }, func(c *Config, n int64) { c.ReplicaPriority.Store(n) }),
	numParam("repl-backlog-size", "", numSpec{memory: true, lo: 1, hi: longMax},
		func(c *Config) int64 { return c.ReplBacklogSize.Load() }, func(c *Config, n int64) { c.ReplBacklogSize.Store(n) }),
	numParam("repl-backlog-ttl", "", numSpec{lo: 0, hi: longMax},
		func(c *Config) int64 { return c.ReplBacklogTTL.Load() }, func(c *Config, n int64) { c.ReplBacklogTTL.Store(n) }),
	boolParam("repl-diskless-sync", func(c *Config) bool { return c.ReplDisklessSync.Load() }, func(c *Config, b bool) { c.ReplDisklessSync.Store(b) }),
	numParam("repl-diskless-sync-delay", "", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.ReplDisklessDelay.Load() }, func(c *Config, n int64) { c.ReplDisklessDelay.Store(n) }),
	numParam("repl-ping-replica-period", "repl-ping-slave-period", numSpec{lo: 1, hi: intMax},
		func(c *Config) int64 { return c.ReplPingPeriod.Load() }, func(c *Config, n int64) { c.ReplPingPeriod.Store(n) }),
	numParam("min-replicas-to-write", "min-slaves-to-write", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.MinReplicasToWrite.Load() }, func(c *Config, n int64) { c.MinReplicasToWrite.Store(n) }),
	numParam("min-replicas-max-lag", "min-slaves-max-lag", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.MinReplicasMaxLag.Load() }, func(c *Config, n int64) { c.MinReplicasMaxLag.Store(n) }),
	numParam("shutdown-timeout", "", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.ShutdownTimeout.Load() }, func(c *Config, n int64) { c.ShutdownTimeout.Store(n) }),
	numParam("maxmemory-samples", "", numSpec{lo: 1, hi: intMax},
		func(c *Config) int64 { return c.MaxMemorySamples.Load() }, func(c *Config, n int64) { c.MaxMemorySamples.Store(n) }),
	numParam("maxmemory-eviction-tenacity", "", numSpec{lo: 0, hi: 100},
		func(c *Config) int64 { return c.EvictionTenacity.Load() }, func(c *Config, n int64) { c.EvictionTenacity.Store(n) }),
	numParam("lfu-log-factor", "", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return int64(c.Access.LogFactor) }, func(c *Config, n int64) { c.Access.LogFactor = int(n) }),
	numParam("lfu-decay-time", "", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return int64(c.Access.DecayTime) }, func(c *Config, n int64) { c.Access.DecayTime = int(n) }),
	boolParam("protected-mode", func(c *Config) bool { return c.ProtectedMode.Load() }, func(c *Config, b bool) { c.ProtectedMode.Store(b) }),
	numParam("zset-max-listpack-entries", "zset-max-ziplist-entries", numSpec{unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.ZsetMaxListpackEntries.Load() }, func(c *Config, n int64) { c.ZsetMaxListpackEntries.Store(n) }),
	numParam("zset-max-listpack-value", "zset-max-ziplist-value", numSpec{memory: true, unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.ZsetMaxListpackValue.Load() }, func(c *Config, n int64) { c.ZsetMaxListpackValue.Store(n) }),
	numParam("hll-sparse-max-bytes", "", numSpec{memory: true, unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.HllSparseMaxBytes.Load() }, func(c *Config, n int64) { c.HllSparseMaxBytes.Store(n) }),
	numParam("hash-max-listpack-entries", "hash-max-ziplist-entries", numSpec{unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.HashMaxListpackEntries.Load() }, func(c *Config, n int64) { c.HashMaxListpackEntries.Store(n) }),
	numParam("hash-max-listpack-value", "hash-max-ziplist-value", numSpec{memory: true, unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.HashMaxListpackValue.Load() }, func(c *Config, n int64) { c.HashMaxListpackValue.Store(n) }),
	numParam("list-max-listpack-size", "list-max-ziplist-size", numSpec{lo: uint64(intMinSigned), hi: intMax},
		func(c *Config) int64 { return c.ListMaxListpackSize.Load() }, func(c *Config, n int64) { c.ListMaxListpackSize.Store(n) }),
	// Accepted and validated as Redis does; limitkv does not compress nodes.
	numParam("list-compress-depth", "", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.ListCompressDepth.Load() }, func(c *Config, n int64) { c.ListCompressDepth.Store(n) }),
	numParam("stream-node-max-bytes", "", numSpec{memory: true, unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.StreamNodeMaxBytes.Load() }, func(c *Config, n int64) { c.StreamNodeMaxBytes.Store(n) }),
	numParam("stream-node-max-entries", "", numSpec{lo: 0, hi: longMax},
		func(c *Config) int64 { return c.StreamNodeMaxEntries.Load() }, func(c *Config, n int64) { c.StreamNodeMaxEntries.Store(n) }),
	numParam("set-max-intset-entries", "", numSpec{unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.SetMaxIntsetEntries.Load() }, func(c *Config, n int64) { c.SetMaxIntsetEntries.Store(n) }),
	numParam("busy-reply-threshold", "lua-time-limit", numSpec{lo: 0, hi: longMax},
		func(c *Config) int64 { return c.BusyThreshold.Load() }, func(c *Config, n int64) { c.BusyThreshold.Store(n) }),
	numParam("tracking-table-max-keys", "", numSpec{unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.TrackingTableMaxKeys.Load() }, func(c *Config, n int64) { c.TrackingTableMaxKeys.Store(n) }),
	{
		Name: "notify-keyspace-events",
		Get:  func(c *Config) string { return FormatNotifyFlags(int(c.NotifyEvents.Load())) },
		Parse: func(c *Config, v string) (func(), string) {
			f, ok := ParseNotifyFlags(v)
			if !ok {
				return nil, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
			}
			return func() { c.NotifyEvents.Store(int32(f)) }, ""
		},
	},
	{
		Name: "databases", Immutable: true,
		Get: func(*Config) string { return strconv.Itoa(NumDBs) },
		start: func(c *Config, v string) string {
			n, err := numSpec{lo: 1, hi: intMax}.parseNumber(v)
			if err == "" && n != NumDBs {
				return "limitkv has exactly " + strconv.Itoa(NumDBs) + " databases"
			}
			return err
		},
	},
	{
		Name: "save", multi: true,
		Get:     func(c *Config) string { return FormatSave(c.SavePoints()) },
		rewrite: rewriteSave,
		Parse: func(c *Config, v string) (func(), string) {
			sp, err := ParseSave(v)
			if err != "" {
				return nil, err
			}
			return func() { c.SetSavePoints(sp) }, ""
		},
	},
	{Name: "dir", Protected: true, Get: func(c *Config) string { return *c.Dir.Load() }, start: startDir,
		rewrite: func(c *Config) []string { return []string{"dir " + QuoteArg(*c.Dir.Load())} },
		// With enable-protected-configs: the directory must exist, as
		// Redis's chdir.
		Parse: func(c *Config, v string) (func(), string) {
			if err := checkDir(v); err != "" {
				return nil, err
			}
			return func() { startDir(c, v) }, ""
		}},
	{Name: "dbfilename", Protected: true, Get: func(c *Config) string { return *c.DBFilename.Load() }, start: startDBFilename,
		rewrite: func(c *Config) []string { return []string{"dbfilename " + QuoteArg(*c.DBFilename.Load())} },
		Parse: func(c *Config, v string) (func(), string) {
			if filepath.Base(v) != v {
				return nil, "dbfilename can't be a path, just a filename"
			}
			return func() { c.DBFilename.Store(&v) }, ""
		}},
	boolParam("rdbcompression", func(c *Config) bool { return c.RDBCompression.Load() }, func(c *Config, b bool) { c.RDBCompression.Store(b) }),
	{
		Name: "rdbchecksum", Immutable: true,
		Get: func(c *Config) string {
			if c.RDBChecksum.Load() {
				return "yes"
			}
			return "no"
		},
		start: func(c *Config, v string) string {
			switch strings.ToLower(v) {
			case "yes", "no":
				c.RDBChecksum.Store(strings.EqualFold(v, "yes"))
				return ""
			}
			return "argument must be 'yes' or 'no'"
		},
	},
	boolParam("stop-writes-on-bgsave-error", func(c *Config) bool { return c.StopWritesOnBgsaveError.Load() },
		func(c *Config, b bool) { c.StopWritesOnBgsaveError.Store(b) }),
	{
		// Immutable: CONFIG SET refuses it before parse runs; parse is for
		// setting it at start (flags, a config file).
		Name: "enable-debug-command", Immutable: true,
		Get: func(c *Config) string { return formatDebugCommandSetting(c.EnableDebugCommand.Load()) },
		Parse: func(c *Config, v string) (func(), string) {
			m, ok := ParseDebugCommandSetting(v)
			if !ok {
				return nil, "argument(s) must be one of the following: no, yes, local"
			}
			return func() { c.EnableDebugCommand.Store(m) }, ""
		},
	},
	// The AOF (aof.go). CONFIG SET appendonly applies through
	// aofConfigApplied, which starts the first rewrite.
	boolParam("appendonly", func(c *Config) bool { return c.AOF.Enabled.Load() },
		func(c *Config, b bool) { c.AOF.Enabled.Store(b) }),
	{
		Name: "appendfsync",
		Get: func(c *Config) string {
			return [...]string{FsyncNo: "no", FsyncAlways: "always", FsyncEverysec: "everysec"}[c.AOF.Fsync.Load()]
		},
		Parse: func(c *Config, v string) (func(), string) {
			m := map[string]int32{"always": FsyncAlways, "everysec": FsyncEverysec, "no": FsyncNo}
			n, ok := m[strings.ToLower(v)]
			if !ok {
				return nil, "argument(s) must be one of the following: everysec, always, no"
			}
			return func() { c.AOF.Fsync.Store(n) }, ""
		},
	},
	{
		Name: "appenddirname", Immutable: true,
		Get: func(c *Config) string { return *c.AOF.DirName.Load() },
		Parse: func(c *Config, v string) (func(), string) {
			if v == "" || strings.ContainsRune(v, '/') || v == "." || v == ".." {
				return nil, "appenddirname can't be a path, just a dirname"
			}
			return func() { c.AOF.DirName.Store(&v) }, ""
		},
	},
	{
		Name: "appendfilename", Immutable: true,
		Get: func(c *Config) string { return *c.AOF.FileName.Load() },
		Parse: func(c *Config, v string) (func(), string) {
			if v == "" || strings.ContainsRune(v, '/') || v == "." || v == ".." {
				return nil, "appendfilename can't be a path, just a filename"
			}
			return func() { c.AOF.FileName.Store(&v) }, ""
		},
	},
	boolParam("aof-use-rdb-preamble", func(c *Config) bool { return c.AOF.UseRDBPreamble.Load() },
		func(c *Config, b bool) { c.AOF.UseRDBPreamble.Store(b) }),
	boolParam("aof-load-truncated", func(c *Config) bool { return c.AOF.LoadTruncated.Load() },
		func(c *Config, b bool) { c.AOF.LoadTruncated.Store(b) }),
	numParam("auto-aof-rewrite-percentage", "", numSpec{lo: 0, hi: intMax},
		func(c *Config) int64 { return c.AOF.RewritePerc.Load() }, func(c *Config, n int64) { c.AOF.RewritePerc.Store(n) }),
	numParam("auto-aof-rewrite-min-size", "", numSpec{memory: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.AOF.RewriteMinSize.Load() }, func(c *Config, n int64) { c.AOF.RewriteMinSize.Store(n) }),
}

// strtoll is C's strtoll(s, &end, 10) followed by Redis's check that it
// consumed all of s: leading spaces and a sign are accepted, and an empty
// string reads as 0.
func Strtoll(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	i := 0
	var n int64
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		if n < math.MaxInt64/10 {
			n = n*10 + int64(t[i]-'0')
		}
		i++
	}
	if i == 0 {
		// No digits: strtoll leaves end at the start of s.
		return 0, s == ""
	}
	if neg {
		n = -n
	}
	return n, i == len(t)
}

// configLookup finds a setting by its name or alias, any case, and returns
// the canonical spelling of the one that matched.
func ConfigLookup(name string) (*ConfigParam, string) {
	for i := range ConfigParams {
		p := &ConfigParams[i]
		if strings.EqualFold(name, p.Name) {
			return p, p.Name
		}
		if p.Alias != "" && strings.EqualFold(name, p.Alias) {
			return p, p.Alias
		}
	}
	return nil, ""
}
