package keycmd

// SORT family (sort.c).
const (
	errSortScore = "ERR One or more scores can't be converted into double"
)

// Moved from the engine: texts only this package gives.
const (
	errSwapDBFirst    = "ERR invalid first DB index"
	errSwapDBSecond   = "ERR invalid second DB index"
	errUnsupportedOpt = "ERR Unsupported option " // followed by the option, up to its first NUL
)
