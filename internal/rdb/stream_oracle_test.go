package rdb

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/stream"
	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/redis/go-redis/v9"
)

func cmd(s string) []string { return strings.Fields(s) }

func xaddSeq(key string, from, to int, fields string) [][]string {
	var out [][]string
	for i := from; i <= to; i++ {
		out = append(out, cmd(fmt.Sprintf("XADD %s %d-%d %s", key, 1000+i/3, i%3, strings.ReplaceAll(fields, "#", strconv.Itoa(i)))))
	}
	return out
}

func concat(parts ...[][]string) [][]string {
	var out [][]string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

type streamScenario struct {
	name       string
	maxEntries int64 // stream-node-max-entries; 0 leaves Redis's default
	maxBytes   int64
	cmds       [][]string
}

var long = strings.Repeat("x", 70)     // a 2-byte string header in listpacks
var longer = strings.Repeat("y", 5000) // a 5-byte one, past node-max-bytes

var streamScenarios = []streamScenario{
	{name: "one entry", cmds: [][]string{cmd("XADD s 1-1 f v")}},
	{name: "defaults, 250 entries", cmds: xaddSeq("s", 0, 250, "field # value v#")},
	{name: "mixed fields and integers", maxEntries: 4, cmds: concat(
		xaddSeq("s", 0, 5, "a 1 b 2"),
		xaddSeq("s", 6, 9, "a -5000 c 123456789012"),
		[][]string{cmd("XADD s 5000-* a " + long), cmd("XADD s 5000-* " + long + " 0"), cmd("XADD s 5001 b 18446744073709551615")},
	)},
	{name: "node max bytes", maxBytes: 200, cmds: concat(xaddSeq("s", 0, 40, "f #"), [][]string{cmd("XADD s 9000-0 big " + longer), cmd("XADD s 9000-1 f 1")})},
	{name: "xdel and tombstones", maxEntries: 5, cmds: concat(xaddSeq("s", 0, 30, "f #"),
		[][]string{cmd("XDEL s 1000-0 1000-1 1000-2 1001-0 1001-1"), cmd("XDEL s 1003-1 1003-2 9-9"), cmd("XDEL s 1010-0"), cmd("XDEL s 1000-0")})},
	{name: "delete everything", maxEntries: 3, cmds: concat(xaddSeq("s", 0, 5, "f #"),
		[][]string{cmd("XDEL s 1000-0 1000-1 1000-2 1001-0 1001-1 1001-2"), cmd("XADD s 3000-0 g 1")})},
	{name: "trim maxlen exact", maxEntries: 10, cmds: concat(xaddSeq("s", 0, 95, "f #"), [][]string{cmd("XTRIM s MAXLEN 37"), cmd("XTRIM s MAXLEN = 35")})},
	{name: "trim maxlen approx with limit", maxEntries: 10, cmds: concat(xaddSeq("s", 0, 95, "f #"),
		[][]string{cmd("XTRIM s MAXLEN ~ 37 LIMIT 25"), cmd("XTRIM s MAXLEN ~ 37"), cmd("XTRIM s MAXLEN ~ 0 LIMIT 5")})},
	{name: "trim minid", maxEntries: 7, cmds: concat(xaddSeq("s", 0, 60, "f #"),
		[][]string{cmd("XTRIM s MINID ~ 1005-0"), cmd("XTRIM s MINID 1008-1"), cmd("XTRIM s MINID = 1009"), cmd("XDEL s 1015-0"), cmd("XTRIM s MINID ~ 1016-1 LIMIT 100")})},
	{name: "xadd with trimming", maxEntries: 4, cmds: concat(xaddSeq("s", 0, 20, "f #"),
		[][]string{cmd("XADD s MAXLEN ~ 10 2000-0 f x"), cmd("XADD s MINID 1005-0 2000-1 f y"), cmd("XADD s MAXLEN 3 2000-2 f z")})},
	{name: "xsetid", maxEntries: 4, cmds: concat(xaddSeq("s", 0, 9, "f #"),
		[][]string{cmd("XDEL s 1002-0"), cmd("XSETID s 5000-5 ENTRIESADDED 100 MAXDELETEDID 4000-0"), cmd("XADD s 5000-* f 1")})},
	{name: "groups", maxEntries: 5, cmds: concat(xaddSeq("s", 0, 30, "f #"), [][]string{
		cmd("XGROUP CREATE s g1 0"),
		cmd("XGROUP CREATE s g2 $"),
		cmd("XGROUP CREATE s g0 1003-1 ENTRIESREAD 5"),
		cmd("XREADGROUP GROUP g1 alice COUNT 7 STREAMS s >"),
		cmd("XREADGROUP GROUP g1 bob COUNT 3 STREAMS s >"),
		cmd("XREADGROUP GROUP g1 carol COUNT 2 NOACK STREAMS s >"),
		cmd("XPENDING s g1"),
		cmd("XPENDING s g2"),
		cmd("XACK s g1 1000-1 1000-2 7-7"),
		cmd("XDEL s 1001-0 1005-0"),
		cmd("XREADGROUP GROUP g1 alice STREAMS s 0"),
		cmd("XCLAIM s g1 bob 0 1000-0 1001-0 1001-1"),
		cmd("XCLAIM s g1 dave 0 1004-0 FORCE RETRYCOUNT 7"),
		cmd("XCLAIM s g1 dave 0 1004-1 FORCE JUSTID"),
		cmd("XCLAIM s g1 erin 0 1002-0 JUSTID LASTID 1008-0"),
		cmd("XAUTOCLAIM s g1 frank 0 0 COUNT 2"),
		cmd("XAUTOCLAIM s g1 frank 0 (1003-2 COUNT 3 JUSTID"),
		cmd("XGROUP CREATECONSUMER s g2 zed"),
		cmd("XGROUP CREATECONSUMER s g2 zed"),
		cmd("XREADGROUP GROUP g0 yan STREAMS s >"),
		cmd("XGROUP SETID s g0 1001-1"),
		cmd("XREADGROUP GROUP g0 xia COUNT 4 STREAMS s >"),
		cmd("XPENDING s g1 - + 100"),
		cmd("XPENDING s g1 (1000-0 1004-0 3 frank"),
		cmd("XPENDING s g1 - + 10 nobody"),
		cmd("XPENDING s g0"),
		cmd("XREADGROUP GROUP g1 frank COUNT 2 STREAMS s 1000-0"),
		cmd("XGROUP DELCONSUMER s g1 carol"),
		cmd("XGROUP CREATE s gone 0"),
		cmd("XGROUP DESTROY s gone"),
		cmd("XTRIM s MAXLEN 12"),
	})},
	{name: "node of tombstones only", maxEntries: 5, cmds: concat(xaddSeq("s", 0, 9, "f #"),
		[][]string{cmd("XDEL s 1001-1"), cmd("XTRIM s MINID 1001-1"), cmd("XADD s 2000-0 f 1")})},
	{name: "id errors", cmds: [][]string{
		cmd("XADD s 0-* f v"), cmd("XADD s 0-1 f v"), cmd("XADD s 0-0 f v"),
		cmd("XADD s 5-18446744073709551615 f v"), cmd("XADD s 5-* f v"), cmd("XADD s 5 f v"),
		cmd("XADD s 6-* f v"), cmd("XADD s 18446744073709551615-18446744073709551615 f v"),
		cmd("XADD s * f v"), cmd("XADD s 1-* f v"),
	}},
	{name: "lag with tombstones", maxEntries: 3, cmds: concat(xaddSeq("s", 0, 11, "f #"), [][]string{
		cmd("XGROUP CREATE s a 0"), cmd("XGROUP CREATE s b 0"), cmd("XGROUP CREATE s c $"),
		cmd("XREADGROUP GROUP a x COUNT 3 STREAMS s >"),
		cmd("XDEL s 1002-0"),
		cmd("XREADGROUP GROUP b x COUNT 2 STREAMS s >"),
		cmd("XREADGROUP GROUP a x STREAMS s >"),
		cmd("XGROUP SETID s c 1001-0 ENTRIESREAD 2"),
	})},
}

func startStreamRedis(t *testing.T, sc streamScenario) (*redis.Client, stream.Limits) {
	args := []string{"--enable-debug-command", "yes"}
	lim := stream.DefaultLimits
	if sc.maxEntries != 0 {
		args = append(args, "--stream-node-max-entries", strconv.FormatInt(sc.maxEntries, 10))
		lim.NodeMaxEntries = sc.maxEntries
	}
	if sc.maxBytes != 0 {
		args = append(args, "--stream-node-max-bytes", strconv.FormatInt(sc.maxBytes, 10))
		lim.NodeMaxBytes = sc.maxBytes
	}
	p := testredis.StartT(t, args...)
	return redisClient(t, p), lim
}

// simpleReply renders integer and string replies as the model does;
// other replies are compared through the state afterwards.
func simpleReply(v any, err error) (string, bool) {
	if err != nil {
		return err.Error(), true
	}
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case string:
		return x, true
	}
	return "", false
}

// checkAgainstRedis compares the model's stream s with the key on Redis:
// XINFO STREAM FULL, the DUMP bytes, Redis's payload decoded here, and
// ours restored there.
func checkAgainstRedis(t *testing.T, c *redis.Client, key string, s *stream.Stream, what string) {
	t.Helper()
	ri := redisFullInfo(t, c, key)
	syncTimes(s, ri)
	if ours := ourFullInfo(s); !reflect.DeepEqual(ours, ri) {
		t.Fatalf("%s: XINFO STREAM FULL differs\nredis: %+v\nours:  %+v", what, ri, ours)
	}
	theirs, err := rdo(t, c, "DUMP", key)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := EncodeDump(&Value{Type: TypeStream, Stream: s}, DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, []byte(theirs.(string))) {
		t.Fatalf("%s: DUMP differs\nredis %x\nours  %x", what, theirs, ours)
	}
	v, err := DecodeDump([]byte(theirs.(string)), nil)
	if err != nil {
		t.Fatalf("%s: decoding Redis's DUMP: %v", what, err)
	}
	if got := ourFullInfo(v.Stream); !reflect.DeepEqual(got, ri) {
		t.Fatalf("%s: Redis's DUMP decoded differs\nredis: %+v\nours:  %+v", what, ri, got)
	}
	if _, err := rdo(t, c, "RESTORE", key+":restored", "0", string(ours), "REPLACE"); err != nil {
		t.Fatalf("%s: RESTORE of our payload: %v", what, err)
	}
	if back := redisFullInfo(t, c, key+":restored"); !reflect.DeepEqual(back, ri) {
		t.Fatalf("%s: our payload restored differs\nredis: %+v\nback:  %+v", what, ri, back)
	}
}

func TestStreamOracleScenarios(t *testing.T) {
	for _, sc := range streamScenarios {
		t.Run(sc.name, func(t *testing.T) {
			c, lim := startStreamRedis(t, sc)
			m := newStreamModel(lim)
			for _, a := range sc.cmds {
				rv, rerr := rdo(t, c, a...)
				ours := m.apply(t, a)
				want, ok := groupReply(a, rv, rerr)
				if !ok {
					want, ok = simpleReply(rv, rerr)
				}
				if !ok {
					t.Fatalf("%q: reply %v not compared", a, rv)
				}
				if want != ours {
					t.Fatalf("%q: redis %q, ours %q", a, want, ours)
				}
			}
			checkAgainstRedis(t, c, "s", m.s, sc.name)
		})
	}
}

// TestStreamMemoryUsage compares MemoryUsage with MEMORY USAGE, with 5
// samples and all, for the scenarios' streams and for the same streams
// loaded by RESTORE (whose listpacks are allocated to size).
func TestStreamMemoryUsage(t *testing.T) {
	for _, sc := range streamScenarios {
		t.Run(sc.name, func(t *testing.T) {
			c, lim := startStreamRedis(t, sc)
			m := newStreamModel(lim)
			for _, a := range sc.cmds {
				rdo(t, c, a...)
				m.apply(t, a)
			}
			dump, err := rdo(t, c, "DUMP", "s")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rdo(t, c, "RESTORE", "r", "0", dump.(string)); err != nil {
				t.Fatal(err)
			}
			loaded, err := DecodeDump([]byte(dump.(string)), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []struct {
				key string
				s   *stream.Stream
			}{{"s", m.s}, {"r", loaded.Stream}} {
				for _, samples := range []string{"5", "0"} {
					v, err := rdo(t, c, "MEMORY", "USAGE", k.key, "SAMPLES", samples)
					if err != nil {
						t.Fatal(err)
					}
					n, _ := strconv.Atoi(samples)
					ours := k.s.MemoryUsage(n)
					// MEMORY USAGE adds the key's dictEntry (24) and its
					// sds allocation (8 for a 1-byte name).
					if theirs := v.(int64) - 24 - 8; ours != theirs {
						t.Errorf("%s, samples %s: ours %d, redis %d", k.key, samples, ours, theirs)
					}
				}
			}
		})
	}
}
