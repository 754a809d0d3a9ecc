package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/limitkv/limitkv/ratelimit"
)

// The ratelimit package over the clients that spread keys or follow a
// master: go-redis's ClusterClient on a cluster of three limitkv masters
// and on one with a Redis master between two limitkv ones, a Ring of three
// limitkv servers and one with a Redis shard, and a FailoverClient behind
// three Sentinels. On each, one sequence of calls (every Algorithm,
// leases, a budget, AllowAll of a user, its tenant and a lease) on six
// tenants, on a client clock the sequence moves, must give exactly the
// decisions and figures it gives on one server of the backend detected
// (limitkv's RL.* where every node has them, the Lua twins elsewhere),
// leave as many keys, each on the node its hash tag routes to, and the
// tenants must reach every master or shard. Then the node of one tenant is
// killed (kill -9): each call for that tenant answers as the failure
// policy says (the default and FailClosed refuse with the error, FailOpen
// admits with StoreErr), and a tenant of another node is still checked.
func TestRateLimitClusterClients(t *testing.T) {
	clusterSuite(t, "three clusters' and rings' worth of servers, and Sentinels")
	requireServers(t)
	flushBoth(t)
	rdsRef, lkvRef := newClients(t)
	ctx := context.Background()
	refs := map[ratelimit.Backend][]string{}
	refKeys := map[ratelimit.Backend]int64{}
	for _, r := range []struct {
		rdb *redis.Client
		b   ratelimit.Backend
	}{{lkvRef, ratelimit.BackendLimitkv}, {rdsRef, ratelimit.BackendScript}} {
		refs[r.b] = newRLSeq(t, r.rdb, nil, r.b).run(t)
		refKeys[r.b] = r.rdb.DBSize(ctx).Val()
	}
	if refs[ratelimit.BackendLimitkv][0] != refs[ratelimit.BackendScript][0] || refKeys[ratelimit.BackendLimitkv] == 0 {
		t.Fatalf("the references disagree on their first call, or wrote nothing: %q %q, %v",
			refs[ratelimit.BackendLimitkv][0], refs[ratelimit.BackendScript][0], refKeys)
	}

	for _, kinds := range []string{"lll", "lrl"} {
		t.Run("cluster "+kinds, func(t *testing.T) {
			want := rlWant(kinds)
			m := startMixedCluster(t, kinds, 0)
			// One dial per try and few tries: a call for the dead master's
			// slots fails in milliseconds, not go-redis's default seconds.
			cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.clusterAddrs(), MaxRedirects: 3,
				DialTimeout: 300 * time.Millisecond, DialerRetries: 1, ReadTimeout: 2 * time.Second})
			defer cc.Close()
			start := time.Now()
			sameTrace(t, refs[want], newRLSeq(t, cc, nil, want).run(t))
			t.Logf("the sequence took %v", time.Since(start).Round(time.Millisecond))
			checkKeysInOwnSlots(t, m.masters(t), refKeys[want])
			owner := func(tenant string) string {
				n, err := cc.MasterForKey(ctx, "{"+tenant+"}")
				if err != nil {
					t.Fatal(err)
				}
				return n.Options().Addr
			}
			down, up := rlSpread(t, owner, 3)
			checkCrossTenant(t, cc, want, true)
			pols := newRLPolicies(t, cc, want)
			for _, n := range m.nodes {
				if n.proc.Addr == owner(down) {
					n.proc.Kill()
				}
			}
			pols.check(t, down, up)
		})
	}

	for _, kinds := range []string{"lll", "llr"} {
		t.Run("ring "+kinds, func(t *testing.T) {
			want := rlWant(kinds)
			addrs := map[string]string{}
			procs := map[string]*testredis.Proc{}
			for i, k := range kinds {
				o := testredis.Options{}
				if k == 'l' {
					o.Path = limitkvBinary(t)
				}
				p := testredis.StartWith(t, o)
				addrs[fmt.Sprintf("shard%d", i)] = p.Addr
				procs[p.Addr] = p
			}
			// No heartbeat during the test: a Ring that finds a shard down
			// moves its keys to the others (see the end), which would hide
			// the failure policy.
			ring := redis.NewRing(&redis.RingOptions{Addrs: addrs, HeartbeatFrequency: time.Hour,
				DialTimeout: 300 * time.Millisecond, DialerRetries: 1, ReadTimeout: 2 * time.Second, MaxRetries: -1})
			defer ring.Close()
			sameTrace(t, refs[want], newRLSeq(t, ring, nil, want).run(t))
			owner := func(key string) string {
				c, err := ring.GetShardClientForKey(key)
				if err != nil {
					t.Fatal(err)
				}
				return c.Options().Addr
			}
			// Every key on the shard its hash tag routes to: RL.ALL routed
			// by its first argument (now) would have left the step's keys
			// on another.
			var total int64
			for _, addr := range addrs {
				c := redis.NewClient(&redis.Options{Addr: addr})
				keys, err := c.Keys(ctx, "*").Result()
				c.Close()
				if err != nil {
					t.Fatal(err)
				}
				total += int64(len(keys))
				for _, k := range keys {
					if o := owner(k); o != addr {
						t.Errorf("%s is on %s, the ring routes it to %s", k, addr, o)
					}
				}
			}
			if total != refKeys[want] {
				t.Errorf("the shards hold %d keys, one server %d", total, refKeys[want])
			}
			down, up := rlSpread(t, func(tenant string) string { return owner("{" + tenant + "}") }, 3)
			checkCrossTenant(t, ring, want, true)
			pols := newRLPolicies(t, ring, want)
			procs[owner("{"+down+"}")].Kill()
			pols.check(t, down, up)

			// A Ring whose heartbeat finds the shard down routes its keys
			// to the others: the tenant's users start new windows there,
			// admitted without the failure policy being asked.
			beat := redis.NewRing(&redis.RingOptions{Addrs: addrs, HeartbeatFrequency: 50 * time.Millisecond,
				DialTimeout: 300 * time.Millisecond, DialerRetries: 1, MaxRetries: -1})
			defer beat.Close()
			lim, err := ratelimit.New(beat, ratelimit.Options{Name: "seq-sliding_log", Limit: 3, Window: rlSeqWindow,
				Backend: want, Now: newSeqClock().Now})
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, 10*time.Second, "the heartbeat to route "+down+" to another shard", func() bool {
				res, err := lim.Allow(ctx, down, "u1")
				return err == nil && res.StoreErr == nil
			})
			if res, err := lim.Allow(ctx, down, "u1"); err != nil || !res.Allowed || res.Count != 2 {
				t.Errorf("%s on another shard: %+v %v, want a new window (count 2 after the first call)", down, res, err)
			}
		})
	}

	t.Run("sentinel", func(t *testing.T) {
		want := ratelimit.BackendLimitkv
		master := startLimitkvNode(t, "rl-master")
		g := newSentinelGroup(t, master, startLimitkvNode(t, "rl-replica"))
		var saddrs []string
		for _, s := range g.sentinels {
			saddrs = append(saddrs, s.addr)
		}
		fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: sentinelMasterName, SentinelAddrs: saddrs,
			DialTimeout: 300 * time.Millisecond, DialerRetries: 1, ReadTimeout: 2 * time.Second, MaxRetries: -1})
		defer fc.Close()
		sameTrace(t, refs[want], newRLSeq(t, fc, nil, want).run(t))
		if n := master.do(t, "DBSIZE").Int; n != refKeys[want] {
			t.Errorf("the master holds %d keys, one server %d", n, refKeys[want])
		}
		checkCrossTenant(t, fc, want, false)
		pols := newRLPolicies(t, fc, want)
		// The calls below take milliseconds; the Sentinels need a second
		// (down-after) before they promote the replica.
		master.kill9(t)
		pols.check(t, rlSeqTenants[0], "")
	})
}

// rlWant is the backend a client of nodes of kinds must detect: RL.*
// only where every node is limitkv.
func rlWant(kinds string) ratelimit.Backend {
	if strings.Contains(kinds, "r") {
		return ratelimit.BackendScript
	}
	return ratelimit.BackendLimitkv
}

// rlSpread checks that the sequence's tenants reach nodes (owner names a
// tenant's node) and returns a tenant to take down and one of another node.
func rlSpread(t *testing.T, owner func(tenant string) string, nodes int) (down, up string) {
	t.Helper()
	seen := map[string]bool{}
	for _, tn := range rlSeqTenants {
		seen[owner(tn)] = true
		if up == "" && owner(tn) != owner(rlSeqTenants[0]) {
			up = tn
		}
	}
	if len(seen) != nodes {
		t.Fatalf("the tenants reach %d of the %d nodes", len(seen), nodes)
	}
	return rlSeqTenants[0], up
}

// checkCrossTenant: AllowAll of two tenants' keys is refused before any
// round trip on a sharded client, and runs on one server.
func checkCrossTenant(t *testing.T, rdb redis.UniversalClient, want ratelimit.Backend, sharded bool) {
	t.Helper()
	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "cross", Limit: 3, Window: rlSeqWindow,
		Algorithm: ratelimit.GCRA, Backend: want, OnFailure: ratelimit.FailOpen})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ratelimit.AllowAll(context.Background(), lim.Charge(rlSeqTenants[0], "u1", 1), lim.Charge(rlSeqTenants[1], "u1", 1))
	if got := errors.Is(err, ratelimit.ErrCrossSlot); got != sharded || !sharded && (err != nil || !m.Allowed || m.StoreErr != nil) {
		t.Errorf("AllowAll of two tenants: %+v %v; want ErrCrossSlot %v", m, err, sharded)
	}
}

const (
	rlSeqWindow = 40 * time.Second // longer than a run takes: no key expires by the server's clock meanwhile
	rlSeqStep   = 10 * time.Second // the client clock's step between rounds
)

var rlSeqTenants = []string{"acme", "globex", "initech", "umbrella", "hooli", "stark"}

// seqClock is the client clock of a sequence, which only the sequence
// moves, so every run sees the same times.
type seqClock struct {
	mu sync.Mutex
	t  time.Time
}

func newSeqClock() *seqClock { return &seqClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *seqClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *seqClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// rlSeq is every kind of limiter of the package on one client.
type rlSeq struct {
	clk    *seqClock
	lims   []*ratelimit.Limiter // one per Algorithm
	conc   *ratelimit.Concurrency
	bud    *ratelimit.Budget
	tenant *ratelimit.Limiter // AllowAll's tenant-wide bucket
}

func newRLSeq(t *testing.T, rdb redis.UniversalClient, pol ratelimit.FailurePolicy, want ratelimit.Backend) *rlSeq {
	t.Helper()
	s := &rlSeq{clk: newSeqClock()}
	for _, alg := range []ratelimit.Algorithm{ratelimit.SlidingLog, ratelimit.GCRA, ratelimit.TokenBucket,
		ratelimit.FixedWindow, ratelimit.SlidingWindow} {
		l, err := ratelimit.New(rdb, ratelimit.Options{Name: "seq-" + alg.String(), Limit: 3, Window: rlSeqWindow,
			Algorithm: alg, Now: s.clk.Now, OnFailure: pol})
		if err != nil {
			t.Fatal(err)
		}
		s.lims = append(s.lims, l)
	}
	var err error
	if s.tenant, err = ratelimit.New(rdb, ratelimit.Options{Name: "seq-tenant", Limit: 8, Window: rlSeqWindow,
		Algorithm: ratelimit.TokenBucket, Now: s.clk.Now, OnFailure: pol}); err != nil {
		t.Fatal(err)
	}
	if s.conc, err = ratelimit.NewConcurrency(rdb, ratelimit.ConcurrencyOptions{Name: "seq-lease", Limit: 2,
		Lease: 25 * time.Second, Now: s.clk.Now, OnFailure: pol}); err != nil {
		t.Fatal(err)
	}
	if s.bud, err = ratelimit.NewBudget(rdb, ratelimit.BudgetOptions{Name: "seq-tokens", Limit: 100, Window: rlSeqWindow,
		Now: s.clk.Now, OnFailure: pol}); err != nil {
		t.Fatal(err)
	}
	// Every limiter detects its backend now, while every node is up.
	ctx := context.Background()
	for _, l := range append(s.lims, s.tenant) {
		if b, err := l.Backend(ctx); err != nil || b != want {
			t.Fatalf("%s: backend %v, %v; want %v", l.Name(), b, err, want)
		}
	}
	for _, k := range []string{"x", "y"} {
		if _, err := s.conc.Holders(ctx, "detect", k); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.bud.Reserve(ctx, "detect", "x", 0); err != nil {
		t.Fatal(err)
	}
	return s
}

// run is the sequence: six rounds a client-clock step apart, each calling
// every limiter for every tenant; the trace is one line per call.
func (s *rlSeq) run(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var trace []string
	rec := func(what string, r ratelimit.Result, err error, waits bool) {
		line := fmt.Sprintf("%s: allowed=%v count=%d limit=%d remaining=%d", what, r.Allowed, r.Count, r.Limit, r.Remaining)
		if waits {
			line += fmt.Sprintf(" retry=%v reset=%v", r.RetryAfter, r.Reset)
		}
		if err != nil || r.StoreErr != nil {
			t.Errorf("%s: %v (store: %v)", what, err, r.StoreErr)
		}
		trace = append(trace, line)
	}
	for round := range 6 {
		for _, tn := range rlSeqTenants {
			at := fmt.Sprintf("round %d %s", round, tn)
			for _, l := range s.lims {
				r, err := l.Allow(ctx, tn, "u1")
				// The fixed window's waits follow its key's TTL on the
				// server's clock, not the sequence's.
				rec(at+" "+l.Name(), r, err, l.Algorithm() != ratelimit.FixedWindow)
			}
			r, err := s.conc.Acquire(ctx, tn, "u1", fmt.Sprintf("job%d", round))
			rec(at+" acquire", r, err, true)
			if round%2 == 1 {
				r, err = s.conc.Release(ctx, tn, "u1", fmt.Sprintf("job%d", round-1))
				rec(at+" release", r, err, true)
			}
			hs, err := s.conc.Holders(ctx, tn, "u1")
			if err != nil {
				t.Errorf("%s holders: %v", at, err)
			}
			line := at + " holders:"
			for _, h := range hs {
				line += fmt.Sprintf(" %s@%d", h.ID, h.Expires.UnixMilli())
			}
			trace = append(trace, line)
			res, err := s.bud.Reserve(ctx, tn, "u1", 30)
			rec(at+" reserve", res.Result, err, true)
			if res.Allowed {
				r, err = s.bud.Settle(ctx, res, 10+5*round)
				rec(at+" settle", r, err, true)
			}
			m, err := ratelimit.AllowAll(ctx, s.lims[4].Charge(tn, "u2", 1), s.tenant.Charge(tn, "all", 1),
				s.conc.Charge(tn, "u2", fmt.Sprintf("all%d", round)))
			if err != nil || m.StoreErr != nil {
				t.Errorf("%s AllowAll: %v (store: %v)", at, err, m.StoreErr)
			}
			trace = append(trace, fmt.Sprintf("%s all: allowed=%v refused=%d", at, m.Allowed, m.Refused))
			for i, r := range m.Results {
				rec(fmt.Sprintf("%s all[%d]", at, i), r, nil, true)
			}
		}
		s.clk.add(rlSeqStep)
	}
	return trace
}

// sameTrace fails at the first call whose decision or figures differ from
// one server's.
func sameTrace(t *testing.T, want, got []string) {
	t.Helper()
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("call %d differs:\n one server: %s\n here:       %s", i, want[i], got[i])
		}
	}
	if len(want) != len(got) {
		t.Fatalf("%d calls here, %d on one server", len(got), len(want))
	}
	refused := 0
	for _, l := range got {
		if strings.Contains(l, "allowed=false") {
			refused++
		}
	}
	t.Logf("%d calls, %d refused, as on one server", len(got), refused)
}

// rlPolicies is the sequence's limiters under each failure policy, their
// backend detected while every node is up.
type rlPolicies struct {
	seqs map[string]*rlSeq
}

func newRLPolicies(t *testing.T, rdb redis.UniversalClient, want ratelimit.Backend) *rlPolicies {
	t.Helper()
	p := &rlPolicies{seqs: map[string]*rlSeq{}}
	for name, pol := range map[string]ratelimit.FailurePolicy{"default": nil, "FailOpen": ratelimit.FailOpen,
		"FailClosed": ratelimit.FailClosed} {
		p.seqs[name] = newRLSeq(t, rdb, pol, want)
	}
	return p
}

// check calls every kind of limiter for down, whose node is gone, under
// each policy, and (unless up is "") a check for up, on another node,
// which must be decided by its store.
func (p *rlPolicies) check(t *testing.T, down, up string) {
	t.Helper()
	ctx := context.Background()
	if up != "" {
		s := p.seqs["default"]
		if r, err := s.lims[0].Allow(ctx, up, "after"); err != nil || r.StoreErr != nil || !r.Allowed || r.Count != 1 {
			t.Errorf("%s, on a node still up: %+v %v", up, r, err)
		}
	}
	start := time.Now()
	defer func() { t.Logf("the failure policies' calls took %v", time.Since(start).Round(time.Millisecond)) }()
	for name, s := range p.seqs {
		open := name == "FailOpen"
		calls := map[string]func() (ratelimit.Result, error){
			"Allow": func() (ratelimit.Result, error) { return s.lims[1].Allow(ctx, down, "gone") },
			"Acquire": func() (ratelimit.Result, error) {
				return s.conc.Acquire(ctx, down, "gone", "job")
			},
			"Reserve": func() (ratelimit.Result, error) {
				r, err := s.bud.Reserve(ctx, down, "gone", 1)
				return r.Result, err
			},
			"AllowAll": func() (ratelimit.Result, error) {
				m, err := ratelimit.AllowAll(ctx, s.lims[4].Charge(down, "gone", 1), s.tenant.Charge(down, "all", 1))
				return ratelimit.Result{Allowed: m.Allowed, StoreErr: m.StoreErr}, err
			},
		}
		for what, call := range calls {
			r, err := call()
			switch {
			case open && (err != nil || !r.Allowed || r.StoreErr == nil):
				t.Errorf("%s %s of %s, its node gone: %+v %v; want allowed with StoreErr", name, what, down, r, err)
			case !open && (err == nil || r.Allowed || errors.Is(err, ratelimit.ErrNoAnswer)):
				t.Errorf("%s %s of %s, its node gone: %+v %v; want refused with the store's error", name, what, down, r, err)
			}
		}
	}
}
