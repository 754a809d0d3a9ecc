// Package scripts holds limitkv's limiting algorithms as Lua scripts for
// plain Redis, Valkey and Dragonfly (no server-specific commands), each the
// twin of a decision function in internal/limiter: same reply, same value
// and TTL left in the key. A script reads the server clock (TIME) only when
// the caller passes "*" for now.
package scripts

import (
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
)

var (
	// Cell is GCRA as redis-cell's CL.THROTTLE.
	// KEYS[1]; ARGV: now_ns|*, max_burst, count, period_s [, quantity].
	//go:embed cell.lua
	Cell string

	// TokenBucket: KEYS[1]; ARGV: now_ms|*, capacity, refill, period_ms, cost, check|peek.
	//go:embed token_bucket.lua
	TokenBucket string

	// FixedWindow: KEYS[1]; ARGV: window_ms, limit, cost, check|peek.
	//go:embed fixed_window.lua
	FixedWindow string

	// SlidingWindow: KEYS[1]; ARGV: now_ms|*, window_ms, limit, cost, check|peek.
	//go:embed sliding_window.lua
	SlidingWindow string

	// Concurrency: KEYS[1]; ARGV: now_ms|*, acquire|release|peek, limit, lease_ms, lease_id.
	//go:embed concurrency.lua
	Concurrency string

	// Budget: KEYS[1]; ARGV: now_ms|*, reserve|settle|peek, window_ms, limit, estimate [, actual, window_start].
	//go:embed budget.lua
	Budget string
)

// SHA1 is the name EVALSHA knows a script by.
func SHA1(script string) string {
	h := sha1.Sum([]byte(script))
	return hex.EncodeToString(h[:])
}
