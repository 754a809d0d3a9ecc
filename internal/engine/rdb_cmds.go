package engine

import (
	"bytes"
	"errors"
	"github.com/limitkv/limitkv/internal/config"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/rdb"
)

// SAVE, BGSAVE, LASTSAVE, DUMP and RESTORE, the save points the cron
// checks, and the save at shutdown. The conversion and file handling are in
// persist.go.
var persistCommands = []*Command{
	// SAVE is no-multi in Redis: refused inside MULTI (see cmdShutdown for
	// why FlagNoMulti lets the handler say so).
	{Name: "save", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoMulti, Group: "server", Handler: cmdSave},
	{Name: "bgsave", Arity: -1, Flags: FlagAdmin | FlagNoScript, Group: "server", Handler: cmdBgsave},
	{Name: "lastsave", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, Group: "server", Handler: cmdLastsave},
	{Name: "dump", Arity: 2, Flags: FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Handler: cmdDump},
	{Name: "restore", Arity: -4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Handler: cmdRestore},
}

// Redis's texts.
const (
	ErrBgsaveInProgress = "ERR Background save already in progress"
	ErrBadDumpPayload   = "ERR DUMP payload version or checksum are wrong"
	errBadDataFormat    = "ERR Bad data format"
	ErrBusyKey          = "BUSYKEY Target key name already exists."
	ErrInvalidTTL       = "ERR Invalid TTL value, must be >= 0"
	ErrInvalidIdle      = "ERR Invalid IDLETIME value, must be >= 0"
	ErrInvalidFreq      = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	// ErrMisconf refuses writes (and PING) after a failed background save
	// while save points are set: stop-writes-on-bgsave-error's default.
	ErrMisconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
)

// bgsaveRetryDelay is CONFIG_BGSAVE_RETRY_DELAY: after a failed background
// save, save points trigger again only this long after the last try.
const bgsaveRetryDelay = 5 * time.Second

// persistState is the engine's persistence bookkeeping, guarded by the
// engine lock except where noted.
type persistState struct {
	Dirty      int64     // writes since the last successful save (Redis's server.dirty)
	dirtyAtBg  int64     // dirty when the running BGSAVE took its snapshot
	LastSave   time.Time // last successful save (LASTSAVE), the start at first
	lastBgTry  time.Time
	LastBgOK   bool
	BgRunning  bool
	BgStart    time.Time
	LastBgSecs int64 // -1: none yet
	scheduled  bool  // BGSAVE SCHEDULE (or BGSAVE in EXEC) waits for the cron
	Saves      int64 // rdb_saves
	// loaded at start (INFO rdb_last_load_keys_*)
	LoadKeys, LoadExpired int
	// lastLockHold is how long the last BGSAVE's start held the executor
	// lock (the walk's slices come after).
	LastLockHold time.Duration
	ShutdownDone bool // the shutdown save has run: Close must not save again

	// fileMu orders the renames of a synchronous save and of a background
	// save it aborted (bgsave.go), so the older snapshot never lands last.
	fileMu   sync.Mutex
	bg       *bgSave       // the background save in progress (bgsave.go)
	LastWalk walkStats     // the last successful one's slices
	bgSeq    int64         // numbers the background saves' temporary files
	bgDone   chan struct{} // closed when the running background save's goroutine ends
	// beforeRename is a test hook run between the temp file's fsync and
	// its rename.
	BeforeRename func()
}

func (p *persistState) init(now time.Time) {
	p.LastSave, p.LastBgOK, p.LastBgSecs = now, true, -1
}

// countChange adds what a write command changed to the dirty counter. It
// follows Redis's per-command accounting where the reply tells it (the
// count of keys, members or elements changed), counts nothing for a
// command that failed, blocked or changed nothing, and one otherwise;
// FLUSHDB and FLUSHALL count in their handlers. Commands whose Redis count
// the reply does not show (LTRIM, ZADD updating some members and adding
// others) are approximated.
func (e *Engine) countChange(x *Ctx, mark int) {
	out := x.W.Bytes()
	if len(out) <= mark || out[mark] == '-' {
		return
	}
	reply := out[mark:]
	zero := bytes.Equal(reply, []byte(":0\r\n"))
	n := int64(1)
	switch x.Cmd.Name {
	case "flushdb", "flushall", "migrate": // counted by their handlers
		return
	case "del", "unlink", "sadd", "srem", "hdel", "zrem":
		n = replyInt(reply)
	case "lpush", "rpush", "lpushx", "rpushx":
		if zero {
			return
		}
		n = int64(len(x.Args) - 2)
	case "lpop", "rpop":
		if len(x.Args) == 3 && reply[0] == '*' {
			n = replyInt(reply)
		} else if isNullReply(reply) {
			return
		}
	case "hset", "hmset", "mset":
		n = int64(len(x.Args)-1) / 2
	case "set":
		if setWasNoop(x.Args, reply) {
			return
		}
	case "zadd":
		if zaddWasNoop(x.Args, reply) {
			return
		}
		n = max(replyInt(reply), 1) // added (or changed, with CH)
	case "setnx", "msetnx", "expire", "pexpire", "expireat", "pexpireat", "persist", "renamenx",
		"zremrangebyscore", "zremrangebyrank", "zremrangebylex", "move", "copy":
		if zero {
			return
		}
	}
	e.Persist.Dirty += n
}

// replyInt reads the integer of an integer reply, or the length of an
// array reply.
func replyInt(reply []byte) int64 {
	if len(reply) < 2 || (reply[0] != ':' && reply[0] != '*') {
		return 1
	}
	end := bytes.IndexByte(reply, '\r')
	if end < 0 {
		return 1
	}
	n, ok := num.ParseInt(reply[1:end])
	if !ok || n < 0 {
		return 0
	}
	return n
}

// saveLocked is rdbSave: the whole dataset to dbfilename in dir, through a
// temporary file. Call with the lock held: SAVE blocks every client, as in
// Redis.
func (e *Engine) SaveLocked() error {
	p := &e.Persist
	e.AbortBgsaveLocked()
	p.fileMu.Lock()
	defer p.fileMu.Unlock()
	tmp := "temp-" + strconv.Itoa(os.Getpid()) + ".rdb"
	err := CommitFile(*e.Cfg.Dir.Load(), *e.Cfg.DBFilename.Load(), tmp, func(w io.Writer) error {
		opts := e.writerOptions()
		opts.Repl = e.saveReplInfo()
		_, err := e.writeSnapshotWith(w, opts)
		return err
	}, func() error {
		if p.BeforeRename != nil {
			p.BeforeRename()
		}
		return nil
	})
	if err != nil {
		e.Log.Warn(err.Error())
		return err
	}
	e.Log.Info("DB saved on disk")
	p.Dirty = 0
	p.LastSave = e.Clock.Now()
	p.LastBgOK = true
	return nil
}

// WaitBgsave waits for a background save in progress to finish. Call
// without the lock.
func (e *Engine) WaitBgsave() {
	e.mu.Lock()
	done := e.Persist.bgDone
	e.mu.Unlock()
	if done != nil {
		<-done
	}
}

// PersistCron is serverCron's part for snapshots: start a background save
// when a save point is reached (or one was scheduled). The server's cron
// calls it every 100 ms.
func (e *Engine) PersistCron() {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := &e.Persist
	e.aofCron()
	// No snapshot of a script's half-done work, or of half a loaded file.
	if e.rdbChildBusy() || e.aof.rw != nil || p.ShutdownDone || e.BusyScript.On || e.StartLoad.On {
		return
	}
	now := e.Clock.Now()
	retryOK := p.LastBgOK || now.Unix()-p.lastBgTry.Unix() > int64(bgsaveRetryDelay/time.Second)
	for _, sp := range e.Cfg.SavePoints() {
		if p.Dirty >= sp.Changes && now.Unix()-p.LastSave.Unix() > sp.Seconds && retryOK {
			e.Log.Info("changes reached: saving", "changes", sp.Changes, "seconds", sp.Seconds)
			e.BgsaveLocked()
			p.scheduled = false
			return
		}
	}
	if p.scheduled && retryOK {
		p.scheduled = false
		e.BgsaveLocked()
	}
}

// writesRefused reports whether a failed background save makes the server
// refuse writes (Redis's writeCommandsDeniedByDiskError).
func (e *Engine) WritesRefused() bool {
	return e.Cfg.StopWritesOnBgsaveError.Load() && !e.Persist.LastBgOK && len(e.Cfg.SavePoints()) > 0
}

// shutdownSaveLocked is prepareForShutdown's save: with save points set
// (unless nosave), or with save, the dataset is saved synchronously; on
// failure the shutdown is refused unless force.
func (e *Engine) ShutdownSaveLocked(save, nosave, force bool) error {
	if e.Persist.ShutdownDone {
		return nil
	}
	e.stopLink() // no more of the master's stream
	if e.StartLoad.On {
		// prepareForShutdown: never save while loading, it would write
		// half the dataset over the file being loaded. The load stops.
		e.StartLoad.abort = true
		e.Persist.ShutdownDone = true
		return nil
	}
	// "There is a child saving an .rdb. Killing it!": its snapshot must
	// not land after the one saved now, and without a save the exit must
	// not wait for it.
	e.AbortBgsaveLocked()
	if (len(e.Cfg.SavePoints()) > 0 && !nosave) || save {
		e.Log.Info("Saving the final RDB snapshot before exiting.")
		if err := e.SaveLocked(); err != nil {
			if !force {
				e.Log.Warn("Error trying to save the DB, can't exit.")
				return err
			}
			e.Log.Warn("Error trying to save the DB. Exit anyway.")
		}
	}
	e.Persist.ShutdownDone = true
	return nil
}

// ShutdownSave runs the save a shutdown makes (SIGTERM, an embedded
// server's Close): only when save points are set, and only once. An error
// means the data is not saved and, as Redis, the server should keep
// running.
func (e *Engine) ShutdownSave() error {
	e.mu.Lock()
	deadline, wait := e.BeginShutdownWait(false)
	e.mu.Unlock()
	if wait && !e.awaitReplicas(deadline) {
		return errShutdownAborted
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ShutdownSaveLocked(false, false, false)
}

func cmdSave(x *Ctx) {
	if x.C.Multi != nil {
		x.C.Multi.Dirty = true
		x.W.Error(ErrNotInMulti)
		return
	}
	e := x.E
	if e.rdbChildBusy() {
		x.W.Error(ErrBgsaveInProgress)
		return
	}
	e.Persist.Saves++
	if err := e.SaveLocked(); err != nil {
		x.W.Error("ERR")
		return
	}
	x.W.OK()
}

func cmdBgsave(x *Ctx) {
	schedule := false
	if len(x.Args) > 1 {
		if len(x.Args) == 2 && CEqualFold(x.Args[1], "schedule") {
			schedule = true
		} else {
			x.W.Error(ErrSyntax)
			return
		}
	}
	p := &x.E.Persist
	switch {
	case x.E.rdbChildBusy():
		x.W.Error(ErrBgsaveInProgress)
	case x.E.aof.rw != nil && schedule:
		p.scheduled = true
		x.W.Simple("Background saving scheduled")
	case x.E.aof.rw != nil:
		x.W.Error(errAOFChildActive.Error())
	case x.C.Multi != nil:
		// Inside EXEC Redis cannot fork and schedules the save for the
		// cron instead; limitkv answers the same.
		p.scheduled = true
		x.W.Simple("Background saving scheduled")
	default:
		if err := x.E.BgsaveLocked(); err != nil {
			x.W.Error("ERR")
			return
		}
		x.W.Simple("Background saving started")
	}
}

func cmdLastsave(x *Ctx) { x.W.Int(x.E.Persist.LastSave.Unix()) }

func (x *Ctx) DumpOptions() rdb.DumpOptions {
	return rdb.DumpOptions{NoCompression: !x.E.Cfg.RDBCompression.Load(), Limits: x.E.Cfg.RdbLimits()}
}

func cmdDump(x *Ctx) {
	ent := x.Lookup(x.Args[1])
	if ent == nil {
		x.W.Null()
		return
	}
	var conv ToRDB
	payload, err := rdb.EncodeDump(conv.Value(ent), x.DumpOptions())
	if err != nil {
		x.W.Error(ErrInternal)
		return
	}
	x.W.Bulk(payload)
}

// cmdRestore is restoreCommand, checks in Redis's order: options, the key
// (BUSYKEY), the TTL, the payload's footer, then its content.
func cmdRestore(x *Ctx) {
	args := x.Args
	var replace, absttl bool
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case CEqualFold(args[j], "replace"):
			replace = true
		case CEqualFold(args[j], "absttl"):
			absttl = true
		case CEqualFold(args[j], "idletime") && more >= 1 && freq == -1:
			n, ok := num.ParseInt(args[j+1])
			if !ok {
				x.W.Error(ErrNotInt)
				return
			}
			if n < 0 {
				x.W.Error(ErrInvalidIdle)
				return
			}
			idle = n
			j++
		case CEqualFold(args[j], "freq") && more >= 1 && idle == -1:
			n, ok := num.ParseInt(args[j+1])
			if !ok {
				x.W.Error(ErrNotInt)
				return
			}
			if n < 0 || n > 255 {
				x.W.Error(ErrInvalidFreq)
				return
			}
			freq = n
			j++
		default:
			x.W.Error(ErrSyntax)
			return
		}
	}
	key := args[1]
	db := x.DB
	if !replace && db.Get(key, x.Now) != nil {
		x.W.Error(ErrBusyKey)
		return
	}
	ttl, ok := num.ParseInt(args[2])
	if !ok {
		x.W.Error(ErrNotInt)
		return
	}
	if ttl < 0 {
		x.W.Error(ErrInvalidTTL)
		return
	}
	cfg := x.E.Cfg
	v, err := rdb.DecodeDump(args[3], &rdb.ReaderOptions{
		MaxStringLen: cfg.ProtoMaxBulkLen.Load(),
		SkipChecksum: x.E.Debug.SkipChecksum,
		Limits:       cfg.RdbLimits(),
	})
	if err != nil {
		if errors.Is(err, rdb.ErrBadDumpPayload) {
			x.W.Error(ErrBadDumpPayload)
		} else {
			x.W.Error(errBadDataFormat)
		}
		return
	}
	val, err := fromRDB(cfg, v)
	if err != nil {
		x.W.Error(errBadDataFormat)
		return
	}
	deleted := false
	if replace {
		deleted = db.Delete(key, x.Now)
	}
	if ttl != 0 && !absttl {
		ttl += x.Now
	}
	if ttl != 0 && ttl <= x.Now {
		// Already expired: Redis answers OK and stores nothing (a
		// replaced key stays deleted).
		if !deleted {
		} else {
			x.Modified(key)
			x.Notify(config.EvGeneric, "del", key)
			x.Rewrite(ArgDel, key)
		}
		x.W.OK()
		return
	}
	ent := db.Add(key, val)
	if ttl != 0 {
		db.SetExpiry(ent, ttl)
		if !absttl && x.Propagating() {
			// The deadline as an absolute time, ABSTTL appended.
			rw := append([][]byte{}, args...)
			rw[2] = MsArg(ttl)
			x.Rewrite(append(rw, []byte("ABSTTL"))...)
		}
	}
	// objectSetLRUOrLFU: under an LFU policy FREQ sets the counter,
	// otherwise IDLETIME sets the idle time.
	db.SetLRUOrLFU(ent, freq, idle, x.Now)
	x.SignalReadyIn(x.C.DB, ent)
	x.Modified(key)
	x.Notify(config.EvGeneric, "restore", key)
	x.W.OK()
}
