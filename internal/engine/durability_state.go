package engine

import (
	"bufio"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/propagate"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/repl"
)

const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	ErrInvalidPort     = "ERR Invalid master port"
	errMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
)

// Link states, as ROLE names them.
const (
	ReplNone       = ""
	ReplConnect    = "connect"
	ReplConnecting = "connecting"
	ReplSync       = "sync"
	ReplConnected  = "connected"
)

type replState struct {
	masterState // serving replicas (replication_master.go)

	Host  string // masterhost: "" on a master
	Port  int
	State string

	Replid, Replid2 string
	Offset          int64 // master_repl_offset: bytes of the stream applied
	SecondOffset    int64
	Synced          bool // replid/offset name data the master can continue from

	Master     *Client // the master's client while the link is up
	StreamDB   int     // the master client's database when the link broke (a partial resync continues in it)
	MasterSend func(args ...string) error
	LastIO     time.Time
	DownSince  time.Time // repl_down_since: when a connected link was lost (zero: not since the last sync)
	Stop       chan struct{}
	Done       chan struct{}
	FullSyncs  int64
}

// IsReplica reports whether the server replicates a master. Call with the
// lock held.
func (e *Engine) IsReplica() bool { return e.Repl.Host != "" }

// replicaDenies is processCommand's read-only replica rule.
func (e *Engine) replicaDenies(c *Client, cmd *Command) bool {
	if e.Repl.Host == "" || c.IsMaster || !e.Cfg.ReplicaReadOnly.Load() {
		return false
	}
	return writesData(c, cmd)
}

// writesData is processCommand's is_write_command: a write, or an EXEC
// whose queue holds one.
func writesData(c *Client, cmd *Command) bool { return execHas(c, cmd, FlagWrite) }

// deniesStale is processCommand's is_denystale_command: what a replica
// with a broken link refuses when replica-serve-stale-data is no.
func deniesStale(c *Client, cmd *Command) bool { return execLacks(c, cmd, FlagStale) }

// A replica's states, as INFO names them (replstateToString).
const (
	ReplicaWaitStart = iota // waits for a snapshot to start
	ReplicaWaitEnd          // its snapshot is being made; the stream is kept for it
	ReplicaSendBulk         // its RDB is going out
	ReplicaOnline           // it gets the stream as it happens
)

// IsReplicaConn reports whether the connection is a replica (it sent SYNC or
// PSYNC). Call with the lock held.
func (c *Client) IsReplicaConn() bool { return c.Repl != nil }

// replicaConf is what a connection said with REPLCONF before its SYNC.
type replicaConf struct {
	Port       int
	Ip         string
	CapaEOF    bool
	CapaPsync2 bool
}

// replica is a connection that asked for the stream (CLIENT_SLAVE).
type Replica struct {
	C       *Client
	Conf    replicaConf
	State   int
	Psync   bool // PSYNC: it sends ACKs (SYNC's old protocol does not)
	AckOff  int64
	AckTime time.Time
	Pending []byte // the stream since its snapshot, until its RDB is out
	// streamOnAck: online after an EOF-marked payload, but the stream is
	// held in pending until its first ACK (repl_start_cmd_stream_on_ack):
	// bytes right after the mark would hide it from a replica that looks
	// for the mark at the end of a read, as Redis's does.
	StreamOnAck bool
}

// masterState is the master side's part of replState.
type masterState struct {
	Replicas  []*Replica
	Backlog   *repl.Backlog
	Enc       propagate.Encoder // the stream's selected database (slaveseldb)
	Feed      propagate.BatchReader
	Syncing   *BgSave // the snapshot being made for waiting replicas
	Waiters   []*Client
	LastPing  time.Time // the last keepalive PING (repl-ping-replica-period)
	LastTick  time.Time // the last once-a-second pass (newlines, timeouts)
	NoneSince time.Time // since when no replica is connected (repl-backlog-ttl)
	ProxyBuf  []byte
	GetAck    bool // a WAIT asked for ACKs
	// A shutdown waiting for lagging replicas (shutdown-timeout), and
	// SHUTDOWN ABORT's request to stop it.
	ShutdownWaiting, ShutdownAbort bool
	// startChecked: redis.conf's replicaof has been acted on.
	StartChecked bool

	SyncFull, SyncPartialOK, SyncPartialErr int64
}

// waitState is a WAIT client's block: how many replicas must have acked
// which offset.
type WaitState struct {
	Off int64
	N   int64
}

// aof_state.
const (
	AofOff = iota
	AofOn
	AofWaitRewrite // turned on: writes wait in a temporary file for the first base
)

type aofState struct {
	State int
	Man   *aof.Manifest
	Dir   string // absolute appenddirname
	F     *os.File
	Enc   propagate.Encoder
	Buf   []byte // aof_buf

	CurrentSize int64 // aof_current_size
	BaseSize    int64 // aof_rewrite_base_size
	Unsynced    bool  // written since the last fsync (everysec)
	WriteErr    error // the last write's error (aof_last_write_status)
	Delayed     int64 // aof_delayed_fsync
	Stop        chan struct{}

	Rw         *AofRewrite
	Scheduled  bool
	LastRwSecs int64 // -1: none yet
	LastRwOK   bool
	Rewrites   int64
	RwFailures int64
	RwSeq      int64 // numbers the rewrites' temporary files
}

type AofRewrite struct {
	Bg    *BgSave
	Start time.Time
	Tmp   string // the new base being written
	Done  chan struct{}
}

// bgSave is a background save in progress. Everything but aborted is
// guarded by the engine lock.
type BgSave struct {
	Opts      rdb.WriterOptions
	Dbs       []*BgDB           // the databases that had keys at the start, in order
	Functions [][]byte          // the function libraries at the start (FUNCTION2 records)
	Enc       *rdb.EntryEncoder // used without the lock, by the goroutine only
	Conv      ToRDB
	Access    rdbAccess
	Total     int64    // keys at the start
	Saved     int64    // keys copied out so far
	Spare     *BgBatch // an emptied batch, for the next swap
	Aborted   atomic.Bool
	Tmp       string
	WalkStats
}

// WalkStats are what the walk's slices cost the lock: their number, total
// and longest hold (for the log and TestBgsaveLockHold).
type WalkStats struct {
	Slices         int
	Held, MaxSlice time.Duration
}

type BgDB struct {
	Index         int
	Keys, Expires uint64
	Snap          *keyspace.Snapshot
	Batch         *BgBatch // keys copied out and not yet encoded
}

// bgBatch holds keys copied out of the keyspace: their bytes in arena
// chunks, which are kept and reused from batch to batch like the records.
type BgBatch struct {
	Recs   []rdb.Entry
	N      int // recs in use
	Chunks [][]byte
	Cur    int // chunk being filled
}

// migrateSocket is a cached connection to a target. The engine lock
// guards it, the idle timer included.
type MigrateSocket struct {
	Nc     net.Conn
	Br     *bufio.Reader
	LastDB int64 // -1: SELECT before the next RESTORE
	Idle   *time.Timer
}

// migrateSockets is the engine's cache, by "host:port" as given.
type MigrateSockets map[string]*MigrateSocket

// toRDB converts values to the rdb model. Members are copied into one arena
// that is reset for every value: the core packages' iterators hand out
// slices valid only during the callback, and the rdb writer encodes each
// value before the next is converted, so one reused arena costs no
// allocation per key once it has grown.
type ToRDB struct {
	Arena []byte
	Spans []int // end offsets of the elements in arena, for the value being built
	V     rdb.Value
}

// Target makes the stream feed the AOF what is for it (PROPAGATE_AOF).
func (a *aofState) Target() propagate.Target { return propagate.ToAOF }

// Feed is the AOF's side of the stream (feedAppendOnlyFile).
// Until the first rewrite opens a file (appendonly just turned on, the
// rewrite not started yet) there is nowhere to write: the rewrite's
// snapshot will have those writes.
func (a *aofState) Feed(op propagate.Op) {
	if a.F != nil {
		a.Buf = a.Enc.Append(a.Buf, op)
	}
}
