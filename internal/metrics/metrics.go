// Package metrics serves limitkv's Prometheus endpoint (--metrics-addr).
//
// Every metric is gathered when scraped, from one copy of the engine's
// counters taken under its lock (commands.Engine.MetricsSnapshot), so
// nothing is added to the command path. Names are those
// oliver006/redis_exporter gives the same INFO fields (namespace "redis"),
// so dashboards made for Redis work unchanged; what only limitkv has is
// under "limitkv".
package metrics

import (
	"net"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/limitkv/limitkv/internal/commands"
)

// Source is what the collector reads: the engine.
type Source interface {
	MetricsSnapshot() commands.MetricsSnapshot
}

type desc struct {
	d   *prometheus.Desc
	typ prometheus.ValueType
}

func redis(name, help string, typ prometheus.ValueType, labels ...string) desc {
	return desc{prometheus.NewDesc("redis_"+name, help, labels, nil), typ}
}

var (
	dUp            = redis("up", "Information about the Redis instance", prometheus.GaugeValue)
	dUptime        = redis("uptime_in_seconds", "uptime_in_seconds metric", prometheus.GaugeValue)
	dStart         = redis("start_time_seconds", "Start time of the Redis instance since unix epoch in seconds.", prometheus.GaugeValue)
	dClients       = redis("connected_clients", "connected_clients metric", prometheus.GaugeValue)
	dBlocked       = redis("blocked_clients", "blocked_clients metric", prometheus.GaugeValue)
	dMaxClients    = redis("max_clients", "max_clients metric", prometheus.GaugeValue)
	dConnsRecv     = redis("connections_received_total", "connections_received_total metric", prometheus.CounterValue)
	dConnsRejected = redis("rejected_connections_total", "rejected_connections_total metric", prometheus.CounterValue)
	dProcessed     = redis("commands_processed_total", "commands_processed_total metric", prometheus.CounterValue)
	dErrReplies    = redis("total_error_replies", "total_error_replies metric", prometheus.CounterValue)
	dHits          = redis("keyspace_hits_total", "keyspace_hits_total metric", prometheus.CounterValue)
	dMisses        = redis("keyspace_misses_total", "keyspace_misses_total metric", prometheus.CounterValue)
	dExpired       = redis("expired_keys_total", "expired_keys_total metric", prometheus.CounterValue)
	dEvicted       = redis("evicted_keys_total", "evicted_keys_total metric", prometheus.CounterValue)
	dMemUsed       = redis("memory_used_bytes", "memory_used_bytes metric", prometheus.GaugeValue)
	dMemMax        = redis("memory_max_bytes", "memory_max_bytes metric", prometheus.GaugeValue)
	dNetIn         = redis("net_input_bytes_total", "net_input_bytes_total metric", prometheus.CounterValue)
	dNetOut        = redis("net_output_bytes_total", "net_output_bytes_total metric", prometheus.CounterValue)
	dDBKeys        = redis("db_keys", "Total number of keys by DB", prometheus.GaugeValue, "db")
	dDBExpiring    = redis("db_keys_expiring", "Total number of expiring keys by DB", prometheus.GaugeValue, "db")
	dCmdCalls      = redis("commands_total", "Total number of calls per command", prometheus.CounterValue, "cmd")
	dCmdSeconds    = redis("commands_duration_seconds_total", "Total amount of time in seconds spent per command", prometheus.CounterValue, "cmd")
	dCmdRejected   = redis("commands_rejected_calls_total", "Total number of commands refused before they ran, per command", prometheus.CounterValue, "cmd")
	dCmdFailed     = redis("commands_failed_calls_total", "Total number of commands that answered an error, per command", prometheus.CounterValue, "cmd")
	dErrors        = redis("errors_total", "Total number of errors per error type", prometheus.CounterValue, "err")
	dRDBChanges    = redis("rdb_changes_since_last_save", "rdb_changes_since_last_save metric", prometheus.GaugeValue)
	dRDBLastSave   = redis("rdb_last_save_timestamp_seconds", "rdb_last_save_timestamp_seconds metric", prometheus.GaugeValue)
	dRDBInProgress = redis("rdb_bgsave_in_progress", "rdb_bgsave_in_progress metric", prometheus.GaugeValue)
	dRDBLastOK     = redis("rdb_last_bgsave_status", "rdb_last_bgsave_status metric", prometheus.GaugeValue)

	dLatHist = prometheus.NewDesc("redis_commands_latencies_usec", "A histogram of latencies per command", []string{"cmd"}, nil)
	dLatPct  = prometheus.NewDesc("redis_latency_percentiles_usec", "A summary of latency percentile distribution per command", []string{"cmd"}, nil)
	dRL      = desc{prometheus.NewDesc("limitkv_ratelimit_decisions_total",
		"RL.CHECK and RL.PEEK answers by command, limit and decision (allowed or refused)",
		[]string{"cmd", "limit", "decision"}, nil), prometheus.CounterValue}
)

var all = []desc{
	dUp, dUptime, dStart, dClients, dBlocked, dMaxClients, dConnsRecv, dConnsRejected, dProcessed, dErrReplies,
	dHits, dMisses, dExpired, dEvicted, dMemUsed, dMemMax, dNetIn, dNetOut, dDBKeys, dDBExpiring, dCmdCalls,
	dCmdSeconds, dCmdRejected, dCmdFailed, dErrors, dRDBChanges, dRDBLastSave, dRDBInProgress, dRDBLastOK, dRL,
}

// Collector is a prometheus.Collector over a Source.
type Collector struct{ src Source }

// NewCollector returns a collector reading src at each scrape.
func NewCollector(src Source) *Collector { return &Collector{src} }

func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range all {
		ch <- d.d
	}
	ch <- dLatHist
	ch <- dLatPct
}

func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.MetricsSnapshot()
	put := func(d desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d.d, d.typ, v, labels...)
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	put(dUp, 1)
	put(dUptime, float64(s.UptimeSeconds))
	put(dStart, float64(s.StartTimeUnix))
	put(dClients, float64(s.ConnectedClients))
	put(dBlocked, float64(s.BlockedClients))
	put(dMaxClients, float64(s.MaxClients))
	put(dConnsRecv, float64(s.ConnectionsReceived))
	put(dConnsRejected, float64(s.RejectedConnections))
	put(dProcessed, float64(s.CommandsProcessed))
	put(dErrReplies, float64(s.ErrorReplies))
	put(dHits, float64(s.KeyspaceHits))
	put(dMisses, float64(s.KeyspaceMisses))
	put(dExpired, float64(s.ExpiredKeys))
	put(dEvicted, float64(s.EvictedKeys))
	put(dMemUsed, float64(s.UsedMemory))
	put(dMemMax, float64(s.MaxMemory))
	put(dNetIn, float64(s.NetInput))
	put(dNetOut, float64(s.NetOutput))
	put(dRDBChanges, float64(s.RDBChangesSinceLastSave))
	put(dRDBLastSave, float64(s.RDBLastSaveTime))
	put(dRDBInProgress, b2f(s.RDBBgsaveInProgress))
	put(dRDBLastOK, b2f(s.RDBLastBgsaveOK))
	// Every database, empty ones at 0, as redis_exporter fills them in.
	var keys, expiring [commands.NumDBs]int64
	for _, db := range s.DBs {
		keys[db.DB], expiring[db.DB] = db.Keys, db.Expiring
	}
	for i := range commands.NumDBs {
		name := "db" + strconv.Itoa(i)
		put(dDBKeys, float64(keys[i]), name)
		put(dDBExpiring, float64(expiring[i]), name)
	}
	for _, m := range s.Commands {
		// redis_exporter exports these only for commands in INFO
		// commandstats, i.e. with calls or errors.
		if m.Calls > 0 || m.Rejected > 0 || m.Failed > 0 {
			put(dCmdCalls, float64(m.Calls), m.Name)
			put(dCmdSeconds, float64(m.Usec)/1e6, m.Name)
			put(dCmdRejected, float64(m.Rejected), m.Name)
			put(dCmdFailed, float64(m.Failed), m.Name)
		}
		if m.Buckets == nil {
			continue
		}
		// As redis_exporter builds it from LATENCY HISTOGRAM: the bucket
		// bounds in µs, and the commandstats usec as the sum.
		buckets := make(map[float64]uint64, len(m.Buckets))
		for _, b := range m.Buckets {
			buckets[float64(b.UpperUsec)] = uint64(b.Cumulative)
		}
		ch <- prometheus.MustNewConstHistogram(dLatHist, uint64(m.HistCount), float64(m.Usec), buckets, m.Name)
		// As redis_exporter builds it from INFO latencystats: the
		// quantile label is the percentile as INFO names it (99.9, not
		// 0.999), count and sum come from commandstats.
		if len(s.PercentileRanks) > 0 {
			q := make(map[float64]float64, len(m.Percentiles))
			for i, p := range s.PercentileRanks {
				q[p] = m.Percentiles[i]
			}
			ch <- prometheus.MustNewConstSummary(dLatPct, uint64(m.Calls), float64(m.Usec), q, m.Name)
		}
	}
	for code, n := range s.Errors {
		put(dErrors, float64(n), code)
	}
	for _, d := range s.RL {
		dec := "refused"
		if d.Allowed {
			dec = "allowed"
		}
		put(dRL, float64(d.Count), d.Cmd, d.Limit, dec)
	}
}

// Handler serves the collector's metrics in Prometheus's formats, on a
// registry of its own (no Go runtime metrics: they are not Redis's).
func Handler(src Source) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(src))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// Serve serves /metrics on ln until it is closed.
func Serve(ln net.Listener, src Source) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(src))
	return http.Serve(ln, mux)
}
