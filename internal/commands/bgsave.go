package commands

import (
	"errors"
	"io"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/rdb"
)

// BGSAVE without fork. A forked Redis child sees the dataset as it was at
// the fork; here the same point-in-time view comes from the keyspace's
// snapshot walk (keyspace/snapshot.go): a goroutine walks the tables a
// slice at a time under the executor lock, encoding each bucket's keys,
// and any command that reaches a bucket the walk has not visited first
// encodes that bucket as it is. Between slices the goroutine writes what
// was encoded to the temporary file without the lock, so the memory held
// is the records encoded ahead of the walk, not the dataset's image. The
// file holds the same records as a SAVE at BGSAVE's instant (aux fields,
// RESIZEDB hints, keys, values, deadlines); only the order of keys within
// a database differs, and that order is the hash table's in both.

// bgSlice is how long one slice of the walk holds the lock, and
// bgSliceBuckets how many buckets it walks between clock readings.
const (
	bgSlice        = 200 * time.Microsecond
	bgSliceBuckets = 16
	bgChunk        = 64 << 10
)

var errBgAborted = errors.New("background save aborted")

// bgSave is a background save in progress. Everything but aborted is
// guarded by the engine lock.
type bgSave struct {
	opts    rdb.WriterOptions
	dbs     []*bgDB // the databases that had keys at the start, in order
	enc     *rdb.EntryEncoder
	conv    toRDB
	ent     rdb.Entry
	key     []byte
	err     error // the first encoding error
	total   int64 // keys at the start
	saved   int64 // keys encoded so far
	free    [][]byte
	aborted atomic.Bool
	tmp     string
}

type bgDB struct {
	index         int
	keys, expires uint64
	snap          *keyspace.Snapshot
	out           [][]byte // records encoded and not yet written out
}

// record encodes k into d's pending output. It runs under the lock, from
// the walk or from whatever command reached k's bucket first.
func (bg *bgSave) record(d *bgDB, k *keyspace.Entry) {
	bg.saved++
	if bg.err != nil {
		return
	}
	bg.key = append(bg.key[:0], k.Key()...)
	bg.ent = rdb.Entry{DB: d.index, Key: bg.key, Value: *bg.conv.value(k)}
	if exp := k.Expiry(); exp != keyspace.NoExpiry {
		bg.ent.Expire, bg.ent.HasExpire = exp, true
	}
	if n := len(d.out); n == 0 || len(d.out[n-1]) >= bgChunk {
		var c []byte
		if f := len(bg.free); f > 0 {
			c, bg.free = bg.free[f-1][:0], bg.free[:f-1]
		} else {
			c = make([]byte, 0, bgChunk+bgChunk/4)
		}
		d.out = append(d.out, c)
	}
	last := &d.out[len(d.out)-1]
	var err error
	*last, err = bg.enc.Append(*last, &bg.ent)
	bg.ent = rdb.Entry{} // keep no key or value alive
	if err != nil {
		bg.err = err
	}
}

// bgsaveLocked is rdbSaveBackground: it takes the point in time (the
// start of every database's snapshot, and the file's aux fields and
// RESIZEDB hints as a SAVE now would write them) and starts the goroutine
// that walks and writes. The lock is held only for that start.
func (e *Engine) bgsaveLocked() error {
	p := &e.persist
	start := time.Now()
	bg := &bgSave{opts: e.writerOptions()}
	bg.enc = rdb.NewEntryEncoder(bg.opts)
	for i, db := range e.dbs {
		if db.Len() == 0 {
			continue
		}
		d := &bgDB{index: i, keys: uint64(db.Len()), expires: uint64(db.ExpiresLen())}
		bg.total += int64(db.Len())
		d.snap = db.BeginSnapshot(func(k *keyspace.Entry) { bg.record(d, k) })
		bg.dbs = append(bg.dbs, d)
	}
	p.lastLockHold = time.Since(start)
	p.saves++
	p.dirtyAtBg = p.dirty
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
		err := commitFile(dir, name, bg.tmp, func(w io.Writer) error { return e.streamBgsave(bg, w) }, func() error {
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
		e.mu.Lock()
		defer e.mu.Unlock()
		if bg.aborted.Load() {
			return // abortBgsaveLocked has settled the state
		}
		for _, d := range bg.dbs {
			d.snap.Abort() // after a write error the walk may not be done
		}
		p.bg = nil
		p.bgRunning = false
		p.lastBgSecs = int64(e.Clock.Now().Sub(p.bgStart) / time.Second)
		if err != nil {
			e.Log.Warn(err.Error())
			e.Log.Warn("Background saving error")
			p.lastBgOK = false
			return
		}
		e.Log.Info("Background saving terminated with success")
		p.dirty -= p.dirtyAtBg
		p.lastSave = e.Clock.Now()
		p.lastBgOK = true
	}()
	return nil
}

// streamBgsave writes the file: header, then per database its SELECTDB and
// RESIZEDB and the records the walk (and the commands ahead of it)
// encoded, slice by slice, then EOF and the checksum.
func (e *Engine) streamBgsave(bg *bgSave, w io.Writer) error {
	wr, err := rdb.NewWriter(w, bg.opts)
	if err != nil {
		return err
	}
	var written [][]byte
	for _, d := range bg.dbs {
		if err := wr.SelectDB(d.index, d.keys, d.expires); err != nil {
			return err
		}
		for complete := false; !complete; {
			e.mu.Lock()
			if bg.aborted.Load() {
				e.mu.Unlock()
				return errBgAborted
			}
			bg.free = append(bg.free, written...)
			start := time.Now()
			for !complete && time.Since(start) < bgSlice {
				_, complete = d.snap.Walk(bgSliceBuckets)
			}
			out, encErr := d.out, bg.err
			d.out = nil
			e.mu.Unlock()
			if encErr != nil {
				return encErr
			}
			clear(written)
			written = written[:0]
			for _, c := range out {
				if err := wr.WriteRaw(c); err != nil {
					return err
				}
				written = append(written, c)
			}
		}
	}
	return wr.Close()
}

// abortBgsaveLocked is killRDBChild and the done handler of a child killed
// with SIGUSR1: the walk stops, the temporary file goes, the last
// status stays as it was.
func (e *Engine) abortBgsaveLocked() {
	p := &e.persist
	if !p.bgRunning || p.bg == nil {
		return
	}
	bg := p.bg
	bg.aborted.Store(true)
	for _, d := range bg.dbs {
		d.snap.Abort()
		d.out = nil
	}
	os.Remove(bg.tmp) // the goroutine's open file goes with its last close
	p.bg = nil
	p.bgRunning = false
	p.lastBgSecs = int64(e.Clock.Now().Sub(p.bgStart) / time.Second)
	e.Log.Warn("Background saving terminated by signal 10")
}

// saveProgress is INFO's current_save_keys_processed and _total.
func (p *persistState) saveProgress() (processed, total int64) {
	if p.bg == nil {
		return 0, 0
	}
	return min(p.bg.saved, p.bg.total), p.bg.total
}
