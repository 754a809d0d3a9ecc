// Package ratelimit is a rate limiter on a Redis-protocol store: "at most
// Limit requests per Window for each (tenant, user)", counted by the
// algorithm of your choice, plus concurrency leases, budgets and several
// limits at once.
//
// It is the Go form of the limiter limitkv grew from (a Java service that
// guards a costly AI endpoint with 5 requests per 60 s per user): each
// (tenant, user) pair is one sorted set whose members are request ids and
// whose scores are millisecond timestamps. A request first drops the entries
// that left the window, counts the rest, and is recorded only if the count is
// under the limit. Refused requests are not recorded, so a client hammering a
// closed window does not push its own retry time back.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	lim, err := ratelimit.New(rdb, ratelimit.Options{
//		Name: "suggest-categories", Limit: 5, Window: time.Minute,
//	})
//	res, err := lim.Allow(ctx, "acme", "user123")
//	if err != nil { ... }         // the store failed and the policy says fail closed
//	if !res.Allowed { ... }       // answer 429, retry after res.RetryAfter
//
// # Picking an algorithm
//
// Options.Algorithm chooses how a Limiter counts; every one runs natively
// on limitkv (an RL.* command) and as its Lua twin from ratelimit/scripts
// on Redis, Valkey or Dragonfly, with the same decisions and figures:
//
//	You want                                        Use
//	an exact window, every request recorded         SlidingLog (default; RL.CHECK)
//	a steady rate with bursts, O(1), exact          GCRA (Burst; redis-cell's key)
//	a bucket that refills continuously, with costs  TokenBucket (Burst = capacity)
//	the simplest counter, resetting in steps        FixedWindow (up to 2×Limit across a boundary)
//	a close approximation of SlidingLog, O(1)       SlidingWindow
//	at most N jobs in flight, freed if one dies     Concurrency (NewConcurrency, leases)
//	costs known only afterwards (LLM tokens)        Budget (NewBudget: Reserve, then Settle)
//	user and IP and tenant limits, all or none      AllowAll with Limiter.Charge, Concurrency.Charge
//
// Result's figures mean the same for all: Remaining is what could still
// pass now (a window's unused requests, a bucket's whole tokens, GCRA's
// free burst), RetryAfter what a refused request of the same cost waits
// (Never if it cannot pass), Reset how long until the key is back to "no
// history". Limit is Limiter.Limit(): the per-window limit, or the burst.
//
// AllowAll on other servers runs scripts.All: one script holding the
// twins, which peeks every limit and charges them only if all passed, in
// one atomic step as RL.ALL. A SlidingLog limiter cannot take part (RL.ALL
// has no sliding log); a Budget neither (RL.ALL's reply lacks the window a
// settlement needs).
//
// # Backends
//
// Against limitkv the check is one RL.CHECK ... INFO command: limitkv's clock
// and member ids, and every Result field computed by the server. Against
// Redis, Valkey, Dragonfly (or limitkv, if forced) it runs the seed's Lua
// script verbatim (sliding_window.lua, embedded) through EVALSHA, falling
// back to EVAL when the server's script cache lacks it; the time is the
// client's clock and the member "<ms>:<8 hex chars>", as in the seed. The
// limiter asks the server once which one it is (COMMAND INFO rl.check; on a
// cluster or ring every node, see Clusters), unless Options.Backend forces
// one. Both backends keep the same data under the same
// key (only the members' format differs), so support commands work the same
// on both, and limiters of either backend on one limitkv share their windows.
//
// The other algorithms, leases and budgets use the same detection: their
// RL command on limitkv, their twin (EVALSHA, EVAL on NOSCRIPT) elsewhere,
// with the server's clock ("*": TIME in the twins) unless Options.Now is
// set. Their twins answer every figure, so both backends give the same
// Result. For the sliding log (the seed's script), both backends give the
// same Result except:
//   - The script backend computes RetryAfter and Reset of a refused request
//     with a second round trip (ZRANGEBYSCORE and ZRANGE in one pipeline), after the
//     script: a request recorded in between by another client can make them
//     slightly stale. Allowed, Count and Remaining are always exact.
//   - The script backend uses the caller's clock, limitkv its own; with
//     several application servers whose clocks disagree the script backend's
//     windows are only as exact as their clock sync, and the Reset of an
//     allowed request assumes no entry is newer than the caller's time.
//     (limitkv's clock never goes below the newest entry of the key, so it
//     is also immune to a client whose clock ran ahead.)
//   - AllowN with n > 1 needs RL.CHECK's COST: the seed's script records one
//     request per call, so the script backend answers ErrCostUnsupported.
//
// # Tenants
//
// The default keys start with the tenant in a hash tag ("{acme}:ratelimit:
// ..."), so an ACL user limited to "~{acme}:*" confines a tenant's services
// to its own windows: a call for another tenant is refused by the server
// (NOPERM) and fails closed. A user allowed only RL.CHECK and RL.PEEK
// cannot run COMMAND INFO: give its limiter Backend: BackendLimitkv. See
// Example (tenantACL).
//
// # Sentinel
//
// New takes any go-redis UniversalClient, so a limiter follows a
// Sentinel-managed master (limitkv replicas promoted by Redis Sentinel,
// or a Redis master with limitkv replicas) through redis.NewFailoverClient:
//
//	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
//		MasterName:    "mymaster",
//		SentinelAddrs: []string{"10.0.0.1:26379", "10.0.0.2:26379", "10.0.0.3:26379"},
//		DialTimeout:   500 * time.Millisecond,
//		ReadTimeout:   500 * time.Millisecond,
//	})
//	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest", Limit: 5, Window: time.Minute})
//
// The windows are ordinary sorted sets, replicated like any key, so after a
// failover the promoted replica goes on counting the windows the old
// master had. During the switch (from the master's failure until the
// client has the promoted replica's address: about down-after-milliseconds
// plus a second with Sentinel's defaults) calls fail, and the failure
// policy decides: the default fails closed. Short timeouts keep a stopped
// master from holding calls for go-redis's default 3 s each. Replication
// is asynchronous: checks the master admitted in its last moments may not
// have reached the replica, and those users get that many requests again
// after the failover (bench/README.md measures how many under the seed's
// workload). A service that must keep answering through the switch can
// use FailOpen, which admits every request the store could not judge.
//
// # Clusters
//
// A Redis Cluster of limitkv masters, of Redis masters, or of both, takes a
// go-redis ClusterClient; a client-side shard set takes a Ring:
//
//	rdb := redis.NewClusterClient(&redis.ClusterOptions{
//		Addrs:                      []string{"10.0.0.1:7000", "10.0.0.2:7000", "10.0.0.3:7000"},
//		DialTimeout:                500 * time.Millisecond,
//		ReadTimeout:                500 * time.Millisecond,
//		ClusterStateReloadInterval: time.Second,
//	})
//	lim, err := ratelimit.New(rdb, ratelimit.Options{Name: "suggest", Limit: 5, Window: time.Minute})
//
// Every check has one key, so each goes to the master of its slot (RL.*
// commands by their key, the twins by EVALSHA's first key), following
// MOVED and ASK while slots move. What a cluster changes:
//
//   - The backend is detected on every node, masters and replicas: RL.CHECK
//     only if none lacks it, the twins otherwise (a keyless COMMAND INFO
//     would reach one node only, and in a mixed cluster that node would
//     decide for all). Detection happens once: a limitkv cluster that may
//     later get a Redis node (add-node, a Redis replica) needs
//     Backend: BackendScript, which limitkv runs natively.
//   - AllowAll is one atomic step on one node, so its keys need one hash
//     tag: DefaultKey's "{tenant}:..." keys of one tenant share it, and
//     charges of two tenants get ErrCrossSlot before any round trip (a
//     cluster would answer CROSSSLOT, which FailOpen would admit; a Ring
//     would run the step on the first key's shard). A custom Key must keep
//     the tenant in braces for the same reason.
//   - The failure policy sees a master's failure only for the keys of its
//     slots; the other tenants go on. After a failover the promoted
//     replica counts the windows it replicated, as under Sentinel. go-redis
//     finds it when it reloads its slot map, which a MOVED triggers but a
//     refused connection does not: without a short
//     ClusterStateReloadInterval (its default is 60 s) the dead master's
//     tenants fail until then (bench/failover -cluster measures the switch).
//   - A Ring moves a shard's keys to the others once its heartbeat finds
//     the shard down: their users then start new windows there, admitted
//     without the failure policy being asked (a Ring's shards are not
//     replicas of each other).
//
// # Failures
//
// The default policy is the seed's: when the store answers nothing (a nil
// reply; errors.Is(err, ErrNoAnswer)) the request is allowed (fail open: the
// limiter is a cost guard, not a security gate), and when it fails (refused
// connection, timeout, error reply) Allow returns the error with
// Allowed=false (fail closed: no budget burnt with the limiter blind).
// Options.OnFailure replaces that policy and is the place to log.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Backend selects how a Limiter talks to its store.
type Backend int32

const (
	// BackendAuto asks the server once (COMMAND INFO rl.check) and uses
	// BackendLimitkv if it knows RL.CHECK, BackendScript otherwise.
	BackendAuto Backend = iota
	// BackendLimitkv uses limitkv's RL.CHECK command.
	BackendLimitkv
	// BackendScript runs the seed's Lua script (Redis, Valkey, Dragonfly, limitkv).
	BackendScript
)

func (b Backend) String() string {
	switch b {
	case BackendAuto:
		return "auto"
	case BackendLimitkv:
		return "limitkv"
	case BackendScript:
		return "script"
	}
	return "Backend(" + strconv.Itoa(int(b)) + ")"
}

// Never is Result.RetryAfter when the request can never succeed: a cost
// above the limit, or a window held by entries with negative scores (written
// by another tool), which the seed's pruning never removes.
const Never time.Duration = -1

var (
	// ErrNoAnswer is wrapped by the error given to the failure policy when the
	// store answered a nil reply instead of a count.
	ErrNoAnswer = errors.New("ratelimit: the store answered nothing (nil reply)")
	// ErrCostUnsupported is returned by AllowN with n > 1 on the script
	// backend: the seed's script records exactly one request per call.
	ErrCostUnsupported = errors.New("ratelimit: a cost above 1 needs limitkv's RL.CHECK (the seed's script records one request per call)")
)

// FailurePolicy decides whether a request is allowed when the store failed.
// err is never nil; errors.Is(err, ErrNoAnswer) for a nil reply. It is also
// the place to log or count failures (the seed logs a warning when it fails
// open and an error when it fails closed). It must be safe for concurrent use.
type FailurePolicy func(ctx context.Context, key string, err error) (allow bool)

// FailOpenOnNoAnswer is the default policy, the seed's: allow on a nil
// reply, refuse (and return the error) on every other failure.
func FailOpenOnNoAnswer(_ context.Context, _ string, err error) bool {
	return errors.Is(err, ErrNoAnswer)
}

// FailOpen allows every request the store could not judge.
func FailOpen(context.Context, string, error) bool { return true }

// FailClosed refuses every request the store could not judge.
func FailClosed(context.Context, string, error) bool { return false }

// Options configure a Limiter. Limit and Window are required.
type Options struct {
	// Name identifies the limit (e.g. the endpoint); it is part of the
	// default key and of the RateLimit-Policy header. Default "default".
	Name string
	// Limit is the number of requests allowed per Window; at least 1.
	Limit int
	// Window is the length of the window, in whole milliseconds (at least
	// 1 ms; finer parts are dropped). For GCRA and TokenBucket, Limit per
	// Window is the rate at which capacity comes back; GCRA needs whole
	// seconds (redis-cell's period).
	Window time.Duration
	// Algorithm is how requests are counted; default SlidingLog, the
	// seed's. See "Picking an algorithm" in the package doc.
	Algorithm Algorithm
	// Burst is the most requests GCRA and TokenBucket admit at once (the
	// bucket's capacity); default Limit. The window algorithms ignore it.
	Burst int
	// Key returns the store key of (tenant, user). Default: DefaultKey(Name).
	Key func(tenant, user string) string
	// Backend forces a backend; default BackendAuto.
	Backend Backend
	// Now is the client clock. The script backend always uses it (default
	// time.Now). The limitkv backend uses limitkv's clock unless Now is set,
	// in which case it sends this clock's time.
	Now func() time.Time
	// OnFailure decides what a store failure means; default FailOpenOnNoAnswer.
	OnFailure FailurePolicy
}

// DefaultKey returns the default key scheme for the limit name:
// "{tenant}:ratelimit:name:user". The braces are a Redis Cluster hash tag:
// all of one tenant's keys live in one slot, so a support tool can inspect
// or clear a tenant with single-slot commands.
func DefaultKey(name string) func(tenant, user string) string {
	mid := "}:ratelimit:" + name + ":"
	return func(tenant, user string) string {
		return "{" + tenant + mid + user
	}
}

// Result is the outcome of one check.
type Result struct {
	// Allowed reports whether the request may proceed (and was recorded).
	Allowed bool
	// Count is the number of requests in the window after this call (the
	// recorded ones, including this one if it was allowed).
	Count int
	// Limit is the limit checked against (Limiter.Limit).
	Limit int
	// Remaining is what a request could still take now: Limit-Count,
	// never below 0 (a token bucket's whole tokens, GCRA's free burst).
	Remaining int
	// RetryAfter is 0 if allowed; otherwise how long until the same call
	// could succeed, or Never.
	RetryAfter time.Duration
	// Reset is how long until the key is back to "no history": the window
	// empty, the bucket full, the burst whole, every lease ended (0 if it
	// is).
	Reset time.Duration
	// StoreErr is the store failure the FailurePolicy let through (the
	// request was allowed without a check); nil normally. When it is set,
	// only Allowed and Limit are meaningful.
	StoreErr error
}

// store is what every limiter of the package shares: the client, the
// clock, the failure policy and the backend, detected once.
type store struct {
	rdb       redis.UniversalClient
	now       func() time.Time
	serverNow bool // Options.Now unset: the server's clock decides ('*' as now)
	onFailure FailurePolicy

	backend  atomic.Int32 // a Backend; BackendAuto until detected
	detectMu sync.Mutex
}

func newStore(rdb redis.UniversalClient, b Backend, now func() time.Time, onFailure FailurePolicy) (*store, error) {
	if rdb == nil {
		return nil, errors.New("ratelimit: nil client")
	}
	switch b {
	case BackendAuto, BackendLimitkv, BackendScript:
	default:
		return nil, fmt.Errorf("ratelimit: unknown %v", b)
	}
	st := &store{rdb: rdb, now: now, serverNow: now == nil, onFailure: onFailure}
	if st.now == nil {
		st.now = time.Now
	}
	if st.onFailure == nil {
		st.onFailure = FailOpenOnNoAnswer
	}
	st.backend.Store(int32(b))
	return st, nil
}

// nowArg is the now_ms argument of the commands and twins that take one:
// "*" for the server's clock unless Options.Now is set.
func (st *store) nowArg() any {
	if st.serverNow {
		return "*"
	}
	return st.now().UnixMilli()
}

// Limiter checks requests against one limit. It is safe for concurrent use.
type Limiter struct {
	*store
	name     string
	alg      Algorithm
	limit    int
	burst    int
	windowMs int64
	key      func(tenant, user string) string
}

// New returns a Limiter that keeps its windows in rdb.
func New(rdb redis.UniversalClient, o Options) (*Limiter, error) {
	if o.Limit < 1 {
		return nil, fmt.Errorf("ratelimit: Limit must be at least 1, got %d", o.Limit)
	}
	windowMs := o.Window.Milliseconds()
	if windowMs < 1 {
		return nil, fmt.Errorf("ratelimit: Window must be at least 1ms, got %v", o.Window)
	}
	st, err := newStore(rdb, o.Backend, o.Now, o.OnFailure)
	if err != nil {
		return nil, err
	}
	l := &Limiter{
		store:    st,
		name:     o.Name,
		alg:      o.Algorithm,
		limit:    o.Limit,
		burst:    o.Burst,
		windowMs: windowMs,
		key:      o.Key,
	}
	if l.burst == 0 {
		l.burst = l.limit
	}
	if err := l.validate(); err != nil {
		return nil, err
	}
	if l.name == "" {
		l.name = "default"
	}
	if l.key == nil {
		l.key = DefaultKey(l.name)
	}
	return l, nil
}

// Name returns the limit's name.
func (l *Limiter) Name() string { return l.name }

// Limit returns the most requests a check can ever see pass at once: the
// limit per window of the window algorithms, the burst (bucket capacity)
// of GCRA and the token bucket. Result.Limit is the same figure.
func (l *Limiter) Limit() int {
	if l.alg == GCRA || l.alg == TokenBucket {
		return l.burst
	}
	return l.limit
}

// Rate returns Options.Limit: requests per Window.
func (l *Limiter) Rate() int { return l.limit }

// Algorithm returns the limiter's algorithm.
func (l *Limiter) Algorithm() Algorithm { return l.alg }

// Window returns the window length.
func (l *Limiter) Window() time.Duration { return time.Duration(l.windowMs) * time.Millisecond }

// Key returns the store key of (tenant, user).
func (l *Limiter) Key(tenant, user string) string { return l.key(tenant, user) }

// Backend returns the backend in use, detecting it if needed.
func (l *Limiter) Backend(ctx context.Context) (Backend, error) {
	return l.resolveBackend(ctx)
}

// Allow checks one request of user in tenant and records it if allowed.
//
// The error is non-nil only when the store failed and the failure policy
// refused the request (Allowed is then false); a refusal by the limit is
// Allowed=false with a nil error.
func (l *Limiter) Allow(ctx context.Context, tenant, user string) (Result, error) {
	return l.AllowN(ctx, tenant, user, 1)
}

// AllowN checks a request that costs n units (n entries in the window): it
// is allowed if Count+n <= Limit, and then all n are recorded. n > 1 needs
// the limitkv backend (ErrCostUnsupported otherwise).
func (l *Limiter) AllowN(ctx context.Context, tenant, user string, n int) (Result, error) {
	if n < 1 {
		return Result{Limit: l.limit}, fmt.Errorf("ratelimit: cost must be at least 1, got %d", n)
	}
	key := l.key(tenant, user)
	b, err := l.resolveBackend(ctx)
	if err != nil {
		return l.fail(ctx, key, l.Limit(), err)
	}
	var res Result
	switch {
	case l.alg != SlidingLog:
		res, err = l.allowAlgorithm(ctx, b, key, n)
	case b == BackendLimitkv:
		res, err = l.rlCheck(ctx, key, n)
	default:
		if n != 1 {
			return Result{Limit: l.limit}, ErrCostUnsupported
		}
		res, err = l.runScript(ctx, key)
	}
	if err != nil {
		return l.fail(ctx, key, l.Limit(), err)
	}
	return res, nil
}

// fail applies the failure policy to a store failure of a check against
// limit.
func (st *store) fail(ctx context.Context, key string, limit int, err error) (Result, error) {
	err = st.wrap(key, err)
	if st.onFailure(ctx, key, err) {
		return Result{Allowed: true, Limit: limit, StoreErr: err}, nil
	}
	return Result{Limit: limit}, err
}

// wrap names the key in a store failure, and ErrNoAnswer for a nil reply.
func (st *store) wrap(key string, err error) error {
	if errors.Is(err, redis.Nil) {
		err = fmt.Errorf("%w: %w", ErrNoAnswer, err)
	}
	return fmt.Errorf("ratelimit: key %q: %w", key, err)
}

// resolveBackend returns the forced or detected backend. A detection that
// fails on the network is not remembered, so the next call asks again.
func (st *store) resolveBackend(ctx context.Context) (Backend, error) {
	if b := Backend(st.backend.Load()); b != BackendAuto {
		return b, nil
	}
	st.detectMu.Lock()
	defer st.detectMu.Unlock()
	if b := Backend(st.backend.Load()); b != BackendAuto {
		return b, nil
	}
	b, err := detect(ctx, st.rdb)
	if err != nil {
		return BackendAuto, err
	}
	st.backend.Store(int32(b))
	return b, nil
}

// result fills the derived fields from the count after the call.
func (l *Limiter) result(allowed bool, count int, retry, reset time.Duration) Result {
	rem := l.limit - count
	if rem < 0 {
		rem = 0
	}
	if allowed {
		retry = 0
	}
	return Result{Allowed: allowed, Count: count, Limit: l.limit, Remaining: rem, RetryAfter: retry, Reset: reset}
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
