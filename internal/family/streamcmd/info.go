package streamcmd

import (
	engine "github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/stream"
)

var xinfoHelp = []string{
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
}

// cmdXInfo is xinfoCommand: HELP first, then every subcommand looks the
// key up (no such key is an error) before checking its own arguments.
func cmdXInfo(x *engine.Ctx) {
	args := x.Args
	if engine.CEqualFold(args[1], "help") {
		if len(args) != 2 {
			subcommandSyntax(x)
			return
		}
		writeHelp(x, xinfoHelp)
		return
	}
	if len(args) < 3 {
		subcommandSyntax(x)
		return
	}
	opt, key := args[1], args[2]
	e, s, ok := engine.ReadAs[*stream.Stream](x, key)
	if !ok {
		return
	}
	if e == nil {
		x.W.Error(engine.ErrNoSuchKey)
		return
	}
	switch {
	case engine.CEqualFold(opt, "consumers") && len(args) == 4:
		g := s.Group(string(args[3]))
		if g == nil {
			replyErr(x, stream.ErrNoGroupForKey(string(engine.CString(args[3])), string(engine.CString(key))))
			return
		}
		cs := g.Consumers()
		x.W.Array(len(cs))
		for _, c := range cs {
			x.W.Map(3)
			x.W.BulkString("name")
			x.W.BulkString(c.Name)
			x.W.BulkString("pending")
			x.W.Int(int64(c.PendingCount()))
			x.W.BulkString("idle")
			x.W.Int(max(x.Now-c.SeenTime, 0))
		}
	case engine.CEqualFold(opt, "groups") && len(args) == 3:
		gs := s.Groups()
		x.W.Array(len(gs))
		for _, g := range gs {
			x.W.Map(6)
			x.W.BulkString("name")
			x.W.BulkString(g.Name)
			x.W.BulkString("consumers")
			x.W.Int(int64(len(g.Consumers())))
			x.W.BulkString("pending")
			x.W.Int(int64(g.PendingCount()))
			x.W.BulkString("last-delivered-id")
			writeID(x.W, g.LastID)
			writeEntriesRead(x, g)
			writeLag(x, s, g)
		}
	case engine.CEqualFold(opt, "stream"):
		xinfoStream(x, s)
	default:
		subcommandSyntax(x)
	}
}

func writeEntriesRead(x *engine.Ctx, g *stream.Group) {
	x.W.BulkString("entries-read")
	if g.EntriesRead != stream.ScgInvalidEntriesRead {
		x.W.Int(g.EntriesRead)
	} else {
		x.W.Null()
	}
}

// writeLag is streamReplyWithCGLag.
func writeLag(x *engine.Ctx, s *stream.Stream, g *stream.Group) {
	x.W.BulkString("lag")
	if lag, ok := s.Lag(g); ok {
		x.W.Int(lag)
	} else {
		x.W.Null()
	}
}

// xinfoStream is xinfoReplyWithStreamInfo.
func xinfoStream(x *engine.Ctx, s *stream.Stream) {
	opts := x.Args[3:]
	full, count := len(opts) > 0, int64(10)
	if full {
		if len(opts) != 1 && len(opts) != 3 || !engine.CEqualFold(opts[0], "full") {
			subcommandSyntax(x)
			return
		}
		if len(opts) == 3 {
			if !engine.CEqualFold(opts[1], "count") {
				subcommandSyntax(x)
				return
			}
			n, ok := parseLL(x, opts[2], "")
			if !ok {
				return
			}
			if count = n; count < 0 {
				count = 10
			}
		}
	}
	w := x.W
	info := s.Info()
	if full {
		w.Map(9)
	} else {
		w.Map(10)
	}
	w.BulkString("length")
	w.Int(int64(info.Length))
	w.BulkString("radix-tree-keys")
	w.Int(int64(info.RadixTreeKeys))
	w.BulkString("radix-tree-nodes")
	w.Int(int64(info.RadixTreeNodes))
	w.BulkString("last-generated-id")
	writeID(w, info.LastGeneratedID)
	w.BulkString("max-deleted-entry-id")
	writeID(w, info.MaxDeletedID)
	w.BulkString("entries-added")
	w.Int(int64(info.EntriesAdded))
	w.BulkString("recorded-first-entry-id")
	writeID(w, info.RecordedFirstID)
	if !full {
		w.BulkString("groups")
		w.Int(int64(info.Groups))
		w.BulkString("first-entry")
		if e, ok := s.First(); ok {
			writeEntry(w, e)
		} else {
			w.Null()
		}
		w.BulkString("last-entry")
		if e, ok := s.Last(); ok {
			writeEntry(w, e)
		} else {
			w.Null()
		}
		return
	}
	w.BulkString("entries")
	writeRange(w, s, stream.ID{}, stream.MaxID, count, false)
	w.BulkString("groups")
	gs := s.Groups()
	w.Array(len(gs))
	for _, g := range gs {
		w.Map(7)
		w.BulkString("name")
		w.BulkString(g.Name)
		w.BulkString("last-delivered-id")
		writeID(w, g.LastID)
		writeEntriesRead(x, g)
		writeLag(x, s, g)
		w.BulkString("pel-count")
		w.Int(int64(g.PendingCount()))
		w.BulkString("pending")
		at, n := w.ArrayPlaceholder(), 0
		g.Pending(stream.ID{}, func(id stream.ID, nack *stream.NACK) bool {
			if count != 0 && int64(n) >= count {
				return false
			}
			w.Array(4)
			writeID(w, id)
			w.BulkString(nack.Consumer.Name)
			w.Int(nack.DeliveryTime)
			w.Int(int64(nack.DeliveryCount))
			n++
			return true
		})
		w.PatchArray(at, n)
		w.BulkString("consumers")
		cs := g.Consumers()
		w.Array(len(cs))
		for _, c := range cs {
			w.Map(4)
			w.BulkString("name")
			w.BulkString(c.Name)
			w.BulkString("seen-time")
			w.Int(c.SeenTime)
			w.BulkString("pel-count")
			w.Int(int64(c.PendingCount()))
			w.BulkString("pending")
			at, n := w.ArrayPlaceholder(), 0
			c.Pending(stream.ID{}, func(id stream.ID, nack *stream.NACK) bool {
				if count != 0 && int64(n) >= count {
					return false
				}
				w.Array(3)
				writeID(w, id)
				w.Int(nack.DeliveryTime)
				w.Int(int64(nack.DeliveryCount))
				n++
				return true
			})
			w.PatchArray(at, n)
		}
	}
}
