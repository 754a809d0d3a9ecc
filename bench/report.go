package main

import (
	"fmt"
	"strings"
	"time"
)

type report struct {
	cfg      *config
	env      env
	rows     []row
	run      *runner
	mem      []memResult
	storm    []stormResult
	pubsub   []pubsubResult
	bgsave   []bgsaveResult
	evict    []evictResult
	repl     *replReport
	xmem     []xmemResult // workload 11
	lmem     []lmemResult // workload 13
	elapsed  time.Duration
	noise    []string // other busy processes seen before the run
	profiles []profileSummary
}

func fmtMs(d time.Duration) string {
	return fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond))
}

func fmtUs(d time.Duration) string {
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Microsecond))
}

func fmtMB(b int64) string {
	if b < 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}

func fmtOps(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func fmtSecs(d time.Duration) string {
	if d < 0 {
		return "not within the watch"
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func (m memResult) summary() string {
	if m.Err != "" {
		return "error: " + m.Err
	}
	return fmt.Sprintf("%d users in %.1fs, RSS %s MB (settled %s MB), used_memory %s MB, allocator allocated/active/resident %s/%s/%s MB, %.0f B/user",
		m.Users, m.LoadTime.Seconds(), fmtMB(m.RSSLoaded), fmtMB(m.RSSSettled), fmtMB(m.UsedMemory),
		fmtMB(m.Allocated), fmtMB(m.Active), fmtMB(m.Resident), m.BytesPerUser())
}

func (s stormResult) summary() string {
	if s.Err != "" && s.Points == nil {
		return "error: " + s.Err
	}
	return fmt.Sprintf("p99 before %s ms, during %s ms (max %s ms); keys gone after %s; RSS back after %s; allocator allocated/resident before %s/%s MB, at the end %s/%s MB",
		fmtMs(s.Before.P99), fmtMs(s.During.P99), fmtMs(s.During.Max), fmtSecs(s.GoneAfter), fmtSecs(s.RSSBackAfter),
		fmtMB(s.BaseAlloc), fmtMB(s.BaseResident), fmtMB(s.EndAlloc), fmtMB(s.EndResident))
}

// target is one PASS/FAIL line.
type target struct {
	name     string
	measured string
	pass     bool
	na       bool
}

func (r *report) find(label string, pipeline int) (row, bool) {
	for _, rw := range r.rows {
		if rw.Label == label && rw.Pipeline == pipeline {
			return rw, true
		}
	}
	return row{}, false
}

func (r *report) targets() []target {
	var ts []target
	both := func(name string, a, b measurement) (target, bool) {
		t := target{name: name}
		if !a.OK || !b.OK {
			t.na, t.measured = true, "n/a: "+strings.TrimSpace(a.Err+" "+b.Err)
			return t, false
		}
		return t, true
	}
	// ratio: a's ops/s >= want x b's.
	ratio := func(name string, a, b measurement, want float64, what string) {
		t, ok := both(name, a, b)
		if ok {
			v := a.OpsPerSec / b.OpsPerSec
			t.pass = v >= want
			t.measured = fmt.Sprintf("%.2fx (%s vs %s %s; server CPU per request %s vs %s µs)", v, fmtOps(a.OpsPerSec), fmtOps(b.OpsPerSec), what,
				fmtUs(a.CPUPerOp), fmtUs(b.CPUPerOp))
		}
		ts = append(ts, t)
	}
	// cpu: a's server CPU per request <= want x b's.
	cpu := func(name string, a, b measurement, want float64) {
		t, ok := both(name, a, b)
		if ok {
			if b.CPUPerOp <= 0 {
				t.na, t.measured = true, "n/a: no server CPU measured"
			} else {
				v := float64(a.CPUPerOp) / float64(b.CPUPerOp)
				t.pass = v <= want
				t.measured = fmt.Sprintf("%.2fx (%s vs %s µs)", v, fmtUs(a.CPUPerOp), fmtUs(b.CPUPerOp))
			}
		}
		ts = append(ts, t)
	}
	p99 := func(name string, a, b measurement) {
		t, ok := both(name, a, b)
		if ok {
			t.pass = a.P99 <= b.P99
			t.measured = fmt.Sprintf("%s ms vs %s ms", fmtMs(a.P99), fmtMs(b.P99))
		}
		ts = append(ts, t)
	}
	if r.run != nil {
		med := func(label string, p int) (L, R, F measurement, ok bool) {
			rw, ok := r.find(label, p)
			if !ok {
				return
			}
			L, R, F = r.medians(rw)
			return L, R, F, true
		}
		// Issue #11's targets, all from redis-benchmark rows of this run.
		pL, pR, pF, havePing := med(labelPingRB, 1)
		sL, sR, _, haveSeed := med(labelSeedRB, 1)
		if havePing {
			ratio("PING (redis-benchmark) >= 1.0x Redis, P1", pL, pR, 1.0, "Redis")
			ratio("PING (redis-benchmark) >= 0.95x the floor (no-op gnet server), P1", pL, pF, 0.95, "floor")
		}
		if haveSeed {
			ratio("RL.CHECK (redis-benchmark) >= 1.25x Redis EVALSHA, P1", sL, sR, 1.25, "Redis EVALSHA")
			if havePing {
				ratio("RL.CHECK (redis-benchmark) >= 0.9x limitkv's own PING (redis-benchmark), P1", sL, pL, 0.9, "limitkv PING")
			}
			cpu("server CPU per RL.CHECK <= 0.65x Redis's per EVALSHA (redis-benchmark), P1", sL, sR, 0.65)
		}
		if havePing {
			p99("PING p99 <= Redis's (redis-benchmark), P1", pL, pR)
		}
		if haveSeed {
			p99("RL.CHECK p99 <= Redis EVALSHA's (redis-benchmark), P1", sL, sR)
		}
		if L, R, _, ok := med(labelPingRB, 16); ok {
			ratio("PING (redis-benchmark) >= 1.0x Redis, P16", L, R, 1.0, "Redis")
		}
		if L, R, _, ok := med(labelSeedRB, 16); ok {
			ratio("RL.CHECK (redis-benchmark) >= 5x Redis EVALSHA, P16", L, R, 5, "Redis EVALSHA")
		}
		// Workload 12: "More than one way to limit"'s targets, every row.
		for _, rw := range r.rows {
			if rw.Group != 12 {
				continue
			}
			L, R, _ := r.medians(rw)
			want := limiterTarget(rw.Pipeline)
			ratio(limiterTargetName(rw, want), L, R, want, "Redis")
		}
	}
	if len(r.mem) == 2 {
		l, rd := r.mem[0], r.mem[1]
		t := target{name: fmt.Sprintf("RSS with %d users x 5 <= 0.5x Redis", l.Users)}
		if l.Err != "" || rd.Err != "" {
			t.na, t.measured = true, "n/a"
		} else {
			v := float64(l.RSSSettled) / float64(rd.RSSSettled)
			t.pass = v <= 0.5
			t.measured = fmt.Sprintf("%.2fx (%s MB vs %s MB)", v, fmtMB(l.RSSSettled), fmtMB(rd.RSSSettled))
		}
		ts = append(ts, t)
	}
	if len(r.storm) >= 1 {
		s := r.storm[0]
		t := target{name: "expiry storm: limitkv seed p99 during <= 2x the second before"}
		if s.Points == nil || s.Before.N == 0 {
			t.na, t.measured = true, "n/a"
		} else if s.LoadMargin < time.Second {
			t.na, t.measured = true, fmt.Sprintf("n/a: loading the storm keys overlapped the second before the deadline (ended %.1f s before it)", s.LoadMargin.Seconds())
		} else {
			t.pass = s.During.P99 <= 2*s.Before.P99
			t.measured = fmt.Sprintf("%s ms vs %s ms (%.2fx)", fmtMs(s.During.P99), fmtMs(s.Before.P99),
				float64(s.During.P99)/float64(s.Before.P99))
		}
		ts = append(ts, t)
		t = target{name: "expiry storm: limitkv RSS back within 10% of before, within 10 s"}
		if s.Points == nil {
			t.na, t.measured = true, "n/a"
		} else {
			t.pass = s.RSSBackAfter >= 0 && s.RSSBackAfter <= 10*time.Second
			t.measured = fmtSecs(s.RSSBackAfter) + " after the first deadline"
		}
		ts = append(ts, t)
	}
	return ts
}

func (r *report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	e := r.env
	p("# limitkv vs Redis, side by side\n\n")
	p("- machine: %d cores, %s\n", e.Cores, e.CPU)
	p("- %s; limitkv %s, tree %s; Go %s\n", e.Redis, e.Limitkv, e.Commit, e.Go)
	p("- %s; run took %s\n", e.Date, r.elapsed.Round(time.Second))
	p("- %s\n", e.Settings)
	if len(r.noise) > 0 {
		p("- **WARNING: other processes were using CPU when the run started; figures are not clean:** %s\n", strings.Join(r.noise, "; "))
	}
	p("\n")

	if r.run != nil {
		p("## %s: throughput and latency\n\n", workloadsHeading(r.rows))
		p("| # | workload | pipeline | limitkv ops/s | Redis ops/s | floor ops/s | limitkv/Redis | limitkv/floor | limitkv p50 ms | limitkv p99 ms | Redis p50 ms | Redis p99 ms | server CPU µs/op limitkv / Redis / floor | client CPU µs/op limitkv run / Redis run | RSS MB limitkv / Redis | tool |\n")
		p("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
		var notes []string
		for _, rw := range r.rows {
			L, R, F := r.medians(rw)
			cell := func(m measurement, f func(measurement) string) string {
				if !m.OK {
					return "n/a"
				}
				return f(m)
			}
			ops := func(m measurement) string {
				if m.Others > maxOthers {
					return fmt.Sprintf("%s (noisy: others used %.0f%% of a core)", fmtOps(m.OpsPerSec), 100*m.Others)
				}
				return fmtOps(m.OpsPerSec)
			}
			ratio := func(a, b measurement) string {
				if a.OK && b.OK {
					return fmt.Sprintf("%.2f", a.OpsPerSec/b.OpsPerSec)
				}
				return "n/a"
			}
			tool := L.Tool
			if tool == "" {
				tool = R.Tool
			}
			us := func(m measurement) string { return fmtUs(m.CPUPerOp) }
			cus := func(m measurement) string { return fmtUs(m.ClientCPU) }
			p("| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s | %s / %s | %s |\n", rw.Group, rw.Label, rw.Pipeline,
				cell(L, ops), cell(R, ops), cell(F, ops), ratio(L, R), ratio(L, F),
				cell(L, func(m measurement) string { return fmtMs(m.P50) }), cell(L, func(m measurement) string { return fmtMs(m.P99) }),
				cell(R, func(m measurement) string { return fmtMs(m.P50) }), cell(R, func(m measurement) string { return fmtMs(m.P99) }),
				cell(L, us), cell(R, us), cell(F, us), cell(L, cus), cell(R, cus),
				cell(L, func(m measurement) string { return fmtMB(m.RSS) }), cell(R, func(m measurement) string { return fmtMB(m.RSS) }), tool)
			sides := []struct {
				name string
				m    measurement
			}{{"limitkv", L}, {"Redis", R}}
			if rw.F != nil {
				sides = append(sides, struct {
					name string
					m    measurement
				}{"floor", F})
			}
			for _, side := range sides {
				if !side.m.OK {
					n := fmt.Sprintf("%s P%d on %s: %s", rw.Label, rw.Pipeline, side.name, side.m.Err)
					if !contains(notes, n) {
						notes = append(notes, n)
					}
				}
			}
		}
		if r.run.servers["floor"] != nil {
			p("\nfloor: bench/floor, a no-op server on one gnet event loop that answers every command +PONG: the most this machine, client and kernel allow a single-threaded server.\n")
		}
		var counted []string
		for _, rw := range r.rows {
			for _, sd := range r.run.sides(rw) {
				ac, ok := r.run.allowed[key(sd.srv, sd.sp)]
				if !ok || ac.Requests == 0 {
					continue
				}
				c := fmt.Sprintf("%s %s: %d of %d requests recorded (%.1f%% allowed) in %d keys",
					sd.srv, sd.sp.ID, ac.Members, ac.Requests, 100*float64(ac.Members)/float64(ac.Requests), ac.Keys)
				if !contains(counted, c) {
					counted = append(counted, c)
				}
			}
		}
		if len(counted) > 0 {
			p("\nredis-benchmark seed rows, what the last round's run recorded (sum of ZCARD; every allowed request adds a member):\n\n")
			for _, c := range counted {
				p("- %s\n", c)
			}
		}
		if r.run.noisyRetries > 0 {
			p("\n%d run(s) were made again because other processes used more than %.0f%% of a core meanwhile.\n", r.run.noisyRetries, 100*maxOthers)
		}
		p("\nops/s of every round (limitkv | Redis | floor):\n\n")
		for _, rw := range r.rows {
			L, R, F := r.medians(rw)
			if rw.F != nil && r.run.servers["floor"] != nil {
				p("- %s P%d: %s | %s | %s\n", rw.Label, rw.Pipeline, roundsList(L), roundsList(R), roundsList(F))
			} else {
				p("- %s P%d: %s | %s\n", rw.Label, rw.Pipeline, roundsList(L), roundsList(R))
			}
		}
		if len(notes) > 0 {
			p("\nn/a:\n\n")
			for _, n := range notes {
				p("- %s\n", n)
			}
		}
		p("\n")
	}

	if len(r.mem) > 0 {
		p("## Workload 4: memory, seed workload, %d users x 5 recorded requests\n\n", r.cfg.memUsers)
		p("| server | command | load time | RSS empty MB | RSS after load MB | RSS after %s MB | bytes/user (RSS growth) | used_memory MB | keys |\n", r.cfg.settle)
		p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, m := range r.mem {
			if m.Err != "" {
				p("| %s | %s | error: %s | | | | | | |\n", m.Server, m.Kind, m.Err)
				continue
			}
			p("| %s | %s | %.1f s | %s | %s | %s | %.0f | %s | %d |\n", m.Server, m.Kind, m.LoadTime.Seconds(),
				fmtMB(m.RSSEmpty), fmtMB(m.RSSLoaded), fmtMB(m.RSSSettled), m.BytesPerUser(), fmtMB(m.UsedMemory), m.Keys)
		}
		p("\n")
	}

	if len(r.storm) > 0 {
		p("## Workload 5: expiry storm, %d keys expiring within one second, %d clients running the seed check (P1)\n\n", r.cfg.stormKeys, r.cfg.clients)
		p("| server | seed command | storm keys loaded in | load ended before deadline | p99 before ms | max before ms | p99 during ms | max during ms | ops/s before / during | keys gone (<=1%% left) after | storm keys left at the end | RSS before MB | RSS peak MB | RSS back within 10%% after |\n")
		p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, s := range r.storm {
			if s.Points == nil {
				p("| %s | %s | error: %s | | | | | | | | | | | |\n", s.Server, s.Kind, s.Err)
				continue
			}
			last := s.Points[len(s.Points)-1]
			p("| %s | %s | %.1f s | %.1f s | %s | %s | %s | %s | %s / %s | %s | %d at %.0f s | %s | %s | %s |\n", s.Server, s.Kind,
				s.LoadTime.Seconds(), s.LoadMargin.Seconds(), fmtMs(s.Before.P99), fmtMs(s.Before.Max),
				fmtMs(s.During.P99), fmtMs(s.During.Max), fmtOps(s.Before.OpsPerS), fmtOps(s.During.OpsPerS),
				fmtSecs(s.GoneAfter), max(0, last.Keys-s.BaseKeys), last.At.Sub(s.Deadline).Seconds(),
				fmtMB(s.BaseRSS), fmtMB(s.PeakRSS), fmtSecs(s.RSSBackAfter))
		}
		for _, s := range r.storm {
			if s.Err != "" && s.Points != nil {
				p("\n%s: %s\n", s.Server, s.Err)
			}
			if s.Others > maxOthers {
				p("\n%s: noisy, other processes used %.0f%% of a core during the storm run.\n", s.Server, 100*s.Others)
			}
		}
		p("\n\"During\" is from the first deadline until at most 1%% of the storm keys are left (at least 1 s); times are from the first deadline.\n\n")
		p("Curve, 1 s steps from the first deadline (storm keys left = DBSIZE - keys before the storm):\n\n")
		p("| t (s) |")
		for _, s := range r.storm {
			p(" %s RSS MB | %s storm keys left |", s.Server, s.Server)
		}
		p("\n| ---: |%s\n", strings.Repeat(" ---: | ---: |", len(r.storm)))
		from, to := -3, int(r.cfg.stormWatch/time.Second)
		for t := from; t <= to; t++ {
			var cells []string
			any := false
			for _, s := range r.storm {
				pt, ok := s.pointAt(s.Deadline.Add(time.Duration(t) * time.Second))
				if !ok {
					cells = append(cells, " | ")
					continue
				}
				any = true
				cells = append(cells, fmt.Sprintf("%s | %d", fmtMB(pt.RSS), max(0, pt.Keys-s.BaseKeys)))
			}
			if any {
				p("| %d | %s |\n", t, strings.Join(cells, " | "))
			}
		}
		p("\n")
	}

	if len(r.pubsub) > 0 {
		p("## Workload 7: Pub/Sub load: %d subscribers on %d patterns, one stuck subscriber on ch:*, %d clients running the seed check (P1), %d publishers (P16, %d-byte messages), client-output-buffer-limit %q\n\n",
			psPatterns*psPerPattern, psPatterns, psCheckClient, psPublishers, psPayload, psLimit)
		p("| server | seed command | check p99 before ms | check p99 during ms | check ops/s before / during | PUBLISH/s | messages delivered / expected | stuck subscriber dropped | RSS before MB | RSS peak MB |\n")
		p("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n")
		for _, s := range r.pubsub {
			if s.Err != "" {
				p("| %s | %s | error: %s |\n", s.Server, s.Kind, s.Err)
				continue
			}
			dropped := "no"
			if s.StuckDropped {
				dropped = "yes"
				if s.DroppedAfter > 0 {
					dropped = fmt.Sprintf("yes, %.1f s into the flood", s.DroppedAfter.Seconds())
				}
			}
			p("| %s | %s | %.2f | %.2f | %.0f / %.0f | %.0f | %d / %d | %s | %s | %s |\n", s.Server, s.Kind,
				ms(s.Before.P99), ms(s.During.P99), s.Before.OpsPerS, s.During.OpsPerS, s.PubPerSec,
				s.Delivered, s.Published*psPerPattern, dropped, fmtMB(s.BaseRSS), fmtMB(s.PeakRSS))
		}
		p("\n\"Expected\" is ten readers per PUBLISH (each message matches one pattern of ten subscribers); the stuck subscriber's deliveries are not in it.\n\n")
	}

	if len(r.evict) > 0 {
		b.WriteString(evictMarkdown(r.evict))
	}

	if r.repl != nil {
		b.WriteString(replMarkdown(r.cfg, r.repl))
	}

	if len(r.xmem) > 0 {
		b.WriteString(xmemMarkdown(r.cfg, r.xmem))
	}
	if len(r.lmem) > 0 {
		b.WriteString(lmemMarkdown(r.cfg, r.lmem))
	}

	if len(r.profiles) > 0 {
		p("## limitkv CPU profiles (-profile; extra %s runs, not the measured ones)\n\n", profileDur)
		p("Cumulative share of the profile's samples spent in (below) each function; cores = CPU seconds sampled per second.\n\n")
		p("| run | cores |")
		for _, c := range profileCols {
			p(" %s |", c.name)
		}
		p("\n| --- | ---: |%s\n", strings.Repeat(" ---: |", len(profileCols)))
		for _, ps := range r.profiles {
			cores := 0.0
			if ps.wall > 0 {
				cores = ps.seconds / ps.wall
			}
			p("| %s | %.2f |", ps.name, cores)
			for _, v := range ps.shares {
				p(" %.1f%% |", v)
			}
			p("\n")
		}
		p("\n")
	}

	if len(r.bgsave) > 0 {
		p("## Workload 6: BGSAVE of %d users under the seed load (%d clients, P1)\n\n", r.cfg.memUsers, r.cfg.clients)
		p("| server | BGSAVE reply ms | save s | p99 before ms | p99 during ms | during/before | max during ms | ops/s before / during | dataset MB (RSS - empty) | RSS growth MB | child COW peak MB | extra / dataset | file bytes | status | others' CPU |\n")
		p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n")
		for _, g := range r.bgsave {
			if g.Err != "" {
				p("| %s | error: %s |\n", g.Server, g.Err)
				continue
			}
			p("| %s | %.2f | %.1f | %.2f | %.2f | %.2fx | %.1f | %.0f / %.0f | %.0f | %.0f | %.0f | %.2fx | %s | %s | %.0f%% |\n",
				g.Server, ms(g.Reply), g.SaveTime.Seconds(), ms(g.Before.P99), ms(g.During.P99), g.ratio(), ms(g.During.Max),
				g.Before.OpsPerS, g.During.OpsPerS, mb(g.BaseRSS-g.EmptyRSS), mb(max(g.PeakRSS-g.BaseRSS, 0)), mb(g.COWPeak),
				g.extraRatio(), g.FileBytes, g.Status, 100*g.Others)
		}
		p("\n\"Before\" is the 2 s before BGSAVE, \"during\" from BGSAVE until INFO shows rdb_bgsave_in_progress:0. Redis's forked child counts among the others' CPU.\n\n")
	}

	ts := r.targets()
	if len(ts) > 0 {
		p("## Targets\n\n| target | measured | result |\n| --- | --- | --- |\n")
		for _, t := range ts {
			res := "FAIL"
			switch {
			case t.na:
				res = "n/a"
			case t.pass:
				res = "PASS"
			}
			p("| %s | %s | %s |\n", t.name, t.measured, res)
		}
		p("\n")
	}
	return b.String()
}

// workloadsHeading names the workloads of the throughput table:
// "Workloads 1-3", "Workload 12", "Workloads 3, 10, 12".
func workloadsHeading(rows []row) string {
	var gs []int
	for _, rw := range rows {
		if !containsInt(gs, rw.Group) {
			gs = append(gs, rw.Group)
		}
	}
	switch {
	case len(gs) == 0:
		return "Workloads"
	case len(gs) == 1:
		return fmt.Sprintf("Workload %d", gs[0])
	}
	consecutive := true
	for i := 1; i < len(gs); i++ {
		consecutive = consecutive && gs[i] == gs[i-1]+1
	}
	if consecutive {
		return fmt.Sprintf("Workloads %d-%d", gs[0], gs[len(gs)-1])
	}
	var ss []string
	for _, g := range gs {
		ss = append(ss, fmt.Sprint(g))
	}
	return "Workloads " + strings.Join(ss, ", ")
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// limiterTargetName is a workload 12 row's line in the targets table.
func limiterTargetName(rw row, want float64) string {
	tool := "redis-benchmark"
	if rw.L.RBArgs == nil {
		tool = "Go load generator"
	}
	return fmt.Sprintf("%s (%s) >= %gx Redis, P%d", rw.Label, tool, want, rw.Pipeline)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func roundsList(m measurement) string {
	if !m.OK {
		return "n/a"
	}
	var s []string
	for _, v := range m.Rounds {
		s = append(s, fmtOps(v))
	}
	return strings.Join(s, ", ")
}

// pointAt is the monitor reading nearest t, if one is within 300 ms.
func (s stormResult) pointAt(t time.Time) (stormPoint, bool) {
	best, bd := stormPoint{}, time.Duration(1<<62)
	for _, p := range s.Points {
		d := p.At.Sub(t)
		if d < 0 {
			d = -d
		}
		if d < bd {
			best, bd = p, d
		}
	}
	return best, bd <= 300*time.Millisecond
}

// medians are a row's median rounds on limitkv, Redis and the floor (the
// floor's is "no floor run" where the row has none).
func (r *report) medians(rw row) (L, R, F measurement) {
	L, R = r.run.median("limitkv", rw.L), r.run.median("redis", rw.R)
	F = measurement{Err: "no floor run"}
	if rw.F != nil && r.run.servers["floor"] != nil {
		F = r.run.median("floor", rw.F)
	}
	return L, R, F
}
