package admin

import (
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/num"
)

// SLOWLOG GET/LEN/RESET/HELP, as Redis 7.0's slowlog.c: commands that ran
// for slowlog-log-slower-than µs or more are kept, newest first, up to
// slowlog-max-len entries, with their arguments cut down (32 at most,
// strings to 128 bytes) so a huge command cannot make the log huge.

var slowlogCommand = &engine.Command{
	Name: "slowlog", Arity: -2, Group: "server",
	Sub: map[string]*engine.Command{
		"get":   {Arity: -2, Flags: engine.FlagAdmin | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdSlowlogGet},
		"len":   {Arity: 2, Flags: engine.FlagAdmin | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdSlowlogLen},
		"reset": {Arity: 2, Flags: engine.FlagAdmin | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdSlowlogReset},
		"help":  {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdSlowlogHelp},
	},
}

func cmdSlowlogGet(x *engine.Ctx) {
	// A lowered slowlog-max-len takes effect at the next push, as in
	// Redis: until then GET still shows the older entries.
	s := &x.E.Obs.Slow
	count := int64(10)
	if len(x.Args) > 3 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
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
			count = int64(len(s.Entries))
		}
	}
	n := int(min(count, int64(len(s.Entries))))
	x.W.Array(n)
	for i := range n {
		ent := &s.Entries[len(s.Entries)-1-i]
		x.W.Array(6)
		x.W.Int(ent.Id)
		x.W.Int(ent.Time)
		x.W.Int(ent.Duration)
		x.W.Array(len(ent.Args))
		for _, a := range ent.Args {
			x.W.Bulk(a)
		}
		x.W.BulkString(ent.Peer)
		x.W.BulkString(ent.Name)
	}
}

func cmdSlowlogLen(x *engine.Ctx) { x.W.Int(int64(len(x.E.Obs.Slow.Entries))) }

func cmdSlowlogReset(x *engine.Ctx) {
	x.E.Obs.Slow.Entries = nil
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

func cmdSlowlogHelp(x *engine.Ctx) { engine.WriteHelp(x, slowlogHelp) }
