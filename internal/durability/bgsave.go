package durability

import (
	"errors"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/rdb"
)

// BGSAVE without fork. A forked Redis child sees the dataset as it was at
// the fork; here the same point-in-time view comes from the keyspace's
// snapshot walk (keyspace/snapshot.go): a goroutine walks the tables a
// slice at a time under the executor lock, copying each bucket's keys and
// values out (the elements' bytes, into a reused arena), and any command
// that reaches a bucket the walk has not visited first copies that bucket
// out as it is. Between slices the goroutine encodes the copies (listpacks,
// LZF) and writes them to the temporary file without the lock, so the lock
// pays only for the copy, and the memory held is the copies made ahead of
// the walk, not the dataset's image. The
// file holds the same records as a SAVE at BGSAVE's instant (aux fields,
// RESIZEDB hints, keys, values, deadlines); only the order of keys within
// a database differs, and that order is the hash table's in both.

// bgSlice is how long one slice of the walk holds the lock, and
// bgSliceBuckets how many buckets it walks between clock readings. When
// clients ran commands since the last slice, the walk pauses for bgPause
// after writing (a Go sleep this short lasts about a millisecond), so on a
// busy server it takes a fifth or so of the lock and of a core rather than
// all it can get, and lasts longer; on an idle one it runs flat out.
const (
	bgSlice        = 500 * time.Microsecond
	bgPause        = 250 * time.Microsecond
	bgSliceBuckets = 16
	bgChunk        = 64 << 10
)

var errBgAborted = errors.New("background save aborted")

const bgArenaChunk = 256 << 10

// alloc returns n bytes of arena.
func alloc(b *bgBatch, n int) []byte {
	for {
		if b.cur == len(b.chunks) {
			b.chunks = append(b.chunks, make([]byte, 0, max(bgArenaChunk, n)))
		}
		c := b.chunks[b.cur]
		if cap(c)-len(c) >= n {
			start := len(c)
			b.chunks[b.cur] = c[:start+n]
			return c[start : start+n : start+n]
		}
		if len(c) == 0 { // too small even empty: make room
			b.chunks[b.cur] = make([]byte, 0, n)
			continue
		}
		b.cur++
	}
}

func copyOf(b *bgBatch, p []byte) []byte {
	d := alloc(b, len(p))
	copy(d, p)
	return d
}

// next returns the next record slot, its slices emptied for reuse.
func next(b *bgBatch) *rdb.Entry {
	if b.n == len(b.recs) {
		b.recs = append(b.recs, rdb.Entry{})
	}
	r := &b.recs[b.n]
	b.n++
	v := &r.Value
	*r = rdb.Entry{DB: r.DB, Value: rdb.Value{List: v.List[:0], Set: v.Set[:0], ZSet: v.ZSet[:0], Hash: v.Hash[:0]}}
	return r
}

// reset empties the batch, keeping its records and chunks for reuse.
func reset(b *bgBatch) {
	b.n, b.cur = 0, 0
	for i := range b.chunks {
		b.chunks[i] = b.chunks[i][:0]
	}
}

// record copies k out into sd's batch. It runs under the lock, from the
// walk or from whatever command reached k's bucket first.
func record(bg *bgSave, sd *bgDB, k *keyspace.Entry) {
	bg.saved++
	b := sd.batch
	r := next(b)
	r.DB = sd.index
	key := k.Key()
	r.Key = alloc(b, len(key))
	copy(r.Key, key)
	if exp := k.Expiry(); exp != keyspace.NoExpiry {
		r.Expire, r.HasExpire = exp, true
	}
	bg.access.Set(k, r)
	v := RDBValue(&bg.conv, k)
	out := &r.Value
	out.Type, out.Encoding = v.Type, v.Encoding
	switch v.Type {
	case rdb.TypeString:
		out.String = copyOf(b, v.String)
	case rdb.TypeList:
		for _, el := range v.List {
			out.List = append(out.List, copyOf(b, el))
		}
	case rdb.TypeSet:
		for _, el := range v.Set {
			out.Set = append(out.Set, copyOf(b, el))
		}
	case rdb.TypeZSet:
		for _, m := range v.ZSet {
			out.ZSet = append(out.ZSet, rdb.ZMember{Member: copyOf(b, m.Member), Score: m.Score})
		}
	case rdb.TypeHash:
		for _, f := range v.Hash {
			out.Hash = append(out.Hash, rdb.HashField{Field: copyOf(b, f.Field), Value: copyOf(b, f.Value)})
		}
	case rdb.TypeStream:
		out.Stream = v.Stream.Clone() // commands change streams in place
	}
	// The string value itself, not a copy, is what conv keeps: let it go.
	bg.conv.v.String = nil
}

// bgsaveLocked is rdbSaveBackground: it takes the point in time (the
// start of every database's snapshot, and the file's aux fields and
// RESIZEDB hints as a SAVE now would write them) and starts the goroutine
// that walks and writes. The lock is held only for that start.
func BgsaveLocked(e *engine.Engine) error {
	d := Of(e)
	p := &d.persist
	if d.aof.rw != nil {
		return errAOFChildActive // one snapshot at a time, as Redis's one child
	}
	if d.repl.syncing != nil {
		return errors.New(ErrBgsaveInProgress)
	}
	start := time.Now()
	opts := d.writerOptions()
	opts.Repl = d.saveReplInfo()
	bg := d.beginBgSnapshot(opts)
	p.lastLockHold = time.Since(start)
	p.saves++
	p.dirtyAtBg = e.DirtyCount()
	p.lastBgTry = e.Clock.Now()
	p.bgRunning, p.bgStart = true, p.lastBgTry
	p.bg = bg
	p.bgSeq++
	bg.tmp = "temp-" + strconv.Itoa(os.Getpid()) + "-bg" + strconv.FormatInt(p.bgSeq, 10) + ".rdb"
	done := make(chan struct{})
	p.bgDone = done
	dir, name := *e.Cfg.Dir.Load(), *e.Cfg.DBFilename.Load()
	hook := p.beforeRename
	e.Log.Info("Background saving started", "lock_held", p.lastLockHold)
	go func() {
		defer close(done)
		renaming := false
		err := CommitFile(dir, name, bg.tmp, func(w io.Writer) error { return d.streamBgsave(bg, w) }, func() error {
			if hook != nil {
				hook()
			}
			// The rename and a synchronous save's file are ordered by
			// fileMu: an abort that came first wins.
			p.fileMu.Lock()
			renaming = true
			if bg.aborted.Load() {
				return errBgAborted
			}
			return nil
		})
		if renaming {
			p.fileMu.Unlock()
		}
		e.LockBare()
		defer e.UnlockBare()
		if bg.aborted.Load() {
			return // abortBgsaveLocked has settled the state
		}
		for _, sd := range bg.dbs {
			sd.snap.Abort() // after a write error the walk may not be done
		}
		p.bg = nil
		p.bgRunning = false
		d.freezeAccess(false)
		p.lastBgSecs = int64(e.Clock.Now().Sub(p.bgStart) / time.Second)
		if err != nil {
			e.Log.Warn(err.Error())
			e.Log.Warn("Background saving error")
			p.lastBgOK = false
			return
		}
		e.Log.Info("Background saving terminated with success", "slices", bg.slices, "lock_held", bg.held, "longest_slice", bg.maxSlice)
		p.lastWalk = bg.walkStats
		e.AddDirty(-p.dirtyAtBg) // what came after the snapshot stays unsaved
		p.lastSave = e.Clock.Now()
		p.lastBgOK = true
	}()
	return nil
}

// beginBgSnapshot takes the point in time of a background save (or of an
// AOF rewrite's base): the function libraries and every database's
// snapshot. Call with the lock held.
func (d *Component) beginBgSnapshot(opts rdb.WriterOptions) *bgSave {
	e := d.e
	bg := &bgSave{opts: opts, spare: &bgBatch{}, access: e.RdbAccessNow()}
	bg.enc = rdb.NewEntryEncoder(bg.opts)
	bg.functions = e.Scripts.FunctionCodes() // the libraries at the instant, as SAVE writes them
	for i, db := range e.Dbs {
		if db.Len() == 0 {
			continue
		}
		sd := &bgDB{index: i, keys: uint64(db.Len()), expires: uint64(db.ExpiresLen()), batch: &bgBatch{}}
		bg.total += int64(db.Len())
		sd.snap = db.BeginSnapshot(func(k *keyspace.Entry) { record(bg, sd, k) })
		bg.dbs = append(bg.dbs, sd)
	}
	d.freezeAccess(true)
	return bg
}

// snapshotFormat is how a snapshot's records become bytes: the RDB file
// (BGSAVE, a full sync, an AOF base with aof-use-rdb-preamble yes) or the
// commands of an AOF base without the preamble (aof_cmds.go).
type snapshotFormat interface {
	function(code []byte) error
	selectDB(sd *bgDB) error
	appendEntry(buf []byte, r *rdb.Entry) ([]byte, error)
	writeRaw(b []byte) error
	close() error
}

type rdbFormat struct {
	wr  *rdb.Writer
	enc *rdb.EntryEncoder
}

func (f rdbFormat) function(code []byte) error { return f.wr.WriteFunction(code) }
func (f rdbFormat) selectDB(sd *bgDB) error {
	return f.wr.SelectDB(sd.index, sd.keys, sd.expires)
}
func (f rdbFormat) appendEntry(buf []byte, r *rdb.Entry) ([]byte, error) {
	return f.enc.Append(buf, r)
}
func (f rdbFormat) writeRaw(b []byte) error { return f.wr.WriteRaw(b) }
func (f rdbFormat) close() error            { return f.wr.Close() }

// streamBgsave writes the file: header, then per database its SELECTDB and
// RESIZEDB and the keys the walk (and the commands ahead of it) copied
// out, slice by slice, encoded without the lock, then EOF and the checksum
// (or, for a base of commands, the same walk as commands).
func (d *Component) streamBgsave(bg *bgSave, w io.Writer) error {
	e := d.e
	var out snapshotFormat
	if bg.cmds {
		out = cmdFormat{w: w}
	} else {
		wr, err := rdb.NewWriter(w, bg.opts)
		if err != nil {
			return err
		}
		out = rdbFormat{wr: wr, enc: bg.enc}
	}
	for _, code := range bg.functions {
		if err := out.function(code); err != nil {
			return err
		}
	}
	var buf []byte
	var err error
	var seen int64 // commands run when the last slice ended
	for _, sd := range bg.dbs {
		if err := out.selectDB(sd); err != nil {
			return err
		}
		for complete := false; !complete; {
			e.LockBare()
			if bg.aborted.Load() {
				e.UnlockBare()
				return errBgAborted
			}
			busy := e.Stats.Commands != seen
			start := time.Now()
			for !complete && time.Since(start) < bgSlice {
				_, complete = sd.snap.Walk(bgSliceBuckets)
			}
			held := time.Since(start)
			bg.slices++
			bg.held += held
			bg.maxSlice = max(bg.maxSlice, held)
			seen = e.Stats.Commands
			batch := sd.batch
			sd.batch, bg.spare = bg.spare, nil
			e.UnlockBare()

			for i := range batch.recs[:batch.n] {
				if buf, err = out.appendEntry(buf, &batch.recs[i]); err != nil {
					return err
				}
				if len(buf) >= bgChunk {
					if err := out.writeRaw(buf); err != nil {
						return err
					}
					buf = buf[:0]
				}
			}
			reset(batch)
			e.LockBare()
			bg.spare = batch
			e.UnlockBare()
			if busy && !complete {
				time.Sleep(bgPause)
			}
		}
		if err := out.writeRaw(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	return out.close()
}

// abortBgsaveLocked is killRDBChild and the done handler of a child killed
// with SIGUSR1: the walk stops, the temporary file goes, the last
// status stays as it was.
func AbortBgsaveLocked(e *engine.Engine) {
	d := Of(e)
	p := &d.persist
	if !p.bgRunning || p.bg == nil {
		return
	}
	bg := p.bg
	bg.aborted.Store(true)
	for _, sd := range bg.dbs {
		sd.snap.Abort()
	}
	os.Remove(bg.tmp) // the goroutine's open file goes with its last close
	p.bg = nil
	p.bgRunning = false
	d.freezeAccess(false)
	p.lastBgSecs = int64(e.Clock.Now().Sub(p.bgStart) / time.Second)
	e.Log.Warn("Background saving terminated by signal 10")
}

// freezeAccess is Redis's rule that lookups do not update access times
// while a child process runs (lookupKey's hasActiveChildProcess check).
func (d *Component) freezeAccess(on bool) {
	for _, db := range d.e.Dbs {
		db.FreezeAccess = on
	}
}

// rdbChildBusy is Redis's "an RDB child is running": a background save, or
// the snapshot of a replica's full sync (replication_master.go), which
// Redis makes with the same child.
func (d *Component) rdbChildBusy() bool { return d.persist.bgRunning || d.repl.syncing != nil }
