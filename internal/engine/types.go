package engine

import (
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/list"
	"github.com/limitkv/limitkv/internal/set"
	"github.com/limitkv/limitkv/internal/stream"
	"github.com/limitkv/limitkv/internal/zset"
)

// What the generic commands (TYPE, OBJECT ENCODING, COPY, MEMORY USAGE,
// the wake-up of blocked clients) need to know of each value type, in one
// place: a new type adds its case to each switch below and nowhere else.
// Strings are []byte; every other type is a pointer to its core package's
// structure.

// typeName is what TYPE reports for an entry (nil: a missing key).
func TypeName(e *keyspace.Entry) string {
	if e == nil {
		return "none"
	}
	switch e.Val.(type) {
	case []byte:
		return "string"
	case *zset.Set:
		return "zset"
	case *hash.Hash:
		return "hash"
	case *list.List:
		return "list"
	case *set.Set:
		return "set"
	case *stream.Stream:
		return "stream"
	}
	panic("keyspace holds an unknown value type")
}

// valueEncoding is OBJECT ENCODING for an entry.
func ValueEncoding(e *keyspace.Entry) string {
	switch v := e.Val.(type) {
	case []byte:
		return StringEncoding(v, e.Enc)
	case *zset.Set:
		return v.Encoding()
	case *hash.Hash:
		return v.Encoding()
	case *list.List:
		return "quicklist" // Redis 7.0 has no other list encoding
	case *set.Set:
		return v.Encoding()
	case *stream.Stream:
		return "stream"
	}
	panic("keyspace holds an unknown value type")
}

// copyValue duplicates a value for COPY: never shared with the source, since
// handlers modify values in place. The copy of a string keeps its encoding,
// as Redis's dupStringObject does, except that a shared small integer
// becomes a private one.
func CopyValue(e *keyspace.Entry) (any, keyspace.StrEncoding) {
	switch v := e.Val.(type) {
	case []byte:
		enc := e.Enc
		if enc == keyspace.EncAuto && SharedInt(v) {
			enc = keyspace.EncIntUnshared
		}
		return append([]byte(nil), v...), enc
	case *zset.Set:
		return v.Clone(), keyspace.EncAuto
	case *hash.Hash:
		return v.Clone(), keyspace.EncAuto
	case *list.List:
		return v.Clone(), keyspace.EncAuto
	case *set.Set:
		return v.Clone(), keyspace.EncAuto
	case *stream.Stream:
		return v.Clone(), keyspace.EncAuto
	}
	panic("keyspace holds an unknown value type")
}

// valueMemory estimates the heap bytes a value holds beyond its entry
// (see entryMemory).
func ValueMemory(e *keyspace.Entry) uint64 { return valueMemory(e, DefaultMemorySamples) }

// DefaultMemorySamples is OBJ_COMPUTE_SIZE_DEF_SAMPLES, MEMORY USAGE's
// SAMPLES when not given.
const DefaultMemorySamples = 5

// valueMemory is ValueMemory measuring samples of a stream's nodes (0:
// all), as objectComputeSize does; the other types' figures are exact.
func valueMemory(e *keyspace.Entry, samples int) uint64 {
	switch v := e.Val.(type) {
	case []byte:
		return bytesOverhead + roundAlloc(cap(v))
	case *zset.Set:
		return uint64(v.MemoryUsage())
	case *hash.Hash:
		return uint64(v.MemoryUsage())
	case *list.List:
		return uint64(v.MemoryUsage())
	case *set.Set:
		return uint64(v.MemoryUsage())
	case *stream.Stream:
		return uint64(v.MemoryUsage(samples))
	}
	panic("keyspace holds an unknown value type")
}

// wakesBlocked reports whether a key receiving this value can serve a
// blocked client. Redis's dbAdd signals every key that receives a sorted
// set, a list or a stream whatever the command, so a RENAME, MOVE or COPY
// onto a key that BZPOPMIN or XREAD waits for serves it; other types never
// unblock a pop.
func WakesBlocked(e *keyspace.Entry) bool {
	switch e.Val.(type) {
	case *zset.Set, *list.List, *stream.Stream:
		return true
	}
	return false
}

// valueOf returns the value of type T held by e (T's zero value for a
// missing key), or answers WRONGTYPE and returns false: Redis's checkType.
func ValueOf[T any](x *Ctx, e *keyspace.Entry) (T, bool) {
	var zero T
	if e == nil {
		return zero, true
	}
	v, ok := e.Val.(T)
	if !ok {
		x.W.Error(ErrWrongType)
		return zero, false
	}
	return v, true
}

// readAs is Redis's lookupKeyRead plus checkType: it counts a keyspace hit
// or miss.
func ReadAs[T any](x *Ctx, key []byte) (*keyspace.Entry, T, bool) {
	e := x.Lookup(key)
	v, ok := ValueOf[T](x, e)
	return e, v, ok
}

// writeAs is Redis's lookupKeyWrite plus checkType: no hit/miss counting.
func WriteAs[T any](x *Ctx, key []byte) (*keyspace.Entry, T, bool) {
	e := x.DB.Get(key, x.Now)
	v, ok := ValueOf[T](x, e)
	return e, v, ok
}

// collection is what the commands shared by the collection types need.
type collection interface {
	comparable
	Len() int
}

// cardGeneric is HLEN, LLEN, SCARD and ZCARD: the length, 0 for a missing
// key.
func CardGeneric[T collection](x *Ctx) {
	_, v, ok := ReadAs[T](x, x.Args[1])
	if !ok {
		return
	}
	var none T
	if v == none {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(v.Len()))
}

// removeGeneric is HDEL, SREM and ZREM: remove each named element,
// dropping the key once it is empty (as Redis, which stops there), and
// count the removed ones. Removing nothing is no change for WATCH.
func RemoveGeneric[T collection](x *Ctx, class config.EventClass, event string, remove func(T, []byte) bool) {
	e, v, ok := WriteAs[T](x, x.Args[1])
	if !ok {
		return
	}
	deleted, keyRemoved := 0, false
	var none T
	if v != none {
		for _, m := range x.Args[2:] {
			if remove(v, m) {
				deleted++
				if v.Len() == 0 {
					x.DB.Remove(e)
					keyRemoved = true
					break
				}
			}
		}
	}
	if deleted == 0 {
	} else {
		x.Modified(x.Args[1])
		x.Notify(class, event, x.Args[1])
		if keyRemoved {
			x.Notify(config.EvGeneric, "del", x.Args[1])
		}
	}
	x.W.Int(int64(deleted))
}
