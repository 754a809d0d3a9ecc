// Package limiter holds limitkv's limiting algorithms as pure functions,
// apart from commands, RESP and the keyspace, so that the RL.* commands,
// the recognisers of other projects' scripts and the Lua twins in
// ratelimit/scripts can all be checked against one definition.
//
// Every algorithm keeps its state in ONE ordinary Redis value (a string, a
// hash or a sorted set) with a TTL, so redis-cli can read it and DEL resets
// it: an absent key always means "no history". A decision function takes
// the state as read, the time (passed in, never read from a clock), the
// parameters and the cost, and returns the decision and the value to leave
// behind (Value, with its TTL). A Peek decides the same way and changes
// nothing.
package limiter

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Result is what an INFO reply needs, in the same terms for every
// algorithm. Times are milliseconds, rounded up so a caller that waits
// RetryAfterMs is never early. RetryAfterMs is 0 when the request passed
// and -1 when it can never pass (cost above the limit).
type Result struct {
	Allowed      bool
	Count        int64 // units counted against the limit after this request
	Remaining    int64
	Limit        int64
	RetryAfterMs int64
	ResetAfterMs int64 // until the key is back to "no history"
}

// Kind is the Redis type a state is held in.
type Kind uint8

const (
	Absent Kind = iota
	String
	Hash
	ZSet
)

func (k Kind) String() string {
	return [...]string{"none", "string", "hash", "zset"}[k]
}

// ZMember is one sorted-set entry.
type ZMember struct {
	Member string
	Score  float64
}

// Value is one key's content as redis-cli shows it (GET, HGETALL, ZRANGE
// WITHSCORES, PTTL). TTL is milliseconds, -1 for none; it is meaningless
// when Kind is Absent.
type Value struct {
	Kind Kind
	Str  string
	Hash Fields
	ZSet []ZMember // in Redis order: by score, then member
	TTL  int64
}

// Field is one field of a hash state.
type Field struct{ Name, Value string }

// Fields is a hash state's content, sorted by name with no name twice.
// The limiters' states have two or three fields, and one is read and one
// built on every check: held in the struct itself they never reach the
// heap, where a map (and even a slice) was most of what a hash limiter's
// check allocated, and so most of what the GC then spent on it. Only a
// hand-edited hash with more fields uses more.
type Fields struct {
	n    int
	head [3]Field
	more []Field // fields n-3 and on
}

// FieldsOf makes Fields of name, value pairs in any order.
func FieldsOf(pairs ...string) Fields {
	var f Fields
	for i := 0; i+1 < len(pairs); i += 2 {
		f.Set(pairs[i], pairs[i+1])
	}
	return f
}

// Len is the number of fields.
func (f *Fields) Len() int { return f.n }

// At is the i-th field in name order.
func (f *Fields) At(i int) Field {
	if i < len(f.head) {
		return f.head[i]
	}
	return f.more[i-len(f.head)]
}

func (f *Fields) put(i int, x Field) {
	if i < len(f.head) {
		f.head[i] = x
	} else {
		f.more[i-len(f.head)] = x
	}
}

// All yields the fields in name order.
func (f *Fields) All() func(yield func(Field) bool) {
	return func(yield func(Field) bool) {
		for i := range f.n {
			if !yield(f.At(i)) {
				return
			}
		}
	}
}

// Get is the value of the field name, "" when there is none.
func (f *Fields) Get(name string) string {
	v, _ := f.Lookup(name)
	return v
}

// Lookup is the value of the field name and whether there is one.
func (f *Fields) Lookup(name string) (string, bool) {
	for i := range f.n {
		if x := f.At(i); x.Name == name {
			return x.Value, true
		}
	}
	return "", false
}

// Set gives the field name value, adding it in its place if it is new.
func (f *Fields) Set(name, value string) {
	i := 0
	for ; i < f.n; i++ {
		x := f.At(i)
		if x.Name == name {
			f.put(i, Field{name, value})
			return
		}
		if x.Name > name {
			break
		}
	}
	if f.n >= len(f.head) {
		f.more = append(f.more, Field{})
	}
	for j := f.n; j > i; j-- {
		f.put(j, f.At(j-1))
	}
	f.n++
	f.put(i, Field{name, value})
}

// Equal is whether f and g hold the same fields and values.
func (f *Fields) Equal(g *Fields) bool {
	if f.n != g.n {
		return false
	}
	for i := range f.n {
		if f.At(i) != g.At(i) {
			return false
		}
	}
	return true
}

// Equal compares content, and TTL within tolerance ms (a TTL read back
// from a server has aged a little).
func (v Value) Equal(w Value, tolerance int64) bool {
	if v.Kind != w.Kind {
		return false
	}
	if v.Kind == Absent {
		return true
	}
	if (v.TTL < 0) != (w.TTL < 0) || abs64(v.TTL-w.TTL) > tolerance {
		return false
	}
	switch v.Kind {
	case String:
		return v.Str == w.Str
	case Hash:
		return v.Hash.Equal(&w.Hash)
	default:
		return slices.Equal(v.ZSet, w.ZSet)
	}
}

func (v Value) String() string {
	switch v.Kind {
	case Absent:
		return "(absent)"
	case String:
		return fmt.Sprintf("%q ttl=%d", v.Str, v.TTL)
	case Hash:
		s := "{"
		for i := range v.Hash.Len() {
			f := v.Hash.At(i)
			if i > 0 {
				s += " "
			}
			s += f.Name + "=" + f.Value
		}
		return s + "} ttl=" + strconv.FormatInt(v.TTL, 10)
	default:
		return fmt.Sprintf("%v ttl=%d", v.ZSet, v.TTL)
	}
}

// ErrWrongType is returned when a key holds a type the algorithm does not
// keep its state in; the commands map it to WRONGTYPE.
var ErrWrongType = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")

// ErrCorrupt is returned when a key of the right type holds something the
// algorithm never writes (someone edited it by hand).
var ErrCorrupt = errors.New("ERR rate limit state is corrupt")

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// ceilDiv is ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// floorDiv is ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// luaNum formats a float the way Redis 7.0 turns a Lua number argument
// into a string (%.17g), so values the scripts write compare byte for byte.
func luaNum(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return cInfNaN(f)
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// luaToString formats a float as Lua 5.1's tostring does (%.14g).
func luaToString(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return cInfNaN(f)
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

func cInfNaN(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.Signbit(f):
		return "-nan"
	}
	return "nan"
}

// luaInt is the integer Redis replies for a Lua number: C's (long long)
// cast, which truncates, and on amd64 gives MinInt64 for NaN and values out
// of range.
func luaInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775807 || f < -9223372036854775808 {
		return math.MinInt64
	}
	return int64(f)
}

// parseInt64 accepts what Redis's string2ll accepts.
func parseInt64(s string) (int64, bool) {
	if s == "" || len(s) > 20 || s[0] == '+' || (len(s) > 1 && s[0] == '0') || (len(s) > 1 && s[0] == '-' && s[1] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
