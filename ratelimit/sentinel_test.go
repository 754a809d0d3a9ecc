package ratelimit

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/redis/go-redis/v9"
)

// A limiter over a go-redis FailoverClient: three real Sentinels watch a
// master and a limitkv replica; after SENTINEL FAILOVER the limiter goes
// on against the promoted replica, with the windows the master had
// (replicated), so a user's budget is not reset by the failover.
func TestSentinelFailoverClient(t *testing.T) {
	path := testredis.Require(t) // its sentinel mode too
	for _, tc := range []struct {
		name    string
		master  func(t *testing.T) string
		backend Backend
	}{
		// A Redis master with a limitkv replica: the seed's script on
		// both, the windows carried from Redis into limitkv.
		{"redis master", func(t *testing.T) string { return startRedisProc(t, path) }, BackendScript},
		// limitkv throughout: RL.CHECK, replicated to the replica.
		{"limitkv master", startLimitkv, BackendLimitkv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			masterAddr := tc.master(t)
			replicaAddr := startLimitkv(t)
			ctx := context.Background()
			replica := redis.NewClient(&redis.Options{Addr: replicaAddr})
			defer replica.Close()
			host, port, _ := net.SplitHostPort(masterAddr)
			if err := replica.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
				t.Fatal(err)
			}
			var sentinels []*redis.SentinelClient
			var addrs []string
			for range 3 {
				a := startSentinel(t, path, masterAddr)
				addrs = append(addrs, a)
				s := redis.NewSentinelClient(&redis.Options{Addr: a})
				defer s.Close()
				sentinels = append(sentinels, s)
			}
			waitUntil(t, 20*time.Second, "every Sentinel sees the other two and the replica, its link up", func() string {
				for _, s := range sentinels {
					m, err := s.Master(ctx, "mymaster").Result()
					if err != nil || m["num-slaves"] != "1" || m["num-other-sentinels"] != "2" {
						return fmt.Sprintf("SENTINEL MASTER: %v %v", m, err)
					}
					// Connected to the replica, which reports its link up:
					// a replica known only from the master's INFO is not
					// one Sentinel would promote (NOGOODSLAVE).
					r, err := s.Replicas(ctx, "mymaster").Result()
					if err != nil || len(r) != 1 || r[0]["role-reported"] != "slave" || r[0]["master-link-status"] != "ok" ||
						r[0]["flags"] != "slave" {
						return fmt.Sprintf("SENTINEL REPLICAS: %v %v", r, err)
					}
				}
				return ""
			})

			rdb := redis.NewFailoverClient(&redis.FailoverOptions{
				MasterName: "mymaster", SentinelAddrs: addrs,
				DialTimeout: 500 * time.Millisecond, ReadTimeout: 500 * time.Millisecond,
			})
			defer rdb.Close()
			lim, err := New(rdb, Options{Name: "sentinel", Limit: 5, Window: time.Minute, Backend: tc.backend})
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 3; i++ {
				if res, err := lim.Allow(ctx, "acme", "u1"); err != nil || !res.Allowed || res.Count != i {
					t.Fatalf("call %d before the failover: %+v %v", i, res, err)
				}
			}
			key := lim.Key("acme", "u1")
			waitUntil(t, 10*time.Second, "the window on the replica", func() string {
				if n, err := replica.ZCard(ctx, key).Result(); err != nil || n != 3 {
					return fmt.Sprintf("ZCARD %d %v", n, err)
				}
				return ""
			})

			if err := sentinels[0].Failover(ctx, "mymaster").Err(); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, 20*time.Second, "the Sentinels naming the replica as master", func() string {
				for _, s := range sentinels {
					a, err := s.GetMasterAddrByName(ctx, "mymaster").Result()
					if err != nil || len(a) != 2 || net.JoinHostPort(a[0], a[1]) != replicaAddr {
						return fmt.Sprintf("GET-MASTER-ADDR-BY-NAME %v %v", a, err)
					}
				}
				return ""
			})
			// Until the Sentinels turn the old master into a replica it is
			// still a master: a call the client sent there before moving
			// was admitted, then dropped by its resync (the over-admission
			// bench/README.md measures for SENTINEL FAILOVER), and the
			// counts below would be one short.
			old := redis.NewClient(&redis.Options{Addr: masterAddr})
			defer old.Close()
			waitUntil(t, 20*time.Second, "the old master a replica", func() string {
				if role, err := old.Do(ctx, "ROLE").Slice(); err != nil || len(role) == 0 || role[0] != "slave" {
					return fmt.Sprintf("ROLE %v %v", role, err)
				}
				return ""
			})
			// The switch: calls may fail while the client moves (fail
			// closed); the first that succeeds counts the three before.
			var res Result
			waitUntil(t, 10*time.Second, "a call served by the promoted replica", func() string {
				res, err = lim.Allow(ctx, "acme", "u1")
				if err != nil {
					return err.Error()
				}
				if role, _ := rdb.Do(ctx, "ROLE").Slice(); len(role) == 0 || role[0] != "master" {
					return fmt.Sprintf("served by %v", role)
				}
				return ""
			})
			if !res.Allowed || res.Count != 4 {
				t.Fatalf("first call after the failover: %+v, want allowed with count 4 (the window replicated)", res)
			}
			if res, err := lim.Allow(ctx, "acme", "u1"); err != nil || !res.Allowed || res.Remaining != 0 {
				t.Fatalf("fifth call: %+v %v", res, err)
			}
			if res, err := lim.Allow(ctx, "acme", "u1"); err != nil || res.Allowed {
				t.Fatalf("sixth call: %+v %v, want refused", res, err)
			}
		})
	}
}

func startLimitkv(t *testing.T) string {
	t.Helper()
	srv, err := limitkv.Start(limitkv.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Addr()
}

// startRedisProc runs a private redis-server, stopped by its pid at the
// end of the test.
func startRedisProc(t *testing.T, path string) string {
	t.Helper()
	return testredis.StartWith(t, testredis.Options{Path: path}).Addr
}

// startSentinel runs redis-server --sentinel watching master as
// "mymaster" (quorum 2, down after 1 s), with Sentinel's periods
// shortened (SENTINEL DEBUG) so that the failover takes about a second.
func startSentinel(t *testing.T, path, master string) string {
	t.Helper()
	dir := t.TempDir()
	host, mport, _ := net.SplitHostPort(master)
	logPath := filepath.Join(dir, "sentinel.log")
	conf := fmt.Sprintf("logfile %s\n"+
		"sentinel monitor mymaster %s %s 2\nsentinel down-after-milliseconds mymaster 1000\n"+
		"sentinel failover-timeout mymaster 3000\n", logPath, host, mport)
	confPath := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := testredis.StartWith(t, testredis.Options{Path: path, Conf: confPath, Dir: dir, Args: []string{"--sentinel"}}).Addr
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("sentinel %s log:\n%s", addr, b)
		}
	})
	s := redis.NewClient(&redis.Options{Addr: addr})
	defer s.Close()
	if err := s.Do(context.Background(), "SENTINEL", "DEBUG", "info-period", "250", "publish-period", "250",
		"ask-period", "250", "ping-period", "250").Err(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// waitUntil polls check (every 50 ms) until it returns "", failing the
// test with its last answer after d.
func waitUntil(t *testing.T, d time.Duration, what string, check func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		why := check()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still not %s: %s", d, what, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
