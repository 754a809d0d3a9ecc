package admin

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/engine"
)

// LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR/HISTOGRAM/HELP, as Redis
// 7.0's latency.c. The latency monitor keeps, per event, the worst
// latency of each second (160 seconds of them) that reached
// latency-monitor-threshold ms. The events limitkv has are Redis's
// "command" and "fast-command" (every command's run, by its fast flag) and
// "expire-cycle" (the active expiry cycle's slice). HISTOGRAM reads the
// per-command latency histograms of INFO latencystats (cmdstats.go).

var latencyCommand = &engine.Command{
	Name: "latency", Arity: -2, Group: "server",
	Sub: map[string]*engine.Command{
		"doctor":    {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdLatencyDoctor},
		"graph":     {Arity: 3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdLatencyGraph},
		"help":      {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdLatencyHelp},
		"histogram": {Arity: -2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdLatencyHistogram},
		"history":   {Arity: 3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdLatencyHistory},
		"latest":    {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdLatencyLatest},
		"reset":     {Arity: -2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdLatencyReset},
	},
}

// eventNames lists the events in a stable order (Redis's is its dict's).
func eventNames(m *engine.LatencyMonitor) []string {
	names := make([]string, 0, len(m.Events))
	for n := range m.Events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func cmdLatencyLatest(x *engine.Ctx) {
	m := &x.E.Obs.Lat
	names := eventNames(m)
	x.W.Array(len(names))
	for _, n := range names {
		ts := m.Events[n]
		last := ts.Samples[(ts.Idx+engine.LatencyTSLen-1)%engine.LatencyTSLen]
		x.W.Array(4)
		x.W.BulkString(n)
		x.W.Int(last.Time)
		x.W.Int(last.Latency)
		x.W.Int(ts.Max)
	}
}

func cmdLatencyHistory(x *engine.Ctx) {
	ts := x.E.Obs.Lat.Events[string(x.Args[2])]
	if ts == nil {
		x.W.Array(0)
		return
	}
	var out []engine.LatencySample
	for j := range engine.LatencyTSLen {
		if s := ts.Samples[(ts.Idx+j)%engine.LatencyTSLen]; s.Time != 0 {
			out = append(out, s)
		}
	}
	x.W.Array(len(out))
	for _, s := range out {
		x.W.Array(2)
		x.W.Int(s.Time)
		x.W.Int(s.Latency)
	}
}

func cmdLatencyReset(x *engine.Ctx) {
	m := &x.E.Obs.Lat
	n := 0
	if len(x.Args) == 2 {
		n = len(m.Events)
		m.Events = nil
	} else {
		for _, a := range x.Args[2:] {
			for ev := range m.Events {
				if strings.EqualFold(ev, string(a)) {
					delete(m.Events, ev)
					n++
				}
			}
		}
	}
	x.W.Int(int64(n))
}

func cmdLatencyGraph(x *engine.Ctx) {
	ev := string(x.Args[2])
	ts := x.E.Obs.Lat.Events[ev]
	if ts == nil {
		x.W.Error("ERR No samples available for event '" + string(engine.Cstr(x.Args[2])) + "'")
		return
	}
	now := x.E.Clock.Now().Unix()
	var seq SparkSeq
	var lo, hi int64
	for j := range engine.LatencyTSLen {
		s := ts.Samples[(ts.Idx+j)%engine.LatencyTSLen]
		if s.Time == 0 {
			continue
		}
		if len(seq.samples) == 0 {
			lo, hi = s.Latency, s.Latency
		} else {
			lo, hi = min(lo, s.Latency), max(hi, s.Latency)
		}
		var label string
		switch el := now - s.Time; {
		case el < 60:
			label = strconv.FormatInt(el, 10) + "s"
		case el < 3600:
			label = strconv.FormatInt(el/60, 10) + "m"
		case el < 86400:
			label = strconv.FormatInt(el/3600, 10) + "h"
		default:
			label = strconv.FormatInt(el/86400, 10) + "d"
		}
		seq.Add(float64(s.Latency), label)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", ev, hi, lo, ts.Max)
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

func cmdLatencyHistogram(x *engine.Ctx) {
	e := x.E
	type item struct {
		c  *engine.Command
		st *engine.CmdStat
	}
	var items []item
	if len(x.Args) == 2 {
		e.StatsInOrder(func(c *engine.Command, st *engine.CmdStat) {
			if st.Hist != nil {
				items = append(items, item{c, st})
			}
		})
	} else if e.Obs.Cmds != nil {
		for _, a := range x.Args[2:] {
			c := lookupCommandName(a)
			if c == nil {
				continue
			}
			if st := e.Obs.Stat(c); st.Hist != nil {
				items = append(items, item{c, st})
			}
			subsInOrder(e, c, func(sub *engine.Command) {
				if st := e.Obs.Stat(sub); st.Hist != nil {
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
		x.W.Int(it.st.Hist.Total())
		x.W.BulkString("histogram_usec")
		var prev int64
		type bucket struct{ us, cum int64 }
		var bs []bucket
		for _, lb := range it.st.Hist.LogBuckets(1024, 2) {
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
func lookupCommandName(a []byte) *engine.Command {
	name, sub, ok := strings.Cut(string(a), "|")
	c := engine.Lookup([]byte(name))
	if c == nil || !ok {
		return c
	}
	if c.Sub == nil || strings.Contains(sub, "|") {
		return nil
	}
	return engine.LookupSub(c, []byte(sub))
}

func subsInOrder(e *engine.Engine, c *engine.Command, f func(*engine.Command)) {
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

func cmdLatencyHelp(x *engine.Ctx) { engine.WriteHelp(x, latencyHelp) }

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
