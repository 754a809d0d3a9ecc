package durability

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/list"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/set"
	"github.com/limitkv/limitkv/internal/stream"
	"github.com/limitkv/limitkv/internal/zset"
)

// Persistence: the conversion between the engine's values and the rdb
// package's neutral model (both ways, for every type), writing a snapshot
// of all databases and loading one at start. The commands that use it
// (SAVE, BGSAVE, DUMP, RESTORE, ...) are in rdb_cmds.go.

func add(t *ToRDB, b []byte) {
	t.arena = append(t.arena, b...)
	t.spans = append(t.spans, len(t.arena))
}

// elems cuts arena into the elements added since the reset.
func elems(t *ToRDB, dst [][]byte) [][]byte {
	dst = dst[:0]
	start := 0
	for _, end := range t.spans {
		dst = append(dst, t.arena[start:end:end])
		start = end
	}
	return dst
}

// value converts e's value; the result is valid until the next call. The
// Encoding is what OBJECT ENCODING reports for it, so the writer picks the
// RDB type Redis would write for the same object.
func RDBValue(t *ToRDB, e *keyspace.Entry) *rdb.Value {
	t.arena, t.spans = t.arena[:0], t.spans[:0]
	v := &t.v
	switch val := e.Val.(type) {
	case []byte:
		*v = rdb.Value{Type: rdb.TypeString, Encoding: rdb.EncodingRaw, String: val}
	case *list.List:
		val.Each(0, false, func(_ int, b []byte) bool { add(t, b); return true })
		*v = rdb.Value{Type: rdb.TypeList, Encoding: rdb.EncodingQuicklist, List: elems(t, v.List)}
	case *set.Set:
		val.Each(func(m []byte) bool { add(t, m); return true })
		enc := rdb.EncodingHashtable
		if val.IsIntset() {
			enc = rdb.EncodingIntset
		}
		*v = rdb.Value{Type: rdb.TypeSet, Encoding: enc, Set: elems(t, v.Set)}
	case *zset.Set:
		zs := v.ZSet[:0]
		// stop past the end is clamped: no separate Len walk.
		val.RangeByRank(0, math.MaxInt, false, func(m []byte, score float64) bool {
			add(t, m)
			zs = append(zs, rdb.ZMember{Score: score})
			return true
		})
		start := 0
		for i, end := range t.spans {
			zs[i].Member = t.arena[start:end:end]
			start = end
		}
		enc := rdb.EncodingListpack
		if val.Encoding() == "skiplist" {
			enc = rdb.EncodingSkiplist
		}
		*v = rdb.Value{Type: rdb.TypeZSet, Encoding: enc, ZSet: zs}
	case *hash.Hash:
		val.ForEach(func(f, x []byte) bool { add(t, f); add(t, x); return true })
		hs := v.Hash[:0]
		start := 0
		for i := 0; i+1 < len(t.spans); i += 2 {
			mid, end := t.spans[i], t.spans[i+1]
			hs = append(hs, rdb.HashField{Field: t.arena[start:mid:mid], Value: t.arena[mid:end:end]})
			start = end
		}
		enc := rdb.EncodingListpack
		if val.Encoding() == "hashtable" {
			enc = rdb.EncodingHashtable
		}
		*v = rdb.Value{Type: rdb.TypeHash, Encoding: enc, Hash: hs}
	case *stream.Stream:
		*v = rdb.Value{Type: rdb.TypeStream, Encoding: rdb.EncodingStream, Stream: val}
	default:
		panic("keyspace holds an unknown value type")
	}
	return v
}

// fromRDB builds an engine value from a decoded one, in the encoding the
// reader says Redis would hold it in after loading (v.Encoding). Building
// through the types' own insert paths with the configured limits gives the
// same encoding in all but contrived cases; where it does not, the value
// keeps the encoding the insertions produced, which is the one limitkv
// would have built for these elements anyway.
func fromRDB(c *config.Config, v *rdb.Value) (any, error) {
	switch v.Type {
	case rdb.TypeString:
		return append([]byte(nil), v.String...), nil
	case rdb.TypeList:
		l := list.New(c.ListFill())
		for _, el := range v.List {
			l.PushBack(el)
		}
		return l, nil
	case rdb.TypeSet:
		s := set.New()
		maxIntset := c.SetMaxIntsetEntries.Load()
		for _, m := range v.Set {
			if !s.Add(m, maxIntset) {
				return nil, fmt.Errorf("%w: duplicate set member", rdb.ErrCorrupt)
			}
		}
		return s, nil
	case rdb.TypeZSet:
		z := zset.New()
		lim := c.ZsetLimits()
		for _, m := range v.ZSet {
			if !z.AddBytes(m.Member, m.Score, lim) {
				return nil, fmt.Errorf("%w: duplicate sorted set member", rdb.ErrCorrupt)
			}
		}
		return z, nil
	case rdb.TypeHash:
		h := hash.New()
		lim := c.HashLimits()
		for _, f := range v.Hash {
			if h.Set(f.Field, f.Value, lim) {
				return nil, fmt.Errorf("%w: duplicate hash field", rdb.ErrCorrupt)
			}
		}
		return h, nil
	case rdb.TypeStream:
		return v.Stream, nil
	}
	return nil, fmt.Errorf("%w: type %v", rdb.ErrUnsupported, v.Type)
}

// writerOptions are the rdb writer's settings for this engine's config.
func (d *Component) writerOptions() rdb.WriterOptions {
	e := d.e
	return rdb.WriterOptions{
		NoCompression: !e.Cfg.RDBCompression.Load(),
		NoChecksum:    !e.Cfg.RDBChecksum.Load(),
		RedisVersion:  config.RedisVersion,
		CTime:         e.Clock.Now(),
		UsedMem:       int64(e.UsedMemory()),
		Limits:        e.Cfg.RdbLimits(),
	}
}

// writeSnapshot encodes every database to w, as rdbSaveRio does: per
// non-empty database SELECTDB and RESIZEDB, then each key with its
// deadline, keys past their deadline but not yet reclaimed included (Redis
// writes them too; loading drops them). Call with the lock held; it reads
// the keyspace without touching it (no access times, no lazy expiry), so a
// snapshot changes nothing observable. It returns the number of keys
// written.
func WriteSnapshot(e *engine.Engine, w io.Writer) (int, error) {
	d := Of(e)
	return d.writeSnapshotWith(w, d.writerOptions())
}

// writeSnapshotWith is writeSnapshot with the writer's options given (an
// AOF base carries the aof-base aux field).
func (d *Component) writeSnapshotWith(w io.Writer, opts rdb.WriterOptions) (int, error) {
	e := d.e
	wr, err := rdb.NewWriter(w, opts)
	if err != nil {
		return 0, err
	}
	for _, code := range e.Scripts.FunctionCodes() {
		if err := wr.WriteFunction(code); err != nil {
			return 0, err
		}
	}
	var conv ToRDB
	var ent rdb.Entry
	var key []byte
	access := e.RdbAccessNow()
	n := 0
	for i, db := range e.Dbs {
		if db.Len() == 0 {
			continue
		}
		if err := wr.SelectDB(i, uint64(db.Len()), uint64(db.ExpiresLen())); err != nil {
			return n, err
		}
		db.ForEach(func(k *keyspace.Entry) bool {
			exp := k.Expiry()
			key = append(key[:0], k.Key()...)
			ent = rdb.Entry{DB: i, Key: key, Value: *RDBValue(&conv, k)}
			if exp != keyspace.NoExpiry {
				ent.Expire, ent.HasExpire = exp, true
			}
			access.Set(k, &ent)
			err = wr.WriteEntry(&ent)
			n++
			return err == nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, wr.Close()
}

// commitFile writes data (from fill) to a temporary file in dir, fsyncs it,
// renames it over name and fsyncs dir, as rdbSave does: a crash at any
// point leaves either the old file or the new one, never a torn one. The
// returned error is for the log; clients get Redis's bare "ERR". An error
// from beforeRename (a background save overtaken) drops the temporary file
// and is returned as it is.
func CommitFile(dir, name, tmpName string, fill func(w io.Writer) error, beforeRename func() error) error {
	tmp := filepath.Join(dir, tmpName)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %w", tmpName, dir, unwrapPath(err))
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	werr := func(op string, err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("Write error saving DB on disk(%s): %w", op, unwrapPath(err))
	}
	if err := fill(bw); err != nil {
		return werr("rdbSaveRio", err)
	}
	if err := bw.Flush(); err != nil {
		return werr("fflush", err)
	}
	if err := f.Sync(); err != nil {
		return werr("fsync", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("Write error saving DB on disk(fclose): %w", unwrapPath(err))
	}
	if beforeRename != nil {
		if err := beforeRename(); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("Error moving temp DB file %s on the final destination %s (in server root dir %s): %w", tmpName, name, dir, unwrapPath(err))
	}
	d, err := os.Open(dir)
	if err == nil {
		err = d.Sync()
		d.Close()
	}
	if err != nil {
		return fmt.Errorf("Write error saving DB on disk(fsyncFileDir): %w", unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the os package's "op path:" prefix, leaving the
// strerror-like text Redis logs.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// LoadStats is what loading a file found.
type LoadStats struct {
	Keys, Expired int
	// Repl is the file's replication info (repl-id, repl-offset,
	// repl-stream-db aux fields), nil if it has none.
	Repl *rdb.ReplInfo
}

// LoadFile loads the RDB file at path into the (empty) databases, as Redis
// does at start: keys already expired are dropped and counted, a key that
// appears twice is an error. A missing file is not an error (a first
// start). Any error leaves the databases empty, and the file is never
// written to. The server may already serve: meanwhile its clients get the
// LOADING error (loading.go).
func LoadFile(e *engine.Engine, path string) (LoadStats, error) {
	d := Of(e)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return LoadStats{}, nil
	}
	if err != nil {
		return LoadStats{}, err
	}
	defer f.Close()
	e.LockBare()
	defer e.UnlockBare()
	cr := &engine.CountingReader{R: f}
	br := bufio.NewReaderSize(cr, 1<<20)
	e.StartLoad = engine.LoadState{On: true, Start: e.Clock.Now().Unix(), Read: cr, Br: br}
	if fi, err := f.Stat(); err == nil {
		e.StartLoad.Total = fi.Size()
	}
	defer func() { e.StartLoad = engine.LoadState{} }()
	st, err := Load(e, br, false)
	if errors.Is(err, engine.ErrLoadAborted) {
		for _, db := range e.Dbs {
			db.Flush()
		}
		return LoadStats{}, err
	}
	if err != nil {
		for _, db := range e.Dbs {
			db.Flush()
		}
		return LoadStats{}, fmt.Errorf("loading %s: %w", path, err)
	}
	d.persist.loadKeys, d.persist.loadExpired = st.Keys, st.Expired
	d.restoreReplInfo(st.Repl)
	return st, nil
}

// ReloadFile loads path into the databases as they are, with the lock
// held (DEBUG RELOAD). A missing file is an error here, as rdbLoad's.
func ReloadFile(e *engine.Engine, path string, merge bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := Load(e, bufio.NewReaderSize(f, 1<<20), merge)
	if err != nil {
		return err
	}
	p := &Of(e).persist
	p.loadKeys, p.loadExpired = st.Keys, st.Expired
	return nil
}

// load reads an RDB stream into the databases. With merge (DEBUG RELOAD
// MERGE) a key of the stream replaces one already there; otherwise that
// is an error.
func Load(e *engine.Engine, r io.Reader, merge bool) (LoadStats, error) {
	e.LoadingKeys = true
	defer func() { e.LoadingKeys = false }()
	var st LoadStats
	rd, err := rdb.NewReader(r, &rdb.ReaderOptions{
		MaxStringLen: e.Cfg.ProtoMaxBulkLen.Load(),
		Databases:    config.NumDBs,
		SkipChecksum: !e.Cfg.RDBChecksum.Load() || e.Debug.SkipChecksum,
		Limits:       e.Cfg.RdbLimits(),
	})
	if err != nil {
		return st, err
	}
	now := e.NowMs()
	for {
		ent, err := rd.Next()
		if errors.Is(err, io.EOF) {
			st.Repl = replInfoOf(rd.Aux)
			return st, e.Scripts.LoadFunctions(rd.Functions)
		}
		if err != nil {
			return st, err
		}
		if e.StartLoad.On {
			if err := e.LoadYield(rd); err != nil {
				return st, err
			}
		}
		if ent.HasExpire && ent.Expire < now {
			st.Expired++
			continue
		}
		db := e.Dbs[ent.DB]
		if old := db.Peek(ent.Key); old != nil && merge {
			db.Remove(old)
		} else if old != nil {
			return st, fmt.Errorf("%w: RDB has duplicated key '%s' in DB %d", rdb.ErrCorrupt, ent.Key, ent.DB)
		}
		val, err := fromRDB(e.Cfg, &ent.Value)
		if err != nil {
			return st, fmt.Errorf("key '%s' in DB %d: %w", ent.Key, ent.DB, err)
		}
		k := db.Add(ent.Key, val)
		if ent.HasExpire {
			db.SetExpiry(k, ent.Expire)
		}
		engine.LoadedAccess(db, k, ent, now)
		st.Keys++
	}
}
