package limitcmd

import (
	"math"
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/zset"
)

// The sliding log: RL.CHECK does in one step what the seed's Lua script
// does with ZREMRANGEBYSCORE, ZCARD, ZADD and PEXPIRE, and leaves the same
// ordinary sorted set behind, so support can still inspect a user with
// ZRANGE ... WITHSCORES and reset one with DEL.
//
//	RL.CHECK key now_ms|* window_ms limit member|* [COST n] [INFO]
//	RL.PEEK  key now_ms|* window_ms limit [COST n] [INFO]

// RL.CHECK's own error texts, in Redis's style.
const (
	ErrRLNow    = "ERR now must be an integer number of milliseconds or '*'"
	ErrRLWindow = "ERR window must be a positive integer number of milliseconds"
	ErrRLLimit  = "ERR limit must be a positive integer"
	ErrRLCost   = "ERR cost must be a positive integer no greater than 100000"
)

// maxRLCost bounds the entries one check may record, so one command cannot
// hold the executor for long or allocate without bound.
const maxRLCost = 100_000

// maxRLWindow keeps window+1000 and now±window far from overflow and every
// score exactly representable as a float64.
const maxRLWindow = 1 << 47

// rlRequest is a parsed RL.CHECK or RL.PEEK.
type rlRequest struct {
	key        []byte
	now        int64
	serverNow  bool // now was '*': take it from the server clock
	window     int64
	limit      int64
	cost       int64
	member     []byte
	autoMember bool // member was '*': make unique members
	info       bool
}

// rlResult is the outcome of one check.
type rlResult struct {
	allowed    bool
	before     int64 // entries in the window before this request: the seed's reply
	count      int64 // entries in the window after it
	retryAfter int64 // ms until the same request could pass; 0 if it passed, -1 if never
	resetAfter int64 // ms until the window is empty
	changed    bool  // entries were pruned or recorded
}

func parseRL(x *engine.Ctx, withMember bool) (rlRequest, bool) {
	a := x.Args
	r := rlRequest{key: a[1], cost: 1}
	if len(a[2]) == 1 && a[2][0] == '*' {
		r.serverNow = true
	} else if n, ok := num.ParseInt(a[2]); ok {
		r.now = n
	} else {
		x.W.Error(ErrRLNow)
		return r, false
	}
	if w, ok := num.ParseInt(a[3]); !ok || w <= 0 || w > maxRLWindow {
		x.W.Error(ErrRLWindow)
		return r, false
	} else {
		r.window = w
	}
	if l, ok := num.ParseInt(a[4]); !ok || l <= 0 {
		x.W.Error(ErrRLLimit)
		return r, false
	} else {
		r.limit = l
	}
	i := 5
	if withMember {
		r.member = a[5]
		r.autoMember = len(a[5]) == 1 && a[5][0] == '*'
		i = 6
	}
	for ; i < len(a); i++ {
		switch strings.ToLower(string(a[i])) {
		case "cost":
			if i+1 >= len(a) {
				x.W.Error(engine.ErrSyntax)
				return r, false
			}
			c, ok := num.ParseInt(a[i+1])
			if !ok || c <= 0 || c > maxRLCost {
				x.W.Error(ErrRLCost)
				return r, false
			}
			r.cost = c
			i++
		case "info":
			r.info = true
		default:
			x.W.Error(engine.ErrSyntax)
			return r, false
		}
	}
	if r.serverNow {
		r.now = x.Now
	} else if r.now > math.MaxInt64-maxRLWindow || r.now < math.MinInt64+maxRLWindow {
		x.W.Error(ErrRLNow)
		return r, false
	}
	return r, true
}

func cmdRLCheck(x *engine.Ctx) {
	r, ok := parseRL(x, true)
	if !ok {
		return
	}
	res, wrongType := rlCheck(x, &r, false)
	if wrongType {
		x.W.Error(engine.ErrWrongType)
		return
	}
	res.reply(x, &r)
}

func cmdRLPeek(x *engine.Ctx) {
	r, ok := parseRL(x, false)
	if !ok {
		return
	}
	res, wrongType := rlCheck(x, &r, true)
	if wrongType {
		x.W.Error(engine.ErrWrongType)
		return
	}
	res.reply(x, &r)
}

func (res *rlResult) reply(x *engine.Ctx, r *rlRequest) {
	x.E.RlDecision(x.Cmd.Name, algSlidingLog, r.limit, res.allowed)
	if !r.info {
		x.W.Int(res.before)
		return
	}
	allowed := int64(0)
	if res.allowed {
		allowed = 1
	}
	x.W.Map(6) // a map in RESP3
	x.W.BulkString("allowed")
	x.W.Int(allowed)
	x.W.BulkString("count")
	x.W.Int(res.count)
	x.W.BulkString("limit")
	x.W.Int(r.limit)
	x.W.BulkString("remaining")
	x.W.Int(max(0, r.limit-res.count))
	x.W.BulkString("retry_after_ms")
	x.W.Int(res.retryAfter)
	x.W.BulkString("reset_after_ms")
	x.W.Int(res.resetAfter)
}

// rlCheck runs the sliding-window check. With peek it changes nothing and
// answers what a check would. A key of another type changes nothing and is
// reported for the caller to answer.
// memberSeq numbers the members RL.CHECK makes itself ('*'), so that two
// made in the same millisecond differ.
type memberSeq struct{ n uint64 }

func rlCheck(x *engine.Ctx, r *rlRequest, peek bool) (res rlResult, wrongType bool) {
	// One lookup; hits and misses are counted once the type is right, as
	// the seed script's ZCARD would count them (its write lookups do not).
	ent := x.DB.Get(r.key, x.Now)
	var z *zset.Set
	if ent != nil {
		var ok bool
		if z, ok = ent.Val.(*zset.Set); !ok {
			return res, true
		}
	}
	x.CountLookup(z != nil)
	if r.serverNow && z != nil && z.Len() > 0 {
		// Server time never goes below what is already recorded, so a clock
		// stepping back cannot re-admit requests.
		z.RangeByRank(z.Len()-1, z.Len()-1, false, func(_ []byte, score float64) bool {
			if s := int64(math.Ceil(score)); s > r.now && score < 1<<53 {
				r.now = s
			}
			return false
		})
	}
	// The seed prunes with ZREMRANGEBYSCORE key 0 now-window: entries at or
	// below the window's start, but never negative scores.
	old := zset.ScoreRange{Min: 0, Max: float64(r.now - r.window)}
	var count int64
	switch {
	case z == nil:
	case peek:
		count = int64(z.Len() - z.CountByScore(old))
	default:
		pruned := old.Max >= 0 && z.RemoveRangeByScore(old) > 0
		if pruned {
			rlPropagate(x, rlZremrange, r.key, zero, engine.MsArg(r.now-r.window))
			res.changed = true
			x.Modified(r.key)
			x.Notify(config.EvZSet, "zremrangebyscore", r.key)
		}
		if pruned && z.Len() == 0 {
			x.DB.Remove(ent)
			x.Notify(config.EvGeneric, "del", r.key)
			ent, z = nil, nil
		} else {
			count = int64(z.Len())
		}
	}
	if z == nil {
		// The seed's ZCARD (RL.PEEK's read) of a missing key.
		x.KeyMiss(r.key)
	}
	res.before = count
	res.count = count
	if count+r.cost > r.limit || count+r.cost < count {
		if r.info { // only the INFO reply needs them
			res.retryAfter = rlRetryAfter(z, r, count)
			res.resetAfter = rlResetAfter(z, r)
		}
		return res, false
	}
	res.allowed = true
	if peek {
		if r.info {
			res.resetAfter = rlResetAfter(z, r)
		}
		return res, false
	}
	if z == nil {
		ent = x.DB.SetInSlot(r.key) // the set's handle lives in the entry
		z = zset.NewIn(ent.Slot())
		ent.Val = z
	}
	score := float64(r.now)
	lim := x.E.Cfg.ZsetLimits()
	// The seed's ZADD notifies and propagates unless it changed nothing:
	// its members already there with this score (made-up members are
	// always new). Asked only when someone listens or reads the stream.
	prop := x.Propagating()
	track := !r.autoMember && (prop || x.E.Observed(config.EvZSet))
	zaddEvent := !track
	changes := func(m string) {
		if track && !zaddEvent {
			if sc, ok := z.Score(m); !ok || sc != score {
				zaddEvent = true
			}
		}
	}
	var zadd [][]byte
	var nowArg []byte // the ZADD's score, formatted only for the stream
	if prop {
		nowArg = engine.MsArg(r.now)
		zadd = append(zadd, rlZadd, r.key)
	}
	if r.autoMember {
		var buf [40]byte
		seq := &engine.Local[memberSeq](x.E).n
		for i := int64(0); i < r.cost; i++ {
			*seq++
			m := strconv.AppendInt(buf[:0], r.now, 10)
			m = append(m, '-')
			m = strconv.AppendUint(m, *seq, 10)
			z.AddBytes(m, score, lim)
			if prop {
				zadd = append(zadd, nowArg, append([]byte(nil), m...))
			}
		}
	} else {
		changes(engine.Zview(r.member))
		z.AddBytes(r.member, score, lim)
		if prop {
			zadd = append(zadd, nowArg, r.member)
		}
		for i := int64(2); i <= r.cost; i++ {
			m := string(r.member) + "#" + strconv.FormatInt(i, 10)
			changes(m)
			z.Add(m, score, lim)
			if prop {
				zadd = append(zadd, nowArg, []byte(m))
			}
		}
	}
	if prop {
		if zaddEvent {
			rlPropagate(x, zadd...)
		}
		rlPropagate(x, engine.ArgPexpireat, r.key, engine.MsArg(x.Now+r.window+1000))
	}
	if zaddEvent {
		x.Modified(r.key)
		x.Notify(config.EvZSet, "zadd", r.key)
	}
	x.DB.SetExpiry(ent, x.Now+r.window+1000)
	// The seed's PEXPIRE key window+1000.
	x.Modified(r.key)
	x.Notify(config.EvGeneric, "expire", r.key)
	x.SignalReady(r.key)
	res.changed = true
	res.count = int64(z.Len())
	if r.info {
		res.resetAfter = rlResetAfter(z, r)
	}
	return res, false
}

// rlRetryAfter is how long until enough entries leave the window for the
// request to pass: the k-th oldest removable entry leaves when
// now' - window >= its score. Entries with negative scores never leave
// (the seed's prune starts at 0).
func rlRetryAfter(z *zset.Set, r *rlRequest, count int64) int64 {
	if r.cost > r.limit || z == nil {
		return -1
	}
	need := count + r.cost - r.limit
	after := int64(-1)
	// Removable entries still in the window: score > now-window and >= 0.
	in := zset.ScoreRange{Min: float64(r.now - r.window), MinEx: true, Max: math.Inf(1)}
	if in.Min < 0 {
		in = zset.ScoreRange{Min: 0, Max: math.Inf(1)}
	}
	z.RangeByScore(in, false, 0, -1, func(_ []byte, score float64) bool {
		need--
		if need > 0 {
			return true
		}
		after = int64(math.Ceil(score + float64(r.window) - float64(r.now)))
		return false
	})
	return after
}

// rlResetAfter is how long until the newest entry leaves the window.
func rlResetAfter(z *zset.Set, r *rlRequest) int64 {
	if z == nil || z.Len() == 0 {
		return 0
	}
	var newest float64
	z.RangeByRank(z.Len()-1, z.Len()-1, false, func(_ []byte, score float64) bool {
		newest = score
		return false
	})
	return max(0, int64(math.Ceil(newest+float64(r.window)-float64(r.now))))
}

// slidingWindowNative runs the seed's sliding-window script (recognised by
// internal/lua.IsSlidingWindow) as RL.CHECK, for inputs where that is exactly
// what the interpreter would do: integer now, window and limit whose Lua
// arithmetic and number-to-string conversions are exact, a key that is
// missing or a sorted set, and no maxmemory (where the script's ZADD could
// answer OOM). Anything else reports false and runs in the interpreter.
func slidingWindowNative(x *engine.Ctx, keys, argv [][]byte) bool {
	const exact = 1 << 53
	if len(keys) < 1 || len(argv) < 4 {
		return false
	}
	key := keys[0]
	now, ok1 := num.ParseInt(argv[0])
	window, ok2 := num.ParseInt(argv[1])
	limit, ok3 := num.ParseInt(argv[2])
	if !ok1 || !ok2 || !ok3 || now > exact || now < -exact || window < 1 || window > maxRLWindow ||
		limit > exact || limit < -exact || x.E.Cfg.MaxMemory.Load() > 0 {
		return false
	}
	r := rlRequest{key: key, now: now, window: window, limit: limit, cost: 1, member: argv[3]}
	res, wrongType := rlCheck(x, &r, false)
	if wrongType {
		return false // the interpreter raises the script's own error
	}
	x.W.Int(res.before)
	return true
}

// RL.CHECK propagates as its effects, the commands the seed script's
// effects are in Redis 7.0: ZREMRANGEBYSCORE key 0 now-window when it
// pruned something, then, when it admitted the request, ZADD and the
// PEXPIRE as PEXPIREAT (in MULTI/EXEC, being more than one). Any Redis
// replica or AOF loader applies that stream, and it is byte for byte what
// Redis writes for the script (EVALSHA of the seed recognised here
// propagates the same). RL.CHECK itself is not sent: a receiver that is
// not a limitkv would not know it, and its "*" arguments (server time,
// made-up members) would come out differently on the other side.
var (
	rlZremrange = []byte("ZREMRANGEBYSCORE")
	rlZadd      = []byte("ZADD")
	zero        = []byte("0")
)

func rlPropagate(x *engine.Ctx, args ...[]byte) {
	x.NoPropagate()
	x.AlsoPropagate(args...)
}
