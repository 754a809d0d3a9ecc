package ratelimit

import (
	"context"
	"fmt"
	"strconv"
)

// rlCheck runs RL.CHECK key now window limit * [COST n] INFO on limitkv: the
// server prunes, counts, records n entries with members it makes unique,
// and answers every Result field.
func (l *Limiter) rlCheck(ctx context.Context, key string, n int) (Result, error) {
	var now any = "*"
	if !l.serverNow {
		now = l.now().UnixMilli()
	}
	args := make([]any, 0, 10)
	args = append(args, "RL.CHECK", key, now, l.windowMs, l.limit, "*")
	if n != 1 {
		args = append(args, "COST", n)
	}
	args = append(args, "INFO")
	v, err := l.rdb.Do(ctx, args...).Result()
	if err != nil {
		return Result{}, err
	}
	return parseInfo(v)
}

// parseInfo reads RL.CHECK's INFO reply: name/value pairs, as a flat array
// (RESP2) or a map (should a server answer RESP3).
func parseInfo(v any) (Result, error) {
	var pairs [][2]any
	switch v := v.(type) {
	case []any:
		if len(v)%2 != 0 {
			return Result{}, fmt.Errorf("RL.CHECK INFO: odd reply length %d", len(v))
		}
		for i := 0; i < len(v); i += 2 {
			pairs = append(pairs, [2]any{v[i], v[i+1]})
		}
	case map[any]any:
		for k, x := range v {
			pairs = append(pairs, [2]any{k, x})
		}
	default:
		return Result{}, fmt.Errorf("RL.CHECK INFO: unexpected reply %T", v)
	}
	const (
		fAllowed = 1 << iota
		fCount
		fLimit
		fRemaining
		fRetry
		fReset
		fAll = 1<<iota - 1
	)
	var r Result
	seen := 0
	for _, p := range pairs {
		name, _ := p[0].(string)
		val, ok := replyInt(p[1])
		if !ok {
			return Result{}, fmt.Errorf("RL.CHECK INFO: %q is not an integer: %v", name, p[1])
		}
		switch name {
		case "allowed":
			r.Allowed, seen = val == 1, seen|fAllowed
		case "count":
			r.Count, seen = int(val), seen|fCount
		case "limit":
			r.Limit, seen = int(val), seen|fLimit
		case "remaining":
			r.Remaining, seen = int(val), seen|fRemaining
		case "retry_after_ms":
			if val < 0 {
				r.RetryAfter = Never
			} else {
				r.RetryAfter = ms(val)
			}
			seen |= fRetry
		case "reset_after_ms":
			r.Reset, seen = ms(val), seen|fReset
		}
	}
	if seen != fAll {
		return Result{}, fmt.Errorf("RL.CHECK INFO: incomplete reply %v", v)
	}
	return r, nil
}

func replyInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	return 0, false
}
