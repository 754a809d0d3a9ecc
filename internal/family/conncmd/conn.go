package conncmd

import (
	"strings"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/num"
)

// Connection commands: PING, ECHO, QUIT, SELECT, AUTH, HELLO, RESET.
var ConnectionCommands = []*engine.Command{
	{Name: "ping", Arity: -1, Flags: engine.FlagFast, Group: "connection", Handler: cmdPing},
	{Name: "echo", Arity: 2, Flags: engine.FlagFast | engine.FlagStale | engine.FlagLoading, Group: "connection", Handler: cmdEcho},
	{Name: "quit", Arity: -1, Flags: engine.FlagNoAuth | engine.FlagNoMulti | engine.FlagNoScript | engine.FlagFast | engine.FlagStale | engine.FlagLoading | engine.FlagAllowBusy, Group: "connection", Handler: cmdQuit},
	{Name: "select", Arity: 2, Flags: engine.FlagFast | engine.FlagStale | engine.FlagLoading, Group: "connection", Handler: cmdSelect},
	{Name: "auth", Arity: -2, Flags: engine.FlagNoAuth | engine.FlagNoScript | engine.FlagFast | engine.FlagStale | engine.FlagLoading | engine.FlagAllowBusy, Group: "connection", Handler: cmdAuth},
	{Name: "hello", Arity: -1, Flags: engine.FlagNoAuth | engine.FlagNoScript | engine.FlagFast | engine.FlagStale | engine.FlagLoading | engine.FlagAllowBusy, Group: "connection", Handler: cmdHello},
	{Name: "reset", Arity: 1, Flags: engine.FlagNoAuth | engine.FlagNoMulti | engine.FlagNoScript | engine.FlagFast | engine.FlagStale | engine.FlagLoading | engine.FlagAllowBusy, Group: "connection", Handler: cmdReset},
}

func cmdPing(x *engine.Ctx) {
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
		x.W.Error(engine.ErrWrongArgs("ping"))
	}
}

func cmdEcho(x *engine.Ctx) { x.W.Bulk(x.Args[1]) }

func cmdQuit(x *engine.Ctx) {
	x.W.OK()
	x.C.CloseAfterReply = true
}

func cmdSelect(x *engine.Ctx) {
	n, ok := num.ParseInt(x.Args[1])
	if !ok {
		x.W.Error(engine.ErrNotInt)
		return
	}
	if n != 0 && x.E.Cfg.ClusterEnabled() {
		x.W.Error(errClusterSelect)
		return
	}
	if n < 0 || n >= config.NumDBs {
		x.W.Error(engine.ErrDBIndex)
		return
	}
	x.C.DB = int(n)
	x.W.OK()
}

func cmdAuth(x *engine.Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	user, pass := []byte("default"), x.Args[1]
	if len(x.Args) == 3 {
		user, pass = x.Args[1], x.Args[2]
	} else if x.E.Users().Default.NoPass() {
		x.W.Error(engine.ErrNoPasswordSet)
		return
	}
	if !x.E.Authenticate(x, user, pass) {
		x.W.Error(errWrongPass)
		return
	}
	x.W.OK()
}

// cmdHello answers protocol 2 as Redis does. RESP3 is refused with NOPROTO.
func cmdHello(x *engine.Ctx) {
	args := x.Args
	ver := int64(0)
	if len(args) >= 2 {
		var ok bool
		if ver, ok = num.ParseInt(args[1]); !ok {
			x.W.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if ver < 2 || ver > 3 {
			x.W.Error(engine.ErrNoProto)
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
			if !x.E.Authenticate(x, args[i+1], args[i+2]) {
				x.W.Error(errWrongPass)
				return
			}
			i += 2
		case opt == "setname" && more >= 1:
			if name = args[i+1]; !engine.ValidClientName(name) {
				x.W.Error(engine.ErrClientName)
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
	x.W.BulkString(config.RedisVersion)
	x.W.BulkString("proto")
	x.W.Int(int64(x.C.Resp()))
	x.W.BulkString("id")
	x.W.Int(x.C.ID)
	x.W.BulkString("mode")
	if x.E.Cfg.ClusterEnabled() {
		x.W.BulkString("cluster") // HELLO's mode
	} else {
		x.W.BulkString("standalone")
	}
	x.W.BulkString("role")
	x.W.BulkString("master")
	x.W.BulkString("modules")
	x.W.Array(0)
}

func cmdReset(x *engine.Ctx) {
	c := x.C
	c.Multi = nil
	x.E.UnwatchAll(c)
	x.E.DropSubscriptions(c)
	x.E.StopMonitor(c)
	// Not SKIP: a skipped RESET's own reply stays skipped. NO-EVICT stays.
	c.Cs.Reply &^= engine.ReplyOff | engine.ReplySkipNext
	x.E.DisableTracking(c)
	c.DB = 0
	c.Name = ""
	c.Asking, c.ReadOnly = false, false // clearClientConnectionState
	x.E.SetDefaultAuth(c)
	c.Proto = 2
	x.W.SetRESP3(false)
	x.W.Simple("RESET")
}

// A cluster node has database 0 only.
const errClusterSelect = "ERR SELECT is not allowed in cluster mode"
