package main

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parseRESP reads every command of b (arrays of bulk strings).
func parseRESP(t *testing.T, b []byte) [][]string {
	t.Helper()
	c := &conn{r: bufio.NewReader(bytes.NewReader(b))}
	var cmds [][]string
	for {
		r, err := c.read()
		if err == io.EOF {
			return cmds
		}
		if err != nil {
			t.Fatalf("parsing %q: %v", b, err)
		}
		if r.kind != '*' {
			t.Fatalf("not an array: %q", b)
		}
		var args []string
		for _, e := range r.elems {
			if e.kind != '$' {
				t.Fatalf("not a bulk string in %q", b)
			}
			args = append(args, e.str)
		}
		cmds = append(cmds, args)
	}
}

func TestParseOnly(t *testing.T) {
	got, err := parseOnly("1, 10,13")
	if err != nil || !reflect.DeepEqual(got, map[int]bool{1: true, 10: true, 13: true}) {
		t.Errorf("parseOnly: %v %v", got, err)
	}
	for _, bad := range []string{"0", "14", "x", "1,,2", ""} {
		if _, err := parseOnly(bad); err == nil {
			t.Errorf("parseOnly(%q): no error", bad)
		}
	}
}

func TestFmtCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1000: "-1,000", 100000: "100,000"} {
		if got := fmtCount(n); got != want {
			t.Errorf("fmtCount(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestStreamShapes(t *testing.T) {
	got := streamShapes(1_000_000)
	want := []streamShape{{100, 10_000}, {10_000, 100}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streamShapes(1M) = %v, want %v", got, want)
	}
	if got := streamShapes(50); got[0].Streams != 1 || got[1].Streams != 1 {
		t.Errorf("streamShapes(50) = %v: want at least one stream each", got)
	}
	if s := want[0].String(); s != "100 streams x 10,000 entries" {
		t.Errorf("String: %q", s)
	}
}

func TestStreamIDs(t *testing.T) {
	entry := func(id string) reply {
		return reply{kind: '*', elems: []reply{{kind: '$', str: id},
			{kind: '*', elems: []reply{{kind: '$', str: "user"}, {kind: '$', str: "1"}}}}}
	}
	ok := reply{kind: '*', elems: []reply{{kind: '*', elems: []reply{{kind: '$', str: "xg:1"},
		{kind: '*', elems: []reply{entry("1-0"), entry("1-1")}}}}}}
	ids, err := streamIDs(ok)
	if err != nil || !reflect.DeepEqual(ids, []string{"1-0", "1-1"}) {
		t.Errorf("streamIDs: %v %v", ids, err)
	}
	if ids, err := streamIDs(reply{kind: '*', null: true}); err != nil || ids != nil {
		t.Errorf("null reply: %v %v", ids, err)
	}
	if _, err := streamIDs(reply{kind: '-', str: "NOGROUP no such key"}); err == nil || err.Error() != "NOGROUP no such key" {
		t.Errorf("error reply: %v", err)
	}
	for _, bad := range []reply{
		{kind: ':', n: 1},
		{kind: '*', elems: []reply{{kind: '$', str: "x"}}},
		{kind: '*', elems: []reply{{kind: '*', elems: []reply{{kind: '$', str: "k"}, {kind: '*', elems: []reply{{kind: ':', n: 1}}}}}}},
	} {
		if _, err := streamIDs(bad); err == nil {
			t.Errorf("streamIDs(%v): no error", bad)
		}
	}
}

func TestAppendXAdd(t *testing.T) {
	got := parseRESP(t, appendXAdd(nil, "xm:1", 42))
	want := [][]string{{"XADD", "xm:1", "*", "user", "42", "action", "login"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("appendXAdd: %q", got)
	}
}

func TestWorkloadsHeading(t *testing.T) {
	rows := func(gs ...int) []row {
		var rs []row
		for _, g := range gs {
			rs = append(rs, row{Group: g}, row{Group: g})
		}
		return rs
	}
	for _, tc := range []struct {
		gs   []int
		want string
	}{
		{[]int{1, 2, 3}, "Workloads 1-3"},
		{[]int{12}, "Workload 12"},
		{[]int{3, 10, 12}, "Workloads 3, 10, 12"},
		{[]int{1, 3}, "Workloads 1, 3"},
		{nil, "Workloads"},
	} {
		if got := workloadsHeading(rows(tc.gs...)); got != tc.want {
			t.Errorf("workloadsHeading(%v) = %q, want %q", tc.gs, got, tc.want)
		}
	}
}

// Results are cached by server and spec ID: two different loads under one
// ID on the same server would share a measurement.
func TestRowIDsUnique(t *testing.T) {
	for _, quick := range []bool{false, true} {
		cfg := &config{quick: quick, seedUsers: 100}
		seen := map[string]*spec{}
		for _, rw := range buildRows(cfg) {
			for _, sd := range []side{{"limitkv", rw.L}, {"redis", rw.R}} {
				k := key(sd.srv, sd.sp)
				if prev, ok := seen[k]; ok && prev != sd.sp && !reflect.DeepEqual(prev.RBArgs, sd.sp.RBArgs) {
					t.Errorf("%s: two specs", k)
				}
				seen[k] = sd.sp
			}
			if rw.Group < 10 {
				continue
			}
			for _, sp := range []*spec{rw.L, rw.R} {
				for _, a := range sp.Probe {
					if strings.Contains(a, "__rand_int__") {
						t.Errorf("%s: probe %q keeps a marker", sp.ID, sp.Probe)
					}
				}
				if sp.Probe == nil {
					t.Errorf("%s: no probe", sp.ID)
				}
				if sp.RBArgs == nil && sp.Gen == nil && sp.Load == nil {
					t.Errorf("%s: no load", sp.ID)
				}
			}
		}
	}
}

func TestLimiterRows(t *testing.T) {
	rows := limiterRows()
	if len(rows) != 2*len(limPairs()) {
		t.Fatalf("%d rows for %d pairs", len(rows), len(limPairs()))
	}
	for _, rw := range rows {
		if rw.Group != 12 || rw.L.State != "flushed+limiters" || rw.R.State != "flushed+limiters" {
			t.Errorf("%s: group %d, states %q %q", rw.Label, rw.Group, rw.L.State, rw.R.State)
		}
		if rw.L.RBArgs != nil && (rw.L.RBRand != limRand || rw.R.RBRand != limRand) {
			t.Errorf("%s: -r %d/%d", rw.Label, rw.L.RBRand, rw.R.RBRand)
		}
		// The twins run on Redis by EVALSHA of a script the harness loads.
		if rw.R.RBArgs != nil {
			if rw.R.RBArgs[0] != "EVALSHA" {
				t.Errorf("%s: Redis runs %q", rw.Label, rw.R.RBArgs)
			}
			found := false
			for _, sc := range limScripts {
				found = found || sc.sha == rw.R.RBArgs[1]
			}
			if !found {
				t.Errorf("%s: SHA %s is no loaded script", rw.Label, rw.R.RBArgs[1])
			}
		}
	}
	if got := probeArgs([]string{"RL.ACQUIRE", "{l}:lease:__rand_int__", "1", "l:__rand_int__"}); !reflect.DeepEqual(got,
		[]string{"RL.ACQUIRE", "{l}:lease:probe", "1", "l:probe"}) {
		t.Errorf("probeArgs: %q", got)
	}
	if limSHA("redis_rate allowN") != "f52a5b566060d79fd321d695df55bc918339c4aa" || limSHA("seed") != seedSHA {
		t.Errorf("library SHAs: %s %s", limSHA("redis_rate allowN"), limSHA("seed"))
	}
}

func TestLimiterTargets(t *testing.T) {
	mk := func(ops float64) measurement {
		return measurement{OK: true, OpsPerSec: ops, CPUPerOp: time.Microsecond}
	}
	rows := limiterRows()[:2] // RL.GCRA P1, P16
	run := &runner{results: map[string][]measurement{
		key("limitkv", rows[0].L): {mk(130)}, key("redis", rows[0].R): {mk(100)},
		key("limitkv", rows[1].L): {mk(490)}, key("redis", rows[1].R): {mk(100)},
	}, na: map[string]string{}}
	rep := &report{cfg: &config{}, rows: rows, run: run}
	ts := rep.targets()
	if len(ts) != 2 {
		t.Fatalf("%d targets: %+v", len(ts), ts)
	}
	if !ts[0].pass || ts[0].name != "RL.GCRA vs cell.lua (redis-benchmark) >= 1.3x Redis, P1" || !strings.HasPrefix(ts[0].measured, "1.30x") {
		t.Errorf("P1 target: %+v", ts[0])
	}
	if ts[1].pass || ts[1].name != "RL.GCRA vs cell.lua (redis-benchmark) >= 5x Redis, P16" || !strings.HasPrefix(ts[1].measured, "4.90x") {
		t.Errorf("P16 target: %+v", ts[1])
	}
	run.na[key("redis", rows[1].R)] = "NOSCRIPT"
	if ts := rep.targets(); !ts[1].na {
		t.Errorf("n/a run: %+v", ts[1])
	}
}

func TestLeasePairGen(t *testing.T) {
	for _, native := range []bool{true, false} {
		gen := leasePairGen(native)(3)
		rng := rand.New(rand.NewPCG(1, 2))
		var b []byte
		for i := 0; i < 4; i++ {
			b = gen(b, rng, time.Now())
		}
		cmds := parseRESP(t, b)
		if len(cmds) != 4 {
			t.Fatalf("native %v: %d commands", native, len(cmds))
		}
		for i := 0; i < 4; i += 2 {
			acq, rel := cmds[i], cmds[i+1]
			if native {
				if acq[0] != "RL.ACQUIRE" || rel[0] != "RL.RELEASE" || len(acq) != 6 || len(rel) != 5 ||
					acq[1] != rel[1] || acq[5] != rel[4] || acq[2] != limNow || acq[3] != limLimit || acq[4] != limLease {
					t.Errorf("native pair %q %q", acq, rel)
				}
			} else {
				if acq[0] != "EVALSHA" || acq[1] != limSHA("concurrency.lua") || len(acq) != 9 || len(rel) != 9 ||
					acq[3] != rel[3] || acq[5] != "acquire" || rel[5] != "release" || acq[8] != rel[8] || acq[7] != limLease {
					t.Errorf("twin pair %q %q", acq, rel)
				}
			}
		}
		if cmds[0][len(cmds[0])-1] == cmds[2][len(cmds[2])-1] {
			t.Errorf("native %v: two pairs share lease id %q", native, cmds[0][len(cmds[0])-1])
		}
	}
}

func TestLimMemAlgorithms(t *testing.T) {
	key, member := []byte("ratelimit:user7"), []byte("1700000000000:00000007")
	want := map[string][2][]string{
		"sliding log": {
			{"RL.CHECK", "ratelimit:user7", "1700000000000", limWindow, limLimit, string(member)},
			{"EVALSHA", seedSHA, "1", "ratelimit:user7", "1700000000000", limWindow, limLimit, string(member)}},
		"sliding-window counter": {
			{"RL.SLIDING", "ratelimit:user7", "1700000000000", limWindow, limLimit, "COST", "500"},
			{"EVALSHA", limSHA("sliding_window.lua"), "1", "ratelimit:user7", "1700000000000", limWindow, limLimit, "500", "check"}},
		"GCRA": {
			{"RL.GCRA", "ratelimit:user7", "1700000000000", limBurst, limLimit, limPeriod, "COST", "500"},
			{"EVALSHA", limSHA("cell.lua"), "1", "ratelimit:user7", "1700000000000000000", limBurst, limLimit, limPeriod, "500"}},
	}
	for _, alg := range limMemAlgorithms {
		for i, native := range []bool{true, false} {
			got := parseRESP(t, alg.build(nil, native, key, 1700000000000, member))
			if !reflect.DeepEqual(got, [][]string{want[alg.Name][i]}) {
				t.Errorf("%s native %v: %q", alg.Name, native, got)
			}
		}
	}
	log, sw, gcra := limMemAlgorithms[0], limMemAlgorithms[1], limMemAlgorithms[2]
	ints := func(ns ...int64) reply {
		r := reply{kind: '*'}
		for _, n := range ns {
			r.elems = append(r.elems, reply{kind: ':', n: n})
		}
		return r
	}
	for _, tc := range []struct {
		alg    limMemAlg
		native bool
		pass   int
		r      reply
		want   bool
	}{
		{log, true, 3, reply{kind: ':', n: 3}, true},
		{log, false, 3, reply{kind: ':', n: 4}, false},
		{sw, true, 0, ints(1, 500, 1000, 500, 0, 1), true},
		{sw, false, 0, ints(0, 500, 1000, 500, 0, 1), false},
		{gcra, true, 0, ints(1, 500, 1000, 500, 0, 1800000), true},
		{gcra, false, 0, ints(0, 1000, 500, -1, 1800), true},
		{gcra, false, 0, ints(1, 1000, 0, 5, 3600), false},
		{gcra, true, 0, reply{kind: '-', str: "ERR"}, false},
	} {
		if got := tc.alg.wantReply(tc.native, tc.pass, tc.r); got != tc.want {
			t.Errorf("%s native %v pass %d %v: %v, want %v", tc.alg.Name, tc.native, tc.pass, tc.r, got, tc.want)
		}
	}
}

func TestMemoryMarkdown(t *testing.T) {
	sh := streamShape{10, 100}
	xs := []xmemResult{
		{Server: "limitkv", Shape: sh, RSSEmpty: 1000, RSSAfter: 1000 + 50*1000, UsedEmpty: 0, UsedAfter: 40 * 1000},
		{Server: "redis", Shape: sh, RSSEmpty: 1000, RSSAfter: 1000 + 25*1000, UsedEmpty: 0, UsedAfter: 20 * 1000},
	}
	if rss, used := xs[0].perEntry(); rss != 50 || used != 40 {
		t.Errorf("perEntry: %v %v", rss, used)
	}
	md := xmemMarkdown(&config{settle: time.Second}, xs)
	if !strings.Contains(md, "| 10 streams x 100 entries | limitkv |") || !strings.Contains(md, "| 50.0 | 40.0 | 2.00 / 2.00 |") {
		t.Errorf("xmemMarkdown:\n%s", md)
	}
	ls := []lmemResult{
		{Server: "limitkv", Alg: "GCRA", Command: "RL.GCRA", Keys: 100, Calls: 100, RSSAfter: 10000, UsedAfter: 8000},
		{Server: "redis", Alg: "GCRA", Command: "cell.lua", Keys: 100, Calls: 100, RSSAfter: 20000, UsedAfter: 16000},
		{Server: "limitkv", Alg: "sliding log", Command: "RL.CHECK", Keys: 100, Err: "boom"},
	}
	md = lmemMarkdown(&config{settle: time.Second}, ls)
	if !strings.Contains(md, "| GCRA | limitkv | RL.GCRA | 100 | 100 |") || !strings.Contains(md, "| 100 | 80 | 0.50 / 0.50 |") ||
		!strings.Contains(md, "error: boom") {
		t.Errorf("lmemMarkdown:\n%s", md)
	}
}
