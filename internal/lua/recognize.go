package lua

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/third_party/gopherlua/ast"
	"github.com/limitkv/limitkv/internal/third_party/gopherlua/parse"

	"github.com/limitkv/limitkv/internal/limiter"
	"github.com/limitkv/limitkv/ratelimit/seedscript"
)

// SlidingWindowScript is the seed's sliding-window rate-limit script,
// verbatim (its SHA1 without the final newline is
// 91bc54027b375c6932fd44b714479f32d407fcba).
var SlidingWindowScript = seedscript.Source

// The names Recognise gives the scripts it knows: each is registered by
// the command family that runs it natively (engine.Command.ScriptTwins).
const (
	TwinSlidingLog         = "seed.sliding_window"      // the seed's script: RL.CHECK
	TwinRedisRateAllowN    = "redis_rate.allow_n"       // go-redis/redis_rate v10
	TwinRedisRateAllowMost = "redis_rate.allow_at_most" // go-redis/redis_rate v10
	TwinRLFConsume         = "rlf.consume"              // node-rate-limiter-flexible
)

// known are the recognised scripts' syntax trees, by twin name.
var known = []struct {
	twin string
	ast  []ast.Stmt
}{
	{TwinSlidingLog, mustParse(SlidingWindowScript)},
	{TwinRedisRateAllowN, mustParse(limiter.RedisRateAllowNScript)},
	{TwinRedisRateAllowMost, mustParse(limiter.RedisRateAllowAtMostScript)},
	{TwinRLFConsume, mustParse(limiter.RLFConsumeScript)},
}

func mustParse(src string) []ast.Stmt {
	chunk, err := parse.Parse(strings.NewReader(src), chunkName)
	if err != nil {
		panic(err)
	}
	return chunk
}

// Recognise names the native twin of chunk if it is one of the known
// scripts up to what cannot change its meaning: whitespace, comments, the
// names of its local variables, the spelling of numbers (1000, 1e3) and
// the case of command names and options ('zadd', 'ex'). It compares syntax
// trees, so any other change (an extra statement, another operator,
// redis.pcall for redis.call) makes it a different script, which the
// interpreter runs: "" is returned.
func Recognise(chunk []ast.Stmt) string {
	for _, k := range known {
		m := matcher{names: map[string]string{}, back: map[string]string{}}
		if m.same(reflect.ValueOf(k.ast), reflect.ValueOf(chunk)) {
			return k.twin
		}
	}
	return ""
}

// IsSlidingWindow reports whether chunk is the seed's sliding-window script
// (see Recognise).
func IsSlidingWindow(chunk []ast.Stmt) bool { return Recognise(chunk) == TwinSlidingLog }

// matcher compares a reference tree a with a candidate b, keeping a
// one-to-one renaming of local variables.
type matcher struct {
	names map[string]string // reference local -> candidate local
	back  map[string]string
}

var (
	positionTypes = map[reflect.Type]bool{
		reflect.TypeOf(ast.Node{}): true, reflect.TypeOf(ast.ExprBase{}): true,
		reflect.TypeOf(ast.ConstExprBase{}): true, reflect.TypeOf(ast.StmtBase{}): true,
	}
	localAssignType = reflect.TypeOf(ast.LocalAssignStmt{})
	identType       = reflect.TypeOf(ast.IdentExpr{})
	stringType      = reflect.TypeOf(ast.StringExpr{})
	numberType      = reflect.TypeOf(ast.NumberExpr{})
)

func (m *matcher) bind(ref, cand string) bool {
	if c, ok := m.names[ref]; ok {
		return c == cand
	}
	if _, taken := m.back[cand]; taken {
		return false
	}
	m.names[ref], m.back[cand] = cand, ref
	return true
}

func (m *matcher) same(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Elem().Type() != b.Elem().Type() {
			return false
		}
		return m.same(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !m.same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		switch a.Type() {
		case localAssignType:
			ra, rb := a.Interface().(ast.LocalAssignStmt), b.Interface().(ast.LocalAssignStmt)
			if len(ra.Names) != len(rb.Names) {
				return false
			}
			for i := range ra.Names {
				if !m.bind(ra.Names[i], rb.Names[i]) {
					return false
				}
			}
			return m.same(reflect.ValueOf(ra.Exprs), reflect.ValueOf(rb.Exprs))
		case identType:
			ia, ib := a.Interface().(ast.IdentExpr), b.Interface().(ast.IdentExpr)
			if c, ok := m.names[ia.Value]; ok {
				return c == ib.Value
			}
			_, shadow := m.back[ib.Value]
			return ia.Value == ib.Value && !shadow
		case stringType:
			// Command names are case-insensitive; other strings are not.
			sa, sb := a.Interface().(ast.StringExpr).Value, b.Interface().(ast.StringExpr).Value
			return sa == sb || isCommandName(sa) && strings.EqualFold(sa, sb)
		case numberType:
			na, nb := a.Interface().(ast.NumberExpr).Value, b.Interface().(ast.NumberExpr).Value
			fa, errA := strconv.ParseFloat(na, 64)
			fb, errB := strconv.ParseFloat(nb, 64)
			return na == nb || errA == nil && errB == nil && fa == fb
		}
		for i := 0; i < a.NumField(); i++ {
			if positionTypes[a.Type().Field(i).Type] {
				continue
			}
			if !m.same(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Int, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	}
	return false
}

// isCommandName: the words Redis reads without regard to case, command
// names and options, as the known scripts spell them.
func isCommandName(s string) bool {
	switch strings.ToUpper(s) {
	case "ZREMRANGEBYSCORE", "ZCARD", "ZADD", "PEXPIRE", "TIME", "GET", "SET", "EX", "NX", "INCRBY", "PTTL", "EXPIRE":
		return true
	}
	return false
}
