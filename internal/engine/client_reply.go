package engine

import (
	"strings"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/resp"
)

// CLIENT REPLY ON|OFF|SKIP, CLIENT NO-EVICT, CLIENT UNBLOCK.
//
// Suppressed replies are written and then cut off the output buffer when
// the command ends (Exec's quiet path), so handlers need not know; what
// Redis sends anyway (pushes: Pub/Sub messages and confirmations) is kept.
// MONITOR output is not a push in Redis and is dropped for such a client.
// SKIP applies to the next command as Redis's resetClient hands it on,
// including the reply a blocking command gets later.

const (
	ReplyOff      = 1 << iota
	ReplySkipNext // CLIENT REPLY SKIP ran: the next command is skipped
	replySkip     // the current (or blocked) command's reply is skipped
)

// silenced reports whether replies to c are dropped now.
func (cs *clientSurface) silenced() bool { return cs.Reply&(ReplyOff|replySkip) != 0 }

func CmdClientReply(x *Ctx) {
	cs := &x.C.Cs
	switch strings.ToLower(x.Arg(2)) {
	case "on":
		cs.Reply &^= ReplyOff | replySkip
		x.W.OK()
	case "off":
		cs.Reply |= ReplyOff
	case "skip":
		if cs.Reply&ReplyOff == 0 {
			cs.Reply |= ReplySkipNext
		}
	default:
		x.W.Error(ErrSyntax)
	}
}

// execQuiet is Exec for a client whose replies may be suppressed.
func (e *Engine) execQuiet(x *Ctx) Outcome {
	c := x.C
	cs := &c.Cs
	if cs.Reply&ReplySkipNext != 0 {
		cs.Reply = cs.Reply&^ReplySkipNext | replySkip
	}
	mark := x.W.Len()
	cs.muting = cs.silenced() && x.W == c.Out
	cs.kept = cs.kept[:0]
	out := e.dispatch(x)
	cs.muting = false
	if cs.silenced() {
		cutReplies(x.W, mark, cs.kept)
	}
	cs.kept = cs.kept[:0]
	if out != Blocked && out != Paused {
		cs.Reply &^= replySkip
	}
	if len(e.ready) > 0 {
		e.serveBlocked()
	}
	return out
}

// cutReplies drops what was written to w from mark on, except the kept spans.
func cutReplies(w *resp.Writer, mark int, kept []span) {
	if len(kept) == 0 {
		w.Truncate(mark)
		return
	}
	var keep []byte
	b := w.Bytes()
	for _, s := range kept {
		keep = append(keep, b[s.from:s.to]...)
	}
	w.Truncate(mark)
	w.Raw(keep)
}

// keepPush records, while c's own command runs muted, that what was
// written to w since from is a push CLIENT REPLY must not suppress.
func (c *Client) keepPush(w *resp.Writer, from int) {
	if c.Cs.muting && w == c.Out && w.Len() > from {
		c.Cs.kept = append(c.Cs.kept, span{from, w.Len()})
	}
}

// blockedReplyDone ends a blocked command's reply: suppressed from mark on
// if the client's replies are, and the SKIP it carried is spent.
func (c *Client) BlockedReplyDone(w *resp.Writer, mark int) {
	if c.Cs.Reply == 0 {
		return
	}
	if c.Cs.silenced() {
		w.Truncate(mark)
	}
	c.Cs.Reply &^= replySkip
}

func CmdClientNoEvict(x *Ctx) {
	switch strings.ToLower(x.Arg(2)) {
	case "on":
		x.C.Cs.noEvict = true
	case "off":
		x.C.Cs.noEvict = false
	default:
		x.W.Error(ErrSyntax)
		return
	}
	x.W.OK()
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: a client blocked
// on keys gets its timeout's reply, or the UNBLOCKED error. A client held
// by CLIENT PAUSE is not unblocked (Redis 7.0 crashes on TIMEOUT and runs
// the command after the error on ERROR).
func CmdClientUnblock(x *Ctx) {
	if len(x.Args) > 4 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
		return
	}
	asError := false
	if len(x.Args) == 4 {
		switch strings.ToLower(x.Arg(3)) {
		case "timeout":
		case "error":
			asError = true
		default:
			x.W.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	id, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(ErrNotInt)
		return
	}
	e := x.E
	t := e.Clients[id]
	if t == nil || t.Blocked == nil || t.Blocked.postponed {
		x.W.Int(0)
		return
	}
	b := t.Blocked
	e.Unblock(t)
	mark := b.W.Len()
	if asError {
		b.W.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
	} else {
		b.W.NullArray()
	}
	t.BlockedReplyDone(b.W, mark)
	t.NotifyOutput()
	x.W.Int(1)
}
