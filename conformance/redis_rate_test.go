package conformance

import (
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
)

// TestRedisRateGCRA drives go-redis/redis_rate (a GCRA limiter whose Lua
// script uses TIME, GET and SET ... EX) through its public API against both
// servers: the decisions must be the same, and the durations within a few
// milliseconds (each server reads its own clock).
func TestRedisRateGCRA(t *testing.T) {
	rds, lkv := newClients(t)
	flushBoth(t)
	ctx := t.Context()
	limR, limL := redis_rate.NewLimiter(rds), redis_rate.NewLimiter(lkv)
	limit := redis_rate.PerMinute(5)

	type step struct {
		name string
		run  func(l *redis_rate.Limiter) (*redis_rate.Result, error)
	}
	var steps []step
	for i := 0; i < 7; i++ {
		steps = append(steps, step{"Allow", func(l *redis_rate.Limiter) (*redis_rate.Result, error) { return l.Allow(ctx, "u1", limit) }})
	}
	steps = append(steps,
		step{"AllowN 3 other user", func(l *redis_rate.Limiter) (*redis_rate.Result, error) { return l.AllowN(ctx, "u2", limit, 3) }},
		step{"AllowN 3 again", func(l *redis_rate.Limiter) (*redis_rate.Result, error) { return l.AllowN(ctx, "u2", limit, 3) }},
		step{"AllowAtMost 3", func(l *redis_rate.Limiter) (*redis_rate.Result, error) { return l.AllowAtMost(ctx, "u2", limit, 3) }},
		step{"Allow after reset", func(l *redis_rate.Limiter) (*redis_rate.Result, error) {
			if err := l.Reset(ctx, "u1"); err != nil {
				return nil, err
			}
			return l.Allow(ctx, "u1", limit)
		}},
	)
	allowed := 0
	close := func(a, b time.Duration) bool { d := a - b; return d < 50*time.Millisecond && d > -50*time.Millisecond }
	for i, s := range steps {
		r, errR := s.run(limR)
		l, errL := s.run(limL)
		if (errR == nil) != (errL == nil) {
			t.Fatalf("step %d %s: errors differ: redis %v, limitkv %v", i, s.name, errR, errL)
		}
		if errR != nil {
			continue
		}
		if i < 7 && l.Allowed > 0 {
			allowed++
		}
		if r.Allowed != l.Allowed || r.Remaining != l.Remaining || !close(r.RetryAfter, l.RetryAfter) || !close(r.ResetAfter, l.ResetAfter) {
			t.Errorf("step %d %s:\n redis   %+v\n limitkv %+v", i, s.name, *r, *l)
		}
	}
	if allowed != 5 {
		t.Errorf("%d of 7 calls allowed at 5 per minute: the limiter was not exercised as meant", allowed)
	}
}
