package admin

import (
	"sort"
	"strings"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/num"
)

// CLIENT: the connection subcommands. REPLY, NO-EVICT and UNBLOCK are in
// client_reply.go, PAUSE and UNPAUSE in client_pause.go, TRACKING, CACHING,
// GETREDIR and TRACKINGINFO in tracking.go.
var ClientCommand = &engine.Command{
	Name: "client", Arity: -2, Group: "connection",
	Sub: map[string]*engine.Command{
		"id":      {Arity: 2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientID},
		"getname": {Arity: 2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientGetName},
		"setname": {Arity: 3, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientSetName},
		// SETINFO is Redis 7.2's: 7.0 does not have it, but go-redis v9 and
		// other current clients send it on every new connection (and ignore
		// an error), so limitkv answers as 7.2 does. Its COMMAND INFO/DOCS
		// entries are built from these fields.
		"setinfo": {Arity: 4, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection",
			Summary: "Sets information specific to the client or connection.", Since: "7.2.0", Complexity: "O(1)", Handler: cmdClientSetInfo},
		"list":     {Arity: -2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientList},
		"info":     {Arity: 2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientInfo},
		"kill":     {Arity: -3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientKill},
		"help":     {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientHelp},
		"reply":    {Arity: 3, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: engine.CmdClientReply},
		"no-evict": {Arity: 3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: engine.CmdClientNoEvict},
		"unblock":  {Arity: -3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: engine.CmdClientUnblock},
		"pause":    {Arity: -3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientPause},
		"unpause":  {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: cmdClientUnpause},
		// Client-side caching (tracking.go).
		"tracking":     {Arity: -3, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: engine.CmdClientTracking},
		"caching":      {Arity: 3, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: engine.CmdClientCaching},
		"getredir":     {Arity: 2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: engine.CmdClientGetRedir},
		"trackinginfo": {Arity: 2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "connection", Handler: engine.CmdClientTrackingInfo},
	},
}

func cmdClientID(x *engine.Ctx) { x.W.Int(x.C.ID) }

func cmdClientGetName(x *engine.Ctx) {
	if x.C.Name == "" {
		x.W.Null()
		return
	}
	x.W.BulkString(x.C.Name)
}

func cmdClientSetName(x *engine.Ctx) {
	name := x.Args[2]
	if len(name) > 0 && !engine.ValidClientName(name) {
		x.W.Error(engine.ErrClientName)
		return
	}
	x.C.Name = string(name)
	x.W.OK()
}

// cmdClientSetInfo is Redis 7.2's CLIENT SETINFO LIB-NAME|LIB-VER value.
func cmdClientSetInfo(x *engine.Ctx) {
	attr := x.Arg(2)
	var dst *string
	switch strings.ToLower(attr) {
	case "lib-name":
		dst = &x.C.LibName
	case "lib-ver":
		dst = &x.C.LibVer
	default:
		x.W.Error("ERR Unrecognized option '" + attr + "'")
		return
	}
	// 7.2 checks the value as a C string: the check stops at a NUL byte.
	val := x.Args[3]
	check := val
	if i := strings.IndexByte(string(val), 0); i >= 0 {
		check = val[:i]
	}
	if !engine.ValidClientName(check) {
		x.W.Error("ERR " + attr + " cannot contain spaces, newlines or special characters.")
		return
	}
	*dst = string(val)
	x.W.OK()
}

func cmdClientList(x *engine.Ctx) {
	args := x.Args
	var out []byte
	switch {
	case len(args) == 4 && strings.EqualFold(x.Arg(2), "type"):
		typ, ok := engine.ClientTypeByName(x.Arg(3))
		if !ok {
			x.W.Error("ERR Unknown client type '" + x.Arg(3) + "'")
			return
		}
		for _, c := range sortedClients(x.E) {
			if engine.ClientType(c) == typ {
				out = x.AppendClientInfo(out, c)
				out = append(out, '\n')
			}
		}
	case len(args) > 3 && strings.EqualFold(x.Arg(2), "id"):
		// Every ID is parsed before any is listed: an error answers alone.
		ids := make([]int64, 0, len(args)-3)
		for _, a := range args[3:] {
			id, ok := num.ParseInt(a)
			if !ok {
				x.W.Error(ErrInvalidClientID)
				return
			}
			ids = append(ids, id)
		}
		for _, id := range ids {
			if c := x.E.Clients[id]; c != nil {
				out = x.AppendClientInfo(out, c)
				out = append(out, '\n')
			}
		}
	case len(args) != 2:
		x.W.Error(engine.ErrSyntax)
		return
	default:
		for _, c := range sortedClients(x.E) {
			out = x.AppendClientInfo(out, c)
			out = append(out, '\n')
		}
	}
	if out == nil {
		out = []byte{}
	}
	x.W.Verbatim("txt", string(out))
}

func cmdClientInfo(x *engine.Ctx) {
	out := x.AppendClientInfo(nil, x.C)
	x.W.Verbatim("txt", string(append(out, '\n')))
}

// sortedClients lists clients in connection order, as Redis's client list.
func sortedClients(e *engine.Engine) []*engine.Client {
	out := make([]*engine.Client, 0, len(e.Clients))
	for _, c := range e.Clients {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// cmdClientKill is CLIENT KILL addr (the old form, which may kill the caller)
// and CLIENT KILL <filter> <value> ... (which skips the caller unless SKIPME no).
func cmdClientKill(x *engine.Ctx) {
	args := x.Args
	var (
		addr, laddr       string
		haveAddr, haveLad bool
		user              *acl.User
		typ               = -1
		id                int64
		skipme            = true
	)
	oldForm := len(args) == 3
	if oldForm {
		addr, haveAddr = x.Arg(2), true
		skipme = false
	} else {
		for i := 2; i < len(args); i += 2 {
			more := i+1 < len(args)
			opt := strings.ToLower(x.Arg(i))
			if !more {
				x.W.Error(engine.ErrSyntax)
				return
			}
			val := x.Arg(i + 1)
			switch opt {
			case "id":
				n, ok := num.ParseInt(args[i+1])
				if !ok || n < 1 {
					x.W.Error(ErrClientIDRange)
					return
				}
				id = n
			case "type":
				t, ok := engine.ClientTypeByName(val)
				if !ok {
					x.W.Error("ERR Unknown client type '" + val + "'")
					return
				}
				typ = t
			case "addr":
				addr, haveAddr = val, true
			case "laddr":
				laddr, haveLad = val, true
			case "user":
				if user = x.E.Users().User(val); user == nil {
					x.W.Error("ERR No such user '" + val + "'")
					return
				}
			case "skipme":
				switch strings.ToLower(val) {
				case "yes":
					skipme = true
				case "no":
					skipme = false
				default:
					x.W.Error(engine.ErrSyntax)
					return
				}
			default:
				x.W.Error(engine.ErrSyntax)
				return
			}
		}
	}
	killed := 0
	self := false
	for _, c := range sortedClients(x.E) {
		if haveAddr && c.Addr != addr ||
			haveLad && c.LAddr != laddr ||
			typ != -1 && typ != engine.ClientType(c) ||
			id != 0 && c.ID != id ||
			user != nil && c.User != user ||
			c == x.C && skipme {
			continue
		}
		if c == x.C {
			self = true
		} else {
			// Redis frees another client on the spot: a second KILL or
			// a CLIENT LIST must not see it while its connection is
			// still closing (a turn of its goroutine on that front).
			x.E.KillClient(c)
			x.E.DetachClient(c)
		}
		killed++
	}
	if oldForm {
		if killed == 0 {
			x.W.Error(ErrNoSuchClient)
		} else {
			x.W.OK()
		}
	} else {
		x.W.Int(int64(killed))
	}
	// Flagged only after the reply is queued, so the caller still gets it.
	if self {
		x.C.CloseAfterReply = true
	}
}

var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
	"HELP",
	"    Prints this help.",
}

func cmdClientHelp(x *engine.Ctx) { engine.WriteHelp(x, clientHelp) }
