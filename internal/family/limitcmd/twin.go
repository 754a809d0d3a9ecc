package limitcmd

import (
	"maps"
	"slices"
	"strconv"

	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/limiter"
)

// What a decision propagates: the commands its Lua twin (ratelimit/scripts)
// calls for the same decision, which Redis 7.0 replicates as the script's
// effects (PEXPIRE as PEXPIREAT, SET PX as SET PXAT, several wrapped in
// MULTI/EXEC), so a limitkv master and a Redis master running the twin
// stream the same commands. The twin's commands are used only when they
// take the key from its old value to exactly the new one (the content and
// the TTL); otherwise, for a key someone edited by hand (a hash with a
// field the limiter does not write, a counter that is no canonical
// integer), writeValue's diff of plain commands goes instead, so a replica
// always ends with the master's value.

// style names the twin whose writes a command's propagation follows.
type style int

const (
	styleDiff    style = iota // writeValue's diff (no twin)
	styleGCRA                 // cell.lua: SET key tat PX ms, or DEL
	styleToken                // token_bucket.lua: DEL, HSET tokens ts, PEXPIRE
	styleFixed                // fixed_window.lua: INCRBY cost, PEXPIRE on a new key or one without a TTL
	styleSliding              // sliding_window.lua: HSET start cur prev, PEXPIRE
	styleAcquire              // concurrency.lua acquire: ZREMRANGEBYSCORE -inf now, ZADD, PEXPIRE
	styleRelease              // concurrency.lua release: ZREMRANGEBYSCORE -inf now, ZREM, PEXPIRE if some are left
	styleBudget               // budget.lua: HSET start used, PEXPIRE
)

var (
	argIncrByTwin = []byte("INCRBY") // as the twins spell what they call
	argZRemRange  = []byte("ZREMRANGEBYSCORE")
	argNegInf     = []byte("-inf")
)

// writeTwin makes key hold after, decided from before at now with result
// r, and propagates what st's twin script calls for that decision.
func writeTwin(x *engine.Ctx, key []byte, before, after limiter.Value, st style, r limiter.Result, now int64) {
	if !x.Propagating() {
		// No AOF, no replica: what would go out is not built. The
		// decision changed the value, which is a write either way.
		applyValue(x, key, before, after, nil)
		x.Modified(key)
		return
	}
	cmds, ok := twinCommands(x, key, before, after, st, r, now)
	if !ok {
		writeValue(x, key, before, after)
		return
	}
	applyValue(x, key, before, after, nil)
	for _, c := range cmds {
		x.AlsoPropagate(c...)
	}
	if len(cmds) > 0 {
		x.Modified(key) // a SET of the same TAT is a write too
	}
}

// twinCommands are the twin's commands for the decision, ok only when
// they turn before into after exactly.
func twinCommands(x *engine.Ctx, key []byte, before, after limiter.Value, st style, r limiter.Result, now int64) (cmds [][][]byte, ok bool) {
	pexpire := func() []([]byte) { return [][]byte{engine.ArgPexpireat, key, engine.MsArg(x.Now + after.TTL)} }
	hset := func(fields ...string) bool {
		if after.Kind != limiter.Hash || after.Hash.Len() != len(fields) || after.TTL <= 0 {
			return false
		}
		args := [][]byte{engine.ArgHSet, key}
		for _, f := range fields {
			v, ok := after.Hash.Lookup(f)
			if !ok {
				return false
			}
			args = append(args, []byte(f), []byte(v))
		}
		cmds = append(cmds, args, pexpire())
		return true
	}
	// onlyFields: before holds no field the twin's HSET would leave behind.
	onlyFields := func(fields ...string) bool {
		if before.Kind == limiter.Absent {
			return true
		}
		for f := range before.Hash.All() {
			if !slices.Contains(fields, f.Name) {
				return false
			}
		}
		return before.Kind == limiter.Hash
	}
	switch st {
	case styleGCRA:
		// The SET replaces whatever was there; a TTL of 0 is DEL, as
		// writeValue propagates it.
		switch {
		case after.Kind != limiter.String || after.TTL == 0:
			return nil, false
		case after.TTL > 0:
			return [][][]byte{{engine.ArgSet, key, []byte(after.Str), engine.ArgPXAT, engine.MsArg(x.Now + after.TTL)}}, true
		}
		return [][][]byte{{engine.ArgSet, key, []byte(after.Str)}}, true
	case styleToken:
		if before.Kind != limiter.Absent {
			cmds = append(cmds, [][]byte{engine.ArgDel, key})
		}
		return cmds, hset("tokens", "ts")
	case styleSliding:
		return cmds, onlyFields("start", "cur", "prev") && hset("start", "cur", "prev")
	case styleBudget:
		return cmds, onlyFields("start", "used") && hset("start", "used")
	case styleFixed:
		var old int64
		if before.Kind != limiter.Absent {
			n, err := strconv.ParseInt(before.Str, 10, 64)
			if before.Kind != limiter.String || err != nil || strconv.FormatInt(n, 10) != before.Str {
				return nil, false
			}
			old = n
		}
		n, err := strconv.ParseInt(after.Str, 10, 64)
		if after.Kind != limiter.String || err != nil || strconv.FormatInt(n, 10) != after.Str || n <= old {
			return nil, false
		}
		cmds = append(cmds, [][]byte{argIncrByTwin, key, strconv.AppendInt(nil, n-old, 10)})
		if before.Kind == limiter.Absent || before.TTL < 0 {
			if after.TTL <= 0 {
				return nil, false
			}
			return append(cmds, pexpire()), true
		}
		return cmds, after.TTL == before.TTL
	case styleAcquire, styleRelease:
		return leaseCommands(key, before, after, st, r, now, pexpire)
	}
	return nil, false
}

// leaseCommands are concurrency.lua's: the expired leases go by
// ZREMRANGEBYSCORE, an acquired lease is ZADDed (unless held at the same
// expiry), a released one ZREMed, and the TTL is set to the last lease's
// expiry after an acquire or a release that leaves some.
func leaseCommands(key []byte, before, after limiter.Value, st style, r limiter.Result, now int64,
	pexpire func() [][]byte) (cmds [][][]byte, ok bool) {
	if before.Kind != limiter.Absent && before.Kind != limiter.ZSet || after.Kind != limiter.Absent && after.Kind != limiter.ZSet {
		return nil, false
	}
	left := map[string]float64{}
	for _, m := range before.ZSet {
		if m.Score > float64(now) {
			left[m.Member] = m.Score
		}
	}
	if len(left) < len(before.ZSet) {
		cmds = append(cmds, [][]byte{argZRemRange, key, argNegInf, strconv.AppendInt(nil, now, 10)})
	}
	want := map[string]float64{}
	for _, m := range after.ZSet {
		want[m.Member] = m.Score
	}
	ttlSet := false
	switch {
	case !r.Allowed:
	case st == styleAcquire:
		// The lease acquired is the member of after whose expiry changed
		// or that is new: at most one.
		var added []string
		for m, s := range want {
			if old, ok := left[m]; !ok || old != s {
				added = append(added, m)
			}
		}
		switch len(added) {
		case 0:
		case 1:
			left[added[0]] = want[added[0]]
			cmds = append(cmds, [][]byte{argZAdd, key, scoreArg(want[added[0]]), []byte(added[0])})
		default:
			return nil, false
		}
		ttlSet = true
	default:
		var gone []string
		for m := range left {
			if _, ok := want[m]; !ok {
				gone = append(gone, m)
			}
		}
		if len(gone) != 1 {
			return nil, false
		}
		delete(left, gone[0])
		cmds = append(cmds, [][]byte{argZRem, key, []byte(gone[0])})
		ttlSet = len(left) > 0
	}
	if !maps.Equal(left, want) {
		return nil, false
	}
	switch {
	case len(left) == 0:
		return cmds, after.Kind == limiter.Absent
	case ttlSet:
		return append(cmds, pexpire()), after.TTL > 0
	}
	return cmds, sameTTL(before, after)
}
