package engine

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/hdr"
)

// Per-command statistics (INFO commandstats, latencystats, errorstats,
// total_error_replies), the slow log and the latency monitor, kept as
// Redis 7.0's call() and afterErrorReply keep them:
//   - calls and usec count every run of a handler, nested ones (EXEC's
//     commands, a script's redis.call) included; a blocked command counts
//     when it first runs, and the run that serves it adds only its time.
//   - failed_calls: the handler answered an error; rejected_calls: the
//     dispatcher refused the command before its handler ran (arity,
//     NOAUTH, OOM...). An unknown command or subcommand counts in
//     errorstats only, having no command to charge.
//   - errorstats count error replies by their first word (the "code"),
//     looked for in the first 32 bytes as Redis does, "ERR" otherwise.
//
// The state lives in a slice indexed by Command.statID, so the hot path
// costs one clock read pair and a few adds, with no map lookup.

// statCommands is every command and subcommand in registration order:
// statID indexes it.
var statCommands []*Command

func assignStatIDs(c *Command) {
	c.statID = len(statCommands)
	statCommands = append(statCommands, c)
	switch c.Name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		statScript = append(statScript, true)
	default:
		statScript = append(statScript, false)
	}
	for _, s := range c.Sub {
		s.statID = len(statCommands)
		statCommands = append(statCommands, s)
		statScript = append(statScript, false)
	}
}

type CmdStat struct {
	calls, usec, rejected, failed int64
	Hist                          *hdr.Histogram // nil until a sample, as Redis allocates it lazily
}

// Redis's latency histogram bounds: 1 ns to 1 s, 2 significant figures,
// fed with microseconds times 1000.
const (
	latHistMin = 1
	latHistMax = 1_000_000_000
	latHistSig = 2
)

type obsState struct {
	Cmds        []CmdStat
	errs        map[string]int64
	TotalErrors int64
	// scriptErr is the code of the last error a command inside the
	// running script answered: the script's own error reply with that
	// code is the same error coming back out (Redis's
	// ignore_error_stats_update), counted once.
	scriptErr string
	Slow      slowlog
	Lat       LatencyMonitor
	// RL.CHECK and RL.PEEK answers by limit, for the metrics endpoint
	// (metrics_snapshot.go).
	rl       map[rlSeries]*rlCounts
	rlLimits map[int64]bool
	// The series of the last decision: a server runs one or a few limits,
	// and two map operations per request were a twentieth of an
	// in-process RL.CHECK.
	rlHot    *rlCounts
	rlHotKey rlSeries
}

func (o *obsState) Stat(c *Command) *CmdStat {
	if o.Cmds == nil {
		o.Cmds = make([]CmdStat, len(statCommands))
	}
	return &o.Cmds[c.statID]
}

// errorCode is the code Redis counts an error reply under: the first
// word of the message within its first 31 bytes, else ERR.
func ErrorCode(msg []byte) string {
	n := min(len(msg), 31)
	for i := 0; i < n; i++ {
		if msg[i] == ' ' {
			return string(msg[:i])
		}
	}
	return "ERR"
}

func (o *obsState) countError(code string) {
	if o.errs == nil {
		o.errs = make(map[string]int64)
	}
	o.errs[code]++
	o.TotalErrors++
}

// replyError returns the message of the error reply w holds at mark (the
// bytes after '-', up to CR), or nil if the reply there is no error.
func replyError(b []byte, mark int) []byte {
	if len(b) <= mark || b[mark] != '-' {
		return nil
	}
	msg := b[mark+1:]
	for i, ch := range msg {
		if ch == '\r' {
			return msg[:i]
		}
	}
	return msg
}

// monoBase anchors monoNow: time.Since of a time with a monotonic
// reading reads only the monotonic clock, half the cost of time.Now's
// wall and monotonic pair on the hot path.
var monoBase = time.Now()

func monoNow() time.Duration { return time.Since(monoBase) }

// afterCall records a handler's run that started at start and wrote its
// reply to x.W from mark on. Called by Engine.call with the lock held.
func (e *Engine) afterCall(x *Ctx, mark int, start time.Duration) {
	us := (monoNow() - start).Microseconds()
	o := &e.Obs
	st := o.Stat(x.Cmd)
	st.usec += us
	if !x.Rerun {
		st.calls++
	}
	if msg := replyError(x.W.Bytes(), mark); msg != nil {
		st.failed++
		o.replyErrorCounted(x, msg)
	} else if statScript[x.Cmd.statID] {
		// A script's reply may hold errors deeper down ({1, {err=...}}),
		// which Redis counts as it writes them: each one a command of the
		// script answered marks the call failed by itself (the
		// ERR_REPLY_FLAG_NO_STATS_UPDATE path), the others once together.
		fresh := false
		NestedErrors(x.W.Bytes()[mark:], func(msg []byte) {
			if o.replyErrorCounted(x, msg) {
				fresh = true
			} else {
				st.failed++
			}
		})
		if fresh {
			st.failed++
		}
	}
	if !x.C.InScript {
		o.scriptErr = ""
	}
	if x.Rerun {
		return
	}
	if e.Cfg.Obs.LatencyTracking.Load() {
		if st.Hist == nil {
			st.Hist = hdr.New(latHistMin, latHistMax, latHistSig)
		}
		st.Hist.Record(min(max(us*1000, latHistMin), latHistMax))
	}
	e.latencySample(x.Cmd, us/1000)
	e.slowlogPush(x, us)
}

// replyErrorCounted counts an error reply in errorstats, unless it is
// one a command of the script that answers it answered first (reported
// false).
func (o *obsState) replyErrorCounted(x *Ctx, msg []byte) bool {
	code := ErrorCode(msg)
	switch {
	case x.C.InScript:
		o.scriptErr = code
	case o.scriptErr != "" && o.scriptErr == code:
		return false
	}
	o.countError(code)
	return true
}

// nestedErrors calls f with the message of every simple error in the
// RESP reply b, at any depth.
func NestedErrors(b []byte, f func(msg []byte)) {
	line := func(i int) (string, int) {
		for j := i; j+1 < len(b); j++ {
			if b[j] == '\r' {
				return string(b[i:j]), j + 2
			}
		}
		return "", len(b)
	}
	var walk func(i int) int
	walk = func(i int) int {
		if i >= len(b) {
			return i
		}
		t := b[i]
		s, next := line(i + 1)
		switch t {
		case '-':
			f(b[i+1 : next-2])
		case '$', '=', '!':
			if n, err := strconv.Atoi(s); err == nil && n >= 0 {
				next += n + 2
			}
		case '*', '~', '>', '%', '|':
			n, _ := strconv.Atoi(s)
			if t == '%' || t == '|' {
				n *= 2
			}
			for ; n > 0 && next < len(b); n-- {
				next = walk(next)
			}
			if t == '|' {
				next = walk(next) // the attribute's value follows it
			}
		}
		return next
	}
	walk(0)
}

// statScript marks, by statID, the commands that run a script.
var statScript []bool

// afterReject records a command the dispatcher refused with msg (cmd is
// nil for an unknown command or subcommand).
func (e *Engine) afterReject(cmd *Command, msg string) {
	if cmd != nil {
		e.Obs.Stat(cmd).rejected++
	}
	e.Obs.countError(ErrorCode([]byte(msg)))
}

// resetCmdStats is CONFIG RESETSTAT's part: command, error and latency
// statistics (not the slow log nor the latency monitor, as in Redis), and
// the RL decisions the metrics endpoint counts.
func (e *Engine) ResetCmdStats() {
	o := &e.Obs
	clear(o.Cmds)
	o.errs = nil
	o.TotalErrors = 0
	o.rl, o.rlLimits, o.rlHot = nil, nil, nil
}

// statsInOrder calls f for every command with statistics, top-level
// commands by name, each followed by its subcommands by name (Redis
// walks its command dict, whose order is a hash's: clients cannot rely
// on it, so a sorted one is as good and stable).
func (e *Engine) StatsInOrder(f func(c *Command, st *CmdStat)) {
	if e.Obs.Cmds == nil {
		return
	}
	for _, c := range All() {
		f(c, e.Obs.Stat(c))
		if len(c.Sub) == 0 {
			continue
		}
		names := make([]string, 0, len(c.Sub))
		for n := range c.Sub {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			f(c.Sub[n], e.Obs.Stat(c.Sub[n]))
		}
	}
}

func InfoCommandStats(x *Ctx, b *InfoBuf) {
	x.E.StatsInOrder(func(c *Command, st *CmdStat) {
		if st.calls == 0 && st.failed == 0 && st.rejected == 0 {
			return
		}
		per := 0.0
		if st.calls > 0 {
			per = float64(float32(st.usec) / float32(st.calls))
		}
		b.Kv("cmdstat_"+infoSafe(c.Name), "calls="+strconv.FormatInt(st.calls, 10)+
			",usec="+strconv.FormatInt(st.usec, 10)+
			",usec_per_call="+strconv.FormatFloat(per, 'f', 2, 64)+
			",rejected_calls="+strconv.FormatInt(st.rejected, 10)+
			",failed_calls="+strconv.FormatInt(st.failed, 10))
	})
}

func InfoErrorStats(x *Ctx, b *InfoBuf) {
	o := &x.E.Obs
	codes := make([]string, 0, len(o.errs))
	for c := range o.errs {
		codes = append(codes, c)
	}
	sort.Strings(codes) // Redis's rax iterates in byte order
	for _, c := range codes {
		b.Kv("errorstat_"+infoSafe(c), "count="+strconv.FormatInt(o.errs[c], 10))
	}
}

func InfoLatencyStats(x *Ctx, b *InfoBuf) {
	if !x.E.Cfg.Obs.LatencyTracking.Load() {
		return
	}
	pcts := x.E.Cfg.Obs.Percentiles()
	x.E.StatsInOrder(func(c *Command, st *CmdStat) {
		if st.Hist == nil {
			return
		}
		v := make([]byte, 0, 64)
		for i, p := range pcts {
			if i > 0 {
				v = append(v, ',')
			}
			v = append(v, 'p')
			v = append(v, config.FormatPercentile(p)...)
			v = append(v, '=')
			v = strconv.AppendFloat(v, float64(st.Hist.ValueAtPercentile(p))/1000, 'f', 3, 64)
		}
		b.Kv("latency_percentiles_usec_"+infoSafe(c.Name), string(v))
	})
}

// infoSafe is getSafeInfoString: '#', ':', CR and LF in a name would
// break the INFO line format, so they become '_'.
func infoSafe(s string) string {
	if !strings.ContainsAny(s, "#:\r\n") {
		return s
	}
	b := []byte(s)
	for i, ch := range b {
		if ch == '#' || ch == ':' || ch == '\r' || ch == '\n' {
			b[i] = '_'
		}
	}
	return string(b)
}
