package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/bench/cluster/launch"
	"github.com/limitkv/limitkv/ratelimit/seedscript"
)

var (
	clusterMode = flag.Bool("cluster", false, "a Redis Cluster of 3 masters with a replica each (all -master kind) instead of Sentinel; kill -9 of one master")
	pipeline    = flag.Int("P", 1, "with -cluster: checks a worker sends at once (one pipeline, split by node)")
	nodeTimeout = flag.Int("node-timeout", 2000, "with -cluster: cluster-node-timeout, ms")
	reloadEvery = flag.Duration("reload", time.Second, "with -cluster: the ClusterClient's ClusterStateReloadInterval (0: go-redis's default, 60 s)")
)

// runCluster is the over-admission run on a cluster: users with keys of
// their own hash tag, so spread over the three masters, checked through a
// go-redis ClusterClient; one master is killed (kill -9) at -kill-at and
// its replica is elected. A user of the killed master admitted more than
// five times lost admissions the master had not sent to its replica.
func runCluster() error {
	if *runFor >= windowMs*time.Millisecond-*arrive {
		return fmt.Errorf("-duration must leave every check in its user's first window")
	}
	if *masterK == "redis" && *check == "rlcheck" {
		*check = "script" // Redis has no RL.CHECK
	}
	work, err := os.MkdirTemp("", "limitkv-failover-cluster-")
	if err != nil {
		return err
	}
	if *keepLogs {
		fmt.Println("working directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	path := *bin
	if path == "" && *masterK == "limitkv" {
		if path, err = launch.BuildLimitkv(work); err != nil {
			return err
		}
	}
	o := launch.Options{Limitkv: path, RedisServer: *redisBin, Dir: work, NodeTimeout: *nodeTimeout}
	cl, err := launch.Start(o, *masterK, *masterK, 3, 1)
	if cl != nil {
		defer cl.Stop()
	}
	if err != nil {
		return err
	}
	ctx := context.Background()
	script := redis.NewScript(seedscript.Source)
	// On every node, replicas too: SCRIPT LOAD is not replicated, and a
	// promoted replica must find the script for EVALSHA.
	for _, n := range cl.Nodes {
		if _, err := n.Do(ctx, "SCRIPT", "LOAD", seedscript.Source); err != nil {
			return fmt.Errorf("SCRIPT LOAD on %s: %w", n.Name, err)
		}
	}
	victim := cl.Masters(ctx)[0]
	var heir *launch.Node
	for _, n := range cl.Nodes {
		info, _ := n.Do(ctx, "INFO", "replication")
		if s, _ := info.(string); strings.Contains(s, "master_port:"+strconv.Itoa(victim.Port)+"\r\n") {
			heir = n
		}
	}
	if heir == nil {
		return fmt.Errorf("no replica of %s", victim.Name)
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: cl.Seeds(), PoolSize: *workers, MaxRedirects: 3,
		DialTimeout: 300 * time.Millisecond, DialerRetries: 1, ReadTimeout: 300 * time.Millisecond,
		WriteTimeout: 300 * time.Millisecond,
		// A refused dial does not make go-redis reload the slot map (a
		// MOVED does): without a short interval the killed master's users
		// fail until the default 60 s reload.
		ClusterStateReloadInterval: *reloadEvery,
	})
	defer rdb.Close()

	rng := rand.New(rand.NewPCG(1, 2))
	type user struct {
		key      string
		first    time.Duration
		onVictim bool
		allowed  atomic.Int32
	}
	us := make([]*user, *users)
	for i := range us {
		us[i] = &user{key: fmt.Sprintf("{u%d}:ratelimit:failover", i), first: time.Duration(rng.Int64N(int64(*arrive)))}
	}
	// Which users the victim serves: its slots, by its own CLUSTER SHARDS.
	own, err := ownedSlots(ctx, victim)
	if err != nil {
		return err
	}
	pipe := rdb.Pipeline()
	slots := make([]*redis.IntCmd, len(us))
	for i, u := range us {
		slots[i] = pipe.ClusterKeySlot(ctx, u.key)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("CLUSTER KEYSLOT: %w", err)
	}
	onVictim := 0
	for i, u := range us {
		u.onVictim = own[slots[i].Val()]
		if u.onVictim {
			onVictim++
		}
	}
	sort.Slice(us, func(i, j int) bool { return us[i].first < us[j].first })

	var (
		checks, admitted, refused, failed, failedVictim atomic.Int64
		admittedBefore, admittedAfter                   atomic.Int64
		killed                                          atomic.Bool
		mu                                              sync.Mutex
		killTime, firstVictimOK, lastErrAt              time.Duration
		lastErrText                                     string
	)
	t0 := time.Now()
	// checkBatch sends the checks of batch in one pipeline (a pipeline of
	// one is a plain call) and counts each reply.
	checkBatch := func(batch []*user) {
		at := time.Since(t0)
		p := rdb.Pipeline()
		cmds := make([]redis.Cmder, len(batch))
		for i, u := range batch {
			if *check == "script" {
				now := strconv.FormatInt(time.Now().UnixMilli(), 10)
				member := now + ":" + strconv.FormatUint(rand.Uint64()&0xffffffff, 16)
				cmds[i] = script.EvalSha(ctx, p, []string{u.key}, now, windowMs, limit, member)
			} else {
				cmds[i] = p.Do(ctx, "RL.CHECK", u.key, "*", windowMs, limit, "*")
			}
		}
		p.Exec(ctx)
		done := time.Since(t0)
		for i, u := range batch {
			checks.Add(1)
			var count int64
			err := cmds[i].Err()
			if err == nil {
				switch c := cmds[i].(type) {
				case *redis.Cmd:
					count, err = c.Int64()
				}
			}
			if err != nil {
				failed.Add(1)
				if u.onVictim {
					failedVictim.Add(1)
				}
				mu.Lock()
				if at > lastErrAt {
					lastErrAt, lastErrText = at, err.Error()
				}
				mu.Unlock()
				continue
			}
			if killed.Load() && u.onVictim {
				mu.Lock()
				if firstVictimOK == 0 {
					firstVictimOK = done
				}
				mu.Unlock()
			}
			if count >= limit {
				refused.Add(1)
				continue
			}
			admitted.Add(1)
			u.allowed.Add(1)
			if killed.Load() {
				admittedAfter.Add(1)
			} else {
				admittedBefore.Add(1)
			}
		}
	}

	driven := make(chan struct{})
	go func() {
		defer close(driven)
		drive(t0, len(us), *workers, *pipeline, *runFor, *every,
			func(i int) time.Duration { return us[i].first },
			func(idx []int) {
				batch := make([]*user, len(idx))
				for k, i := range idx {
					batch[k] = us[i]
				}
				checkBatch(batch)
			})
	}()

	time.Sleep(*killAt)
	offset := infoField(victim.Addr, "master_repl_offset")
	replOffset := infoField(heir.Addr, "slave_repl_offset")
	victim.Kill()
	killed.Store(true)
	mu.Lock()
	killTime = time.Since(t0)
	mu.Unlock()
	var electedAt time.Duration
	err = waitFor(30*time.Second, heir.Name+" elected", func() bool {
		r, err := heir.Do(ctx, "ROLE")
		a, _ := r.([]any)
		return err == nil && len(a) > 0 && a[0] == "master"
	})
	if err == nil {
		electedAt = time.Since(t0)
	}
	<-driven
	if err != nil {
		return err
	}

	over, overUsers, overVictim := 0, 0, 0
	hist := map[int]int{}
	for _, u := range us {
		n := int(u.allowed.Load())
		hist[n]++
		if n > limit {
			over += n - limit
			overUsers++
			if u.onVictim {
				overVictim++
			}
		}
	}
	fmt.Printf("mode: cluster of 3 %s masters with a replica each (node timeout %d ms), client state reload %v, check %s, P%d, %d workers; "+
		"%d users (%d on the killed master) arriving over %v, a check every %v, %v run, kill -9 at %v\n",
		*masterK, *nodeTimeout, *reloadEvery, *check, *pipeline, *workers, *users, onVictim, *arrive, *every, *runFor, killTime.Round(time.Millisecond))
	fmt.Printf("offsets just before the kill (read one after the other): master %s, its replica %s\n", offset, replOffset)
	fmt.Printf("checks %d: admitted %d (%d before, %d after), refused %d, failed %d (%d of the killed master's users; last at %v: %s)\n",
		checks.Load(), admitted.Load(), admittedBefore.Load(), admittedAfter.Load(), refused.Load(), failed.Load(),
		failedVictim.Load(), lastErrAt.Round(time.Millisecond), lastErrText)
	fmt.Printf("admission rate before: %.0f/s\n", float64(admittedBefore.Load())/killTime.Seconds())
	recovered := "never"
	if firstVictimOK > 0 {
		recovered = (firstVictimOK - killTime).Round(time.Millisecond).String()
	}
	fmt.Printf("%s said role master %v after the kill; first successful check of the killed master's users %s after it\n",
		heir.Name, (electedAt - killTime).Round(time.Millisecond), recovered)
	var ks []int
	for k := range hist {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var hs []string
	for _, k := range ks {
		hs = append(hs, fmt.Sprintf("%d:%d", k, hist[k]))
	}
	fmt.Printf("users by admitted count: %s\n", strings.Join(hs, " "))
	fmt.Printf("OVER-ADMITTED: %d requests beyond the limit, %d users (%d of the killed master's)\n", over, overUsers, overVictim)
	return nil
}

// ownedSlots is the slots n serves as a master, by its CLUSTER SHARDS.
func ownedSlots(ctx context.Context, n *launch.Node) (map[int64]bool, error) {
	c := redis.NewClient(&redis.Options{Addr: n.Addr})
	defer c.Close()
	shards, err := c.ClusterShards(ctx).Result()
	if err != nil {
		return nil, err
	}
	own := map[int64]bool{}
	for _, sh := range shards {
		mine := false
		for _, sn := range sh.Nodes {
			mine = mine || sn.ID == n.ID && sn.Role == "master"
		}
		for _, r := range sh.Slots {
			for s := r.Start; mine && s <= r.End; s++ {
				own[s] = true
			}
		}
	}
	if len(own) == 0 {
		return nil, fmt.Errorf("%s serves no slot", n.Name)
	}
	return own, nil
}
