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

// TestListRandom is a randomized differential test of the list family:
// random commands over a small key space (so that keys collide, types
// clash, lists grow over many nodes and empty again, and keys expire), sent
// to both servers in pipelined chunks and compared byte for byte (TTL within
// 1 s). Each chunk may start with a blocking pop or move from a second
// connection, which the chunk's writes (or a final push to its own key)
// wake: its reply must match too, which checks the order in which blocked
// clients are served and which key serves them.
//
// The seed is logged on failure; LIMITKV_SEED=<n> replays a run and
// LIMITKV_LIST_OPS=<n> changes its length.
func TestListRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_LIST_OPS", 8000)
	g := &lrGen{r: r}
	rds, lkv := dialPair(t)
	rdsB, lkvB := dialPair(t)
	for _, c := range []*RawConn{rds, lkv, rdsB, lkvB} {
		c.Timeout = 10 * time.Second
	}
	for _, c := range []*RawConn{rds, lkv} {
		if r := c.MustDo(t, "FLUSHALL"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("FLUSHALL on %s: %q", c.Name, r.Raw)
		}
		c.MustDo(t, "CONFIG", "SET", "list-max-listpack-size", "-2")
	}
	defer func() {
		for _, c := range []*RawConn{rds, lkv} {
			c.MustDo(t, "CONFIG", "SET", "list-max-listpack-size", "-2")
		}
	}()
	sent := 0
	for chunk := 0; sent < total; chunk++ {
		var blocker []string
		if g.r.IntN(3) == 0 {
			blocker = g.blocking()
			for _, c := range []*RawConn{rdsB, lkvB} {
				if err := c.Send(blocker...); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(15 * time.Millisecond) // both servers register the waiter
		}
		steps := g.chunk(150)
		if blocker != nil {
			// Its own key guarantees a wake-up if the chunk gave none.
			steps = append(steps, []string{"RPUSH", "w", "wake"}, []string{"DEL", "w"})
		}
		if g.r.IntN(10) == 0 {
			steps = append(steps, []string{"CONFIG", "SET", "list-max-listpack-size", []string{"-1", "-2", "3", "1", "128"}[g.r.IntN(5)]})
		}
		shortTTL := g.r.IntN(8) == 0
		if shortTTL {
			// A few milliseconds to live, last in the chunk: the test sleeps
			// past the deadline before the next chunk.
			steps = append(steps, []string{"PEXPIRE", g.key(), strconv.Itoa(1 + g.r.IntN(5))})
		}
		rr := lrPipeline(t, rds, steps)
		lr := lrPipeline(t, lkv, steps)
		for i, st := range steps {
			if err := lrCompare(st, rr[i], lr[i]); err != nil {
				var ctx strings.Builder
				for j := max(0, i-15); j < i; j++ {
					fmt.Fprintf(&ctx, "    %s\n", fmtArgs(steps[j]))
				}
				t.Fatalf("chunk %d, command %d of the run: %v\n  command: %s\n  redis:   %q\n  limitkv: %q\n  preceding commands in the chunk:\n%s",
					chunk, sent+i+1, err, fmtArgs(st), truncate(rr[i].Raw, 1500), truncate(lr[i].Raw, 1500), ctx.String())
			}
		}
		if blocker != nil {
			rb, err1 := rdsB.ReadReply()
			lb, err2 := lkvB.ReadReply()
			if err1 != nil || err2 != nil {
				t.Fatalf("chunk %d: blocked %s: redis %v, limitkv %v", chunk, fmtArgs(blocker), err1, err2)
			}
			if !bytes.Equal(rb.Raw, lb.Raw) {
				t.Fatalf("chunk %d: blocked %s was served differently\n  redis:   %q\n  limitkv: %q", chunk, fmtArgs(blocker), rb.Raw, lb.Raw)
			}
		}
		sent += len(steps)
		if shortTTL {
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("%d commands", sent)
}

func lrPipeline(t *testing.T, c *RawConn, steps [][]string) []*Reply {
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

func lrCompare(st []string, rds, lkv *Reply) error {
	if bytes.Equal(rds.Raw, lkv.Raw) {
		return nil
	}
	if !rds.IsError() && !lkv.IsError() && strings.EqualFold(st[0], "TTL") && rds.Type == ':' && lkv.Type == ':' {
		a, _ := strconv.ParseInt(strings.TrimSpace(string(rds.Raw[1:])), 10, 64)
		b, _ := strconv.ParseInt(strings.TrimSpace(string(lkv.Raw[1:])), 10, 64)
		if a >= 0 && b >= 0 && a-b <= 1 && b-a <= 1 {
			return nil
		}
	}
	return fmt.Errorf("replies differ")
}

type lrGen struct{ r *rand.Rand }

var lrKeys = []string{"a", "b", "c", "d", "s"}

func (g *lrGen) key() string { return lrKeys[g.r.IntN(len(lrKeys))] }

func (g *lrGen) elem() string {
	switch n := g.r.IntN(20); {
	case n < 8:
		return string(rune('a' + g.r.IntN(6)))
	case n < 13:
		return strconv.Itoa(g.r.IntN(300) - 100)
	case n < 15:
		return strconv.FormatInt(1700000000000+g.r.Int64N(1000), 10)
	case n < 17:
		return strings.Repeat("x", g.r.IntN(100))
	case n < 18:
		return strings.Repeat("y", 3000+g.r.IntN(6000))
	case n < 19:
		return "0" + strconv.Itoa(g.r.IntN(10))
	}
	return ""
}

func (g *lrGen) idx() string {
	switch g.r.IntN(10) {
	case 0:
		return strconv.Itoa(g.r.IntN(2000) - 1000)
	case 1:
		return "x"
	}
	return strconv.Itoa(g.r.IntN(20) - 10)
}

func (g *lrGen) side() string {
	return []string{"LEFT", "RIGHT", "left", "right"}[g.r.IntN(4)]
}

func (g *lrGen) elems(max int) []string {
	n := 1 + g.r.IntN(max)
	out := make([]string, n)
	for i := range out {
		out[i] = g.elem()
	}
	return out
}

func (g *lrGen) chunk(n int) [][]string {
	out := make([][]string, 0, n)
	for len(out) < n {
		out = append(out, g.cmd()...)
	}
	return out
}

// blocking is a command for the second connection, waiting on "w" among
// others.
func (g *lrGen) blocking() []string {
	keys := []string{g.key(), "w"}
	if g.r.IntN(2) == 0 {
		keys[0], keys[1] = keys[1], keys[0]
	}
	switch g.r.IntN(5) {
	case 0:
		return append(append([]string{"BLPOP"}, keys...), "5")
	case 1:
		return append(append([]string{"BRPOP"}, keys...), "5")
	case 2:
		return append(append([]string{"BLMPOP", "5", "2"}, keys...), g.side(), "COUNT", strconv.Itoa(1+g.r.IntN(4)))
	case 3:
		return []string{"BLMOVE", "w", g.key(), g.side(), g.side(), "5"}
	}
	return []string{"BRPOPLPUSH", "w", g.key(), "5"}
}

func (g *lrGen) cmd() [][]string {
	k := g.key()
	switch g.r.IntN(30) {
	case 0, 1, 2:
		return [][]string{append([]string{"RPUSH", k}, g.elems(5)...)}
	case 3, 4:
		return [][]string{append([]string{"LPUSH", k}, g.elems(5)...)}
	case 5:
		return [][]string{append([]string{[]string{"LPUSHX", "RPUSHX"}[g.r.IntN(2)], k}, g.elems(3)...)}
	case 6:
		if g.r.IntN(2) == 0 {
			return [][]string{{"LPOP", k}}
		}
		return [][]string{{"RPOP", k, strconv.Itoa(g.r.IntN(6) - 1)}}
	case 7:
		return [][]string{{"LLEN", k}}
	case 8, 9:
		return [][]string{{"LRANGE", k, g.idx(), g.idx()}}
	case 10:
		return [][]string{{"LINDEX", k, g.idx()}}
	case 11:
		return [][]string{{"LSET", k, g.idx(), g.elem()}}
	case 12:
		return [][]string{{"LINSERT", k, []string{"BEFORE", "AFTER"}[g.r.IntN(2)], g.elem(), g.elem()}}
	case 13:
		return [][]string{{"LREM", k, strconv.Itoa(g.r.IntN(7) - 3), g.elem()}}
	case 14:
		return [][]string{{"LTRIM", k, g.idx(), g.idx()}}
	case 15:
		args := []string{"LPOS", k, g.elem()}
		if g.r.IntN(2) == 0 {
			args = append(args, "RANK", strconv.Itoa(g.r.IntN(7)-3))
		}
		if g.r.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(g.r.IntN(4)))
		}
		if g.r.IntN(3) == 0 {
			args = append(args, "MAXLEN", strconv.Itoa(g.r.IntN(10)))
		}
		return [][]string{args}
	case 16:
		return [][]string{{"LMOVE", k, g.key(), g.side(), g.side()}}
	case 17:
		return [][]string{{"RPOPLPUSH", k, g.key()}}
	case 18:
		return [][]string{{"LMPOP", "2", k, g.key(), g.side(), "COUNT", strconv.Itoa(1 + g.r.IntN(5))}}
	case 19:
		// Blocking commands that find data, or none (served at once, or a
		// null reply inside MULTI).
		return [][]string{{"MULTI"}, {"BLPOP", k, g.key(), "0"}, {"BLMOVE", k, g.key(), g.side(), g.side(), "0"}, {"BRPOP", g.key(), "0"}, {"EXEC"}}
	case 20:
		return [][]string{{"SET", "s", g.elem()}}
	case 21:
		return [][]string{{[]string{"PEXPIRE", "EXPIREAT"}[g.r.IntN(2)], k, []string{"0", "-5"}[g.r.IntN(2)]}}
	case 22:
		return [][]string{{"TTL", k}, {"EXPIRE", k, "100"}}
	case 23:
		return [][]string{{"DEL", k}}
	case 24:
		return [][]string{{"RENAME", k, g.key()}}
	case 25:
		return [][]string{{"COPY", k, g.key(), "REPLACE"}}
	case 26:
		return [][]string{{"TYPE", k}, {"OBJECT", "ENCODING", k}}
	case 27:
		return [][]string{{"EVAL", "redis.call('rpush', KEYS[1], ARGV[1]); return redis.call('lrange', KEYS[1], -3, -1)", "1", k, g.elem()}}
	case 28:
		return [][]string{{"LMPOP", "1", k, g.side()}}
	}
	return [][]string{{"LRANGE", k, "0", "-1"}}
}
