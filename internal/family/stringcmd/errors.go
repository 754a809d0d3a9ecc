package stringcmd

import "github.com/limitkv/limitkv/internal/engine"

// HYPERLOGLOG family (hyperloglog.c).
const (
	errHLLNotHLL    = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errHLLCorrupt   = "INVALIDOBJ Corrupted HLL object detected"
	errHLLNoKey     = "ERR The specified key does not exist" // PFDEBUG
	errHLLNotSparse = "ERR HLL encoding is not sparse"       // PFDEBUG DECODE
)

// errPFDebugUnknown names the subcommand as C's %s prints it, up to a NUL.
func errPFDebugUnknown(sub []byte) string {
	return "ERR Unknown PFDEBUG subcommand '" + string(engine.Cstr(sub)) + "'"
}

// Moved from the engine: texts only this package gives.
const (
	errDecrOverflow     = "ERR decrement would overflow"         // DECRBY of LLONG_MIN
	errBitArg           = "ERR The bit argument must be 1 or 0." // BITPOS
	errBitOpNot         = "ERR BITOP NOT must be called with a single source key."
	errBitfieldType     = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errBitfieldOverflow = "ERR Invalid OVERFLOW type specified"
	errBitfieldRO       = "ERR BITFIELD_RO only supports the GET subcommand"
	errLCSType          = "ERR The specified keys must contain string values"
	errLCSLenIdx        = "ERR If you want both the length and indexes, please just use IDX."
	errLCSTooLong       = "ERR String too long for LCS"
)
