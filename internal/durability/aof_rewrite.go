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
	case a.Rw != nil:
		x.W.Error("ERR Background append only file rewriting already in progress")
	case d.rdbChildBusy() || x.C.Multi != nil:
		a.Scheduled = true
		a.RwFailures = 0
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
	e := d.e
	a := &d.aof
	if a.Man != nil {
		return a.Man, nil
	}
	prefix := *e.Cfg.AOF.FileName.Load()
	data, err := os.ReadFile(filepath.Join(d.aofDir(), aof.ManifestName(prefix)))
	if errors.Is(err, os.ErrNotExist) {
		a.Man = aof.New(prefix)
		return a.Man, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := aof.Parse(prefix, data)
	if err != nil {
		return nil, err
	}
	a.Man = m
	return m, nil
}

// aofRewriteLocked is rewriteAppendOnlyFileBackground: what is buffered
// goes to the current file, new writes go to a new incremental file (a
// temporary one while the AOF waits for its first base), and a goroutine
// writes the snapshot as the new base.
func (d *Component) aofRewriteLocked() error {
	e := d.e
	a := &d.aof
	if d.rdbChildBusy() || a.Rw != nil {
		return errors.New("a background save is running")
	}
	man, err := d.aofManifest()
	if err != nil {
		e.Log.Warn("Can't read the AOF manifest: " + err.Error())
		return err
	}
	dir := d.aofDir()
	a.Dir = dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.Log.Warn("Can't open or create append-only dir " + dir + ": " + unwrapPath(err).Error())
		return err
	}
	d.aofFlush(true)
	switch a.State {
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
		old := a.F
		a.F, a.Man = f, next
		a.Enc.Reset()
		old.Sync() // aof_background_fsync_and_close
		old.Close()
	case aofWaitRewrite:
		name := aof.TempIncrName(man.Prefix)
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
		if err != nil {
			e.Log.Warn("Can't open the append-only file " + name + ": " + unwrapPath(err).Error())
			return err
		}
		if a.F != nil {
			a.F.Close()
		}
		a.F = f
		a.Enc.Reset()
	}
	opts := d.writerOptions()
	opts.AOFBase = true
	rw := &aofRewrite{Bg: d.beginBgSnapshot(opts), Start: time.Now(), Done: make(chan struct{})}
	// Redis names it after the child's pid; a number per rewrite here, so
	// an aborted one still closing its file never shares it with the next.
	a.RwSeq++
	rw.Tmp = filepath.Join(dir, "temp-rewriteaof-bg-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(a.RwSeq, 10)+".aof")
	a.Rw = rw
	a.Scheduled = false
	a.Rewrites++
	e.Log.Info("Background append only file rewriting started")
	go func() {
		defer close(rw.Done)
		err := d.writeRewrite(rw)
		e.Mu.Lock()
		defer e.Mu.Unlock()
		if a.Rw != rw {
			return // stopped (appendonly no) meanwhile
		}
		d.aofRewriteDone(rw, err)
	}()
	return nil
}

// writeRewrite writes the snapshot to the rewrite's temporary file and
// fsyncs it, without the lock but for the walk's slices.
func (d *Component) writeRewrite(rw *aofRewrite) error {
	f, err := os.OpenFile(rw.Tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = d.streamBgsave(rw.Bg, bw)
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
	a.Rw = nil
	for _, sd := range rw.Bg.Dbs {
		sd.Snap.Abort()
	}
	d.freezeAccess(false)
	a.LastRwSecs = int64(time.Since(rw.Start) / time.Second)
	fail := func(err error) {
		e.Log.Warn("Background AOF rewrite terminated with error: " + err.Error())
		os.Remove(rw.Tmp)
		if a.State == aofWaitRewrite {
			e.Log.Info("Removing the temp incr aof file " + aof.TempIncrName(a.Man.Prefix) + " in the background")
			if a.F != nil {
				a.F.Close()
				a.F = nil
			}
			os.Remove(filepath.Join(a.Dir, aof.TempIncrName(a.Man.Prefix)))
			a.Scheduled = true // the AOF still waits for its base
		}
		a.LastRwOK = false
		a.RwFailures++
	}
	if err != nil {
		fail(err)
		return
	}
	dir := a.Dir
	next := a.Man.Clone()
	base := next.NewBase(true)
	if err := os.Rename(rw.Tmp, filepath.Join(dir, base)); err != nil {
		fail(fmt.Errorf("Error trying to rename the temporary AOF base file %s into %s: %w", filepath.Base(rw.Tmp), base, unwrapPath(err)))
		return
	}
	var incr string
	if a.State == aofWaitRewrite {
		incr = next.NewIncr()
		if err := os.Rename(filepath.Join(dir, aof.TempIncrName(next.Prefix)), filepath.Join(dir, incr)); err != nil {
			os.Remove(filepath.Join(dir, base))
			fail(fmt.Errorf("Error trying to rename the temporary AOF incr file into %s: %w", incr, unwrapPath(err)))
			return
		}
	}
	next.IncrHistory(a.F != nil)
	if err := next.Write(dir); err != nil {
		if incr != "" {
			os.Rename(filepath.Join(dir, incr), filepath.Join(dir, aof.TempIncrName(next.Prefix)))
		}
		os.Remove(filepath.Join(dir, base))
		fail(err)
		return
	}
	a.Man = next
	if a.State == aofWaitRewrite {
		a.State = aofOn
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
	a.CurrentSize = d.aofFilesSize()
	a.BaseSize = a.CurrentSize
	a.LastRwOK = true
	a.RwFailures = 0
	e.Log.Info("Background AOF rewrite terminated with success")
	e.Log.Info("Background AOF rewrite finished successfully")
}

// WaitAOFRewrite waits for a rewrite in progress to end. Call without the lock.
func WaitAOFRewrite(e *engine.Engine) {
	d := Of(e)
	e.Mu.Lock()
	var done chan struct{}
	if d.aof.Rw != nil {
		done = d.aof.Rw.Done
	}
	e.Mu.Unlock()
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
	case on && a.State == aofOff:
		if _, err := d.aofManifest(); err != nil {
			e.Cfg.AOF.Enabled.Store(false)
			return "Unable to turn on AOF. Check server logs."
		}
		a.Dir = d.aofDir()
		a.State = aofWaitRewrite
		d.aofAttachStream()
		if d.rdbChildBusy() {
			a.Scheduled = true
			e.Log.Warn("AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
		} else if a.Rw != nil {
			// A BGREWRITEAOF of the AOF that was off: its base would not
			// cover the writes from now on. Redis kills it and starts over.
			d.aofKillRewrite()
			if err := d.aofRewriteLocked(); err != nil {
				d.aofDetachStream()
				a.State = aofOff
				e.Cfg.AOF.Enabled.Store(false)
				return "Unable to turn on AOF. Check server logs."
			}
		} else if err := d.aofRewriteLocked(); err != nil {
			e.Log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
			d.aofDetachStream()
			a.State = aofOff
			e.Cfg.AOF.Enabled.Store(false)
			return "Unable to turn on AOF. Check server logs."
		}
	case !on && a.State != aofOff:
		d.stopAppendOnlyLocked()
	}
	return ""
}

func (d *Component) aofKillRewrite() {
	e := d.e
	a := &d.aof
	if a.Rw == nil {
		return
	}
	rw := a.Rw
	rw.Bg.Aborted.Store(true)
	for _, sd := range rw.Bg.Dbs {
		sd.Snap.Abort()
	}
	d.freezeAccess(false)
	os.Remove(rw.Tmp)
	a.Rw = nil
	e.Log.Info("Killing running AOF rewrite child")
}

// aofAttachStream makes the AOF a reader of the write stream, with the
// everysec goroutine, without a file yet (the rewrite opens it).
func (d *Component) aofAttachStream() {
	e := d.e
	a := &d.aof
	a.Enc.Reset()
	e.Prop.Stream.Attach(a)
	a.Stop = make(chan struct{})
	go d.aofSyncLoop(a.Stop)
}

func (d *Component) aofDetachStream() {
	e := d.e
	a := &d.aof
	e.Prop.Stream.Detach(a)
	close(a.Stop)
	if a.F != nil {
		a.F.Close()
		a.F = nil
	}
}

// aofCron is serverCron's AOF part: a scheduled rewrite once nothing else
// runs, and the automatic rewrite past auto-aof-rewrite-percentage growth
// over the size of the last base (from auto-aof-rewrite-min-size).
func (d *Component) aofCron() {
	e := d.e
	a := &d.aof
	if a.Rw != nil || d.rdbChildBusy() || e.BusyScript.On {
		return
	}
	if a.Scheduled {
		d.aofRewriteLocked()
		return
	}
	perc := e.Cfg.AOF.RewritePerc.Load()
	if a.State != aofOn || perc == 0 || a.CurrentSize <= e.Cfg.AOF.RewriteMinSize.Load() {
		return
	}
	base := a.BaseSize
	if base == 0 {
		base = 1
	}
	if growth := a.CurrentSize*100/base - 100; growth >= perc {
		e.Log.Info(fmt.Sprintf("Starting automatic rewriting of AOF on %d%% growth", growth))
		d.aofRewriteLocked()
	}
}

// writeBase writes the dataset as an RDB-preamble base. Call with the lock.
func (d *Component) writeBase(w interface{ Write([]byte) (int, error) }, opts rdb.WriterOptions) error {
	_, err := d.writeSnapshotWith(w, opts)
	return err
}
