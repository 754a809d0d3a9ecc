package engine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/rdb"
)

// BGREWRITEAOF, CONFIG SET appendonly, the automatic rewrite and INFO's
// aof fields (aof.c's rewriteAppendOnlyFileBackground,
// backgroundRewriteDoneHandler, startAppendOnly, stopAppendOnly).

var aofCommands = []*Command{
	{Name: "bgrewriteaof", Arity: 1, Flags: FlagAdmin | FlagNoScript, Group: "server", Handler: cmdBgrewriteaof},
}

var errAOFChildActive = errors.New("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")

func cmdBgrewriteaof(x *Ctx) {
	e := x.E
	a := &e.aof
	switch {
	case a.rw != nil:
		x.W.Error("ERR Background append only file rewriting already in progress")
	case e.rdbChildBusy() || x.C.Multi != nil:
		a.scheduled = true
		a.rwFailures = 0
		x.W.Simple("Background append only file rewriting scheduled")
	default:
		if err := e.aofRewriteLocked(); err != nil {
			x.W.Error("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
			return
		}
		x.W.Simple("Background append only file rewriting started")
	}
}

// aofManifest is the manifest as on disk (aofLoadManifestFromDisk), read
// at the first need when the AOF was off at start.
func (e *Engine) aofManifest() (*aof.Manifest, error) {
	a := &e.aof
	if a.man != nil {
		return a.man, nil
	}
	prefix := *e.Cfg.AOF.FileName.Load()
	data, err := os.ReadFile(filepath.Join(e.aofDir(), aof.ManifestName(prefix)))
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
func (e *Engine) aofRewriteLocked() error {
	a := &e.aof
	if e.rdbChildBusy() || a.rw != nil {
		return errors.New("a background save is running")
	}
	man, err := e.aofManifest()
	if err != nil {
		e.Log.Warn("Can't read the AOF manifest: " + err.Error())
		return err
	}
	dir := e.aofDir()
	a.dir = dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.Log.Warn("Can't open or create append-only dir " + dir + ": " + unwrapPath(err).Error())
		return err
	}
	e.aofFlush(true)
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
	opts := e.writerOptions()
	opts.AOFBase = true
	rw := &aofRewrite{bg: e.beginBgSnapshot(opts), start: time.Now(), done: make(chan struct{})}
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
		err := e.writeRewrite(rw)
		e.mu.Lock()
		defer e.mu.Unlock()
		if a.rw != rw {
			return // stopped (appendonly no) meanwhile
		}
		e.aofRewriteDone(rw, err)
	}()
	return nil
}

// writeRewrite writes the snapshot to the rewrite's temporary file and
// fsyncs it, without the lock but for the walk's slices.
func (e *Engine) writeRewrite(rw *aofRewrite) error {
	f, err := os.OpenFile(rw.tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = e.streamBgsave(rw.bg, bw)
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
func (e *Engine) aofRewriteDone(rw *aofRewrite, err error) {
	a := &e.aof
	a.rw = nil
	for _, d := range rw.bg.dbs {
		d.snap.Abort()
	}
	e.freezeAccess(false)
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
	base := next.NewBase(true)
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
	a.currentSize = e.aofFilesSize()
	a.baseSize = a.currentSize
	a.lastRwOK = true
	a.rwFailures = 0
	e.Log.Info("Background AOF rewrite terminated with success")
	e.Log.Info("Background AOF rewrite finished successfully")
}

// WaitAOFRewrite waits for a rewrite in progress to end. Call without the lock.
func (e *Engine) WaitAOFRewrite() {
	e.mu.Lock()
	var done chan struct{}
	if e.aof.rw != nil {
		done = e.aof.rw.done
	}
	e.mu.Unlock()
	if done != nil {
		<-done
	}
}

// aofConfigApplied is CONFIG SET appendonly's apply (startAppendOnly and
// stopAppendOnly): turned on, the AOF waits for a rewrite that makes its
// first base; turned off, the file is flushed, fsynced and closed and a
// rewrite in progress stops. The error is CONFIG SET's text.
func (e *Engine) AofConfigApplied() string {
	a := &e.aof
	on := e.Cfg.AOF.Enabled.Load()
	switch {
	case on && a.state == aofOff:
		if _, err := e.aofManifest(); err != nil {
			e.Cfg.AOF.Enabled.Store(false)
			return "Unable to turn on AOF. Check server logs."
		}
		a.dir = e.aofDir()
		a.state = aofWaitRewrite
		e.aofAttachStream()
		if e.rdbChildBusy() {
			a.scheduled = true
			e.Log.Warn("AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
		} else if a.rw != nil {
			// A BGREWRITEAOF of the AOF that was off: its base would not
			// cover the writes from now on. Redis kills it and starts over.
			e.aofKillRewrite()
			if err := e.aofRewriteLocked(); err != nil {
				e.aofDetachStream()
				a.state = aofOff
				e.Cfg.AOF.Enabled.Store(false)
				return "Unable to turn on AOF. Check server logs."
			}
		} else if err := e.aofRewriteLocked(); err != nil {
			e.Log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
			e.aofDetachStream()
			a.state = aofOff
			e.Cfg.AOF.Enabled.Store(false)
			return "Unable to turn on AOF. Check server logs."
		}
	case !on && a.state != aofOff:
		e.stopAppendOnlyLocked()
	}
	return ""
}

func (e *Engine) aofKillRewrite() {
	a := &e.aof
	if a.rw == nil {
		return
	}
	rw := a.rw
	rw.bg.aborted.Store(true)
	for _, d := range rw.bg.dbs {
		d.snap.Abort()
	}
	e.freezeAccess(false)
	os.Remove(rw.tmp)
	a.rw = nil
	e.Log.Info("Killing running AOF rewrite child")
}

// aofAttachStream makes the AOF a reader of the write stream, with the
// everysec goroutine, without a file yet (the rewrite opens it).
func (e *Engine) aofAttachStream() {
	a := &e.aof
	a.enc.Reset()
	e.Prop.Stream.Attach(a)
	a.stop = make(chan struct{})
	go e.aofSyncLoop(a.stop)
}

func (e *Engine) aofDetachStream() {
	a := &e.aof
	e.Prop.Stream.Detach(a)
	close(a.stop)
	if a.f != nil {
		a.f.Close()
		a.f = nil
	}
}

// aofCron is serverCron's AOF part: a scheduled rewrite once nothing else
// runs, and the automatic rewrite past auto-aof-rewrite-percentage growth
// over the size of the last base (from auto-aof-rewrite-min-size).
func (e *Engine) aofCron() {
	a := &e.aof
	if a.rw != nil || e.rdbChildBusy() || e.BusyScript.On {
		return
	}
	if a.scheduled {
		e.aofRewriteLocked()
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
		e.aofRewriteLocked()
	}
}

// aofInfo writes INFO persistence's aof fields: the always-present ones,
// or (tail) those shown only with appendonly yes.
func (e *Engine) AofInfo(b *InfoBuf, tail bool) {
	a := &e.aof
	if tail {
		if !e.Cfg.AOF.Enabled.Load() {
			return
		}
		b.I("aof_current_size", a.currentSize)
		b.I("aof_base_size", a.baseSize)
		b.I("aof_pending_rewrite", b2i(a.scheduled))
		b.I("aof_buffer_length", int64(len(a.buf)))
		b.I("aof_pending_bio_fsync", 0)
		b.I("aof_delayed_fsync", a.delayed)
		return
	}
	cur := int64(-1)
	if a.rw != nil {
		cur = int64(time.Since(a.rw.start) / time.Second)
	}
	b.I("aof_enabled", b2i(a.state != aofOff))
	b.I("aof_rewrite_in_progress", b2i(a.rw != nil))
	b.I("aof_rewrite_scheduled", b2i(a.scheduled))
	b.I("aof_last_rewrite_time_sec", a.lastRwSecs)
	b.I("aof_current_rewrite_time_sec", cur)
	b.Kv("aof_last_bgrewrite_status", okErr(a.lastRwOK))
	b.I("aof_rewrites", a.rewrites)
	b.I("aof_rewrites_consecutive_failures", a.rwFailures)
	b.Kv("aof_last_write_status", okErr(a.writeErr == nil))
	b.I("aof_last_cow_size", 0)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func okErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}

// writeBase writes the dataset as an RDB-preamble base. Call with the lock.
func (e *Engine) writeBase(w interface{ Write([]byte) (int, error) }, opts rdb.WriterOptions) error {
	_, err := e.writeSnapshotWith(w, opts)
	return err
}
