// Package stream is the data structure behind Redis streams, laid out as
// Redis 7.0.15's t_stream.c lays it out, so that the commands written over
// it answer, and the RDB/DUMP bytes written from it are, byte for byte
// Redis's. It knows nothing of commands, the keyspace or RESP: time is
// passed in by the caller (Unix milliseconds), node limits too (Limits).
//
// A Stream is an ordered list of nodes keyed by their master ID. Each node
// holds what Redis's listpack holds, element for element: the master entry
// (count, deleted, number of master fields, the fields, a 0 terminator) and
// per entry flags, ms-diff, seq-diff, [number of fields and fields when
// they differ from the master's], values and lp-count. Its listpack bytes
// (ListpackBytes) are a pure function of those elements, since a listpack
// always stores an element in its smallest encoding; that is why Redis's
// in-place edits (lpReplaceInteger) need no emulation beyond the values.
package stream

import (
	"math"
	"strconv"
)

// ID is a stream entry ID: milliseconds and sequence number.
type ID struct{ Ms, Seq uint64 }

// MaxID is the largest ID ("+" in ranges).
var MaxID = ID{math.MaxUint64, math.MaxUint64}

// Compare returns -1, 0 or 1 as a is less than, equal to or greater than b.
func (a ID) Compare(b ID) int {
	switch {
	case a.Ms > b.Ms:
		return 1
	case a.Ms < b.Ms:
		return -1
	case a.Seq > b.Seq:
		return 1
	case a.Seq < b.Seq:
		return -1
	}
	return 0
}

// Less reports a < b.
func (a ID) Less(b ID) bool { return a.Compare(b) < 0 }

// IsZero reports whether a is 0-0.
func (a ID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Incr returns the successor of a; ok is false (and the ID 0-0) when a is
// the largest ID, as streamIncrID wraps.
func (a ID) Incr() (ID, bool) {
	if a.Seq == math.MaxUint64 {
		if a.Ms == math.MaxUint64 {
			return ID{}, false
		}
		return ID{a.Ms + 1, 0}, true
	}
	return ID{a.Ms, a.Seq + 1}, true
}

// Decr returns the predecessor of a; ok is false (and the ID MaxID) when a
// is 0-0, as streamDecrID wraps.
func (a ID) Decr() (ID, bool) {
	if a.Seq == 0 {
		if a.Ms == 0 {
			return MaxID, false
		}
		return ID{a.Ms - 1, math.MaxUint64}, true
	}
	return ID{a.Ms, a.Seq - 1}, true
}

// String formats a as "ms-seq".
func (a ID) String() string { return string(a.Append(nil)) }

// Append appends "ms-seq" to dst.
func (a ID) Append(dst []byte) []byte {
	dst = strconv.AppendUint(dst, a.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, a.Seq, 10)
}

// Key is the 16-byte big-endian form Redis uses as radix tree key (node
// keys in RDB files, PEL IDs).
func (a ID) Key() [16]byte {
	var k [16]byte
	for i := 0; i < 8; i++ {
		k[i] = byte(a.Ms >> (56 - 8*i))
		k[8+i] = byte(a.Seq >> (56 - 8*i))
	}
	return k
}

// IDFromKey decodes the 16-byte big-endian form.
func IDFromKey(k []byte) ID {
	var id ID
	for i := 0; i < 8; i++ {
		id.Ms = id.Ms<<8 | uint64(k[i])
		id.Seq = id.Seq<<8 | uint64(k[8+i])
	}
	return id
}

// Error is an error reply, spelled exactly as Redis 7.0.15 sends it
// (without the leading '-'). Codes other than ERR (NOGROUP, BUSYGROUP) are
// part of the text, as Redis writes them.
type Error string

func (e Error) Error() string { return string(e) }

// The errors of the stream command family that do not depend on arguments.
const (
	ErrInvalidID           Error = "ERR Invalid stream ID specified as stream command argument"
	ErrIDTooSmall          Error = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	ErrIDZero              Error = "ERR The ID specified in XADD must be greater than 0-0"
	ErrExhausted           Error = "ERR The stream has exhausted the last possible ID, unable to add more items"
	ErrTooLarge            Error = "ERR Elements are too large to be stored"
	ErrStartInterval       Error = "ERR invalid start ID for the interval"
	ErrEndInterval         Error = "ERR invalid end ID for the interval"
	ErrMaxLenNegative      Error = "ERR The MAXLEN argument must be >= 0."
	ErrLimitNegative       Error = "ERR The LIMIT argument must be >= 0."
	ErrMaxLenAndMinID      Error = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	ErrLimitNoStrategy     Error = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	ErrXTrimNoStrategy     Error = "ERR syntax error, XTRIM must be called with a trimming strategy"
	ErrLimitNoApprox       Error = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	ErrSetIDTooSmall       Error = "ERR The ID specified in XSETID is smaller than the target stream top item"
	ErrSetIDEntriesAdded   Error = "ERR The entries_added specified in XSETID is smaller than the target stream length"
	ErrSetIDMaxDeleted     Error = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	ErrEntriesAddedNeg     Error = "ERR entries_added must be positive"
	ErrEntriesReadNeg      Error = "ERR value for ENTRIESREAD must be positive or -1"
	ErrBusyGroup           Error = "BUSYGROUP Consumer Group name already exists"
	ErrGroupNeedsKey       Error = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	ErrXClaimMinIdle       Error = "ERR Invalid min-idle-time argument for XCLAIM"
	ErrXClaimIdle          Error = "ERR Invalid IDLE option argument for XCLAIM"
	ErrXClaimTime          Error = "ERR Invalid TIME option argument for XCLAIM"
	ErrXClaimRetryCount    Error = "ERR Invalid RETRYCOUNT option argument for XCLAIM"
	ErrXAutoClaimMinIdle   Error = "ERR Invalid min-idle-time argument for XAUTOCLAIM"
	ErrXAutoClaimCount     Error = "ERR COUNT must be > 0"
	ErrXReadGroupDollar    Error = "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."
	ErrXReadGreaterNoGroup Error = "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."
)

// ErrNoGroupForKey is XGROUP's NOGROUP error (SETID, CREATECONSUMER,
// DELCONSUMER on a missing group).
func ErrNoGroupForKey(group, key string) Error {
	return Error("NOGROUP No such consumer group '" + group + "' for key name '" + key + "'")
}

// ErrNoKeyOrGroup is the NOGROUP error of XPENDING, XCLAIM, XAUTOCLAIM and
// XREADGROUP.
func ErrNoKeyOrGroup(key, group string) Error {
	return Error("NOGROUP No such key '" + key + "' or consumer group '" + group + "'")
}

// ErrXClaimOption is XCLAIM's error for an option it does not know.
func ErrXClaimOption(opt string) Error {
	return Error("ERR Unrecognized XCLAIM option '" + opt + "'")
}

// parseID is streamGenericParseIDOrReply. strict refuses "-" and "+";
// allowSeqStar accepts "ms-*" (XADD), reporting seqGiven false for it.
func parseID(arg string, missingSeq uint64, strict, allowSeqStar bool) (id ID, seqGiven bool, err error) {
	if len(arg) > 127 {
		return ID{}, false, ErrInvalidID
	}
	// Redis copies the argument into a C string: a NUL ends it.
	for i := 0; i < len(arg); i++ {
		if arg[i] == 0 {
			arg = arg[:i]
			break
		}
	}
	if strict && (arg == "-" || arg == "+") {
		return ID{}, false, ErrInvalidID
	}
	switch arg {
	case "-":
		return ID{}, true, nil
	case "+":
		return MaxID, true, nil
	}
	msPart, seqPart, hasDash := arg, "", false
	for i := 0; i < len(arg); i++ {
		if arg[i] == '-' {
			msPart, seqPart, hasDash = arg[:i], arg[i+1:], true
			break
		}
	}
	ms, ok := parseULL(msPart)
	if !ok {
		return ID{}, false, ErrInvalidID
	}
	seq := missingSeq
	seqGiven = true
	if hasDash {
		if allowSeqStar && seqPart == "*" {
			seq, seqGiven = 0, false
		} else if seq, ok = parseULL(seqPart); !ok {
			return ID{}, false, ErrInvalidID
		}
	}
	return ID{ms, seq}, seqGiven, nil
}

// ParseID parses an ID where "-" and "+" are allowed (XRANGE bounds,
// XGROUP SETID): "ms-seq", or "ms" with the sequence set to missingSeq
// (0 for a start, math.MaxUint64 for an end).
func ParseID(arg string, missingSeq uint64) (ID, error) {
	id, _, err := parseID(arg, missingSeq, false, false)
	return id, err
}

// ParseStrictID parses an ID where "-" and "+" are invalid (XDEL, XACK,
// XCLAIM, XSETID, MINID, XGROUP CREATE, ...).
func ParseStrictID(arg string, missingSeq uint64) (ID, error) {
	id, _, err := parseID(arg, missingSeq, true, false)
	return id, err
}

// AddID is XADD's ID argument.
type AddID struct {
	ID ID
	// Auto is "*": the ID comes from the clock.
	Auto bool
	// SeqAuto is "ms-*": the sequence is generated.
	SeqAuto bool
}

// ParseAddID parses XADD's ID argument: "*", "ms-*", "ms-seq" or "ms".
func ParseAddID(arg string) (AddID, error) {
	if arg == "*" {
		return AddID{Auto: true}, nil
	}
	id, seqGiven, err := parseID(arg, 0, true, true)
	if err != nil {
		return AddID{}, err
	}
	return AddID{ID: id, SeqAuto: !seqGiven}, nil
}

// ParseIntervalID parses a range bound that may be exclusive ("(id",
// which is then strict). It does not step the ID: see ParseRangeStart.
func ParseIntervalID(arg string, missingSeq uint64) (id ID, exclusive bool, err error) {
	if len(arg) > 1 && arg[0] == '(' {
		id, _, err = parseID(arg[1:], missingSeq, true, false)
		return id, true, err
	}
	id, _, err = parseID(arg, missingSeq, false, false)
	return id, false, err
}

// ParseRangeStart parses an inclusive-or-exclusive start bound (XRANGE,
// XPENDING, XAUTOCLAIM) into the first ID included.
func ParseRangeStart(arg string) (ID, error) {
	id, ex, err := ParseIntervalID(arg, 0)
	if err != nil {
		return ID{}, err
	}
	if ex {
		var ok bool
		if id, ok = id.Incr(); !ok {
			return ID{}, ErrStartInterval
		}
	}
	return id, nil
}

// ParseRangeEnd parses an end bound into the last ID included.
func ParseRangeEnd(arg string) (ID, error) {
	id, ex, err := ParseIntervalID(arg, math.MaxUint64)
	if err != nil {
		return ID{}, err
	}
	if ex {
		var ok bool
		if id, ok = id.Decr(); !ok {
			return ID{}, ErrEndInterval
		}
	}
	return id, nil
}

// parseULL is Redis's string2ull: string2ll's strict form first (refusing
// negatives), then strtoull's lenient one, which also takes leading
// spaces, a sign (a '-' wraps around) and leading zeros.
func parseULL(s string) (uint64, bool) {
	if v, ok := string2ll(s); ok {
		if v < 0 {
			return 0, false
		}
		return uint64(v), true
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// string2ll is Redis's strict integer parser: optional '-', no leading
// zeros, no spaces, within int64.
func string2ll(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	i, neg := 0, false
	if s[0] == '-' {
		neg, i = true, 1
		if i == len(s) {
			return 0, false
		}
	}
	if s[i] < '1' || s[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}
