// Package metrics serves limitkv's Prometheus endpoint (--metrics-addr).
//
// Every metric is gathered when scraped, from one copy of the engine's
// counters taken under its lock (engine.Engine.MetricsSnapshot), so
// nothing is added to the command path. Names are those
// oliver006/redis_exporter gives the same INFO fields (namespace "redis"),
// so dashboards made for Redis work unchanged; what only limitkv has is
// under "limitkv".
//
// The exposition is written here in Prometheus's text format 0.0.4, as
// prometheus/client_golang's registry and promhttp wrote it before (the
// golden files in testdata are that implementation's output): linking
// client_golang, client_model and protobuf cost ~3.5 MB of binary and
// ~1.8 MB of RSS in every server, scraped or not.
package metrics

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
)

// Source is what a scrape reads: the engine.
type Source interface {
	MetricsSnapshot() engine.MetricsSnapshot
}

type metricType string

const (
	counter   metricType = "counter"
	gauge     metricType = "gauge"
	histogram metricType = "histogram"
	summary   metricType = "summary"
)

// desc is a metric family's name, help, type and label names.
type desc struct {
	name, help string
	typ        metricType
	labels     []string
}

func redis(name, help string, typ metricType, labels ...string) *desc {
	return &desc{"redis_" + name, help, typ, labels}
}

var (
	dUp            = redis("up", "Information about the Redis instance", gauge)
	dUptime        = redis("uptime_in_seconds", "uptime_in_seconds metric", gauge)
	dStart         = redis("start_time_seconds", "Start time of the Redis instance since unix epoch in seconds.", gauge)
	dClients       = redis("connected_clients", "connected_clients metric", gauge)
	dBlocked       = redis("blocked_clients", "blocked_clients metric", gauge)
	dMaxClients    = redis("max_clients", "max_clients metric", gauge)
	dConnsRecv     = redis("connections_received_total", "connections_received_total metric", counter)
	dConnsRejected = redis("rejected_connections_total", "rejected_connections_total metric", counter)
	dProcessed     = redis("commands_processed_total", "commands_processed_total metric", counter)
	dErrReplies    = redis("total_error_replies", "total_error_replies metric", counter)
	dHits          = redis("keyspace_hits_total", "keyspace_hits_total metric", counter)
	dMisses        = redis("keyspace_misses_total", "keyspace_misses_total metric", counter)
	dExpired       = redis("expired_keys_total", "expired_keys_total metric", counter)
	dEvicted       = redis("evicted_keys_total", "evicted_keys_total metric", counter)
	dMemUsed       = redis("memory_used_bytes", "memory_used_bytes metric", gauge)
	dMemMax        = redis("memory_max_bytes", "memory_max_bytes metric", gauge)
	dNetIn         = redis("net_input_bytes_total", "net_input_bytes_total metric", counter)
	dNetOut        = redis("net_output_bytes_total", "net_output_bytes_total metric", counter)
	dDBKeys        = redis("db_keys", "Total number of keys by DB", gauge, "db")
	dDBExpiring    = redis("db_keys_expiring", "Total number of expiring keys by DB", gauge, "db")
	dCmdCalls      = redis("commands_total", "Total number of calls per command", counter, "cmd")
	dCmdSeconds    = redis("commands_duration_seconds_total", "Total amount of time in seconds spent per command", counter, "cmd")
	dCmdRejected   = redis("commands_rejected_calls_total", "Total number of commands refused before they ran, per command", counter, "cmd")
	dCmdFailed     = redis("commands_failed_calls_total", "Total number of commands that answered an error, per command", counter, "cmd")
	dErrors        = redis("errors_total", "Total number of errors per error type", counter, "err")
	dRDBChanges    = redis("rdb_changes_since_last_save", "rdb_changes_since_last_save metric", gauge)
	dRDBLastSave   = redis("rdb_last_save_timestamp_seconds", "rdb_last_save_timestamp_seconds metric", gauge)
	dRDBInProgress = redis("rdb_bgsave_in_progress", "rdb_bgsave_in_progress metric", gauge)
	dRDBLastOK     = redis("rdb_last_bgsave_status", "rdb_last_bgsave_status metric", gauge)
	dLatHist       = redis("commands_latencies_usec", "A histogram of latencies per command", histogram, "cmd")
	dLatPct        = redis("latency_percentiles_usec", "A summary of latency percentile distribution per command", summary, "cmd")
	dRL            = &desc{"limitkv_ratelimit_decisions_total",
		"Rate-limit decisions (RL.* and CL.THROTTLE) by command, algorithm, limit and decision (allowed or refused)",
		counter, []string{"cmd", "algorithm", "limit", "decision"}}
)

// gather reads one snapshot into families, in no particular order (write
// sorts them).
func gather(s engine.MetricsSnapshot) *families {
	f := newFamilies()
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	f.put(dUp, 1)
	f.put(dUptime, float64(s.UptimeSeconds))
	f.put(dStart, float64(s.StartTimeUnix))
	f.put(dClients, float64(s.ConnectedClients))
	f.put(dBlocked, float64(s.BlockedClients))
	f.put(dMaxClients, float64(s.MaxClients))
	f.put(dConnsRecv, float64(s.ConnectionsReceived))
	f.put(dConnsRejected, float64(s.RejectedConnections))
	f.put(dProcessed, float64(s.CommandsProcessed))
	f.put(dErrReplies, float64(s.ErrorReplies))
	f.put(dHits, float64(s.KeyspaceHits))
	f.put(dMisses, float64(s.KeyspaceMisses))
	f.put(dExpired, float64(s.ExpiredKeys))
	f.put(dEvicted, float64(s.EvictedKeys))
	f.put(dMemUsed, float64(s.UsedMemory))
	f.put(dMemMax, float64(s.MaxMemory))
	f.put(dNetIn, float64(s.NetInput))
	f.put(dNetOut, float64(s.NetOutput))
	f.put(dRDBChanges, float64(s.RDBChangesSinceLastSave))
	f.put(dRDBLastSave, float64(s.RDBLastSaveTime))
	f.put(dRDBInProgress, b2f(s.RDBBgsaveInProgress))
	f.put(dRDBLastOK, b2f(s.RDBLastBgsaveOK))
	// Every database, empty ones at 0, as redis_exporter fills them in.
	var keys, expiring [config.NumDBs]int64
	for _, db := range s.DBs {
		keys[db.DB], expiring[db.DB] = db.Keys, db.Expiring
	}
	for i := range config.NumDBs {
		name := "db" + strconv.Itoa(i)
		f.put(dDBKeys, float64(keys[i]), name)
		f.put(dDBExpiring, float64(expiring[i]), name)
	}
	for _, m := range s.Commands {
		// redis_exporter exports these only for commands in INFO
		// commandstats, i.e. with calls or errors.
		if m.Calls > 0 || m.Rejected > 0 || m.Failed > 0 {
			f.put(dCmdCalls, float64(m.Calls), m.Name)
			f.put(dCmdSeconds, float64(m.Usec)/1e6, m.Name)
			f.put(dCmdRejected, float64(m.Rejected), m.Name)
			f.put(dCmdFailed, float64(m.Failed), m.Name)
		}
		if m.Buckets == nil {
			continue
		}
		// As redis_exporter builds it from LATENCY HISTOGRAM: the bucket
		// bounds in µs, and the commandstats usec as the sum.
		h := sample{count: float64(m.HistCount), sum: float64(m.Usec)}
		for _, b := range m.Buckets {
			h.points = append(h.points, point{float64(b.UpperUsec), float64(b.Cumulative)})
		}
		f.putDist(dLatHist, h, m.Name)
		// As redis_exporter builds it from INFO latencystats: the
		// quantile label is the percentile as INFO names it (99.9, not
		// 0.999), count and sum come from commandstats.
		if len(s.PercentileRanks) > 0 {
			q := sample{count: float64(m.Calls), sum: float64(m.Usec)}
			for i, p := range s.PercentileRanks {
				if i < len(m.Percentiles) {
					q.points = append(q.points, point{p, m.Percentiles[i]})
				}
			}
			f.putDist(dLatPct, q, m.Name)
		}
	}
	errs := make(map[string]int64, len(s.Errors))
	for code, n := range s.Errors {
		// An error code is the first word of whatever error a script
		// returned, so it may not be UTF-8, which Prometheus requires of
		// label values. Codes that read the same once made valid are
		// one series.
		if !utf8.ValidString(code) {
			code = strings.ToValidUTF8(code, "\uFFFD")
		}
		errs[code] += n
	}
	for code, n := range errs {
		f.put(dErrors, float64(n), code)
	}
	for _, d := range s.RL {
		dec := "refused"
		if d.Allowed {
			dec = "allowed"
		}
		f.put(dRL, float64(d.Count), d.Cmd, d.Algorithm, d.Limit, dec)
	}
	return f
}

// Handler serves the metrics of src in Prometheus's text format, gzipped
// when the scraper accepts it, as promhttp did. Only the metrics above:
// no Go runtime metrics, they are not Redis's.
func Handler(src Source) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveScrape(w, r, src)
	})
}

// Serve serves /metrics on ln until it is closed.
func Serve(ln net.Listener, src Source) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(src))
	return http.Serve(ln, mux)
}
