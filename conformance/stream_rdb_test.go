package conformance

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStreamRDBBothWays: streams with consumer groups, consumers (one
// with an empty PEL), PELs (one entry of which was deleted from the
// stream), tombstones in several nodes, trimmed and emptied streams, built
// by the same commands on limitkv and on Redis, cross the RDB file both
// ways: limitkv's SAVE loads into redis-server (and redis-check-rdb accepts
// it), Redis's SAVE loads into limitkv. DEBUG DIGEST, which in 7.0 covers
// the entries only, must agree, and XINFO STREAM FULL, which shows the
// rest (groups, PELs, counters, node counts), must be byte for byte the
// loader's as it was the saver's: delivery and seen times travel in the
// file. Between the two servers that ran the commands those times come from
// their own clocks and are masked.
func TestStreamRDBBothWays(t *testing.T) {
	requireServers(t)
	lDir, rDir := t.TempDir(), t.TempDir()
	lp := startLimitkvProc(t, lDir, false)
	lkv := dialRaw(t, "limitkv", lp.Addr)
	rds, _ := startRedisOn(t, rDir)
	for _, c := range []*RawConn{lkv, rds} {
		// Small nodes: the streams span several, tombstones in most.
		c.MustDo(t, "CONFIG", "SET", "stream-node-max-entries", "10")
		runOn(t, c, streamRDBDataset())
	}
	keys := [][2]string{{"0", "s"}, {"0", "emptied"}, {"0", "trimmed"}, {"0", "mk"}, {"0", "wide"}, {"1", "s"}}
	full := func(c *RawConn) map[string]*Reply {
		out := map[string]*Reply{}
		for _, k := range keys {
			c.MustDo(t, "SELECT", k[0])
			r := c.MustDo(t, "XINFO", "STREAM", k[1], "FULL", "COUNT", "0")
			if r.IsError() {
				t.Fatalf("%s: XINFO STREAM %s FULL: %s", c.Name, k[1], r.Str)
			}
			out[k[0]+"/"+k[1]] = r
		}
		c.MustDo(t, "SELECT", "0")
		return out
	}
	digest := func(c *RawConn) string {
		d := c.MustDo(t, "DEBUG", "DIGEST").Str
		if strings.Trim(d, "0") == "" {
			t.Fatalf("%s: DEBUG DIGEST is %q", c.Name, d)
		}
		return d
	}
	// same compares the servers' XINFO STREAM FULL; masked leaves out the
	// times.
	same := func(what string, got, want map[string]*Reply, masked bool) {
		t.Helper()
		for k, w := range want {
			if a, b := renderXInfo(got[k], masked), renderXInfo(w, masked); a != b {
				t.Errorf("%s: XINFO STREAM %s FULL (times masked: %v) differs:\n%s", what, k, masked, firstDiff(a, b))
			}
		}
	}

	lFull, rFull := full(lkv), full(rds)
	lDigest, rDigest := digest(lkv), digest(rds)
	if lDigest != rDigest {
		t.Errorf("after the commands: DEBUG DIGEST limitkv %s, redis %s", lDigest, rDigest)
	}
	same("limitkv vs redis after the commands", lFull, rFull, true)

	// limitkv -> Redis.
	if r := lkv.MustDo(t, "SAVE"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("limitkv SAVE: %q", r.Raw)
	}
	checkRDB(t, filepath.Join(lDir, "dump.rdb"))
	fromL, _ := startRedisOn(t, lDir)
	if d := digest(fromL); d != lDigest {
		t.Errorf("redis loading limitkv's file: DEBUG DIGEST %s, want %s", d, lDigest)
	}
	same("redis loading limitkv's file vs limitkv", full(fromL), lFull, false)

	// Redis -> limitkv.
	if r := rds.MustDo(t, "SAVE"); string(r.Raw) != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", r.Raw)
	}
	fromR := dialRaw(t, "limitkv", startLimitkvProc(t, rDir, false).Addr)
	if d := digest(fromR); d != rDigest {
		t.Errorf("limitkv loading redis's file: DEBUG DIGEST %s, want %s", d, rDigest)
	}
	same("limitkv loading redis's file vs redis", full(fromR), rFull, false)
}

// streamRDBDataset builds the streams TestStreamRDBBothWays moves, with
// explicit IDs so that both servers hold the same ones.
func streamRDBDataset() [][]string {
	var cmds [][]string
	add := func(c ...string) { cmds = append(cmds, c) }
	for i := 1; i <= 45; i++ {
		id := strconv.Itoa(i) + "-1"
		if i%7 == 0 { // a different field set: the entry is not "same fields" as its node's master
			add("XADD", "s", id, "other", strconv.Itoa(i*1000), "x", "y")
		} else {
			add("XADD", "s", id, "f", "v"+strconv.Itoa(i), "n", strconv.Itoa(i))
		}
	}
	// Tombstones: the first entry, inside nodes, a whole node (21-30), the last.
	add("XDEL", "s", "1-1", "5-1", "12-1", "13-1", "45-1")
	for i := 21; i <= 30; i++ {
		add("XDEL", "s", strconv.Itoa(i)+"-1")
	}
	add("XGROUP", "CREATE", "s", "g1", "0")
	add("XGROUP", "CREATE", "s", "g2", "$", "ENTRIESREAD", "30")
	add("XGROUP", "CREATE", "s", "g3", "10-1")
	add("XREADGROUP", "GROUP", "g1", "c1", "COUNT", "8", "STREAMS", "s", ">")
	add("XREADGROUP", "GROUP", "g1", "c2", "COUNT", "5", "STREAMS", "s", ">")
	add("XACK", "s", "g1", "2-1", "3-1")
	add("XCLAIM", "s", "g1", "c3", "0", "4-1", "6-1", "TIME", "1700000000000", "RETRYCOUNT", "5")
	add("XGROUP", "CREATECONSUMER", "s", "g1", "idle")
	add("XREADGROUP", "GROUP", "g3", "c1", "NOACK", "COUNT", "3", "STREAMS", "s", ">")
	add("XREADGROUP", "GROUP", "g3", "c9", "COUNT", "2", "STREAMS", "s", ">")
	add("XDEL", "s", "7-1") // pending in g1: the PEL keeps an entry the stream lost
	// Everything deleted: the last and max-deleted IDs remain.
	add("XADD", "emptied", "1-1", "a", "1")
	add("XADD", "emptied", "2-1", "b", "2")
	add("XDEL", "emptied", "1-1", "2-1")
	add("XGROUP", "CREATE", "emptied", "g", "$")
	// Trimmed by MAXLEN: first entry and entries-added move apart.
	for i := 1; i <= 25; i++ {
		add("XADD", "trimmed", "MAXLEN", "=", "6", strconv.Itoa(i)+"-"+strconv.Itoa(i%3), "k", strconv.Itoa(i))
	}
	add("XGROUP", "CREATE", "trimmed", "g", "0", "ENTRIESREAD", "3")
	add("XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "trimmed", ">")
	add("XGROUP", "CREATE", "mk", "g", "0", "MKSTREAM")
	// Values the listpack stores as integers of every width and as
	// strings, long ones included, and many fields.
	vals := []string{"0", "-1", "127", "-4096", "8388607", "-2147483648", "9223372036854775807", "12345678901234567890", "1.5", "",
		strings.Repeat("x", 70), strings.Repeat("y", 5000)}
	for i, v := range vals {
		args := []string{"XADD", "wide", fmt.Sprintf("%d-0", 1_700_000_000_000+i)}
		for j := 0; j <= i; j++ {
			args = append(args, "f"+strconv.Itoa(j), v)
		}
		add(args...)
	}
	add("SELECT", "1")
	add("XADD", "s", "5-5", "in", "db1")
	add("XGROUP", "CREATE", "s", "g", "0")
	add("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	add("SELECT", "0")
	return cmds
}

// firstDiff shows where a and b first differ, with some context.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-150)
	return fmt.Sprintf(" got ...%s\nwant ...%s", a[from:min(len(a), i+80)], b[from:min(len(b), i+80)])
}

// renderXInfo renders an XINFO STREAM FULL reply; with mask, the
// consumers' seen times and the PEL entries' delivery times are "T".
func renderXInfo(r *Reply, mask bool) string {
	var b strings.Builder
	var walk func(r *Reply, key string)
	walk = func(r *Reply, key string) {
		if r.Type != '*' {
			if mask && key == "seen-time" {
				b.WriteString("T ")
			} else {
				fmt.Fprintf(&b, "%q ", r.Raw)
			}
			return
		}
		b.WriteString("[")
		for i, e := range r.Elems {
			k := ""
			if i%2 == 1 && r.Elems[i-1].Type == '$' {
				k = r.Elems[i-1].Str
			}
			if mask && key == "pending" && e.Type == '*' {
				// [id consumer delivery-time count] in a group's PEL,
				// [id delivery-time count] in a consumer's.
				at := len(e.Elems) - 2
				b.WriteString("[")
				for j, x := range e.Elems {
					if j == at {
						b.WriteString("T ")
					} else {
						walk(x, "")
					}
				}
				b.WriteString("] ")
				continue
			}
			walk(e, k)
		}
		b.WriteString("] ")
	}
	walk(r, "")
	return b.String()
}
