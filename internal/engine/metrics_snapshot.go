package engine

import (
	"sort"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
)

// What a metrics scrape reads (internal/metrics): a copy of the counters
// taken under the lock, so the exposition is built without it.

// LatencyBucket is one LATENCY HISTOGRAM bucket: commands that ran for at
// most UpperUsec µs, cumulative.
type LatencyBucket struct {
	UpperUsec  int64
	Cumulative int64
}

// CommandMetrics are one command's INFO commandstats and latency
// histogram.
type CommandMetrics struct {
	Name                          string // "get", "client|list"
	Calls, Usec, Rejected, Failed int64
	Buckets                       []LatencyBucket // nil without latency-tracking samples
	HistCount                     int64
	Percentiles                   []float64 // µs, at MetricsSnapshot.PercentileRanks
}

// DBMetrics are a non-empty database's key counts.
type DBMetrics struct {
	DB             int
	Keys, Expiring int64
}

// RLDecision counts one rate-limit command's answers for one algorithm and
// limit.
type RLDecision struct {
	Cmd       string // "rl.check", "rl.peek", "rl.gcra", "cl.throttle", "rl.all", ...
	Algorithm string // "sliding_log", "gcra", "token_bucket", "fixed_window", "sliding_window", "concurrency", "budget"
	Limit     string // the limit, or "other" past rlMaxLimits distinct ones
	Allowed   bool
	Count     int64
}

// MetricsSnapshot is the engine's state for a scrape.
type MetricsSnapshot struct {
	UptimeSeconds       int64
	StartTimeUnix       int64
	ConnectedClients    int64
	BlockedClients      int64
	MaxClients          int64
	ConnectionsReceived int64
	RejectedConnections int64
	CommandsProcessed   int64
	ErrorReplies        int64
	KeyspaceHits        int64
	KeyspaceMisses      int64
	ExpiredKeys         int64
	EvictedKeys         int64
	UsedMemory          uint64
	MaxMemory           int64
	NetInput, NetOutput int64
	DBs                 []DBMetrics
	Commands            []CommandMetrics
	Errors              map[string]int64
	PercentileRanks     []float64
	RL                  []RLDecision
	// Persistence, as INFO persistence.
	RDBChangesSinceLastSave int64
	RDBLastSaveTime         int64
	RDBBgsaveInProgress     bool
	RDBLastBgsaveOK         bool
}

// MetricsSnapshot copies the counters a scrape exposes. It takes the lock
// for the copy only.
func (e *Engine) MetricsSnapshot() MetricsSnapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := &e.Stats
	s := MetricsSnapshot{
		UptimeSeconds:           int64(e.Clock.Now().Sub(e.Start).Seconds()),
		StartTimeUnix:           e.Start.Unix(),
		ConnectedClients:        int64(len(e.Clients)),
		MaxClients:              e.Cfg.MaxClients.Load(),
		ConnectionsReceived:     st.Connections.Load(),
		RejectedConnections:     st.RejectedConns.Load(),
		CommandsProcessed:       st.Commands,
		ErrorReplies:            e.Obs.TotalErrors,
		KeyspaceHits:            st.KeyspaceHits,
		KeyspaceMisses:          st.KeyspaceMisses,
		EvictedKeys:             st.EvictedKeys,
		UsedMemory:              e.UsedMemory(),
		MaxMemory:               e.Cfg.MaxMemory.Load(),
		NetInput:                st.NetInput.Load(),
		NetOutput:               st.NetOutput.Load(),
		Errors:                  make(map[string]int64, len(e.Obs.errs)),
		PercentileRanks:         append([]float64(nil), e.Cfg.Obs.Percentiles()...),
		RDBChangesSinceLastSave: e.persist.dirty,
	}
	lastSave, bgRunning, lastBgOK := e.Dur.SaveStatus()
	s.RDBLastSaveTime, s.RDBBgsaveInProgress, s.RDBLastBgsaveOK = lastSave.Unix(), bgRunning, lastBgOK
	for _, c := range e.Clients {
		if c.Blocked != nil {
			s.BlockedClients++
		}
	}
	for i := range config.NumDBs {
		db := e.Dbs[i]
		s.ExpiredKeys += db.Expired
		if n := db.Len(); n > 0 {
			s.DBs = append(s.DBs, DBMetrics{DB: i, Keys: int64(n), Expiring: int64(db.ExpiresLen())})
		}
	}
	for k, v := range e.Obs.errs {
		s.Errors[k] = v
	}
	e.StatsInOrder(func(c *Command, cs *CmdStat) {
		if cs.calls == 0 && cs.failed == 0 && cs.rejected == 0 && cs.Hist == nil {
			return
		}
		m := CommandMetrics{Name: c.Name, Calls: cs.calls, Usec: cs.usec, Rejected: cs.rejected, Failed: cs.failed}
		if cs.Hist != nil {
			m.HistCount = cs.Hist.Total()
			var prev int64
			for _, lb := range cs.Hist.LogBuckets(1024, 2) {
				if lb.Cumulative > prev {
					m.Buckets = append(m.Buckets, LatencyBucket{lb.HighestEquivalent / 1000, lb.Cumulative})
				}
				prev = lb.Cumulative
			}
			for _, p := range s.PercentileRanks {
				m.Percentiles = append(m.Percentiles, float64(cs.Hist.ValueAtPercentile(p))/1000)
			}
		}
		s.Commands = append(s.Commands, m)
	})
	for k, n := range e.Obs.rl {
		lim := "other"
		if !k.other {
			lim = strconv.FormatInt(k.limit, 10)
		}
		for allowed, c := range n {
			if c > 0 {
				s.RL = append(s.RL, RLDecision{Cmd: k.cmd, Algorithm: k.alg, Limit: lim, Allowed: allowed == 1, Count: c})
			}
		}
	}
	sort.Slice(s.RL, func(i, j int) bool {
		a, b := s.RL[i], s.RL[j]
		if a.Cmd != b.Cmd {
			return a.Cmd < b.Cmd
		}
		if a.Algorithm != b.Algorithm {
			return a.Algorithm < b.Algorithm
		}
		if a.Limit != b.Limit {
			return a.Limit < b.Limit
		}
		return !a.Allowed && b.Allowed
	})
	return s
}

// rlSeries is one series of RL decisions; rlCounts are its refused and
// allowed answers.
type (
	rlSeries struct {
		cmd, alg string // both from fixed sets: the command table, the algorithms
		other    bool
		limit    int64
	}
	rlCounts [2]int64
)

// rlMaxLimits bounds the distinct limits the decisions are kept by: a
// limit comes from the client, and a metric label per value sent would
// grow without end.
const rlMaxLimits = 256

// RlDecision counts one decision of a rate-limit command (cmd, its name as
// in the command table) by an algorithm for a limit. Called with the lock
// held. cmd and algorithm must come from fixed sets (never a client's
// bytes): only the limit is bounded here.
func (e *Engine) RlDecision(cmd, algorithm string, limit int64, allowed bool) {
	o := &e.Obs
	k := rlSeries{cmd: cmd, alg: algorithm, limit: limit}
	if o.rlHot == nil || o.rlHotKey != k {
		o.rlHot, o.rlHotKey = o.rlCountsOf(k), k
	}
	if allowed {
		o.rlHot[1]++
	} else {
		o.rlHot[0]++
	}
}

// rlCountsOf finds or makes k's counts; past rlMaxLimits distinct limits
// a new one counts under "other".
func (o *obsState) rlCountsOf(k rlSeries) *rlCounts {
	if o.rl == nil {
		o.rl = make(map[rlSeries]*rlCounts)
		o.rlLimits = make(map[int64]bool)
	}
	if !o.rlLimits[k.limit] {
		if len(o.rlLimits) >= rlMaxLimits {
			k = rlSeries{cmd: k.cmd, alg: k.alg, other: true}
		} else {
			o.rlLimits[k.limit] = true
		}
	}
	c := o.rl[k]
	if c == nil {
		c = new(rlCounts)
		o.rl[k] = c
	}
	return c
}
