package metrics

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/config"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("expfmt cannot parse the exposition: %v\n%s", err, text)
	}
	return mfs
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// labelsOf spells a metric's labels as a{b="c",...}-less key: b=c,d=e.
func labelsOf(m *dto.Metric) string {
	var parts []string
	for _, lp := range m.Label {
		parts = append(parts, lp.GetName()+"="+lp.GetValue())
	}
	return strings.Join(parts, ",")
}

// TestParsedByExpfmt: Prometheus's own parser reads the exposition of the
// rich snapshot back into the families, types, labels and values the
// snapshot holds.
func TestParsedByExpfmt(t *testing.T) {
	mfs := parse(t, body(t, get(t, Handler(richSnapshot()), nil)))
	if len(mfs) != 32 {
		t.Errorf("%d families, want 32", len(mfs))
	}
	type want struct {
		family string
		typ    dto.MetricType
		labels string // "" for a family without labels
		value  float64
	}
	for _, w := range []want{
		{"redis_up", dto.MetricType_GAUGE, "", 1},
		{"redis_start_time_seconds", dto.MetricType_GAUGE, "", 1764623388},
		{"redis_memory_used_bytes", dto.MetricType_GAUGE, "", 1<<40 + 123},
		{"redis_net_output_bytes_total", dto.MetricType_COUNTER, "", 123456789012},
		{"redis_rdb_bgsave_in_progress", dto.MetricType_GAUGE, "", 1},
		{"redis_db_keys", dto.MetricType_GAUGE, "db=db0", 1000000},
		{"redis_db_keys", dto.MetricType_GAUGE, "db=db7", 0},
		{"redis_db_keys_expiring", dto.MetricType_GAUGE, "db=db15", 2},
		{"redis_commands_total", dto.MetricType_COUNTER, "cmd=client|list", 1},
		{"redis_commands_duration_seconds_total", dto.MetricType_COUNTER, "cmd=set", 1.234567},
		{"redis_commands_rejected_calls_total", dto.MetricType_COUNTER, "cmd=incr", 2},
		{"redis_commands_failed_calls_total", dto.MetricType_COUNTER, "cmd=set", 1},
		{"redis_errors_total", dto.MetricType_COUNTER, "err=WRONGTYPE", 3},
		{"redis_errors_total", dto.MetricType_COUNTER, "err=ODD\"x\\y\nz", 1},
		{"limitkv_ratelimit_decisions_total", dto.MetricType_COUNTER, "algorithm=sliding_log,cmd=rl.check,decision=refused,limit=other", 4},
		{"limitkv_ratelimit_decisions_total", dto.MetricType_COUNTER, "algorithm=sliding_log,cmd=rl.peek,decision=refused,limit=2", 1},
		{"limitkv_ratelimit_decisions_total", dto.MetricType_COUNTER, "algorithm=gcra,cmd=rl.gcra,decision=allowed,limit=6", 3},
	} {
		mf := mfs[w.family]
		if mf == nil {
			t.Errorf("no family %s", w.family)
			continue
		}
		if mf.GetType() != w.typ {
			t.Errorf("%s is a %v, want %v", w.family, mf.GetType(), w.typ)
		}
		found := false
		for _, m := range mf.Metric {
			if labelsOf(m) != w.labels {
				continue
			}
			found = true
			v := m.GetGauge().GetValue()
			if w.typ == dto.MetricType_COUNTER {
				v = m.GetCounter().GetValue()
			}
			if v != w.value {
				t.Errorf("%s{%s} = %v, want %v", w.family, w.labels, v, w.value)
			}
		}
		if !found {
			t.Errorf("%s has no series {%s}", w.family, w.labels)
		}
	}
	if n := len(mfs["redis_db_keys"].Metric); n != config.NumDBs {
		t.Errorf("%d redis_db_keys series, want %d", n, config.NumDBs)
	}
	// Commands with calls or errors only: hist|only has neither.
	if n := len(mfs["redis_commands_total"].Metric); n != 5 {
		t.Errorf("%d redis_commands_total series, want 5", n)
	}

	hist := mfs["redis_commands_latencies_usec"]
	if hist.GetType() != dto.MetricType_HISTOGRAM || len(hist.Metric) != 4 {
		t.Fatalf("latency histogram: %v with %d series", hist.GetType(), len(hist.Metric))
	}
	for _, m := range hist.Metric {
		if labelsOf(m) != "cmd=set" {
			continue
		}
		h := m.GetHistogram()
		var got []string
		for _, b := range h.Bucket {
			got = append(got, fmtF(b.GetUpperBound())+":"+fmtF(float64(b.GetCumulativeCount())))
		}
		if strings.Join(got, " ") != "4:1 1024:2 1.048576e+06:3 +Inf:3" || h.GetSampleCount() != 3 || h.GetSampleSum() != 1234567 {
			t.Errorf("set's histogram: buckets %v, count %d, sum %v", got, h.GetSampleCount(), h.GetSampleSum())
		}
	}
	sum := mfs["redis_latency_percentiles_usec"]
	if sum.GetType() != dto.MetricType_SUMMARY || len(sum.Metric) != 4 {
		t.Fatalf("latency summary: %v with %d series", sum.GetType(), len(sum.Metric))
	}
	for _, m := range sum.Metric {
		if labelsOf(m) != "cmd=get" {
			continue
		}
		s := m.GetSummary()
		var got []string
		for _, q := range s.Quantile {
			got = append(got, fmtF(q.GetQuantile())+":"+fmtF(q.GetValue()))
		}
		if strings.Join(got, " ") != "50:1.003 99:2.007 99.9:16.127" || s.GetSampleCount() != 10 || s.GetSampleSum() != 37 {
			t.Errorf("get's summary: quantiles %v, count %d, sum %v", got, s.GetSampleCount(), s.GetSampleSum())
		}
	}
}

func fmtF(v float64) string { return string(appendFloat(nil, v)) }

// TestEscaping: label values and HELP text that need escaping come back
// whole through Prometheus's parser.
func TestEscaping(t *testing.T) {
	values := []string{`a"b`, `back\slash`, "new\nline", `\"` + "\n" + `\n`, "ünï", `trailing\`}
	src := bareSnapshot()
	src.Errors = map[string]int64{}
	for i, v := range values {
		src.Errors[v] = int64(i + 1)
	}
	text := body(t, get(t, Handler(src), nil))
	mf := parse(t, text)["redis_errors_total"]
	if mf == nil {
		t.Fatal("no redis_errors_total")
	}
	got := map[string]float64{}
	for _, m := range mf.Metric {
		got[m.Label[0].GetValue()] = m.GetCounter().GetValue()
	}
	for i, v := range values {
		if got[v] != float64(i+1) {
			t.Errorf("err=%q: %v, want %d (all: %v)", v, got[v], i+1, got)
		}
	}
	if !strings.Contains(text, `redis_errors_total{err="a\"b"} 1`+"\n") ||
		!strings.Contains(text, `redis_errors_total{err="new\nline"} 3`+"\n") ||
		!strings.Contains(text, `redis_errors_total{err="trailing\\"} 6`+"\n") {
		t.Errorf("escaped lines not as expected:\n%s", text)
	}

	d := &desc{name: "x_total", help: "a\\b\nc \"q\"", typ: counter}
	out := string(d.appendFamily(nil, []sample{{value: 1}}))
	if want := "# HELP x_total a\\\\b\\nc \"q\"\n# TYPE x_total counter\nx_total 1\n"; out != want {
		t.Errorf("HELP escaping: %q, want %q", out, want)
	}
	if h := parse(t, out)["x_total"].GetHelp(); h != d.help {
		t.Errorf("HELP parsed back as %q", h)
	}
}

// TestInvalidUTF8ErrorCode: an error code that is not UTF-8 (a script's
// error reply) is exposed as valid UTF-8, codes that then read the same
// summed, and Prometheus's parser takes the scrape. (client_golang
// panicked on such a label value.)
func TestInvalidUTF8ErrorCode(t *testing.T) {
	src := bareSnapshot()
	src.Errors = map[string]int64{"\xff": 2, "\xfe": 3, "ERR": 1}
	text := body(t, get(t, Handler(src), nil))
	mf := parse(t, text)["redis_errors_total"]
	got := map[string]float64{}
	for _, m := range mf.Metric {
		got[m.Label[0].GetValue()] = m.GetCounter().GetValue()
	}
	if len(got) != 2 || got["\uFFFD"] != 5 || got["ERR"] != 1 {
		t.Errorf("errors %v", got)
	}
}

func TestFloatSpelling(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {10000, "10000"}, {1e6, "1e+06"},
		{123456789, "1.23456789e+08"}, {0.0001, "0.0001"}, {5e-6, "5e-06"}, {99.9, "99.9"},
		{math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"}, {math.NaN(), "NaN"}, {1 << 53, "9.007199254740992e+15"},
	} {
		if got := fmtF(tc.v); got != tc.want {
			t.Errorf("%v spelled %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestGzip: the body is gzipped when the scraper asks for it (Prometheus
// and Go's client do), with the same content as unzipped.
func TestGzip(t *testing.T) {
	h := Handler(richSnapshot())
	plain := get(t, h, nil)
	if ct := plain.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if enc := plain.Header.Get("Content-Encoding"); enc != "" {
		t.Errorf("Content-Encoding %q without Accept-Encoding", enc)
	}
	want := body(t, plain)
	res := get(t, h, http.Header{"Accept-Encoding": {"gzip"}})
	if enc := res.Header.Get("Content-Encoding"); enc != "gzip" {
		t.Fatalf("Content-Encoding %q for Accept-Encoding: gzip", enc)
	}
	if v := res.Header.Values("Vary"); strings.Join(v, ",") != "Accept,Accept-Encoding" {
		t.Errorf("Vary %v", v)
	}
	raw := body(t, res)
	zr, err := gzip.NewReader(bytes.NewReader([]byte(raw)))
	if err != nil {
		t.Fatal(err)
	}
	unz, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(unz) != want {
		t.Error("the gunzipped body differs from the plain one")
	}
	if len(raw) >= len(want) {
		t.Errorf("gzipped %d bytes, plain %d", len(raw), len(want))
	}
	// Twice more: the pooled writer is reset between scrapes.
	for range 2 {
		zr, err := gzip.NewReader(get(t, h, http.Header{"Accept-Encoding": {"deflate, gzip;q=0.8"}}).Body)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(zr); string(b) != want {
			t.Error("a later gzipped scrape differs")
		}
	}
}

// TestAcceptsGzip: the choice promhttp made between identity and gzip.
func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header []string
		want   bool
	}{
		{nil, false},
		{[]string{"gzip"}, true},
		{[]string{"gzip, deflate, br"}, true},
		{[]string{"deflate", "gzip"}, true},
		{[]string{"br;q=1.0, gzip;q=0.8, *;q=0.1"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"*"}, false},
		{[]string{"identity;q=0.5, gzip"}, true},
		{[]string{"identity, gzip"}, false},
		{[]string{"deflate"}, false},
	} {
		if got := acceptsGzip(tc.header); got != tc.want {
			t.Errorf("Accept-Encoding %q: gzip %v, want %v", tc.header, got, tc.want)
		}
	}
}

// TestNameFilter: ?name[]= serves the families named, as promhttp did.
func TestNameFilter(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler(richSnapshot()).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics?name[]=redis_up&name[]=redis_errors_total", nil))
	var names []string
	for n := range parse(t, rec.Body.String()) {
		names = append(names, n)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "redis_errors_total redis_up" {
		t.Errorf("families %v", names)
	}
}
