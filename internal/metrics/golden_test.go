package metrics

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"
)

type fakeSource engine.MetricsSnapshot

func (f *fakeSource) MetricsSnapshot() engine.MetricsSnapshot { return engine.MetricsSnapshot(*f) }

// richSnapshot has something in every family: commands with and without
// histograms, percentiles, several error codes (one needing escaping), RL
// decisions given out of label order, databases, and values whose float
// spelling is not an integer's.
func richSnapshot() *fakeSource {
	return &fakeSource{
		UptimeSeconds: 12345, StartTimeUnix: 1764623388, ConnectedClients: 7, BlockedClients: 2, MaxClients: 10000,
		ConnectionsReceived: 99, RejectedConnections: 1, CommandsProcessed: 123456789, ErrorReplies: 17,
		KeyspaceHits: 1 << 40, KeyspaceMisses: 3, ExpiredKeys: 5, EvictedKeys: 0, UsedMemory: 1<<40 + 123,
		MaxMemory: 0, NetInput: 4096, NetOutput: 123456789012,
		DBs: []engine.DBMetrics{{DB: 0, Keys: 1000000, Expiring: 999}, {DB: 3, Keys: 1, Expiring: 0}, {DB: 15, Keys: 2, Expiring: 2}},
		Commands: []engine.CommandMetrics{
			{Name: "get", Calls: 10, Usec: 37, Buckets: buckets(1, 4, 2, 8, 16, 10), HistCount: 10,
				Percentiles: []float64{1.003, 2.007, 16.127}},
			{Name: "set", Calls: 3, Usec: 1234567, Rejected: 1, Failed: 1,
				Buckets: buckets(4, 1, 1024, 2, 1048576, 3), HistCount: 3,
				Percentiles: []float64{1024.511, 1048575.999, math.Inf(1)}},
			{Name: "client|list", Calls: 1, Usec: 5},
			{Name: "incr", Rejected: 2},
			{Name: "hist|only", Buckets: buckets(8, 1), HistCount: 1, Percentiles: []float64{8.001, 8.001, 8.001}},
			{Name: "rl.check", Calls: 5, Usec: 50, Buckets: buckets(32, 5), HistCount: 5,
				Percentiles: []float64{0.0001, 1e-07, 32}},
		},
		Errors:          map[string]int64{"ERR": 12, "WRONGTYPE": 3, "NOSCRIPT": 1, `ODD"x\y` + "\nz": 1},
		PercentileRanks: []float64{50, 99, 99.9},
		RL: []engine.RLDecision{
			{Cmd: "rl.all", Algorithm: "token_bucket", Limit: "10", Allowed: false, Count: 2},
			{Cmd: "rl.check", Algorithm: "sliding_log", Limit: "10", Allowed: false, Count: 1},
			{Cmd: "rl.check", Algorithm: "sliding_log", Limit: "10", Allowed: true, Count: 9},
			{Cmd: "rl.check", Algorithm: "sliding_log", Limit: "2", Allowed: true, Count: 2},
			{Cmd: "rl.check", Algorithm: "sliding_log", Limit: "other", Allowed: false, Count: 4},
			{Cmd: "rl.gcra", Algorithm: "gcra", Limit: "6", Allowed: true, Count: 3},
			{Cmd: "rl.peek", Algorithm: "sliding_log", Limit: "2", Allowed: false, Count: 1},
		},
		RDBChangesSinceLastSave: 42, RDBLastSaveTime: 1764620000, RDBBgsaveInProgress: true, RDBLastBgsaveOK: true,
	}
}

// buckets makes LatencyBuckets from (upper µs, cumulative) pairs.
func buckets(pairs ...int64) []engine.LatencyBucket {
	var out []engine.LatencyBucket
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, engine.LatencyBucket{UpperUsec: pairs[i], Cumulative: pairs[i+1]})
	}
	return out
}

// bareSnapshot is a fresh server's: no commands, errors, decisions or
// percentile ranks.
func bareSnapshot() *fakeSource {
	return &fakeSource{StartTimeUnix: 1764623388, MaxClients: 10000, Errors: map[string]int64{}}
}

func get(t *testing.T, h http.Handler, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", "/metrics", nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// TestGolden: the exposition is byte for byte what the client_golang
// implementation this package replaced gave for the same snapshots
// (testdata/*.txt were written by it, in the commit before it went: do
// not regenerate them from this code).
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		src  *fakeSource
	}{
		{"testdata/rich.txt", richSnapshot()},
		{"testdata/bare.txt", bareSnapshot()},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res := get(t, Handler(tc.src), nil)
			got, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("output differs from %s:\n%s", tc.file, lineDiff(string(want), string(got)))
			}
		})
	}
}

// lineDiff lists the first lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out string
	n := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			out += "line " + strconv.Itoa(i+1) + ":\n  want " + a + "\n  got  " + b + "\n"
			if n++; n == 10 {
				break
			}
		}
	}
	return out
}
