package main

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// spec is how one server runs one measured load: with redis-benchmark
// (RBArgs) or with the Go load generator (Gen).
type spec struct {
	ID       string // results are cached by server and ID, so rows can share a run
	Pipeline int
	RBArgs   []string // redis-benchmark test or command
	RBRand   int      // redis-benchmark -r
	Gen      func(int) genFunc
	Probe    []string // a command that must not answer an error, or the row is n/a
	State    string   // the data the run needs: see ensureState
	// CountMatch, if set, is a key pattern whose sorted sets' members are
	// summed (SCAN, ZCARD) after the last round's run: how many of the
	// run's requests were recorded, that is allowed.
	CountMatch string
	// MaxRequests, if set, caps a redis-benchmark run (calibration
	// included): the stream reads consume pre-filled entries.
	MaxRequests int
	// Load, if set, runs a Go load-generator run in place of runLoad (Gen
	// unused): the stream read-and-ack clients, which read replies.
	Load func(loadSpec) (*loadResult, error)
}

func (s *spec) Tool() string {
	if s.RBArgs != nil {
		return "redis-benchmark"
	}
	if s.Load != nil {
		return "Go RESP, reads replies"
	}
	return "Go RESP"
}

// row is one line of the table: a limitkv run against a Redis run, and for
// the PING rows the same load on the no-op floor server (F; nil if none).
type row struct {
	Group    int // workload number in the brief
	Label    string
	Pipeline int
	L, R, F  *spec
}

// Labels the targets look rows up by.
const (
	labelPingRB     = "PING (redis-benchmark ping_mbulk)"
	labelPingGo     = "PING (Go load generator)"
	labelSeedRB     = "seed check, redis-benchmark, fixed now, 1M keys: RL.CHECK vs Redis EVALSHA"
	labelSeedRBEval = "seed check, redis-benchmark, fixed now, 1M keys: EVALSHA on both"
	labelSeedGo     = "seed check, Go load generator, real clock, 100k users: RL.CHECK vs Redis EVALSHA"
	labelSeedGoEval = "seed check, Go load generator, real clock, 100k users: EVALSHA on both"
)

// seedRBNow is the fixed now (ms) of the redis-benchmark seed rows: 2023-11-14.
const seedRBNow = "1700000000000"

// seedRBKeys is the redis-benchmark seed rows' -r: keys and members are
// drawn from 1,000,000 values each.
const seedRBKeys = 1_000_000

// measurement is the median round of one spec on one server.
type measurement struct {
	OK        bool
	Err       string
	OpsPerSec float64
	P50, P99  time.Duration
	Max       time.Duration
	Requests  int // requests of the run (redis-benchmark -n; the Go runs' measured replies)
	RSS       int64
	CPUPerOp  time.Duration // server CPU (user+system) per request in the measured window
	ClientCPU time.Duration // the load generator's CPU per request (same machine, same cores)
	Busy      float64       // share of the machine's CPU busy during the run (0..1)
	Others    float64       // cores used by other processes during the run
	Rounds    []float64
	Tool      string
}

// maxOthers is how much CPU (in cores) other processes may use during a
// run before the run is made again.
const maxOthers = 0.10

// maxNoisyRetries bounds the retries of a whole harness run, so a machine
// that never gets quiet still finishes in time (with noisy rows marked).
const maxNoisyRetries = 6

// profileDur is the length of each -profile run.
const profileDur = 5 * time.Second

const (
	zsSmallKeys = 1000 // keys of 5 members
	zsLargeKeys = 100  // keys of 1,000 members
)

// buildRows lists workloads 1-3 for both pipeline depths.
func buildRows(cfg *config) []row {
	var rows []row
	for _, p := range []int{1, 16} {
		ps := "P" + strconv.Itoa(p)
		ping := &spec{ID: "ping-rb-" + ps, Pipeline: p, RBArgs: []string{"-t", "ping_mbulk"}, Probe: []string{"PING"}}
		rows = append(rows, row{1, labelPingRB, p, ping, ping, ping})
		pingGo := &spec{ID: "ping-go-" + ps, Pipeline: p, Gen: cmdGen("PING")}
		rows = append(rows, row{1, labelPingGo, p, pingGo, pingGo, pingGo})
	}
	for _, p := range []int{1, 16} {
		ps := "P" + strconv.Itoa(p)
		zadd := &spec{ID: "zadd-" + ps, Pipeline: p, RBRand: 100000, State: "flushed",
			RBArgs: []string{"ZADD", "zr:__rand_int__", "__rand_int__", "m:__rand_int__"},
			Probe:  []string{"ZADD", "zr:probe", "1", "m"}}
		rows = append(rows, row{2, "ZADD random keys", p, zadd, zadd, nil})
	}
	type zq struct {
		label, cmd, prefix string
		keys               int
		args               []string
	}
	zqs := []zq{
		{"ZRANGEBYSCORE 5-member keys (5 returned)", "ZRANGEBYSCORE", "zs5:", zsSmallKeys, []string{"1", "+inf"}},
		{"ZRANGEBYSCORE 1,000-member keys (5 returned)", "ZRANGEBYSCORE", "zs1000:", zsLargeKeys, []string{"996", "+inf"}},
		{"ZREMRANGEBYSCORE 5-member keys (0 removed)", "ZREMRANGEBYSCORE", "zs5:", zsSmallKeys, []string{"0", "0"}},
		{"ZREMRANGEBYSCORE 1,000-member keys (0 removed)", "ZREMRANGEBYSCORE", "zs1000:", zsLargeKeys, []string{"0", "0"}},
	}
	for _, q := range zqs {
		for _, p := range []int{1, 16} {
			ps := "P" + strconv.Itoa(p)
			args := append([]string{q.cmd, q.prefix + "__rand_int__"}, q.args...)
			probe := append([]string{q.cmd, q.prefix + fmt.Sprintf("%012d", 0)}, q.args...)
			s := &spec{ID: strings.ToLower(q.cmd) + "-" + q.prefix + ps, Pipeline: p, RBArgs: args, RBRand: q.keys,
				Probe: probe, State: "zsets"}
			rows = append(rows, row{2, q.label, p, s, s, nil})
		}
	}
	// The seed check as a user would measure it with redis-benchmark: the
	// command line is fixed, so now is too (see bench/README.md).
	rbKey, rbTail := "{t}:rl:__rand_int__", []string{seedRBNow, seedWindow, seedLimit, "m:__rand_int__"}
	for _, p := range []int{1, 16} {
		ps := "P" + strconv.Itoa(p)
		rl := &spec{ID: "seed-rb-rlcheck-" + ps, Pipeline: p, RBRand: seedRBKeys, State: "flushed", CountMatch: "{t}:rl:*",
			RBArgs: append([]string{"RL.CHECK", rbKey}, rbTail...),
			Probe:  []string{"RL.CHECK", "{t}:rl:probe", seedRBNow, seedWindow, seedLimit, "probe"}}
		ev := &spec{ID: "seed-rb-evalsha-" + ps, Pipeline: p, RBRand: seedRBKeys, State: "flushed+script", CountMatch: "{t}:rl:*",
			RBArgs: append([]string{"EVALSHA", seedSHA, "1", rbKey}, rbTail...),
			Probe:  []string{"EVALSHA", seedSHA, "1", "{t}:rl:probe", seedRBNow, seedWindow, seedLimit, "probe"}}
		rows = append(rows, row{3, labelSeedRB, p, rl, ev, nil})
		rows = append(rows, row{3, labelSeedRBEval, p, ev, ev, nil})
	}
	for _, p := range []int{1, 16} {
		ps := "P" + strconv.Itoa(p)
		rl := &spec{ID: "seed-rlcheck-" + ps, Pipeline: p, State: "flushed", Gen: seedGen(seedRLCheck, "", cfg.seedUsers)}
		ev := &spec{ID: "seed-evalsha-" + ps, Pipeline: p, State: "flushed+script", Gen: seedGen(seedEvalSHA, seedSHA, cfg.seedUsers),
			Probe: []string{"EVALSHA", seedSHA, "1", "{t}:ratelimit:ai:probe", "0", seedWindow, seedLimit, "probe"}}
		rows = append(rows, row{3, labelSeedGo, p, rl, ev, nil})
		rows = append(rows, row{3, labelSeedGoEval, p, ev, ev, nil})
	}
	rows = append(rows, streamRows(cfg)...)
	rows = append(rows, limiterRows()...)
	return rows
}

// ensureState brings a server's data to what a spec needs. "flushed" empties
// it before every run so that each round starts alike; "zsets" preloads the
// sorted sets the range workloads read (they change nothing, so the preload
// is kept across runs).
func ensureState(s *server, want string) error {
	switch want {
	case "":
		return nil
	case "flushed", "flushed+script":
		if err := s.FlushAll(); err != nil {
			return err
		}
		s.state = "dirty"
		if want == "flushed+script" {
			_, err := loadSeedScript(s)
			return err
		}
		return nil
	case "zsets":
		if s.state == "zsets" {
			return nil
		}
		if err := s.FlushAll(); err != nil {
			return err
		}
		if err := preloadZsets(s); err != nil {
			return err
		}
		s.state = "zsets"
		return nil
	}
	if handled, err := ensureStreamState(s, want); handled {
		return err
	}
	if want == "flushed+limiters" {
		if err := s.FlushAll(); err != nil {
			return err
		}
		s.state = "dirty"
		return loadLimiterScripts(s)
	}
	return fmt.Errorf("unknown state %q", want)
}

func preloadZsets(s *server) error {
	type group struct {
		prefix        string
		keys, members int
	}
	groups := []group{{"zs5:", zsSmallKeys, 5}, {"zs1000:", zsLargeKeys, 1000}}
	for _, g := range groups {
		bad, first, err := bulkLoad(s.Addr, 1, 50, g.keys, func(b []byte, i int, _ time.Time) []byte {
			b = appendArrayHeader(b, 2+2*g.members)
			b = appendBulkString(b, "ZADD")
			b = appendBulkString(b, fmt.Sprintf("%s%012d", g.prefix, i))
			for m := 1; m <= g.members; m++ {
				b = appendBulkInt(b, int64(m))
				b = appendBulkString(b, "m:"+strconv.Itoa(m))
			}
			return b
		}, nil)
		if err != nil {
			return err
		}
		if bad > 0 {
			return fmt.Errorf("preloading %s keys: %s", g.prefix, first)
		}
	}
	return nil
}

// runner runs rows over rounds, alternating servers, and keeps every result.
type runner struct {
	cfg     *config
	servers map[string]*server // "limitkv", "redis", "floor" (if started)
	results map[string][]measurement
	na      map[string]string // server/spec ID -> why the run is n/a
	rbN     map[string]int    // redis-benchmark request count per server/spec
	// allowed is, per server/spec with a CountMatch, what the last round's
	// run recorded.
	allowed map[string]allowedCount
	// noisyRetries counts runs made again because other processes took CPU.
	noisyRetries int
	logf         func(format string, args ...any)
}

// maxRetries is the retry budget for noisy runs: none in -quick, which is
// for iteration and must stay short.
func (r *runner) maxRetries() int {
	if r.cfg.quick {
		return 0
	}
	return maxNoisyRetries
}

func key(srv string, sp *spec) string { return srv + "/" + sp.ID }

// runOne measures sp on srv once.
func (r *runner) runOne(s *server, sp *spec, profileTo string) (measurement, error) {
	if err := ensureState(s, sp.State); err != nil {
		return measurement{}, err
	}
	if sp.Probe != nil {
		rep, err := s.Do(sp.Probe...)
		if err != nil {
			return measurement{}, err
		}
		if e := rep.err(); e != nil {
			return measurement{}, errNA{fmt.Sprintf("%s answers %q", sp.Probe[0], e.Error())}
		}
	}
	dur := r.cfg.dur
	var stopProfile func() error
	if profileTo != "" {
		// Profiles get longer runs than measurements: more samples.
		dur = profileDur
		stopProfile = startProfile(s, dur, profileTo)
	}
	m := measurement{Tool: sp.Tool()}
	if sp.RBArgs != nil {
		k := key(s.Name, sp)
		n := r.rbN[k]
		if n == 0 {
			// Calibration run: also warms the server up.
			n = 20000 * sp.Pipeline
			if r.cfg.quick {
				n /= 2
			}
			if sp.MaxRequests > 0 {
				n = min(n, sp.MaxRequests/2)
			}
			res, err := runRedisBenchmark(s.Addr, r.cfg.clients, sp.Pipeline, n, sp.RBRand, sp.RBArgs)
			if err != nil {
				return m, err
			}
			n = int(res.RPS * r.cfg.dur.Seconds())
			// The measured run starts from the state it asks for, not
			// from what the calibration left ("flushed" flushes again).
			if err := ensureState(s, sp.State); err != nil {
				return m, err
			}
		}
		n = int(float64(n) * dur.Seconds() / r.cfg.dur.Seconds())
		n = max(10000, min(n, 50_000_000))
		if sp.MaxRequests > 0 {
			n = min(n, sp.MaxRequests)
		}
		// redis-benchmark issues whole pipelines while fewer than n have
		// been issued: a multiple of the depth makes n exact.
		n -= n % sp.Pipeline
		cpu0 := s.CPUTime()
		b0, t0 := machineCPU()
		snap0 := snapCPU()
		res, err := runRedisBenchmark(s.Addr, r.cfg.clients, sp.Pipeline, n, sp.RBRand, sp.RBArgs)
		if err != nil {
			return m, err
		}
		m.CPUPerOp = (s.CPUTime() - cpu0) / time.Duration(n)
		m.ClientCPU = res.CPU / time.Duration(n)
		m.Others = othersShare(snap0, snapCPU())
		if b1, t1 := machineCPU(); t1 > t0 {
			m.Busy = float64(b1-b0) / float64(t1-t0)
		}
		r.rbN[k] = int(res.RPS * r.cfg.dur.Seconds())
		m.Requests = n
		m.OK, m.OpsPerSec, m.P50, m.P99, m.Max = true, res.RPS, res.P50, res.P99, res.Max
	} else {
		var cpu0, cpu1, self0, self1 time.Duration
		var b0, t0, b1, t1 int64
		var snap0, snap1 cpuSnap
		load := runLoad
		if sp.Load != nil {
			load = sp.Load
		}
		res, err := load(loadSpec{Addr: s.Addr, Clients: r.cfg.clients, Pipeline: sp.Pipeline,
			Warmup: r.cfg.warmup, Duration: dur, NewGen: sp.Gen,
			OnWindow: func(open bool) {
				if open {
					cpu0, self0 = s.CPUTime(), procCPU("self")
					b0, t0 = machineCPU()
					snap0 = snapCPU()
				} else {
					snap1 = snapCPU()
					cpu1, self1 = s.CPUTime(), procCPU("self")
					b1, t1 = machineCPU()
				}
			}})
		if err != nil {
			return m, err
		}
		if res.Ops > 0 && cpu1 > cpu0 {
			m.CPUPerOp = (cpu1 - cpu0) / time.Duration(res.Ops)
			m.ClientCPU = (self1 - self0) / time.Duration(res.Ops)
		}
		if t1 > t0 {
			m.Busy = float64(b1-b0) / float64(t1-t0)
		}
		if snap0.cpus != nil && snap1.cpus != nil {
			m.Others = othersShare(snap0, snap1)
		}
		if res.Errors*100 > res.Ops {
			return m, errNA{fmt.Sprintf("%d of %d replies were errors, first: %q", res.Errors, res.Ops, res.FirstErr)}
		}
		m.OK, m.OpsPerSec, m.Requests = true, res.OpsPerSec(), int(res.Ops)
		m.P50, m.P99, m.Max = time.Duration(res.Hist.quantile(0.5)), time.Duration(res.Hist.quantile(0.99)), time.Duration(res.Hist.max)
	}
	if stopProfile != nil {
		if err := stopProfile(); err != nil {
			r.logf("  profile %s: %v", profileTo, err)
		}
	}
	m.RSS = s.RSS()
	return m, nil
}

// errNA marks a run that cannot be made on this server (missing command...).
type errNA struct{ why string }

func (e errNA) Error() string { return e.why }

// sides are the servers a row runs on, in order.
func (r *runner) sides(rw row) []side {
	ss := []side{{"limitkv", rw.L}, {"redis", rw.R}}
	if rw.F != nil && r.servers["floor"] != nil {
		ss = append(ss, side{"floor", rw.F})
	}
	return ss
}

type side struct {
	srv string
	sp  *spec
}

// run executes every row for cfg.rounds rounds: per row, limitkv, then
// Redis, then (PING rows) the floor.
func (r *runner) run(rows []row) error {
	if r.allowed == nil {
		r.allowed = map[string]allowedCount{}
	}
	for round := 0; round < r.cfg.rounds; round++ {
		r.logf("round %d/%d", round+1, r.cfg.rounds)
		for _, rw := range rows {
			for _, side := range r.sides(rw) {
				k := key(side.srv, side.sp)
				if _, na := r.na[k]; na || len(r.results[k]) > round {
					continue
				}
				s := r.servers[side.srv]
				m, err := r.runOne(s, side.sp, "")
				for try := 1; err == nil && m.Others > maxOthers && try <= 2 && r.noisyRetries < r.maxRetries(); try++ {
					r.logf("  %-8s %-28s other processes used %.0f%% of a core: waiting, then running again", side.srv, side.sp.ID, 100*m.Others)
					r.noisyRetries++
					time.Sleep(time.Duration(try) * 2 * time.Second)
					m, err = r.runOne(s, side.sp, "")
				}
				if !s.Alive() {
					return fmt.Errorf("%s died during %s: %s", s.Name, side.sp.ID, s.logTail())
				}
				if err != nil {
					if _, ok := err.(errNA); !ok && round > 0 {
						return fmt.Errorf("%s on %s: %w", side.sp.ID, side.srv, err)
					}
					r.na[k] = err.Error()
					r.logf("  %-8s %-28s n/a: %v", side.srv, side.sp.ID, err)
					continue
				}
				r.results[k] = append(r.results[k], m)
				if side.sp.CountMatch != "" && round == r.cfg.rounds-1 {
					ac, err := countAllowed(s, side.sp.CountMatch)
					if err != nil {
						return fmt.Errorf("counting what %s recorded on %s: %w", side.sp.ID, side.srv, err)
					}
					ac.Requests = m.Requests
					r.allowed[k] = ac
					r.logf("  %-8s %-28s recorded %d of %d requests in %d keys", side.srv, side.sp.ID, ac.Members, ac.Requests, ac.Keys)
				}
				r.logf("  %-8s %-28s %10.0f ops/s  p50 %s  p99 %s  cpu/op %s µs, client %s µs, machine busy %.0f%%, others %.0f%%", side.srv, side.sp.ID, m.OpsPerSec, fmtMs(m.P50), fmtMs(m.P99), fmtUs(m.CPUPerOp), fmtUs(m.ClientCPU), 100*m.Busy, 100*m.Others)
			}
		}
	}
	return nil
}

// median returns the round with the median throughput, carrying all rounds'
// figures for the record.
func (r *runner) median(srv string, sp *spec) measurement {
	k := key(srv, sp)
	if why, ok := r.na[k]; ok {
		return measurement{Err: why}
	}
	ms := append([]measurement(nil), r.results[k]...)
	if len(ms) == 0 {
		return measurement{Err: "not run"}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].OpsPerSec < ms[j].OpsPerSec })
	m := ms[len(ms)/2]
	for _, x := range r.results[k] {
		m.Rounds = append(m.Rounds, x.OpsPerSec)
	}
	return m
}

// allowedCount is what a seed run recorded: each allowed request adds one
// member (redis-benchmark's random members over 1M values rarely repeat
// within a key), refused ones add nothing.
type allowedCount struct {
	Requests int
	Keys     int64
	Members  int64
}

// countAllowed sums ZCARD over the keys matching pattern (SCAN, then the
// batch's ZCARDs pipelined).
func countAllowed(s *server, pattern string) (allowedCount, error) {
	var ac allowedCount
	c, err := dial(s.Addr)
	if err != nil {
		return ac, err
	}
	defer c.Close()
	cursor := "0"
	for {
		rep, err := c.Do("SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
		if err != nil {
			return ac, err
		}
		if err := rep.err(); err != nil {
			return ac, err
		}
		if rep.kind != '*' || len(rep.elems) != 2 {
			return ac, fmt.Errorf("SCAN answered %s", rep.String())
		}
		cursor = rep.elems[0].str
		keys := rep.elems[1].elems
		if len(keys) > 0 {
			c.w = c.w[:0]
			keys = slices.DeleteFunc(slices.Clone(keys), func(k reply) bool { return strings.HasSuffix(k.str, ":probe") })
			for _, k := range keys {
				c.w = appendCmd(c.w, "ZCARD", k.str)
			}
			c.nc.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.nc.Write(c.w); err != nil {
				return ac, err
			}
			for range keys {
				z, err := c.read()
				if err != nil {
					return ac, err
				}
				if z.kind != ':' {
					return ac, fmt.Errorf("ZCARD answered %s", z.String())
				}
				ac.Keys++
				ac.Members += z.n
			}
			c.nc.SetDeadline(time.Time{})
		}
		if cursor == "0" {
			return ac, nil
		}
	}
}
