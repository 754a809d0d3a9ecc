package conformance

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/limitkv/limitkv/ratelimit/seedscript"
)

// A cluster made by redis-cli --cluster create over six nodes, one replica
// each: three redis-server 7.0.15 nodes and three limitkv nodes (redis-cli
// pairs them, so limitkv replicas of Redis masters and the reverse are
// likely), and six limitkv nodes. --cluster check finds it sound, every
// node's CLUSTER NODES gives every master the same slots, go-redis's
// ClusterClient writes and reads keys of every slot range through MOVED,
// RL.CHECK routes by its key, and a PUBLISH on any node reaches a
// subscriber on every other.
func TestClusterMixedCreate(t *testing.T) {
	if testing.Short() {
		t.Skip("six servers")
	}
	for _, kinds := range []string{"rlrlrl", "llllll"} {
		t.Run(kinds, func(t *testing.T) { proveClusterCreate(t, kinds) })
	}
}

func proveClusterCreate(t *testing.T, kinds string) {
	nodes := startMixedCluster(t, kinds, 1).nodes
	sameSlotsEverywhere(t, nodes)
	masters := map[string]int{}
	for _, n := range nodes {
		info := string(n.c.MustDo(t, "INFO", "replication").Raw)
		if strings.Contains(info, "role:master") {
			masters[n.c.Name]++
		}
	}
	if len(masters) != 3 {
		t.Fatalf("masters %v, want three", masters)
	}
	ctx := context.Background()
	var addrs []string
	for _, n := range nodes {
		addrs = append(addrs, n.proc.Addr)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRedirects: 8})
	defer cc.Close()
	for i := range 300 {
		k := fmt.Sprintf("key:%d", i)
		if err := cc.Set(ctx, k, i, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	for i := range 300 {
		k := fmt.Sprintf("key:%d", i)
		if v, err := cc.Get(ctx, k).Int(); err != nil || v != i {
			t.Fatalf("GET %s: %d, %v", k, v, err)
		}
	}
	// Each master holds the keys of its own slots, and only those.
	total := int64(0)
	for _, n := range nodes {
		if strings.Contains(string(n.c.MustDo(t, "INFO", "replication").Raw), "role:master") {
			total += n.c.MustDo(t, "DBSIZE").Int
		}
	}
	if total != 300 {
		t.Fatalf("the masters hold %d keys, want 300", total)
	}
	// Every replica, of either kind, holds its master's keys.
	byPort := map[string]*clusterNode{}
	for _, n := range nodes {
		byPort[n.port] = n
	}
	replicas := 0
	for _, n := range nodes {
		info := string(n.c.MustDo(t, "INFO", "replication").Raw)
		_, rest, ok := strings.Cut(info, "master_port:")
		if !ok {
			continue
		}
		replicas++
		m := byPort[strings.TrimSpace(strings.SplitN(rest, "\r\n", 2)[0])]
		if m == nil {
			t.Fatalf("%s replicates an unknown port:\n%s", n.c.Name, info)
		}
		want := m.c.MustDo(t, "DBSIZE").Int
		deadline := time.Now().Add(15 * time.Second)
		for n.c.MustDo(t, "DBSIZE").Int != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s (replica of %s) holds %d keys, its master %d", n.c.Name, m.c.Name, n.c.MustDo(t, "DBSIZE").Int, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got, w := n.c.MustDo(t, "DEBUG", "DIGEST").Str, m.c.MustDo(t, "DEBUG", "DIGEST").Str; got != w || len(got) != 40 {
			t.Errorf("%s (replica of %s): digest %s, master's %s", n.c.Name, m.c.Name, got, w)
		}
	}
	if replicas != 3 {
		t.Fatalf("%d replicas, want 3", replicas)
	}
	// The seed's script runs on every master (natively on limitkv's, in
	// Lua on Redis's), routed by its key's hash tag; RL.CHECK on the
	// tenants a limitkv master serves.
	isLimitkv := map[string]bool{}
	for _, n := range nodes {
		isLimitkv[n.proc.Addr] = n.lkv
	}
	seed := redis.NewScript(seedscript.Source)
	now := time.Now().UnixMilli()
	lkvTenants := 0
	for i := range 40 {
		key := fmt.Sprintf("{tenant%d}:rl:user", i)
		for n := range 2 {
			r, err := seed.Run(ctx, cc, []string{key}, now, 60000, 5, fmt.Sprintf("m%d", n)).Int()
			if err != nil || r != n {
				t.Fatalf("seed script on %s, request %d: %d, %v", key, n, r, err)
			}
		}
		owner, err := cc.MasterForKey(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if !isLimitkv[owner.Options().Addr] {
			continue
		}
		lkvTenants++
		if r, err := cc.Do(ctx, "RL.CHECK", key, now, "60000", "5", "m2").Int(); err != nil || r != 2 {
			t.Fatalf("RL.CHECK %s: %d, %v", key, r, err)
		}
	}
	if lkvTenants == 0 {
		t.Fatal("no tenant on a limitkv master")
	}
	// PUBLISH on one node reaches subscribers on the others.
	subs := make([]*redis.PubSub, len(nodes))
	for i, n := range nodes {
		c := redis.NewClient(&redis.Options{Addr: n.proc.Addr})
		defer c.Close()
		subs[i] = c.Subscribe(ctx, "news")
		defer subs[i].Close()
		if _, err := subs[i].Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, from := range []int{0, 1} {
		pub := redis.NewClient(&redis.Options{Addr: nodes[from].proc.Addr})
		defer pub.Close()
		msg := fmt.Sprintf("hello from %s", nodes[from].c.Name)
		if err := pub.Publish(ctx, "news", msg).Err(); err != nil {
			t.Fatal(err)
		}
		for i, s := range subs {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			m, err := s.ReceiveMessage(rctx)
			cancel()
			if err != nil || m.Payload != msg {
				t.Fatalf("subscriber on %s: %v %v", nodes[i].c.Name, m, err)
			}
		}
	}
}

// mixedCluster is a cluster redis-cli --cluster create made, and the
// redis-cli that made it (the proofs drive the manager's other commands).
type mixedCluster struct {
	cli   string
	nodes []*clusterNode
}

// startMixedCluster starts one node per letter of kinds ('r' redis-server,
// 'l' limitkv) and joins them with redis-cli --cluster create and
// replicas per master, then waits until every node says ok and --cluster
// check is clean. redis-cli takes the first len(kinds)/(replicas+1) nodes
// as masters, in order, so kinds chooses which kind serves which slots.
func startMixedCluster(t *testing.T, kinds string, replicas int) *mixedCluster {
	t.Helper()
	m := &mixedCluster{cli: testredis.RequireTool(t, "redis-cli")}
	for i, k := range kinds {
		name := "redis"
		if k == 'l' {
			name = "limitkv"
		}
		m.nodes = append(m.nodes, startClusterNode(t, fmt.Sprintf("%s%d", name, i), k == 'l'))
	}
	args := []string{"--cluster", "create"}
	for _, n := range m.nodes {
		args = append(args, n.proc.Addr)
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	out, err := exec.Command(m.cli, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "[OK] All 16384 slots covered.") {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, n := range m.nodes {
		waitClusterState(t, n, "ok")
	}
	m.waitCheck(t, m.nodes[0])
	return m
}

// waitCheck waits until every node knows every other (--cluster check
// compares the slots only, so a node without slots that one master has
// not met yet passes it, and add-node naming it as a master there fails)
// and redis-cli --cluster check, asked of n, finds every node agreeing and
// every slot covered and stable: after a change the gossip takes a few
// pings to spread it.
func (m *mixedCluster) waitCheck(t *testing.T, n *clusterNode) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	known := fmt.Sprintf("cluster_known_nodes:%d\r\n", len(m.nodes))
	for _, o := range m.nodes {
		for {
			info := o.c.MustDo(t, "CLUSTER", "INFO").Raw
			if strings.Contains(string(info), known) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s does not know the %d nodes:\n%s", o.c.Name, len(m.nodes), info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for {
		out, err := exec.Command(m.cli, "--cluster", "check", n.proc.Addr).CombinedOutput()
		s := string(out)
		if err == nil && strings.Contains(s, "[OK] All nodes agree about slots configuration.") &&
			strings.Contains(s, "[OK] All 16384 slots covered.") && !strings.Contains(s, "[WARNING]") &&
			!strings.Contains(s, "[ERR]") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-cli --cluster check: %v\n%s", err, out)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
