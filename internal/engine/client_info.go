package engine

import (
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/resp"
)

// Client types CLIENT LIST TYPE and CLIENT KILL TYPE accept, as Redis's
// getClientType: limitkv has no replication, so no client is a master or
// a replica (monitors count as normal clients, as in Redis).
const (
	clientTypeNormal = iota
	clientTypeSlave
	clientTypePubSub
	clientTypeMaster
)

func ClientTypeByName(name string) (int, bool) {
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

func ClientType(c *Client) int {
	if c.IsReplicaConn() {
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

// Buffer sizes CLIENT LIST reports: limitkv's connection read buffer and
// a rough per-client overhead, so the fields look as Redis's do.
const (
	clientReadBuf  = 16 << 10
	ClientBaseMem  = 20 << 10
	ClientQueryBuf = 20474
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
	if c.IsReplicaConn() {
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
	ki("qbuf-free", int64(max(ClientQueryBuf-qbuf, 0)))
	ki("argv-mem", int64(argvMem))
	ki("multi-mem", int64(multiMem))
	ki("rbs", clientReadBuf)
	ki("rbp", int64(qbuf))
	obl, oll, omem := outputShape(c, x.W)
	ki("obl", obl)
	ki("oll", oll)
	ki("omem", omem)
	ki("tot-mem", int64(ClientBaseMem+clientReadBuf+qbuf+argvMem+multiMem)+omem)
	kv("events", "r")
	kv("cmd", cmd)
	kv("user", c.UserName())
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

// killClient marks c for closing. Its connection closes it at its next turn;
// a blocked client is released first so that turn comes.
func (e *Engine) KillClient(c *Client) {
	c.Killed = true
	// Its subscriptions end now, as Redis frees a client closed
	// asynchronously before the next event loop turn: no later PUBLISH
	// counts it.
	e.DropSubscriptions(c)
	if c.OnKill != nil {
		c.OnKill()
	}
	if c.Blocked != nil {
		e.Unblock(c)
		select {
		case c.WakeCh <- struct{}{}:
		default:
		}
	}
}

// writeHelp answers a HELP subcommand: one status line per entry, as
// Redis's addReplyHelp.
func WriteHelp(x *Ctx, lines []string) {
	x.W.Array(len(lines))
	for _, l := range lines {
		x.W.Simple(l)
	}
}
