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

// TestHLLRandom is a randomized differential test of the HyperLogLog
// family: random PFADD batches (single elements, and batches big enough to
// cross hll-sparse-max-bytes), PFCOUNT of one and several keys, PFMERGE,
// PFDEBUG, and corruption by plain string commands (SETRANGE and APPEND
// over an HLL, SET of hand-made headers and random opcode bodies), over a
// few keys, with hll-sparse-max-bytes changing now and then. After every
// write the stored string is read back with GET, so the bytes are compared
// after each step, not only the replies. Every reply must match byte for
// byte.
//
// LIMITKV_SEED=<n> replays a run; LIMITKV_HLL_OPS=<n> changes its length.
func TestHLLRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_HLL_OPS", 4000)
	g := &hllHrGen{r: r}
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.Timeout = 10 * time.Second
		for _, cmd := range [][]string{{"FLUSHALL"}, {"CONFIG", "SET", "hll-sparse-max-bytes", "3000"}} {
			if r := c.MustDo(t, cmd...); string(r.Raw) != "+OK\r\n" {
				t.Fatalf("%v on %s: %q", cmd, c.Name, r.Raw)
			}
		}
	}
	t.Cleanup(func() { resetHLLConfig(t) })
	start := time.Now()
	for sent := 0; sent < total; {
		steps := g.chunk(100)
		rr := hllPipeline(t, rds, steps)
		lr := hllPipeline(t, lkv, steps)
		for i := range steps {
			if bytes.Equal(rr[i].Raw, lr[i].Raw) {
				continue
			}
			var ctx strings.Builder
			for j := max(0, i-12); j < i; j++ {
				fmt.Fprintf(&ctx, "    %s\n", truncate([]byte(fmtArgs(steps[j])), 300))
			}
			t.Fatalf("command %d of the run: replies differ\n  command: %s\n  redis:   %q\n  limitkv: %q\n  preceding commands:\n%s",
				sent+i+1, truncate([]byte(fmtArgs(steps[i])), 300), truncate(rr[i].Raw, 600), truncate(lr[i].Raw, 600), ctx.String())
		}
		sent += len(steps)
	}
	t.Logf("%d commands in %v", total, time.Since(start).Round(time.Millisecond))
}

func hllPipeline(t *testing.T, c *RawConn, steps [][]string) []*Reply {
	t.Helper()
	var buf bytes.Buffer
	for _, st := range steps {
		buf.Write(encodeCommand(st...))
	}
	werr := make(chan error, 1)
	go func() { werr <- c.WriteRaw(buf.Bytes()) }()
	out := make([]*Reply, len(steps))
	for i := range steps {
		r, err := c.ReadReply()
		if err != nil {
			t.Fatalf("%s: reading the reply to %s: %v", c.Name, fmtArgs(steps[i]), err)
		}
		out[i] = r
	}
	if err := <-werr; err != nil {
		t.Fatalf("%s: write: %v", c.Name, err)
	}
	return out
}

type hllHrGen struct {
	r *rand.Rand
}

var hllHrKeys = []string{"h0", "h1", "h2", "h3"}

func (g *hllHrGen) key() string { return hllHrKeys[g.r.IntN(len(hllHrKeys))] }

// elem draws from a pool large enough to fill a dense HLL but small enough
// that elements repeat.
func (g *hllHrGen) elem() string { return "e" + strconv.Itoa(g.r.IntN(30000)) }

// body is a random sparse body: mostly well-formed opcodes in random
// proportions (which may or may not cover exactly 16384 registers), or
// raw random bytes.
func (g *hllHrGen) body() string {
	var b []byte
	if g.r.IntN(4) == 0 {
		for range g.r.IntN(12) {
			b = append(b, byte(g.r.IntN(256)))
		}
		return string(b)
	}
	covered := 0
	target := 16384 + g.r.IntN(3) - 1
	for covered < target && len(b) < 600 {
		switch g.r.IntN(3) {
		case 0:
			n := 1 + g.r.IntN(64)
			b = append(b, byte(n-1))
			covered += n
		case 1:
			n := 1 + g.r.IntN(min(16384, max(1, target-covered)))
			b = append(b, byte((n-1)>>8)|0x40, byte(n-1))
			covered += n
		default:
			n := 1 + g.r.IntN(4)
			b = append(b, 0x80|byte(g.r.IntN(32))<<2|byte(n-1))
			covered += n
		}
	}
	if g.r.IntN(5) == 0 && len(b) > 0 {
		b = b[:len(b)-1] // may leave half an XZERO at the end
	}
	return string(b)
}

func (g *hllHrGen) header() string {
	enc := byte(1)
	if g.r.IntN(10) == 0 {
		enc = byte(g.r.IntN(3))
	}
	card := make([]byte, 8)
	if g.r.IntN(2) == 0 {
		for i := range card {
			card[i] = byte(g.r.IntN(256))
		}
	}
	return "HYLL" + string([]byte{enc, 0, 0, 0}) + string(card)
}

func (g *hllHrGen) chunk(n int) [][]string {
	var out [][]string
	for len(out) < n {
		k := g.key()
		switch p := g.r.IntN(100); {
		case p < 35:
			args := []string{"PFADD", k}
			cnt := g.r.IntN(4)
			if g.r.IntN(8) == 0 {
				cnt = g.r.IntN(2000)
			}
			for range cnt {
				args = append(args, g.elem())
			}
			out = append(out, args, []string{"GET", k})
		case p < 50:
			out = append(out, []string{"PFCOUNT", k}, []string{"GET", k})
		case p < 57:
			args := []string{"PFCOUNT"}
			for range 1 + g.r.IntN(4) {
				args = append(args, g.key())
			}
			out = append(out, args)
		case p < 65:
			args := []string{"PFMERGE", k}
			for range g.r.IntN(3) {
				args = append(args, g.key())
			}
			out = append(out, args, []string{"GET", k})
		case p < 71:
			sub := []string{"ENCODING", "DECODE", "TODENSE", "GETREG", "encoding", "x"}[g.r.IntN(6)]
			out = append(out, []string{"PFDEBUG", sub, k}, []string{"GET", k})
		case p < 76:
			off := 5 + g.r.IntN(40)
			if g.r.IntN(3) == 0 {
				off = g.r.IntN(12400)
			}
			out = append(out, []string{"SETRANGE", k, strconv.Itoa(off), string([]byte{byte(g.r.IntN(256))})})
		case p < 79:
			out = append(out, []string{"APPEND", k, string([]byte{byte(g.r.IntN(256))})})
		case p < 86:
			out = append(out, []string{"SET", k, g.header() + g.body()})
		case p < 89:
			out = append(out, []string{"DEL", k})
		case p < 91:
			out = append(out, []string{"OBJECT", "ENCODING", k})
		case p < 93:
			out = append(out, []string{"SET", k, "plain"})
		case p < 94:
			out = append(out, []string{"ZADD", k, "1", "a"})
		case p < 96:
			v := []string{"0", "1", "20", "100", "300", "1000", "3000", "3000", "20000"}[g.r.IntN(9)]
			out = append(out, []string{"CONFIG", "SET", "hll-sparse-max-bytes", v})
		default:
			out = append(out, []string{"STRLEN", k}, []string{"TYPE", k})
		}
	}
	return out
}
