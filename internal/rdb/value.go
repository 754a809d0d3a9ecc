// Package rdb reads and writes Redis RDB files and DUMP payloads in the
// format of Redis 7.0 (RDB version 10), with a neutral value model that knows
// nothing of limitkv's engine.
//
// # Writing
//
// Writer (or Encode for a whole Snapshot) writes what Redis 7.0.15 writes:
// the "REDIS0010" magic, the aux fields redis-ver, redis-bits, ctime,
// used-mem (optionally repl-stream-db, repl-id, repl-offset) and aof-base,
// FUNCTION2 records, then per database SELECTDB, RESIZEDB and the keys
// (EXPIRETIME_MS, optional IDLE/FREQ, type, key, value), EOF and the CRC-64.
// Each value gets the RDB type and bytes Redis would write for the same
// in-memory encoding, which the caller names with Value.Encoding
// (EncodingAuto picks it the way a fresh Redis with default settings would):
//
//	string: STRING, integer-looking strings in the 8/16/32-bit integer
//	        forms, LZF when compression is on and the string is over 20 bytes
//	list:   QUICKLIST_2 with listpack (PACKED) nodes split as RPUSH splits
//	        them (Limits.ListMaxListpackSize, default -2: 8 KiB nodes);
//	        PLAIN nodes for elements of 1 GiB and more
//	set:    SET_INTSET (intset) or SET (hashtable)
//	zset:   ZSET_LISTPACK (listpack) or ZSET_2 (skiplist, binary doubles)
//	hash:   HASH_LISTPACK (listpack) or HASH (hashtable)
//	stream: STREAM_LISTPACKS_2, the *stream.Stream's nodes as they are (Value.Stream)
//
// Elements are written in the order given (Redis's own order matters only for
// lists and listpack hashes; sorted sets are sorted by the writer). Members
// of a set, sorted set or hash must be distinct, as in Redis: the writer
// does not check. For the same elements in the same order the bytes are
// Redis's: re-encoding what the Reader returns for a file Redis saved
// reproduces that file, and EncodeDump reproduces Redis's DUMP. Not emulated:
// list-compress-depth above 0 (Redis then writes LZF-compressed list nodes;
// the reader reads them).
//
// EncodeDump writes DUMP payloads (value, RDB version 10 as 2 bytes, CRC-64).
//
// # Reading
//
// Reader (or Decode) reads RDB versions 1 to 10: every type Redis 7.0 writes
// or still loads from older files (plain, ziplist, zipmap, intset, quicklist
// with ziplist or listpack nodes, listpack, ZSET with ASCII or binary
// scores), integer and LZF strings, aux fields, FUNCTION and FUNCTION2
// records (returned raw), and it skips module aux records. Streams
// (RDB types 15 and 19, see stream.go) are read into a *stream.Stream and
// written as type 19; module values (types 6 and 7) are refused with an
// error wrapping ErrUnsupported. Keys with an empty value are skipped as Redis
// does. DecodeDump checks and decodes a DUMP payload as RESTORE does.
//
// The reader reports each key's expiry, LRU idle time and LFU counter as
// found; dropping keys that have already expired (as Redis does when a
// master loads a file, but not a replica nor an AOF preamble) is the
// caller's job, and so is refusing a key that appears twice. Value.Encoding
// on a read value is the encoding Redis would hold it in after loading it
// (ReaderOptions.Limits). Expiry times of files older than RDB 9 are read as
// little-endian (files from big-endian machines are not supported).
//
// Neither Reader nor Writer is safe for concurrent use; separate ones are.
//
// A corrupt or truncated input is refused with an error wrapping ErrCorrupt
// (or ErrChecksum, ErrVersion, ErrUnsupported); nothing in the input can make
// the reader panic or allocate much more than the input holds: lengths are
// checked against ReaderOptions limits, and data is read in bounded chunks so
// a length larger than what remains fails at the end of the input. The
// reader checks listpacks, ziplists, intsets and zipmaps deeply (as Redis
// with sanitize-dump-payload yes), so it refuses some corrupt files Redis
// would load without looking inside.
package rdb

import (
	"errors"

	"github.com/limitkv/limitkv/internal/stream"
	"math"
	"strconv"
)

// Type is a value's data type.
type Type uint8

const (
	TypeString Type = iota
	TypeList
	TypeSet
	TypeZSet
	TypeHash
	TypeStream
)

func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeList:
		return "list"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	case TypeHash:
		return "hash"
	case TypeStream:
		return "stream"
	}
	return "unknown"
}

// Encoding is the in-memory encoding Redis would hold a value in (as OBJECT
// ENCODING names it); it decides the RDB type written. The reader sets it to
// the encoding a Redis 7.0 loading the record would start from.
type Encoding uint8

const (
	// EncodingAuto picks the encoding a fresh Redis 7.0 with default
	// settings would use for these elements (see Limits).
	EncodingAuto      Encoding = iota
	EncodingRaw                // strings (int, embstr and raw are all written the same way)
	EncodingQuicklist          // lists
	EncodingIntset             // sets of integers
	EncodingHashtable          // sets and hashes
	EncodingListpack           // hashes and sorted sets
	EncodingSkiplist           // sorted sets
	EncodingStream             // streams
)

var encodingNames = [...]string{"auto", "raw", "quicklist", "intset", "hashtable", "listpack", "skiplist", "stream"}

func (e Encoding) String() string {
	if int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return "encoding(" + strconv.Itoa(int(e)) + ")"
}

// ZMember is one sorted-set member.
type ZMember struct {
	Member []byte
	Score  float64
}

// HashField is one field of a hash.
type HashField struct {
	Field, Value []byte
}

// Value is a key's value. Only the field for Type is used.
type Value struct {
	Type     Type
	Encoding Encoding
	String   []byte
	List     [][]byte
	Set      [][]byte
	ZSet     []ZMember
	Hash     []HashField
	Stream   *stream.Stream
}

// Entry is a key in a database.
type Entry struct {
	DB    int
	Key   []byte
	Value Value
	// Expire is the expiry as Unix time in milliseconds, if HasExpire.
	Expire    int64
	HasExpire bool
	// LRUIdle is the idle time in seconds (IDLE opcode), if HasLRUIdle.
	LRUIdle    uint64
	HasLRUIdle bool
	// LFUFreq is the logarithmic LFU counter (FREQ opcode), if HasLFUFreq.
	LFUFreq    uint8
	HasLFUFreq bool
}

// AuxField is an RDB aux field (name and value, as written).
type AuxField struct {
	Key, Value []byte
}

// Limits are the encoding thresholds EncodingAuto uses, named after the
// redis.conf settings; the zero value means Redis 7.0.15's built-in defaults
// (those of a server started without a config file: note that
// hash-max-listpack-entries is 512 there, while the sample redis.conf says 128).
type Limits struct {
	SetMaxIntsetEntries    int // set-max-intset-entries (512)
	HashMaxListpackEntries int // hash-max-listpack-entries (128)
	HashMaxListpackValue   int // hash-max-listpack-value (64)
	ZSetMaxListpackEntries int // zset-max-listpack-entries (128)
	ZSetMaxListpackValue   int // zset-max-listpack-value (64)
	ListMaxListpackSize    int // list-max-listpack-size (-2); 0 means -2
	// ListPackedThreshold is the element size from which a list element
	// gets a PLAIN quicklist node of its own (1 GiB; DEBUG
	// QUICKLIST-PACKED-THRESHOLD changes it in Redis).
	ListPackedThreshold int
}

func (l Limits) withDefaults() Limits {
	if l.SetMaxIntsetEntries == 0 {
		l.SetMaxIntsetEntries = 512
	}
	if l.HashMaxListpackEntries == 0 {
		l.HashMaxListpackEntries = 512
	}
	if l.HashMaxListpackValue == 0 {
		l.HashMaxListpackValue = 64
	}
	if l.ZSetMaxListpackEntries == 0 {
		l.ZSetMaxListpackEntries = 128
	}
	if l.ZSetMaxListpackValue == 0 {
		l.ZSetMaxListpackValue = 64
	}
	if l.ListMaxListpackSize == 0 {
		l.ListMaxListpackSize = -2
	}
	if l.ListPackedThreshold <= 0 {
		l.ListPackedThreshold = 1 << 30
	}
	return l
}

// AutoEncoding returns the encoding a fresh Redis with limits l would give v.
func AutoEncoding(v *Value, l Limits) Encoding {
	l = l.withDefaults()
	switch v.Type {
	case TypeString:
		return EncodingRaw
	case TypeStream:
		return EncodingStream
	case TypeList:
		return EncodingQuicklist
	case TypeSet:
		if len(v.Set) > l.SetMaxIntsetEntries {
			return EncodingHashtable
		}
		for _, m := range v.Set {
			if _, ok := parseLongLong(m); !ok {
				return EncodingHashtable
			}
		}
		return EncodingIntset
	case TypeZSet:
		if len(v.ZSet) > l.ZSetMaxListpackEntries {
			return EncodingSkiplist
		}
		for _, m := range v.ZSet {
			if len(m.Member) > l.ZSetMaxListpackValue {
				return EncodingSkiplist
			}
		}
		return EncodingListpack
	case TypeHash:
		if len(v.Hash) > l.HashMaxListpackEntries {
			return EncodingHashtable
		}
		for _, f := range v.Hash {
			if len(f.Field) > l.HashMaxListpackValue || len(f.Value) > l.HashMaxListpackValue {
				return EncodingHashtable
			}
		}
		return EncodingListpack
	}
	return EncodingAuto
}

// Errors. Every error the reader returns wraps one of these.
var (
	ErrCorrupt     = errors.New("rdb: corrupt or truncated data")
	ErrChecksum    = errors.New("rdb: checksum mismatch")
	ErrVersion     = errors.New("rdb: unsupported RDB version")
	ErrUnsupported = errors.New("rdb: unsupported type")
	// ErrBadValue is returned by the writer for a value it cannot encode
	// (empty collection, NaN score, impossible encoding).
	ErrBadValue = errors.New("rdb: value cannot be encoded")
)

// RDB record types and opcodes (rdb.h).
const (
	rdbTypeString          = 0
	rdbTypeList            = 1
	rdbTypeSet             = 2
	rdbTypeZSet            = 3
	rdbTypeHash            = 4
	rdbTypeZSet2           = 5
	rdbTypeModule          = 6
	rdbTypeModule2         = 7
	rdbTypeHashZipmap      = 9
	rdbTypeListZiplist     = 10
	rdbTypeSetIntset       = 11
	rdbTypeZSetZiplist     = 12
	rdbTypeHashZiplist     = 13
	rdbTypeListQuicklist   = 14
	rdbTypeStreamListpacks = 15
	rdbTypeHashListpack    = 16
	rdbTypeZSetListpack    = 17
	rdbTypeListQuicklist2  = 18
	rdbTypeStreamListpack2 = 19

	opFunction2     = 245
	opFunction      = 246
	opModuleAux     = 247
	opIdle          = 248
	opFreq          = 249
	opAux           = 250
	opResizeDB      = 251
	opExpireMs      = 252
	opExpireSec     = 253
	opSelectDB      = 254
	opEOF           = 255
	quicklistPlain  = 1
	quicklistPacked = 2
)

// Version is the RDB version written (Redis 7.0's) and the newest read.
const Version = 10

// double2ll reports whether d is an integer Redis prints without a fraction.
func double2ll(d float64) (int64, bool) {
	if d < float64(-math.MaxInt64/2) || d > float64(math.MaxInt64/2) {
		return 0, false
	}
	ll := int64(d)
	if float64(ll) == d {
		return ll, true
	}
	return 0, false
}
