package ratelimit

import (
	"context"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/ratelimit/seedscript"
)

// seedSource is the seed's script, byte for byte (its final newline too),
// so its SHA1 is the seed's 2f28f575aa22b7cfd53ae3e5432bbd242143347a and
// EVALSHA finds it in a cache that other clients of the seed filled. The
// server recognises the same script for its native path.
var seedSource = seedscript.Source

var seedScript = redis.NewScript(seedSource)

// ScriptSHA1 is the SHA1 of the embedded seed script, the name EVALSHA uses.
func ScriptSHA1() string { return seedScript.Hash() }

// runScript runs the seed's script: KEYS[1]=key, ARGV = now, window, limit,
// member. It answers the count before the call; the request was recorded iff
// that count is under the limit.
func (l *Limiter) runScript(ctx context.Context, key string) (Result, error) {
	now := l.now().UnixMilli()
	member := scriptMember(now)
	before, err := seedScript.Run(ctx, l.rdb, []string{key}, now, l.windowMs, l.limit, member).Int64()
	if err != nil {
		return Result{}, err
	}
	if before < int64(l.limit) {
		// The new entry, at now, is the newest: the window empties when it leaves.
		return l.result(true, int(before)+1, 0, ms(l.windowMs)), nil
	}
	retry, reset := l.scriptWaits(ctx, key, now, before)
	return l.result(false, int(before), retry, reset), nil
}

// scriptWaits computes a refusal's RetryAfter and Reset, which the script
// does not return, the way RL.CHECK does: an entry at score s leaves the
// window once now >= s+window, but only entries scored 0 or more ever leave
// (the script prunes from 0 up), so one slot frees when the
// (count-limit+1)-th oldest of those leaves, and the window is empty when the
// newest leaves. If the lookup fails the refusal stands and both waits are
// the whole window, an upper bound.
func (l *Limiter) scriptWaits(ctx context.Context, key string, now, count int64) (retry, reset time.Duration) {
	lo := "0"
	if start := now - l.windowMs; start >= 0 {
		lo = "(" + strconv.FormatInt(start, 10)
	}
	var nth, last *redis.ZSliceCmd
	_, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		nth = p.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
			Min: lo, Max: "+inf", Offset: count - int64(l.limit), Count: 1,
		})
		last = p.ZRangeWithScores(ctx, key, -1, -1)
		return nil
	})
	if err != nil {
		w := ms(l.windowMs)
		return w, w
	}
	until := func(score float64) time.Duration {
		return ms(max(0, int64(math.Ceil(score+float64(l.windowMs-now)))))
	}
	switch zs := last.Val(); {
	case len(zs) == 0:
		return 0, 0 // emptied meanwhile (e.g. a support DEL): retry now
	default:
		reset = until(zs[0].Score)
	}
	if zs := nth.Val(); len(zs) == 1 {
		return until(zs[0].Score), reset
	}
	return Never, reset
}

// scriptMember is the seed's member: "<ms>:" and 8 random hex digits, so two
// requests in the same millisecond stay two entries.
func scriptMember(now int64) string {
	var r [4]byte
	v := rand.Uint32()
	r[0], r[1], r[2], r[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	b := strconv.AppendInt(make([]byte, 0, 28), now, 10)
	b = append(b, ':')
	return string(hex.AppendEncode(b, r[:]))
}
