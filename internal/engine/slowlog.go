package engine

import (
	"strconv"

	"github.com/limitkv/limitkv/internal/num"
)

// SLOWLOG GET/LEN/RESET/HELP, as Redis 7.0's slowlog.c: commands that ran
// for slowlog-log-slower-than µs or more are kept, newest first, up to
// slowlog-max-len entries, with their arguments cut down (32 at most,
// strings to 128 bytes) so a huge command cannot make the log huge.

const (
	slowlogMaxArgc   = 32
	slowlogMaxString = 128
)

type slowEntry struct {
	id, time, duration int64
	args               [][]byte
	peer, name         string
}

// slowlog is a ring of entries, newest at the end of the slice.
type slowlog struct {
	entries []slowEntry
	nextID  int64
}

var slowlogCommand = &Command{
	Name: "slowlog", Arity: -2, Group: "server",
	Sub: map[string]*Command{
		"get":   {Arity: -2, Flags: FlagAdmin | FlagLoading | FlagStale, Group: "server", Handler: cmdSlowlogGet},
		"len":   {Arity: 2, Flags: FlagAdmin | FlagLoading | FlagStale, Group: "server", Handler: cmdSlowlogLen},
		"reset": {Arity: 2, Flags: FlagAdmin | FlagLoading | FlagStale, Group: "server", Handler: cmdSlowlogReset},
		"help":  {Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdSlowlogHelp},
	},
}

// slowlogPush logs x's command if it ran for us µs or more. Called by
// afterCall with the lock held.
func (e *Engine) slowlogPush(x *Ctx, us int64) {
	limit := e.Cfg.Obs.SlowlogSlowerThan.Load()
	if limit < 0 || us < limit || x.Cmd.Flags&FlagSkipSlowlog != 0 {
		return
	}
	args := e.redacted(x)
	n := min(len(args), slowlogMaxArgc)
	ent := slowEntry{time: e.Clock.Now().Unix(), duration: us, args: make([][]byte, n), name: x.C.Name}
	for j := range n {
		a := args[j]
		switch {
		case n != len(args) && j == n-1:
			a = []byte("... (" + strconv.Itoa(len(args)-n+1) + " more arguments)")
		case len(a) > slowlogMaxString:
			a = append(append([]byte(nil), a[:slowlogMaxString]...),
				"... ("+strconv.Itoa(len(a)-slowlogMaxString)+" more bytes)"...)
		default:
			a = append([]byte(nil), a...) // the arguments' buffer is reused
		}
		ent.args[j] = a
	}
	ent.peer = x.C.Addr
	if x.C.Unix != "" {
		ent.peer = x.C.Unix + ":0"
	}
	s := &e.obs.slow
	ent.id = s.nextID
	s.nextID++
	s.entries = append(s.entries, ent)
	s.trim(e.Cfg.Obs.SlowlogMaxLen.Load())
}

func (s *slowlog) trim(max int64) {
	if over := int64(len(s.entries)) - max; over > 0 {
		s.entries = append(s.entries[:0], s.entries[over:]...)
	}
}

func cmdSlowlogGet(x *Ctx) {
	// A lowered slowlog-max-len takes effect at the next push, as in
	// Redis: until then GET still shows the older entries.
	s := &x.E.obs.slow
	count := int64(10)
	if len(x.Args) > 3 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
		return
	}
	if len(x.Args) == 3 {
		// getRangeLongFromObjectOrReply: one message for both failures.
		n, ok := num.ParseInt(x.Args[2])
		if !ok || n < -1 {
			x.W.Error("ERR count should be greater than or equal to -1")
			return
		}
		count = n
		if n == -1 {
			count = int64(len(s.entries))
		}
	}
	n := int(min(count, int64(len(s.entries))))
	x.W.Array(n)
	for i := range n {
		ent := &s.entries[len(s.entries)-1-i]
		x.W.Array(6)
		x.W.Int(ent.id)
		x.W.Int(ent.time)
		x.W.Int(ent.duration)
		x.W.Array(len(ent.args))
		for _, a := range ent.args {
			x.W.Bulk(a)
		}
		x.W.BulkString(ent.peer)
		x.W.BulkString(ent.name)
	}
}

func cmdSlowlogLen(x *Ctx) { x.W.Int(int64(len(x.E.obs.slow.entries))) }

func cmdSlowlogReset(x *Ctx) {
	x.E.obs.slow.entries = nil
	x.W.OK()
}

var slowlogHelp = []string{
	"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
	"HELP",
	"    Prints this help.",
}

func cmdSlowlogHelp(x *Ctx) { WriteHelp(x, slowlogHelp) }
