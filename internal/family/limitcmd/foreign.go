package limitcmd

import (
	"math"
	"regexp"

	"github.com/limitkv/limitkv/internal/config"
	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/limiter"
)

// Other projects' limiter scripts, recognised by internal/lua (Recognise)
// and run here natively with the models of internal/limiter: the same
// reply, the same value and TTL, the same write stream as the interpreter
// gives them. Each twin declines (false: the interpreter runs the script)
// for any input where the model and Lua could part: an argument Lua would
// read otherwise than a plain decimal, a key of another type or content,
// a TTL out of Redis's range, maxmemory (a write could answer OOM).

// decimal is the only spelling of a number the twins accept: strtod and
// strconv.ParseFloat round it the same, and Lua's coercions see nothing
// else in it (no hex, no inf, no spaces).
var decimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// redisRateTwin runs go-redis/redis_rate v10's allowN or allowAtMost.
func redisRateTwin(atMost bool) engine.ScriptTwin {
	return func(x *engine.Ctx, keys, argv [][]byte) bool {
		if len(keys) < 1 || len(argv) < 4 || x.E.Cfg.MaxMemory.Load() > 0 {
			return false
		}
		strs := make([]string, 4)
		for i := range strs {
			if !decimal.Match(argv[i]) {
				return false
			}
			strs[i] = string(argv[i])
		}
		a, err := limiter.ParseRedisRateArgs(strs)
		// Division by a zero rate, negative costs and the like are left to
		// the interpreter: NaN and infinities print by libc's rules.
		if err != nil || !(a.Rate > 0) || !(a.Period > 0) || !(a.Burst >= 0) || !(a.Cost >= 0) ||
			math.IsInf(a.Rate, 0) || math.IsInf(a.Period, 0) || math.IsInf(a.Burst, 0) || math.IsInf(a.Cost, 0) {
			return false
		}
		key := keys[0]
		v, err := readValue(x, key, true)
		if err != nil || (v.Kind != limiter.Absent && (v.Kind != limiter.String || !decimal.MatchString(v.Str))) {
			return false
		}
		now := x.E.Clock.Now() // TIME, as the script reads it
		sec, usec := now.Unix(), int64(now.Nanosecond()/1000)
		decideFn := limiter.RedisRateAllowN
		if atMost {
			decideFn = limiter.RedisRateAllowAtMost
		}
		r, after, changed, err := decideFn(v, sec, usec, a)
		// SET ... EX takes whole seconds below 2^63/1000 printed as an
		// integer (%.17g): far beyond any real period.
		if err != nil || (changed && after.TTL > 1e15) {
			return false
		}
		if changed {
			setString(x, key, after)
		}
		x.W.Array(4)
		x.W.Int(r.Allowed)
		x.W.Int(r.Remaining)
		x.W.BulkString(r.RetryAfter)
		x.W.BulkString(r.ResetAfter)
		return true
	}
}

// setString is the scripts' SET key value EX n: it replaces the value and
// its TTL, propagates as SET key value PXAT at (Redis's rewrite) and
// notifies set and expire.
func setString(x *engine.Ctx, key []byte, v limiter.Value) {
	x.NoPropagate()
	ent := x.DB.Set(key, []byte(v.Str), false)
	at := x.Now + v.TTL
	x.DB.SetExpiry(ent, at)
	x.Modified(key)
	x.Notify(config.EvString, "set", key)
	x.Notify(config.EvGeneric, "expire", key)
	x.AlsoPropagate(engine.ArgSet, key, []byte(v.Str), engine.ArgPXAT, engine.MsArg(at))
}

var argIncrBy = []byte("incrby") // as the script calls it, and so propagates it

// rlfTwin runs node-rate-limiter-flexible's consume script: SET key 0 EX
// duration NX, INCRBY key points, PTTL key, and EXPIRE key duration when
// the key had no TTL; reply {consumed, ttl}.
func rlfTwin(x *engine.Ctx, keys, argv [][]byte) bool {
	if len(keys) < 1 || len(argv) < 2 || x.E.Cfg.MaxMemory.Load() > 0 {
		return false
	}
	a, err := limiter.ParseRLFArgs([]string{string(argv[0]), string(argv[1])})
	// Errors are the interpreter's to raise; a duration whose deadline
	// could overflow is left to SET's own check there too.
	if err != nil || a.Duration > 1e12 {
		return false
	}
	key := keys[0]
	v, err := readValue(x, key, true)
	if err != nil {
		return false
	}
	consumed, ttl, after, err := limiter.RLFConsume(v, a)
	if err != nil {
		return false
	}
	x.NoPropagate()
	at := x.Now + a.Duration*1000
	if v.Kind == limiter.Absent { // SET key 0 EX duration NX
		ent := x.DB.Set(key, []byte("0"), false)
		x.DB.SetExpiry(ent, at)
		x.Modified(key)
		x.Notify(config.EvString, "set", key)
		x.Notify(config.EvGeneric, "expire", key)
		x.AlsoPropagate(engine.ArgSet, key, []byte("0"), engine.ArgPXAT, engine.MsArg(at))
	}
	ent := x.DB.Get(key, x.Now)
	ent.Val = []byte(after.Str) // INCRBY: the TTL stays
	ent.Enc = keyspace.EncAuto
	x.Modified(key)
	x.Notify(config.EvString, "incrby", key)
	x.AlsoPropagate(argIncrBy, key, argv[0])
	if v.Kind != limiter.Absent && v.TTL == -1 { // EXPIRE key duration
		x.DB.SetExpiry(ent, at)
		x.Modified(key)
		x.Notify(config.EvGeneric, "expire", key)
		x.AlsoPropagate(engine.ArgPexpireat, key, engine.MsArg(at))
	}
	x.W.Array(2)
	x.W.Int(consumed)
	x.W.Int(ttl)
	return true
}
