package durability

import (
	"bufio"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/propagate"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/repl"
)

const errInvalidPort = "ERR Invalid master port"

// Link states, as ROLE names them.
const (
	replNone       = ""
	replConnect    = "connect"
	replConnecting = "connecting"
	replSync       = "sync"
	replConnected  = "connected"
)

type replState struct {
	masterState // serving replicas (replication_master.go)

	Host  string // masterhost: "" on a master
	Port  int
	State string

	Replid, Replid2 string
	SecondOffset    int64
	Synced          bool // replid/offset name data the master can continue from

	Master     *engine.Client // the master's client while the link is up
	StreamDB   int            // the master client's database when the link broke (a partial resync continues in it)
	MasterSend func(args ...string) error
	LastIO     time.Time
	DownSince  time.Time // repl_down_since: when a connected link was lost (zero: not since the last sync)
	Stop       chan struct{}
	Done       chan struct{}
	FullSyncs  int64
}

// A replica's states, as INFO names them (replstateToString).
const (
	replicaWaitStart = iota // waits for a snapshot to start
	replicaWaitEnd          // its snapshot is being made; the stream is kept for it
	replicaSendBulk         // its RDB is going out
	replicaOnline           // it gets the stream as it happens
)

// replicaConf is what a connection said with REPLCONF before its SYNC.
type replicaConf struct {
	Port       int
	Ip         string
	CapaEOF    bool
	CapaPsync2 bool
}

// replConn is a connection's replication state (engine.ReplConn): what
// its REPLCONF said, and the replica it became with SYNC or PSYNC.
type replConn struct {
	conf    replicaConf
	replica *replica // nil until SYNC or PSYNC, and again once dropped
}

func (rc *replConn) IsReplica() bool { return rc.replica != nil }

// replicaOf is the replica c is, nil if it is none.
func replicaOf(c *engine.Client) *replica {
	if rc, ok := c.Repl.(*replConn); ok {
		return rc.replica
	}
	return nil
}

// connOf is c's replication state, made at its first REPLCONF, SYNC or
// PSYNC.
func connOf(c *engine.Client) *replConn {
	rc, _ := c.Repl.(*replConn)
	if rc == nil {
		rc = &replConn{}
		c.Repl = rc
	}
	return rc
}

// replica is a connection that asked for the stream (CLIENT_SLAVE).
type replica struct {
	C       *engine.Client
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
	Replicas  []*replica
	Backlog   *repl.Backlog
	Enc       propagate.Encoder // the stream's selected database (slaveseldb)
	Feed      propagate.BatchReader
	Syncing   *bgSave // the snapshot being made for waiting replicas
	Waiters   []*engine.Client
	LastPing  time.Time // the last keepalive PING (repl-ping-replica-period)
	LastTick  time.Time // the last once-a-second pass (newlines, timeouts)
	NoneSince time.Time // since when no replica is connected (repl-backlog-ttl)
	ProxyBuf  []byte
	// A shutdown waiting for lagging replicas (shutdown-timeout), and
	// SHUTDOWN ABORT's request to stop it.
	ShutdownWaiting, ShutdownAbort bool
	// startChecked: redis.conf's replicaof has been acted on.
	StartChecked bool

	SyncFull, SyncPartialOK, SyncPartialErr int64
}

// waitState is a WAIT client's block: how many replicas must have acked
// which offset.
type waitState struct {
	Off int64
	N   int64
}

// waitOf is what the blocked WAIT b waits for, nil if b is no WAIT (or
// nil: the client is no longer blocked).
func waitOf(b *engine.BlockState) *waitState {
	if b == nil {
		return nil
	}
	w, _ := b.Wait.(*waitState)
	return w
}

// aof_state.
const (
	aofOff = iota
	aofOn
	aofWaitRewrite // turned on: writes wait in a temporary file for the first base
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

	Rw         *aofRewrite
	Scheduled  bool
	LastRwSecs int64 // -1: none yet
	LastRwOK   bool
	Rewrites   int64
	RwFailures int64
	RwSeq      int64 // numbers the rewrites' temporary files
}

type aofRewrite struct {
	Bg    *bgSave
	Start time.Time
	Tmp   string // the new base being written
	Done  chan struct{}
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

// bgSave is a background save in progress. Everything but aborted is
// guarded by the engine lock.
type bgSave struct {
	Opts      rdb.WriterOptions
	Dbs       []*bgDB           // the databases that had keys at the start, in order
	Functions [][]byte          // the function libraries at the start (FUNCTION2 records)
	Enc       *rdb.EntryEncoder // used without the lock, by the goroutine only
	Conv      ToRDB
	Access    engine.RdbAccess
	Total     int64    // keys at the start
	Saved     int64    // keys copied out so far
	Spare     *bgBatch // an emptied batch, for the next swap
	Aborted   atomic.Bool
	Tmp       string
	walkStats
}

// walkStats are what the walk's slices cost the lock: their number, total
// and longest hold (for the log and TestBgsaveLockHold).
type walkStats struct {
	Slices         int
	Held, MaxSlice time.Duration
}

type bgDB struct {
	Index         int
	Keys, Expires uint64
	Snap          *keyspace.Snapshot
	Batch         *bgBatch // keys copied out and not yet encoded
}

// bgBatch holds keys copied out of the keyspace: their bytes in arena
// chunks, which are kept and reused from batch to batch like the records.
type bgBatch struct {
	Recs   []rdb.Entry
	N      int // recs in use
	Chunks [][]byte
	Cur    int // chunk being filled
}

// migrateSocket is a cached connection to a target. The engine lock
// guards it, the idle timer included.
type migrateSocket struct {
	Nc     net.Conn
	Br     *bufio.Reader
	LastDB int64 // -1: SELECT before the next RESTORE
	Idle   *time.Timer
}

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

// rdbState is the snapshots' bookkeeping, guarded by the engine lock
// except where noted.
type rdbState struct {
	DirtyAtBg  int64     // dirty when the running BGSAVE took its snapshot
	LastSave   time.Time // last successful save (LASTSAVE), the start at first
	LastBgTry  time.Time
	LastBgOK   bool
	BgRunning  bool
	BgStart    time.Time
	LastBgSecs int64 // -1: none yet
	Scheduled  bool  // BGSAVE SCHEDULE (or BGSAVE in EXEC) waits for the cron
	Saves      int64 // rdb_saves
	// loaded at start (INFO rdb_last_load_keys_*)
	LoadKeys, LoadExpired int
	// lastLockHold is how long the last BGSAVE's start held the executor
	// lock (the walk's slices come after).
	LastLockHold time.Duration

	// fileMu orders the renames of a synchronous save and of a background
	// save it aborted (bgsave.go), so the older snapshot never lands last.
	FileMu   sync.Mutex
	Bg       *bgSave       // the background save in progress (bgsave.go)
	LastWalk walkStats     // the last successful one's slices
	BgSeq    int64         // numbers the background saves' temporary files
	BgDone   chan struct{} // closed when the running background save's goroutine ends
	// beforeRename is a test hook run between the temp file's fsync and
	// its rename.
	BeforeRename func()
}
