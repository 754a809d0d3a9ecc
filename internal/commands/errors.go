package commands

import (
	"fmt"
	"strings"
)

// Redis 7.0's error replies, word for word. Every handler answers from here so
// the texts live in one place.
const (
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
	ErrWrongPass       = "WRONGPASS invalid username-password pair or user is disabled."
	ErrNoPasswordSet   = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrNoProto         = "NOPROTO sorry, this protocol version is not supported."
	ErrOOM             = "OOM command not allowed when used memory > 'maxmemory'."
	ErrMaxClients      = "ERR max number of clients reached"
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
func errWrongArgs(name string) string {
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
		room := 128 - b.Len()
		if len(a) > room {
			a = a[:room]
		}
		fmt.Fprintf(&b, "'%s' ", a)
	}
	return fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", trunc(args[0], 128), b.String())
}

// errUnknownSubcommand words an unknown subcommand of a container command.
func errUnknownSubcommand(sub []byte, container string) string {
	return fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", trunc(sub, 128), strings.ToUpper(container))
}

func errInvalidExpire(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}

func trunc(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
