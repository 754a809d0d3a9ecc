package durability

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/rdb"
)

// BGREWRITEAOF, CONFIG SET appendonly, the automatic rewrite and INFO's
// aof fields (aof.c's rewriteAppendOnlyFileBackground,
// backgroundRewriteDoneHandler, startAppendOnly, stopAppendOnly).

var aofCommands = []*engine.Command{
	{Name: "bgrewriteaof", Arity: 1, Flags: engine.FlagAdmin | engine.FlagNoScript, Group: "server", Handler: cmdBgrewriteaof},
}

var errAOFChildActive = errors.New("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")

func cmdBgrewriteaof(x *engine.Ctx) {
	d := Of(x.E)
	a := &d.aof
	switch {
	case a.rw != nil:
		x.W.Error("ERR Background append only file rewriting already in progress")
	case d.rdbChildBusy() || x.C.Multi != nil:
		a.scheduled = true
		a.rwFailures = 0
		x.W.Simple("Background append only file rewriting scheduled")
	default:
		if err := d.aofRewriteLocked(); err != nil {
			x.W.Error("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
			return
		}
		x.W.Simple("Background append only file rewriting started")
	}
}

// aofManifest is the manifest as on disk (aofLoadManifestFromDisk), read
// at the first need when the AOF was off at start.
func (d *Component) aofManifest() (*aof.Manifest, error) {
	a := &d.aof
	if a.man != nil {
		return a.man, nil
	}
	prefix := *d.e.Cfg.AOF.FileName.Load()
	data, err := os.ReadFile(filepath.Join(d.aofDir(), aof.ManifestName(prefix)))
	if errors.Is(err, os.ErrNotExist) {
		a.man = aof.New(prefix)
		return a.man, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := aof.Parse(prefix, data)
	if err != nil {
		return nil, err
	}
	a.man = m
	return m, nil
}

// aofRewriteLocked is rewriteAppendOnlyFileBackground: what is buffered
// goes to the current file, new writes go to a new incremental file (a
// temporary one while the AOF waits for its first base), and a goroutine
// writes the snapshot as the new base.
func (d *Component) aofRewriteLocked() error {
	e := d.e
	a := &d.aof
	if d.rdbChildBusy() || a.rw != nil {
		return errors.New("a background save is running")
	}
	man, err := d.aofManifest()
	if err != nil {
		e.Log.Warn("Can't read the AOF manifest: " + err.Error())
		return err
	}
	dir := d.aofDir()
	a.dir = dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.Log.Warn("Can't open or create append-only dir " + dir + ": " + unwrapPath(err).Error())
		return err
	}
	d.aofFlush(true)
	switch a.state {
	case aofOn:
		// openNewIncrAofForAppend: the new file and the manifest naming it
		// both, or neither.
		next := man.Clone()
		name := next.NewIncr()
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			e.Log.Warn("Can't open the append-only file " + name + ": " + unwrapPath(err).Error())
			return err
		}
		if err := next.Write(dir); err != nil {
			e.Log.Warn(err.Error())
			f.Close()
			os.Remove(filepath.Join(dir, name))
			return err
		}
		old := a.f
		a.f, a.man = f, next
		a.enc.Reset()
		old.Sync() // aof_background_fsync_and_close
		old.Close()
	case aofWaitRewrite:
		name := aof.TempIncrName(man.Prefix)
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
		if err != nil {
			e.Log.Warn("Can't open the append-only file " + name + ": " + unwrapPath(err).Error())
			return err
		}
		if a.f != nil {
			a.f.Close()
		}
		a.f = f
		a.enc.Reset()
	}
	opts := d.writerOptions()
	opts.AOFBase = true
	rw := &aofRewrite{bg: d.beginBgSnapshot(opts), start: time.Now(), done: make(chan struct{})}
	// The format is chosen here, as Redis's child chooses it when it
	// starts; the name given at the end follows the format written.
	rw.rdb = e.Cfg.AOF.UseRDBPreamble.Load()
	rw.bg.cmds = !rw.rdb
	// Redis names it after the child's pid; a number per rewrite here, so
	// an aborted one still closing its file never shares it with the next.
	a.rwSeq++
	rw.tmp = filepath.Join(dir, "temp-rewriteaof-bg-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(a.rwSeq, 10)+".aof")
	a.rw = rw
	a.scheduled = false
	a.rewrites++
	e.Log.Info("Background append only file rewriting started")
	go func() {
		defer close(rw.done)
		err := d.writeRewrite(rw)
		e.LockBare()
		defer e.UnlockBare()
		if a.rw != rw {
			return // stopped (appendonly no) meanwhile
		}
		d.aofRewriteDone(rw, err)
	}()
	return nil
}

// writeRewrite writes the snapshot to the rewrite's temporary file and
// fsyncs it, without the lock but for the walk's slices.
func (d *Component) writeRewrite(rw *aofRewrite) error {
	f, err := os.OpenFile(rw.tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = d.streamBgsave(rw.bg, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// aofRewriteDone is backgroundRewriteDoneHandler: the new base gets its
// name, the incremental files it covers become history, the manifest is
// swapped in one rename, and the history files go. Call with the lock.
func (d *Component) aofRewriteDone(rw *aofRewrite, err error) {
	e := d.e
	a := &d.aof
	a.rw = nil
	for _, sd := range rw.bg.dbs {
		sd.snap.Abort()
	}
	d.freezeAccess(false)
	a.lastRwSecs = int64(time.Since(rw.start) / time.Second)
	fail := func(err error) {
		e.Log.Warn("Background AOF rewrite terminated with error: " + err.Error())
		os.Remove(rw.tmp)
		if a.state == aofWaitRewrite {
			e.Log.Info("Removing the temp incr aof file " + aof.TempIncrName(a.man.Prefix) + " in the background")
			if a.f != nil {
				a.f.Close()
				a.f = nil
			}
			os.Remove(filepath.Join(a.dir, aof.TempIncrName(a.man.Prefix)))
			a.scheduled = true // the AOF still waits for its base
		}
		a.lastRwOK = false
		a.rwFailures++
	}
	if err != nil {
		fail(err)
		return
	}
	dir := a.dir
	next := a.man.Clone()
	base := next.NewBase(rw.rdb)
	if err := os.Rename(rw.tmp, filepath.Join(dir, base)); err != nil {
		fail(fmt.Errorf("Error trying to rename the temporary AOF base file %s into %s: %w", filepath.Base(rw.tmp), base, unwrapPath(err)))
		return
	}
	var incr string
	if a.state == aofWaitRewrite {
		incr = next.NewIncr()
		if err := os.Rename(filepath.Join(dir, aof.TempIncrName(next.Prefix)), filepath.Join(dir, incr)); err != nil {
			os.Remove(filepath.Join(dir, base))
			fail(fmt.Errorf("Error trying to rename the temporary AOF incr file into %s: %w", incr, unwrapPath(err)))
			return
		}
	}
	next.IncrHistory(a.f != nil)
	if err := next.Write(dir); err != nil {
		if incr != "" {
			os.Rename(filepath.Join(dir, incr), filepath.Join(dir, aof.TempIncrName(next.Prefix)))
		}
		os.Remove(filepath.Join(dir, base))
		fail(err)
		return
	}
	a.man = next
	if a.state == aofWaitRewrite {
		a.state = aofOn
	}
	// aofDelHistoryFiles
	if len(next.History) > 0 {
		for _, h := range next.History {
			e.Log.Info("Removing the history file " + h.Name + " in the background")
			os.Remove(filepath.Join(dir, h.Name))
		}
		next.History = nil
		next.Modified = true
		if err := next.Write(dir); err != nil {
			e.Log.Warn(err.Error())
		}
	}
	a.currentSize = d.aofFilesSize()
	a.baseSize = a.currentSize
	a.lastRwOK = true
	a.rwFailures = 0
	e.Log.Info("Background AOF rewrite terminated with success")
	e.Log.Info("Background AOF rewrite finished successfully")
}

// WaitAOFRewrite waits for a rewrite in progress to end. Call without the lock.
func WaitAOFRewrite(e *engine.Engine) {
	d := Of(e)
	e.LockBare()
	var done chan struct{}
	if d.aof.rw != nil {
		done = d.aof.rw.done
	}
	e.UnlockBare()
	if done != nil {
		<-done
	}
}

// aofConfigApplied is CONFIG SET appendonly's apply (startAppendOnly and
// stopAppendOnly): turned on, the AOF waits for a rewrite that makes its
// first base; turned off, the file is flushed, fsynced and closed and a
// rewrite in progress stops. The error is CONFIG SET's text.
func AofConfigApplied(e *engine.Engine) string {
	d := Of(e)
	a := &d.aof
	on := e.Cfg.AOF.Enabled.Load()
	switch {
	case on && a.state == aofOff:
		if _, err := d.aofManifest(); err != nil {
			e.Cfg.AOF.Enabled.Store(false)
			return "Unable to turn on AOF. Check server logs."
		}
		a.dir = d.aofDir()
		a.state = aofWaitRewrite
		d.aofAttachStream()
		if d.rdbChildBusy() {
			a.scheduled = true
			e.Log.Warn("AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
		} else if a.rw != nil {
			// A BGREWRITEAOF of the AOF that was off: its base would not
			// cover the writes from now on. Redis kills it and starts over.
			d.aofKillRewrite()
			if err := d.aofRewriteLocked(); err != nil {
				d.aofDetachStream()
				a.state = aofOff
				e.Cfg.AOF.Enabled.Store(false)
				return "Unable to turn on AOF. Check server logs."
			}
		} else if err := d.aofRewriteLocked(); err != nil {
			e.Log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
			d.aofDetachStream()
			a.state = aofOff
			e.Cfg.AOF.Enabled.Store(false)
			return "Unable to turn on AOF. Check server logs."
		}
	case !on && a.state != aofOff:
		d.stopAppendOnlyLocked()
	}
	return ""
}

func (d *Component) aofKillRewrite() {
	a := &d.aof
	if a.rw == nil {
		return
	}
	rw := a.rw
	rw.bg.aborted.Store(true)
	for _, sd := range rw.bg.dbs {
		sd.snap.Abort()
	}
	d.freezeAccess(false)
	os.Remove(rw.tmp)
	a.rw = nil
	d.e.Log.Info("Killing running AOF rewrite child")
}

// aofAttachStream makes the AOF a reader of the write stream, with the
// everysec goroutine, without a file yet (the rewrite opens it).
func (d *Component) aofAttachStream() {
	a := &d.aof
	a.enc.Reset()
	d.e.Prop.Stream.Attach(a)
	a.stop = make(chan struct{})
	go d.aofSyncLoop(a.stop)
}

func (d *Component) aofDetachStream() {
	a := &d.aof
	d.e.Prop.Stream.Detach(a)
	close(a.stop)
	if a.f != nil {
		a.f.Close()
		a.f = nil
	}
}

// aofCron is serverCron's AOF part: a scheduled rewrite once nothing else
// runs, and the automatic rewrite past auto-aof-rewrite-percentage growth
// over the size of the last base (from auto-aof-rewrite-min-size).
func (d *Component) aofCron() {
	e := d.e
	a := &d.aof
	if a.rw != nil || d.rdbChildBusy() || e.BusyScript.On {
		return
	}
	if a.scheduled {
		d.aofRewriteLocked()
		return
	}
	perc := e.Cfg.AOF.RewritePerc.Load()
	if a.state != aofOn || perc == 0 || a.currentSize <= e.Cfg.AOF.RewriteMinSize.Load() {
		return
	}
	base := a.baseSize
	if base == 0 {
		base = 1
	}
	if growth := a.currentSize*100/base - 100; growth >= perc {
		e.Log.Info(fmt.Sprintf("Starting automatic rewriting of AOF on %d%% growth", growth))
		d.aofRewriteLocked()
	}
}

// writeBase writes the dataset as an RDB-preamble base. Call with the lock.
func (d *Component) writeBase(w interface{ Write([]byte) (int, error) }, opts rdb.WriterOptions) error {
	_, err := d.writeSnapshotWith(w, opts)
	return err
}
