package config

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/stream"
)

// EventClass is a class of keyspace notification, as the letters of
// notify-keyspace-events name them.
type EventClass uint16

const (
	EvGeneric EventClass = 1 << iota // g: DEL, EXPIRE, RENAME, ...
	EvString                         // $
	EvList                           // l
	EvSet                            // s
	EvHash                           // h
	EvZSet                           // z
	EvExpired                        // x
	EvEvicted                        // e
	EvStream                         // t
	EvKeyMiss                        // m
	EvModule                         // d
	EvNew                            // n
)

// The K and E flags sit above the EventClass bits in Config.NotifyEvents.
const (
	NotifyKeyspaceFlag = 1 << 14 // K
	NotifyKeyeventFlag = 1 << 15 // E
	// notifyAll is A: every class but keymiss and new.
	notifyAll = int(EvGeneric | EvString | EvList | EvSet | EvHash | EvZSet | EvExpired | EvEvicted | EvStream | EvModule)
)

// parseNotifyFlags is keyspaceEventsStringToFlags. Like the C loop, it
// stops at a NUL byte.
func ParseNotifyFlags(s string) (int, bool) {
	f := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0:
			return f, true
		case 'A':
			f |= notifyAll
		case 'g':
			f |= int(EvGeneric)
		case '$':
			f |= int(EvString)
		case 'l':
			f |= int(EvList)
		case 's':
			f |= int(EvSet)
		case 'h':
			f |= int(EvHash)
		case 'z':
			f |= int(EvZSet)
		case 'x':
			f |= int(EvExpired)
		case 'e':
			f |= int(EvEvicted)
		case 'K':
			f |= NotifyKeyspaceFlag
		case 'E':
			f |= NotifyKeyeventFlag
		case 't':
			f |= int(EvStream)
		case 'm':
			f |= int(EvKeyMiss)
		case 'd':
			f |= int(EvModule)
		case 'n':
			f |= int(EvNew)
		default:
			return 0, false
		}
	}
	return f, true
}

// formatNotifyFlags is keyspaceEventsFlagsToString: Redis's canonical
// order, A for the full set, and K, E, m last.
func FormatNotifyFlags(f int) string {
	var b []byte
	if f&notifyAll == notifyAll {
		b = append(b, 'A')
	} else {
		for _, c := range []struct {
			bit EventClass
			ch  byte
		}{{EvGeneric, 'g'}, {EvString, '$'}, {EvList, 'l'}, {EvSet, 's'}, {EvHash, 'h'}, {EvZSet, 'z'},
			{EvExpired, 'x'}, {EvEvicted, 'e'}, {EvStream, 't'}, {EvModule, 'd'}, {EvNew, 'n'}} {
			if f&int(c.bit) != 0 {
				b = append(b, c.ch)
			}
		}
	}
	if f&NotifyKeyspaceFlag != 0 {
		b = append(b, 'K')
	}
	if f&NotifyKeyeventFlag != 0 {
		b = append(b, 'E')
	}
	if f&int(EvKeyMiss) != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

// AOFConfig are the AOF settings (CONFIG GET/SET, the config file).
type AOFConfig struct {
	Enabled        atomic.Bool  // appendonly
	Fsync          atomic.Int32 // appendfsync: FsyncNo, FsyncAlways, FsyncEverysec
	DirName        atomic.Pointer[string]
	FileName       atomic.Pointer[string]
	UseRDBPreamble atomic.Bool
	LoadTruncated  atomic.Bool
	RewritePerc    atomic.Int64 // auto-aof-rewrite-percentage
	RewriteMinSize atomic.Int64 // auto-aof-rewrite-min-size
}

// appendfsync policies, as Redis's AOF_FSYNC_* values.
const (
	FsyncNo       = 0
	FsyncAlways   = 1
	FsyncEverysec = 2
)

func (c *AOFConfig) init() {
	c.Fsync.Store(FsyncEverysec)
	c.DirName.Store(Ptr("appendonlydir"))
	c.FileName.Store(Ptr("appendonly.aof"))
	c.UseRDBPreamble.Store(true)
	c.LoadTruncated.Store(true)
	c.RewritePerc.Store(100)
	c.RewriteMinSize.Store(64 << 20)
}

// SavePoint is one pair of the save setting: snapshot when at least Changes
// writes happened and more than Seconds passed since the last save.
type SavePoint struct{ Seconds, Changes int64 }

// ParseSave reads the save setting as Redis's CONFIG SET and config file do:
// pairs of seconds (>= 1) and changes (>= 0); "" means none. The error is
// Redis's text.
func ParseSave(v string) ([]SavePoint, string) {
	args := strings.Split(v, " ")
	if v == "" {
		args = nil
	}
	if len(args)%2 != 0 {
		return nil, "Invalid save parameters"
	}
	sp := make([]SavePoint, 0, len(args)/2)
	for j := 0; j < len(args); j += 2 {
		secs, ok1 := Strtoll(args[j])
		changes, ok2 := Strtoll(args[j+1])
		if !ok1 || !ok2 || secs < 1 || changes < 0 {
			return nil, "Invalid save parameters"
		}
		// Redis keeps changes in an int.
		sp = append(sp, SavePoint{Seconds: secs, Changes: int64(int32(changes))})
	}
	return sp, ""
}

// FormatSave is CONFIG GET save's form of sp.
func FormatSave(sp []SavePoint) string {
	var b []byte
	for i, p := range sp {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, p.Seconds, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, p.Changes, 10)
	}
	return string(b)
}

// SavePoints returns the save setting.
func (c *Config) SavePoints() []SavePoint { return *c.savePoints.Load() }

// SetSavePoints replaces the save setting.
func (c *Config) SetSavePoints(sp []SavePoint) { c.savePoints.Store(&sp) }

// SetDir sets dir (made absolute) and, if name is not empty, dbfilename.
func (c *Config) SetDir(dir, name string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	c.Dir.Store(&abs)
	if name != "" {
		if filepath.Base(name) != name {
			return errors.New("dbfilename can't be a path, just a filename")
		}
		c.DBFilename.Store(&name)
	}
	return nil
}

// RDBPath is where SAVE writes and the server loads from.
func (c *Config) RDBPath() string { return filepath.Join(*c.Dir.Load(), *c.DBFilename.Load()) }

// rdbLimits are the encoding thresholds the rdb package applies: the
// reader reports the encoding Redis would hold a loaded value in, and the
// writer splits list nodes as a list of this fill would.
func (c *Config) RdbLimits() rdb.Limits {
	return rdb.Limits{
		SetMaxIntsetEntries:    int(c.SetMaxIntsetEntries.Load()),
		HashMaxListpackEntries: int(c.HashMaxListpackEntries.Load()),
		HashMaxListpackValue:   int(c.HashMaxListpackValue.Load()),
		ZSetMaxListpackEntries: int(c.ZsetMaxListpackEntries.Load()),
		ZSetMaxListpackValue:   int(c.ZsetMaxListpackValue.Load()),
		ListMaxListpackSize:    int(c.ListMaxListpackSize.Load()),
		ListPackedThreshold:    int(c.ListPackedThreshold.Load()),
	}
}

// OutputLimit is one class of client-output-buffer-limit: a client whose
// pending output exceeds Hard bytes is disconnected at once, one whose
// output stays above Soft bytes for SoftSeconds is disconnected then. Zero
// disables a limit.
type OutputLimit struct {
	Hard, Soft  uint64
	SoftSeconds int64
}

// OutputLimits are the three classes Redis configures. limitkv serves only
// normal clients; the other two are kept so CONFIG GET shows what was set.
type OutputLimits struct {
	Normal, Replica, PubSub OutputLimit
}

// DefaultOutputLimits is Redis 7.0's default: normal clients unlimited.
var DefaultOutputLimits = OutputLimits{
	Replica: OutputLimit{256 << 20, 64 << 20, 60},
	PubSub:  OutputLimit{32 << 20, 8 << 20, 60},
}

// String formats the limits as CONFIG GET client-output-buffer-limit does.
func (l OutputLimits) String() string {
	var b strings.Builder
	for i, c := range []struct {
		name string
		l    OutputLimit
	}{{"normal", l.Normal}, {"slave", l.Replica}, {"pubsub", l.PubSub}} {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.name)
		for _, v := range []uint64{c.l.Hard, c.l.Soft, uint64(c.l.SoftSeconds)} {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatUint(v, 10))
		}
	}
	return b.String()
}

// Set applies "class hard soft seconds ..." (already split) to a copy of l,
// with Redis's parsing and error texts (setConfigClientOutputBufferLimitOption):
// every group is checked before any is applied; hard and soft take memory
// units, seconds is a C int.
func (l OutputLimits) Set(args []string) (OutputLimits, string) {
	if len(args)%4 != 0 {
		return l, "Wrong number of arguments in buffer limit configuration."
	}
	for j := 0; j < len(args); j += 4 {
		var dst *OutputLimit
		switch strings.ToLower(args[j]) {
		case "normal":
			dst = &l.Normal
		case "slave", "replica":
			dst = &l.Replica
		case "pubsub":
			dst = &l.PubSub
		default:
			return l, "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := Memtoull(args[j+1])
		soft, ok2 := Memtoull(args[j+2])
		secs, ok3 := strtollSat(args[j+3])
		if !ok1 || !ok2 || !ok3 || int32(secs) < 0 {
			return l, "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		*dst = OutputLimit{hard, soft, int64(int32(secs))}
	}
	return l, ""
}

// outputLimits holds each Config's output buffer limits (Config is the
// lead's struct; a field there would be the natural home).
// OutputLimits returns the client-output-buffer-limit in force. Safe without
// the lock.
func (c *Config) OutputLimits() OutputLimits {
	if p := c.outputLimits.Load(); p != nil {
		return *p
	}
	return DefaultOutputLimits
}

// SetOutputLimits replaces the client-output-buffer-limit. Safe without the
// lock.
func (c *Config) SetOutputLimits(l OutputLimits) { c.outputLimits.Store(&l) }

// enable-debug-command's values (Redis's protected_action_enum).
const (
	DebugCommandNo    int32 = iota // refused to every client (the default)
	DebugCommandYes                // allowed
	DebugCommandLocal              // allowed to loopback clients only
)

// ParseDebugCommandSetting reads enable-debug-command's value (any case).
func ParseDebugCommandSetting(v string) (int32, bool) {
	switch strings.ToLower(v) {
	case "no":
		return DebugCommandNo, true
	case "yes":
		return DebugCommandYes, true
	case "local":
		return DebugCommandLocal, true
	}
	return 0, false
}

func formatDebugCommandSetting(v int32) string {
	switch v {
	case DebugCommandYes:
		return "yes"
	case DebugCommandLocal:
		return "local"
	}
	return "no"
}

// loadYieldBytes is Redis's loading-process-events-interval-bytes default.
// (The setting is honoured, as is key-load-delay.)
const loadYieldBytes = 2 << 20

// appendRepr quotes a as Redis's sdscatrepr.
func AppendRepr(b, a []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, ch := range a {
		switch ch {
		case '\\', '"':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if ch >= ' ' && ch <= '~' {
				b = append(b, ch)
			} else {
				b = append(b, '\\', 'x', hex[ch>>4], hex[ch&15])
			}
		}
	}
	return append(b, '"')
}

var AclTable *acl.Table

// newACLRegistry is a fresh user set (the default user only).
func newACLRegistry() *acl.Registry { return acl.NewRegistry(AclTable) }

// appendConfigUser is ACLAppendUserForLoading: a "user <name> <rules>"
// line of redis.conf, checked now and applied at start. Its error names
// the word Redis names (it indexes the line with a rule's position).
func (c *Config) appendConfigUser(args []string) string {
	argv := append([]string{"user"}, args...)
	for _, u := range c.AclPending {
		if u[0] == args[0] {
			return "Error in user declaration '" + argv[1] + "': Duplicate user found. A user can only be defined once in config files"
		}
	}
	idx, msg := acl.CheckRules(AclTable, args[1:])
	if msg != "" {
		return "Error in user declaration '" + argv[min(idx, len(argv)-1)] + "': " + msg
	}
	c.AclPending = append(c.AclPending, args)
	return ""
}

// userDirective is CONFIG REWRITE's "user" lines (rewriteConfigUserOption):
// every user, unless an ACL file keeps them, which drops the file's lines.
func (c *Config) userDirective() Directive {
	d := Directive{Name: "user"}
	if *c.ACLFile.Load() != "" {
		return d
	}
	for _, u := range c.Users().Users() {
		d.Lines = append(d.Lines, "user "+u.Name+" "+u.Describe())
	}
	return d
}

// NumDBs is the number of databases SELECT can choose, as Redis's default.
const NumDBs = 16

// Version is what limitkv reports as redis_version, so clients enable the
// Redis 7.0 features it implements.
const (
	RedisVersion   = "7.0.15"
	LimitkvVersion = "0.1.0"
)

// strtollSat is C's strtoll with Redis's whole-string check: leading
// whitespace and a sign accepted, saturating at the int64 bounds, and an
// empty string reading as 0.
func strtollSat(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	var u uint64
	i := 0
	for ; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
		if u <= (math.MaxUint64-9)/10 {
			u = u*10 + uint64(t[i]-'0')
		}
	}
	if i == 0 {
		return 0, s == ""
	}
	var n int64
	switch {
	case !neg && u > math.MaxInt64:
		n = math.MaxInt64
	case neg && u > math.MaxInt64:
		n = math.MinInt64
	case neg:
		n = -int64(u)
	default:
		n = int64(u)
	}
	return n, i == len(t)
}

// DefaultSave is Redis's save setting when it runs without a config file.
const DefaultSave = "3600 1 300 100 60 10000"

// DumpOptions are what DUMP, FUNCTION DUMP and MIGRATE encode with:
// rdbcompression and the payload limits.
func (c *Config) DumpOptions() rdb.DumpOptions {
	return rdb.DumpOptions{NoCompression: !c.RDBCompression.Load(), Limits: c.RdbLimits()}
}

// StreamLimits are stream-node-max-bytes and stream-node-max-entries, read
// when an entry is added, as Redis reads its server fields then.
func (c *Config) StreamLimits() stream.Limits {
	return stream.Limits{NodeMaxBytes: c.StreamNodeMaxBytes.Load(), NodeMaxEntries: c.StreamNodeMaxEntries.Load()}
}

// ClusterEnabled is cluster-enabled: the server is a Redis Cluster node,
// with database 0 only.
func (c *Config) ClusterEnabled() bool { return c.Stored("cluster-enabled") == "yes" }
