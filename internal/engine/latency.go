package engine

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR/HISTOGRAM/HELP, as Redis
// 7.0's latency.c. The latency monitor keeps, per event, the worst
// latency of each second (160 seconds of them) that reached
// latency-monitor-threshold ms. The events limitkv has are Redis's
// "command" and "fast-command" (every command's run, by its fast flag) and
// "expire-cycle" (the active expiry cycle's slice). HISTOGRAM reads the
// per-command latency histograms of INFO latencystats (cmdstats.go).

const latencyTSLen = 160

type latencySample struct{ time, latency int64 }

type latencySeries struct {
	idx     int
	max     int64
	samples [latencyTSLen]latencySample
}

type latencyMonitor struct {
	events map[string]*latencySeries
}

var latencyCommand = &Command{
	Name: "latency", Arity: -2, Group: "server",
	Sub: map[string]*Command{
		"doctor":    {Arity: 2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdLatencyDoctor},
		"graph":     {Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdLatencyGraph},
		"help":      {Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdLatencyHelp},
		"histogram": {Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdLatencyHistogram},
		"history":   {Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdLatencyHistory},
		"latest":    {Arity: 2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdLatencyLatest},
		"reset":     {Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdLatencyReset},
	},
}

// latencySample is what call() adds for a command that ran ms ms.
func (e *Engine) latencySample(c *Command, ms int64) {
	if thr := e.Cfg.Obs.LatencyThreshold.Load(); thr == 0 || ms < thr {
		return
	}
	ev := "command"
	if c.Flags&FlagFast != 0 {
		ev = "fast-command"
	}
	e.latencyAdd(ev, ms)
}

// LatencyAddIfNeeded records ms for event when it reaches
// latency-monitor-threshold (latencyAddSampleIfNeeded). Call with the
// lock held.
func (e *Engine) LatencyAddIfNeeded(event string, ms int64) {
	if thr := e.Cfg.Obs.LatencyThreshold.Load(); thr == 0 || ms < thr {
		return
	}
	e.latencyAdd(event, ms)
}

func (e *Engine) latencyAdd(event string, ms int64) {
	m := &e.obs.lat
	if m.events == nil {
		m.events = make(map[string]*latencySeries)
	}
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	now := e.Clock.Now().Unix()
	ts.max = max(ts.max, ms)
	// One sample per second: the worst of it.
	prev := &ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
	if prev.time == now {
		prev.latency = max(prev.latency, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencyTSLen
}

// eventNames lists the events in a stable order (Redis's is its dict's).
func (m *latencyMonitor) eventNames() []string {
	names := make([]string, 0, len(m.events))
	for n := range m.events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func cmdLatencyLatest(x *Ctx) {
	m := &x.E.obs.lat
	names := m.eventNames()
	x.W.Array(len(names))
	for _, n := range names {
		ts := m.events[n]
		last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
		x.W.Array(4)
		x.W.BulkString(n)
		x.W.Int(last.time)
		x.W.Int(last.latency)
		x.W.Int(ts.max)
	}
}

func cmdLatencyHistory(x *Ctx) {
	ts := x.E.obs.lat.events[string(x.Args[2])]
	if ts == nil {
		x.W.Array(0)
		return
	}
	var out []latencySample
	for j := range latencyTSLen {
		if s := ts.samples[(ts.idx+j)%latencyTSLen]; s.time != 0 {
			out = append(out, s)
		}
	}
	x.W.Array(len(out))
	for _, s := range out {
		x.W.Array(2)
		x.W.Int(s.time)
		x.W.Int(s.latency)
	}
}

func cmdLatencyReset(x *Ctx) {
	m := &x.E.obs.lat
	n := 0
	if len(x.Args) == 2 {
		n = len(m.events)
		m.events = nil
	} else {
		for _, a := range x.Args[2:] {
			for ev := range m.events {
				if strings.EqualFold(ev, string(a)) {
					delete(m.events, ev)
					n++
				}
			}
		}
	}
	x.W.Int(int64(n))
}

func cmdLatencyGraph(x *Ctx) {
	ev := string(x.Args[2])
	ts := x.E.obs.lat.events[ev]
	if ts == nil {
		x.W.Error("ERR No samples available for event '" + string(Cstr(x.Args[2])) + "'")
		return
	}
	now := x.E.Clock.Now().Unix()
	var seq SparkSeq
	var lo, hi int64
	for j := range latencyTSLen {
		s := ts.samples[(ts.idx+j)%latencyTSLen]
		if s.time == 0 {
			continue
		}
		if len(seq.samples) == 0 {
			lo, hi = s.latency, s.latency
		} else {
			lo, hi = min(lo, s.latency), max(hi, s.latency)
		}
		var label string
		switch el := now - s.time; {
		case el < 60:
			label = strconv.FormatInt(el, 10) + "s"
		case el < 3600:
			label = strconv.FormatInt(el/60, 10) + "m"
		case el < 86400:
			label = strconv.FormatInt(el/3600, 10) + "h"
		default:
			label = strconv.FormatInt(el/86400, 10) + "d"
		}
		seq.Add(float64(s.latency), label)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", ev, hi, lo, ts.max)
	b.WriteString(strings.Repeat("-", 80))
	b.WriteByte('\n')
	seq.Render(&b, 80, 4)
	x.W.Verbatim("txt", b.String())
}

// sparkSeq is Redis's sparkline.c, in the fill style LATENCY GRAPH uses.
type SparkSeq struct {
	samples  []sparkSample
	min, max float64
	labels   int
}

type sparkSample struct {
	value float64
	label string
}

func (s *SparkSeq) Add(v float64, label string) {
	if len(s.samples) == 0 {
		s.min, s.max = v, v
	} else if v < s.min {
		s.min = v
	} else if v > s.max {
		s.max = v
	}
	s.samples = append(s.samples, sparkSample{v, label})
	if label != "" {
		s.labels++
	}
}

func (s *SparkSeq) Render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(s.samples); j += columns {
		if j != 0 {
			b.WriteByte('\n')
		}
		s.renderRange(b, rows, j, min(len(s.samples)-j, columns))
	}
}

func (s *SparkSeq) renderRange(b *strings.Builder, rows, offset, n int) {
	const fill = "_o#"
	relmax := s.max - s.min
	if relmax == 0 {
		relmax = 1
	}
	steps := len(fill) * rows
	chars := make([]byte, n)
	for row := 0; ; row++ {
		loop := false
		for j := range chars {
			chars[j] = ' '
		}
		for j := 0; j < n; j++ {
			smp := &s.samples[j+offset]
			step := int(float64(int((smp.value-s.min)*float64(steps))) / relmax)
			step = min(max(step, 0), steps-1)
			if row < rows {
				loop = true
				ci := step - (rows-row-1)*len(fill)
				if ci >= 0 && ci < len(fill) {
					chars[j] = fill[ci]
				} else if ci >= len(fill) {
					chars[j] = '|'
				}
				continue
			}
			if s.labels > 0 && row-rows < 1 {
				loop = true
				break
			}
			if lc := row - rows - 1; len(smp.label) > lc {
				loop = true
				chars[j] = smp.label[lc]
			}
		}
		if !loop {
			return
		}
		b.Write(chars)
		b.WriteByte('\n')
	}
}

func cmdLatencyHistogram(x *Ctx) {
	e := x.E
	type item struct {
		c  *Command
		st *cmdStat
	}
	var items []item
	if len(x.Args) == 2 {
		e.statsInOrder(func(c *Command, st *cmdStat) {
			if st.hist != nil {
				items = append(items, item{c, st})
			}
		})
	} else if e.obs.cmds != nil {
		for _, a := range x.Args[2:] {
			c := lookupCommandName(a)
			if c == nil {
				continue
			}
			if st := e.obs.stat(c); st.hist != nil {
				items = append(items, item{c, st})
			}
			e.subsInOrder(c, func(sub *Command) {
				if st := e.obs.stat(sub); st.hist != nil {
					items = append(items, item{sub, st})
				}
			})
		}
	}
	x.W.Map(len(items))
	for _, it := range items {
		x.W.BulkString(it.c.Name)
		x.W.Map(2)
		x.W.BulkString("calls")
		x.W.Int(it.st.hist.Total())
		x.W.BulkString("histogram_usec")
		var prev int64
		type bucket struct{ us, cum int64 }
		var bs []bucket
		for _, lb := range it.st.hist.LogBuckets(1024, 2) {
			if lb.Cumulative > prev {
				bs = append(bs, bucket{lb.HighestEquivalent / 1000, lb.Cumulative})
			}
			prev = lb.Cumulative
		}
		x.W.Map(len(bs))
		for _, bk := range bs {
			x.W.Int(bk.us)
			x.W.Int(bk.cum)
		}
	}
}

// lookupCommandName is lookupCommandBySds: "name" or "container|sub", any
// case.
func lookupCommandName(a []byte) *Command {
	name, sub, ok := strings.Cut(string(a), "|")
	c := Lookup([]byte(name))
	if c == nil || !ok {
		return c
	}
	if c.Sub == nil || strings.Contains(sub, "|") {
		return nil
	}
	return LookupSub(c, []byte(sub))
}

func (e *Engine) subsInOrder(c *Command, f func(*Command)) {
	names := make([]string, 0, len(c.Sub))
	for n := range c.Sub {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f(c.Sub[n])
	}
}

var latencyHelp = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
	"HELP",
	"    Prints this help.",
}

func cmdLatencyHelp(x *Ctx) { WriteHelp(x, latencyHelp) }

// anonHugePages is THPGetAnonHugePagesSize: the process's transparent
// huge pages, which DOCTOR warns about.
func anonHugePages() int64 {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var total int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "AnonHugePages:"); ok {
			if fs := strings.Fields(rest); len(fs) > 0 {
				kb, _ := strconv.ParseInt(fs[0], 10, 64)
				total += kb * 1024
			}
		}
	}
	return total
}
