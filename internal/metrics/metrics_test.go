package metrics

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

func run(e *engine.Engine, c *engine.Client, args ...string) string {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	var w resp.Writer
	e.Lock()
	e.Exec(c, b, &w)
	e.Unlock()
	return string(w.Bytes())
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestScrape serves an engine's metrics on a real listener, drives some
// traffic through it and checks the exposition: redis_exporter's names and
// labels for what it has, limitkv's RL decisions, and values that follow
// the traffic.
func TestScrape(t *testing.T) {
	e := commands.New(config.DefaultConfig(), nil, nil)
	c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go Serve(ln, e)

	for _, cmd := range [][]string{
		{"SET", "k", "v"}, {"SET", "t", "v", "EX", "100"}, {"GET", "k"}, {"INCR", "k"}, {"NOSUCH"},
		{"SELECT", "3"}, {"SET", "x", "1"},
		{"RL.CHECK", "rl", "1000", "60000", "2", "m1"}, {"RL.CHECK", "rl", "1001", "60000", "2", "m2"},
		{"RL.CHECK", "rl", "1002", "60000", "2", "m3"}, {"RL.PEEK", "rl", "1003", "60000", "2"},
		{"RL.CHECK", "other", "1000", "60000", "10", "m1"},
		// Every algorithm's commands count under their own algorithm.
		{"SELECT", "5"},
		{"CL.THROTTLE", "cell", "0", "1", "60", "2"}, {"CL.THROTTLE", "cell", "0", "1", "60"},
		{"RL.GCRA", "gcra", "1000", "1", "2", "60"}, {"RL.GCRA.PEEK", "gcra", "1000", "1", "2", "60"},
		{"RL.TOKEN", "tb", "1000", "3", "1", "1000", "COST", "4"}, {"RL.TOKEN", "tb", "1000", "3", "1", "1000"},
		{"RL.FIXED", "fw", "60000", "7"}, {"RL.FIXED.PEEK", "fw", "60000", "7"},
		{"RL.SLIDING", "sw", "1000", "60000", "8"}, {"RL.SLIDING.PEEK", "sw", "1000", "60000", "8", "COST", "9"},
		{"RL.ACQUIRE", "lease", "1000", "1", "5000", "a"}, {"RL.ACQUIRE", "lease", "1000", "1", "5000", "b"},
		{"RL.RELEASE", "lease", "1000", "1", "a"},
		{"RL.RESERVE", "budget", "1000", "60000", "100", "30"}, {"RL.SETTLE", "budget", "1000", "60000", "100", "30", "20", "0"},
		{"RL.ALL", "1000", "all:tb", "TOKEN 3 1 1000", "all:lease", "LEASE 1 5000 x", "all:sw", "SLIDING 60000 8 COST 9"},
	} {
		run(e, c, cmd...)
	}
	out := scrape(t, ln.Addr().String())
	for _, want := range []string{
		`redis_up 1`,
		`redis_connected_clients 1`,
		`redis_blocked_clients 0`,
		`redis_commands_total{cmd="set"} 3`,
		`redis_commands_total{cmd="rl.check"} 4`,
		`redis_commands_failed_calls_total{cmd="incr"} 1`,
		`redis_commands_rejected_calls_total{cmd="get"} 0`,
		`redis_errors_total{err="ERR"} 2`,
		`redis_total_error_replies 2`,
		`redis_db_keys{db="db0"} 2`,
		`redis_db_keys_expiring{db="db0"} 1`,
		`redis_db_keys{db="db3"} 3`,
		`redis_db_keys{db="db1"} 0`,
		`redis_expired_keys_total 0`,
		`redis_evicted_keys_total 0`,
		`redis_commands_latencies_usec_count{cmd="get"} 1`,
		`redis_commands_latencies_usec_bucket{cmd="get",le="+Inf"} 1`,
		`redis_latency_percentiles_usec{cmd="get",quantile="99.9"}`,
		`limitkv_ratelimit_decisions_total{algorithm="sliding_log",cmd="rl.check",decision="allowed",limit="2"} 2`,
		`limitkv_ratelimit_decisions_total{algorithm="sliding_log",cmd="rl.check",decision="refused",limit="2"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="sliding_log",cmd="rl.peek",decision="refused",limit="2"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="sliding_log",cmd="rl.check",decision="allowed",limit="10"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="gcra",cmd="cl.throttle",decision="allowed",limit="1"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="gcra",cmd="cl.throttle",decision="refused",limit="1"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="gcra",cmd="rl.gcra",decision="allowed",limit="2"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="gcra",cmd="rl.gcra.peek",decision="allowed",limit="2"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="token_bucket",cmd="rl.token",decision="refused",limit="3"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="token_bucket",cmd="rl.token",decision="allowed",limit="3"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="fixed_window",cmd="rl.fixed",decision="allowed",limit="7"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="fixed_window",cmd="rl.fixed.peek",decision="allowed",limit="7"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="sliding_window",cmd="rl.sliding",decision="allowed",limit="8"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="sliding_window",cmd="rl.sliding.peek",decision="refused",limit="8"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="concurrency",cmd="rl.acquire",decision="allowed",limit="1"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="concurrency",cmd="rl.acquire",decision="refused",limit="1"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="concurrency",cmd="rl.release",decision="allowed",limit="1"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="budget",cmd="rl.reserve",decision="allowed",limit="100"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="budget",cmd="rl.settle",decision="allowed",limit="100"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="token_bucket",cmd="rl.all",decision="allowed",limit="3"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="concurrency",cmd="rl.all",decision="allowed",limit="1"} 1`,
		`limitkv_ratelimit_decisions_total{algorithm="sliding_window",cmd="rl.all",decision="refused",limit="8"} 1`,
	} {
		if !strings.Contains(out, want+"\n") && !strings.Contains(out, want+" ") {
			t.Errorf("scrape lacks %q", want)
		}
	}
	for _, re := range []string{
		`(?m)^redis_commands_duration_seconds_total\{cmd="set"\} [0-9.e+-]+$`,
		`(?m)^redis_memory_used_bytes [1-9][0-9.e+]*$`,
		`(?m)^redis_net_input_bytes_total \d+$`,
		`(?m)^redis_net_output_bytes_total \d+$`,
		`(?m)^redis_commands_latencies_usec_sum\{cmd="get"\} \d+$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("scrape lacks a line matching %s", re)
		}
	}
	if strings.Contains(out, "go_goroutines") {
		t.Error("Go runtime metrics are exposed: they are not Redis's")
	}

	// The counters follow the traffic and CONFIG RESETSTAT.
	run(e, c, "GET", "k")
	if out := scrape(t, ln.Addr().String()); !strings.Contains(out, `redis_commands_total{cmd="get"} 2`+"\n") {
		t.Error("a second GET is not counted")
	}
	run(e, c, "CONFIG", "RESETSTAT")
	out = scrape(t, ln.Addr().String())
	if strings.Contains(out, `redis_commands_total{cmd="get"}`) || strings.Contains(out, "limitkv_ratelimit_decisions_total{") {
		t.Error("CONFIG RESETSTAT left command statistics or RL decisions")
	}
}

// TestRLLimitLabelBounded: a client choosing a new limit per call must not
// grow the label set without end.
func TestRLLimitLabelBounded(t *testing.T) {
	e := commands.New(config.DefaultConfig(), nil, nil)
	c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	for i := range 300 {
		run(e, c, "RL.CHECK", "k", "1000", "60000", strconv.Itoa(i+1), "*")
	}
	s := e.MetricsSnapshot()
	limits := map[string]bool{}
	for _, d := range s.RL {
		limits[d.Limit] = true
	}
	if len(limits) > 257 || !limits["other"] {
		t.Errorf("%d distinct limit labels (other: %v)", len(limits), limits["other"])
	}
}
