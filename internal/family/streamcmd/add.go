package streamcmd

import (
	"github.com/limitkv/limitkv/internal/config"
	engine "github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/stream"
)

// addTrimArgs are XADD's and XTRIM's options (streamAddTrimArgs).
type addTrimArgs struct {
	trim       stream.TrimArgs
	trimArgIdx int // position of the MAXLEN/MINID value, for the rewrite
	noMkStream bool
	id         stream.AddID
	idGiven    bool
	idPos      int
}

// parseAddTrim is streamParseAddOrTrimArgsOrReply: options from Args[2]
// until, for XADD, the ID.
func parseAddTrim(x *engine.Ctx, xadd bool) (addTrimArgs, bool) {
	var a addTrimArgs
	args := x.Args
	limitGiven := false
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			// the common auto-ID case, before any option test
		case engine.CEqualFold(opt, "maxlen") && more > 0, engine.CEqualFold(opt, "minid") && more > 0:
			if a.trim.Strategy != stream.TrimNone {
				replyErr(x, stream.ErrMaxLenAndMinID)
				return a, false
			}
			a.trim.Approx = false
			if next := args[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				a.trim.Approx = next[0] == '~'
				i++
			}
			if engine.CEqualFold(opt, "maxlen") {
				n, ok := parseLL(x, args[i+1], "")
				if !ok {
					return a, false
				}
				if n < 0 {
					replyErr(x, stream.ErrMaxLenNegative)
					return a, false
				}
				a.trim.MaxLen, a.trim.Strategy = n, stream.TrimMaxLen
			} else {
				id, ok := strictID(x, args[i+1])
				if !ok {
					return a, false
				}
				a.trim.MinID, a.trim.Strategy = id, stream.TrimMinID
			}
			i++
			a.trimArgIdx = i
			continue
		case engine.CEqualFold(opt, "limit") && more > 0:
			n, ok := parseLL(x, args[i+1], "")
			if !ok {
				return a, false
			}
			if n < 0 {
				replyErr(x, stream.ErrLimitNegative)
				return a, false
			}
			a.trim.Limit, limitGiven = n, true
			i++
			continue
		case xadd && engine.CEqualFold(opt, "nomkstream"):
			a.noMkStream = true
			continue
		case xadd:
			// a syntax error or a valid ID
		default:
			x.W.Error(engine.ErrSyntax)
			return a, false
		}
		id, err := stream.ParseAddID(string(opt))
		if err != nil {
			replyErr(x, err)
			return a, false
		}
		a.id, a.idGiven = id, !id.Auto
		break
	}
	a.idPos = i
	if a.trim.Limit != 0 && a.trim.Strategy == stream.TrimNone {
		replyErr(x, stream.ErrLimitNoStrategy)
		return a, false
	}
	if !xadd && a.trim.Strategy == stream.TrimNone {
		replyErr(x, stream.ErrXTrimNoStrategy)
		return a, false
	}
	switch {
	case x.C.MustObey():
		// the trim was made exact where the command came from
		a.trim.Limit = 0
	case limitGiven:
		if !a.trim.Approx {
			replyErr(x, stream.ErrLimitNoApprox)
			return a, false
		}
	case a.trim.Approx:
		a.trim.Limit = stream.DefaultTrimLimit(limits(x))
	default:
		a.trim.Limit = 0
	}
	return a, true
}

// rewriteTrim is streamRewriteApproxSpecifier and
// streamRewriteTrimArgument on a copy of the arguments: "~" becomes "="
// and the value what the stream holds now, so the trim replays exactly.
func rewriteTrim(args [][]byte, a *addTrimArgs, s *stream.Stream) [][]byte {
	args[a.trimArgIdx-1] = []byte("=")
	if a.trim.Strategy == stream.TrimMaxLen {
		args[a.trimArgIdx] = engine.MsArg(int64(s.Len()))
	} else {
		args[a.trimArgIdx] = idBytes(s.FirstStoredID())
	}
	return args
}

func cmdXAdd(x *engine.Ctx) {
	a, ok := parseAddTrim(x, true)
	if !ok {
		return
	}
	fieldPos := a.idPos + 1
	if n := len(x.Args) - fieldPos; n < 2 || n%2 == 1 {
		x.W.Error(engine.ErrWrongArgs("xadd"))
		return
	}
	// 0-0 fails before the key is looked up, so no empty stream is left.
	if a.idGiven && !a.id.SeqAuto && a.id.ID.IsZero() {
		replyErr(x, stream.ErrIDZero)
		return
	}
	key := x.Args[1]
	_, s, ok := engine.WriteAs[*stream.Stream](x, key)
	if !ok {
		return
	}
	if s == nil {
		if a.noMkStream {
			x.W.Null()
			return
		}
		_, s = streamCreate(x, key)
	}
	id, err := s.Add(a.id, x.Args[fieldPos:], uint64(x.Now), limits(x))
	if err != nil {
		replyErr(x, err)
		return
	}
	writeID(x.W, id)
	x.Modified(key)
	x.Notify(config.EvStream, "xadd", key)
	var prop [][]byte
	if a.trim.Strategy != stream.TrimNone {
		if s.Trim(a.trim) > 0 {
			x.Notify(config.EvStream, "xtrim", key)
		}
		if a.trim.Approx {
			prop = rewriteTrim(append([][]byte(nil), x.Args...), &a, s)
		}
	}
	if !a.idGiven || a.id.SeqAuto {
		if prop == nil {
			prop = append([][]byte(nil), x.Args...)
		}
		prop[a.idPos] = idBytes(id)
	}
	if prop != nil {
		x.Rewrite(prop...)
	}
	x.SignalReady(key)
}

func cmdXTrim(x *engine.Ctx) {
	a, ok := parseAddTrim(x, false)
	if !ok {
		return
	}
	key := x.Args[1]
	_, s, ok := engine.WriteAs[*stream.Stream](x, key)
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		return
	}
	deleted := s.Trim(a.trim)
	if deleted > 0 {
		x.Notify(config.EvStream, "xtrim", key)
		if a.trim.Approx {
			x.Rewrite(rewriteTrim(append([][]byte(nil), x.Args...), &a, s)...)
		}
		x.Modified(key)
	}
	x.W.Int(deleted)
}

func cmdXDel(x *engine.Ctx) {
	key := x.Args[1]
	_, s, ok := engine.WriteAs[*stream.Stream](x, key)
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		return
	}
	// Every ID is checked before any is deleted: no partial XDEL.
	ids := make([]stream.ID, 0, len(x.Args)-2)
	for _, arg := range x.Args[2:] {
		id, ok := strictID(x, arg)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	deleted := s.Delete(ids...)
	if deleted > 0 {
		x.Modified(key)
		x.Notify(config.EvStream, "xdel", key)
	}
	x.W.Int(int64(deleted))
}

func cmdXLen(x *engine.Ctx) {
	_, s, ok := engine.ReadAs[*stream.Stream](x, x.Args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(s.Len()))
}

func cmdXRange(x *engine.Ctx)    { xrangeGeneric(x, false) }
func cmdXRevRange(x *engine.Ctx) { xrangeGeneric(x, true) }

// xrangeGeneric is xrangeGenericCommand: XREVRANGE takes end before start.
func xrangeGeneric(x *engine.Ctx, rev bool) {
	startArg, endArg := x.Args[2], x.Args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, err := stream.ParseRangeStart(string(startArg))
	if err != nil {
		replyErr(x, err)
		return
	}
	end, err := stream.ParseRangeEnd(string(endArg))
	if err != nil {
		replyErr(x, err)
		return
	}
	count := int64(-1)
	for j := 4; j < len(x.Args); j++ {
		if engine.CEqualFold(x.Args[j], "count") && j+1 < len(x.Args) {
			n, ok := parseLL(x, x.Args[j+1], "")
			if !ok {
				return
			}
			count = max(n, 0)
			j++
			continue
		}
		x.W.Error(engine.ErrSyntax)
		return
	}
	_, s, ok := engine.ReadAs[*stream.Stream](x, x.Args[1])
	if !ok {
		return
	}
	switch {
	case s == nil:
		x.W.Array(0)
	case count == 0:
		x.W.NullArray()
	default:
		writeRange(x.W, s, start, end, max(count, 0), rev)
	}
}

func cmdXSetID(x *engine.Ctx) {
	id, ok := strictID(x, x.Args[2])
	if !ok {
		return
	}
	entriesAdded := int64(-1)
	var maxDeleted stream.ID
	for i := 3; i < len(x.Args); i += 2 {
		more := len(x.Args) - 1 - i
		switch opt := x.Args[i]; {
		case engine.CEqualFold(opt, "entriesadded") && more > 0:
			n, ok := parseLL(x, x.Args[i+1], "")
			if !ok {
				return
			}
			if n < 0 {
				replyErr(x, stream.ErrEntriesAddedNeg)
				return
			}
			entriesAdded = n
		case engine.CEqualFold(opt, "maxdeletedid") && more > 0:
			if maxDeleted, ok = strictID(x, x.Args[i+1]); !ok {
				return
			}
			if id.Less(maxDeleted) {
				replyErr(x, stream.ErrSetIDMaxDeleted)
				return
			}
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	key := x.Args[1]
	e, s, ok := engine.WriteAs[*stream.Stream](x, key)
	if !ok {
		return
	}
	if e == nil {
		x.W.Error(engine.ErrNoSuchKey)
		return
	}
	if err := s.SetID(id, entriesAdded, maxDeleted); err != nil {
		replyErr(x, err)
		return
	}
	x.W.OK()
	x.Dirty() // Redis does not signal the key: WATCH stays clean
	x.Notify(config.EvStream, "xsetid", key)
}
