package engine

import (
	"strconv"

	"github.com/limitkv/limitkv/internal/stream"
)

// What the stream commands (internal/family/streamcmd) need from the
// engine beyond what every family uses.

// StreamLimits are stream-node-max-bytes and stream-node-max-entries, read
// when an entry is added, as Redis reads its server fields then.
func (c *Config) StreamLimits() stream.Limits {
	return stream.Limits{NodeMaxBytes: c.StreamNodeMaxBytes.Load(), NodeMaxEntries: c.StreamNodeMaxEntries.Load()}
}

// MustObey is Redis's mustObeyClient: the replication master's client or
// the one loading the AOF, whose commands were checked where they came
// from (XADD and XTRIM then trim without the LIMIT of "~").
func (c *Client) MustObey() bool { return c.isMaster || c.aofLoading }

// XReadGroupWaiting reports whether a client blocked in XREADGROUP waits
// on key of database db: such a client is served (with an error) when the
// key is deleted or overwritten, as Redis signals a stream key on
// dbGenericDelete and dbOverwrite.
func (e *Engine) xreadGroupWaiting(db int, key string) bool {
	for _, c := range e.Waiting[WaitKey{db, key}] {
		if b := c.Blocked; b != nil && len(b.args) > 0 && AsciiEq(b.args[0], "xreadgroup") {
			return true
		}
	}
	return false
}

// signalStreamGone queues key for the blocked clients' round if an
// XREADGROUP waits on it; see xreadGroupWaiting.
func (e *Engine) signalStreamGone(db int, key string) {
	if len(e.Waiting) == 0 || !e.xreadGroupWaiting(db, key) {
		return
	}
	e.Ready = append(e.Ready, WaitKey{db, key})
}

// streamDigest is xorObjectDigest's stream part: each entry's ID as
// "ms.seq", then its fields and values, mixed in order; groups do not
// count.
func streamDigest(d *digest, s *stream.Stream) {
	var buf []byte
	s.Range(stream.ID{}, stream.MaxID, false, func(e stream.Entry) bool {
		buf = strconv.AppendUint(buf[:0], e.ID.Ms, 10)
		buf = append(buf, '.')
		buf = strconv.AppendUint(buf, e.ID.Seq, 10)
		d.mix(buf)
		for _, f := range e.Fields {
			d.mix(f)
		}
		return true
	})
}

// ErrSubcommandSyntax is addReplySubcommandSyntaxError's text, for the
// families' container commands that check their own arguments.
func ErrSubcommandSyntax(args [][]byte) string { return errSubcommandSyntax(args) }
