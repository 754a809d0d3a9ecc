package streamcmd

import (
	"time"

	"github.com/limitkv/limitkv/internal/config"
	engine "github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/stream"
)

// XREAD and XREADGROUP (xreadCommand), with their blocking forms.
//
// A blocked client is served by running its command again when a key it
// waits for is signalled (engine.Ctx.Block). Redis resolves "$" once, when
// the command blocks, so the arguments a client blocks with have each "$"
// replaced by the ID it stood for; the re-run (x.Rerun) then does what
// serveClientsBlockedOnStreamKey does for the one key that woke it
// (x.ReadyKey): serve it if the stream's last ID passed the one waited
// for, fail an XREADGROUP whose key or group went away, or block again.

// xreadBlockedDefaultCount is XREAD_BLOCKED_DEFAULT_COUNT: a blocked read
// without COUNT is served at most this many entries.
const xreadBlockedDefaultCount = 1000

// maxID stands for ">" among the parsed IDs, as in Redis.
var maxID = stream.MaxID

type xreadArgs struct {
	timeout   time.Duration
	block     bool
	count     int64
	noack     bool
	group     []byte
	consumer  []byte
	streamsAt int // index of the first key
	n         int // number of streams
}

func (a *xreadArgs) key(x *engine.Ctx, i int) []byte { return x.Args[a.streamsAt+i] }
func (a *xreadArgs) idArg(x *engine.Ctx, i int) []byte {
	return x.Args[a.streamsAt+a.n+i]
}

func parseXRead(x *engine.Ctx, xreadgroup bool) (xreadArgs, bool) {
	var a xreadArgs
	args := x.Args
	for i := 1; i < len(args); i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case engine.CEqualFold(o, "block") && more > 0:
			if x.C.InScript {
				x.W.Error("ERR " + string(engine.CString(args[0])) + " command is not allowed with BLOCK option from scripts")
				return a, false
			}
			i++
			ms, ok := parseLL(x, args[i], "ERR timeout is not an integer or out of range")
			if !ok {
				return a, false
			}
			if ms < 0 {
				x.W.Error(engine.ErrTimeoutNegative)
				return a, false
			}
			a.block = true
			if ms <= int64(time.Duration(1<<63-1)/time.Millisecond) {
				a.timeout = time.Duration(ms) * time.Millisecond
			}
		case engine.CEqualFold(o, "count") && more > 0:
			i++
			n, ok := parseLL(x, args[i], "")
			if !ok {
				return a, false
			}
			a.count = max(n, 0)
		case engine.CEqualFold(o, "streams") && more > 0:
			a.streamsAt = i + 1
			rest := len(args) - a.streamsAt
			if rest%2 != 0 {
				x.W.Error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return a, false
			}
			a.n = rest / 2
			i = len(args)
		case engine.CEqualFold(o, "group") && more >= 2:
			if !xreadgroup {
				x.W.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.group, a.consumer = args[i+1], args[i+2]
			i += 2
		case engine.CEqualFold(o, "noack"):
			if !xreadgroup {
				x.W.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.noack = true
		default:
			x.W.Error(engine.ErrSyntax)
			return a, false
		}
	}
	if a.streamsAt == 0 {
		x.W.Error(engine.ErrSyntax)
		return a, false
	}
	if xreadgroup && a.group == nil {
		x.W.Error("ERR Missing GROUP option for XREADGROUP")
		return a, false
	}
	return a, true
}

func cmdXRead(x *engine.Ctx) {
	xreadgroup := len(x.Args[0]) == 10
	a, ok := parseXRead(x, xreadgroup)
	if !ok {
		return
	}
	if x.Rerun {
		xreadServeBlocked(x, &a)
		return
	}
	x.NoPropagate() // XREADGROUP propagates as XCLAIM/XGROUP SETID alone
	ids := make([]stream.ID, a.n)
	groups := make([]*stream.Group, a.n)
	dollar := false
	for i := 0; i < a.n; i++ {
		key := a.key(x, i)
		e, s, ok := engine.ReadAs[*stream.Stream](x, key)
		if !ok {
			return
		}
		if a.group != nil {
			if e != nil {
				groups[i] = s.Group(string(a.group))
			}
			if groups[i] == nil {
				x.W.Error("NOGROUP No such key '" + string(engine.CString(key)) + "' or consumer group '" +
					string(engine.CString(a.group)) + "' in XREADGROUP with GROUP option")
				return
			}
		}
		switch arg := a.idArg(x, i); string(arg) {
		case "$":
			if xreadgroup {
				replyErr(x, stream.ErrXReadGroupDollar)
				return
			}
			dollar = true
			if s != nil {
				ids[i] = s.LastID()
			}
			continue
		case ">":
			if !xreadgroup {
				replyErr(x, stream.ErrXReadGreaterNoGroup)
				return
			}
			ids[i] = maxID
			continue
		}
		if ids[i], ok = strictID(x, a.idArg(x, i)); !ok {
			return
		}
	}
	if xreadServe(x, &a, ids, groups) {
		return
	}
	if !a.block {
		x.W.NullArray()
		return
	}
	if dollar {
		// The blocked command keeps the IDs "$" stood for now.
		args := append([][]byte(nil), x.Args...)
		for i := 0; i < a.n; i++ {
			if string(a.idArg(x, i)) == "$" {
				args[a.streamsAt+a.n+i] = idBytes(ids[i])
			}
		}
		x.Args = args
	}
	if !x.Block(x.Args[a.streamsAt:a.streamsAt+a.n], a.timeout) {
		x.W.NullArray()
	}
}

// xreadServe answers synchronously if any stream has something to serve,
// reporting whether it did.
func xreadServe(x *engine.Ctx, a *xreadArgs, ids []stream.ID, groups []*stream.Group) bool {
	served := 0
	at := 0
	for i := 0; i < a.n; i++ {
		key := a.key(x, i)
		e := x.Lookup(key)
		if e == nil {
			continue
		}
		s := e.Val.(*stream.Stream)
		gt := ids[i]
		sync, history := false, false
		if a.group != nil {
			if gt != maxID {
				sync, history = true, true
			} else if s.Len() > 0 && s.LastValidID().Compare(groups[i].LastID) > 0 {
				sync, gt = true, groups[i].LastID
			}
		} else if s.Len() > 0 && s.LastValidID().Compare(gt) > 0 {
			sync = true
		}
		if !sync {
			continue
		}
		served++
		if served == 1 {
			at = x.W.ArrayPlaceholder()
		}
		xreadReplyKey(x, a, key, s, groups[i], gt, history, a.count)
	}
	if served == 0 {
		return false
	}
	if x.W.RESP3() {
		x.W.PatchMap(at, served)
	} else {
		x.W.PatchArray(at, served)
	}
	return true
}

// xreadReplyKey answers one stream of XREAD/XREADGROUP: its name, then
// the entries after gt (or, for history, the consumer's pending ones from
// gt on).
func xreadReplyKey(x *engine.Ctx, a *xreadArgs, key []byte, s *stream.Stream, g *stream.Group, gt stream.ID, history bool, count int64) {
	if !x.W.RESP3() {
		x.W.Array(2)
	}
	x.W.Bulk(key)
	start, _ := gt.Incr()
	if g == nil {
		writeRange(x.W, s, start, stream.MaxID, count, false)
		return
	}
	c, created := g.LookupOrCreateConsumer(string(a.consumer), x.Now)
	if created {
		x.Notify(config.EvStream, "xgroup-createconsumer", key)
		if a.noack {
			x.AlsoPropagate(argXGroup, argCreateConsumer, key, a.group, a.consumer)
		}
	}
	x.Dirty()
	if history {
		at := x.W.ArrayPlaceholder()
		n := s.ReadHistory(c, start, int(count), x.Now, func(id stream.ID, e stream.Entry, exists bool) {
			if exists {
				writeEntry(x.W, e)
				return
			}
			// A pending entry since deleted: its ID and a null.
			x.W.Array(2)
			writeID(x.W, id)
			x.W.NullArray()
		})
		x.W.PatchArray(at, n)
		return
	}
	lastBefore := g.LastID
	at := x.W.ArrayPlaceholder()
	n := s.ReadGroup(g, c, start, int(count), a.noack, x.Now, func(e stream.Entry) {
		writeEntry(x.W, e)
		if !a.noack {
			// streamPropagateXCLAIM, with the group's last ID as of
			// this entry.
			x.AlsoPropagate(argXClaim, key, a.group, a.consumer, argZero, idBytes(e.ID), argTime,
				engine.MsArg(x.Now), argRetryCount, argOne, argForce, argJustID, argLastID, idBytes(g.LastID))
		}
	})
	x.W.PatchArray(at, n)
	if a.noack && g.LastID != lastBefore {
		propagateGroupID(x, key, a.group, g)
	}
}

// propagateGroupID is streamPropagateGroupID.
func propagateGroupID(x *engine.Ctx, key, group []byte, g *stream.Group) {
	x.AlsoPropagate(argXGroup, argSetID, key, group, idBytes(g.LastID), argEntriesRead, engine.MsArg(g.EntriesRead))
}

// xreadServeBlocked is serveClientsBlockedOnStreamKey for the key that
// woke the client (and unblockDeletedStreamReadgroupClients).
func xreadServeBlocked(x *engine.Ctx, a *xreadArgs) {
	x.NoPropagate()
	keys := x.Args[a.streamsAt : a.streamsAt+a.n]
	i := 0
	for i < a.n && string(keys[i]) != x.ReadyKey {
		i++
	}
	if i == a.n {
		x.Block(keys, 0)
		return
	}
	key := keys[i]
	e := x.DB.Get(key, x.Now)
	var s *stream.Stream
	if e != nil {
		s, _ = e.Val.(*stream.Stream)
	}
	if s == nil {
		if a.group != nil {
			x.W.Error("UNBLOCKED the stream key no longer exists")
			return
		}
		reblock(x, keys)
		return
	}
	var g *stream.Group
	var gt stream.ID
	if a.group != nil {
		if g = s.Group(string(a.group)); g == nil {
			x.W.Error("NOGROUP the consumer group this client was blocked on no longer exists")
			return
		}
		gt = g.LastID
	} else {
		var err error
		if gt, err = stream.ParseStrictID(string(a.idArg(x, i)), 0); err != nil {
			reblock(x, keys)
			return
		}
	}
	if s.LastID().Compare(gt) <= 0 {
		reblock(x, keys)
		return
	}
	count := a.count
	if count == 0 {
		count = xreadBlockedDefaultCount
	}
	if x.W.RESP3() {
		x.W.Map(1)
	} else {
		x.W.Array(1)
	}
	xreadReplyKey(x, a, key, s, g, gt, false, count)
}

// reblock keeps a woken client waiting, its deadline unchanged (the
// engine keeps the first registration when a re-run blocks again).
func reblock(x *engine.Ctx, keys [][]byte) { x.Block(keys, 0) }

var (
	argXClaim         = []byte("XCLAIM")
	argXGroup         = []byte("XGROUP")
	argSetID          = []byte("SETID")
	argCreateConsumer = []byte("CREATECONSUMER")
	argZero           = []byte("0")
	argOne            = []byte("1")
	argTime           = []byte("TIME")
	argRetryCount     = []byte("RETRYCOUNT")
	argForce          = []byte("FORCE")
	argJustID         = []byte("JUSTID")
	argLastID         = []byte("LASTID")
	argEntriesRead    = []byte("ENTRIESREAD")
)
