package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStreamCrashNothingLost is the "nothing acknowledged is lost" proof
// for streams: a producer XADDs and a pool of consumers in one group
// XREADGROUP, XACK and XAUTOCLAIM against limitkv's binary running with
// appendfsync always; limitkv is killed with SIGKILL mid-run (twice) and
// restarted on the same directory while the workers keep retrying. A reply
// the client read is a promise the AOF kept, so:
//   - every XADD ID the server acknowledged is in the stream after the
//     restart;
//   - every entry is processed at least once (what was delivered but never
//     acknowledged is picked up again by XAUTOCLAIM);
//   - an entry is processed again only if no XACK reply for it had been
//     read before the new delivery was asked for;
//   - the PEL loaded after each restart is exactly the one the AOF's
//     XCLAIM/XACK stream describes, and agrees with what the clients saw.
func TestStreamCrashNothingLost(t *testing.T) {
	requireServers(t)
	const (
		rounds    = 2                      // kills
		consumers = 4                      // workers in the group
		minIdle   = 300 * time.Millisecond // XAUTOCLAIM's: far above a worker's read-to-ack time
		work      = 3 * time.Millisecond   // a batch's processing, between its delivery and its XACK: where a kill leaves entries pending
	)
	dir := t.TempDir()
	// No rewrite: the incremental files must hold the whole history for
	// the PEL replay (the base is the empty one made at the first start).
	args := []string{"--appendonly", "yes", "--appendfsync", "always", "--auto-aof-rewrite-percentage", "0"}
	ctx := context.Background()

	// The workers dial whatever address is current; "" while limitkv is
	// down or being inspected after a restart, so that none reaches the
	// new process before its PEL was read.
	var cur atomic.Value
	cur.Store("")
	// A worker takes a new client after any error: go-redis's pool, once
	// its dials fail, waits a second between attempts, idling the workers
	// long after the restart.
	newClient := func(pool int) *redis.Client {
		return redis.NewClient(&redis.Options{
			Addr: "limitkv", PoolSize: pool, MaxRetries: -1, // a retried XADD would add an entry nobody acknowledged
			DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: time.Second,
			// One dial attempt: a worker whose XACK fails while limitkv is
			// down drops the batch, as a crashed consumer would, rather
			// than the client waiting for the restart.
			DialerRetries: 1, DialerRetryTimeout: time.Millisecond,
			Protocol: 2, DisableIdentity: true,
			Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) {
				a := cur.Load().(string)
				if a == "" {
					return nil, errors.New("limitkv is down")
				}
				return (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", a)
			},
		})
	}
	renew := func(c **redis.Client) {
		(*c).Close()
		time.Sleep(5 * time.Millisecond)
		*c = newClient((*c).Options().PoolSize)
	}

	var (
		mu         sync.Mutex
		clock      atomic.Int64           // orders sends and replies across goroutines
		added      = map[string]bool{}    // XADD IDs whose reply was read
		deliveries = map[string][]int64{} // entry -> clock when each delivering command was sent
		consumerOf = map[string]string{}  // entry -> consumer of its last delivery read
		ackSent    = map[string]bool{}    // an XACK for the entry was sent (its reply may be lost)
		ackedAt    = map[string]int64{}   // entry -> clock when an XACK reply of 1 for it was read
		stop       atomic.Bool            // producer stops
		done       atomic.Bool            // workers stop
		wg         sync.WaitGroup
	)
	record := func(consumer string, sent int64, msgs []redis.XMessage) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			deliveries[m.ID] = append(deliveries[m.ID], sent)
			consumerOf[m.ID] = consumer
		}
	}
	// ack sends one XACK per entry (pipelined) so that each reply says
	// which entry it removed from the PEL.
	ack := func(c *redis.Client, msgs []redis.XMessage) error {
		if len(msgs) == 0 {
			return nil
		}
		mu.Lock()
		for _, m := range msgs {
			ackSent[m.ID] = true
		}
		mu.Unlock()
		cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, m := range msgs {
				p.XAck(ctx, "s", "g", m.ID)
			}
			return nil
		})
		mu.Lock()
		defer mu.Unlock()
		for i, cmd := range cmds {
			if n, err := cmd.(*redis.IntCmd).Result(); err == nil && n == 1 {
				if _, ok := ackedAt[msgs[i].ID]; !ok {
					ackedAt[msgs[i].ID] = clock.Add(1)
				}
			}
		}
		return err
	}

	p := startLimitkvProc(t, dir, false, args...)
	admin := dialRaw(t, "limitkv", p.Addr)
	admin.MustDo(t, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	cur.Store(p.Addr)

	wg.Add(1)
	go func() { // the producer
		defer wg.Done()
		c := newClient(1)
		defer func() { c.Close() }()
		for i := 0; !stop.Load(); i++ {
			id, err := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", Values: []string{"n", strconv.Itoa(i)}}).Result()
			if err != nil {
				renew(&c)
				continue
			}
			mu.Lock()
			added[id] = true
			mu.Unlock()
		}
	}()
	for w := 0; w < consumers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("c%d", w)
			c := newClient(2)
			defer func() { c.Close() }()
			var lastClaim time.Time
			for !done.Load() {
				if time.Since(lastClaim) > minIdle/3 {
					lastClaim = time.Now()
					sent := clock.Add(1)
					msgs, _, err := c.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: "s", Group: "g", Consumer: name,
						MinIdle: minIdle, Start: "0-0", Count: 50}).Result()
					if err != nil {
						renew(&c)
						continue
					}
					record(name, sent, msgs)
					time.Sleep(work)
					if ack(c, msgs) != nil {
						renew(&c)
					}
				}
				sent := clock.Add(1)
				res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: name, Streams: []string{"s", ">"},
					Count: 20, Block: 50 * time.Millisecond}).Result()
				if errors.Is(err, redis.Nil) {
					continue
				}
				if err != nil {
					renew(&c)
					continue
				}
				for _, st := range res {
					record(name, sent, st.Messages)
					time.Sleep(work)
					if ack(c, st.Messages) != nil {
						renew(&c)
					}
				}
			}
		}()
	}

	for round := 0; round < rounds; round++ {
		time.Sleep(time.Duration(700+300*round) * time.Millisecond)
		// Killed with mu held: an XACK not yet marked as sent is tried
		// only after the kill, so it cannot have reached this process.
		cur.Store("")
		mu.Lock()
		p.Kill()
		atKill := len(added)
		sentAtKill := maps.Clone(ackSent)
		mu.Unlock()

		p = startLimitkvProc(t, dir, false, args...)
		admin = dialRaw(t, "limitkv", p.Addr)
		// The workers are locked out (cur is ""), so what is read here is
		// what the restart loaded.
		ids := streamIDs(t, admin)
		pel := pendingOf(t, admin)
		want := pelFromAOF(t, aofCmds(t, filepath.Join(dir, "appendonlydir")))
		mu.Lock()
		lost := 0
		for id := range added {
			if !ids[id] {
				lost++
				if lost < 5 {
					t.Errorf("round %d: acknowledged XADD %s is not in the stream after the restart", round, id)
				}
			}
		}
		if d := diffPEL(pel, want); d != "" {
			t.Errorf("round %d: the loaded PEL is not the AOF's: %s", round, d)
		}
		// stale: delivered, no XACK even sent, so still pending. Its
		// consumer is the AOF's (checked above): an XAUTOCLAIM cut by
		// the kill may have moved it without the client knowing.
		stale, bad := 0, 0
		for id, ds := range deliveries {
			_, acked := ackedAt[id]
			e, pending := pel[id]
			switch {
			case acked && pending:
				bad++
				if bad < 5 {
					t.Errorf("round %d: %s is pending (%s) though an XACK reply removed it", round, id, e.consumer)
				}
			case len(ds) > 0 && !sentAtKill[id]:
				stale++
				if !pending {
					bad++
					if bad < 5 {
						t.Errorf("round %d: %s was delivered to %s and never acknowledged, but is not pending", round, id, consumerOf[id])
					}
				}
			}
		}
		if bad > 0 {
			t.Errorf("round %d: %d entries pending or not against what the clients saw", round, bad)
		}
		t.Logf("round %d: killed after %d acknowledged XADDs (%d entries processed, %d XACKs acknowledged); after the restart: %d entries, lost %d, PEL %d (%d delivered and never XACKed by the clients)",
			round, atKill, len(deliveries), len(ackedAt), len(ids), lost, len(pel), stale)
		mu.Unlock()
		if t.Failed() {
			t.FailNow()
		}
		cur.Store(p.Addr)
	}

	// Let the workers catch up after the last restart, then drain: every
	// entry delivered and the PEL empty.
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for {
		info := admin.MustDo(t, "XINFO", "GROUPS", "s")
		pending, lag := fieldOf(info.Elems[0], "pending"), fieldOf(info.Elems[0], "lag")
		if pending != nil && pending.Int == 0 && lag != nil && lag.Type == ':' && lag.Int == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group did not drain: XINFO GROUPS %s", info)
		}
		time.Sleep(50 * time.Millisecond)
	}
	done.Store(true)
	wg.Wait()

	ids := streamIDs(t, admin)
	mu.Lock()
	defer mu.Unlock()
	written := len(added)
	lost, unprocessed, dups := 0, 0, 0
	for id := range added {
		if !ids[id] {
			lost++
		}
	}
	for id := range ids {
		ds := deliveries[id]
		if len(ds) == 0 {
			unprocessed++
			if unprocessed < 5 {
				t.Errorf("entry %s was never processed", id)
			}
			continue
		}
		if len(ds) > 1 {
			dups++
		}
		// A redelivery asked for after an XACK reply for the entry was
		// read means an acknowledged XACK was lost.
		if a, ok := ackedAt[id]; ok {
			for _, sent := range ds[1:] {
				if sent > a {
					t.Errorf("entry %s delivered again after its XACK was acknowledged", id)
				}
			}
		}
	}
	if lost > 0 || unprocessed > 0 {
		t.Fatalf("%d acknowledged XADDs lost, %d entries never processed", lost, unprocessed)
	}
	t.Logf("%d XADDs acknowledged, %d entries in the stream (%d added by XADDs whose reply the kill cut), killed %d times: lost 0, every entry processed, %d processed twice (their first delivery never acknowledged)",
		written, len(ids), len(ids)-written, rounds, dups)
	if dups == 0 {
		t.Logf("note: no entry was in flight at the kills")
	}
}

// streamIDs is the set of IDs in stream s.
func streamIDs(t *testing.T, c *RawConn) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, e := range c.MustDo(t, "XRANGE", "s", "-", "+").Elems {
		out[e.Elems[0].Str] = true
	}
	return out
}

type pelEntry struct {
	consumer   string
	deliveries int64
}

// pendingOf is group g's whole PEL.
func pendingOf(t *testing.T, c *RawConn) map[string]pelEntry {
	t.Helper()
	out := map[string]pelEntry{}
	for _, e := range c.MustDo(t, "XPENDING", "s", "g", "-", "+", "1000000").Elems {
		out[e.Elems[0].Str] = pelEntry{e.Elems[1].Str, e.Elems[3].Int}
	}
	return out
}

// pelFromAOF replays the PEL of group g from the AOF's commands: Redis
// propagates every delivery (XREADGROUP, XAUTOCLAIM) as an XCLAIM ...
// RETRYCOUNT n FORCE JUSTID, and XACK as itself. A MULTI left open at the
// end is what the loader drops, so it is dropped here too.
func pelFromAOF(t *testing.T, cmds [][]string) map[string]pelEntry {
	t.Helper()
	pel := map[string]pelEntry{}
	var multi [][]string
	inMulti := false
	apply := func(c []string) {
		switch strings.ToUpper(c[0]) {
		case "XCLAIM":
			var n int64
			for i := 5; i+1 < len(c); i++ {
				if strings.EqualFold(c[i], "RETRYCOUNT") {
					n, _ = strconv.ParseInt(c[i+1], 10, 64)
				}
			}
			pel[c[5]] = pelEntry{c[3], n}
		case "XACK":
			for _, id := range c[3:] {
				delete(pel, id)
			}
		}
	}
	for _, c := range cmds {
		switch strings.ToUpper(c[0]) {
		case "MULTI":
			inMulti, multi = true, nil
		case "EXEC":
			for _, m := range multi {
				apply(m)
			}
			inMulti = false
		default:
			if inMulti {
				multi = append(multi, c)
			} else {
				apply(c)
			}
		}
	}
	return pel
}

// diffPEL says how two PELs differ ("" when equal).
func diffPEL(got, want map[string]pelEntry) string {
	var d []string
	for id, w := range want {
		if g, ok := got[id]; !ok {
			d = append(d, fmt.Sprintf("%s missing (want %+v)", id, w))
		} else if g != w {
			d = append(d, fmt.Sprintf("%s is %+v, want %+v", id, g, w))
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			d = append(d, fmt.Sprintf("%s extra (%+v)", id, g))
		}
	}
	sort.Strings(d)
	if len(d) > 5 {
		d = append(d[:5], fmt.Sprintf("... %d differences", len(d)))
	}
	return strings.Join(d, "; ")
}

// fieldOf is the value under name in a flat key/value reply, or nil.
func fieldOf(r *Reply, name string) *Reply {
	for i := 0; i+1 < len(r.Elems); i += 2 {
		if r.Elems[i].Str == name {
			return r.Elems[i+1]
		}
	}
	return nil
}
