package engine

import (
	"sort"
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/resp"
)

// CLIENT: the connection subcommands. REPLY, NO-EVICT and UNBLOCK are in
// client_reply.go, PAUSE and UNPAUSE in client_pause.go, TRACKING, CACHING,
// GETREDIR and TRACKINGINFO in tracking.go.
var ClientCommand = &Command{
	Name: "client", Arity: -2, Group: "connection",
	Sub: map[string]*Command{
		"id":      {Arity: 2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientID},
		"getname": {Arity: 2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientGetName},
		"setname": {Arity: 3, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientSetName},
		// SETINFO is Redis 7.2's: 7.0 does not have it, but go-redis v9 and
		// other current clients send it on every new connection (and ignore
		// an error), so limitkv answers as 7.2 does. Its COMMAND INFO/DOCS
		// entries are built from these fields.
		"setinfo": {Arity: 4, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection",
			Summary: "Sets information specific to the client or connection.", Since: "7.2.0", Complexity: "O(1)", Handler: cmdClientSetInfo},
		"list":     {Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientList},
		"info":     {Arity: 2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientInfo},
		"kill":     {Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientKill},
		"help":     {Arity: 2, Flags: FlagLoading | FlagStale, Group: "connection", Handler: cmdClientHelp},
		"reply":    {Arity: 3, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientReply},
		"no-evict": {Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientNoEvict},
		"unblock":  {Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientUnblock},
		"pause":    {Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientPause},
		"unpause":  {Arity: 2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientUnpause},
		// Client-side caching (tracking.go).
		"tracking":     {Arity: -3, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientTracking},
		"caching":      {Arity: 3, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientCaching},
		"getredir":     {Arity: 2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientGetRedir},
		"trackinginfo": {Arity: 2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "connection", Handler: cmdClientTrackingInfo},
	},
}

func cmdClientID(x *Ctx) { x.W.Int(x.C.ID) }

func cmdClientGetName(x *Ctx) {
	if x.C.Name == "" {
		x.W.Null()
		return
	}
	x.W.BulkString(x.C.Name)
}

func cmdClientSetName(x *Ctx) {
	name := x.Args[2]
	if len(name) > 0 && !ValidClientName(name) {
		x.W.Error(ErrClientName)
		return
	}
	x.C.Name = string(name)
	x.W.OK()
}

// cmdClientSetInfo is Redis 7.2's CLIENT SETINFO LIB-NAME|LIB-VER value.
func cmdClientSetInfo(x *Ctx) {
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
	if !ValidClientName(check) {
		x.W.Error("ERR " + attr + " cannot contain spaces, newlines or special characters.")
		return
	}
	*dst = string(val)
	x.W.OK()
}

// Client types CLIENT LIST TYPE and CLIENT KILL TYPE accept, as Redis's
// getClientType: limitkv has no replication, so no client is a master or
// a replica (monitors count as normal clients, as in Redis).
const (
	clientTypeNormal = iota
	clientTypeSlave
	clientTypePubSub
	clientTypeMaster
)

func clientTypeByName(name string) (int, bool) {
	switch strings.ToLower(name) {
	case "normal":
		return clientTypeNormal, true
	case "slave", "replica":
		return clientTypeSlave, true
	case "pubsub":
		return clientTypePubSub, true
	case "master":
		return clientTypeMaster, true
	}
	return 0, false
}

func clientType(c *Client) int {
	if c.repl != nil {
		return clientTypeSlave
	}
	if c.IsMaster {
		return clientTypeMaster
	}
	if c.InPubSub() {
		return clientTypePubSub
	}
	return clientTypeNormal
}

func cmdClientList(x *Ctx) {
	args := x.Args
	var out []byte
	switch {
	case len(args) == 4 && strings.EqualFold(x.Arg(2), "type"):
		typ, ok := clientTypeByName(x.Arg(3))
		if !ok {
			x.W.Error("ERR Unknown client type '" + x.Arg(3) + "'")
			return
		}
		for _, c := range x.E.sortedClients() {
			if clientType(c) == typ {
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
			if c := x.E.clients[id]; c != nil {
				out = x.AppendClientInfo(out, c)
				out = append(out, '\n')
			}
		}
	case len(args) != 2:
		x.W.Error(ErrSyntax)
		return
	default:
		for _, c := range x.E.sortedClients() {
			out = x.AppendClientInfo(out, c)
			out = append(out, '\n')
		}
	}
	if out == nil {
		out = []byte{}
	}
	x.W.Verbatim("txt", string(out))
}

func cmdClientInfo(x *Ctx) {
	out := x.AppendClientInfo(nil, x.C)
	x.W.Verbatim("txt", string(append(out, '\n')))
}

// sortedClients lists clients in connection order, as Redis's client list.
func (e *Engine) sortedClients() []*Client {
	out := make([]*Client, 0, len(e.clients))
	for _, c := range e.clients {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Buffer sizes CLIENT LIST reports: limitkv's connection read buffer and
// a rough per-client overhead, so the fields look as Redis's do.
const (
	clientReadBuf  = 16 << 10
	clientBaseMem  = 20 << 10
	clientQueryBuf = 20474
)

// appendClientInfo writes c's CLIENT LIST line (without the newline) in Redis
// 7.0's field order. Fields limitkv has no counterpart for (fd, the buffer
// sizes) get plausible values; the calling client's query buffer holds the
// current command, as in Redis.
func (x *Ctx) AppendClientInfo(b []byte, c *Client) []byte {
	now := x.E.Clock.Now()
	var qbuf, argvMem int
	if c == x.C {
		// The command read from the connection: inside EXEC or a script,
		// EXEC or EVAL, not the command they run.
		args := x.Args
		if c.ctx.Args != nil {
			args = c.ctx.Args
		}
		qbuf, argvMem = respLen(args)
	}
	multi := -1
	multiMem := 0
	if c.Multi != nil {
		multi = len(c.Multi.cmds)
		// Redis's argv_len_sums: the arguments and a pointer for each.
		for _, q := range c.Multi.cmds {
			for _, a := range q.args {
				multiMem += len(a) + 8
			}
		}
	}
	flags := make([]byte, 0, 4)
	if c.Cs.Monitor {
		flags = append(flags, 'O')
	}
	if c.repl != nil {
		flags = append(flags, 'S')
	}
	if c.IsMaster {
		flags = append(flags, 'M')
	}
	if c.InPubSub() {
		flags = append(flags, 'P')
	}
	if c.Multi != nil {
		flags = append(flags, 'x')
	}
	if c.Blocked != nil {
		flags = append(flags, 'b')
	}
	flags = c.trackingFlags(flags)
	if x.E.watchDirty(c) {
		flags = append(flags, 'd')
	}
	if c.CloseAfterReply {
		flags = append(flags, 'c')
	}
	if c.Killed {
		flags = append(flags, 'A')
	}
	if c.Unix != "" {
		flags = append(flags, 'U')
	}
	if c.Cs.noEvict {
		flags = append(flags, 'e')
	}
	if len(flags) == 0 {
		flags = append(flags, 'N')
	}
	cmd := c.LastCmd
	if cmd == "" {
		cmd = "NULL"
	}
	kv := func(k string, v string) {
		if k != "id" {
			b = append(b, ' ')
		}
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
	}
	ki := func(k string, v int64) { kv(k, strconv.FormatInt(v, 10)) }
	ki("id", c.ID)
	kv("addr", c.Addr)
	kv("laddr", c.LAddr)
	ki("fd", c.ID+7)
	kv("name", c.Name)
	ki("age", int64(now.Sub(c.Created).Seconds()))
	ki("idle", max(int64(now.Sub(c.LastActive).Seconds()), 0))
	kv("flags", string(flags))
	ki("db", int64(c.DB))
	sub, psub, ssub := c.SubCounts()
	ki("sub", int64(sub))
	ki("psub", int64(psub))
	ki("ssub", int64(ssub))
	ki("multi", int64(multi))
	ki("qbuf", int64(qbuf))
	ki("qbuf-free", int64(max(clientQueryBuf-qbuf, 0)))
	ki("argv-mem", int64(argvMem))
	ki("multi-mem", int64(multiMem))
	ki("rbs", clientReadBuf)
	ki("rbp", int64(qbuf))
	obl, oll, omem := outputShape(c, x.W)
	ki("obl", obl)
	ki("oll", oll)
	ki("omem", omem)
	ki("tot-mem", int64(clientBaseMem+clientReadBuf+qbuf+argvMem+multiMem)+omem)
	kv("events", "r")
	kv("cmd", cmd)
	kv("user", c.userName())
	ki("redir", c.trackingRedir())
	ki("resp", int64(c.Resp()))
	return b
}

// outputShape approximates Redis's obl, oll and omem for c's pending
// output: the first 16 KB sit in the client's static buffer, the rest in
// a list of 16 KB blocks (each with a 32-byte header and list node). For
// the client asking, output of earlier commands of its batch counts, as
// in Redis; for one on the event loop, bytes already written of a
// partially written buffer are counted too.
func outputShape(c *Client, own *resp.Writer) (obl, oll, omem int64) {
	w := c.Out
	if w == nil {
		return 0, 0, 0
	}
	n := int64(w.Len())
	if w == own {
		n = int64(own.Len())
	}
	obl = min(n, replyBufSize)
	rest := n - obl
	if rest > 0 {
		oll = (rest + replyBufSize - 1) / replyBufSize
		omem = rest + oll*32
	}
	return obl, oll, omem
}

// respLen is the size of args as a RESP multibulk, and of the arguments alone.
func respLen(args [][]byte) (wire, argv int) {
	wire = 1 + len(strconv.Itoa(len(args))) + 2
	for _, a := range args {
		wire += 1 + len(strconv.Itoa(len(a))) + 2 + len(a) + 2
		argv += len(a)
	}
	return wire, argv
}

// cmdClientKill is CLIENT KILL addr (the old form, which may kill the caller)
// and CLIENT KILL <filter> <value> ... (which skips the caller unless SKIPME no).
func cmdClientKill(x *Ctx) {
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
				x.W.Error(ErrSyntax)
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
				t, ok := clientTypeByName(val)
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
					x.W.Error(ErrSyntax)
					return
				}
			default:
				x.W.Error(ErrSyntax)
				return
			}
		}
	}
	killed := 0
	self := false
	for _, c := range x.E.sortedClients() {
		if haveAddr && c.Addr != addr ||
			haveLad && c.LAddr != laddr ||
			typ != -1 && typ != clientType(c) ||
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
			x.E.killClient(c)
			x.E.detachClient(c)
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

// killClient marks c for closing. Its connection closes it at its next turn;
// a blocked client is released first so that turn comes.
func (e *Engine) killClient(c *Client) {
	c.Killed = true
	// Its subscriptions end now, as Redis frees a client closed
	// asynchronously before the next event loop turn: no later PUBLISH
	// counts it.
	e.DropSubscriptions(c)
	if c.OnKill != nil {
		c.OnKill()
	}
	if c.Blocked != nil {
		e.unblock(c)
		select {
		case c.WakeCh <- struct{}{}:
		default:
		}
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

func cmdClientHelp(x *Ctx) { WriteHelp(x, clientHelp) }

// writeHelp answers a HELP subcommand: one status line per entry, as
// Redis's addReplyHelp.
func WriteHelp(x *Ctx, lines []string) {
	x.W.Array(len(lines))
	for _, l := range lines {
		x.W.Simple(l)
	}
}
