package conformance

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/ratelimit/seedscript"
)

// clusterAddrs is every node's address, for a ClusterClient's seeds.
func (m *mixedCluster) clusterAddrs() []string {
	var addrs []string
	for _, n := range m.nodes {
		addrs = append(addrs, n.proc.Addr)
	}
	return addrs
}

// masters is the nodes that say role:master.
func (m *mixedCluster) masters(t *testing.T) []*clusterNode {
	t.Helper()
	var ms []*clusterNode
	for _, n := range m.nodes {
		if strings.Contains(string(n.c.MustDo(t, "INFO", "replication").Raw), "role:master") {
			ms = append(ms, n)
		}
	}
	return ms
}

// cliCluster runs redis-cli --cluster args and fails the test unless it
// exits cleanly.
func (m *mixedCluster) cliCluster(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(m.cli, append([]string{"--cluster"}, args...)...).CombinedOutput()
	if err != nil || strings.Contains(string(out), "[ERR]") {
		t.Fatalf("redis-cli --cluster %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ownedSlots is the slots n serves by its own CLUSTER SLOTS.
func ownedSlots(t *testing.T, n *clusterNode) []bool {
	t.Helper()
	own := make([]bool, 16384)
	c := redis.NewClient(&redis.Options{Addr: n.proc.Addr})
	defer c.Close()
	slots, err := c.ClusterSlots(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range slots {
		if r.Nodes[0].ID != n.id {
			continue
		}
		for s := r.Start; s <= r.End; s++ {
			own[s] = true
		}
	}
	return own
}

// checkKeysInOwnSlots asks every master CLUSTER COUNTKEYSINSLOT of every
// slot: a key in a slot its node does not serve is a key no client can
// reach (the node sends it away with MOVED), what a half-done MIGRATE or a
// lost DEL leaves behind. The masters' counts must also add up to keys.
func checkKeysInOwnSlots(t *testing.T, masters []*clusterNode, keys int64) {
	t.Helper()
	ctx := context.Background()
	var total int64
	for _, n := range masters {
		own := ownedSlots(t, n)
		c := redis.NewClient(&redis.Options{Addr: n.proc.Addr})
		p := c.Pipeline()
		cmds := make([]*redis.IntCmd, 16384)
		for s := range cmds {
			cmds[s] = p.ClusterCountKeysInSlot(ctx, s)
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		c.Close()
		stray := 0
		for s, cmd := range cmds {
			total += cmd.Val()
			if cmd.Val() != 0 && !own[s] {
				stray++
				if stray <= 5 {
					t.Errorf("%s holds %d keys in slot %d, which it does not serve", n.c.Name, cmd.Val(), s)
				}
			}
		}
		if db := n.c.MustDo(t, "DBSIZE").Int; db != sumCounts(cmds) {
			t.Errorf("%s: DBSIZE %d, its slots count %d keys", n.c.Name, db, sumCounts(cmds))
		}
	}
	if total != keys {
		t.Errorf("the masters' slots hold %d keys, want %d", total, keys)
	}
}

func sumCounts(cmds []*redis.IntCmd) int64 {
	var n int64
	for _, c := range cmds {
		n += c.Val()
	}
	return n
}

// clusterWriter writes through a ClusterClient until stopped: plain keys
// (SET, retried until it succeeds, since a SET is idempotent) and the seed
// script on hash-tagged tenants with a limit no tenant reaches, so every
// call must be admitted and answer how many calls came before it: a window
// entry lost in a MIGRATE shows as a count behind, one recorded twice as a
// count ahead.
type clusterWriter struct {
	cc      *redis.ClusterClient
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	vals    map[string]string
	tenants map[string]int // admitted calls per tenant key
	// What went wrong while the slots moved; the test reports them.
	setRetries  int
	seedErrs    []string
	seedWrong   []string
	seedUnknown map[string]bool // a call failed: did it record? unknown
}

const writerTenants = 40

func startClusterWriter(cc *redis.ClusterClient) *clusterWriter {
	w := &clusterWriter{cc: cc, stop: make(chan struct{}), done: make(chan struct{}),
		vals: map[string]string{}, tenants: map[string]int{}, seedUnknown: map[string]bool{}}
	go w.run()
	return w
}

func (w *clusterWriter) run() {
	defer close(w.done)
	ctx := context.Background()
	seed := redis.NewScript(seedscript.Source)
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			return
		default:
		}
		k, v := fmt.Sprintf("w:%d", i), fmt.Sprintf("v%d-%d", i, time.Now().UnixNano())
		for try := 0; ; try++ {
			err := w.cc.Set(ctx, k, v, 0).Err()
			if err == nil {
				break
			}
			w.mu.Lock()
			w.setRetries++
			w.mu.Unlock()
			if try == 50 {
				w.mu.Lock()
				w.seedErrs = append(w.seedErrs, fmt.Sprintf("SET %s gave up: %v", k, err))
				w.mu.Unlock()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		w.mu.Lock()
		w.vals[k] = v
		w.mu.Unlock()
		if i%3 != 0 {
			continue
		}
		tk := fmt.Sprintf("{tenant%d}:rl", i/3%writerTenants)
		r, err := seed.Run(ctx, w.cc, []string{tk}, time.Now().UnixMilli(), 3600000, 1000000, fmt.Sprintf("m%d", i)).Int()
		w.mu.Lock()
		switch {
		case err != nil:
			w.seedErrs = append(w.seedErrs, fmt.Sprintf("seed %s: %v", tk, err))
			w.seedUnknown[tk] = true
		case !w.seedUnknown[tk] && r != w.tenants[tk]:
			w.seedWrong = append(w.seedWrong, fmt.Sprintf("seed %s: count %d, want %d", tk, r, w.tenants[tk]))
		}
		if err == nil {
			w.tenants[tk]++
		}
		w.mu.Unlock()
	}
}

func (w *clusterWriter) halt() {
	close(w.stop)
	<-w.done
}

// verify reads back every key the writer wrote, and every tenant's window.
func (w *clusterWriter) verify(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	p := w.cc.Pipeline()
	gets := map[string]*redis.StringCmd{}
	for k := range w.vals {
		gets[k] = p.Get(ctx, k)
	}
	cards := map[string]*redis.IntCmd{}
	for k := range w.tenants {
		cards[k] = p.ZCard(ctx, k)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatalf("reading back: %v", err)
	}
	bad := 0
	for k, c := range gets {
		if c.Val() != w.vals[k] {
			if bad++; bad <= 5 {
				t.Errorf("GET %s: %q, wrote %q", k, c.Val(), w.vals[k])
			}
		}
	}
	for k, c := range cards {
		if !w.seedUnknown[k] && c.Val() != int64(w.tenants[k]) {
			t.Errorf("ZCARD %s: %d, the script admitted %d", k, c.Val(), w.tenants[k])
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d keys wrong", bad, len(gets))
	}
	for _, s := range w.seedWrong {
		t.Error(s)
	}
	admitted := 0
	for _, n := range w.tenants {
		admitted += n
	}
	t.Logf("writer: %d keys, %d seed-script calls on %d tenants, %d SET retries, %d failed calls %v",
		len(w.vals), admitted, len(w.tenants), w.setRetries, len(w.seedErrs), w.seedErrs)
}

// Resharding under load, both ways between the kinds and by the manager's
// rebalance: redis-cli --cluster reshard moves 300 slots from a limitkv
// master to a Redis one (limitkv's MIGRATE into Redis's RESTORE-ASKING,
// its GETKEYSINSLOT and SETSLOT), then 300 from that Redis master to the
// other limitkv one, then rebalance evens them out (which moves slots
// between the two limitkv masters). A ClusterClient writes throughout,
// following MOVED, ASK and TRYAGAIN. Every key written reads back with its
// value, every tenant's window holds every admitted call, --cluster check
// is clean, and no master holds a key of a slot it does not serve.
func TestClusterProofReshard(t *testing.T) {
	if testing.Short() {
		t.Skip("four servers, resharding 900 slots")
	}
	m := startMixedCluster(t, "rlrl", 0)
	r0, l1, l3 := m.nodes[0], m.nodes[1], m.nodes[3]
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.clusterAddrs(), MaxRedirects: 16})
	defer cc.Close()
	w := startClusterWriter(cc)
	stopped := false
	defer func() {
		if !stopped {
			w.halt()
		}
	}()
	// Let the writer fill every slot range a little before the first move.
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	m.cliCluster(t, "reshard", r0.proc.Addr, "--cluster-from", l1.id, "--cluster-to", r0.id,
		"--cluster-slots", "300", "--cluster-yes")
	t.Logf("reshard limitkv -> redis: %v", time.Since(start))
	m.waitCheck(t, r0)
	start = time.Now()
	m.cliCluster(t, "reshard", l3.proc.Addr, "--cluster-from", r0.id, "--cluster-to", l3.id,
		"--cluster-slots", "300", "--cluster-yes")
	t.Logf("reshard redis -> limitkv: %v", time.Since(start))
	m.waitCheck(t, l3)
	start = time.Now()
	out := m.cliCluster(t, "rebalance", l1.proc.Addr)
	t.Logf("rebalance: %v, %d moves", time.Since(start), strings.Count(out, "Moving "))
	if !strings.Contains(out, "Moving ") {
		t.Fatalf("rebalance moved nothing:\n%s", out)
	}
	m.waitCheck(t, l1)
	w.halt()
	stopped = true
	w.verify(t)
	checkKeysInOwnSlots(t, m.masters(t), int64(len(w.vals)+len(w.tenants)))
	for _, n := range m.nodes {
		t.Logf("%s: %d slots, %d keys", n.c.Name, countTrue(ownedSlots(t, n)), n.c.MustDo(t, "DBSIZE").Int)
	}
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

var _ = strconv.Itoa
