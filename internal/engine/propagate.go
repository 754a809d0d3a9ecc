package engine

import (
	"strconv"

	"github.com/limitkv/limitkv/internal/propagate"
)

// The write stream (Redis's propagation, server.c call() and
// propagatePendingCommands). A write is known by what its handler
// signals: every x.Modified (signalModifiedKey) or x.Dirty counts as a
// change, as server.dirty does in Redis, so a command that changed
// nothing propagates nothing. By default a command that changed something
// is propagated as received; a handler says otherwise with Rewrite
// (rewriteClientCommandVector: EXPIRE as PEXPIREAT, SET EX as SET PXAT,
// ...), AlsoPropagate and NoPropagate (alsoPropagate and
// preventCommandPropagation: SPOP with a count, scripts' effects).
//
// The operations of one top-level command (with what EXEC and scripts ran
// inside it, and keys expired on the way) are handed to the readers
// together after it, wrapped in MULTI/EXEC when there are two or more; keys
// expired by the cycle or evicted go out one by one, unwrapped, as Redis
// sets propagate_no_multi for them. Readers (the AOF, replicas later) are
// fed under the engine lock and write out in Unlock, before any reply of
// the batch leaves for its client.

type propState struct {
	Stream  propagate.Stream
	changes uint64 // every change signalled (server.dirty's role here)
	depth   int    // nesting of call: the stream is flushed at depth 0
}

// Dirty records a change that no key signal reports (FLUSHALL, SWAPDB,
// FUNCTION LOAD, ...), so the command is propagated.
func (x *Ctx) Dirty() { x.E.Prop.changes++ }

// Rewrite makes the command propagate as args rather than as received, if
// it changed anything (rewriteClientCommandVector). args must stay valid
// until the command returns.
func (x *Ctx) Rewrite(args ...[]byte) { x.propArgs = args }

// AlsoPropagate adds one more operation in the client's database
// (alsoPropagate); combined with NoPropagate it replaces the command.
func (x *Ctx) AlsoPropagate(args ...[]byte) { x.E.Prop.Stream.Add(x.C.DB, args...) }

// NoPropagate keeps the command itself out of the stream
// (preventCommandPropagation); what it AlsoPropagated still goes.
func (x *Ctx) NoPropagate() { x.noProp = true }

// ForceReplication sends the command to the replicas, not the AOF, even
// though it changed nothing (forceCommandPropagation(c, PROPAGATE_REPL):
// PUBLISH outside a cluster, so that a replica's subscribers get it too).
func (x *Ctx) ForceReplication() { x.toRepl = true }

// propagating reports whether anyone reads the stream, for handlers whose
// rewrite costs something to build.
func (x *Ctx) Propagating() bool { return x.E.Prop.Stream.Active() }

// propagateCall is the end of Redis's call(): the command as received (or
// as rewritten) if it changed anything, then, at the outermost call, the
// batch to the readers.
func (e *Engine) propagateCall(x *Ctx, before uint64) {
	p := &e.Prop
	if !p.Stream.Active() {
		return
	}
	if !x.noProp && x.Blocking == nil && p.changes != before && x.Cmd.Name != "exec" {
		args := x.Args
		if x.propArgs != nil {
			args = x.propArgs
		}
		p.Stream.Add(x.C.DB, args...)
	} else if x.toRepl && !x.noProp && x.Blocking == nil {
		p.Stream.AddTo(propagate.ToReplicas, x.C.DB, x.Args...)
	}
	if p.depth == 0 {
		p.Stream.Flush(true)
	}
}

var (
	ArgDel       = []byte("DEL")
	ArgPexpireat = []byte("PEXPIREAT")
	ArgPXAT      = []byte("PXAT")
	ArgSet       = []byte("SET")
	ArgKeepTTL   = []byte("KEEPTTL")
	ArgPersist   = []byte("PERSIST")
	ArgHSet      = []byte("HSET")
	ArgSRem      = []byte("SREM")
)

// propagateDeletion is Redis's propagateDeletion for a key the server
// removed itself (expired, evicted): DEL (limitkv frees synchronously, as
// Redis with lazyfree-lazy-expire/-eviction no). Inside a command it joins
// that command's operations; outside one it goes at once, alone.
func (e *Engine) propagateDeletion(db int, key []byte) {
	p := &e.Prop
	if !p.Stream.Active() {
		return
	}
	// For every reader, even inside a script that redis.set_repl limited.
	prev := p.Stream.SetTarget(propagate.ToAll)
	p.Stream.Add(db, ArgDel, key)
	p.Stream.SetTarget(prev)
	if p.depth == 0 {
		p.Stream.Flush(false)
	}
}

// msArg formats an absolute time in ms for a rewritten command.
func MsArg(ms int64) []byte { return strconv.AppendInt(nil, ms, 10) }
