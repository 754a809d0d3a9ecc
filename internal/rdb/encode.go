package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/limitkv/limitkv/internal/listpack"
)

// encoder appends RDB-encoded items to buf.
type encoder struct {
	buf      []byte
	compress bool
	limits   Limits
	// Scratch space reused from value to value, so that writing a large
	// dataset allocates little per key: LZF output, a sorted copy of a
	// sorted set, a listpack under construction.
	lzf []byte
	zs  []ZMember
	lp  listpack.Builder
}

func (e *encoder) byte(b byte) { e.buf = append(e.buf, b) }

// length appends an RDB length (rdbSaveLen).
func (e *encoder) length(n uint64) {
	switch {
	case n < 1<<6:
		e.buf = append(e.buf, byte(n))
	case n < 1<<14:
		e.buf = append(e.buf, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		e.buf = append(e.buf, 0x80)
		e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(n))
	default:
		e.buf = append(e.buf, 0x81)
		e.buf = binary.BigEndian.AppendUint64(e.buf, n)
	}
}

// encodeInt appends the 8/16/32-bit integer string form, if v fits one.
func (e *encoder) encodeInt(v int64) bool {
	switch {
	case v >= -1<<7 && v <= 1<<7-1:
		e.buf = append(e.buf, 0xC0, byte(v))
	case v >= -1<<15 && v <= 1<<15-1:
		e.buf = append(e.buf, 0xC1, byte(v), byte(v>>8))
	case v >= -1<<31 && v <= 1<<31-1:
		e.buf = append(e.buf, 0xC2, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	default:
		return false
	}
	return true
}

// str appends a string as rdbSaveRawString does.
func (e *encoder) str(s []byte) {
	if len(s) <= 11 {
		if v, ok := parseLongLong(s); ok && e.encodeInt(v) {
			return
		}
	}
	if e.compress && len(s) > 20 {
		if c := lzfCompressTo(e.lzf, s, len(s)-4); c != nil {
			e.lzf = c[:0]
			e.byte(0xC3)
			e.length(uint64(len(c)))
			e.length(uint64(len(s)))
			e.buf = append(e.buf, c...)
			return
		}
	}
	e.length(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// object appends v's RDB type byte and encoded value.
func (e *encoder) object(v *Value) error {
	enc := v.Encoding
	if enc == EncodingAuto {
		enc = AutoEncoding(v, e.limits)
	}
	switch v.Type {
	case TypeString:
		if enc != EncodingRaw {
			return fmt.Errorf("%w: string with encoding %s", ErrBadValue, enc)
		}
		e.byte(rdbTypeString)
		e.str(v.String)
	case TypeList:
		if enc != EncodingQuicklist {
			return fmt.Errorf("%w: list with encoding %s", ErrBadValue, enc)
		}
		if len(v.List) == 0 {
			return fmt.Errorf("%w: empty list", ErrBadValue)
		}
		e.byte(rdbTypeListQuicklist2)
		e.quicklist(v.List)
	case TypeSet:
		if len(v.Set) == 0 {
			return fmt.Errorf("%w: empty set", ErrBadValue)
		}
		switch enc {
		case EncodingIntset:
			is, ok := EncodeIntset(v.Set)
			if !ok {
				return fmt.Errorf("%w: set with non-integer or repeated members cannot be an intset", ErrBadValue)
			}
			e.byte(rdbTypeSetIntset)
			e.str(is)
		case EncodingHashtable:
			e.byte(rdbTypeSet)
			e.length(uint64(len(v.Set)))
			for _, m := range v.Set {
				e.str(m)
			}
		default:
			return fmt.Errorf("%w: set with encoding %s", ErrBadValue, enc)
		}
	case TypeZSet:
		if len(v.ZSet) == 0 {
			return fmt.Errorf("%w: empty sorted set", ErrBadValue)
		}
		for _, m := range v.ZSet {
			if math.IsNaN(m.Score) {
				return fmt.Errorf("%w: NaN score", ErrBadValue)
			}
		}
		sorted := append(e.zs[:0], v.ZSet...)
		e.zs = sorted[:0]
		slices.SortStableFunc(sorted, func(a, b ZMember) int {
			if a.Score < b.Score {
				return -1
			}
			if a.Score > b.Score {
				return 1
			}
			return bytes.Compare(a.Member, b.Member)
		})
		switch enc {
		case EncodingListpack:
			e.byte(rdbTypeZSetListpack)
			e.str(e.zsetListpack(sorted))
		case EncodingSkiplist:
			e.byte(rdbTypeZSet2)
			e.length(uint64(len(sorted)))
			for i := len(sorted) - 1; i >= 0; i-- { // greatest first, as Redis
				e.str(sorted[i].Member)
				e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(sorted[i].Score))
			}
		default:
			return fmt.Errorf("%w: sorted set with encoding %s", ErrBadValue, enc)
		}
	case TypeHash:
		if len(v.Hash) == 0 {
			return fmt.Errorf("%w: empty hash", ErrBadValue)
		}
		switch enc {
		case EncodingListpack:
			b := &e.lp
			b.Reset()
			for _, f := range v.Hash {
				b.AppendString(f.Field)
				b.AppendString(f.Value)
			}
			e.byte(rdbTypeHashListpack)
			e.str(b.Bytes())
		case EncodingHashtable:
			e.byte(rdbTypeHash)
			e.length(uint64(len(v.Hash)))
			for _, f := range v.Hash {
				e.str(f.Field)
				e.str(f.Value)
			}
		default:
			return fmt.Errorf("%w: hash with encoding %s", ErrBadValue, enc)
		}
	case TypeStream:
		e.byte(rdbTypeStreamListpack2)
		return e.stream(v.Stream)
	default:
		return fmt.Errorf("%w: unknown type %d", ErrBadValue, v.Type)
	}
	return nil
}

// zsetListpack builds a sorted set's listpack (member, score pairs in
// order), scores written as zzlInsertAt does.
func (e *encoder) zsetListpack(sorted []ZMember) []byte {
	b := &e.lp
	b.Reset()
	for _, m := range sorted {
		b.AppendString(m.Member)
		if ll, ok := double2ll(m.Score); ok {
			b.AppendInt(ll)
		} else {
			b.AppendString(formatScore(m.Score))
		}
	}
	return b.Bytes()
}

// formatScore is Redis's d2string for a score that is not an integer.
func formatScore(d float64) []byte {
	switch {
	case math.IsInf(d, 1):
		return []byte("inf")
	case math.IsInf(d, -1):
		return []byte("-inf")
	}
	return strconv.AppendFloat(nil, d, 'g', 17, 64)
}

var quicklistOptimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// quicklistAllowInsert is _quicklistNodeAllowInsert for a packed node of
// nodeBytes bytes and count entries, given the element's raw size.
func quicklistAllowInsert(nodeBytes, count, sz, fill int) bool {
	newSz := nodeBytes + sz + 8
	if fill < 0 {
		off := -fill - 1
		if off < len(quicklistOptimizationLevel) && newSz <= quicklistOptimizationLevel[off] {
			return true
		}
	}
	if newSz > 8192 {
		return false
	}
	return count < fill
}

// quicklist appends a list as QUICKLIST_2 nodes, split as RPUSH would.
func (e *encoder) quicklist(list [][]byte) {
	l := e.limits.withDefaults()
	fill := l.ListMaxListpackSize
	type node struct {
		plain []byte
		lp    *listpack.Builder
	}
	var nodes []node
	var cur *listpack.Builder
	for _, el := range list {
		if len(el) >= l.ListPackedThreshold {
			nodes = append(nodes, node{plain: el})
			cur = nil
			continue
		}
		if cur == nil || !quicklistAllowInsert(cur.Size(), cur.Len(), len(el), fill) {
			cur = listpack.NewBuilder()
			nodes = append(nodes, node{lp: cur})
		}
		cur.AppendString(el)
	}
	e.length(uint64(len(nodes)))
	for _, n := range nodes {
		if n.lp == nil {
			e.length(quicklistPlain)
			e.str(n.plain)
		} else {
			e.length(quicklistPacked)
			e.str(n.lp.Bytes())
		}
	}
}
