package conformance

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// INFO commandstats/errorstats/latencystats, SLOWLOG and LATENCY. Times
// differ between two servers, so those replies are compared by shape
// (field names, order, numbers where numbers are) while the counts
// (calls, rejected_calls, failed_calls, errorstat counts) must be equal.
// Each case starts with CONFIG RESETSTAT; the runner's own commands
// (HELLO before it, CLIENT LIST while settling a blocked client) are left
// out of the comparison where they can differ.

// infoText is an INFO reply's text in either protocol.
func infoText(r *Reply) (string, error) {
	switch r.Type {
	case '$':
		return r.Str, nil
	case '=':
		return strings.TrimPrefix(r.Str, "txt:"), nil
	}
	return "", fmt.Errorf("not an INFO reply: %q", r.Raw)
}

var (
	cmdstatLine = regexp.MustCompile(`^cmdstat_([^:]+):calls=(\d+),usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=(\d+),failed_calls=(\d+)$`)
	// runnerCmds are what the runner itself may send a different number of
	// times to the two servers.
	runnerCmds = map[string]bool{"client|list": true}
)

// sameCommandStats compares INFO commandstats: every line well formed, the
// same commands with the same counts.
func sameCommandStats(rds, lkv *Reply) error {
	parse := func(r *Reply) (map[string]string, error) {
		s, err := infoText(r)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimSuffix(s, "\r\n"), "\r\n")
		if lines[0] != "# Commandstats" {
			return nil, fmt.Errorf("header %q", lines[0])
		}
		out := map[string]string{}
		for _, l := range lines[1:] {
			m := cmdstatLine.FindStringSubmatch(l)
			if m == nil {
				return nil, fmt.Errorf("malformed line %q", l)
			}
			if !runnerCmds[m[1]] {
				out[m[1]] = "calls=" + m[2] + ",rejected_calls=" + m[3] + ",failed_calls=" + m[4]
			}
		}
		return out, nil
	}
	a, err := parse(rds)
	if err != nil {
		return fmt.Errorf("redis: %v", err)
	}
	b, err := parse(lkv)
	if err != nil {
		return fmt.Errorf("limitkv: %v", err)
	}
	return sameStringMaps(a, b)
}

func sameStringMaps(a, b map[string]string) error {
	var diffs []string
	for k, v := range a {
		if b[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: redis %q, limitkv %q", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: redis none, limitkv %q", k, v))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	return nil
}

// sameLatencyStats compares INFO latencystats: the same commands, each
// line with the percentiles named pcts and values with 3 decimals.
func sameLatencyStats(pcts ...string) func(rds, lkv *Reply) error {
	vals := make([]string, len(pcts))
	for i, p := range pcts {
		vals[i] = "p" + regexp.QuoteMeta(p) + `=\d+\.\d{3}`
	}
	line := regexp.MustCompile(`^latency_percentiles_usec_([^:]+):` + strings.Join(vals, ",") + `$`)
	return func(rds, lkv *Reply) error {
		parse := func(r *Reply) (map[string]string, error) {
			s, err := infoText(r)
			if err != nil {
				return nil, err
			}
			lines := strings.Split(strings.TrimSuffix(s, "\r\n"), "\r\n")
			if lines[0] != "# Latencystats" {
				return nil, fmt.Errorf("header %q", lines[0])
			}
			out := map[string]string{}
			for _, l := range lines[1:] {
				m := line.FindStringSubmatch(l)
				if m == nil {
					return nil, fmt.Errorf("malformed line %q", l)
				}
				if !runnerCmds[m[1]] {
					out[m[1]] = "ok"
				}
			}
			return out, nil
		}
		a, err := parse(rds)
		if err != nil {
			return fmt.Errorf("redis: %v", err)
		}
		b, err := parse(lkv)
		if err != nil {
			return fmt.Errorf("limitkv: %v", err)
		}
		return sameStringMaps(a, b)
	}
}

// sameInfoSections compares the section titles of an INFO reply.
func sameInfoSections(rds, lkv *Reply) error {
	titles := func(r *Reply) (string, error) {
		s, err := infoText(r)
		if err != nil {
			return "", err
		}
		var t []string
		for _, l := range strings.Split(s, "\r\n") {
			if strings.HasPrefix(l, "# ") {
				t = append(t, l[2:])
			}
		}
		return strings.Join(t, ","), nil
	}
	a, err := titles(rds)
	if err != nil {
		return err
	}
	b, err := titles(lkv)
	if err != nil {
		return err
	}
	if a != b {
		return fmt.Errorf("sections %s against %s", a, b)
	}
	return nil
}

// restoreObserveConfig puts back the defaults the cases change, even when a
// case fails half way.
func restoreObserveConfig(t *testing.T) {
	t.Cleanup(func() {
		rds, lkv := dialPair(t)
		defer rds.Close()
		defer lkv.Close()
		for _, rc := range []*RawConn{rds, lkv} {
			rc.Do("AUTH", "pw") // in case the requirepass case stopped half way
			for _, kv := range [][2]string{
				{"slowlog-log-slower-than", "10000"}, {"slowlog-max-len", "128"},
				{"latency-monitor-threshold", "0"}, {"latency-tracking", "yes"},
				{"latency-tracking-info-percentiles", "50 99 99.9"}, {"requirepass", ""},
			} {
				rc.Do("CONFIG", "SET", kv[0], kv[1])
			}
			rc.Do("SLOWLOG", "RESET")
			rc.Do("LATENCY", "RESET")
		}
	})
}

func TestObserveCommandStats(t *testing.T) {
	restoreObserveConfig(t)
	big := strings.Repeat("x", 40)
	runCases(t, []Case{
		{Name: "calls, failures, rejections and error codes", Cmds: []Cmd{
			C("CONFIG", "RESETSTAT"),
			C("SET", "s", "v"),
			C("INCR", "s"),
			C("LPUSH", "s", "x"),
			C("NOSUCHCMD", "a"),
			C("GET"),
			C("CLIENT", "NOSUCH"),
			C("CLIENT"),
			C("CONFIG", "GET"),
			C("EVAL", "return redis.call('incr', KEYS[1])", "1", "s"),
			C("EVAL", "return redis.pcall('incr', KEYS[1])", "1", "s"),
			C("EVAL", "return redis.error_reply('MYCODE bad')", "0"),
			C("EVAL", "return redis.error_reply('NOSPACE')", "0"),
			C("EVAL", "return redis.error_reply('"+big+" long code')", "0"),
			C("EVAL", "return redis.error_reply('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 x')", "0"),
			C("EVAL", "return redis.error_reply('ABCDEFGHIJKLMNOPQRSTUVWXYZ01234 x')", "0"),
			C("EVAL", "return {1, {err='NESTED z'}}", "0"),
			C("EVAL", "return {redis.pcall('incr', KEYS[1])}", "1", "s"),
			C("EVAL", "return {redis.pcall('incr', KEYS[1]), {err='FOO x'}}", "1", "s"),
			C("EVAL", "error('boom')", "0"),
			C("EVAL", "return redis.call('nosuch')", "0"),
			C("INFO", "commandstats").Check("commandstats", sameCommandStats),
			C("INFO", "errorstats"),
			C("INFO", "stats").Check("total_error_replies", infoField("total_error_replies")),
			C("INFO", "latencystats").Check("latencystats", sameLatencyStats("50", "99", "99.9")),
		}},
		{Name: "transactions", Cmds: []Cmd{
			C("CONFIG", "RESETSTAT"),
			C("MULTI"),
			C("SET", "a", "1"),
			C("INCR", "a", "b"),
			C("EXEC"),
			C("MULTI"),
			C("LPUSH", "s", "x"),
			C("INCR", "s"),
			C("EXEC"),
			C("EXEC"),
			C("DISCARD"),
			C("INFO", "commandstats").Check("commandstats", sameCommandStats),
			C("INFO", "errorstats"),
			C("INFO", "stats").Check("total_error_replies", infoField("total_error_replies")),
		}},
		{Name: "blocked commands count once", Cmds: []Cmd{
			C("CONFIG", "RESETSTAT"),
			C("BLPOP", "l", "0.05"),
			C("BLPOP", "l", "0").On(1).NoReply(),
			C("RPUSH", "l", "a"),
			Recv().On(1),
			C("INFO", "commandstats").Check("commandstats", sameCommandStats),
			C("INFO", "latencystats").Check("latencystats", sameLatencyStats("50", "99", "99.9")),
		}},
		{Name: "refused before the handler", RESP2Only: "HELLO 3 on the second connection would itself be refused", Cmds: []Cmd{
			C("CONFIG", "RESETSTAT"),
			C("CONFIG", "SET", "requirepass", "pw"),
			C("GET", "x").On(1),
			C("PING").On(1),
			C("AUTH", "wrong").On(1),
			C("AUTH", "pw").On(1),
			C("CONFIG", "SET", "requirepass", ""),
			C("INFO", "commandstats").Check("commandstats", sameCommandStats),
			C("INFO", "errorstats"),
		}},
		{Name: "RESETSTAT clears them", Cmds: []Cmd{
			C("INCR", "nokey"),
			C("NOSUCHCMD"),
			C("CONFIG", "RESETSTAT"),
			C("INFO", "errorstats"),
			C("INFO", "commandstats").Check("commandstats", sameCommandStats),
			C("INFO", "stats").Check("total_error_replies", infoField("total_error_replies")),
			C("INFO", "latencystats").Check("latencystats", sameLatencyStats("50", "99", "99.9")),
		}},
		{Name: "which sections INFO shows", Cmds: []Cmd{
			C("INFO").Check("default", sameInfoSections),
			C("INFO", "default").Check("default", sameInfoSections),
			C("INFO", "all").Check("all", sameInfoSections),
			C("INFO", "everything").Check("everything", sameInfoSections),
			C("INFO", "commandstats", "errorstats").Check("two", sameInfoSections),
			C("INFO", "LATENCYSTATS", "server").Check("mixed", sameInfoSections),
		}},
	})
}

func TestObserveLatencyTracking(t *testing.T) {
	restoreObserveConfig(t)
	runCases(t, []Case{
		{Name: "settings", Cmds: []Cmd{
			C("CONFIG", "GET", "latency-tracking"),
			C("CONFIG", "GET", "latency-tracking-info-percentiles"),
			C("CONFIG", "GET", "slowlog-*").PairsUnordered(), // Redis: its dict's order
			C("CONFIG", "GET", "latency-monitor-threshold"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "0 100 33.3333 99.990"),
			C("CONFIG", "GET", "latency-tracking-info-percentiles"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "1 101"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "-1"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "1  2"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "abc"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", " 5"),
			C("CONFIG", "GET", "latency-tracking-info-percentiles"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", ""),
			C("CONFIG", "GET", "latency-tracking-info-percentiles"),
			C("CONFIG", "SET", "latency-tracking", "maybe"),
			C("CONFIG", "SET", "slowlog-log-slower-than", "-2"),
			C("CONFIG", "SET", "slowlog-log-slower-than", "x"),
			C("CONFIG", "SET", "slowlog-max-len", "-1"),
			C("CONFIG", "SET", "latency-monitor-threshold", "-1"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"),
		}},
		{Name: "percentiles shown", Cmds: []Cmd{
			C("CONFIG", "RESETSTAT"),
			C("SET", "a", "1"),
			C("GET", "a"),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "0 12.5 100"),
			C("INFO", "latencystats").Check("latencystats", sameLatencyStats("0", "12.5", "100")),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", ""),
			C("INFO", "latencystats").Check("latencystats", func(rds, lkv *Reply) error {
				a, _ := infoText(rds)
				b, _ := infoText(lkv)
				strip := func(s string) string {
					var keep []string
					for _, l := range strings.Split(s, "\r\n") {
						if !strings.HasPrefix(l, "latency_percentiles_usec_client|list:") {
							keep = append(keep, l)
						}
					}
					sort.Strings(keep)
					return strings.Join(keep, "\n")
				}
				if strip(a) != strip(b) {
					return fmt.Errorf("%q against %q", a, b)
				}
				return nil
			}),
			C("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"),
		}},
		{Name: "tracking off", Cmds: []Cmd{
			C("CONFIG", "RESETSTAT"),
			C("CONFIG", "SET", "latency-tracking", "no"),
			C("SET", "a", "1"),
			C("INFO", "latencystats"),
			C("LATENCY", "HISTOGRAM", "set"),
			C("CONFIG", "SET", "latency-tracking", "yes"),
		}},
		{Name: "LATENCY HISTOGRAM", Cmds: []Cmd{
			C("CONFIG", "RESETSTAT"),
			C("SET", "a", "1"),
			C("SET", "b", "2"),
			C("GET", "a"),
			C("CLIENT", "GETNAME"),
			C("LATENCY", "HISTOGRAM", "set", "nosuch", "GET", "client").Check("histogram", sameHistograms),
			C("LATENCY", "HISTOGRAM", "client|getname", "config|nosuch", "a|b|c").Check("histogram", sameHistograms),
			C("LATENCY", "HISTOGRAM").Check("histogram", sameHistograms),
			C("LATENCY", "HISTOGRAM", "nosuch"),
		}},
	})
}

// sameHistograms compares LATENCY HISTOGRAM replies: the same commands
// with the same calls, each histogram's buckets growing, its keys
// microseconds and its last count the calls.
func sameHistograms(rds, lkv *Reply) error {
	parse := func(r *Reply) (map[string]string, error) {
		if r.Type != '%' && r.Type != '*' {
			return nil, fmt.Errorf("not a map: %q", r.Raw)
		}
		out := map[string]string{}
		for i := 0; i+1 < len(r.Elems); i += 2 {
			name, h := r.Elems[i].Str, r.Elems[i+1]
			if len(h.Elems) != 4 || h.Elems[0].Str != "calls" || h.Elems[2].Str != "histogram_usec" {
				return nil, fmt.Errorf("%s: bad entry %q", name, h.Raw)
			}
			if (r.Type == '%') != (h.Type == '%') || (r.Type == '%') != (h.Elems[3].Type == '%') {
				return nil, fmt.Errorf("%s: maps and arrays mixed: %q", name, h.Raw)
			}
			calls := h.Elems[1].Int
			b := h.Elems[3].Elems
			var prevUs, prevN int64 = -1, 0
			for j := 0; j+1 < len(b); j += 2 {
				us, n := b[j].Int, b[j+1].Int
				if b[j].Type != ':' || b[j+1].Type != ':' || us <= prevUs || n <= prevN {
					return nil, fmt.Errorf("%s: buckets not increasing: %q", name, h.Raw)
				}
				prevUs, prevN = us, n
			}
			if prevN != calls {
				return nil, fmt.Errorf("%s: last bucket %d, calls %d", name, prevN, calls)
			}
			if !runnerCmds[name] {
				out[name] = strconv.FormatInt(calls, 10)
			}
		}
		return out, nil
	}
	a, err := parse(rds)
	if err != nil {
		return fmt.Errorf("redis: %v", err)
	}
	b, err := parse(lkv)
	if err != nil {
		return fmt.Errorf("limitkv: %v", err)
	}
	return sameStringMaps(a, b)
}

// sameSlowlog compares SLOWLOG GET replies: entries with the same
// arguments and client names, ids consecutive and falling, times and
// durations numbers, addresses host:port.
func sameSlowlog(rds, lkv *Reply) error {
	addr := regexp.MustCompile(`^127\.0\.0\.1:\d+$`)
	parse := func(r *Reply) ([]string, error) {
		if r.Type != '*' {
			return nil, fmt.Errorf("not an array: %q", r.Raw)
		}
		var out []string
		var prevID int64 = -1
		for _, e := range r.Elems {
			if len(e.Elems) != 6 || e.Elems[0].Type != ':' || e.Elems[1].Type != ':' || e.Elems[2].Type != ':' || e.Elems[3].Type != '*' {
				return nil, fmt.Errorf("bad entry %q", e.Raw)
			}
			if id := e.Elems[0].Int; prevID >= 0 && id != prevID-1 {
				return nil, fmt.Errorf("ids %d then %d", prevID, id)
			} else {
				prevID = id
			}
			if !addr.MatchString(e.Elems[4].Str) {
				return nil, fmt.Errorf("address %q", e.Elems[4].Str)
			}
			out = append(out, fmt.Sprintf("%s name=%q", e.Elems[3].Raw, e.Elems[5].Str))
		}
		return out, nil
	}
	a, err := parse(rds)
	if err != nil {
		return fmt.Errorf("redis: %v", err)
	}
	b, err := parse(lkv)
	if err != nil {
		return fmt.Errorf("limitkv: %v", err)
	}
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		return fmt.Errorf("entries\n%s\nagainst\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	return nil
}

func TestObserveSlowlog(t *testing.T) {
	restoreObserveConfig(t)
	many := []string{"RPUSH", "biglist"}
	for i := range 40 {
		many = append(many, strconv.Itoa(i))
	}
	runCases(t, []Case{
		{Name: "entries", Cmds: []Cmd{
			C("CONFIG", "SET", "slowlog-log-slower-than", "0"),
			C("SLOWLOG", "RESET"),
			C("SLOWLOG", "LEN"),
			C("CLIENT", "SETNAME", "observer"),
			C("SET", "k", strings.Repeat("v", 200)),
			C("SET", "k2", strings.Repeat("w", 128)),
			C(many...),
			C("AUTH", "secret"),
			C("EXEC"),
			C("SLOWLOG", "LEN"),
			C("SLOWLOG", "GET", "3").Check("slowlog", sameSlowlog),
			C("SLOWLOG", "GET", "-1").Check("slowlog", sameSlowlog),
			C("SLOWLOG", "GET").Check("slowlog", sameSlowlog),
			C("SLOWLOG", "GET", "0"),
			C("SLOWLOG", "GET", "-2"),
			C("SLOWLOG", "GET", "x"),
			C("SLOWLOG", "GET", "1", "2"),
			C("SLOWLOG", "LEN", "x"),
			C("SLOWLOG", "RESET", "x"),
			C("SLOWLOG", "NOSUCH"),
			C("SLOWLOG"),
			C("SLOWLOG", "HELP"),
			C("CONFIG", "SET", "slowlog-max-len", "2"),
			C("SLOWLOG", "LEN"),
			C("PING"),
			C("SLOWLOG", "LEN"),
			C("CONFIG", "SET", "slowlog-log-slower-than", "-1"),
			C("SLOWLOG", "RESET"),
			C("PING"),
			C("SLOWLOG", "LEN"),
			C("CONFIG", "SET", "slowlog-max-len", "128"),
			C("CONFIG", "SET", "slowlog-log-slower-than", "10000"),
		}},
	})
}

// recordedSleep checks LATENCY LATEST after a 100 ms DEBUG SLEEP: exactly
// its "command" event, at no less than the time slept. With lkv, it is also
// sameLatencyLatest between the two servers; with lkv nil, it checks rds
// alone.
func recordedSleep(rds, lkv *Reply) error {
	rs := []*Reply{rds}
	if lkv != nil {
		if err := sameLatencyLatest(rds, lkv); err != nil {
			return err
		}
		rs = append(rs, lkv)
	}
	for _, r := range rs {
		if len(r.Elems) != 1 || r.Elems[0].Elems[0].Str != "command" || r.Elems[0].Elems[2].Int < 100 {
			return fmt.Errorf("want one command event of at least 100 ms, got %q", r.Raw)
		}
	}
	return nil
}

// sameLatencyLatest compares LATENCY LATEST: the same events, each with a
// time, a latency and a maximum.
func sameLatencyLatest(rds, lkv *Reply) error {
	parse := func(r *Reply) ([]string, error) {
		var out []string
		for _, e := range r.Elems {
			if len(e.Elems) != 4 || e.Elems[1].Type != ':' || e.Elems[2].Type != ':' || e.Elems[3].Type != ':' || e.Elems[2].Int > e.Elems[3].Int {
				return nil, fmt.Errorf("bad entry %q", e.Raw)
			}
			out = append(out, e.Elems[0].Str)
		}
		sort.Strings(out)
		return out, nil
	}
	a, err := parse(rds)
	if err != nil {
		return fmt.Errorf("redis: %v", err)
	}
	b, err := parse(lkv)
	if err != nil {
		return fmt.Errorf("limitkv: %v", err)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Errorf("events %v against %v", a, b)
	}
	return nil
}

// sameLatencyText compares a LATENCY GRAPH or DOCTOR text with the numbers
// taken out (latencies and ages differ between servers).
func sameLatencyText(rds, lkv *Reply) error {
	digits := regexp.MustCompile(`\d+(\.\d+)?`)
	norm := func(r *Reply) string {
		s, _ := infoText(r)
		return digits.ReplaceAllString(s, "N")
	}
	if rds.Type != lkv.Type || norm(rds) != norm(lkv) {
		return fmt.Errorf("%q against %q", rds.Raw, lkv.Raw)
	}
	return nil
}

func TestObserveLatencyMonitor(t *testing.T) {
	// DEBUG SLEEP takes at least its 100 ms on any machine, twice the
	// 50 ms threshold, where a busy loop's time would depend on the CPU;
	// the other commands of the case stay far under it even when loaded.
	// DEBUG needs enable-debug-command, hence a private pair of servers.
	slow := []string{"DEBUG", "SLEEP", "0.1"}
	rdsAddr, lkvAddr := debugPair(t, "yes")
	// The cases compare the two servers, and replies equal byte for byte
	// are never checked further: two monitors that both missed the event
	// would agree. So each server must first show the event on its own.
	for _, srv := range []struct{ name, addr string }{{"redis", rdsAddr}, {"limitkv", lkvAddr}} {
		rc := dialRaw(t, srv.name, srv.addr)
		rc.MustDo(t, "CONFIG", "SET", "latency-monitor-threshold", "50")
		rc.MustDo(t, "LATENCY", "RESET")
		if r := rc.MustDo(t, slow...); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("%s: DEBUG SLEEP answered %q", srv.name, r.Raw)
		}
		if err := recordedSleep(rc.MustDo(t, "LATENCY", "LATEST"), nil); err != nil {
			t.Errorf("%s: %v", srv.name, err)
		}
		if r := rc.MustDo(t, "LATENCY", "HISTORY", "command"); len(r.Elems) != 1 || len(r.Elems[0].Elems) != 2 || r.Elems[0].Elems[1].Int < 100 {
			t.Errorf("%s: LATENCY HISTORY command: %q", srv.name, r.Raw)
		}
		rc.MustDo(t, "CONFIG", "SET", "latency-monitor-threshold", "0")
		rc.MustDo(t, "LATENCY", "RESET")
		rc.Close()
	}
	runCasesOn(t, rdsAddr, lkvAddr, []Case{
		{Name: "disabled", Cmds: []Cmd{
			C("LATENCY", "RESET"),
			C("LATENCY", "LATEST"),
			C("LATENCY", "HISTORY", "command"),
			C("LATENCY", "DOCTOR"),
			C("LATENCY", "GRAPH", "command"),
			C(slow...),
			C("LATENCY", "LATEST"),
		}},
		{Name: "events", Cmds: []Cmd{
			C("LATENCY", "RESET"),
			C("CONFIG", "SET", "latency-monitor-threshold", "50"),
			C(slow...),
			C("LATENCY", "LATEST").Check("latest", recordedSleep),
			C("LATENCY", "HISTORY", "command").Check("history", func(rds, lkv *Reply) error {
				if len(rds.Elems) != 1 || len(lkv.Elems) != 1 || len(lkv.Elems[0].Elems) != 2 {
					return fmt.Errorf("%q against %q", rds.Raw, lkv.Raw)
				}
				return nil
			}),
			C("LATENCY", "GRAPH", "command").Check("graph", sameLatencyText),
			C("LATENCY", "GRAPH", "COMMAND"),
			C("LATENCY", "DOCTOR").Check("doctor", sameLatencyText),
			C("LATENCY", "RESET", "nosuch", "COMMAND", "command"),
			C("LATENCY", "LATEST"),
			C("CONFIG", "SET", "latency-monitor-threshold", "0"),
		}},
		{Name: "errors and help", Cmds: []Cmd{
			C("LATENCY"),
			C("LATENCY", "NOSUCH"),
			C("LATENCY", "LATEST", "x"),
			C("LATENCY", "HISTORY"),
			C("LATENCY", "HISTORY", "a", "b"),
			C("LATENCY", "GRAPH"),
			C("LATENCY", "DOCTOR", "x"),
			C("LATENCY", "HELP"),
			C("LATENCY", "HELP", "x"),
			C("LATENCY", "RESET"),
		}},
	})
}
