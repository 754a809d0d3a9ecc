package engine

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Redis 7.0's error replies, word for word: the ones the engine gives and
// those several families share. A text only one family or component gives
// lives beside its handlers (internal/stream's, the DEBUG and ACL ones in
// internal/admin, ...).
const (
	ErrNoReplicas = "NOREPLICAS Not enough good replicas to write."

	ErrSyntax          = "ERR syntax error"
	ErrWrongType       = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNotInt          = "ERR value is not an integer or out of range"
	ErrNotFloat        = "ERR value is not a valid float"
	ErrNoSuchKey       = "ERR no such key"
	ErrDBIndex         = "ERR DB index is out of range"
	ErrInvalidDB       = "ERR invalid DB index" // COPY ... DB, MOVE
	ErrSameObject      = "ERR source and destination objects are the same"
	ErrOverflow        = "ERR increment or decrement would overflow"
	ErrNaNOrInf        = "ERR increment would produce NaN or Infinity"
	ErrMinMaxFloat     = "ERR min or max is not a float"
	ErrMinMaxLex       = "ERR min or max not valid string range item"
	ErrStringTooLong   = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrOffsetRange     = "ERR offset is out of range"
	ErrBitOffset       = "ERR bit offset is not an integer or out of range"
	ErrInvalidCursor   = "ERR invalid cursor"
	ErrTimeoutNotFloat = "ERR timeout is not a float or out of range"
	ErrTimeoutNegative = "ERR timeout is negative"
	ErrNoAuth          = "NOAUTH Authentication required."
	ErrNoPasswordSet   = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrNoProto         = "NOPROTO unsupported protocol version"
	ErrOOM             = "OOM command not allowed when used memory > 'maxmemory'."
	ErrLoading         = "LOADING Redis is loading the dataset in memory"
	ErrNoScript        = "NOSCRIPT No matching script. Please use EVAL."
	ErrExecAbort       = "EXECABORT Transaction discarded because of previous errors."
	ErrMultiNested     = "ERR MULTI calls can not be nested"
	ErrExecNoMulti     = "ERR EXEC without MULTI"
	ErrDiscardNoMulti  = "ERR DISCARD without MULTI"
	ErrWatchInMulti    = "ERR WATCH inside MULTI is not allowed"
	ErrClientName      = "ERR Client names cannot contain spaces, newlines or special characters."
	ErrInternal        = "ERR internal error"
)

// errWrongArgs is the arity error; name is the command's full lower-case
// name, e.g. "zadd" or "client|setname".
func ErrWrongArgs(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}

// errUnknownCommand words an unknown command as Redis 7.0 does, quoting at
// most 128 bytes of the name and of the arguments.
func errUnknownCommand(args [][]byte) string {
	var b strings.Builder
	for _, a := range args[1:] {
		if b.Len() >= 128 {
			break
		}
		fmt.Fprintf(&b, "'%s' ", Trunc(Cstr(a), 128-b.Len()))
	}
	return fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", Trunc(Cstr(args[0]), 128), b.String())
}

// errUnknownSubcommand words an unknown subcommand of a container command.
func errUnknownSubcommand(sub []byte, container string) string {
	return fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", Trunc(Cstr(sub), 128), strings.ToUpper(container))
}

// errSubcommandSyntax is Redis's addReplySubcommandSyntaxError, for a known
// subcommand given the wrong arguments by its own parser: the names as the
// client typed them.
func ErrSubcommandSyntax(args [][]byte) string {
	return "ERR unknown subcommand or wrong number of arguments for '" + string(Trunc(Cstr(args[1]), 128)) +
		"'. Try " + strings.ToUpper(string(Cstr(args[0]))) + " HELP."
}

func ErrInvalidExpire(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}

// cstr is b as C's %s sees it: up to its first NUL byte. Redis formats
// these texts from C strings, so a NUL in a name ends it there.
func Cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

func Trunc(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// BITMAPS family (bitops.c) and LCS (t_string.c).
const (
	ErrBitValue  = "ERR bit is not an integer or out of range" // SETBIT's value
	ErrLCSMemory = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
)

// SERVER family (server administration: SHUTDOWN, CLIENT, CONFIG, COMMAND).
const (
	ErrNotInMulti     = "ERR Command not allowed inside a transaction"
	ErrShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs."
)

// KEYS and EXPIRE families (generic keyspace commands, OBJECT, TTLs).
const (
	ErrIntRange32     = "ERR value is out of range, value must between -2147483648 and 2147483647" // getIntFromObjectOrReply
	ErrLFUNotSelected = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	ErrLFUSelected    = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	ErrExpireNXCombo  = "ERR NX and XX, GT or LT options at the same time are not compatible"
	ErrExpireGTLT     = "ERR GT and LT options at the same time are not compatible"
)

// SCRIPTING family (EVAL, EVALSHA, SCRIPT, and the reasons redis.call refuses
// a command, which the VM prefixes with "ERR ").
const (
	ErrNumKeysTooBig   = "ERR Number of keys can't be greater than number of args"
	ErrNumKeysNegative = "ERR Number of keys can't be negative"
	ErrScriptWriteRO   = "ERR Can not execute a script with write flag using *_ro command."
	ErrNotBusy         = "NOTBUSY No scripts in execution right now."
	ErrFlushOption     = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	// Reasons redis.call refuses a command (the VM adds the "ERR " code).
	RefusedUnknown  = "Unknown Redis command called from script"
	RefusedArity    = "Wrong number of args calling Redis command from script"
	RefusedNoScript = "This Redis command is not allowed from script"
	RefusedWriteRO  = "Write commands are not allowed from read-only scripts."
)

// SORTED SETS family (t_zset.c and the shared parsers it calls).
const (
	ErrZAddNXXX          = "ERR XX and NX options at the same time are not compatible"
	ErrZAddGTLTNX        = "ERR GT, LT, and/or NX options at the same time are not compatible"
	ErrZAddIncrPair      = "ERR INCR option supports a single increment-element pair"
	ErrZAddNaN           = "ERR resulting score is not a number (NaN)"
	ErrZRangeLimit       = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	ErrZRangeLexScores   = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	ErrZWeightNotFloat   = "ERR weight value is not a float"
	ErrZLimitNegative    = "ERR LIMIT can't be negative"
	ErrZNumKeysPositive  = "ERR numkeys should be greater than 0"
	ErrZCountPositive    = "ERR count should be greater than 0"
	ErrValueOutOfRange   = "ERR value is out of range"                   // ZRANDMEMBER ... WITHSCORES count
	ErrValueMustPositive = "ERR value is out of range, must be positive" // getPositiveLongFromObjectOrReply
	ErrZAtLeastOneKeyPfx = "ERR at least 1 input key is needed for '"    // + command name + "' command"
	// ZRANDMEMBER's count, read by getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX).
	ErrZRandCountRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
)

// The list family's errors (t_list.c).
const (
	ErrIndexOutOfRange = "ERR index out of range" // LSET
	ErrLPosRank        = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
)

// GEO family (geo.c).
const (
	ErrGeoUnit     = "ERR unsupported unit provided. please use M, KM, FT, MI"
	ErrGeoMember   = "ERR could not decode requested zset member"
	ErrGeoAnyCount = "ERR the ANY argument requires COUNT argument"
)

// cFixed6 is C's printf("%f"): six decimals, "inf"/"-inf" for the
// infinities (NaN never reaches it: the parser refuses it).
func CFixed6(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// A script running past busy-reply-threshold (busy.go): Redis's
// shared.slowevalerr and shared.slowscripterr, and SCRIPT KILL's refusal.
const (
	ErrBusyEval     = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	ErrUnkillable   = "UNKILLABLE Sorry the script already executed write commands against the dataset. " +
		"You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
)
