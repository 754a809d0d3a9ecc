package engine

import (
	"bytes"
	"github.com/limitkv/limitkv/internal/keyspec"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/resp"
)

// CEqualFold is keyspec.CEqualFold: an argument against a lower-case option
// name, as Redis's strcasecmp of the argument's C string.
func CEqualFold(arg []byte, lower string) bool { return keyspec.CEqualFold(arg, lower) }

// lookupNoTouch is Redis's lookupKeyReadWithFlags(LOOKUP_NOTOUCH): it counts
// a keyspace hit or miss but leaves the key's access time alone.
func (x *Ctx) LookupNoTouch(key []byte) *keyspace.Entry {
	e := x.LookupNoNotify(key)
	if e == nil {
		x.KeyMiss(key)
	}
	return e
}

// signalReadyIn wakes clients blocked on key in database db. Redis's dbAdd
// does this for keys that receive a sorted set whatever the command, so a
// RENAME, MOVE or COPY onto a key that BZPOPMIN waits for serves it. Other
// types never unblock a sorted-set pop, so they are not signalled.
func (x *Ctx) SignalReadyIn(db int, e *keyspace.Entry) {
	if !WakesBlocked(e) {
		return
	}
	k := WaitKey{db, e.Key()}
	if _, ok := x.E.waiting[k]; ok {
		x.E.ready = append(x.E.ready, k)
	}
}

// parseScanCursor is Redis's parseScanCursorOrReply: strtoul in base 10 on
// the argument's C string, refusing leading white space, trailing bytes and
// overflow. strtoul's leniencies stay: an optional sign ("-1" wraps to
// 2^64-1), leading zeros, and an empty string (or one starting with NUL),
// which reads as 0.
func ParseScanCursor(arg []byte) (uint64, bool) {
	s := CString(arg)
	if len(s) == 0 {
		return 0, true
	}
	switch s[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return 0, false
	}
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// scanOptions are the options SCAN, ZSCAN (and Redis's HSCAN/SSCAN) share.
type scanOptions struct {
	Count           int64
	Pat, Typ        []byte
	UsePat, UseType bool
}

// parseScanOptions reads COUNT, MATCH and (for SCAN) TYPE from x.Args[from:],
// answering Redis's error itself when they are wrong.
func ParseScanOptions(x *Ctx, from int, allowType bool) (scanOptions, bool) {
	o := scanOptions{Count: 10}
	args := x.Args
	for i := from; i < len(args); {
		more := len(args) - i
		switch {
		case CEqualFold(args[i], "count") && more >= 2:
			n, ok := num.ParseInt(args[i+1])
			if !ok {
				x.W.Error(ErrNotInt)
				return o, false
			}
			if n < 1 {
				x.W.Error(ErrSyntax)
				return o, false
			}
			o.Count = n
			i += 2
		case CEqualFold(args[i], "match") && more >= 2:
			o.Pat = args[i+1]
			o.UsePat = !(len(o.Pat) == 1 && o.Pat[0] == '*')
			i += 2
		case allowType && CEqualFold(args[i], "type") && more >= 2:
			o.Typ, o.UseType = args[i+1], true
			i += 2
		default:
			x.W.Error(ErrSyntax)
			return o, false
		}
	}
	return o, true
}

func SharedInt(v []byte) bool {
	n, ok := num.ParseInt(v)
	return ok && n >= 0 && n < sharedIntegers
}

func (x *Ctx) SharedIntsAllowed() bool {
	if x.E.Cfg.MaxMemory.Load() == 0 {
		return true
	}
	p := *x.E.Cfg.MaxMemoryPolicy.Load()
	return !strings.Contains(p, "lru") && !strings.Contains(p, "lfu")
}

// stringEncoding is OBJECT ENCODING for a string value, following
// tryObjectEncoding for values stored the default way.
func StringEncoding(v []byte, enc keyspace.StrEncoding) string {
	const embstrMax = 44 // OBJ_ENCODING_EMBSTR_SIZE_LIMIT
	switch enc {
	case keyspace.EncRaw:
		return "raw"
	case keyspace.EncIntUnshared:
		return "int"
	case keyspace.EncAuto:
		if _, ok := num.ParseInt(v); ok {
			return "int"
		}
	}
	if len(v) <= embstrMax {
		return "embstr"
	}
	return "raw"
}

// zview views argument or member bytes as a string for lookups that do not
// keep it (Score, Remove, Rank, map probes).
func Zview(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// zPairsHeader writes the header of a reply of n members, with their scores
// if withScores: one flat array in RESP2, an array of [member, score] pairs
// in RESP3 (each opened by zPairStart), as Redis 7.0 replies WITHSCORES.
func ZPairsHeader(w *resp.Writer, n int, withScores bool) {
	if withScores && !w.RESP3() {
		n *= 2
	}
	w.Array(n)
}

// zPairStart opens one member's pair in a RESP3 WITHSCORES reply.
func ZPairStart(w *resp.Writer, withScores bool) {
	if withScores && w.RESP3() {
		w.Array(2)
	}
}

// zrandMaxPicks refuses negative counts whose reply could not be built:
// Redis would try and exhaust its memory (its normal clients have no
// output limit); limitkv answers an error instead.
const ZrandMaxPicks = 1 << 26

// parseBlockTimeout is Redis 7.0's getTimeoutFromObjectOrReply in seconds:
// the text is a long double (string2ld); the milliseconds are
// ceill(seconds * 1000) converted to long long, which turns anything out of
// range (infinities included) into LLONG_MIN, hence "negative". So tiny
// negatives such as -0.0001 mean 0, i.e. forever, and 0.0001 means 1 ms. It
// returns 0 for forever.
func ParseBlockTimeout(arg []byte) (time.Duration, string) {
	f, ok := num.ParseLongDouble(arg)
	if !ok {
		return 0, ErrTimeoutNotFloat
	}
	ms := new(big.Float).SetPrec(64).Mul(f, thousand)
	if ms.IsInf() {
		return 0, ErrTimeoutNegative
	}
	i, acc := ms.Int(nil)
	if acc == big.Below {
		i.Add(i, big.NewInt(1))
	}
	if !i.IsInt64() || i.Sign() < 0 {
		return 0, ErrTimeoutNegative
	}
	t := i.Int64()
	if t == 0 || t > maxBlockMs {
		return 0, ""
	}
	return time.Duration(t) * time.Millisecond, ""
}

// cString returns arg up to its first NUL, as C's %s prints it.
func CString(arg []byte) []byte {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		return arg[:i]
	}
	return arg
}

// lookupNoNotify is lookupNoTouch without the keymiss event (OBJECT's
// LOOKUP_NOTOUCH|LOOKUP_NONOTIFY).
func (x *Ctx) LookupNoNotify(key []byte) *keyspace.Entry {
	e := x.DB.GetNoTouch(key, x.Now)
	if e == nil {
		x.E.Stats.KeyspaceMisses++
	} else {
		x.E.Stats.KeyspaceHits++
	}
	return e
}

// Redis shares one object for each integer 0..9999 unless an LRU or LFU
// eviction policy with a memory limit needs per-key access data.
const sharedIntegers = 10000

// asciiEq is strcasecmp(a, w) == 0 for a lower-case ASCII word w.
func AsciiEq(a []byte, w string) bool { return len(a) == len(w) && strings.EqualFold(string(a), w) }

// maxBlockMs is the longest timeout a time.Duration holds; longer ones
// (over 292 years) block forever, as they do in Redis, where the deadline
// overflows.
const maxBlockMs = math.MaxInt64 / int64(time.Millisecond)

var thousand = big.NewFloat(1000)

// popName picks a or b by side, for the rewritten forms of pops.
func PopName(first bool, a, b []byte) []byte {
	if first {
		return a
	}
	return b
}
