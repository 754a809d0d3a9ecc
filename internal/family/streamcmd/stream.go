// Package streamcmd is the stream command family, after Redis 7.0.15's
// t_stream.c, over the data structure of internal/stream: XADD, XRANGE,
// XREVRANGE, XLEN, XDEL, XTRIM, XSETID (add.go), XREAD and XREADGROUP with
// their blocking forms (read.go), XGROUP, XACK, XPENDING, XCLAIM and
// XAUTOCLAIM (group.go) and XINFO (info.go).
//
// Handlers check their arguments in Redis's order, which is not always
// "parse everything, then look the key up": XDEL looks the key up first (a
// missing key answers 0 whatever the IDs), XCLAIM and XACK too, and the
// texts of the errors are the stream package's, word for word.
//
// Writes and the write stream follow Redis: XADD propagates the ID it
// chose and an approximate ("~") trim as the exact one it did; XREADGROUP,
// XCLAIM and XAUTOCLAIM never propagate themselves but one XCLAIM ...
// FORCE JUSTID per PEL change and XGROUP SETID for a NOACK read, so that a
// replica or the AOF rebuilds the same groups without the same clock.
package streamcmd

import (
	engine "github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/resp"
	"github.com/limitkv/limitkv/internal/stream"
)

const (
	wr   = engine.FlagWrite
	ro   = engine.FlagReadOnly
	fast = engine.FlagFast
	oom  = engine.FlagDenyOOM
)

// StreamCommands is the family's command table.
var StreamCommands = []*engine.Command{
	{Name: "xadd", Arity: -5, Flags: wr | oom | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXAdd},
	{Name: "xrange", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXRange},
	{Name: "xrevrange", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXRevRange},
	{Name: "xlen", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXLen},
	{Name: "xdel", Arity: -3, Flags: wr | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXDel},
	{Name: "xtrim", Arity: -4, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXTrim},
	{Name: "xsetid", Arity: -3, Flags: wr | oom | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXSetID},
	{Name: "xread", Arity: -4, Flags: ro | engine.FlagBlocking, Group: "stream",
		Handler: cmdXRead},
	{Name: "xreadgroup", Arity: -7, Flags: wr | engine.FlagBlocking, Group: "stream",
		Handler: cmdXRead},
	{Name: "xack", Arity: -4, Flags: wr | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXAck},
	{Name: "xpending", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXPending},
	{Name: "xclaim", Arity: -6, Flags: wr | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXClaim},
	{Name: "xautoclaim", Arity: -6, Flags: wr | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream",
		Handler: cmdXAutoClaim},
	{Name: "xgroup", Arity: -2, Group: "stream",
		Sub: map[string]*engine.Command{
			"create": {Arity: -5, Flags: wr | oom, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXGroup},
			"createconsumer": {Arity: 5, Flags: wr | oom, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXGroup},
			"delconsumer": {Arity: 5, Flags: wr, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXGroup},
			"destroy": {Arity: 4, Flags: wr, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXGroup},
			"setid": {Arity: -5, Flags: wr, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXGroup},
			"help": {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "stream",
				Handler: cmdXGroup},
		}},
	{Name: "xinfo", Arity: -2, Group: "stream",
		Sub: map[string]*engine.Command{
			"consumers": {Arity: 4, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXInfo},
			"groups": {Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXInfo},
			"stream": {Arity: -3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream",
				Handler: cmdXInfo},
			"help": {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "stream",
				Handler: cmdXInfo},
		}},
}

// parseLL is getLongLongFromObjectOrReply: msg is the error to answer
// ("" for the default one).
func parseLL(x *engine.Ctx, arg []byte, msg string) (int64, bool) {
	n, ok := num.ParseInt(arg)
	if !ok {
		if msg == "" {
			msg = engine.ErrNotInt
		}
		x.W.Error(msg)
	}
	return n, ok
}

// replyErr answers a stream package error (its text is Redis's).
func replyErr(x *engine.Ctx, err error) { x.W.Error(err.Error()) }

// strictID is streamParseStrictIDOrReply with missing sequence 0.
func strictID(x *engine.Ctx, arg []byte) (stream.ID, bool) {
	id, err := stream.ParseStrictID(string(arg), 0)
	if err != nil {
		replyErr(x, err)
		return stream.ID{}, false
	}
	return id, true
}

func idBytes(id stream.ID) []byte { return id.Append(nil) }

// writeID is addReplyStreamID.
func writeID(w *resp.Writer, id stream.ID) {
	var buf [44]byte
	w.Bulk(id.Append(buf[:0]))
}

// writeEntry is one entry of streamReplyWithRange: its ID and its
// field-value pairs.
func writeEntry(w *resp.Writer, e stream.Entry) {
	w.Array(2)
	writeID(w, e.ID)
	w.Array(len(e.Fields))
	for _, f := range e.Fields {
		w.Bulk(f)
	}
}

// writeRange answers the entries from start to end (count 0: all) as an
// array, returning how many there were.
func writeRange(w *resp.Writer, s *stream.Stream, start, end stream.ID, count int64, rev bool) int {
	at := w.ArrayPlaceholder()
	n := 0
	s.Range(start, end, rev, func(e stream.Entry) bool {
		writeEntry(w, e)
		n++
		return count == 0 || int64(n) < count
	})
	w.PatchArray(at, n)
	return n
}

// streamCreate adds an empty stream at key (dbAdd: the key is signalled
// for blocked clients).
func streamCreate(x *engine.Ctx, key []byte) (*keyspace.Entry, *stream.Stream) {
	s := stream.New()
	e := x.DB.Set(key, s, false)
	x.SignalReady(key)
	return e, s
}

// limits are the configured node limits.
func limits(x *engine.Ctx) stream.Limits { return x.E.Cfg.StreamLimits() }

// subcommandSyntax is addReplySubcommandSyntaxError.
func subcommandSyntax(x *engine.Ctx) { x.W.Error(engine.ErrSubcommandSyntax(x.Args)) }

// writeHelp is addReplyHelp: the header and footer around lines.
func writeHelp(x *engine.Ctx, lines []string) {
	x.W.Array(len(lines) + 3)
	x.W.Simple(upper(engine.CString(x.Args[0])) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		x.W.Simple(l)
	}
	x.W.Simple("HELP")
	x.W.Simple("    Prints this help.")
}

func upper(b []byte) string {
	out := []byte(string(b))
	for i, c := range out {
		if 'a' <= c && c <= 'z' {
			out[i] = c - 'a' + 'A'
		}
	}
	return string(out)
}
