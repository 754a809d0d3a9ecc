package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBitopsRandom is a randomized differential test of the bitmap family:
// random SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO,
// SETRANGE, APPEND, LCS and plain string writes over four string keys and a
// sorted set (for WRONGTYPE), with offsets and ranges drawn around the
// strings' edges, negative ones and a few invalid ones. Every reply is
// compared byte for byte, OBJECT ENCODING included; after each chunk every
// key's value is compared.
//
// The seed is logged on failure; LIMITKV_SEED=<n> replays a run and
// LIMITKV_BITOPS_OPS=<n> changes its length.
func TestBitopsRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_BITOPS_OPS", 10000)
	g := &brGen{r: r}
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.Timeout = 10 * time.Second
		if r := c.MustDo(t, "FLUSHALL"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("FLUSHALL on %s: %q", c.Name, r.Raw)
		}
	}
	start := time.Now()
	sent := 0
	for chunk := 0; sent < total; chunk++ {
		steps := g.chunk(200)
		for _, k := range brKeys {
			steps = append(steps, zrStep{args: []string{"GET", k}})
		}
		rr := zrPipeline(t, rds, steps)
		lr := zrPipeline(t, lkv, steps)
		for i, st := range steps {
			if bytes.Equal(rr[i].Raw, lr[i].Raw) {
				continue
			}
			var ctx strings.Builder
			for j := max(0, i-15); j < i; j++ {
				fmt.Fprintf(&ctx, "    %s\n", fmtArgs(steps[j].args))
			}
			t.Fatalf("chunk %d, command %d of the run: replies differ\n  command: %s\n  redis:   %q\n  limitkv: %q\n  preceding commands in the chunk:\n%s",
				chunk, sent+i+1, fmtArgs(st.args), truncate(rr[i].Raw, 1500), truncate(lr[i].Raw, 1500), ctx.String())
		}
		sent += len(steps)
	}
	t.Logf("%d commands in %v", sent, time.Since(start).Round(time.Millisecond))
}

var brKeys = []string{"b0", "b1", "b2", "b3"}

// brGen makes the commands; it never looks at replies, so a seed replays
// the same run. Bit offsets stay below brMaxBit so strings stay short
// enough for LCS and for a long run.
type brGen struct {
	r     *rand.Rand
	steps []zrStep
}

const brMaxBit = 3000

func (g *brGen) chunk(n int) []zrStep {
	g.steps = g.steps[:0]
	for len(g.steps) < n {
		g.op()
	}
	return append([]zrStep(nil), g.steps...)
}

func (g *brGen) add(args ...string) { g.steps = append(g.steps, zrStep{args: args}) }

func (g *brGen) pct(p int) bool { return g.r.IntN(100) < p }

func (g *brGen) key() string {
	if g.pct(4) {
		return "z" // a sorted set, or missing
	}
	if g.pct(3) {
		return "nokey"
	}
	return brKeys[g.r.IntN(len(brKeys))]
}

// bitOffset is mostly a valid offset, small or up to brMaxBit.
func (g *brGen) bitOffset() string {
	switch {
	case g.pct(2):
		return []string{"-1", "x", "4294967296", ""}[g.r.IntN(4)]
	case g.pct(50):
		return strconv.Itoa(g.r.IntN(64))
	}
	return strconv.Itoa(g.r.IntN(brMaxBit))
}

// index is a range index around the strings' sizes, in bytes or bits.
func (g *brGen) index(bits bool) string {
	n := 40
	if bits {
		n = 320
	}
	switch {
	case g.pct(2):
		return "x"
	case g.pct(5):
		return []string{"9223372036854775807", "-9223372036854775808"}[g.r.IntN(2)]
	case g.pct(30):
		return strconv.Itoa(-g.r.IntN(n) - 1)
	}
	return strconv.Itoa(g.r.IntN(n))
}

func (g *brGen) unit() (string, bool) {
	switch g.r.IntN(7) {
	case 0, 1, 2:
		return "BIT", true
	case 3:
		return "byte", false
	case 4:
		return "bytes", false
	}
	return "BYTE", false
}

func (g *brGen) value() string {
	switch g.r.IntN(6) {
	case 0:
		return strconv.Itoa(g.r.IntN(20000) - 100)
	case 1:
		return ""
	case 2:
		b := make([]byte, g.r.IntN(6))
		for i := range b {
			b[i] = []byte{0, 0xff, 0x0f, 0xf0, 'a'}[g.r.IntN(5)]
		}
		return string(b)
	}
	return strings.Repeat(string(rune('a'+g.r.IntN(26))), 1+g.r.IntN(8))
}

func (g *brGen) fieldType() string {
	switch {
	case g.pct(2):
		return []string{"u64", "i65", "i0", "x8"}[g.r.IntN(4)]
	case g.pct(50):
		return "i" + strconv.Itoa(1+g.r.IntN(64))
	}
	return "u" + strconv.Itoa(1+g.r.IntN(63))
}

func (g *brGen) fieldValue() string {
	switch g.r.IntN(6) {
	case 0:
		return []string{"9223372036854775807", "-9223372036854775808", "0", "-1"}[g.r.IntN(4)]
	case 1:
		return strconv.FormatInt(int64(g.r.Uint64()), 10)
	case 2:
		return strconv.Itoa(g.r.IntN(600) - 300)
	}
	return strconv.Itoa(g.r.IntN(20) - 10)
}

func (g *brGen) op() {
	k := g.key()
	switch n := g.r.IntN(100); {
	case n < 18:
		g.add("SETBIT", k, g.bitOffset(), []string{"0", "1", "1", "0", "2"}[g.r.IntN(5)])
	case n < 25:
		g.add("GETBIT", k, g.bitOffset())
	case n < 35:
		args := []string{"BITCOUNT", k}
		if g.pct(80) {
			u, bits := g.unit()
			args = append(args, g.index(bits), g.index(bits))
			if g.pct(60) {
				args = append(args, u)
			}
		} else if g.pct(30) {
			args = append(args, g.index(false))
		}
		g.add(args...)
	case n < 47:
		bit := []string{"0", "1", "0", "1", "2"}[g.r.IntN(5)]
		args := []string{"BITPOS", k, bit}
		u, bits := g.unit()
		switch g.r.IntN(4) {
		case 1:
			args = append(args, g.index(false))
		case 2:
			args = append(args, g.index(false), g.index(false))
		case 3:
			args = append(args, g.index(bits), g.index(bits), u)
		}
		g.add(args...)
	case n < 55:
		op := []string{"AND", "OR", "XOR", "NOT", "and", "nand"}[g.r.IntN(6)]
		args := []string{"BITOP", op, g.key()}
		srcs := 1 + g.r.IntN(3)
		if op == "NOT" && g.pct(90) {
			srcs = 1
		}
		for range srcs {
			args = append(args, g.key())
		}
		g.add(args...)
	case n < 70:
		g.bitfield(k, "BITFIELD")
	case n < 73:
		g.bitfield(k, "BITFIELD_RO")
	case n < 80:
		off := strconv.Itoa(g.r.IntN(brMaxBit / 8))
		if g.pct(3) {
			off = "-1"
		}
		g.add("SETRANGE", k, off, g.value())
	case n < 85:
		g.add("APPEND", k, g.value())
	case n < 88:
		g.add("SET", k, g.value())
	case n < 90:
		g.add("DEL", k)
	case n < 92:
		args := []string{"LCS", g.key(), g.key()}
		switch g.r.IntN(4) {
		case 1:
			args = append(args, "LEN")
		case 2:
			args = append(args, "IDX", "MINMATCHLEN", strconv.Itoa(g.r.IntN(4)), "WITHMATCHLEN")
		case 3:
			args = append(args, "IDX")
		}
		g.add(args...)
	case n < 94:
		g.add("ZADD", "z", "1", "m")
	case n < 97:
		g.add("OBJECT", "ENCODING", k)
	default:
		g.add("STRLEN", k)
	}
}

func (g *brGen) bitfield(k, cmd string) {
	args := []string{cmd, k}
	for range g.r.IntN(6) {
		switch g.r.IntN(10) {
		case 0, 1, 2:
			args = append(args, "GET", g.fieldType(), g.fieldOffset())
		case 3, 4, 5:
			args = append(args, "SET", g.fieldType(), g.fieldOffset(), g.fieldValue())
		case 6, 7, 8:
			args = append(args, "INCRBY", g.fieldType(), g.fieldOffset(), g.fieldValue())
		default:
			args = append(args, "OVERFLOW", []string{"WRAP", "SAT", "FAIL", "sat", "bad"}[g.r.IntN(5)])
		}
	}
	g.add(args...)
}

func (g *brGen) fieldOffset() string {
	if g.pct(20) {
		return "#" + strconv.Itoa(g.r.IntN(40))
	}
	return g.bitOffset()
}
