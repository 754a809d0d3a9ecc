package engine

import (
	"sort"
	"strings"

	"github.com/limitkv/limitkv/internal/num"
)

// Flags describe a command the way Redis's command table does.
type Flags uint32

const (
	FlagWrite    Flags = 1 << iota // may modify the keyspace
	FlagReadOnly                   // only reads data
	FlagFast                       // O(1) or O(log n)
	FlagAdmin                      // server administration
	FlagNoAuth                     // allowed before AUTH
	FlagNoScript                   // refused inside EVAL
	FlagDenyOOM                    // may grow memory: refused at maxmemory with noeviction
	FlagBlocking                   // may block the client
	FlagNoMulti                    // runs immediately even inside MULTI (EXEC, DISCARD, MULTI, WATCH, QUIT, RESET)
	FlagPubSub
	FlagLoading
	FlagStale
	FlagSkipMonitor
	FlagSkipSlowlog
	FlagAllowBusy // allowed while a script runs too long
	// FlagMayReplicate is Redis's may_replicate: a read command that can
	// still change data (PFCOUNT stores its cached cardinality), refused in
	// read-only scripts like a write. COMMAND INFO does not list it.
	FlagMayReplicate
)

// FlagName is a flag and its COMMAND INFO name.
type FlagName struct {
	Flag Flags
	Name string
}

// FlagNames pairs each flag with its COMMAND INFO name, in Redis's order.
var FlagNames = []FlagName{
	{FlagWrite, "write"}, {FlagReadOnly, "readonly"}, {FlagDenyOOM, "denyoom"}, {FlagAdmin, "admin"},
	{FlagPubSub, "pubsub"}, {FlagNoScript, "noscript"}, {FlagBlocking, "blocking"}, {FlagLoading, "loading"},
	{FlagStale, "stale"}, {FlagSkipMonitor, "skip_monitor"}, {FlagSkipSlowlog, "skip_slowlog"},
	{FlagFast, "fast"}, {FlagNoAuth, "no_auth"}, {FlagAllowBusy, "allow_busy"},
}

// Names lists the flag names in Redis's COMMAND INFO order.
func (f Flags) Names() []string {
	var out []string
	for _, n := range FlagNames {
		if f&n.Flag != 0 {
			out = append(out, n.Name)
		}
	}
	return out
}

// Command is one entry of the command table.
type Command struct {
	Name  string // lower case; subcommands are "container|sub"
	Arity int    // Redis's convention: N exact, -N at least N (the name counts)
	Flags Flags
	// Key positions for COMMAND INFO and key extraction: FirstKey 0 means none,
	// LastKey -1 means the last argument.
	FirstKey, LastKey, Step int
	Group                   string // COMMAND DOCS group: "string", "generic", "sorted-set", ...
	Summary                 string // COMMAND DOCS summary
	Since                   string
	Complexity              string
	Handler                 func(x *Ctx)
	Sub                     map[string]*Command // container commands (CLIENT, CONFIG, ...)
	// ScriptTwins runs natively the scripts internal/lua recognises
	// (lua.Script.Twin names them): the family that has the algorithm
	// registers its native twin under that name.
	ScriptTwins map[string]ScriptTwin
	// Args documents the arguments in COMMAND DOCS for a command Redis does
	// not have, so redis-cli shows a syntax hint.
	Args []DocArg

	// For commands whose keys follow a count (EVAL, ZMPOP, ZUNION...),
	// taken from Redis's key specs when the table is built: the positions
	// of the count and of the first key. 0: not such a command.
	numKeysAt, numFirstAt int

	Acl    *aclInfo // the permission check's view of the command (acl.go)
	statID int      // index of its statistics (cmdstats.go)
}

// firstKey is the command's first key in args, for Engine.Prefetch: it
// must be cheap, so it reads the positions the table holds rather than the
// key specs COMMAND GETKEYS walks.
func (c *Command) PrefetchKey(args [][]byte) ([]byte, bool) {
	switch {
	case c.FirstKey > 0 && c.FirstKey < len(args):
		return args[c.FirstKey], true
	case c.numKeysAt > 0 && c.numFirstAt < len(args):
		if n, ok := num.ParseInt(args[c.numKeysAt]); ok && n > 0 {
			return args[c.numFirstAt], true
		}
	}
	return nil, false
}

var Table map[string]*Command

// Install builds the command table: the engine's own commands and those of
// the families given. The assembly (internal/commands) calls it once, at
// init, before any engine exists; the table is read-only afterwards.
func Install(families ...[]*Command) {
	Table = make(map[string]*Command)
	own := [][]*Command{
		transactionCommands,
		pubsubCommands, {monitorCommand},
	}
	for _, family := range append(own, families...) {
		for _, c := range family {
			Register(c)
		}
	}
	buildACLTable()
}

// ScriptTwin runs a recognised script natively for EVAL/EVALSHA with its
// KEYS and ARGV, answering exactly as the interpreter would; it reports
// false, having done nothing, when the inputs need the interpreter.
type ScriptTwin func(x *Ctx, keys, argv [][]byte) bool

// scriptTwins is every command's ScriptTwins by twin name.
var scriptTwins = map[string]ScriptTwin{}

// RunTwin runs the native twin of a recognised script; false: none is
// registered or it declined.
func (x *Ctx) RunTwin(twin string, keys, argv [][]byte) bool {
	fn := scriptTwins[twin]
	return fn != nil && fn(x, keys, argv)
}

func Register(c *Command) {
	if _, dup := Table[c.Name]; dup {
		panic("duplicate command " + c.Name)
	}
	for name, fn := range c.ScriptTwins {
		if _, dup := scriptTwins[name]; dup {
			panic("duplicate script twin " + name)
		}
		scriptTwins[name] = fn
	}
	Table[c.Name] = c
	for name, sub := range c.Sub {
		sub.Name = c.Name + "|" + name
	}
	assignStatIDs(c)
	if c.FirstKey == 0 {
		specs, _ := CommandKeySpecs(c)
		if len(specs) > 0 {
			if ks := specs[0]; !ks.Unknown && !ks.FkRange && ks.BsKeyword == "" {
				c.numKeysAt, c.numFirstAt = ks.BsIndex+ks.KeyNumIdx, ks.BsIndex+ks.FirstKey
			}
		}
	}
}

// Lookup finds a command by name, any case, without allocating.
func Lookup(name []byte) *Command {
	var buf [32]byte
	if len(name) > len(buf) {
		return Table[strings.ToLower(string(name))]
	}
	for i, ch := range name {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		buf[i] = ch
	}
	return Table[string(buf[:len(name)])]
}

func LookupSub(c *Command, name []byte) *Command {
	var buf [32]byte
	if len(name) > len(buf) {
		return c.Sub[strings.ToLower(string(name))]
	}
	for i, ch := range name {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		buf[i] = ch
	}
	return c.Sub[string(buf[:len(name)])]
}

// All returns every top-level command sorted by name.
func All() []*Command {
	out := make([]*Command, 0, len(Table))
	for _, c := range Table {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func ArityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}
