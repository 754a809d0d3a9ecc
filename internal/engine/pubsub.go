package engine

import (
	"time"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/glob"

	"github.com/limitkv/limitkv/internal/keyslot"
	"github.com/limitkv/limitkv/internal/pubsub"
	"github.com/limitkv/limitkv/internal/resp"
)

// Pub/Sub, as Redis's pubsub.c: SUBSCRIBE/PSUBSCRIBE/SSUBSCRIBE and their
// UNSUBSCRIBEs, PUBLISH/SPUBLISH, PUBSUB introspection.
//
// A message reaches a subscriber through its connection's output buffer
// (Client.Out), appended under the executor lock by the publisher's
// command and announced with the client's notify: the same path a served
// blocking command takes, so the connection has one writer.
var pubsubCommands = []*Command{
	{Name: "subscribe", Arity: -2, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdSubscribe},
	{Name: "unsubscribe", Arity: -1, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdUnsubscribe},
	{Name: "psubscribe", Arity: -2, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPSubscribe},
	{Name: "punsubscribe", Arity: -1, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPUnsubscribe},
	{Name: "ssubscribe", Arity: -2, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdSSubscribe},
	{Name: "sunsubscribe", Arity: -1, Flags: FlagPubSub | FlagNoScript | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdSUnsubscribe},
	{Name: "publish", Arity: 3, Flags: FlagPubSub | FlagLoading | FlagStale | FlagFast | FlagMayReplicate, Group: "pubsub", Handler: cmdPublish},
	{Name: "spublish", Arity: 3, Flags: FlagPubSub | FlagLoading | FlagStale | FlagFast | FlagMayReplicate, Group: "pubsub", Handler: cmdSPublish},
	{Name: "pubsub", Arity: -2, Group: "pubsub", Sub: map[string]*Command{
		"channels":      {Arity: -2, Flags: FlagPubSub | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPubsubChannels},
		"numsub":        {Arity: -2, Flags: FlagPubSub | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPubsubNumsub},
		"numpat":        {Arity: 2, Flags: FlagPubSub | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPubsubNumpat},
		"shardchannels": {Arity: -2, Flags: FlagPubSub | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPubsubShardChannels},
		"shardnumsub":   {Arity: -2, Flags: FlagPubSub | FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPubsubShardNumsub},
		"help":          {Arity: 2, Flags: FlagLoading | FlagStale, Group: "pubsub", Handler: cmdPubsubHelp},
	}},
}

// pubsubState is the server's side: who listens to which channel, pattern
// and shard channel.
type pubsubState struct {
	channels *pubsub.Registry[*Client]
	patterns *pubsub.Registry[*Client]
	shard    *pubsub.Registry[*Client]
}

func (p *pubsubState) init() {
	p.channels = pubsub.NewRegistry[*Client]()
	p.patterns = pubsub.NewRegistry[*Client]()
	p.shard = pubsub.NewRegistry[*Client]()
}

// clientSubs is a client's side.
type clientSubs struct {
	channels, patterns, shard pubsub.Set
}

// subCount is Redis's clientSubscriptionsCount: channels and patterns (the
// count SUBSCRIBE and PSUBSCRIBE answer with).
func (c *Client) subCount() int { return c.subs.channels.Len() + c.subs.patterns.Len() }

// InPubSub reports whether c listens to anything (Redis's CLIENT_PUBSUB):
// a RESP2 client in that state may only (un)subscribe, PING, QUIT and
// RESET, and its output counts against the pubsub buffer limits.
func (c *Client) InPubSub() bool { return c.subCount()+c.subs.shard.Len() > 0 }

// SubCounts are the sub, psub and ssub fields of CLIENT LIST.
func (c *Client) SubCounts() (sub, psub, ssub int) {
	return c.subs.channels.Len(), c.subs.patterns.Len(), c.subs.shard.Len()
}

// The three kinds differ in their registries, the words of their
// confirmations and which count those carry.
type subKind struct {
	sub, unsub, msg string
	set             func(*Client) *pubsub.Set
	reg             func(*pubsubState) *pubsub.Registry[*Client]
	count           func(*Client) int
}

var (
	kindChannel = subKind{"subscribe", "unsubscribe", "message",
		func(c *Client) *pubsub.Set { return &c.subs.channels },
		func(p *pubsubState) *pubsub.Registry[*Client] { return p.channels },
		(*Client).subCount}
	kindPattern = subKind{"psubscribe", "punsubscribe", "pmessage",
		func(c *Client) *pubsub.Set { return &c.subs.patterns },
		func(p *pubsubState) *pubsub.Registry[*Client] { return p.patterns },
		(*Client).subCount}
	kindShard = subKind{"ssubscribe", "sunsubscribe", "smessage",
		func(c *Client) *pubsub.Set { return &c.subs.shard },
		func(p *pubsubState) *pubsub.Registry[*Client] { return p.shard },
		func(c *Client) int { return c.subs.shard.Len() }}
)

// pushHeader starts a pushed frame: an array in RESP2, a push in RESP3.
func pushHeader(w *resp.Writer, n int) {
	if w.RESP3() {
		w.Push(n)
	} else {
		w.Array(n)
	}
}

func (e *Engine) subscribe(x *Ctx, k subKind) {
	c := x.C
	for _, name := range x.Args[1:] {
		if k.set(c).Add(string(name)) {
			k.reg(&e.ps).Add(string(name), c)
		}
		from := x.W.Len()
		pushHeader(x.W, 3)
		x.W.BulkString(k.sub)
		x.W.Bulk(name)
		x.W.Int(int64(k.count(c)))
		c.keepPush(x.W, from) // a push: CLIENT REPLY OFF does not drop it
	}
}

// unsubscribe removes c from name; notify answers the confirmation into w
// (nil: silently, as on disconnect and RESET).
func (e *Engine) unsubscribe(c *Client, k subKind, name string, w *resp.Writer) {
	if k.set(c).Remove(name) {
		k.reg(&e.ps).Remove(name, c)
	}
	if w != nil {
		from := w.Len()
		pushHeader(w, 3)
		w.BulkString(k.unsub)
		w.BulkString(name)
		w.Int(int64(k.count(c)))
		c.keepPush(w, from)
	}
}

// unsubscribeAll is the argument-less form: every name, or one
// confirmation with a null name when there was none.
func (e *Engine) unsubscribeAll(c *Client, k subKind, w *resp.Writer) {
	names := k.set(c).Members()
	for _, n := range names {
		e.unsubscribe(c, k, n, w)
	}
	if w != nil && len(names) == 0 {
		from := w.Len()
		pushHeader(w, 3)
		w.BulkString(k.unsub)
		w.Null()
		w.Int(int64(k.count(c)))
		c.keepPush(w, from)
	}
}

// dropSubscriptions forgets everything c listens to, without a word (the
// connection closed, or RESET).
func (e *Engine) DropSubscriptions(c *Client) {
	if !c.InPubSub() {
		return
	}
	for _, k := range []subKind{kindChannel, kindPattern, kindShard} {
		e.unsubscribeAll(c, k, nil)
	}
}

func cmdSubscribe(x *Ctx)  { x.E.subscribe(x, kindChannel) }
func cmdPSubscribe(x *Ctx) { x.E.subscribe(x, kindPattern) }

// cmdSSubscribe: Redis refuses it inside EXEC (a client that must get one
// reply per command), unlike SUBSCRIBE, which it allows there for backward
// compatibility.
func cmdSSubscribe(x *Ctx) {
	if x.C.Multi != nil { // only while EXEC runs the queue
		x.W.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	x.E.subscribe(x, kindShard)
}

func unsubscribeCmd(x *Ctx, k subKind) {
	if len(x.Args) == 1 {
		x.E.unsubscribeAll(x.C, k, x.W)
		return
	}
	for _, name := range x.Args[1:] {
		x.E.unsubscribe(x.C, k, string(name), x.W)
	}
}

func cmdUnsubscribe(x *Ctx)  { unsubscribeCmd(x, kindChannel) }
func cmdPUnsubscribe(x *Ctx) { unsubscribeCmd(x, kindPattern) }
func cmdSUnsubscribe(x *Ctx) { unsubscribeCmd(x, kindShard) }

// A cluster node sends a PUBLISH to the other nodes over the bus, not to
// its replicas (publishCommand).
func cmdPublish(x *Ctx) {
	if cl := x.E.Cluster; cl != nil {
		cl.PropagatePublish(x.Args[1], x.Args[2], false)
	} else {
		x.ForceReplication()
	}
	x.W.Int(int64(x.E.Publish(x.Args[1], x.Args[2])))
}

func cmdSPublish(x *Ctx) {
	if cl := x.E.Cluster; cl != nil {
		cl.PropagatePublish(x.Args[1], x.Args[2], true)
	} else {
		x.ForceReplication()
	}
	x.W.Int(int64(x.E.SPublish(x.Args[1], x.Args[2])))
}

// Publish delivers message to channel's subscribers, then to the clients of
// every pattern it matches, and reports how many deliveries there were (a
// client subscribed both ways counts twice, as in Redis). Call with the
// lock held.
func (e *Engine) Publish(channel, message []byte) int {
	n := 0
	// A copy: a delivery that drops a subscriber over its limit changes
	// the registry's list.
	for _, c := range append([]*Client(nil), e.ps.channels.Subscribers(string(channel))...) {
		e.push(c, func(w *resp.Writer) {
			pushHeader(w, 3)
			w.BulkString("message")
			w.Bulk(channel)
			w.Bulk(message)
		})
		n++
	}
	if e.ps.patterns.Len() == 0 {
		return n
	}
	// Matching first, delivering after: a delivery may drop a subscriber
	// over its output limit, which changes the registry.
	type hit struct {
		pat string
		cs  []*Client
	}
	var hits []hit
	e.ps.patterns.Names(func(pat string) bool {
		if glob.Match([]byte(pat), channel, false) {
			hits = append(hits, hit{pat, append([]*Client(nil), e.ps.patterns.Subscribers(pat)...)})
		}
		return true
	})
	for _, h := range hits {
		for _, c := range h.cs {
			e.push(c, func(w *resp.Writer) {
				pushHeader(w, 4)
				w.BulkString("pmessage")
				w.BulkString(h.pat)
				w.Bulk(channel)
				w.Bulk(message)
			})
			n++
		}
	}
	return n
}

// SPublish delivers to a shard channel's subscribers (patterns do not see
// shard messages). Call with the lock held.
func (e *Engine) SPublish(channel, message []byte) int {
	subs := append([]*Client(nil), e.ps.shard.Subscribers(string(channel))...)
	for _, c := range subs {
		e.push(c, func(w *resp.Writer) {
			pushHeader(w, 3)
			w.BulkString("smessage")
			w.Bulk(channel)
			w.Bulk(message)
		})
	}
	return len(subs)
}

// push writes a frame no request of c's asked for into c's output buffer
// and tells its connection. As Redis's closeClientOnOutputBufferLimit-
// Reached, the limits of c's class are checked on every push: a client past
// the hard limit, or past the soft one for longer than its seconds, is
// dropped at once, so a subscriber that stops reading costs at most its
// limit. Call with the lock held.
func (e *Engine) push(c *Client, frame func(w *resp.Writer)) {
	if c.Killed || c.Out == nil {
		return
	}
	mark := c.Out.Len()
	frame(c.Out)
	if e.OverOutputLimit(c) {
		// Not even this frame reaches it: Redis closes such a client
		// without writing what it could not hold.
		c.Out.Truncate(mark)
		e.KillClient(c)
		return
	}
	c.keepPush(c.Out, mark)
	c.NotifyOutput()
}

// overOutputLimit reports whether c's unsent output breaks its class's
// client-output-buffer-limit now, keeping the time it went over the soft
// limit, as Redis's checkClientOutputBufferLimits. Call with the lock held.
func (e *Engine) OverOutputLimit(c *Client) bool {
	lim := e.OutputLimit(c)
	unsent := c.Out.Len()
	if c.Unsent != nil {
		unsent = c.Unsent()
	}
	used := OutputUsage(unsent)
	if lim.Hard > 0 && used >= lim.Hard {
		e.Log.Warn("closing client that overcame the output buffer hard limit", "client", c.ID, "addr", c.Addr, "unsent", unsent, "limit", lim.Hard, "class", e.outputClass(c))
		return true
	}
	if lim.Soft == 0 || used < lim.Soft {
		c.softSince = time.Time{}
		return false
	}
	now := time.Now()
	if c.softSince.IsZero() {
		c.softSince = now
		return false
	}
	if now.Sub(c.softSince) > time.Duration(lim.SoftSeconds)*time.Second {
		e.Log.Warn("closing client that stayed over the output buffer soft limit", "client", c.ID, "addr", c.Addr, "unsent", unsent, "limit", lim.Soft, "seconds", lim.SoftSeconds, "class", e.outputClass(c))
		return true
	}
	return false
}

// replyBufSize is Redis's per-client static reply buffer (PROTO_REPLY_
// CHUNK_BYTES): output that fits in it does not count against the
// client-output-buffer-limit, only what spills into the reply list does.
const replyBufSize = 16 << 10

// OutputUsage is how much of pending output Redis would count against a
// client's output limits.
func OutputUsage(pending int) uint64 { return uint64(max(pending-replyBufSize, 0)) }

// OutputLimit is the client-output-buffer-limit class that applies to c now:
// pubsub while it listens to anything, as Redis's getClientType. Call with
// the lock held.
func (e *Engine) OutputLimit(c *Client) config.OutputLimit {
	l := e.Cfg.OutputLimits()
	if c.IsReplicaConn() {
		return l.Replica
	}
	if c.InPubSub() {
		return l.PubSub
	}
	return l.Normal
}

func (e *Engine) outputClass(c *Client) string {
	if c.IsReplicaConn() {
		return "replica"
	}
	if c.InPubSub() {
		return "pubsub"
	}
	return "normal"
}

func channelList(x *Ctx, reg *pubsub.Registry[*Client]) {
	var pat []byte
	if len(x.Args) == 3 {
		pat = x.Args[2]
	} else if len(x.Args) > 3 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
		return
	}
	off := x.W.ArrayPlaceholder()
	n := 0
	reg.Names(func(name string) bool {
		if pat == nil || glob.Match(pat, name, false) {
			x.W.BulkString(name)
			n++
		}
		return true
	})
	x.W.PatchArray(off, n)
}

func numsub(x *Ctx, reg *pubsub.Registry[*Client]) {
	names := x.Args[2:]
	x.W.Array(2 * len(names)) // an array in RESP3 too, as Redis 7.0 answers
	for _, name := range names {
		x.W.Bulk(name)
		x.W.Int(int64(reg.Count(string(name))))
	}
}

func cmdPubsubChannels(x *Ctx)      { channelList(x, x.E.ps.channels) }
func cmdPubsubShardChannels(x *Ctx) { channelList(x, x.E.ps.shard) }
func cmdPubsubNumsub(x *Ctx)        { numsub(x, x.E.ps.channels) }
func cmdPubsubShardNumsub(x *Ctx)   { numsub(x, x.E.ps.shard) }
func cmdPubsubNumpat(x *Ctx)        { x.W.Int(int64(x.E.ps.patterns.Len())) }

var pubsubHelp = []string{
	"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
	"HELP",
	"    Prints this help.",
}

func cmdPubsubHelp(x *Ctx) { WriteHelp(x, pubsubHelp) }

// DropShardChannelsInSlot is removeChannelsInSlot: a cluster node that
// stops serving slot unsubscribes every client from the slot's shard
// channels, each told with an sunsubscribe push. Call with the lock held.
func (e *Engine) DropShardChannelsInSlot(slot int) {
	var names []string
	e.ps.shard.Names(func(name string) bool {
		if int(keyslot.Slot([]byte(name))) == slot {
			names = append(names, name)
		}
		return true
	})
	for _, name := range names {
		for _, c := range append([]*Client(nil), e.ps.shard.Subscribers(name)...) {
			e.push(c, func(w *resp.Writer) { e.unsubscribe(c, kindShard, name, w) })
		}
	}
}
