package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSetRandom is a randomized differential test of the set family: about
// 10,000 random commands per run over a few keys, so that keys collide,
// types clash (SET on a set, SADD on a string), sets pass
// set-max-intset-entries (changed now and then between 4, 20 and 512)
// and convert, and computed results are stored over sources. Every reply
// is compared byte for byte, except where the order cannot match: a
// hash table's members (compared as multisets; an intset's SMEMBERS is
// compared exactly, after its OBJECT ENCODING), SRANDMEMBER (shape and
// membership, against an SMEMBERS sent right after it). SPOP is only sent
// where its result does not depend on chance (whole set, count 0, single
// member), so that both servers keep the same state. After each chunk a
// full SSCAN iteration of one key is compared with its SMEMBERS.
//
// The seed is logged on failure; LIMITKV_SEED=<n> replays a run and
// LIMITKV_SET_OPS=<n> changes its length.
func TestSetRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_SET_OPS", 10000)
	g := &srGen{r: r}
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.Timeout = 10 * time.Second
		if r := c.MustDo(t, "FLUSHALL"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("FLUSHALL on %s: %q", c.Name, r.Raw)
		}
	}
	t.Cleanup(func() {
		for _, c := range []*RawConn{rds, lkv} {
			c.Do("CONFIG", "SET", "set-max-intset-entries", "512")
		}
	})
	start := time.Now()
	sent := 0
	for chunk := 0; sent < total; chunk++ {
		steps := g.chunk(200)
		rr := srPipeline(t, rds, steps)
		lr := srPipeline(t, lkv, steps)
		for i, st := range steps {
			var err error
			switch st.cmp {
			case srIntsetOrder:
				// OBJECT ENCODING came right before.
				exact := string(rr[i-1].Raw) == "$6\r\nintset\r\n" && string(lr[i-1].Raw) == "$6\r\nintset\r\n"
				err = srCompare(st, rr[i], lr[i], exact)
			case srRand:
				err = srRandCheck(st, rr[i], lr[i], rr[i+1], lr[i+1])
			default:
				err = srCompare(st, rr[i], lr[i], st.cmp == srExact)
			}
			if err != nil {
				from := max(0, i-15)
				var ctx strings.Builder
				for j := from; j < i; j++ {
					fmt.Fprintf(&ctx, "    %s\n", fmtArgs(steps[j].args))
				}
				t.Fatalf("chunk %d, command %d of the run: %v\n  command: %s\n  redis:   %q\n  limitkv: %q\n  preceding commands in the chunk:\n%s",
					chunk, sent+i+1, err, fmtArgs(st.args), truncate(rr[i].Raw, 1500), truncate(lr[i].Raw, 1500), ctx.String())
			}
		}
		sent += len(steps)
		srScanCheck(t, g.key(), rds, lkv, 1+g.r.IntN(20))
	}
	t.Logf("%d commands in %v", sent, time.Since(start).Round(time.Millisecond))
}

// How a reply is compared.
const (
	srExact       = iota
	srMultiset    // array elements as a multiset (hash-table order)
	srIntsetOrder // SMEMBERS: exact if the OBJECT ENCODING before it said intset on both
	srRand        // SRANDMEMBER: shape and membership; the next step is SMEMBERS of the key
	srTTL         // integers may differ by 1
)

type srStep struct {
	args  []string
	cmp   int
	count int64 // SRANDMEMBER count; 0: none given
}

type srGen struct {
	r     *rand.Rand
	steps []srStep
}

var srKeys = []string{"s0", "s1", "s2", "s3", "s4", "str"}

func (g *srGen) key() string { return srKeys[g.r.IntN(len(srKeys))] }

func (g *srGen) member() string {
	switch g.r.IntN(10) {
	case 0, 1, 2, 3, 4:
		return strconv.Itoa(g.r.IntN(40) - 10)
	case 5:
		return []string{"70000", "-70000", "5000000000", "-9223372036854775808", "9223372036854775807"}[g.r.IntN(5)]
	case 6:
		return []string{"01", "-0", "+1", " 1", "1.0", "9223372036854775808", ""}[g.r.IntN(7)]
	}
	return string(rune('a' + g.r.IntN(12)))
}

func (g *srGen) members(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.member()
	}
	return out
}

func (g *srGen) add(cmp int, args ...string) { g.steps = append(g.steps, srStep{args: args, cmp: cmp}) }

func (g *srGen) keys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.key()
	}
	return out
}

func (g *srGen) smembers(k string) {
	g.add(srExact, "OBJECT", "ENCODING", k)
	g.add(srIntsetOrder, "SMEMBERS", k)
}

func (g *srGen) chunk(n int) []srStep {
	g.steps = g.steps[:0]
	r := g.r
	for len(g.steps) < n {
		k := g.key()
		switch r.IntN(30) {
		case 0, 1, 2, 3, 4, 5:
			g.add(srExact, append([]string{"SADD", k}, g.members(1+r.IntN(8))...)...)
		case 6, 7:
			g.add(srExact, append([]string{"SREM", k}, g.members(1+r.IntN(4))...)...)
		case 8:
			g.add(srExact, "SCARD", k)
		case 9:
			g.add(srExact, "SISMEMBER", k, g.member())
		case 10:
			g.add(srExact, append([]string{"SMISMEMBER", k}, g.members(1+r.IntN(4))...)...)
		case 11, 12:
			g.smembers(k)
		case 13:
			var count int64
			args := []string{"SRANDMEMBER", k}
			switch r.IntN(4) {
			case 0:
			case 1:
				count = int64(r.IntN(30) - 15)
			default:
				count = int64(r.IntN(10) + 1)
			}
			if count != 0 || r.IntN(2) == 0 {
				args = append(args, strconv.FormatInt(count, 10))
			}
			if len(args) == 2 {
				count = 0
			}
			g.steps = append(g.steps, srStep{args: args, cmp: srRand, count: count})
			g.add(srMultiset, "SMEMBERS", k)
		case 14:
			// Deterministic pops only.
			switch r.IntN(3) {
			case 0:
				g.add(srExact, "SPOP", k, "0")
			case 1:
				g.add(srMultiset, "SPOP", k, "100000")
			default:
				g.add(srExact, "SPOP", "nokey")
			}
		case 15:
			g.add(srExact, "SMOVE", k, g.key(), g.member())
		case 16, 17:
			op := []string{"SINTER", "SUNION", "SDIFF"}[r.IntN(3)]
			g.add(srMultiset, append([]string{op}, g.keys(1+r.IntN(3))...)...)
		case 18, 19:
			op := []string{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}[r.IntN(3)]
			dst := g.key()
			g.add(srExact, append([]string{op, dst}, g.keys(1+r.IntN(3))...)...)
			g.smembers(dst)
		case 20:
			ks := g.keys(1 + r.IntN(3))
			args := append([]string{"SINTERCARD", strconv.Itoa(len(ks))}, ks...)
			if r.IntN(2) == 0 {
				args = append(args, "LIMIT", strconv.Itoa(r.IntN(4)))
			}
			g.add(srExact, args...)
		case 21:
			g.add(srExact, "OBJECT", "ENCODING", k)
		case 22:
			switch r.IntN(4) {
			case 0:
				g.add(srExact, "SET", k, g.member())
			case 1:
				g.add(srExact, "DEL", k)
			case 2:
				g.add(srExact, "EXPIRE", k, "100")
				g.add(srTTL, "TTL", k)
			default:
				g.add(srExact, "COPY", k, g.key(), "REPLACE")
			}
		case 23:
			g.add(srExact, "TYPE", k)
		case 24:
			if r.IntN(8) == 0 {
				g.add(srExact, "CONFIG", "SET", "set-max-intset-entries", []string{"4", "20", "512"}[r.IntN(3)])
			} else {
				g.add(srExact, append([]string{"SADD", k}, srRange(r.IntN(30), 10+r.IntN(20))...)...)
			}
		case 25:
			g.add(srExact, "SSCAN", k, "x")
		default:
			g.add(srTTL, "TTL", k)
		}
	}
	return g.steps
}

func srRange(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(from + i)
	}
	return out
}

func srPipeline(t *testing.T, c *RawConn, steps []srStep) []*Reply {
	t.Helper()
	var buf bytes.Buffer
	for _, st := range steps {
		buf.Write(encodeCommand(st.args...))
	}
	werr := make(chan error, 1)
	go func() { werr <- c.WriteRaw(buf.Bytes()) }()
	out := make([]*Reply, len(steps))
	for i := range steps {
		r, err := c.ReadReply()
		if err != nil {
			t.Fatalf("%s: reading the reply to %s: %v", c.Name, fmtArgs(steps[i].args), err)
		}
		out[i] = r
	}
	if err := <-werr; err != nil {
		t.Fatalf("%s: write: %v", c.Name, err)
	}
	return out
}

func srElems(r *Reply) []string {
	out := make([]string, 0, len(r.Elems))
	for _, e := range r.Elems {
		out = append(out, string(e.Raw))
	}
	slices.Sort(out)
	return out
}

func srCompare(st srStep, rds, lkv *Reply, exact bool) error {
	if bytes.Equal(rds.Raw, lkv.Raw) {
		return nil
	}
	if exact || rds.IsError() || lkv.IsError() || rds.Type != lkv.Type {
		return fmt.Errorf("replies differ")
	}
	switch {
	case st.cmp == srTTL && rds.Type == ':':
		if rds.Int >= 0 && lkv.Int >= 0 && max(rds.Int, lkv.Int)-min(rds.Int, lkv.Int) <= 1 {
			return nil
		}
	case rds.Type == '*' && st.cmp != srTTL:
		if slices.Equal(srElems(rds), srElems(lkv)) {
			return nil
		}
		return fmt.Errorf("members differ")
	}
	return fmt.Errorf("replies differ")
}

// srRandCheck checks SRANDMEMBER on each server against that server's
// SMEMBERS of the key, sent right after it.
func srRandCheck(st srStep, rds, lkv, rdsAll, lkvAll *Reply) error {
	if bytes.Equal(rds.Raw, lkv.Raw) && (rds.IsError() || rds.Null || (rds.Type == '*' && len(rds.Elems) == 0)) {
		return nil
	}
	if rds.IsError() || lkv.IsError() || rds.Type != lkv.Type || rds.Null != lkv.Null {
		return fmt.Errorf("replies differ")
	}
	for _, p := range []struct{ r, all *Reply }{{rds, rdsAll}, {lkv, lkvAll}} {
		members := map[string]bool{}
		for _, e := range p.all.Elems {
			members[e.Str] = true
		}
		if p.r.Type == '$' {
			if !members[p.r.Str] {
				return fmt.Errorf("%q is not a member", p.r.Str)
			}
			continue
		}
		want := int(st.count)
		if want < 0 {
			want = -want
		} else {
			want = min(want, len(members))
		}
		if len(p.r.Elems) != want {
			return fmt.Errorf("%d elements, want %d", len(p.r.Elems), want)
		}
		seen := map[string]bool{}
		for _, e := range p.r.Elems {
			if !members[e.Str] {
				return fmt.Errorf("%q is not a member", e.Str)
			}
			if st.count > 0 && seen[e.Str] {
				return fmt.Errorf("%q twice for a positive count", e.Str)
			}
			seen[e.Str] = true
		}
	}
	return nil
}

// srScanCheck iterates SSCAN over key on each server and compares the
// members returned (deduplicated) with its SMEMBERS.
func srScanCheck(t *testing.T, key string, rds, lkv *RawConn, count int) {
	t.Helper()
	var got [2][]string
	for i, c := range []*RawConn{rds, lkv} {
		seen := map[string]bool{}
		cursor := "0"
		for n := 0; ; n++ {
			r := c.MustDo(t, "SSCAN", key, cursor, "COUNT", strconv.Itoa(count))
			if r.IsError() {
				got[i] = []string{r.Str}
				break
			}
			if len(r.Elems) != 2 {
				t.Fatalf("%s: SSCAN %s: %q", c.Name, key, r.Raw)
			}
			for _, e := range r.Elems[1].Elems {
				seen[e.Str] = true
			}
			cursor = r.Elems[0].Str
			if cursor == "0" {
				break
			}
			if n > 10000 {
				t.Fatalf("%s: SSCAN %s does not end", c.Name, key)
			}
		}
		if got[i] == nil {
			all := c.MustDo(t, "SMEMBERS", key)
			for _, e := range all.Elems {
				if !seen[e.Str] {
					t.Fatalf("%s: SSCAN of %s missed %q", c.Name, key, e.Str)
				}
				got[i] = append(got[i], e.Str)
			}
			if len(seen) != len(all.Elems) {
				t.Fatalf("%s: SSCAN of %s returned %d members, SMEMBERS %d", c.Name, key, len(seen), len(all.Elems))
			}
			slices.Sort(got[i])
		}
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("SSCAN of %s: redis %q, limitkv %q", key, got[0], got[1])
	}
}
