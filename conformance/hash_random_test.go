package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHashRandom is a randomized differential test of the hash family:
// 10,000 random commands per run over a few keys, with the listpack
// thresholds lowered (16 fields, 16 bytes) so that hashes convert often,
// types clash, and keys expire. Commands go to both servers in pipelined
// chunks and every reply is compared byte for byte, except where Redis's
// answer depends on its dict order or on chance: HGETALL, HKEYS and HVALS
// of a hashtable (as multisets; the OBJECT ENCODING sent right after tells
// which), HRANDFIELD (shape and membership, against the HGETALL sent right
// after it) and HSCAN pages of a hashtable (membership). After each chunk
// a full HSCAN iteration of one key is compared as a multiset.
//
// The seed is logged on failure; LIMITKV_SEED=<n> replays a run and
// LIMITKV_HASH_OPS=<n> changes its length.
func TestHashRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_HASH_OPS", 10000)
	g := &hrGen{r: r}
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.Timeout = 10 * time.Second
		for _, cmd := range [][]string{{"FLUSHALL"}, {"CONFIG", "SET", "hash-max-listpack-entries", "16"}, {"CONFIG", "SET", "hash-max-listpack-value", "16"}} {
			if r := c.MustDo(t, cmd...); string(r.Raw) != "+OK\r\n" {
				t.Fatalf("%v on %s: %q", cmd, c.Name, r.Raw)
			}
		}
	}
	t.Cleanup(func() {
		for _, c := range []*RawConn{rds, lkv} {
			c.Do("CONFIG", "SET", "hash-max-listpack-entries", "512")
			c.Do("CONFIG", "SET", "hash-max-listpack-value", "64")
		}
	})
	start := time.Now()
	sent := 0
	for chunk := 0; sent < total; chunk++ {
		steps := g.chunk(200)
		rr := hrPipeline(t, rds, steps)
		lr := hrPipeline(t, lkv, steps)
		for i, st := range steps {
			if err := hrCompare(st, rr, lr, i); err != nil {
				from := max(0, i-15)
				var ctx strings.Builder
				for j := from; j < i; j++ {
					fmt.Fprintf(&ctx, "    %s\n", fmtArgs(steps[j].args))
				}
				t.Fatalf("chunk %d, command %d of the run: %v\n  command: %s\n  redis:   %q\n  limitkv: %q\n%s  preceding commands in the chunk:\n%s",
					chunk, sent+i+1, err, fmtArgs(st.args), truncate(rr[i].Raw, 1500), truncate(lr[i].Raw, 1500), zrFirstDiff(rr[i], lr[i]), ctx.String())
			}
		}
		sent += len(steps)
		if g.shortTTL {
			time.Sleep(30 * time.Millisecond)
		}
		hrScanCheck(t, g, rds, lkv)
	}
	t.Logf("%d commands in %v", sent, time.Since(start).Round(time.Millisecond))
}

// How a reply is compared.
const (
	hrExact    = iota
	hrTTL      // integers may differ by 1 when both are positive
	hrAll      // HGETALL/HKEYS/HVALS: exact unless the next step (OBJECT ENCODING) says hashtable
	hrRand     // HRANDFIELD: the next step is the companion HGETALL
	hrScanPage // HSCAN page: exact if both cursors are 0, else membership; next step HGETALL
)

type hrStep struct {
	args       []string
	cmp        int
	pairs      int // hrAll: elements per entry (2 for HGETALL)
	count      int64
	hasCount   bool
	withValues bool
}

type hrGen struct {
	r        *rand.Rand
	steps    []hrStep
	volatile map[string]bool
	shortTTL bool
}

var hrKeys = []string{"h0", "h1", "h2", "h3", "h4"}

func (g *hrGen) chunk(n int) []hrStep {
	g.steps = g.steps[:0]
	g.volatile = map[string]bool{}
	g.shortTTL = false
	for len(g.steps) < n {
		g.op()
	}
	return append([]hrStep(nil), g.steps...)
}

func (g *hrGen) add(cmp int, args ...string) *hrStep {
	g.steps = append(g.steps, hrStep{args: args, cmp: cmp})
	return &g.steps[len(g.steps)-1]
}

func (g *hrGen) pct(p int) bool { return g.r.IntN(100) < p }

func (g *hrGen) key() string {
	for range 20 {
		if k := hrKeys[g.r.IntN(len(hrKeys))]; !g.volatile[k] {
			return k
		}
	}
	return "hspare" + strconv.Itoa(g.r.IntN(3))
}

func (g *hrGen) field() string {
	switch g.r.IntN(10) {
	case 0:
		return strconv.Itoa(g.r.IntN(40) - 5)
	case 1:
		return strings.Repeat("F", 14+g.r.IntN(5)) // around the 16-byte limit
	case 2:
		return ""
	case 3:
		return "0" + strconv.Itoa(g.r.IntN(10))
	}
	return "f" + strconv.Itoa(g.r.IntN(30))
}

var hrValues = []string{"0", "-0", "1", "-1", "007", "1.5", "0.1", "1e3", "abc", "", " 1", "9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "inf", "3.0", "0x10", "12345678901234567"}

func (g *hrGen) value() string {
	switch g.r.IntN(4) {
	case 0:
		return hrValues[g.r.IntN(len(hrValues))]
	case 1:
		return strconv.Itoa(g.r.IntN(2000) - 1000)
	case 2:
		return strings.Repeat("v", g.r.IntN(20))
	}
	return strconv.FormatInt(1700000000000+g.r.Int64N(100000), 10)
}

func (g *hrGen) fields(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.field()
	}
	return out
}

var hrIncrs = []string{"1", "-1", "0", "100", "9223372036854775807", "-9223372036854775808", "x", "1.5", "", "+1"}
var hrFloatIncrs = []string{"1", "-1.5", "0", "0.1", "1e10", "-1e10", "inf", "nan", "x", "1e308", "5e-324", "0x1p3"}

func (g *hrGen) op() {
	k := g.key()
	switch n := g.r.IntN(100); {
	case n < 22:
		args := []string{"HSET", k}
		if g.pct(20) {
			args[0] = "HMSET"
		}
		pairs := 1 + g.r.IntN(4)
		if g.pct(5) {
			pairs = 10 + g.r.IntN(10)
		}
		for range pairs {
			args = append(args, g.field(), g.value())
		}
		if g.pct(3) {
			args = args[:len(args)-1] // odd: the arity error
		}
		g.add(hrExact, args...)
	case n < 27:
		g.add(hrExact, "HSETNX", k, g.field(), g.value())
	case n < 35:
		g.add(hrExact, append([]string{"HDEL", k}, g.fields(1+g.r.IntN(3))...)...)
	case n < 43:
		g.add(hrExact, "HGET", k, g.field())
	case n < 47:
		g.add(hrExact, append([]string{"HMGET", k}, g.fields(1+g.r.IntN(4))...)...)
	case n < 50:
		g.add(hrExact, "HLEN", k)
	case n < 52:
		g.add(hrExact, "HSTRLEN", k, g.field())
	case n < 54:
		g.add(hrExact, "HEXISTS", k, g.field())
	case n < 62:
		g.add(hrExact, "HINCRBY", k, g.field(), hrIncrs[g.r.IntN(len(hrIncrs))])
	case n < 68:
		g.add(hrExact, "HINCRBYFLOAT", k, g.field(), hrFloatIncrs[g.r.IntN(len(hrFloatIncrs))])
	case n < 74:
		cmd := []string{"HGETALL", "HKEYS", "HVALS"}[g.r.IntN(3)]
		st := g.add(hrAll, cmd, k)
		st.pairs = 1
		if cmd == "HGETALL" {
			st.pairs = 2
		}
		g.add(hrExact, "OBJECT", "ENCODING", k)
	case n < 80:
		g.hrand(k)
	case n < 84:
		args := []string{"HSCAN", k, "0"}
		if g.pct(50) {
			args = append(args, "COUNT", strconv.Itoa(1+g.r.IntN(10)))
		}
		if g.pct(30) {
			args = append(args, "MATCH", "*1*")
		}
		g.add(hrScanPage, args...)
		g.add(hrAll, "HGETALL", k).pairs = 2
		g.add(hrExact, "OBJECT", "ENCODING", k)
	case n < 87:
		g.add(hrExact, "OBJECT", "ENCODING", k)
	default:
		g.generic(k)
	}
}

func (g *hrGen) hrand(k string) {
	args := []string{"HRANDFIELD", k}
	st := hrStep{cmp: hrRand}
	if g.pct(80) {
		c := int64(g.r.IntN(25)) - 8
		if g.pct(5) {
			c = []int64{0, 1, -1, 1000, -1000}[g.r.IntN(5)]
		}
		st.count, st.hasCount = c, true
		args = append(args, strconv.FormatInt(c, 10))
		if g.pct(50) {
			args = append(args, "WITHVALUES")
			st.withValues = true
		}
	}
	st.args = args
	g.steps = append(g.steps, st)
	g.add(hrAll, "HGETALL", k).pairs = 2
	g.add(hrExact, "OBJECT", "ENCODING", k)
}

func (g *hrGen) generic(k string) {
	switch g.r.IntN(9) {
	case 0:
		g.add(hrExact, "DEL", k)
	case 1:
		g.add(hrExact, "SET", k, "str")
	case 2:
		g.add(hrExact, "EXPIRE", k, "100")
		g.add(hrTTL, "TTL", k)
	case 3:
		if g.pct(30) {
			g.add(hrExact, "PEXPIRE", k, "5")
			g.volatile[k] = true
			g.shortTTL = true
		} else {
			g.add(hrTTL, "TTL", k)
		}
	case 4:
		g.add(hrExact, "TYPE", k)
	case 5:
		g.add(hrExact, "COPY", k, g.key(), "REPLACE")
	case 6:
		g.add(hrExact, "RENAME", k, g.key())
	case 7:
		g.add(hrExact, "EXISTS", k)
	default:
		g.add(hrExact, "PERSIST", k)
	}
}

func hrPipeline(t *testing.T, c *RawConn, steps []hrStep) []*Reply {
	zs := make([]zrStep, len(steps))
	for i, st := range steps {
		zs[i].args = st.args
	}
	return zrPipeline(t, c, zs)
}

func hrCompare(st hrStep, rr, lr []*Reply, i int) error {
	rds, lkv := rr[i], lr[i]
	if bytes.Equal(rds.Raw, lkv.Raw) {
		if st.cmp == hrRand && st.hasCount && st.count > 1 && rds.Type == '*' && len(rds.Elems) > 0 {
			return hrCheckRand(st, rds, lkv, rr[i+1]) // also checks distinctness
		}
		return nil
	}
	if rds.IsError() || lkv.IsError() || rds.Type != lkv.Type {
		return fmt.Errorf("replies differ")
	}
	switch st.cmp {
	case hrTTL:
		if rds.Type == ':' && rds.Int >= 0 && lkv.Int >= 0 && rds.Int-lkv.Int <= 1 && lkv.Int-rds.Int <= 1 {
			return nil
		}
	case hrAll:
		if enc := rr[i+1]; enc.Str != "hashtable" {
			return fmt.Errorf("a %q hash must come in Redis's order", enc.Str)
		}
		if err := sameMultiset(rawElems(rds.Elems, st.pairs), rawElems(lkv.Elems, st.pairs)); err != nil {
			return fmt.Errorf("hashtable contents differ: %v", err)
		}
		return nil
	case hrRand:
		return hrCheckRand(st, rds, lkv, rr[i+1])
	case hrScanPage:
		return hrCheckScanPage(rds, lkv, rr[i+1])
	}
	return fmt.Errorf("replies differ")
}

func hrPairsOf(all *Reply) (map[string]string, error) {
	if all == nil || all.Type != '*' || len(all.Elems)%2 != 0 {
		return nil, fmt.Errorf("companion HGETALL reply unusable: %q", all.Raw)
	}
	m := map[string]string{}
	for i := 0; i < len(all.Elems); i += 2 {
		m[all.Elems[i].Str] = all.Elems[i+1].Str
	}
	return m, nil
}

func hrCheckRand(st hrStep, rds, lkv, all *Reply) error {
	h, err := hrPairsOf(all)
	if err != nil {
		return err
	}
	if rds.Null != lkv.Null {
		return fmt.Errorf("null-ness differs")
	}
	if !st.hasCount {
		if _, ok := h[lkv.Str]; !ok && !lkv.Null {
			return fmt.Errorf("%q is not a field", lkv.Str)
		}
		return nil
	}
	if len(rds.Elems) != len(lkv.Elems) {
		return fmt.Errorf("%d elements vs %d", len(rds.Elems), len(lkv.Elems))
	}
	step := 1
	if st.withValues {
		step = 2
	}
	seen := map[string]bool{}
	for i := 0; i+step <= len(lkv.Elems); i += step {
		f := lkv.Elems[i].Str
		v, ok := h[f]
		if !ok {
			return fmt.Errorf("%q is not a field", f)
		}
		if st.withValues && lkv.Elems[i+1].Str != v {
			return fmt.Errorf("%q has value %q, not %q", f, lkv.Elems[i+1].Str, v)
		}
		if st.count > 0 && seen[f] {
			return fmt.Errorf("%q repeated", f)
		}
		seen[f] = true
	}
	return nil
}

func hrCheckScanPage(rds, lkv, all *Reply) error {
	h, err := hrPairsOf(all)
	if err != nil {
		return err
	}
	if len(rds.Elems) != 2 || len(lkv.Elems) != 2 {
		return fmt.Errorf("not HSCAN replies")
	}
	if rds.Elems[0].Str == "0" && lkv.Elems[0].Str == "0" {
		if err := sameMultiset(rawElems(rds.Elems[1].Elems, 2), rawElems(lkv.Elems[1].Elems, 2)); err != nil {
			return fmt.Errorf("complete iterations differ: %v", err)
		}
		return nil
	}
	page := lkv.Elems[1].Elems
	for i := 0; i+1 < len(page); i += 2 {
		if v, ok := h[page[i].Str]; !ok || v != page[i+1].Str {
			return fmt.Errorf("%q=%q is not in the hash", page[i].Str, page[i+1].Str)
		}
	}
	return nil
}

// hrScanCheck iterates one key with HSCAN on both servers and compares
// what was gathered (fields are unique in a hash, so a field returned
// twice by the cursor is deduplicated, as clients must).
func hrScanCheck(t *testing.T, g *hrGen, rds, lkv *RawConn) {
	t.Helper()
	k := g.key()
	var extra []string
	if g.pct(50) {
		extra = append(extra, "COUNT", strconv.Itoa(1+g.r.IntN(20)))
	}
	if g.pct(30) {
		extra = append(extra, "MATCH", "*1*")
	}
	scan := func(c *RawConn) ([]string, string) {
		got := map[string]bool{}
		cursor := "0"
		for range 100000 {
			r := c.MustDo(t, append([]string{"HSCAN", k, cursor}, extra...)...)
			if r.IsError() || len(r.Elems) != 2 {
				return nil, string(r.Raw)
			}
			cursor = r.Elems[0].Str
			for i := 0; i+1 < len(r.Elems[1].Elems); i += 2 {
				got[fmt.Sprintf("%q=%q", r.Elems[1].Elems[i].Str, r.Elems[1].Elems[i+1].Str)] = true
			}
			if cursor == "0" {
				break
			}
		}
		var out []string
		for s := range got {
			out = append(out, s)
		}
		sort.Strings(out)
		return out, ""
	}
	want, werr := scan(rds)
	got, gerr := scan(lkv)
	if werr != gerr || strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("full HSCAN %s %v differs:\n  redis:   %v %s\n  limitkv: %v %s", k, extra, want, werr, got, gerr)
	}
}
