package admin

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/list"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/set"
	"github.com/limitkv/limitkv/internal/stream"
	"github.com/limitkv/limitkv/internal/zset"
)

// DEBUG DIGEST and DIGEST-VALUE: Redis's dataset signature (debug.c's
// computeDatasetDigest), computed the same way so that one command tells
// whether a limitkv and a Redis hold the same data. Unordered collections
// (the keys of a database, set members, hash fields, sorted set members)
// are combined with xor, so their order does not matter; ordered ones (a
// list, the parts of one element) are chained through SHA1. Only the
// logical content goes in: encodings do not change the result.

// digest is the 20-byte running value.
type digest [20]byte

// xor adds b unordered: d ^= SHA1(b) (xorDigest).
func (d *digest) xor(b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mix adds b ordered: d = SHA1(d ^ SHA1(b)) (mixDigest).
func (d *digest) mix(b []byte) {
	d.xor(b)
	*d = sha1.Sum(d[:])
}

func (d *digest) hex() string { return hex.EncodeToString(d[:]) }

// Redis's OBJ_* type codes, which the digest includes.
const (
	objString = 0
	objList   = 1
	objSet    = 2
	objZSet   = 3
	objHash   = 4
	objStream = 6
)

// objectDigest is xorObjectDigest: the value's type, its content and
// whether it has a deadline, mixed into d.
func objectDigest(d *digest, ent *keyspace.Entry) {
	var typ [4]byte
	var buf []byte
	switch v := ent.Val.(type) {
	case []byte:
		binary.BigEndian.PutUint32(typ[:], objString)
		d.mix(typ[:])
		d.mix(v)
	case *list.List:
		binary.BigEndian.PutUint32(typ[:], objList)
		d.mix(typ[:])
		if v.Len() > 0 {
			v.Each(0, false, func(_ int, el []byte) bool { d.mix(el); return true })
		}
	case *set.Set:
		binary.BigEndian.PutUint32(typ[:], objSet)
		d.mix(typ[:])
		v.Each(func(m []byte) bool { d.xor(m); return true })
	case *zset.Set:
		binary.BigEndian.PutUint32(typ[:], objZSet)
		d.mix(typ[:])
		v.RangeByRank(0, math.MaxInt, false, func(m []byte, score float64) bool {
			var el digest
			el.mix(m)
			buf = num.AppendFloat(buf[:0], score) // "%.17g"
			el.mix(buf)
			d.xor(el[:])
			return true
		})
	case *hash.Hash:
		binary.BigEndian.PutUint32(typ[:], objHash)
		d.mix(typ[:])
		v.ForEach(func(f, val []byte) bool {
			var el digest
			el.mix(f)
			el.mix(val)
			d.xor(el[:])
			return true
		})
	case *stream.Stream:
		binary.BigEndian.PutUint32(typ[:], objStream)
		d.mix(typ[:])
		streamDigest(d, v)
	default:
		panic("keyspace holds an unknown value type")
	}
	if ent.Expiry() != keyspace.NoExpiry {
		d.xor([]byte("!!expire!!"))
	}
}

// datasetDigest is computeDatasetDigest: per non-empty database its
// number, then the xor of every key's digest. Keys past their deadline
// that are not reclaimed yet count, as in Redis, which walks its dict.
func datasetDigest(e *engine.Engine) digest {
	var final digest
	for i, db := range e.Dbs {
		if db.Len() == 0 {
			continue
		}
		var id [4]byte
		binary.BigEndian.PutUint32(id[:], uint32(i))
		final.mix(id[:])
		db.ForEach(func(ent *keyspace.Entry) bool {
			var kd digest
			kd.mix([]byte(ent.Key()))
			objectDigest(&kd, ent)
			final.xor(kd[:])
			return true
		})
	}
	return final
}

func debugDigest(x *engine.Ctx) {
	d := datasetDigest(x.E)
	x.W.Simple(d.hex())
}

// debugDigestValue answers one status per key: the value's digest, zeros
// for a missing key. Like Redis it does not look keys up (no expiry, no
// access time).
func debugDigestValue(x *engine.Ctx) {
	x.W.Array(len(x.Args) - 2)
	for _, k := range x.Args[2:] {
		var d digest
		if ent := x.DB.Peek(k); ent != nil {
			objectDigest(&d, ent)
		}
		x.W.Simple(d.hex())
	}
}

// streamDigest is xorObjectDigest's stream part: each entry's ID as
// "ms.seq", then its fields and values, mixed in order; groups do not
// count.
func streamDigest(d *digest, s *stream.Stream) {
	var buf []byte
	s.Range(stream.ID{}, stream.MaxID, false, func(e stream.Entry) bool {
		buf = strconv.AppendUint(buf[:0], e.ID.Ms, 10)
		buf = append(buf, '.')
		buf = strconv.AppendUint(buf, e.ID.Seq, 10)
		d.mix(buf)
		for _, f := range e.Fields {
			d.mix(f)
		}
		return true
	})
}
