package durability

import (
	"errors"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/rdb"
)

// SAVE, BGSAVE, LASTSAVE, DUMP and RESTORE, the save points the cron
// checks, and the save at shutdown. The conversion and file handling are in
// rdb_value.go.
var persistCommands = []*engine.Command{
	// SAVE is no-multi in Redis: refused inside MULTI (see cmdShutdown for
	// why FlagNoMulti lets the handler say so).
	{Name: "save", Arity: 1, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagNoMulti, Group: "server", Handler: cmdSave},
	{Name: "bgsave", Arity: -1, Flags: engine.FlagAdmin | engine.FlagNoScript, Group: "server", Handler: cmdBgsave},
	{Name: "lastsave", Arity: 1, Flags: engine.FlagLoading | engine.FlagStale | engine.FlagFast, Group: "server", Handler: cmdLastsave},
	{Name: "dump", Arity: 2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Handler: cmdDump},
	{Name: "restore", Arity: -4, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Handler: cmdRestore},
}

// Redis's texts.
const (
	ErrBgsaveInProgress = "ERR Background save already in progress"
	ErrBadDumpPayload   = "ERR DUMP payload version or checksum are wrong"
	ErrBadDataFormat    = "ERR Bad data format"
	ErrBusyKey          = "BUSYKEY Target key name already exists."
	ErrInvalidTTL       = "ERR Invalid TTL value, must be >= 0"
	ErrInvalidIdle      = "ERR Invalid IDLETIME value, must be >= 0"
	ErrInvalidFreq      = "ERR Invalid FREQ value, must be >= 0 and <= 255"
)

// bgsaveRetryDelay is CONFIG_BGSAVE_RETRY_DELAY: after a failed background
// save, save points trigger again only this long after the last try.
const bgsaveRetryDelay = 5 * time.Second

// saveLocked is rdbSave: the whole dataset to dbfilename in dir, through a
// temporary file. Call with the lock held: SAVE blocks every client, as in
// Redis.
func SaveLocked(e *engine.Engine) error {
	d := Of(e)
	p := &d.persist
	AbortBgsaveLocked(e)
	p.fileMu.Lock()
	defer p.fileMu.Unlock()
	tmp := "temp-" + strconv.Itoa(os.Getpid()) + ".rdb"
	err := CommitFile(*e.Cfg.Dir.Load(), *e.Cfg.DBFilename.Load(), tmp, func(w io.Writer) error {
		opts := d.writerOptions()
		opts.Repl = d.saveReplInfo()
		_, err := d.writeSnapshotWith(w, opts)
		return err
	}, func() error {
		if p.beforeRename != nil {
			p.beforeRename()
		}
		return nil
	})
	if err != nil {
		e.Log.Warn(err.Error())
		return err
	}
	e.Log.Info("DB saved on disk")
	e.AddDirty(-e.DirtyCount()) // all saved: the lock kept writes out
	p.lastSave = e.Clock.Now()
	p.lastBgOK = true
	return nil
}

// WaitBgsave waits for a background save in progress to finish. Call
// without the lock.
func WaitBgsave(e *engine.Engine) {
	e.LockBare()
	done := Of(e).persist.bgDone
	e.UnlockBare()
	if done != nil {
		<-done
	}
}

// PersistCron is serverCron's part for snapshots: start a background save
// when a save point is reached (or one was scheduled). The server's cron
// calls it every 100 ms.
func PersistCron(e *engine.Engine) {
	d := Of(e)
	e.LockBare()
	defer e.UnlockBare()
	p := &d.persist
	d.aofCron()
	// No snapshot of a script's half-done work, or of half a loaded file.
	if d.rdbChildBusy() || d.aof.rw != nil || e.ShutdownDone() || e.BusyScript.On || e.StartLoad.On {
		return
	}
	now := e.Clock.Now()
	retryOK := p.lastBgOK || now.Unix()-p.lastBgTry.Unix() > int64(bgsaveRetryDelay/time.Second)
	for _, sp := range e.Cfg.SavePoints() {
		if e.DirtyCount() >= sp.Changes && now.Unix()-p.lastSave.Unix() > sp.Seconds && retryOK {
			e.Log.Info("changes reached: saving", "changes", sp.Changes, "seconds", sp.Seconds)
			BgsaveLocked(e)
			p.scheduled = false
			return
		}
	}
	if p.scheduled && retryOK {
		p.scheduled = false
		BgsaveLocked(e)
	}
}

// shutdownSaveLocked is prepareForShutdown's save: with save points set
// (unless nosave), or with save, the dataset is saved synchronously; on
// failure the shutdown is refused unless force.
func ShutdownSaveLocked(e *engine.Engine, save, nosave, force bool) error {
	if e.ShutdownDone() {
		return nil
	}
	Of(e).stopLink() // no more of the master's stream
	if e.StartLoad.On {
		// prepareForShutdown: never save while loading, it would write
		// half the dataset over the file being loaded. The load stops.
		e.StartLoad.Abort = true
		e.SetShutdownDone(true)
		return nil
	}
	// "There is a child saving an .rdb. Killing it!": its snapshot must
	// not land after the one saved now, and without a save the exit must
	// not wait for it.
	AbortBgsaveLocked(e)
	if (len(e.Cfg.SavePoints()) > 0 && !nosave) || save {
		e.Log.Info("Saving the final RDB snapshot before exiting.")
		if err := SaveLocked(e); err != nil {
			if !force {
				e.Log.Warn("Error trying to save the DB, can't exit.")
				return err
			}
			e.Log.Warn("Error trying to save the DB. Exit anyway.")
		}
	}
	e.SetShutdownDone(true)
	return nil
}

// ShutdownSave runs the save a shutdown makes (SIGTERM, an embedded
// server's Close): only when save points are set, and only once. An error
// means the data is not saved and, as Redis, the server should keep
// running.
func ShutdownSave(e *engine.Engine) error {
	e.LockBare()
	deadline, wait := BeginShutdownWait(e, false)
	e.UnlockBare()
	if wait && !Of(e).awaitReplicas(deadline) {
		return errShutdownAborted
	}
	e.LockBare()
	defer e.UnlockBare()
	return ShutdownSaveLocked(e, false, false, false)
}

func cmdSave(x *engine.Ctx) {
	if x.C.Multi != nil {
		x.C.Multi.Dirty = true
		x.W.Error(engine.ErrNotInMulti)
		return
	}
	e, d := x.E, Of(x.E)
	if d.rdbChildBusy() {
		x.W.Error(ErrBgsaveInProgress)
		return
	}
	d.persist.saves++
	if err := SaveLocked(e); err != nil {
		x.W.Error("ERR")
		return
	}
	x.W.OK()
}

func cmdBgsave(x *engine.Ctx) {
	d := Of(x.E)
	schedule := false
	if len(x.Args) > 1 {
		if len(x.Args) == 2 && engine.CEqualFold(x.Args[1], "schedule") {
			schedule = true
		} else {
			x.W.Error(engine.ErrSyntax)
			return
		}
	}
	p := &d.persist
	switch {
	case d.rdbChildBusy():
		x.W.Error(ErrBgsaveInProgress)
	case d.aof.rw != nil && schedule:
		p.scheduled = true
		x.W.Simple("Background saving scheduled")
	case d.aof.rw != nil:
		x.W.Error(errAOFChildActive.Error())
	case x.C.Multi != nil:
		// Inside EXEC Redis cannot fork and schedules the save for the
		// cron instead; limitkv answers the same.
		p.scheduled = true
		x.W.Simple("Background saving scheduled")
	default:
		if err := BgsaveLocked(x.E); err != nil {
			x.W.Error("ERR")
			return
		}
		x.W.Simple("Background saving started")
	}
}

func cmdLastsave(x *engine.Ctx) { x.W.Int(Of(x.E).persist.lastSave.Unix()) }

func cmdDump(x *engine.Ctx) {
	ent := x.Lookup(x.Args[1])
	if ent == nil {
		x.W.Null()
		return
	}
	var conv ToRDB
	payload, err := rdb.EncodeDump(RDBValue(&conv, ent), x.E.Cfg.DumpOptions())
	if err != nil {
		x.W.Error(engine.ErrInternal)
		return
	}
	x.W.Bulk(payload)
}

// cmdRestore is restoreCommand, checks in Redis's order: options, the key
// (BUSYKEY), the TTL, the payload's footer, then its content.
func cmdRestore(x *engine.Ctx) {
	args := x.Args
	var replace, absttl bool
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case engine.CEqualFold(args[j], "replace"):
			replace = true
		case engine.CEqualFold(args[j], "absttl"):
			absttl = true
		case engine.CEqualFold(args[j], "idletime") && more >= 1 && freq == -1:
			n, ok := num.ParseInt(args[j+1])
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			if n < 0 {
				x.W.Error(ErrInvalidIdle)
				return
			}
			idle = n
			j++
		case engine.CEqualFold(args[j], "freq") && more >= 1 && idle == -1:
			n, ok := num.ParseInt(args[j+1])
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			if n < 0 || n > 255 {
				x.W.Error(ErrInvalidFreq)
				return
			}
			freq = n
			j++
		default:
			x.W.Error(engine.ErrSyntax)
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
		x.W.Error(engine.ErrNotInt)
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
			x.W.Error(ErrBadDataFormat)
		}
		return
	}
	val, err := fromRDB(cfg, v)
	if err != nil {
		x.W.Error(ErrBadDataFormat)
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
			x.Rewrite(engine.ArgDel, key)
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
			rw[2] = engine.MsArg(ttl)
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
