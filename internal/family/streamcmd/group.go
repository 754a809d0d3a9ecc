package streamcmd

import (
	"github.com/limitkv/limitkv/internal/config"
	engine "github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/stream"
)

// XGROUP, XACK, XPENDING, XCLAIM and XAUTOCLAIM. The group commands change
// no entry, so, as in Redis, they count as changes (propagation) without
// signalling the key (WATCH, client tracking), except XGROUP CREATE
// MKSTREAM creating it.

var xgroupHelp = []string{
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
}

// cmdXGroup is xgroupCommand, one handler for every subcommand as in
// Redis, whose checks are shared.
func cmdXGroup(x *engine.Ctx) {
	args := x.Args
	opt := args[1]
	argc := len(args)
	var s *stream.Stream
	var g *stream.Group
	mkstream := false
	entriesRead := int64(stream.ScgInvalidEntriesRead)
	if argc >= 4 {
		create, setid := engine.CEqualFold(opt, "create"), engine.CEqualFold(opt, "setid")
		for i := 5; i < argc; {
			switch {
			case create && engine.CEqualFold(args[i], "mkstream"):
				mkstream = true
				i++
			case (create || setid) && engine.CEqualFold(args[i], "entriesread") && i+1 < argc:
				n, ok := parseLL(x, args[i+1], "")
				if !ok {
					return
				}
				if n < 0 && n != stream.ScgInvalidEntriesRead {
					replyErr(x, stream.ErrEntriesReadNeg)
					return
				}
				entriesRead = n
				i += 2
			default:
				subcommandSyntax(x)
				return
			}
		}
		var ok bool
		if _, s, ok = engine.WriteAs[*stream.Stream](x, args[2]); !ok {
			return
		}
		if !mkstream {
			if s == nil {
				replyErr(x, stream.ErrGroupNeedsKey)
				return
			}
			if g = s.Group(string(args[3])); g == nil && (engine.CEqualFold(opt, "setid") ||
				engine.CEqualFold(opt, "createconsumer") || engine.CEqualFold(opt, "delconsumer")) {
				replyErr(x, stream.ErrNoGroupForKey(string(engine.CString(args[3])), string(engine.CString(args[2]))))
				return
			}
		}
	}
	key := []byte(nil)
	if argc >= 3 {
		key = args[2]
	}
	switch {
	case argc == 2 && engine.CEqualFold(opt, "help"):
		writeHelp(x, xgroupHelp)
	case engine.CEqualFold(opt, "create") && argc >= 5 && argc <= 8:
		var id stream.ID
		if string(args[4]) == "$" {
			if s != nil {
				id = s.LastID()
			}
		} else {
			var ok bool
			if id, ok = strictID(x, args[4]); !ok {
				return
			}
		}
		if s == nil {
			_, s = streamCreate(x, key)
			x.Modified(key)
		}
		if _, err := s.CreateGroup(string(args[3]), id, entriesRead); err != nil {
			replyErr(x, err)
			return
		}
		x.W.OK()
		x.Dirty()
		x.Notify(config.EvStream, "xgroup-create", key)
	case engine.CEqualFold(opt, "setid") && (argc == 5 || argc == 7):
		var id stream.ID
		if string(args[4]) == "$" {
			id = s.LastID()
		} else {
			var err error
			if id, err = stream.ParseID(string(args[4]), 0); err != nil {
				replyErr(x, err)
				return
			}
		}
		g.SetID(id, entriesRead)
		x.W.OK()
		x.Dirty()
		x.Notify(config.EvStream, "xgroup-setid", key)
	case engine.CEqualFold(opt, "destroy") && argc == 4:
		if g == nil {
			x.W.Int(0)
			return
		}
		s.DestroyGroup(g.Name)
		x.W.Int(1)
		x.Dirty()
		x.Notify(config.EvStream, "xgroup-destroy", key)
		// XREADGROUP clients blocked on the group get NOGROUP.
		x.SignalReady(key)
	case engine.CEqualFold(opt, "createconsumer") && argc == 5:
		if g.CreateConsumer(string(args[4]), x.Now) == nil {
			x.W.Int(0)
			return
		}
		x.Dirty()
		x.Notify(config.EvStream, "xgroup-createconsumer", key)
		x.W.Int(1)
	case engine.CEqualFold(opt, "delconsumer") && argc == 5:
		pending, ok := g.DeleteConsumer(string(args[4]))
		if ok {
			x.Dirty()
			x.Notify(config.EvStream, "xgroup-delconsumer", key)
		}
		x.W.Int(int64(pending))
	default:
		subcommandSyntax(x)
	}
}

func cmdXAck(x *engine.Ctx) {
	_, s, ok := engine.ReadAs[*stream.Stream](x, x.Args[1])
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(string(x.Args[2]))
	}
	if g == nil {
		x.W.Int(0)
		return
	}
	ids := make([]stream.ID, 0, len(x.Args)-3)
	for _, arg := range x.Args[3:] {
		id, ok := strictID(x, arg)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	n := 0
	for _, id := range ids {
		if g.Ack(id) == 1 {
			n++
			x.Dirty()
		}
	}
	x.W.Int(int64(n))
}

func noKeyOrGroup(x *engine.Ctx) {
	replyErr(x, stream.ErrNoKeyOrGroup(string(engine.CString(x.Args[1])), string(engine.CString(x.Args[2]))))
}

// groupOf looks the stream up (lookupKeyRead) and its group: it answers
// WRONGTYPE or NOGROUP and returns nil when either is missing.
func groupOf(x *engine.Ctx) (*stream.Stream, *stream.Group) {
	_, s, ok := engine.ReadAs[*stream.Stream](x, x.Args[1])
	if !ok {
		return nil, nil
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(string(x.Args[2]))
	}
	if g == nil {
		noKeyOrGroup(x)
		return nil, nil
	}
	return s, g
}

func cmdXPending(x *engine.Ctx) {
	args := x.Args
	argc := len(args)
	if argc != 3 && (argc < 6 || argc > 9) {
		x.W.Error(engine.ErrSyntax)
		return
	}
	var start, end stream.ID
	var count, minIdle int64
	var consumer []byte
	if argc >= 6 {
		at := 3
		if engine.CEqualFold(args[3], "idle") {
			var ok bool
			if minIdle, ok = parseLL(x, args[4], ""); !ok {
				return
			}
			if argc < 8 {
				x.W.Error(engine.ErrSyntax)
				return
			}
			at += 2
		}
		var ok bool
		if count, ok = parseLL(x, args[at+2], ""); !ok {
			return
		}
		count = max(count, 0)
		var err error
		if start, err = stream.ParseRangeStart(string(args[at])); err != nil {
			replyErr(x, err)
			return
		}
		if end, err = stream.ParseRangeEnd(string(args[at+1])); err != nil {
			replyErr(x, err)
			return
		}
		if at+3 < argc {
			consumer = args[at+3]
		}
	}
	_, g := groupOf(x)
	if g == nil {
		return
	}
	if argc == 3 {
		n, first, last, consumers := g.PendingSummary()
		x.W.Array(4)
		x.W.Int(int64(n))
		if n == 0 {
			x.W.Null()
			x.W.Null()
			x.W.NullArray()
			return
		}
		writeID(x.W, first)
		writeID(x.W, last)
		x.W.Array(len(consumers))
		for _, c := range consumers {
			x.W.Array(2)
			x.W.BulkString(c.Name)
			x.W.BulkInt(int64(c.Count))
		}
		return
	}
	var c *stream.Consumer
	if consumer != nil {
		if c = g.Consumer(string(consumer)); c == nil {
			x.W.Array(0)
			return
		}
	}
	list := g.PendingRange(start, end, count, minIdle, c, x.Now)
	x.W.Array(len(list))
	for _, p := range list {
		x.W.Array(4)
		writeID(x.W, p.ID)
		x.W.BulkString(p.Consumer)
		x.W.Int(p.Idle)
		x.W.Int(int64(p.Deliveries))
	}
}

// propagateXClaim is streamPropagateXCLAIM: an XCLAIM that sets the PEL
// entry as it is now wherever it is replayed.
func propagateXClaim(x *engine.Ctx, key, group, idArg []byte, n *stream.NACK, g *stream.Group) {
	x.AlsoPropagate(argXClaim, key, group, []byte(n.Consumer.Name), argZero, idArg, argTime,
		engine.MsArg(n.DeliveryTime), argRetryCount, engine.MsArg(int64(n.DeliveryCount)),
		argForce, argJustID, argLastID, idBytes(g.LastID))
	x.Dirty()
}

func cmdXClaim(x *engine.Ctx) {
	s, g := groupOf(x)
	if g == nil {
		return
	}
	args := x.Args
	minIdle, ok := parseLL(x, args[4], string(stream.ErrXClaimMinIdle))
	if !ok {
		return
	}
	a := stream.ClaimArgs{MinIdle: max(minIdle, 0), DeliveryTime: -1, RetryCount: -1}
	// IDs until one does not parse: the options follow.
	j := 5
	for ; j < len(args); j++ {
		id, err := stream.ParseStrictID(string(args[j]), 0)
		if err != nil {
			break
		}
		a.IDs = append(a.IDs, id)
	}
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		switch {
		case engine.CEqualFold(opt, "force"):
			a.Force = true
		case engine.CEqualFold(opt, "justid"):
			a.JustID = true
		case engine.CEqualFold(opt, "idle") && more > 0:
			j++
			n, ok := parseLL(x, args[j], string(stream.ErrXClaimIdle))
			if !ok {
				return
			}
			a.DeliveryTime = x.Now - n
		case engine.CEqualFold(opt, "time") && more > 0:
			j++
			n, ok := parseLL(x, args[j], string(stream.ErrXClaimTime))
			if !ok {
				return
			}
			a.DeliveryTime = n
		case engine.CEqualFold(opt, "retrycount") && more > 0:
			j++
			n, ok := parseLL(x, args[j], string(stream.ErrXClaimRetryCount))
			if !ok {
				return
			}
			a.RetryCount = n
		case engine.CEqualFold(opt, "lastid") && more > 0:
			j++
			if a.LastID, ok = strictID(x, args[j]); !ok {
				return
			}
		default:
			replyErr(x, stream.ErrXClaimOption(string(engine.CString(opt))))
			return
		}
	}
	x.NoPropagate()
	key, group := args[1], args[2]
	lastMoved := a.LastID.Compare(g.LastID) > 0
	visited, next := false, 0
	a.Visit = func(id stream.ID, n *stream.NACK) {
		// Redis propagates the ID as the client wrote it.
		for next < len(a.IDs) && a.IDs[next] != id {
			next++
		}
		propagateXClaim(x, key, group, args[5+next], n, g)
		next++
		visited = true
	}
	had := g.Consumer(string(args[3])) != nil
	claimed := s.Claim(g, string(args[3]), a, x.Now)
	if !had && g.Consumer(string(args[3])) != nil {
		x.Notify(config.EvStream, "xgroup-createconsumer", key)
	}
	if lastMoved && !visited {
		propagateGroupID(x, key, group, g)
		x.Dirty()
	}
	x.W.Array(len(claimed))
	for _, id := range claimed {
		if a.JustID {
			writeID(x.W, id)
			continue
		}
		e, _ := s.Get(id)
		writeEntry(x.W, e)
	}
}

func cmdXAutoClaim(x *engine.Ctx) {
	args := x.Args
	minIdle, ok := parseLL(x, args[4], string(stream.ErrXAutoClaimMinIdle))
	if !ok {
		return
	}
	start, err := stream.ParseRangeStart(string(args[5]))
	if err != nil {
		replyErr(x, err)
		return
	}
	count, justID := int64(100), false
	const maxCount = (1<<63 - 1) / 16 // LONG_MAX / max(sizeof(streamID), attempts factor)
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch opt := args[j]; {
		case engine.CEqualFold(opt, "count") && more > 0:
			n, ok := parseLL(x, args[j+1], string(stream.ErrXAutoClaimCount))
			if !ok {
				return
			}
			if n < 1 || n > maxCount {
				replyErr(x, stream.ErrXAutoClaimCount)
				return
			}
			count = n
			j++
		case engine.CEqualFold(opt, "justid"):
			justID = true
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	s, g := groupOf(x)
	if g == nil {
		return
	}
	x.NoPropagate()
	key, group := args[1], args[2]
	had := g.Consumer(string(args[3])) != nil
	claimed, next, deleted := s.AutoClaimVisit(g, string(args[3]), max(minIdle, 0), start, count, justID, x.Now,
		func(id stream.ID, n *stream.NACK) { propagateXClaim(x, key, group, idBytes(id), n, g) })
	if !had && g.Consumer(string(args[3])) != nil {
		x.Notify(config.EvStream, "xgroup-createconsumer", key)
	}
	x.W.Array(3)
	writeID(x.W, next)
	x.W.Array(len(claimed))
	for _, id := range claimed {
		if justID {
			writeID(x.W, id)
			continue
		}
		e, _ := s.Get(id)
		writeEntry(x.W, e)
	}
	x.W.Array(len(deleted))
	for _, id := range deleted {
		writeID(x.W, id)
	}
}
