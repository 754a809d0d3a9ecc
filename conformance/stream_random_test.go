package conformance

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestStreamRandom is a randomized differential test of the stream
// family: long mixed sequences of XADD (with trims), XTRIM, XDEL, XSETID,
// XGROUP, XREADGROUP (new entries and history, NOACK), XACK, XCLAIM and
// XAUTOCLAIM over two streams and a few groups and consumers, on both
// servers, every reply compared, then XINFO STREAM key FULL of the key the
// step touched. Nodes are kept small (stream-node-max-entries 4) so trims
// and deletions cross node boundaries. Delivery and seen times come from
// each server's clock: integers are compared exactly unless both are Unix
// times in ms (within 2 s), and min-idle arguments are 0 or an hour, so
// what a claim takes does not depend on timing; XPENDING's idle column is
// the one value compared by shape alone.
//
// LIMITKV_SEED=<n> replays a run, LIMITKV_STREAM_OPS=<n> sets its length.
func TestStreamRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_STREAM_OPS", 2500)
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.MustDo(t, "FLUSHALL")
		c.MustDo(t, "CONFIG", "SET", "stream-node-max-entries", "4")
	}
	defer func() {
		for _, c := range []*RawConn{rds, lkv} {
			c.MustDo(t, "CONFIG", "SET", "stream-node-max-entries", "100")
		}
	}()
	g := &xrGen{r: r, next: map[string]int{}}
	for i := 0; i < total; i++ {
		args, cmp := g.step()
		a, b := rds.MustDo(t, args...), lkv.MustDo(t, args...)
		if err := cmp(a, b); err != nil {
			t.Fatalf("step %d %q: %v\n  redis:   %q\n  limitkv: %q", i, args, err, a.Raw, b.Raw)
		}
		info := []string{"XINFO", "STREAM", args[g.keyAt(args)], "FULL"}
		a, b = rds.MustDo(t, info...), lkv.MustDo(t, info...)
		if err := sameTimes(a, b); err != nil {
			t.Fatalf("after step %d %q: %v\n  redis:   %q\n  limitkv: %q", i, args, err, a.Raw, b.Raw)
		}
	}
	for _, k := range []string{"s1", "s2"} {
		a, b := rds.MustDo(t, "DEBUG", "DIGEST-VALUE", k), lkv.MustDo(t, "DEBUG", "DIGEST-VALUE", k)
		if string(a.Raw) != string(b.Raw) {
			t.Fatalf("digest of %s: %q vs %q", k, a.Raw, b.Raw)
		}
	}
}

// sameTimes compares replies exactly, except integers that are both Unix
// times in ms, which may be 2 s apart.
func sameTimes(a, b *Reply) error {
	if a.Type != b.Type || len(a.Elems) != len(b.Elems) || a.Null != b.Null {
		return fmt.Errorf("shapes differ")
	}
	if a.Type == ':' && a.Int != b.Int {
		if a.Int < 1e12 || b.Int < 1e12 || a.Int-b.Int > 2000 || b.Int-a.Int > 2000 {
			return fmt.Errorf("%d and %d differ", a.Int, b.Int)
		}
		return nil
	}
	if len(a.Elems) == 0 && string(a.Raw) != string(b.Raw) {
		return fmt.Errorf("%q and %q differ", a.Raw, b.Raw)
	}
	for i := range a.Elems {
		if err := sameTimes(a.Elems[i], b.Elems[i]); err != nil {
			return err
		}
	}
	return nil
}

// pendingRows compares XPENDING's extended form: the idle column (third)
// by type only.
func pendingRows(a, b *Reply) error {
	if a.Type != '*' || b.Type != '*' || len(a.Elems) != len(b.Elems) {
		return sameTimes(a, b)
	}
	for i := range a.Elems {
		x, y := a.Elems[i], b.Elems[i]
		if len(x.Elems) != 4 || len(y.Elems) != 4 {
			return sameTimes(x, y)
		}
		for j := range 4 {
			if j == 2 {
				if x.Elems[j].Type != y.Elems[j].Type {
					return fmt.Errorf("idle types differ")
				}
				continue
			}
			if err := sameTimes(x.Elems[j], y.Elems[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

type xrGen struct {
	r    *rand.Rand
	next map[string]int // the next ms to add at, per key
}

func (g *xrGen) keyAt(args []string) int {
	switch args[0] {
	case "XGROUP":
		return 2
	case "XREADGROUP":
		return len(args) - 2
	}
	return 1
}

func (g *xrGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// id is an ID near the key's entries: existing, deleted or never added.
func (g *xrGen) id(key string) string {
	ms := g.r.IntN(g.next[key] + 3)
	return strconv.Itoa(ms) + "-" + strconv.Itoa(g.r.IntN(3))
}

func (g *xrGen) step() ([]string, comparer) {
	key := g.pick("s1", "s1", "s2")
	group := g.pick("g1", "g1", "g2")
	cons := g.pick("c1", "c2", "c3")
	idle := g.pick("0", "0", "3600000")
	switch n := g.r.IntN(100); {
	case n < 30:
		g.next[key] += 1 + g.r.IntN(2)
		args := []string{"XADD", key}
		switch g.r.IntN(8) {
		case 0:
			args = append(args, "MAXLEN", g.pick("~", "=", "~"), strconv.Itoa(g.r.IntN(30)))
		case 1:
			args = append(args, "MINID", g.pick("~", "="), g.id(key))
		case 2:
			args = append(args, "MAXLEN", "~", strconv.Itoa(g.r.IntN(20)), "LIMIT", strconv.Itoa(g.r.IntN(10)))
		}
		ms := strconv.Itoa(g.next[key])
		if g.r.IntN(3) == 0 {
			args = append(args, ms+"-*")
		} else {
			args = append(args, ms+"-"+strconv.Itoa(g.r.IntN(2)))
		}
		args = append(args, g.pick("f", "a", "f"), strconv.Itoa(g.r.IntN(1000)))
		if g.r.IntN(3) == 0 {
			args = append(args, "b", "v")
		}
		return args, sameTimes
	case n < 36:
		return []string{"XDEL", key, g.id(key), g.id(key)}, sameTimes
	case n < 40:
		if g.r.IntN(2) == 0 {
			return []string{"XTRIM", key, "MAXLEN", g.pick("~", "="), strconv.Itoa(g.r.IntN(25))}, sameTimes
		}
		return []string{"XTRIM", key, "MINID", g.pick("~", "="), g.id(key)}, sameTimes
	case n < 42:
		return []string{"XSETID", key, strconv.Itoa(g.next[key]) + "-5"}, sameTimes
	case n < 47:
		return []string{"XGROUP", "CREATE", key, group, g.pick("0", "$", g.id(key)), "MKSTREAM"}, sameTimes
	case n < 49:
		return []string{"XGROUP", "SETID", key, group, g.pick("0", "$", g.id(key))}, sameTimes
	case n < 50:
		return []string{"XGROUP", "DESTROY", key, group}, sameTimes
	case n < 52:
		return []string{"XGROUP", g.pick("CREATECONSUMER", "DELCONSUMER"), key, group, cons}, sameTimes
	case n < 68:
		args := []string{"XREADGROUP", "GROUP", group, cons}
		if g.r.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(1+g.r.IntN(5)))
		}
		if g.r.IntN(6) == 0 {
			args = append(args, "NOACK")
		}
		return append(args, "STREAMS", key, g.pick(">", ">", ">", "0", g.id(key))), sameTimes
	case n < 78:
		return []string{"XACK", key, group, g.id(key), g.id(key)}, sameTimes
	case n < 86:
		args := []string{"XCLAIM", key, group, cons, idle, g.id(key), g.id(key)}
		for _, o := range [][]string{{"JUSTID"}, {"FORCE"}, {"RETRYCOUNT", "3"}, {"TIME", "1700000000000"}, {"LASTID", g.id(key)}} {
			if g.r.IntN(4) == 0 {
				args = append(args, o...)
			}
		}
		return args, sameTimes
	case n < 92:
		args := []string{"XAUTOCLAIM", key, group, cons, idle, g.pick("0", g.id(key)), "COUNT", strconv.Itoa(1 + g.r.IntN(4))}
		if g.r.IntN(3) == 0 {
			args = append(args, "JUSTID")
		}
		return args, sameTimes
	case n < 96:
		return []string{"XPENDING", key, group, "-", "+", "20"}, pendingRows
	default:
		return []string{"XPENDING", key, group}, sameTimes
	}
}
