package commands

import (
	"sort"
	"strings"
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
)

var flagNames = []struct {
	f    Flags
	name string
}{
	{FlagWrite, "write"}, {FlagReadOnly, "readonly"}, {FlagDenyOOM, "denyoom"}, {FlagAdmin, "admin"},
	{FlagPubSub, "pubsub"}, {FlagNoScript, "noscript"}, {FlagBlocking, "blocking"}, {FlagLoading, "loading"},
	{FlagStale, "stale"}, {FlagSkipMonitor, "skip_monitor"}, {FlagSkipSlowlog, "skip_slowlog"},
	{FlagFast, "fast"}, {FlagNoAuth, "no_auth"}, {FlagAllowBusy, "allow_busy"},
}

// Names lists the flag names in Redis's COMMAND INFO order.
func (f Flags) Names() []string {
	var out []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			out = append(out, n.name)
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
}

var table map[string]*Command

func init() {
	table = make(map[string]*Command)
	for _, family := range [][]*Command{
		connectionCommands, serverCommands, keyCommands, expireCommands, stringCommands,
		zsetCommands, rateLimitCommands, scriptingCommands, transactionCommands,
	} {
		for _, c := range family {
			register(c)
		}
	}
}

func register(c *Command) {
	if _, dup := table[c.Name]; dup {
		panic("duplicate command " + c.Name)
	}
	table[c.Name] = c
	for name, sub := range c.Sub {
		sub.Name = c.Name + "|" + name
	}
}

// Lookup finds a command by name, any case, without allocating.
func Lookup(name []byte) *Command {
	var buf [32]byte
	if len(name) > len(buf) {
		return table[strings.ToLower(string(name))]
	}
	for i, ch := range name {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		buf[i] = ch
	}
	return table[string(buf[:len(name)])]
}

func lookupSub(c *Command, name []byte) *Command {
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
	out := make([]*Command, 0, len(table))
	for _, c := range table {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func arityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}
