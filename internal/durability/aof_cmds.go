package durability

import (
	"io"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/rdb"
)

// An AOF base made of commands (aof-use-rdb-preamble no): the snapshot
// a rewrite takes, or the dataset at start, written as
// rewriteAppendOnlyFileRio writes it (internal/aof's encoder).

// cmdFormat writes a snapshot as rewriteAppendOnlyFileRio does. It has no
// header nor trailer: an empty dataset is an empty file, as Redis's.
type cmdFormat struct{ w io.Writer }

func (f cmdFormat) function(code []byte) error {
	_, err := f.w.Write(aof.AppendFunctionLoad(nil, code))
	return err
}

func (f cmdFormat) selectDB(sd *bgDB) error {
	_, err := f.w.Write(aof.AppendSelect(nil, sd.index))
	return err
}

func (f cmdFormat) appendEntry(buf []byte, r *rdb.Entry) ([]byte, error) {
	return aof.AppendEntry(buf, r), nil
}

func (f cmdFormat) writeRaw(b []byte) error {
	_, err := f.w.Write(b)
	return err
}

func (f cmdFormat) close() error { return nil }

// writeCmdBase writes the dataset as a base of commands, synchronously
// (the base made at start, of what was loaded). Call with the lock.
func (d *Component) writeCmdBase(w io.Writer) error {
	e := d.e
	out := cmdFormat{w: w}
	for _, code := range e.Scripts.FunctionCodes() {
		if err := out.function(code); err != nil {
			return err
		}
	}
	var conv ToRDB
	var ent rdb.Entry
	var buf, key []byte
	for i, db := range e.Dbs {
		if db.Len() == 0 {
			continue
		}
		if err := out.selectDB(&bgDB{index: i}); err != nil {
			return err
		}
		var err error
		db.ForEach(func(k *keyspace.Entry) bool {
			key = append(key[:0], k.Key()...)
			ent = rdb.Entry{DB: i, Key: key, Value: *RDBValue(&conv, k)}
			if exp := k.Expiry(); exp != keyspace.NoExpiry {
				ent.Expire, ent.HasExpire = exp, true
			}
			buf = aof.AppendEntry(buf, &ent)
			if len(buf) >= bgChunk {
				err = out.writeRaw(buf)
				buf = buf[:0]
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return out.writeRaw(buf)
}
