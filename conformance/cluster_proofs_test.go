package conformance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// ownedSlots is the slots n serves by its own CLUSTER SHARDS.
func ownedSlots(t *testing.T, n *clusterNode) []bool {
	t.Helper()
	own := make([]bool, 16384)
	c := redis.NewClient(&redis.Options{Addr: n.proc.Addr})
	defer c.Close()
	shards, err := c.ClusterShards(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shards {
		mine := false
		for _, sn := range sh.Nodes {
			mine = mine || sn.ID == n.id && sn.Role == "master"
		}
		if !mine {
			continue
		}
		for _, r := range sh.Slots {
			for s := r.Start; s <= r.End; s++ {
				own[s] = true
			}
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
	halted  sync.Once
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

// startClusterWriter starts the writer; it is halted at the end of the
// test if the test did not halt it first.
func startClusterWriter(t *testing.T, cc *redis.ClusterClient) *clusterWriter {
	w := &clusterWriter{cc: cc, stop: make(chan struct{}), done: make(chan struct{}),
		vals: map[string]string{}, tenants: map[string]int{}, seedUnknown: map[string]bool{}}
	go w.run()
	t.Cleanup(w.halt)
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

// halt stops the writer and waits for it; a second call does nothing.
func (w *clusterWriter) halt() {
	w.halted.Do(func() { close(w.stop) })
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
	clusterSuite(t, "four servers, resharding 900 slots")
	m := startMixedCluster(t, "rlrl", 0)
	r0, l1, l3 := m.nodes[0], m.nodes[1], m.nodes[3]
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.clusterAddrs(), MaxRedirects: 16})
	defer cc.Close()
	w := startClusterWriter(t, cc)
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

// tagInRange is a hash tag whose slot n serves, found by asking n's
// CLUSTER KEYSLOT.
func tagInRange(t *testing.T, n *clusterNode, prefix string) (string, int) {
	t.Helper()
	own := ownedSlots(t, n)
	for i := range 10000 {
		tag := fmt.Sprintf("{%s%d}", prefix, i)
		s := int(n.c.MustDo(t, "CLUSTER", "KEYSLOT", tag).Int)
		if own[s] {
			return tag, s
		}
	}
	t.Fatalf("no tag in %s's slots", n.c.Name)
	return "", 0
}

// setSlotNode ends a slot's move as redis-cli does: the target first (so
// it serves the slot before the source redirects there), the source, then
// every other master.
func setSlotNode(t *testing.T, slot int, target, source *clusterNode, others ...*clusterNode) {
	t.Helper()
	for _, n := range append([]*clusterNode{target, source}, others...) {
		if r := n.c.MustDo(t, "CLUSTER", "SETSLOT", strconv.Itoa(slot), "NODE", target.id); r.IsError() {
			t.Fatalf("%s: SETSLOT %d NODE: %s", n.c.Name, slot, r.Raw)
		}
	}
}

// openSlot sets slot migrating from source to target, target first, as
// redis-cli does.
func openSlot(t *testing.T, slot int, source, target *clusterNode) {
	t.Helper()
	for _, st := range []struct {
		n, other *clusterNode
		state    string
	}{{target, source, "IMPORTING"}, {source, target, "MIGRATING"}} {
		if r := st.n.c.MustDo(t, "CLUSTER", "SETSLOT", strconv.Itoa(slot), st.state, st.other.id); r.IsError() {
			t.Fatalf("%s: SETSLOT %d %s: %s", st.n.c.Name, slot, st.state, r.Raw)
		}
	}
}

// migrateKeys runs MIGRATE ... KEYS on source, to target.
func migrateKeys(t *testing.T, source, target *clusterNode, keys ...string) {
	t.Helper()
	args := append([]string{"MIGRATE", "127.0.0.1", target.port, "", "0", "5000", "KEYS"}, keys...)
	if r := source.c.MustDo(t, args...); r.Str != "OK" {
		t.Fatalf("%s: %q: %s", source.c.Name, args, r.Raw)
	}
}

// commandCalls is INFO commandstats's calls of cmd on n.
func commandCalls(t *testing.T, n *clusterNode, cmd string) int {
	t.Helper()
	info := string(n.c.MustDo(t, "INFO", "commandstats").Raw)
	_, rest, ok := strings.Cut(info, "cmdstat_"+cmd+":calls=")
	if !ok {
		return 0
	}
	v, _ := strconv.Atoi(rest[:strings.IndexAny(rest, ",\r")])
	return v
}

// RL.CHECK while its sorted set moves from one limitkv master to another
// mid-stream: two clients keep checking two windows of one slot (one
// whose limit is reached while the slot moves, one never reached) through
// a ClusterClient while the slot goes MIGRATING, the key is MIGRATEd (the
// clients are then sent with ASK to the target), and the slot is handed
// over (MOVED). The phases follow the requests' count, so the limit falls
// inside the ASK phase on every run. No admission may be lost or doubled:
// the counts the admitted requests saw are exactly 0..n-1, the window ends
// holding n entries, and the limited window admits exactly its limit.
func TestClusterProofRLCheckMove(t *testing.T) {
	clusterSuite(t, "three servers")
	m := startMixedCluster(t, "llr", 0)
	src, dst, other := m.nodes[0], m.nodes[1], m.nodes[2]
	tag, slot := tagInRange(t, src, "rl")
	small, big := tag+":small", tag+":big"
	const limit, total = 230, 400
	// Request counts at which the slot opens, the key moves, the slot
	// closes. A request counts in the phase whose step had finished when
	// it was sent (a step takes some fifty requests' time on two cores).
	const atOpen, atMigrate, atClose = 50, 150, 300
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.clusterAddrs(), MaxRedirects: 16})
	defer cc.Close()
	ctx := context.Background()
	if err := cc.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	askingBefore := commandCalls(t, dst, "asking")

	type result struct {
		count int64
		phase int
		err   error
	}
	var (
		mu      sync.Mutex
		sent    int
		phase   int
		results = map[string][]result{}
	)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				mu.Lock()
				if sent >= total {
					mu.Unlock()
					return
				}
				sent++
				ph := phase
				mu.Unlock()
				for _, k := range []string{small, big} {
					lim := limit
					if k == big {
						lim = 1000000
					}
					n, err := cc.Do(ctx, "RL.CHECK", k, time.Now().UnixMilli(), 60000, lim, fmt.Sprintf("g%d-%d", g, i)).Int64()
					mu.Lock()
					results[k] = append(results[k], result{n, ph, err})
					mu.Unlock()
				}
			}
		}()
	}
	waitSent := func(n int) {
		for {
			mu.Lock()
			s := sent
			mu.Unlock()
			if s >= n {
				return
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	setPhase := func(p int) {
		mu.Lock()
		phase = p
		mu.Unlock()
	}
	waitSent(atOpen)
	openSlot(t, slot, src, dst)
	setPhase(1)
	waitSent(atMigrate)
	migrateKeys(t, src, dst, small, big)
	setPhase(2)
	waitSent(atClose)
	setSlotNode(t, slot, dst, src, other)
	setPhase(3)
	wg.Wait()

	phases := []string{"stable on the source", "migrating, key on the source", "key on the target (ASK)", "slot on the target (MOVED)"}
	for _, k := range []string{small, big} {
		var admitted [4]int
		var errs []error
		seen := map[int64]int{}
		for _, r := range results[k] {
			if r.err != nil {
				errs = append(errs, r.err)
				continue
			}
			lim := int64(limit)
			if k == big {
				lim = 1000000
			}
			if r.count < lim {
				admitted[r.phase]++
				seen[r.count]++
			}
		}
		n := admitted[0] + admitted[1] + admitted[2] + admitted[3]
		for c := range int64(n) {
			if seen[c] != 1 {
				t.Errorf("%s: %d admitted requests saw count %d", k, seen[c], c)
			}
		}
		card, err := cc.ZCard(ctx, k).Result()
		if err != nil || card != int64(n) {
			t.Errorf("%s: ZCARD %d (%v), %d admitted", k, card, err, n)
		}
		if len(errs) > 0 {
			t.Errorf("%s: %d requests failed: %v", k, len(errs), errs[0])
		}
		want := total
		if k == small {
			want = limit
		}
		if n != want {
			t.Errorf("%s: %d admitted of %d requests, want %d", k, n, len(results[k]), want)
		}
		for p, a := range admitted {
			t.Logf("%s: %d admitted while %s", k, a, phases[p])
		}
	}
	if n := src.c.MustDo(t, "CLUSTER", "COUNTKEYSINSLOT", strconv.Itoa(slot)).Int; n != 0 {
		t.Errorf("the source still holds %d keys of slot %d", n, slot)
	}
	t.Logf("ASKING on the target: %d", commandCalls(t, dst, "asking")-askingBefore)
	m.waitCheck(t, src)
}

// phasedClient is a client script that reads keys in two phases (see
// testdata/node/cluster.mjs): it prints "ready" after the first and waits
// for a line on stdin before the second.
type phasedClient struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	sc     *bufio.Scanner
	stderr bytes.Buffer
	lines  []string
}

func startPhased(t *testing.T, name string, cmd *exec.Cmd) *phasedClient {
	t.Helper()
	p := &phasedClient{name: name, cmd: cmd}
	cmd.Stderr = &p.stderr
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	p.sc = bufio.NewScanner(out)
	for p.sc.Scan() {
		if p.sc.Text() == "ready" {
			return p
		}
		p.lines = append(p.lines, p.sc.Text())
	}
	t.Fatalf("%s ended before its first phase did: %v\n%s\n%s", name, cmd.Wait(), strings.Join(p.lines, "\n"), p.stderr.Bytes())
	return nil
}

// finish lets the script read its second phase and waits for it to end.
func (p *phasedClient) finish(t *testing.T) {
	t.Helper()
	p.in.Write([]byte("go\n"))
	p.in.Close()
	for p.sc.Scan() {
		p.lines = append(p.lines, p.sc.Text())
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("%s: %v\n%s", p.name, err, p.stderr.Bytes())
	}
}

// pythonWithRedisCluster is a python3 that imports redis-py's cluster
// client (Debian's python3-redis is for /usr/bin/python3, which may not
// be the python3 first in PATH), or "".
func pythonWithRedisCluster() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import redis.cluster").Run() == nil {
			return py
		}
	}
	return ""
}

// Clients follow ASK and MOVED while a slot moves by hand between the
// kinds, one slot each way: CLUSTER SETSLOT IMPORTING on the target,
// MIGRATING on the source, a MIGRATE of half its keys; then the rest and
// SETSLOT NODE. The redirections themselves (ASK from the source for a
// key it no longer has, MOVED from the target without ASKING, TRYAGAIN for
// a split multi-key request), then redis-cli -c, go-redis's ClusterClient,
// ioredis's Cluster and redis-py's RedisCluster read every key while the
// slot migrates and, with the map they cached then, after it moved.
func TestClusterProofRedirects(t *testing.T) {
	clusterSuite(t, "three servers and four clients")
	m := startMixedCluster(t, "rlr", 0)
	r0, l1, r2 := m.nodes[0], m.nodes[1], m.nodes[2]
	ctx := context.Background()
	type move struct {
		src, dst *clusterNode
		slot     int
		keys     []string
		asking   int
	}
	moves := []*move{{src: l1, dst: r0}, {src: r0, dst: l1}}
	want := map[string]string{}
	var allKeys []string
	for i, mv := range moves {
		var tag string
		tag, mv.slot = tagInRange(t, mv.src, fmt.Sprintf("m%d-", i))
		for j := range 6 {
			k := fmt.Sprintf("%s:k%d", tag, j)
			want[k] = fmt.Sprintf("value of %s", k)
			mv.src.c.MustDo(t, "SET", k, want[k])
			mv.keys = append(mv.keys, k)
			allKeys = append(allKeys, k)
		}
	}
	// Clients that learn the slot map now, before anything moves.
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.clusterAddrs(), MaxRedirects: 8})
	defer cc.Close()
	if err := cc.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() }); err != nil {
		t.Fatal(err)
	}
	for _, mv := range moves {
		mv.asking = commandCalls(t, mv.dst, "asking")
		openSlot(t, mv.slot, mv.src, mv.dst)
		migrateKeys(t, mv.src, mv.dst, mv.keys[:3]...)
		moved, kept := mv.keys[0], mv.keys[3]
		slot := strconv.Itoa(mv.slot)
		for _, c := range []struct {
			n    *clusterNode
			args []string
			want string
		}{
			{mv.src, []string{"GET", moved}, "-ASK " + slot + " 127.0.0.1:" + mv.dst.port + "\r\n"},
			{mv.src, []string{"GET", kept}, fmt.Sprintf("$%d\r\n%s\r\n", len(want[kept]), want[kept])},
			{mv.src, []string{"MGET", moved, kept}, "-TRYAGAIN Multiple keys request during rehashing of slot\r\n"},
			{mv.dst, []string{"GET", moved}, "-MOVED " + slot + " 127.0.0.1:" + mv.src.port + "\r\n"},
			{mv.dst, []string{"ASKING"}, "+OK\r\n"},
			{mv.dst, []string{"GET", moved}, fmt.Sprintf("$%d\r\n%s\r\n", len(want[moved]), want[moved])},
			{mv.dst, []string{"ASKING"}, "+OK\r\n"},
			{mv.dst, []string{"MGET", moved, kept}, "-TRYAGAIN Multiple keys request during rehashing of slot\r\n"},
		} {
			if got := string(c.n.c.MustDo(t, c.args...).Raw); got != c.want {
				t.Errorf("%s %q: %q, want %q", c.n.c.Name, c.args, got, c.want)
			}
		}
	}

	check := func(who, k, got string) {
		t.Helper()
		if got != want[k] {
			t.Errorf("%s: %s = %q, want %q", who, k, got, want[k])
		}
	}
	cliGet := func(phase string, n *clusterNode, k string) {
		t.Helper()
		out, err := exec.Command(m.cli, "-c", "-h", "127.0.0.1", "-p", n.port, "GET", k).CombinedOutput()
		if err != nil {
			t.Errorf("redis-cli -c GET %s: %v %s", k, err, out)
		}
		check("redis-cli -c ("+phase+")", k, strings.TrimSpace(string(out)))
	}
	goGetAll := func(phase string) {
		t.Helper()
		for _, k := range allKeys {
			v, err := cc.Get(ctx, k).Result()
			if err != nil {
				t.Errorf("go-redis (%s) GET %s: %v", phase, k, err)
			}
			check("go-redis ("+phase+")", k, v)
		}
	}
	var scripts []*phasedClient
	node, nerr := exec.LookPath("node")
	if _, merr := os.Stat(filepath.Join("testdata", "node", "node_modules", "ioredis")); nerr == nil && merr == nil {
		cmd := exec.Command(node, append([]string{"cluster.mjs", r2.proc.Addr}, allKeys...)...)
		cmd.Dir = filepath.Join("testdata", "node")
		scripts = append(scripts, startPhased(t, "ioredis", cmd))
	} else if os.Getenv(envRequireNode) == "1" {
		t.Fatal("node or its modules missing (run: npm ci --prefix conformance/testdata/node)")
	} else {
		t.Log("node or ioredis missing: ioredis not run")
	}
	if py := pythonWithRedisCluster(); py != "" {
		cmd := exec.Command(py, append([]string{filepath.Join("testdata", "python", "cluster.py"), r2.proc.Addr}, allKeys...)...)
		scripts = append(scripts, startPhased(t, "redis-py", cmd))
	} else {
		t.Log("python3 without redis-py: RedisCluster not run")
	}
	for _, mv := range moves {
		cliGet("ASK", mv.src, mv.keys[0])
		cliGet("ASK", mv.src, mv.keys[4])
	}
	goGetAll("ASK")

	for _, mv := range moves {
		migrateKeys(t, mv.src, mv.dst, mv.keys[3:]...)
		setSlotNode(t, mv.slot, mv.dst, mv.src, r2)
	}
	for _, mv := range moves {
		cliGet("MOVED", mv.src, mv.keys[4])
	}
	goGetAll("MOVED")
	for _, p := range scripts {
		p.finish(t)
		seen := 0
		for _, l := range p.lines {
			phase, kv, _ := strings.Cut(l, " ")
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Errorf("%s: %s", p.name, l)
				continue
			}
			check(p.name+" ("+phase+")", k, v)
			seen++
		}
		if seen != 2*len(allKeys) {
			t.Errorf("%s read %d keys, want %d:\n%s", p.name, seen, 2*len(allKeys), strings.Join(p.lines, "\n"))
		}
	}
	for _, mv := range moves {
		t.Logf("slot %d %s -> %s: ASKING on the target %d times", mv.slot, mv.src.c.Name, mv.dst.c.Name,
			commandCalls(t, mv.dst, "asking")-mv.asking)
	}
	m.waitCheck(t, r0)
	checkKeysInOwnSlots(t, m.masters(t), int64(len(allKeys)))
}

// redis-cli --cluster add-node and del-node with either kind on either
// side: a new limitkv master and a new Redis master join through a seed of
// the other kind, a new limitkv replica of the Redis master and a new
// Redis replica of the limitkv one join with --cluster-slave; each new
// master is given slots with keys (its replica then holds them too); then
// the replicas are deleted, the new masters' slots are moved back and they
// are deleted. --cluster check is clean at every step and every key stays
// readable where its slot is.
func TestClusterProofAddDelNode(t *testing.T) {
	clusterSuite(t, "seven servers")
	m := startMixedCluster(t, "rlr", 0)
	r0, l1, r2 := m.nodes[0], m.nodes[1], m.nodes[2]
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.clusterAddrs(), MaxRedirects: 8})
	defer cc.Close()
	const keys = 2000
	for i := range keys {
		if err := cc.Set(ctx, fmt.Sprintf("n:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	newL := startClusterNode(t, "limitkv3", true)
	newR := startClusterNode(t, "redis4", false)
	m.cliCluster(t, "add-node", newL.proc.Addr, r0.proc.Addr)
	m.cliCluster(t, "add-node", newR.proc.Addr, l1.proc.Addr)
	m.nodes = append(m.nodes, newL, newR)
	m.waitCheck(t, newR)
	replL := startClusterNode(t, "limitkv5", true)
	replR := startClusterNode(t, "redis6", false)
	m.cliCluster(t, "add-node", replL.proc.Addr, r0.proc.Addr, "--cluster-slave", "--cluster-master-id", newR.id)
	m.cliCluster(t, "add-node", replR.proc.Addr, l1.proc.Addr, "--cluster-slave", "--cluster-master-id", newL.id)
	m.nodes = append(m.nodes, replL, replR)
	m.waitCheck(t, replL)
	m.cliCluster(t, "reshard", r0.proc.Addr, "--cluster-from", r0.id, "--cluster-to", newL.id, "--cluster-slots", "200", "--cluster-yes")
	m.cliCluster(t, "reshard", r0.proc.Addr, "--cluster-from", l1.id, "--cluster-to", newR.id, "--cluster-slots", "200", "--cluster-yes")
	m.waitCheck(t, newL)
	for _, p := range []struct{ repl, master *clusterNode }{{replL, newR}, {replR, newL}} {
		want := p.master.c.MustDo(t, "DBSIZE").Int
		if want == 0 {
			t.Fatalf("%s was given no keys", p.master.c.Name)
		}
		deadline := time.Now().Add(15 * time.Second)
		for p.repl.c.MustDo(t, "DBSIZE").Int != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s holds %d keys, its master %s %d", p.repl.c.Name, p.repl.c.MustDo(t, "DBSIZE").Int, p.master.c.Name, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("%s: %d slots, %d keys, on its replica %s too", p.master.c.Name, countTrue(ownedSlots(t, p.master)), want, p.repl.c.Name)
	}
	checkKeysInOwnSlots(t, []*clusterNode{r0, l1, r2, newL, newR}, keys)
	readAll := func() {
		t.Helper()
		for i := range keys {
			if v, err := cc.Get(ctx, fmt.Sprintf("n:%d", i)).Int(); err != nil || v != i {
				t.Fatalf("GET n:%d: %d, %v", i, v, err)
			}
		}
	}
	readAll()

	// Replicas go first; a master only once it serves nothing.
	m.cliCluster(t, "del-node", r0.proc.Addr, replL.id)
	m.cliCluster(t, "del-node", l1.proc.Addr, replR.id)
	m.cliCluster(t, "reshard", r0.proc.Addr, "--cluster-from", newL.id, "--cluster-to", l1.id, "--cluster-slots", "200", "--cluster-yes")
	m.cliCluster(t, "reshard", r0.proc.Addr, "--cluster-from", newR.id, "--cluster-to", r0.id, "--cluster-slots", "200", "--cluster-yes")
	m.cliCluster(t, "del-node", l1.proc.Addr, newL.id)
	m.cliCluster(t, "del-node", r0.proc.Addr, newR.id)
	m.nodes = []*clusterNode{r0, l1, r2}
	m.waitCheck(t, l1)
	for _, n := range []*clusterNode{r0, l1, r2} {
		if nodes := string(n.c.MustDo(t, "CLUSTER", "NODES").Raw); strings.Count(nodes, "master") != 3 || strings.Contains(nodes, "slave") {
			t.Errorf("%s still knows a deleted node:\n%s", n.c.Name, nodes)
		}
	}
	for _, n := range []*clusterNode{newL, newR, replL, replR} {
		if known := n.c.MustDo(t, "CLUSTER", "INFO").Raw; !bytes.Contains(known, []byte("cluster_known_nodes:1\r\n")) {
			t.Errorf("%s, deleted, was not reset:\n%s", n.c.Name, known)
		}
	}
	checkKeysInOwnSlots(t, []*clusterNode{r0, l1, r2}, keys)
	cc.ReloadState(ctx)
	readAll()
}
