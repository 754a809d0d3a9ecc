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

// The component's state, by part: replication (the link to a master, the
// replicas, WAIT), the AOF, the snapshots (background saves, the RDB
// bookkeeping) and MIGRATE's connections. Guarded by the engine lock
// unless a field says otherwise. Component holds one of each
// (durability.go).

const errInvalidPort = "ERR Invalid master port"

// Link states, as ROLE names them.
const (
	replNone       = ""
	replConnect    = "connect"
	replConnecting = "connecting"
	replSync       = "sync"
	replConnected  = "connected"
)

// replState is the replica side's link to its master and, embedded, the
// master side's replicas and backlog. master_repl_offset is not here: the
// engine reads it on every command and holds it (Engine.ReplOffset), as it
// holds what its dispatcher reads of host and state, which setLink and
// setLinkState keep current.
type replState struct {
	masterState // serving replicas (replication_master.go)

	host  string // masterhost: "" on a master
	port  int
	state string

	replid, replid2 string
	secondOffset    int64
	synced          bool // replid/offset name data the master can continue from

	master     *engine.Client // the master's client while the link is up
	streamDB   int            // the master client's database when the link broke (a partial resync continues in it)
	masterSend func(args ...string) error
	lastIO     time.Time
	downSince  time.Time // repl_down_since: when a connected link was lost (zero: not since the last sync)
	stop       chan struct{}
	done       chan struct{}
	fullSyncs  int64
	failover   failoverState // FAILOVER (failover.go)
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
	port       int
	ip         string
	capaEOF    bool
	capaPsync2 bool
}

// replConn is a connection's replication state (engine.ReplConn): what
// its REPLCONF said, and the replica it became with SYNC or PSYNC.
type replConn struct {
	conf    replicaConf
	replica *replica // nil until SYNC or PSYNC, and again once dropped
}

// IsReplica: the connection sent SYNC or PSYNC and was not dropped since.
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
	c       *engine.Client
	conf    replicaConf
	state   int
	psync   bool // PSYNC: it sends ACKs (SYNC's old protocol does not)
	ackOff  int64
	ackTime time.Time
	pending []byte // the stream since its snapshot, until its RDB is out
	// streamOnAck: online after an EOF-marked payload, but the stream is
	// held in pending until its first ACK (repl_start_cmd_stream_on_ack):
	// bytes right after the mark would hide it from a replica that looks
	// for the mark at the end of a read, as Redis's does.
	streamOnAck bool
}

// masterState is the master side's part of replState.
type masterState struct {
	replicas  []*replica
	backlog   *repl.Backlog
	enc       propagate.Encoder // the stream's selected database (slaveseldb)
	feed      propagate.BatchReader
	syncing   *bgSave // the snapshot being made for waiting replicas
	waiters   []*engine.Client
	lastPing  time.Time // the last keepalive PING (repl-ping-replica-period)
	lastTick  time.Time // the last once-a-second pass (newlines, timeouts)
	noneSince time.Time // since when no replica is connected (repl-backlog-ttl)
	proxyBuf  []byte
	// A shutdown waiting for lagging replicas (shutdown-timeout), and
	// SHUTDOWN ABORT's request to stop it.
	shutdownWaiting, shutdownAbort bool
	// startChecked: redis.conf's replicaof has been acted on.
	startChecked bool

	syncFull, syncPartialOK, syncPartialErr int64
}

// waitState is a WAIT client's block: how many replicas must have acked
// which offset.
type waitState struct {
	off int64
	n   int64
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

// aofState is the append-only file's (aof.go): the files, the buffer
// the stream feeds, the rewrite in progress and INFO's figures.
type aofState struct {
	state int
	man   *aof.Manifest
	dir   string // absolute appenddirname
	f     *os.File
	enc   propagate.Encoder
	buf   []byte // aof_buf

	currentSize int64 // aof_current_size
	baseSize    int64 // aof_rewrite_base_size
	unsynced    bool  // written since the last fsync (everysec)
	writeErr    error // the last write's error (aof_last_write_status)
	delayed     int64 // aof_delayed_fsync
	stop        chan struct{}

	rw         *aofRewrite
	scheduled  bool
	lastRwSecs int64 // -1: none yet
	lastRwOK   bool
	rewrites   int64
	rwFailures int64
	rwSeq      int64 // numbers the rewrites' temporary files
}

// aofRewrite is a BGREWRITEAOF in progress (aof_rewrite.go).
type aofRewrite struct {
	bg    *bgSave
	start time.Time
	tmp   string // the new base being written
	rdb   bool   // the base is an RDB (aof-use-rdb-preamble when it started)
	done  chan struct{}
}

// Target makes the stream feed the AOF what is for it (PROPAGATE_AOF).
func (a *aofState) Target() propagate.Target { return propagate.ToAOF }

// Feed is the AOF's side of the stream (feedAppendOnlyFile).
// Until the first rewrite opens a file (appendonly just turned on, the
// rewrite not started yet) there is nowhere to write: the rewrite's
// snapshot will have those writes.
func (a *aofState) Feed(op propagate.Op) {
	if a.f != nil {
		a.buf = a.enc.Append(a.buf, op)
	}
}

// bgSave is a background save in progress. Everything but aborted is
// guarded by the engine lock.
type bgSave struct {
	opts      rdb.WriterOptions
	cmds      bool              // an AOF base of commands (aof-use-rdb-preamble no), not an RDB
	dbs       []*bgDB           // the databases that had keys at the start, in order
	functions [][]byte          // the function libraries at the start (FUNCTION2 records)
	enc       *rdb.EntryEncoder // used without the lock, by the goroutine only
	conv      ToRDB
	access    engine.RdbAccess
	total     int64    // keys at the start
	saved     int64    // keys copied out so far
	spare     *bgBatch // an emptied batch, for the next swap
	aborted   atomic.Bool
	tmp       string
	walkStats
}

// walkStats are what the walk's slices cost the lock: their number, total
// and longest hold (for the log and TestBgsaveLockHold).
type walkStats struct {
	slices         int
	held, maxSlice time.Duration
}

// bgDB is one database of a background save: its snapshot walk, and the
// keys copied out of it waiting to be encoded.
type bgDB struct {
	index         int
	keys, expires uint64
	snap          *keyspace.Snapshot
	batch         *bgBatch // keys copied out and not yet encoded
}

// bgBatch holds keys copied out of the keyspace: their bytes in arena
// chunks, which are kept and reused from batch to batch like the records.
type bgBatch struct {
	recs   []rdb.Entry
	n      int // recs in use
	chunks [][]byte
	cur    int // chunk being filled
}

// migrateSocket is a cached connection to a target. The engine lock
// guards it, the idle timer included.
type migrateSocket struct {
	nc     net.Conn
	br     *bufio.Reader
	lastDB int64 // -1: SELECT before the next RESTORE
	idle   *time.Timer
}

// ToRDB converts values to the rdb model. Members are copied into one arena
// that is reset for every value: the core packages' iterators hand out
// slices valid only during the callback, and the rdb writer encodes each
// value before the next is converted, so one reused arena costs no
// allocation per key once it has grown.
type ToRDB struct {
	arena []byte
	spans []int // end offsets of the elements in arena, for the value being built
	v     rdb.Value
}

// rdbState is the snapshots' bookkeeping, guarded by the engine lock
// except where noted.
type rdbState struct {
	dirtyAtBg  int64     // the engine's dirty count when the running BGSAVE took its snapshot
	lastSave   time.Time // last successful save (LASTSAVE), the start at first
	lastBgTry  time.Time
	lastBgOK   bool
	bgRunning  bool
	bgStart    time.Time
	lastBgSecs int64 // -1: none yet
	scheduled  bool  // BGSAVE SCHEDULE (or BGSAVE in EXEC) waits for the cron
	saves      int64 // rdb_saves
	// loaded at start (INFO rdb_last_load_keys_*)
	loadKeys, loadExpired int
	// lastLockHold is how long the last BGSAVE's start held the executor
	// lock (the walk's slices come after).
	lastLockHold time.Duration

	// fileMu orders the renames of a synchronous save and of a background
	// save it aborted (bgsave.go), so the older snapshot never lands last.
	fileMu   sync.Mutex
	bg       *bgSave       // the background save in progress (bgsave.go)
	lastWalk walkStats     // the last successful one's slices
	bgSeq    int64         // numbers the background saves' temporary files
	bgDone   chan struct{} // closed when the running background save's goroutine ends
	// beforeRename is a test hook run between the temp file's fsync and
	// its rename.
	beforeRename func()
}
