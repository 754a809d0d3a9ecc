package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Workload 10: streams with redis-benchmark (and the Go load generator for
// the read-and-ack row, which needs the ids a read returned). Workload 11:
// bytes per stream entry on a fresh server of each kind.

const (
	xaKeys   = 1000 // XADD without trimming: streams grow from empty (flushed before each run)
	xtKeys   = 1000 // XADD MAXLEN ~ 1000: streams pre-filled to xtLen
	xtLen    = 1000
	xgKeys   = 1000 // XREADGROUP: streams pre-filled, one group each
	xgCount  = 10   // XREADGROUP COUNT
	xgGroup  = "g"
	xtmplKey = "xbench:template"
)

// The entry every row adds: two fields, a user id (a 12-digit number from
// redis-benchmark's __rand_int__) and an action.
var xEntryRB = []string{"user", "__rand_int__", "action", "login"}

// xgEntries is how many entries each XREADGROUP stream is pre-filled with:
// the runs must not exhaust them (each read consumes xgCount).
func xgEntries(cfg *config) int {
	if cfg.quick {
		return 2000
	}
	return 10000
}

func xKey(prefix string, i int) string { return fmt.Sprintf("%s%012d", prefix, i) }

// streamRows lists workload 10 for both pipeline depths.
func streamRows(cfg *config) []row {
	var rows []row
	ent := xgEntries(cfg)
	gState := "xgroup/" + strconv.Itoa(ent)
	// The redis-benchmark read row stops at half the pre-filled entries
	// (requests x COUNT): keys are drawn at random, so some streams are
	// read more than others, and none may run dry.
	maxReads := xgKeys * ent / xgCount / 2
	type xr struct {
		label string
		mk    func(p int) *spec
	}
	xrs := []xr{
		{fmt.Sprintf("XADD, auto id, no trimming, %s streams from empty", fmtCount(xaKeys)), func(p int) *spec {
			return &spec{ID: "xadd-P" + strconv.Itoa(p), Pipeline: p, RBRand: xaKeys, State: "flushed",
				RBArgs: append([]string{"XADD", "xa:__rand_int__", "*"}, xEntryRB...),
				Probe:  []string{"XADD", "xa:probe", "*", "user", "1", "action", "login"}}
		}},
		{fmt.Sprintf("XADD MAXLEN ~ %d, auto id, %s streams of %s entries", xtLen, fmtCount(xtKeys), fmtCount(xtLen)), func(p int) *spec {
			return &spec{ID: "xadd-trim-P" + strconv.Itoa(p), Pipeline: p, RBRand: xtKeys, State: "xtrim",
				RBArgs: append([]string{"XADD", "xt:__rand_int__", "MAXLEN", "~", strconv.Itoa(xtLen), "*"}, xEntryRB...),
				Probe:  []string{"XADD", xKey("xt:", 0), "MAXLEN", "~", strconv.Itoa(xtLen), "*", "user", "1", "action", "login"}}
		}},
		{fmt.Sprintf("XREADGROUP > COUNT %d, no XACK, %s streams of %s entries", xgCount, fmtCount(xgKeys), fmtCount(ent)), func(p int) *spec {
			return &spec{ID: "xreadgroup-P" + strconv.Itoa(p), Pipeline: p, RBRand: xgKeys, State: gState, MaxRequests: maxReads,
				RBArgs: []string{"XREADGROUP", "GROUP", xgGroup, "c1", "COUNT", strconv.Itoa(xgCount), "STREAMS", "xg:__rand_int__", ">"},
				Probe:  []string{"XREADGROUP", "GROUP", xgGroup, "probe", "COUNT", "1", "STREAMS", xKey("xg:", 0), ">"}}
		}},
		{fmt.Sprintf("XREADGROUP > COUNT %d + XACK of its ids, %s streams of %s entries", xgCount, fmtCount(xgKeys), fmtCount(ent)), func(p int) *spec {
			return &spec{ID: "xreadack-P" + strconv.Itoa(p), Pipeline: p, State: gState, Load: readAckLoad(xgKeys),
				Probe: []string{"XREADGROUP", "GROUP", xgGroup, "probe", "COUNT", "1", "STREAMS", xKey("xg:", 0), ">"}}
		}},
	}
	for _, q := range xrs {
		for _, p := range []int{1, 16} {
			s := q.mk(p)
			rows = append(rows, row{10, q.label, p, s, s, nil})
		}
	}
	return rows
}

// ensureStreamState handles workload 10's states: "xtrim" (xtKeys streams
// of xtLen entries; XADD with MAXLEN keeps them at about that size, so the
// data is kept across runs) and "xgroup/N" (xgKeys streams of N entries,
// kept; their group is destroyed and created again at 0 before every run,
// so each run reads from the start with an empty PEL).
func ensureStreamState(s *server, want string) (handled bool, err error) {
	switch {
	case want == "xtrim":
		if s.state == want {
			return true, nil
		}
		if err := s.FlushAll(); err != nil {
			return true, err
		}
		s.state = "dirty"
		if err := prefillStreams(s, "xt:", xtKeys, xtLen); err != nil {
			return true, err
		}
		s.state = want
		return true, nil
	case strings.HasPrefix(want, "xgroup/"):
		n, err := strconv.Atoi(strings.TrimPrefix(want, "xgroup/"))
		if err != nil || n < 1 {
			return true, fmt.Errorf("bad state %q", want)
		}
		if s.state != want {
			if err := s.FlushAll(); err != nil {
				return true, err
			}
			s.state = "dirty"
			if err := prefillStreams(s, "xg:", xgKeys, n); err != nil {
				return true, err
			}
			s.state = want
		}
		return true, resetGroups(s, "xg:", xgKeys)
	}
	return false, nil
}

// prefillStreams makes keys streams of entries entries each: one built by
// XADD (auto ids, the rows' entry), DUMPed and RESTOREd under every name,
// which is much faster than adding every entry, and the same for both
// servers (each restores its own DUMP).
func prefillStreams(s *server, prefix string, keys, entries int) error {
	bad, first, err := bulkLoad(s.Addr, 1, 1000, entries, func(b []byte, i int, _ time.Time) []byte {
		return appendXAdd(b, xtmplKey, i)
	}, func(_ int, r reply) bool { return r.kind == '$' && !r.null })
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("pre-filling streams: %d bad XADD replies, first: %s", bad, first)
	}
	dump, err := s.Do("DUMP", xtmplKey)
	if err != nil {
		return err
	}
	if dump.kind != '$' || dump.null {
		return fmt.Errorf("DUMP %s answered %s", xtmplKey, dump.String())
	}
	bad, first, err = bulkLoad(s.Addr, 2, 20, keys, func(b []byte, i int, _ time.Time) []byte {
		return appendCmd(b, "RESTORE", xKey(prefix, i), "0", dump.str)
	}, func(_ int, r reply) bool { return r.kind == '+' })
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("pre-filling streams: %d bad RESTORE replies, first: %s", bad, first)
	}
	if _, err := s.Do("DEL", xtmplKey); err != nil {
		return err
	}
	if n, err := s.DBSize(); err != nil || n != int64(keys) {
		return fmt.Errorf("pre-filling streams: DBSIZE %d (%v), want %d", n, err, keys)
	}
	return nil
}

// appendXAdd appends XADD key * user <i> action login.
func appendXAdd(b []byte, key string, i int) []byte {
	b = appendArrayHeader(b, 7)
	b = appendBulkString(b, "XADD")
	b = appendBulkString(b, key)
	b = appendBulkString(b, "*")
	b = appendBulkString(b, "user")
	b = appendBulkInt(b, int64(i))
	b = appendBulkString(b, "action")
	return appendBulkString(b, "login")
}

// resetGroups destroys and creates again the group of every stream, at
// id 0: everything unread, nothing pending.
func resetGroups(s *server, prefix string, keys int) error {
	for _, step := range []struct {
		args func(k string) []string
		ok   func(r reply) bool
	}{
		{func(k string) []string { return []string{"XGROUP", "DESTROY", k, xgGroup} }, func(r reply) bool { return r.kind == ':' }},
		{func(k string) []string { return []string{"XGROUP", "CREATE", k, xgGroup, "0"} }, func(r reply) bool { return r.kind == '+' }},
	} {
		bad, first, err := bulkLoad(s.Addr, 1, 1000, keys, func(b []byte, i int, _ time.Time) []byte {
			return appendCmd(b, step.args(xKey(prefix, i))...)
		}, func(_ int, r reply) bool { return step.ok(r) })
		if err != nil {
			return err
		}
		if bad > 0 {
			return fmt.Errorf("resetting groups: %d bad replies, first: %s", bad, first)
		}
	}
	return nil
}

// streamIDs returns the entry ids of an XREADGROUP reply for one stream:
// [[key, [[id, [field, value, ...]], ...]]]; none for a null reply.
func streamIDs(r reply) ([]string, error) {
	if r.kind == '-' {
		return nil, errors.New(r.str)
	}
	if r.null {
		return nil, nil
	}
	if r.kind != '*' || len(r.elems) != 1 {
		return nil, fmt.Errorf("XREADGROUP answered %s", r.String())
	}
	st := r.elems[0]
	if st.kind != '*' || len(st.elems) != 2 || st.elems[1].kind != '*' {
		return nil, fmt.Errorf("XREADGROUP answered a stream element %s", st.String())
	}
	var ids []string
	for _, e := range st.elems[1].elems {
		if e.kind != '*' || len(e.elems) != 2 || e.elems[0].kind != '$' {
			return nil, fmt.Errorf("XREADGROUP answered an entry %s", e.String())
		}
		ids = append(ids, e.elems[0].str)
	}
	return ids, nil
}

// readAckLoad makes workload 10's read-and-ack clients: each batch is
// Pipeline XREADGROUP > COUNT 10 on random streams of keys (its own
// consumer per client), then, once their replies are in, one XACK per
// read of the ids it returned. Both commands count as requests, each timed
// from its own batch's write. A read that finds nothing (the streams ran
// dry) counts as an error, so a run where they did is n/a.
func readAckLoad(keys int) func(loadSpec) (*loadResult, error) {
	return func(spec loadSpec) (*loadResult, error) {
		conns := make([]*conn, spec.Clients)
		defer func() {
			for _, c := range conns {
				if c != nil {
					c.Close()
				}
			}
		}()
		for i := range conns {
			c, err := dial(spec.Addr)
			if err != nil {
				return nil, err
			}
			conns[i] = c
		}
		type clientOut struct {
			h     hist
			ops   uint64
			errs  uint64
			first string
			err   error
		}
		outs := make([]clientOut, spec.Clients)
		start := time.Now()
		measureFrom := start.Add(spec.Warmup)
		measureTo := measureFrom.Add(spec.Duration)
		var openOnce, closeOnce sync.Once
		window := func(now time.Time) {
			if spec.OnWindow == nil {
				return
			}
			if !now.Before(measureFrom) {
				openOnce.Do(func() { spec.OnWindow(true) })
			}
			if !now.Before(measureTo) {
				closeOnce.Do(func() { spec.OnWindow(false) })
			}
		}
		var wg sync.WaitGroup
		for ci := range conns {
			wg.Add(1)
			go func(ci int) {
				defer wg.Done()
				c, out := conns[ci], &outs[ci]
				rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(ci)))
				consumer := "c" + strconv.Itoa(ci)
				count := strconv.Itoa(xgCount)
				streams := make([]string, spec.Pipeline)
				acks := make([][]string, spec.Pipeline)
				buf := make([]byte, 0, 4096)
				record := func(sent time.Time, isErr bool, msg string) {
					done := time.Now()
					if done.Before(measureFrom) || done.After(measureTo) {
						return
					}
					out.ops++
					out.h.add(done.Sub(sent).Nanoseconds())
					if isErr {
						out.errs++
						if out.first == "" {
							out.first = msg
						}
					}
				}
				for {
					now := time.Now()
					window(now)
					if !now.Before(measureTo) {
						return
					}
					buf = buf[:0]
					for i := range streams {
						streams[i] = xKey("xg:", rng.IntN(keys))
						buf = appendCmd(buf, "XREADGROUP", "GROUP", xgGroup, consumer, "COUNT", count, "STREAMS", streams[i], ">")
					}
					sent := time.Now()
					c.nc.SetDeadline(sent.Add(30 * time.Second))
					if _, err := c.nc.Write(buf); err != nil {
						out.err = err
						return
					}
					for i := range streams {
						r, err := c.read()
						if err != nil {
							out.err = err
							return
						}
						ids, perr := streamIDs(r)
						switch {
						case perr != nil:
							record(sent, true, perr.Error())
						case len(ids) == 0:
							record(sent, true, "XREADGROUP found no new entry: the streams ran dry")
						default:
							record(sent, false, "")
						}
						acks[i] = ids
					}
					buf = buf[:0]
					n := 0
					for i, ids := range acks {
						if len(ids) == 0 {
							continue
						}
						buf = appendCmd(buf, append([]string{"XACK", streams[i], xgGroup}, ids...)...)
						n++
					}
					if n == 0 {
						continue
					}
					sent = time.Now()
					if _, err := c.nc.Write(buf); err != nil {
						out.err = err
						return
					}
					for i := 0; i < n; i++ {
						r, err := c.read()
						if err != nil {
							out.err = err
							return
						}
						if r.kind != ':' {
							record(sent, true, "XACK answered "+r.String())
						} else {
							record(sent, false, "")
						}
					}
				}
			}(ci)
		}
		wg.Wait()
		res := &loadResult{Start: start, Elapsed: measureTo.Sub(measureFrom)}
		for i := range outs {
			o := &outs[i]
			if o.err != nil {
				return nil, fmt.Errorf("client %d: %w", i, o.err)
			}
			res.Ops += o.ops
			res.Errors += o.errs
			if res.FirstErr == "" {
				res.FirstErr = o.first
			}
			res.Hist.merge(&o.h)
		}
		return res, nil
	}
}

// Workload 11: bytes per stream entry.

// streamShape is how workload 11 spreads its entries.
type streamShape struct{ Streams, Entries int }

func (s streamShape) String() string {
	return fmt.Sprintf("%s streams x %s entries", fmtCount(s.Streams), fmtCount(s.Entries))
}

// streamShapes spreads total entries as long streams (10,000 entries) and
// as short ones (100 entries, one node each).
func streamShapes(total int) []streamShape {
	var shs []streamShape
	for _, per := range []int{10_000, 100} {
		shs = append(shs, streamShape{max(1, total/per), per})
	}
	return shs
}

// fmtCount writes n with thousands separators.
func fmtCount(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// xmemResult is workload 11 on one server and shape.
type xmemResult struct {
	Server                        string
	Shape                         streamShape
	LoadTime                      time.Duration
	RSSEmpty, RSSLoaded, RSSAfter int64
	UsedEmpty, UsedAfter          int64
	Keys                          int64
	Err                           string
}

func (m xmemResult) entries() int { return m.Shape.Streams * m.Shape.Entries }

// perEntry is RSS growth and used_memory growth per entry.
func (m xmemResult) perEntry() (rss, used float64) {
	n := float64(m.entries())
	return float64(m.RSSAfter-m.RSSEmpty) / n, float64(m.UsedAfter-m.UsedEmpty) / n
}

func (m xmemResult) summary() string {
	if m.Err != "" {
		return "error: " + m.Err
	}
	rss, used := m.perEntry()
	return fmt.Sprintf("%d entries in %.1fs, RSS %s -> %s MB, used_memory %s -> %s MB: %.1f B/entry RSS, %.1f B/entry used_memory",
		m.entries(), m.LoadTime.Seconds(), fmtMB(m.RSSEmpty), fmtMB(m.RSSAfter), fmtMB(m.UsedEmpty), fmtMB(m.UsedAfter), rss, used)
}

// runStreamMemory adds sh's entries to a fresh server, round-robin over
// the streams (entry i goes to stream i mod Streams, as interleaved
// traffic would), XADD with auto ids, pipelined, and reads its memory.
func runStreamMemory(cfg *config, name, bin, dir string, sh streamShape) (res xmemResult) {
	res = xmemResult{Server: name, Shape: sh}
	fail := func(err error) xmemResult { res.Err = err.Error(); return res }
	s, err := startServer(name, bin, dir, false)
	if err != nil {
		return fail(err)
	}
	defer s.Stop()
	time.Sleep(500 * time.Millisecond)
	res.RSSEmpty, res.UsedEmpty = s.RSS(), s.UsedMemory()
	total := sh.Streams * sh.Entries
	keys := make([]string, sh.Streams)
	for i := range keys {
		keys[i] = "xm:" + strconv.Itoa(i)
	}
	start := time.Now()
	bad, first, err := bulkLoad(s.Addr, 4, 1000, total, func(b []byte, i int, _ time.Time) []byte {
		return appendXAdd(b, keys[i%sh.Streams], i)
	}, func(_ int, r reply) bool { return r.kind == '$' && !r.null })
	res.LoadTime = time.Since(start)
	if err != nil {
		return fail(err)
	}
	if bad > 0 {
		return fail(fmt.Errorf("%d of %d XADD replies were not an id, first: %s", bad, total, first))
	}
	res.RSSLoaded = s.RSS()
	time.Sleep(cfg.settle)
	res.RSSAfter, res.UsedAfter = s.RSS(), s.UsedMemory()
	res.Keys, _ = s.DBSize()
	if res.Keys != int64(sh.Streams) {
		return fail(fmt.Errorf("DBSIZE %d after loading %d streams", res.Keys, sh.Streams))
	}
	c, err := dial(s.Addr)
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	if n, err := c.Int("XLEN", keys[0]); err != nil || n != int64(sh.Entries) {
		return fail(fmt.Errorf("XLEN %s: %d (%v), want %d", keys[0], n, err, sh.Entries))
	}
	return res
}

// xmemMarkdown is workload 11's table.
func xmemMarkdown(cfg *config, ms []xmemResult) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Workload 11: stream bytes per entry (XADD auto ids, entries `user <n> action login`)\n\n")
	p("| shape | server | load time | RSS empty MB | RSS after %s MB | used_memory empty / after MB | bytes/entry (RSS growth) | bytes/entry (used_memory growth) | limitkv/Redis RSS / used_memory |\n", cfg.settle)
	p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, m := range ms {
		if m.Err != "" {
			p("| %s | %s | error: %s | | | | | | |\n", m.Shape, m.Server, m.Err)
			continue
		}
		rss, used := m.perEntry()
		ratio := ""
		if m.Server == "limitkv" {
			ratio = "n/a"
			for _, o := range ms {
				if o.Server == "redis" && o.Shape == m.Shape && o.Err == "" {
					orss, oused := o.perEntry()
					ratio = fmt.Sprintf("%.2f / %.2f", rss/orss, used/oused)
				}
			}
		}
		p("| %s | %s | %.1f s | %s | %s | %s / %s | %.1f | %.1f | %s |\n", m.Shape, m.Server, m.LoadTime.Seconds(),
			fmtMB(m.RSSEmpty), fmtMB(m.RSSAfter), fmtMB(m.UsedEmpty), fmtMB(m.UsedAfter), rss, used, ratio)
	}
	p("\n")
	return b.String()
}
