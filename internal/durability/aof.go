package durability

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/propagate"
	"github.com/limitkv/limitkv/internal/redislog"
	"github.com/limitkv/limitkv/internal/resp"
)

// The append-only file, Redis 7.0's multi-part layout (aof.c): a manifest
// naming a base file (an RDB, aof-use-rdb-preamble yes, or commands) and
// incremental files of commands, in appenddirname under dir. The AOF is a
// reader of the write stream (propagate.go): Feed encodes each operation
// into the AOF buffer (aof_buf), and aofFlush writes it out when the
// executor lock is released (Engine.Unlock, the point where Redis's
// beforeSleep runs flushAppendOnlyFile), before any reply of the batch is
// handed to the socket. appendfsync always fsyncs there; everysec leaves it
// to a goroutine, once a second, without the lock.
//
// BGREWRITEAOF writes a new base from the fork-free snapshot a BGSAVE uses
// (bgsave.go) while new writes go to a new incremental file, then swaps the
// manifest atomically and removes the files it replaced.

func (d *Component) aofDir() string {
	e := d.e
	return filepath.Join(*e.Cfg.Dir.Load(), *e.Cfg.AOF.DirName.Load())
}

// aofFlush is flushAppendOnlyFile: the buffer to the current file, and
// with appendfsync always an fsync before any reply goes. Call with the
// lock held.
func (d *Component) aofFlush(force bool) {
	e := d.e
	a := &d.aof
	if len(a.buf) == 0 || a.f == nil {
		return
	}
	n, err := a.f.Write(a.buf)
	a.currentSize += int64(n)
	policy := e.Cfg.AOF.Fsync.Load()
	if err != nil {
		if a.writeErr == nil {
			e.Log.Warn("Error writing to the AOF file: " + unwrapPath(err).Error())
		}
		a.writeErr = err
		if policy == config.FsyncAlways {
			e.Log.Warn("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
			os.Exit(1)
		}
		a.buf = append(a.buf[:0], a.buf[n:]...)
		return
	}
	if a.writeErr != nil {
		e.Log.Warn("AOF write error looks solved, Redis can write again.")
		a.writeErr = nil
	}
	a.buf = a.buf[:0]
	if cap(a.buf) > 4<<20 {
		a.buf = nil
	}
	switch policy {
	case config.FsyncAlways:
		if err := a.f.Sync(); err != nil {
			e.Log.Warn("Can't persist AOF for fsync error when the AOF fsync policy is 'always': " + unwrapPath(err).Error() + ". Exiting...")
			os.Exit(1)
		}
	case config.FsyncEverysec:
		a.unsynced = true
	}
}

// FlushAOF writes (and with appendfsync always fsyncs) what the write
// stream gave the AOF, for a front that writes replies with the lock held:
// call it before the first reply goes. Call with the lock held.
func FlushAOF(e *engine.Engine) { Of(e).aofFlush(false) }

// aofSyncLoop is the everysec fsync (Redis's bio thread): once a second it
// writes what is buffered (keys the expiry cycle removed, say) and fsyncs
// without the lock.
func (d *Component) aofSyncLoop(stop chan struct{}) {
	e := d.e
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		e.LockBare()
		d.aofFlush(false)
		a := &d.aof
		f, need := a.f, a.unsynced && e.Cfg.AOF.Fsync.Load() == config.FsyncEverysec
		a.unsynced = false
		e.UnlockBare()
		if need && f != nil {
			f.Sync() // a file closed by a rewrite meanwhile was synced first
		}
	}
}

// LoadAppendOnly is loadAppendOnlyFiles at start, for appendonly yes: the
// manifest, the base (RDB or commands), then every incremental file. It
// reports whether an AOF existed. A torn tail of the last file is cut off
// with aof-load-truncated yes (logged as Redis does); anything else that
// is wrong is an error and the server must not start. Call before serving.
func LoadAppendOnly(e *engine.Engine) (bool, error) {
	d := Of(e)
	man, err := d.readManifest()
	if err != nil {
		return false, err
	}
	d.aof.man = man
	e.LockBare()
	defer e.UnlockBare()
	return d.loadAppendOnlyLocked(man)
}

// readManifest is aofLoadManifestFromDisk: an empty manifest when there
// is none (a first start, or an AOF of before 7.0).
func (d *Component) readManifest() (*aof.Manifest, error) {
	e := d.e
	prefix := *e.Cfg.AOF.FileName.Load()
	path := filepath.Join(d.aofDir(), aof.ManifestName(prefix))
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return aof.New(prefix), nil
	case err != nil:
		return nil, fmt.Errorf("Fatal error: can't open the AOF manifest file %s for reading: %w", path, unwrapPath(err))
	}
	man, err := aof.Parse(prefix, data)
	if err != nil {
		e.Log.Warn("*** FATAL AOF MANIFEST FILE ERROR ***")
		return nil, err
	}
	return man, nil
}

// loadAppendOnlyLocked loads the files man names, after moving an AOF of
// before 7.0 into place (aofUpgrade). Call with the lock held.
func (d *Component) loadAppendOnlyLocked(man *aof.Manifest) (bool, error) {
	e := d.e
	if err := d.aofUpgrade(man); err != nil {
		return false, err
	}
	dir := d.aofDir()
	var files []string
	if man.Base != nil {
		files = append(files, man.Base.Name)
	}
	for _, ai := range man.Incr {
		files = append(files, ai.Name)
	}
	if len(files) == 0 {
		return false, nil
	}
	var total int64
	for _, name := range files {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			e.Log.Warn("The append log file " + name + " doesn't exist: " + unwrapPath(err).Error())
			return false, fmt.Errorf("loading the AOF: %s: %w", name, unwrapPath(err))
		}
		total += st.Size()
	}
	if total == 0 {
		return true, nil
	}
	c := e.NewClientLocked("", "")
	c.AofLoading = true
	defer e.RemoveClientLocked(c)
	defer e.Prop.Stream.Mute()()
	cmds := e.Stats.Commands
	defer func() { e.Stats.Commands = cmds }()
	for i, name := range files {
		start := time.Now()
		last := i == len(files)-1
		truncated, err := d.loadAOFFile(c, dir, name, last, name == man.Prefix)
		if err != nil {
			for _, db := range e.Dbs {
				db.Flush()
			}
			return true, err
		}
		if !truncated || last {
			kind := "incr"
			if man.Base != nil && i == 0 {
				kind = "base"
			}
			e.Log.Info(fmt.Sprintf("DB loaded from %s file %s: %.3f seconds", kind, name, time.Since(start).Seconds()))
		}
	}
	d.aof.currentSize = total
	if man.Base != nil {
		if st, err := os.Stat(filepath.Join(dir, man.Base.Name)); err == nil {
			d.aof.baseSize = st.Size()
		}
	}
	return true, nil
}

// loadAOFFile is loadSingleAppendOnlyFile.
// An old-style file (the appendfilename itself, an AOF of before 7.0)
// is logged as a preamble and its tail.
func (d *Component) loadAOFFile(c *engine.Client, dir, name string, last, oldStyle bool) (truncated bool, err error) {
	e := d.e
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("Fatal error: can't open the append log file %s for reading: %w", name, unwrapPath(err))
	}
	defer f.Close()
	cr := &engine.CountingReader{R: f}
	br := bufio.NewReaderSize(cr, 1<<20)
	var start int64
	if sig, _ := br.Peek(5); string(sig) == "REDIS" {
		if oldStyle {
			redislog.AOFReadingPreamble.Log(e.Log)
		} else {
			redislog.AOFReadingBase.Log(e.Log)
		}
		if _, err := Load(e, br, false); err != nil {
			if oldStyle {
				redislog.AOFPreambleFailed.Log(e.Log, name)
			} else {
				redislog.AOFBaseFailed.Log(e.Log, name)
			}
			return false, fmt.Errorf("loading %s: %w", name, err)
		}
		start = cr.N - int64(br.Buffered())
		if oldStyle {
			redislog.AOFReadingTail.Log(e.Log)
		}
	}
	rd := aof.NewReader(br, start)
	w := &resp.Writer{}
	c.DB, c.Multi = 0, nil
	var queued [][][]byte
	inMulti := false
	var beforeMulti int64
	for {
		args, err := rd.Next()
		if err == io.EOF {
			if inMulti {
				e.Log.Warn("Revert incomplete MULTI/EXEC transaction in AOF file " + name)
				return d.aofTruncate(path, name, beforeMulti, last)
			}
			return false, nil
		}
		if errors.Is(err, aof.ErrTruncated) {
			off := rd.Offset()
			if inMulti {
				off = beforeMulti
			}
			return d.aofTruncate(path, name, off, last)
		}
		if errors.Is(err, aof.ErrFormat) {
			e.Log.Warn("Bad file format reading the append only file " + name + ": make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>")
			return false, fmt.Errorf("Bad file format reading the append only file %s", name)
		}
		if err != nil {
			e.Log.Warn("Unrecoverable error reading the append only file " + name + ": " + err.Error())
			return false, err
		}
		cmd := engine.Lookup(args[0])
		if cmd != nil && cmd.Sub != nil && len(args) >= 2 {
			cmd = engine.LookupSub(cmd, args[1])
		}
		if cmd == nil {
			e.Log.Warn("Unknown command '" + string(args[0]) + "' reading the append only file " + name)
			return false, fmt.Errorf("Unknown command '%s' reading the append only file %s", args[0], name)
		}
		switch {
		case cmd.Name == "multi":
			inMulti, queued, beforeMulti = true, queued[:0], rd.Offset()-int64(len(propagate.AppendCommand(nil, args)))
		case cmd.Name == "exec" && inMulti:
			inMulti = false
			for _, q := range queued {
				d.aofRun(c, q, w)
			}
		case inMulti:
			queued = append(queued, args)
		default:
			d.aofRun(c, args, w)
		}
		w.Reset(0)
	}
}

// aofRun runs one loaded command on the loading client, without the
// checks a network command passes (Redis calls cmd->proc directly).
func (d *Component) aofRun(c *engine.Client, args [][]byte, w *resp.Writer) {
	e := d.e
	cmd := engine.Lookup(args[0])
	if cmd.Sub != nil && len(args) >= 2 {
		cmd = engine.LookupSub(cmd, args[1])
	}
	if !engine.ArityOK(cmd.Arity, len(args)) {
		return // Redis's proc would answer an error and change nothing
	}
	x := engine.Ctx{E: e, C: c, W: w, DB: e.Dbs[c.DB], Now: e.NowMs(), Args: args, Cmd: cmd}
	e.Call(&x)
	w.Reset(0)
}

// aofTruncate is the uxeof path: with aof-load-truncated the last file is
// cut after its last complete command; otherwise, or for a file that is
// not the last, loading fails.
func (d *Component) aofTruncate(path, name string, off int64, last bool) (bool, error) {
	e := d.e
	if e.Cfg.AOF.LoadTruncated.Load() {
		e.Log.Warn("!!! Warning: short read while loading the AOF file " + name + "!!!")
		e.Log.Warn(fmt.Sprintf("!!! Truncating the AOF %s at offset %d !!!", name, off))
		if err := os.Truncate(path, off); err != nil {
			e.Log.Warn("Error truncating the AOF file " + name + ": " + unwrapPath(err).Error())
		} else {
			e.Log.Warn("AOF " + name + " loaded anyway because aof-load-truncated is enabled")
			if !last {
				e.Log.Warn("Fatal error: the truncated file is not the last file")
				return true, errors.New("Fatal error: the truncated file is not the last file")
			}
			return true, nil
		}
	}
	e.Log.Warn("Unexpected end of file reading the append only file " + name + ". You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.")
	return false, fmt.Errorf("Unexpected end of file reading the append only file %s", name)
}

// StartAppendOnly is aofOpenIfNeededOnServerStart: with appendonly yes,
// after loading, a base file for a dataset that has none, the last
// incremental file opened for appending (made if there is none), the
// manifest persisted. Call before serving.
func StartAppendOnly(e *engine.Engine) error {
	d := Of(e)
	e.LockBare()
	defer e.UnlockBare()
	if !e.Cfg.AOF.Enabled.Load() {
		return nil
	}
	a := &d.aof
	a.dir = d.aofDir()
	if a.man == nil {
		a.man = aof.New(*e.Cfg.AOF.FileName.Load())
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return fmt.Errorf("Can't open or create append-only dir %s: %w", a.dir, unwrapPath(err))
	}
	if a.man.Base == nil && len(a.man.Incr) == 0 {
		name := a.man.NewBase(e.Cfg.AOF.UseRDBPreamble.Load())
		if err := d.writeBaseLocked(name); err != nil {
			return err
		}
		e.Log.Info("Creating AOF base file " + name + " on server start")
	}
	existing := len(a.man.Incr) > 0
	name := a.man.LastIncr()
	f, err := os.OpenFile(filepath.Join(a.dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("Can't open the append-only file %s: %w", name, unwrapPath(err))
	}
	if a.man.Modified {
		if err := a.man.Write(a.dir); err != nil {
			f.Close()
			return err
		}
	}
	if existing {
		e.Log.Info("Opening AOF incr file " + name + " on server start")
	} else {
		e.Log.Info("Creating AOF incr file " + name + " on server start")
	}
	d.aofAttach(f, aofOn)
	if a.currentSize == 0 {
		a.currentSize = d.aofFilesSize()
		a.baseSize = a.currentSize
	}
	return nil
}

// aofAttach makes f the file writes go to and the AOF a reader of the
// stream.
func (d *Component) aofAttach(f *os.File, state int) {
	d.aofAttachStream()
	d.aof.f, d.aof.state = f, state
}

// writeBaseLocked writes the dataset as base file name synchronously
// (rewriteAppendOnlyFile at start, where the dataset is what was loaded).
func (d *Component) writeBaseLocked(name string) error {
	e := d.e
	dir := d.aofDir()
	tmp := "temp-rewriteaof-" + strconv.Itoa(os.Getpid()) + ".aof"
	opts := d.writerOptions()
	opts.AOFBase = true
	return CommitFile(dir, name, tmp, func(w io.Writer) error {
		if !e.Cfg.AOF.UseRDBPreamble.Load() {
			return d.writeCmdBase(w)
		}
		return d.writeBase(w, opts)
	}, nil)
}

func (d *Component) aofFilesSize() int64 {
	a := &d.aof
	var n int64
	names := []string{}
	if a.man.Base != nil {
		names = append(names, a.man.Base.Name)
	}
	for _, ai := range a.man.Incr {
		names = append(names, ai.Name)
	}
	for _, name := range names {
		if st, err := os.Stat(filepath.Join(a.dir, name)); err == nil {
			n += st.Size()
		}
	}
	return n
}

// StopAppendOnly closes the AOF at shutdown: what is buffered is written
// and fsynced (Redis's flushAppendOnlyFile(1) and fsync in prepareForShutdown).
func StopAppendOnly(e *engine.Engine) {
	d := Of(e)
	e.LockBare()
	defer e.UnlockBare()
	d.stopAppendOnlyLocked()
}

func (d *Component) stopAppendOnlyLocked() {
	a := &d.aof
	if a.state == aofOff {
		return
	}
	d.aofFlush(true)
	if a.f != nil {
		a.f.Sync()
		a.f.Close()
		a.f = nil
	}
	d.aofKillRewrite()
	if a.state == aofWaitRewrite && a.man != nil {
		// killAppendOnlyChild's aofDelTempIncrAofFile: nothing refers to it.
		os.Remove(filepath.Join(a.dir, aof.TempIncrName(a.man.Prefix)))
	}
	d.e.Prop.Stream.Detach(a)
	close(a.stop)
	a.state = aofOff
	a.buf = a.buf[:0]
}
