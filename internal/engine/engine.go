// Package commands is limitkv's executor: the command table, the handlers
// (one file per family, as Redis's t_zset.c, t_string.c, ...), and the engine
// state they work on.
//
// Atomicity comes from one mutex, held by a connection for a whole pipelined
// batch of commands (and by the active expiry cycle for a bounded slice of
// time). Every command therefore runs alone, in arrival order per connection,
// exactly as on Redis's single thread; holding the lock per batch rather than
// per command keeps lock traffic off the pipelined hot path.
//
// Handlers parse and validate every argument before they touch data, so a
// command that answers an error has changed nothing.
package engine

import (
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/keyslot"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/resp"
)

// Stats are the counters INFO reports. Guarded by the engine lock except
// where atomic.
type Stats struct {
	Commands          int64
	Connections       atomic.Int64
	RejectedConns     atomic.Int64
	KeyspaceHits      int64
	KeyspaceMisses    int64
	EvictedKeys       int64
	NetInput          atomic.Int64
	NetOutput         atomic.Int64
	ExpiredStalePerc  float64
	ExpireCycleMicros int64
}

// Engine is the whole server state behind the executor lock.
type Engine struct {
	mu sync.Mutex

	Clock clock.Clock
	Cfg   *config.Config
	Log   *slog.Logger
	Stats Stats
	Start time.Time
	RunID string

	Dbs     [config.NumDBs]*keyspace.DB
	Clients map[int64]*Client
	nextID  atomic.Int64

	// blocked clients by database and key, in the order they blocked.
	waiting map[WaitKey][]*Client
	ready   []WaitKey // keys written since the last serveBlocked

	// Shutdown is called (without the lock) when a client sends SHUTDOWN.
	Shutdown func()
	// Fault, if set, sees each command of a connection before it runs
	// (the embedded server's fault injection): done answers for it, with
	// what it wrote to w and the outcome it returned. Called with the lock
	// held.
	Fault func(c *Client, args [][]byte, w *resp.Writer) (out Outcome, done bool)

	expireScratch []*keyspace.Entry
	locals        map[any]any // the families' own state (Local)
	reclaimed     int         // keys the expiry cycle removed since memory was last returned
	lastReturn    time.Time   // when it was
	returnPending bool        // a large reclamation is waiting for returnMemory's next turn
	shrinkWait    time.Time   // since when a pending return waits for a big table's shrink
	quiet         QuietReturn
	// prefetchSink keeps Prefetch's reads from being optimised away (a
	// field, not a global: engines in one process run at the same time).
	prefetchSink uint64
	// memPeak is the highest used_memory INFO has seen (Redis samples its
	// peak the same lazy way, at each cron tick and INFO).
	MemPeak uint64
	Ops     OpsSample // for INFO's instantaneous_ops_per_sec

	// watching counts watched keys, so every write and deletion costs one
	// comparison when nobody watches anything.
	watching int
	watch    *watchTable // WATCHed keys (transactions.go)
	// Scripts is the scripting component (EVAL, FUNCTION).
	Scripts Scripting
	// Cluster is the cluster component; nil unless cluster-enabled.
	Cluster   Cluster
	slotQuery SlotQuery      // clusterRedirect's, reused
	slotIndex *keyslot.Index // database 0's keys by slot, in cluster mode
	// Dur is the durability component: RDB, AOF, replication.
	Dur        Durability
	persist    persistState // what the engine reads of persistence (persist_status.go)
	Memory     *memState    // maxmemory accounting (memory.go)
	ps         pubsubState  // Pub/Sub registries (pubsub.go)
	Debug      debugState   // DEBUG's switches (debug.go)
	BusyScript busyState    // a script running past busy-reply-threshold (busy.go)
	Cs         surface      // MONITOR and CLIENT PAUSE (monitor.go, client_pause.go)

	LoadingKeys bool      // an RDB load is adding keys: no "new" events (notify.go)
	StartLoad   LoadState // the load at start (loading.go)
	repl        replState // what the engine reads of replication (durability_state.go)

	Trk trackingState // client-side caching (tracking.go)
	Obs obsState      // command statistics, slow log, latency monitor (cmdstats.go)

	realClock bool          // Clock is clock.Real (commandClock)
	wallAt    time.Duration // commandClock's last wall reading, on the monotonic clock
	wallOff   int64         // and the wall time's offset from it, ns

	lastName [32]byte // lookup's cache: the name as sent, its length, its command
	lastLen  int
	lastCmd  *Command

	Prop propState // the write stream (propagate.go)
}

type WaitKey struct {
	Db  int
	Key string
}

// New returns an engine with empty databases.
func New(cfg *config.Config, clk clock.Clock, log *slog.Logger) *Engine {
	if Table == nil {
		panic("engine: no command table installed (make engines with internal/commands.New)")
	}
	if clk == nil {
		clk = clock.Real{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	_, real := clk.(clock.Real)
	e := &Engine{
		Clock:     clk,
		realClock: real,
		Cfg:       cfg,
		Log:       log,
		Start:     clk.Now(),
		RunID:     newRunID(),
		Clients:   make(map[int64]*Client),
		Memory:    NewMemState(),
		waiting:   make(map[WaitKey][]*Client),
	}
	if real {
		e.resyncWall()
	}
	e.ps.init()
	for i := range e.Dbs {
		e.Dbs[i] = keyspace.New()
		e.Dbs[i].Access = &cfg.Access
		e.BindDB(i)
	}
	return e
}

// Lock takes the executor lock. Connections hold it for a batch.
func (e *Engine) Lock() { e.mu.Lock() }

// Unlock releases the executor lock. BCAST invalidations collected during
// the batch go out first, as Redis sends them once per event-loop turn.
// The AOF takes what the batch wrote first (flushAppendOnlyFile in
// beforeSleep): the connection hands replies to the socket only after
// this, so with appendfsync always no client sees a reply before its write
// is on disk.
func (e *Engine) Unlock() { e.trackingBroadcastPending(); e.Dur.FlushAOF(false); e.mu.Unlock() }

// LockBare and UnlockBare take and release the executor lock without
// Unlock's before-sleep work (the AOF flush, tracking broadcasts): for a
// component's own bookkeeping outside any command, such as a cron that
// only reads its state or a goroutine handing over a finished snapshot.
func (e *Engine) LockBare()   { e.mu.Lock() }
func (e *Engine) UnlockBare() { e.mu.Unlock() }

// DB returns database i. Call with the lock held.
func (e *Engine) DB(i int) *keyspace.DB { return e.Dbs[i] }

func (e *Engine) NowMs() int64 { return e.Clock.Now().UnixMilli() }

// lookup is Lookup through a one-entry cache of the name as sent: clients
// repeat a command, and a pipelined batch is looked up twice (Prefetch,
// then dispatch); the table's map, with the name lowered first, was a
// fifteenth of a pipelined PING. Call with the lock held.
func (e *Engine) Lookup(name []byte) *Command {
	if c := e.lastCmd; c != nil && string(name) == string(e.lastName[:e.lastLen]) {
		return c
	}
	c := Lookup(name)
	if c != nil && len(name) <= len(e.lastName) {
		e.lastLen = copy(e.lastName[:], name)
		e.lastCmd = c
	}
	return c
}

// commandClock is a top-level command's time (Unix ms) and the start of
// its duration, from one reading of the monotonic clock: each read costs
// 30-60 ns here and a PING's whole in-process run took four of them. The
// wall time is the monotonic reading plus an offset taken from time.Now
// at most wallResync ago, so a step of the system clock reaches commands
// within that (a slew drifts it by nanoseconds meanwhile). Another clock
// (a test's) is read as it is; the duration then has its own read. Call
// with the lock held.
func (e *Engine) commandClock() (int64, time.Duration) {
	if !e.realClock {
		return e.Clock.Now().UnixMilli(), monoNow()
	}
	m := monoNow()
	if m-e.wallAt >= wallResync {
		e.resyncWall()
	}
	return (int64(m) + e.wallOff) / 1e6, m
}

// resyncWall takes commandClock's wall offset from time.Now.
func (e *Engine) resyncWall() {
	t := time.Now()
	e.wallAt = t.Sub(monoBase)
	e.wallOff = t.UnixNano() - int64(e.wallAt)
}

// wallResync is how often commandClock reads the wall clock again.
const wallResync = 100 * time.Millisecond

// Outcome tells the connection what to do after a command.
type Outcome uint8

const (
	Continue Outcome = iota // reply written; go on
	Blocked                 // the client waits: call WaitBlocked
	Close                   // reply written; close the connection after flushing it
	// Paused: CLIENT PAUSE holds the command back, nothing was written.
	// The connection waits as for Blocked, then runs the same command again.
	Paused
)

// Ctx is what a handler sees: the engine, the calling client, its reply
// buffer, the selected database and the command's time snapshot.
type Ctx struct {
	E   *Engine
	C   *Client
	W   *resp.Writer
	DB  *keyspace.DB
	Now int64 // Unix ms, frozen for the command (and for a whole script)
	// start is the monotonic reading the command's duration is measured
	// from when the clock read for Now gave it too; 0: call reads one.
	start time.Duration
	Args  [][]byte
	Cmd   *Command

	Blocking *BlockState // set by Block
	// readyKey is, when a blocked client's command is re-run to serve it,
	// the key whose write woke it: Redis serves the client from that key.
	ReadyKey string
	Rerun    bool     // that re-run: MONITOR showed the command already
	rejected *Command // what the dispatcher refuses, for its rejected_calls

	propArgs [][]byte // propagate as these instead (Rewrite)
	noProp   bool     // propagate only what AlsoPropagate added
	toRepl   bool     // propagate to replicas even unchanged (ForceReplication)
}

// PrefetchWindow is how many commands of a pipelined batch Prefetch looks
// at: a connection calls it for each window of a longer batch.
const PrefetchWindow = keyspace.TouchMax

// Prefetch touches the keys of (a window of) a pipelined batch
// (keyspace.DB.TouchAll) before it runs, so that the batch waits for its
// cache misses together rather than one command at a time. Only the first
// key of each of the first PrefetchWindow commands is touched (see
// Command.firstKey). Call with the lock held.
func (e *Engine) Prefetch(c *Client, batch [][][]byte) {
	if len(batch) < 2 || c.Multi != nil {
		return
	}
	var buf [PrefetchWindow][]byte
	keys := buf[:0]
	for _, args := range batch {
		if len(keys) == len(buf) {
			break
		}
		if len(args) == 0 {
			continue
		}
		keys = e.appendFirstKey(keys, args)
	}
	e.prefetchSink = e.Dbs[c.DB].TouchAll(keys)
}

// appendFirstKey appends the first key of command args, if it has one.
func (e *Engine) appendFirstKey(keys [][]byte, args [][]byte) [][]byte {
	if cmd := e.Lookup(args[0]); cmd != nil {
		if k, ok := cmd.PrefetchKey(args); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// PrefetchEach is Prefetch across connections: the first command of each
// client of a turn (cmds[i] is cls[i]'s), for clients that do not
// pipeline, whose one request each would otherwise meet its cache misses
// alone (a turn of 50 unpipelined clients finds about 4 ready). Keys of
// clients in another database than the first one's are left out. Call
// with the lock held.
func (e *Engine) PrefetchEach(cls []*Client, cmds [][][]byte) {
	if len(cls) < 2 {
		return
	}
	db := cls[0].DB
	var buf [PrefetchWindow][]byte
	keys := buf[:0]
	for i, c := range cls {
		if len(keys) == len(buf) {
			break
		}
		args := cmds[i]
		if len(args) == 0 || c.DB != db || c.Multi != nil {
			continue
		}
		keys = e.appendFirstKey(keys, args)
	}
	if len(keys) > 1 {
		e.prefetchSink = e.Dbs[db].TouchAll(keys)
	}
}

// Exec runs one command for c, writing its reply to w. Call with the lock held.
func (e *Engine) Exec(c *Client, args [][]byte, w *resp.Writer) Outcome {
	// The client's own Ctx is reused: a Ctx passed to handlers through the
	// table escapes, and a fresh one per command would be an allocation on
	// every request. Nested commands (EXEC, scripts) make their own.
	if e.persist.shutdownDone {
		// The shutdown's save has run (or was not wanted): a write
		// acknowledged now would be lost with the process, and Redis,
		// which exits there, runs nothing more either.
		return Close
	}
	if e.Fault != nil {
		if out, done := e.Fault(c, args, w); done {
			return out
		}
	}
	x := &c.ctx
	*x = Ctx{E: e, C: c, W: w, Args: args}
	if c.Cs.Reply != 0 {
		return e.execQuiet(x)
	}
	out := e.dispatch(x)
	// ASKING lasts one command (resetClient), or until EXEC.
	if c.Asking && c.Multi == nil && c.LastCmd != "asking" {
		c.Asking = false
	}
	if len(e.ready) > 0 && !e.BusyScript.On {
		e.serveBlocked()
	}
	return out
}

func (e *Engine) dispatch(x *Ctx) (out Outcome) {
	c, args := x.C, x.Args
	cmd := e.Lookup(args[0])
	if cmd == nil {
		c.LastCmd = ""
		e.reject(x, errUnknownCommand(args))
		return e.closing(c)
	}
	if cmd.Sub != nil && len(args) >= 2 {
		sub := LookupSub(cmd, args[1])
		if sub == nil {
			c.LastCmd = ""
			e.reject(x, errUnknownSubcommand(args[1], cmd.Name))
			return e.closing(c)
		}
		cmd = sub
	}
	// Redis's lastcmd (CLIENT LIST cmd=): the command looked up, even if it
	// is then refused or queued, never one EXEC or a script runs.
	c.LastCmd = cmd.Name
	if !ArityOK(cmd.Arity, len(args)) {
		e.rejectCmd(x, cmd, ErrWrongArgs(cmd.Name))
		return e.closing(c)
	}
	if cmd.Name == "debug" && !e.debugAllowed(c) {
		e.rejectCmd(x, cmd, ErrDebugNotAllowed)
		return e.closing(c)
	}
	if !c.Authed.Load() && cmd.Flags&FlagNoAuth == 0 && e.Cfg.AuthRequired() {
		e.rejectCmd(x, cmd, ErrNoAuth)
		return e.closing(c)
	}
	if u := c.User; u != nil && !u.Unrestricted && e.aclDenied(x, cmd) {
		return e.closing(c)
	}
	if e.Cluster != nil {
		if msg := e.clusterRedirect(x, cmd); msg != "" {
			if cmd.Name == "exec" {
				// discardTransaction, then the redirection itself: no
				// EXECABORT wording here.
				c.Multi = nil
				e.UnwatchAll(c)
				x.rejected = cmd
				e.reject(x, msg)
			} else {
				e.rejectCmd(x, cmd, msg)
			}
			return e.closing(c)
		}
	}
	if e.Cfg.MaxMemory.Load() > 0 && !e.BusyScript.On && !c.IsMaster && (denyOOM(c, cmd) || e.Scripts.DeniesOOM(cmd, args)) && !e.memoryAvailable() {
		e.rejectCmd(x, cmd, ErrOOM)
		return e.closing(c)
	}
	if (cmd.Flags&FlagWrite != 0 || cmd.Name == "ping") && !c.IsMaster && e.Dur.WritesRefused() {
		e.rejectCmd(x, cmd, ErrMisconf)
		return e.closing(c)
	}
	if e.Cfg.MinReplicasToWrite.Load() > 0 && !c.IsMaster && writesData(c, cmd) && e.Dur.NoGoodReplicas() {
		e.rejectCmd(x, cmd, ErrNoReplicas)
		return e.closing(c)
	}
	if e.repl.replica && e.replicaDenies(c, cmd) {
		e.rejectCmd(x, cmd, errReadOnlyReplica)
		return e.closing(c)
	}
	if c.Proto != 3 && c.InPubSub() && !allowedSubscribed(cmd) {
		e.rejectCmd(x, cmd, "ERR Can't execute '"+cmd.Name+"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
		return e.closing(c)
	}
	if e.repl.replica && !e.repl.linkUp && !c.IsMaster && !e.Cfg.ReplicaServeStale.Load() && deniesStale(c, cmd) {
		e.rejectCmd(x, cmd, errMasterDown)
		return e.closing(c)
	}
	if e.StartLoad.On && loadingDenied(c, cmd) {
		e.rejectCmd(x, cmd, ErrLoading)
		return e.closing(c)
	}
	if e.BusyScript.On && cmd.Flags&FlagAllowBusy == 0 {
		e.rejectCmd(x, cmd, e.BusyScript.BusyError())
		return e.closing(c)
	}
	if e.Cs.Gate != 0 {
		if c.Cs.Monitor && e.keyspaceDenied(c, cmd, args) {
			e.rejectCmd(x, cmd, "ERR Replica can't interact with the keyspace")
			return e.closing(c)
		}
		if e.postpone(x, cmd) {
			return Paused
		}
	}
	if c.Multi != nil && cmd.Flags&FlagNoMulti == 0 {
		// A doomed transaction queues nothing more, as in Redis.
		if !c.Multi.Dirty && !e.watchDirty(c) {
			m := c.Multi
			m.Queue(cmd, args)
			m.denyOOM = m.denyOOM || e.Scripts.DeniesOOM(cmd, args)
			r, w, mr := e.effectiveFlags(c, cmd, args)
			m.read, m.write, m.mayRepl = m.read || r, m.write || w, m.mayRepl || mr
		}
		x.W.Simple("QUEUED")
		return Continue
	}
	x.Cmd = cmd
	x.DB = e.Dbs[c.DB]
	x.Now, x.start = e.commandClock()
	e.Call(x)
	// processCommand's c->woff, what WAIT waits for: the stream's offset
	// after the client's last command; a WAIT's request for ACKs goes
	// after it, as Redis sends it before sleeping.
	c.Woff = e.repl.offset
	if e.repl.getAck {
		e.repl.getAck = false
		e.Dur.RequestAcks()
	}
	if x.Blocking != nil {
		e.RegisterBlocked(x)
		return Blocked
	}
	return e.closing(c)
}

// allowedSubscribed is what a RESP2 client may send while it listens to
// anything: RESP2 has no way to tell a reply from a message otherwise.
func allowedSubscribed(cmd *Command) bool {
	switch cmd.Name {
	case "ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe", "psubscribe", "punsubscribe", "quit", "reset":
		return true
	}
	return false
}

// denyOOM is Redis's rule for what is refused over maxmemory: commands that
// may grow memory, an EXEC that queued one, and inside MULTI everything but
// EXEC, DISCARD, QUIT and RESET, since queueing itself takes memory.
func denyOOM(c *Client, cmd *Command) bool {
	if cmd.Flags&FlagDenyOOM != 0 {
		return true
	}
	if c.Multi == nil {
		return false
	}
	switch cmd.Name {
	case "exec":
		return c.Multi.denyOOM
	case "discard", "quit", "reset":
		return false
	}
	return true
}

// reject answers an error found before the command ran; inside MULTI it also
// dooms the transaction, as Redis's EXECABORT rule wants.
func (e *Engine) reject(x *Ctx, msg string) {
	if x.C.Multi != nil {
		x.C.Multi.Dirty = true
	}
	e.trackingRejected(x)
	x.W.Error(msg)
	e.afterReject(x.rejected, msg)
}

// rejectCmd is reject for a known command: a refused EXEC also discards the
// transaction, with Redis's EXECABORT wording.
func (e *Engine) rejectCmd(x *Ctx, cmd *Command, msg string) {
	x.rejected = cmd
	if cmd.Name == "exec" {
		e.afterReject(cmd, "EXECABORT")
		e.execAbort(x, msg)
		// The monitors saw MULTI: they see the EXEC that ends it.
		if len(e.Cs.Monitors) > 0 {
			e.feedMonitors(x.C, x.Args)
		}
		return
	}
	e.reject(x, msg)
}

func (e *Engine) closing(c *Client) Outcome {
	if c.CloseAfterReply {
		return Close
	}
	return Continue
}

// call runs the handler. A panic is answered with an error and logged: one bad
// command must never take the server down. What the handler wrote before the
// panic is dropped so the client sees exactly one reply.
func (e *Engine) Call(x *Ctx) {
	defer e.trackingLeave(x, e.trackingEnter(x))
	mark := x.W.Len()
	depth := e.Prop.depth
	defer func() {
		if r := recover(); r != nil {
			e.Prop.depth = depth // what it propagated goes with the next flush
			x.W.Truncate(mark)
			x.W.Error(ErrInternal)
			e.Log.Error("command panicked", "cmd", x.Cmd.Name, "client", x.C.ID, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	e.Stats.Commands++
	start := x.start
	if start == 0 {
		start = monoNow()
	}
	changes := e.Prop.changes
	e.Prop.depth++
	if e.Cs.Gate == 0 {
		x.Cmd.Handler(x)
	} else {
		e.callMonitored(x)
	}
	e.Prop.depth--
	e.afterCall(x, mark, start)
	if x.Cmd.Flags&FlagWrite != 0 {
		e.countChange(x, mark, e.Prop.changes-changes)
	}
	e.propagateCall(x, changes)
}

// ExpireCycle reclaims keys whose deadline passed, working for at most budget
// while holding the lock, so a million keys expiring together cost other
// clients at most one budget of delay per cycle. It reports whether work was
// left for the next cycle.
func (e *Engine) ExpireCycle(budget time.Duration) (more bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.BusyScript.On || e.StartLoad.On || e.repl.replica { // a replica waits for its master's DEL
		return false // keys must not expire behind a running script's back, or before the load drops them
	}
	if e.Cs.Pause.Kind != PauseOff && e.Paused() {
		return false // a pause keeps the dataset as it is
	}
	start := time.Now()
	now := e.NowMs()
	for _, db := range e.Dbs {
		if db.ExpiresLen() == 0 {
			continue
		}
		for {
			var n int
			before := db.Len()
			n, e.expireScratch = db.ExpireDue(now, 64, e.expireScratch)
			e.reclaimed += before - db.Len()
			if n < 64 {
				break
			}
			if time.Since(start) >= budget {
				more = true
				break
			}
		}
		if more {
			break
		}
	}
	e.TrackingCron()
	e.LatencyAddIfNeeded("expire-cycle", time.Since(start).Milliseconds())
	if len(e.ready) > 0 {
		e.serveBlocked()
	}
	if !more {
		e.ReturnMemory()
	}
	return more
}

// RehashActively moves resizes in progress on for at most budget, as
// Redis's cron does (activerehashing): a resize otherwise moves one bucket
// per lookup, so after an expiry storm the storm's table (2M buckets,
// 16 MB) stayed next to its replacement for as long as the traffic took to
// walk it. A resize that drops a big table hands the memory back.
func (e *Engine) RehashActively(budget time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.BusyScript.On {
		return
	}
	start := time.Now()
	defer func() {
		// A shrink that lookups finished counts as one finished here: in
		// an expiry storm's wake the traffic's steps often end it first.
		for _, db := range e.Dbs {
			if db.TakeDropped() >= BigTable {
				e.returnPending = true // the old table is garbage now
			}
		}
		e.ReturnMemory()
	}()
	for _, db := range e.Dbs {
		for db.Rehashing() && !db.Snapshotting() {
			db.RehashFor(100)
			if time.Since(start) >= budget {
				return
			}
		}
	}
}

// bigTable is the size (buckets) from which a table freed by a finished
// resize is worth returning to the OS at once: 8 MB of bucket array, which
// nothing else would collect soon when the traffic allocates little (a
// rate-limit check allocates nothing).
const BigTable = 1 << 20

// returnMemory gives memory back to the OS after the expiry cycle has
// reclaimed a large part of the keyspace (an expiry storm) or a resize has
// dropped a big table: the Go heap goal was set while that memory was
// live, so without a collection the heap would refill to it and the
// resident size stay high for many seconds, or for good under traffic that
// allocates little. At most once per 5 s, in the background, without the
// lock; a reclamation that comes sooner waits for the next turn.
func (e *Engine) ReturnMemory() {
	keys := 0
	for _, db := range e.Dbs {
		keys += db.Len()
	}
	if e.reclaimed >= 50_000 && e.reclaimed >= keys/4 {
		e.returnPending = true
		e.reclaimed = 0
	}
	// Under maxmemory the accounting (memory.go) runs its own collections
	// and a forced one at a quiet moment upsets its bookkeeping: the
	// volatile-lru flood of TestEvictFlood evicted more, hot keys included.
	if e.Cfg.MaxMemory.Load() == 0 && e.quiet.Due(e.Stats.Commands, time.Now()) {
		e.returnPending = true
	}
	if !e.returnPending || time.Since(e.lastReturn) < returnEvery {
		return
	}
	// A big table still shrinking is dropped moments later (RehashActively
	// walks it): returned now, its memory would stay resident until the
	// next turn. So the return waits for the shrink, at most returnEvery
	// (a snapshot holds a shrink back for as long as it runs).
	if e.bigShrinkRunning() {
		if e.shrinkWait.IsZero() {
			e.shrinkWait = time.Now()
		}
		if time.Since(e.shrinkWait) < returnEvery {
			return
		}
	}
	e.shrinkWait = time.Time{}
	e.returnPending = false
	e.lastReturn = time.Now()
	e.quiet.Returned()
	go debug.FreeOSMemory()
}

// ReturnMemorySoon asks for memory to go back to the OS at returnMemory's
// next turn: a command has just dropped a large allocation (LCS's table)
// that Redis would have freed at once.
func (e *Engine) ReturnMemorySoon() { e.returnPending = true }

// returnEvery spaces returnMemory's forced collections, and bounds how long
// one waits for a shrink.
const returnEvery = 5 * time.Second

// bigShrinkRunning reports whether a database is shrinking a table of at
// least bigTable buckets.
func (e *Engine) bigShrinkRunning() bool {
	for _, db := range e.Dbs {
		if old, next := db.Buckets(); db.Rehashing() && old >= BigTable && next < old {
			return true
		}
	}
	return false
}

// Lookup returns the live entry for key in the selected database, counting
// keyspace hits and misses for INFO.
func (x *Ctx) Lookup(key []byte) *keyspace.Entry {
	ent := x.DB.Get(key, x.Now)
	if ent == nil {
		x.E.Stats.KeyspaceMisses++
		x.KeyMiss(key)
	} else {
		x.E.Stats.KeyspaceHits++
	}
	return ent
}

// Arg returns argument i as a string (allocates; for names and options).
func (x *Ctx) Arg(i int) string { return string(x.Args[i]) }
