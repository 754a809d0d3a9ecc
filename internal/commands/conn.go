package commands

import (
	"strings"

	"github.com/limitkv/limitkv/internal/num"
)

// Connection commands: PING, ECHO, QUIT, SELECT, AUTH, HELLO, RESET.
var connectionCommands = []*Command{
	{Name: "ping", Arity: -1, Flags: FlagFast, Group: "connection", Handler: cmdPing},
	{Name: "echo", Arity: 2, Flags: FlagFast | FlagStale | FlagLoading, Group: "connection", Handler: cmdEcho},
	{Name: "quit", Arity: -1, Flags: FlagNoAuth | FlagNoMulti | FlagNoScript | FlagFast | FlagStale | FlagLoading | FlagAllowBusy, Group: "connection", Handler: cmdQuit},
	{Name: "select", Arity: 2, Flags: FlagFast | FlagStale | FlagLoading, Group: "connection", Handler: cmdSelect},
	{Name: "auth", Arity: -2, Flags: FlagNoAuth | FlagNoScript | FlagFast | FlagStale | FlagLoading | FlagAllowBusy, Group: "connection", Handler: cmdAuth},
	{Name: "hello", Arity: -1, Flags: FlagNoAuth | FlagNoScript | FlagFast | FlagStale | FlagLoading | FlagAllowBusy, Group: "connection", Handler: cmdHello},
	{Name: "reset", Arity: 1, Flags: FlagNoAuth | FlagNoMulti | FlagNoScript | FlagFast | FlagStale | FlagLoading | FlagAllowBusy, Group: "connection", Handler: cmdReset},
}

func cmdPing(x *Ctx) {
	if x.C.Proto != 3 && x.C.InPubSub() && len(x.Args) <= 2 {
		// A subscribed RESP2 client gets its PONG in a message's shape.
		x.W.Array(2)
		x.W.BulkString("pong")
		if len(x.Args) == 1 {
			x.W.BulkString("")
		} else {
			x.W.Bulk(x.Args[1])
		}
		return
	}
	switch len(x.Args) {
	case 1:
		x.W.Simple("PONG")
	case 2:
		x.W.Bulk(x.Args[1])
	default:
		x.W.Error(errWrongArgs("ping"))
	}
}

func cmdEcho(x *Ctx) { x.W.Bulk(x.Args[1]) }

func cmdQuit(x *Ctx) {
	x.W.OK()
	x.C.CloseAfterReply = true
}

func cmdSelect(x *Ctx) {
	n, ok := num.ParseInt(x.Args[1])
	if !ok {
		x.W.Error(ErrNotInt)
		return
	}
	if n < 0 || n >= NumDBs {
		x.W.Error(ErrDBIndex)
		return
	}
	x.C.DB = int(n)
	x.W.OK()
}

func cmdAuth(x *Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(ErrSyntax)
		return
	}
	user, pass := []byte("default"), x.Args[1]
	if len(x.Args) == 3 {
		user, pass = x.Args[1], x.Args[2]
	} else if x.E.users().Default.NoPass() {
		x.W.Error(ErrNoPasswordSet)
		return
	}
	if !x.E.authenticate(x, user, pass) {
		x.W.Error(ErrWrongPass)
		return
	}
	x.W.OK()
}

// cmdHello answers protocol 2 as Redis does. RESP3 is refused with NOPROTO.
func cmdHello(x *Ctx) {
	args := x.Args
	ver := int64(0)
	if len(args) >= 2 {
		var ok bool
		if ver, ok = num.ParseInt(args[1]); !ok {
			x.W.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if ver < 2 || ver > 3 {
			x.W.Error(ErrNoProto)
			return
		}
	}
	// Options in Redis's order: AUTH authenticates on the spot, even if a
	// later option is wrong.
	var name []byte
	for i := 2; i < len(args); i++ {
		more := len(args) - i - 1
		switch opt := strings.ToLower(string(args[i])); {
		case opt == "auth" && more >= 2:
			if !x.E.authenticate(x, args[i+1], args[i+2]) {
				x.W.Error(ErrWrongPass)
				return
			}
			i += 2
		case opt == "setname" && more >= 1:
			if name = args[i+1]; !validClientName(name) {
				x.W.Error(ErrClientName)
				return
			}
			i++
		default:
			x.W.Error("ERR Syntax error in HELLO option '" + string(args[i]) + "'")
			return
		}
	}
	if !x.C.Authed.Load() && x.E.Cfg.AuthRequired() {
		x.W.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if name != nil {
		x.C.Name = string(name)
	}
	if ver != 0 {
		// The reply itself is in the new protocol, as in Redis.
		x.C.Proto = int(ver)
		x.W.SetRESP3(ver == 3)
	}
	x.W.Map(7)
	x.W.BulkString("server")
	x.W.BulkString("redis")
	x.W.BulkString("version")
	x.W.BulkString(RedisVersion)
	x.W.BulkString("proto")
	x.W.Int(int64(x.C.Resp()))
	x.W.BulkString("id")
	x.W.Int(x.C.ID)
	x.W.BulkString("mode")
	x.W.BulkString("standalone")
	x.W.BulkString("role")
	x.W.BulkString("master")
	x.W.BulkString("modules")
	x.W.Array(0)
}

func cmdReset(x *Ctx) {
	c := x.C
	c.Multi = nil
	x.E.unwatchAll(c)
	x.E.dropSubscriptions(c)
	x.E.stopMonitor(c)
	// Not SKIP: a skipped RESET's own reply stays skipped. NO-EVICT stays.
	c.cs.reply &^= replyOff | replySkipNext
	x.E.disableTracking(c)
	c.DB = 0
	c.Name = ""
	x.E.setDefaultAuth(c)
	c.Proto = 2
	x.W.SetRESP3(false)
	x.W.Simple("RESET")
}
