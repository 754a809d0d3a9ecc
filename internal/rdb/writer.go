package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// ReplInfo holds the optional replication aux fields.
type ReplInfo struct {
	StreamDB int    // repl-stream-db
	ID       string // repl-id
	Offset   int64  // repl-offset
}

// WriterOptions configure a Writer. The zero value writes as a default
// Redis 7.0.15 does (rdbcompression yes, rdbchecksum yes).
type WriterOptions struct {
	NoCompression bool      // rdbcompression no: never LZF-compress strings
	NoChecksum    bool      // rdbchecksum no: write a zero checksum
	RedisVersion  string    // redis-ver aux field; "" means "7.0.15"
	CTime         time.Time // ctime aux field; zero means now
	UsedMem       int64     // used-mem aux field
	AOFBase       bool      // aof-base aux field 1 (RDB preamble of an AOF)
	Repl          *ReplInfo // if set, the repl-* aux fields are written
	Limits        Limits    // thresholds for EncodingAuto
}

// Writer writes an RDB file. Call WriteFunction, SelectDB and WriteEntry in
// file order, then Close; Close does not close the underlying writer.
type Writer struct {
	w      *bufio.Writer
	crc    uint64
	sum    bool
	enc    encoder
	db     int // currently selected database, -1 before any
	err    error
	closed bool
}

// NewWriter writes the header and aux fields to w.
func NewWriter(w io.Writer, opts WriterOptions) (*Writer, error) {
	wr := &Writer{
		w:   bufio.NewWriterSize(w, 64<<10),
		sum: !opts.NoChecksum,
		enc: encoder{compress: !opts.NoCompression, limits: opts.Limits},
		db:  -1,
	}
	ver := opts.RedisVersion
	if ver == "" {
		ver = "7.0.15"
	}
	ctime := opts.CTime
	if ctime.IsZero() {
		ctime = time.Now()
	}
	e := &wr.enc
	e.buf = append(e.buf[:0], fmt.Sprintf("REDIS%04d", Version)...)
	aux := func(k, v string) {
		e.byte(opAux)
		e.str([]byte(k))
		e.str([]byte(v))
	}
	aux("redis-ver", ver)
	aux("redis-bits", "64")
	aux("ctime", strconv.FormatInt(ctime.Unix(), 10))
	aux("used-mem", strconv.FormatInt(opts.UsedMem, 10))
	if opts.Repl != nil {
		aux("repl-stream-db", strconv.Itoa(opts.Repl.StreamDB))
		aux("repl-id", opts.Repl.ID)
		aux("repl-offset", strconv.FormatInt(opts.Repl.Offset, 10))
	}
	if opts.AOFBase {
		aux("aof-base", "1")
	} else {
		aux("aof-base", "0")
	}
	if err := wr.flush(); err != nil {
		return nil, err
	}
	return wr, nil
}

func (w *Writer) flush() error {
	if w.err != nil {
		return w.err
	}
	if w.sum {
		w.crc = CRC64(w.crc, w.enc.buf)
	}
	_, w.err = w.w.Write(w.enc.buf)
	w.enc.buf = w.enc.buf[:0]
	return w.err
}

var errClosed = errors.New("rdb: writer is closed")

// WriteAux writes one more aux field (Redis readers ignore unknown ones).
func (w *Writer) WriteAux(key, value []byte) error {
	if w.closed {
		return errClosed
	}
	w.enc.byte(opAux)
	w.enc.str(key)
	w.enc.str(value)
	return w.flush()
}

// WriteFunction writes a FUNCTION2 record: a library's source code, as
// FUNCTION DUMP/LOAD take it ("#!lua name=...\n..."). Redis writes these
// after the aux fields and before any database.
func (w *Writer) WriteFunction(code []byte) error {
	if w.closed {
		return errClosed
	}
	w.enc.byte(opFunction2)
	w.enc.str(code)
	return w.flush()
}

// SelectDB writes SELECTDB and RESIZEDB for database db, which holds keys
// keys of which expires have a time to live (these are sizing hints).
func (w *Writer) SelectDB(db int, keys, expires uint64) error {
	if w.closed {
		return errClosed
	}
	if db < 0 {
		return fmt.Errorf("%w: database %d", ErrBadValue, db)
	}
	w.enc.byte(opSelectDB)
	w.enc.length(uint64(db))
	w.enc.byte(opResizeDB)
	w.enc.length(keys)
	w.enc.length(expires)
	w.db = db
	return w.flush()
}

// WriteEntry writes one key. If e.DB is not the selected database a bare
// SELECTDB is written first (call SelectDB to also give the size hints).
// LRUIdle and LFUFreq are written when set (Redis writes them only under an
// LRU or LFU maxmemory-policy).
func (w *Writer) WriteEntry(e *Entry) error {
	if w.closed {
		return errClosed
	}
	if w.err != nil {
		return w.err
	}
	enc := &w.enc
	if e.DB != w.db {
		if e.DB < 0 {
			return fmt.Errorf("%w: database %d", ErrBadValue, e.DB)
		}
		enc.byte(opSelectDB)
		enc.length(uint64(e.DB))
		w.db = e.DB
	}
	if err := enc.entry(e); err != nil {
		return err
	}
	return w.flush()
}

// entry appends e's key record (deadline, LRU/LFU, type, key, value),
// leaving buf as it was on error.
func (enc *encoder) entry(e *Entry) error {
	start := len(enc.buf)
	if e.HasExpire {
		enc.byte(opExpireMs)
		enc.buf = binary.LittleEndian.AppendUint64(enc.buf, uint64(e.Expire))
	}
	if e.HasLRUIdle {
		enc.byte(opIdle)
		enc.length(e.LRUIdle)
	}
	if e.HasLFUFreq {
		enc.byte(opFreq)
		enc.byte(e.LFUFreq)
	}
	typePos := len(enc.buf)
	enc.byte(0) // type placeholder, set after the key
	enc.str(e.Key)
	valPos := len(enc.buf)
	if err := enc.object(&e.Value); err != nil {
		enc.buf = enc.buf[:start]
		return err
	}
	// object wrote its type byte first; move it before the key.
	typ := enc.buf[valPos]
	copy(enc.buf[valPos:], enc.buf[valPos+1:])
	enc.buf = enc.buf[:len(enc.buf)-1]
	enc.buf[typePos] = typ
	return nil
}

// EntryEncoder encodes key records on their own, for a file put together
// from pieces encoded at different times (a background save encodes keys
// as it reaches them and writes them out later, with WriteRaw). Its
// scratch space is reused from call to call; it is not safe for
// concurrent use.
type EntryEncoder struct{ enc encoder }

// NewEntryEncoder returns an encoder with opts' compression and limits.
func NewEntryEncoder(opts WriterOptions) *EntryEncoder {
	return &EntryEncoder{enc: encoder{compress: !opts.NoCompression, limits: opts.Limits}}
}

// Append appends to dst the bytes WriteEntry writes for e once e.DB is
// the selected database (e.DB itself is ignored).
func (x *EntryEncoder) Append(dst []byte, e *Entry) ([]byte, error) {
	x.enc.buf = dst
	err := x.enc.entry(e)
	out := x.enc.buf
	x.enc.buf = nil
	return out, err
}

// WriteRaw writes records encoded by an EntryEncoder, for the database
// last selected, as they are (they count in the checksum).
func (w *Writer) WriteRaw(b []byte) error {
	if w.closed {
		return errClosed
	}
	if err := w.flush(); err != nil {
		return err
	}
	if w.sum {
		w.crc = CRC64(w.crc, b)
	}
	_, w.err = w.w.Write(b)
	return w.err
}

// Close writes EOF and the checksum and flushes.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	w.enc.byte(opEOF)
	if err := w.flush(); err != nil {
		return err
	}
	var sum [8]byte
	if w.sum {
		binary.LittleEndian.PutUint64(sum[:], w.crc)
	}
	if _, err := w.w.Write(sum[:]); err != nil {
		w.err = err
		return err
	}
	w.err = w.w.Flush()
	return w.err
}

// Snapshot is a whole RDB file's content.
type Snapshot struct {
	Version   int        // RDB version read (Encode always writes Version)
	Aux       []AuxField // aux fields read (Encode writes its own, see WriterOptions)
	Functions [][]byte   // function libraries' code
	Entries   []Entry    // keys, in file order
}

// Encode writes s as an RDB file: functions, then each database in
// ascending order with its RESIZEDB hints, then EOF and the checksum.
func Encode(w io.Writer, s *Snapshot, opts WriterOptions) error {
	wr, err := NewWriter(w, opts)
	if err != nil {
		return err
	}
	for _, f := range s.Functions {
		if err := wr.WriteFunction(f); err != nil {
			return err
		}
	}
	byDB := map[int][]int{}
	var dbs []int
	for i := range s.Entries {
		db := s.Entries[i].DB
		if _, ok := byDB[db]; !ok {
			dbs = append(dbs, db)
		}
		byDB[db] = append(byDB[db], i)
	}
	slices.Sort(dbs)
	for _, db := range dbs {
		idx := byDB[db]
		var expires uint64
		for _, i := range idx {
			if s.Entries[i].HasExpire {
				expires++
			}
		}
		if err := wr.SelectDB(db, uint64(len(idx)), expires); err != nil {
			return err
		}
		for _, i := range idx {
			if err := wr.WriteEntry(&s.Entries[i]); err != nil {
				return err
			}
		}
	}
	return wr.Close()
}

// DumpOptions configure EncodeDump.
type DumpOptions struct {
	NoCompression bool   // as rdbcompression no
	Limits        Limits // thresholds for EncodingAuto
}

// EncodeDump returns the DUMP payload of v: RDB type, value, the RDB version
// (2 bytes little-endian) and the CRC-64 of all that (8 bytes little-endian).
func EncodeDump(v *Value, opts DumpOptions) ([]byte, error) {
	e := encoder{compress: !opts.NoCompression, limits: opts.Limits}
	if err := e.object(v); err != nil {
		return nil, err
	}
	e.buf = append(e.buf, Version&0xff, Version>>8)
	e.buf = binary.LittleEndian.AppendUint64(e.buf, CRC64(0, e.buf))
	return e.buf, nil
}
