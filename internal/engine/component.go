package engine

import (
	"time"

	"github.com/limitkv/limitkv/internal/lua"
	"github.com/limitkv/limitkv/internal/resp"
)

// Scripting is what the engine and the other components ask of the
// scripting component (EVAL and FUNCTION), which keeps its state behind it.
type Scripting interface {
	// DeniesOOM is the deny-oom flag Redis derives for EVAL and FCALL from
	// the script they name, for the maxmemory check and MULTI.
	DeniesOOM(cmd *Command, args [][]byte) bool
	// LookupScript finds a cached script by its SHA (lower-case hex).
	LookupScript(sha []byte) *lua.Script
	ScriptCount() int
	FunctionCounts() (funcs, libs int)
	// FunctionCodes are the libraries' sources, as an RDB saves them.
	FunctionCodes() [][]byte
	LoadFunctions(codes [][]byte) error
	// DropFunctions empties the libraries (a full resync's payload replaces them).
	DropFunctions()
}

// Durability is what the engine asks of the component that copies the
// dataset out of memory: RDB snapshots, the AOF and replication. Their
// logic, commands and state are the component's. The engine keeps only
// what it reads on every command (the dirty count and the shutdown mark in
// persistState, whether it is a replica with its link up and the stream's
// offset in replState), which the component keeps current through the
// engine's methods; anything else it asks here.
type Durability interface {
	// FlushAOF writes what the batch appended to the AOF
	// (flushAppendOnlyFile in beforeSleep).
	FlushAOF(force bool)
	// NoGoodReplicas: min-replicas-to-write is not met.
	NoGoodReplicas() bool
	// ReplOutputBytes is what the replicas' output buffers hold, which
	// maxmemory does not count.
	ReplOutputBytes() uint64
	// ClientGone forgets a connection that was a replica.
	ClientGone(c *Client)
	// RequestAcks sends REPLCONF GETACK after a command that asked for it (WAIT).
	RequestAcks()
	// Cron is the component's share of serverCron: save points, AOF
	// rewrites and fsyncs, the replication link and its pings.
	Cron()
	// AbortBgsave stops a background save (FLUSHALL's killRDBChild).
	AbortBgsave()
	// Save saves the dataset at once (SAVE; FLUSHALL with save points).
	Save() error
	// WaitTimeoutReply answers a WAIT that timed out.
	WaitTimeoutReply(b *BlockState, w *resp.Writer)
	// WritesRefused: a failed background save makes the server refuse
	// writes (MISCONF, Redis's writeCommandsDeniedByDiskError).
	WritesRefused() bool
	// SaveStatus is what the metrics endpoint shows of RDB saves: the
	// last successful one, and the background one's progress and outcome.
	SaveStatus() (lastSave time.Time, bgRunning, lastBgOK bool)
}
