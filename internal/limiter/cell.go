package limiter

import (
	"math"
	"strconv"
)

// GCRA as redis-cell's CL.THROTTLE computes it (brandur/redis-cell,
// src/cell/mod.rs and src/lib.rs), reply, rounding, errors and state:
//
//	CL.THROTTLE key max_burst count period [quantity]
//
// State: a string holding the theoretical arrival time (TAT) as decimal
// nanoseconds since the Unix epoch, with a TTL of the whole milliseconds
// until the TAT (truncated, as the module's set_expire does). A refused
// request writes nothing; an allowed one, quantity 0 (redis-cell's peek)
// included, rewrites the TAT and its TTL.
//
// Arithmetic is int64 nanoseconds with Go's wrapping multiplication, which
// is what the module's release build does for emission*quantity and
// emission*(max_burst+1). Where the module would store a TAT outside
// 0..MaxInt64 (Rust's u64 conversion wraps, or its time type panics and
// takes the server down) Throttle returns ErrCellRange instead.

// CellParams are CL.THROTTLE's arguments after the key; Period is seconds.
type CellParams struct {
	MaxBurst, Count, Period int64
}

// CellError is redis-cell's error text, sent as is (the module's errors
// carry no ERR prefix).
type CellError string

func (e CellError) Error() string { return string(e) }

const (
	errCellUsage    CellError = "Cell error: Usage: cl.throttle <key> <max_burst> <count per period> <period> [<quantity>]"
	errCellZeroRate CellError = "Cell error: Zero rates are not supported"
	// ErrCellExpire is the module's reply when the TTL to set is below -1
	// ms (only with a negative quantity): the TAT is written, without TTL,
	// and the command still fails.
	ErrCellExpire CellError = "Cell error: Error while setting key expire"
	// ErrCellRange is limitkv's answer where the module would overflow.
	ErrCellRange CellError = "Cell error: time out of range"
	errCellState CellError = "Cell error: invalid digit found in string"
)

// ParseThrottleArgs parses CL.THROTTLE's arguments after the command name
// in the module's order and with its messages (Rust's i64 parse, which
// takes a leading '+').
func ParseThrottleArgs(args []string) (key string, p CellParams, quantity int64, err error) {
	if len(args) != 4 && len(args) != 5 {
		return "", p, 0, errCellUsage
	}
	vals := [4]int64{0, 0, 0, 1}
	for i, a := range args[1:] {
		n, ok := parseRustI64(a)
		if !ok {
			return "", p, 0, CellError("Cell error: Couldn't parse as integer: " + a)
		}
		vals[i] = n
	}
	return args[0], CellParams{vals[0], vals[1], vals[2]}, vals[3], nil
}

func parseRustI64(s string) (int64, bool) {
	if len(s) > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+' {
		s = s[1:]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && s != "" && s[0] != ' '
}

// EmissionNs is the nanoseconds between two requests at the steady rate:
// the module's Rate::per_period, a float division truncated (saturating,
// as Rust's float-to-int cast is).
func (p CellParams) EmissionNs() int64 {
	if p.Count == 0 || p.Period == 0 {
		return 0
	}
	return rustF64ToI64(float64(p.Period) * 1e9 / float64(p.Count))
}

// Limit is the figure the reply carries: max_burst+1.
func (p CellParams) Limit() int64 { return p.MaxBurst + 1 }

// DVTNs is the delay variation tolerance: the bucket's size in time.
func (p CellParams) DVTNs() int64 { return p.EmissionNs() * (p.MaxBurst + 1) }

func rustF64ToI64(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 9223372036854775807:
		return math.MaxInt64
	case f <= -9223372036854775808:
		return math.MinInt64
	}
	return int64(f)
}

// CellReply is CL.THROTTLE's answer; the durations are exact nanoseconds
// (RetryAfterNs -1e9 means never), Ints rounds them as the module does.
type CellReply struct {
	Limited      bool
	Limit        int64
	Remaining    int64
	RetryAfterNs int64
	ResetAfterNs int64
}

// Ints is the five-integer reply: limited, limit, remaining, retry_after
// and reset_after in seconds, each rounded up iff its sub-second part
// holds a whole millisecond (the module's subsec_milliseconds() > 0 test).
func (r CellReply) Ints() [5]int64 {
	l := int64(0)
	if r.Limited {
		l = 1
	}
	return [5]int64{l, r.Limit, r.Remaining, cellSeconds(r.RetryAfterNs), cellSeconds(r.ResetAfterNs)}
}

func cellSeconds(ns int64) int64 {
	secs, sub := ns/1e9, ns%1e9
	s := rustF64ToI64(float64(secs) + float64(sub)/1e9)
	if sub/1e6 > 0 {
		s++
	}
	return s
}

// Result is the reply in limitkv's INFO terms.
func (r CellReply) Result() Result {
	retry := int64(0)
	if r.Limited {
		retry = -1
		if r.RetryAfterNs >= 0 {
			retry = ceilDiv(r.RetryAfterNs, 1e6)
		}
	}
	return Result{
		Allowed: !r.Limited, Limit: r.Limit, Remaining: r.Remaining,
		Count: max(0, r.Limit-r.Remaining), RetryAfterMs: retry,
		ResetAfterMs: max(0, ceilDiv(r.ResetAfterNs, 1e6)),
	}
}

// ParseCellState reads the TAT a key holds; ok is false for an absent key.
func ParseCellState(v Value) (tat int64, ok bool, err error) {
	switch v.Kind {
	case Absent:
		return 0, false, nil
	case String:
		n, err := strconv.ParseUint(v.Str, 10, 64)
		if err != nil || n > math.MaxInt64 {
			return 0, false, errCellState
		}
		return int64(n), true, nil
	}
	return 0, false, ErrWrongType
}

// Throttle is one CL.THROTTLE at nowNs (Unix nanoseconds) on the key's
// value v. It returns the reply and the value left behind; changed says
// whether anything was written. An error other than ErrCellExpire leaves
// v unchanged.
func Throttle(v Value, nowNs int64, p CellParams, quantity int64) (r CellReply, after Value, changed bool, err error) {
	return throttle(v, nowNs, p, quantity, true)
}

// PeekThrottle answers as Throttle would and writes nothing.
func PeekThrottle(v Value, nowNs int64, p CellParams, quantity int64) (CellReply, error) {
	r, _, _, err := throttle(v, nowNs, p, quantity, false)
	if err == ErrCellExpire {
		err = nil
	}
	return r, err
}

func throttle(v Value, now int64, p CellParams, quantity int64, write bool) (CellReply, Value, bool, error) {
	ei := p.EmissionNs()
	r := CellReply{Limit: p.Limit(), RetryAfterNs: -1e9, ResetAfterNs: -1e9}
	if ei == 0 {
		return r, v, false, errCellZeroRate
	}
	dvt := p.DVTNs()
	inc := ei * quantity
	tat, ok, err := ParseCellState(v)
	if err != nil {
		return r, v, false, err
	}
	if !ok {
		tat = now
	}
	newTAT, okAdd := addNoOverflow(max(tat, now), inc)
	allowAt, okSub := subNoOverflow(newTAT, dvt)
	diff, okDiff := subNoOverflow(now, allowAt)
	if !okAdd || !okSub || !okDiff {
		return r, v, false, ErrCellRange
	}
	var ttl int64
	after, changed := v, false
	if diff < 0 {
		r.Limited = true
		if inc <= dvt {
			r.RetryAfterNs = -diff
		}
		ttl = tat - now
	} else {
		if newTAT < 0 {
			return r, v, false, ErrCellRange
		}
		ttl = newTAT - now
		if write {
			changed = true
			after = Value{Kind: String, Str: strconv.FormatInt(newTAT, 10), TTL: ttl / 1e6}
			switch ms := ttl / 1e6; {
			case ms == 0:
				after = Value{} // expires the moment it is set
			case ms < -1:
				err = ErrCellExpire
				after.TTL = -1
			}
		}
	}
	if next := dvt - ttl; next > -ei {
		us, eus := next/1000, ei/1000
		r.Remaining = rustF64ToI64(float64(us) / float64(eus))
	}
	r.ResetAfterNs = ttl
	return r, after, changed, err
}

func addNoOverflow(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0) || b == 0
}

func subNoOverflow(a, b int64) (int64, bool) {
	s := a - b
	return s, (s < a) == (b > 0) || b == 0
}
