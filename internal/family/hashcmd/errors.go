package hashcmd

// HASHES family (t_hash.c).
const (
	errHashNotInt     = "ERR hash value is not an integer"
	errHashNotFloat   = "ERR hash value is not a float"
	errHashIncrNaNInf = "ERR value is NaN or Infinity" // HINCRBYFLOAT's increment
)
