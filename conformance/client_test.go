package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// CLIENT REPLY, NO-EVICT, UNBLOCK, PAUSE/UNPAUSE and the CLIENT LIST
// fields they show, against Redis.
func TestClientConformance(t *testing.T) {
	settle := Sleep(30 * time.Millisecond)
	runCases(t, []Case{
		{Name: "reply off and on", Cmds: []Cmd{
			C("CLIENT", "REPLY", "OFF").NoReply(),
			C("SET", "k", "v").NoReply(),
			C("GET", "k").NoReply(),
			C("NOSUCH").NoReply(),
			C("GET").NoReply(),
			C("CLIENT", "REPLY", "OFF").NoReply(),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("PING").NoReply(),
			C("CLIENT", "REPLY", "ON"),
			C("GET", "k"),
		}},
		{Name: "reply skip", Cmds: []Cmd{
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("PING").NoReply(),
			C("PING", "x"),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("PING", "skipped").NoReply(),
			C("PING", "y"),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("CLIENT", "REPLY", "ON"),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("MULTI").NoReply(),
			C("SET", "a", "1"),
			C("EXEC"),
		}},
		{Name: "reply errors", Cmds: []Cmd{
			C("CLIENT", "REPLY", "maybe"),
			C("CLIENT", "REPLY"),
			C("CLIENT", "REPLY", "on", "off"),
			C("CLIENT", "reply", "On"),
		}},
		{Name: "RESET and reply modes", Cmds: []Cmd{
			C("CLIENT", "REPLY", "OFF").NoReply(),
			C("RESET"),
			C("PING"),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("RESET").NoReply(),
			C("PING"),
		}},
		{Name: "pushes pass a silenced client", Cmds: []Cmd{
			C("CLIENT", "REPLY", "OFF").NoReply(),
			C("SUBSCRIBE", "a", "b").Replies(2),
			C("PUBLISH", "a", "m").On(1),
			Recv(),
			C("PSUBSCRIBE", "p*"),
			C("PUBLISH", "pq", "m2").On(1),
			Recv(),
			C("UNSUBSCRIBE", "a", "b").Replies(2),
			C("PUNSUBSCRIBE"),
			C("CLIENT", "REPLY", "ON"),
		}},
		{Name: "RESP3 silenced client gets its own pushes", RESP2Only: "RESP3 only", resp3: true, Cmds: []Cmd{
			C("SUBSCRIBE", "a"),
			C("CLIENT", "REPLY", "OFF").NoReply(),
			C("PUBLISH", "a", "self"),
			C("GET", "k").NoReply(),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("PUBLISH", "a", "self2"),
			C("CLIENT", "REPLY", "ON"),
			C("PUBLISH", "a", "self3").Replies(2),
		}},
		{Name: "skipped blocking command", Cmds: []Cmd{
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("BLPOP", "l", "2").NoReply(),
			settle,
			C("LPUSH", "l", "a").On(1),
			C("PING"),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("BLPOP", "l", "0.05").NoReply(),
			Sleep(100 * time.Millisecond),
			C("PING"),
			C("CLIENT", "REPLY", "OFF").NoReply(),
			C("BLPOP", "l", "2").NoReply(),
			settle,
			C("RPUSH", "l", "b").On(1),
			C("CLIENT", "REPLY", "ON"),
			C("LLEN", "l"),
		}},
		{Name: "no-evict", Cmds: []Cmd{
			C("CLIENT", "NO-EVICT", "ON"),
			C("CLIENT", "INFO").Check("flags", sameClientFields("flags")),
			C("RESET"),
			C("CLIENT", "INFO").Check("flags after RESET", sameClientFields("flags")),
			C("CLIENT", "NO-EVICT", "off"),
			C("CLIENT", "INFO").Check("flags", sameClientFields("flags")),
			C("CLIENT", "NO-EVICT", "maybe"),
			C("CLIENT", "NO-EVICT"),
			C("CLIENT", "NO-EVICT", "on", "x"),
		}},
		{Name: "unblock errors", Cmds: []Cmd{
			C("CLIENT", "UNBLOCK", "x"),
			C("CLIENT", "UNBLOCK", "1", "x"),
			C("CLIENT", "UNBLOCK", "x", "x"),
			C("CLIENT", "UNBLOCK", "99999999"),
			C("CLIENT", "UNBLOCK", "99999999", "error"),
			C("CLIENT", "UNBLOCK", "-1", "TIMEOUT"),
			C("CLIENT", "UNBLOCK", "1", "2", "3"),
			C("CLIENT", "UNBLOCK"),
		}},
		{Name: "pause errors", Cmds: []Cmd{
			C("CLIENT", "PAUSE", "x"),
			C("CLIENT", "PAUSE", "-1"),
			C("CLIENT", "PAUSE", "1.5"),
			C("CLIENT", "PAUSE", "10", "x"),
			C("CLIENT", "PAUSE", "x", "x"),
			C("CLIENT", "PAUSE", "-1", "WRITE"),
			C("CLIENT", "PAUSE", "1", "2", "3"),
			C("CLIENT", "PAUSE"),
			C("CLIENT", "UNPAUSE", "x"),
			C("CLIENT", "PAUSE", "0"),
			C("CLIENT", "PAUSE", "0", "write"),
			C("CLIENT", "UNPAUSE"),
			C("SET", "k", "v"),
		}},
		{Name: "write pause lets reads through", Cmds: []Cmd{
			C("SET", "k", "v"),
			C("CLIENT", "PAUSE", "100000", "WRITE"),
			C("GET", "k").On(1),
			C("EVAL_RO", "return redis.call('get', 'k')", "0").On(1),
			C("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'k')", "0").On(1),
			C("PING").On(1),
			C("MULTI").On(1),
			C("GET", "k").On(1),
			C("EXEC").On(1),
			C("NOSUCH").On(1),
			C("SET", "k").On(1),
			C("CLIENT", "INFO").On(1).Check("flags", sameClientFields("flags", "cmd")),
			C("SET", "k", "v2").On(1).NoReply(),
			settle,
			C("CLIENT", "LIST", "TYPE", "normal").Check("the paused client is blocked", sameFlagCounts),
			C("GET", "k"),
			C("CLIENT", "UNPAUSE"),
			Recv().On(1),
			C("GET", "k"),
		}},
		{Name: "write pause holds writes and may-replicate commands", Cmds: []Cmd{
			C("CLIENT", "PAUSE", "100000", "WRITE"),
			C("SET", "a", "1").On(1).NoReply(),
			C("PUBLISH", "ch", "m").On(2).NoReply(),
			C("EVAL", "return 1", "0").On(3).NoReply(),
			C("PFCOUNT", "h").On(4).NoReply(),
			C("MULTI").On(5),
			C("INCR", "n").On(5).NoReply(),
			settle,
			C("CLIENT", "UNPAUSE"),
			Recv().On(1), Recv().On(2), Recv().On(3), Recv().On(4), Recv().On(5),
			C("EXEC").On(5),
			C("GET", "a"),
		}},
		{Name: "all pause holds everything but its deadline", Cmds: []Cmd{
			C("CLIENT", "PAUSE", "150"),
			C("PING").On(1).Timeout(2 * time.Second),
			C("GET", "k").On(2).Timeout(2 * time.Second),
			C("NOSUCH").On(2),
		}},
		// One pause: the stricter kind and the later end of the two.
		{Name: "pauses combine", Cmds: []Cmd{
			C("PING").On(1),
			C("CLIENT", "PAUSE", "250", "WRITE"),
			C("CLIENT", "PAUSE", "10", "ALL"),
			Sleep(50 * time.Millisecond),
			C("GET", "k").On(1).Timeout(2 * time.Second),
			C("CLIENT", "INFO").Check("not paused any more", sameClientFields("flags")),
		}},
		{Name: "monitors are not paused", Cmds: []Cmd{
			C("PING").On(1),
			C("MONITOR").On(2),
			C("CLIENT", "PAUSE", "100000", "ALL"),
			C("PING").On(2).Replies(2).Check("monitor line", monLine),
			C("PING").On(1).NoReply(),
			settle,
			// CLIENT UNPAUSE is admin: the line is the released PING's.
			C("CLIENT", "UNPAUSE").On(2).Replies(2).Check("monitor line", monLine),
			Recv().On(1),
		}},
		// A monitor is not paused: it unpauses, and kills held clients.
		{Name: "held QUIT and killed held clients", Cmds: []Cmd{
			C("PING").On(1), C("PING").On(2),
			C("MONITOR").On(3),
			C("CLIENT", "PAUSE", "100000", "ALL"),
			C("QUIT").On(1).NoReply(),
			settle,
			C("CLIENT", "LIST").On(3).Check("held clients", sameFlagCounts),
			C("CLIENT", "UNPAUSE").On(3),
			Recv().On(1),
			Recv().On(3).Check("monitor line", monLine),
			C("CLIENT", "PAUSE", "100000", "ALL").On(2),
			C("GET", "k").On(2).NoReply(),
			C("RESET").NoReply(),
			settle,
			C("CLIENT", "KILL", "TYPE", "normal").On(3).Ignore(),
			Recv().On(2),
			C("CLIENT", "UNPAUSE").On(3),
			C("PING"),
		}},
		// Under a pause nothing is refused for memory: the write is held,
		// and refused once it runs again.
		{Name: "pause and maxmemory", Cmds: []Cmd{
			C("CONFIG", "SET", "maxmemory", "1"),
			C("SET", "a", "1"),
			C("CLIENT", "PAUSE", "100000", "WRITE"),
			C("SET", "a", "1").On(1).NoReply(),
			settle,
			C("CLIENT", "LIST", "TYPE", "normal").Check("the write is held", sameFlagCounts),
			C("CLIENT", "UNPAUSE"),
			Recv().On(1),
			C("CONFIG", "SET", "maxmemory", "0"),
			C("SET", "a", "1"),
		}},
		{Name: "pause keeps expired keys", Cmds: []Cmd{
			C("SET", "k", "v", "PX", "30"),
			C("CLIENT", "PAUSE", "100000", "WRITE"),
			Sleep(60 * time.Millisecond),
			C("GET", "k"),
			C("EXISTS", "k"),
			C("DBSIZE"),
			C("CLIENT", "UNPAUSE"),
			C("GET", "k"),
			C("DBSIZE"),
		}},
		{Name: "kill and list by type", Cmds: []Cmd{
			C("SUBSCRIBE", "ch").On(1),
			C("CLIENT", "KILL", "TYPE", "pubsub"),
			settle,
			C("PUBSUB", "NUMSUB", "ch"),
			C("CLIENT", "KILL", "TYPE", "master"),
			C("CLIENT", "KILL", "TYPE", "replica"),
			C("CLIENT", "KILL", "USER", "default", "TYPE", "pubsub"),
		}},
		{Name: "list fields", Cmds: []Cmd{
			C("MULTI"),
			C("SET", "k", "vvvv"),
			C("GET", "k"),
			C("CLIENT", "INFO"),
			C("EXEC").Check("client line in EXEC", func(rds, lkv *Reply) error {
				if len(rds.Elems) != 3 || len(lkv.Elems) != 3 {
					return fmt.Errorf("EXEC replies %q, %q", rds.Raw, lkv.Raw)
				}
				return checkClientLines(rds.Elems[2], lkv.Elems[2])
			}),
			C("CLIENT", "INFO").Check("cmd after EXEC", sameClientFields("cmd", "multi", "flags")),
			C("GET"),
			C("CLIENT", "INFO").Check("cmd after a refusal", sameClientFields("cmd")),
			C("NOSUCH"),
			C("CLIENT", "INFO").Check("cmd after an unknown command", sameClientFields("cmd")),
			C("EVAL", "return redis.call('get', 'k')", "0"),
			C("CLIENT", "INFO").Check("cmd after a script", sameClientFields("cmd")),
			C("WATCH", "w"),
			C("SET", "w", "1").On(1),
			C("CLIENT", "INFO").Check("dirty watch", sameClientFields("flags")),
			C("MULTI"),
			C("SET", "x", "1"),
			C("CLIENT", "INFO").Check("dirty transaction queues nothing", sameClientFields("flags", "multi", "multi-mem")),
			C("EXEC"),
		}},
	})
}

// sameFlagCounts compares how many clients of a CLIENT LIST have each
// flags value.
func sameFlagCounts(rds, lkv *Reply) error {
	count := func(r *Reply) string {
		m := map[string]int{}
		for _, l := range strings.Split(string(r.Raw), "\n") {
			if f := pickClientFields(l, []string{"flags"}); strings.HasPrefix(f, "flags=") && !strings.Contains(f, "<missing>") {
				m[f]++
			}
		}
		return fmt.Sprint(m)
	}
	if a, b := count(rds), count(lkv); a != b {
		return fmt.Errorf("flags differ: redis %s, limitkv %s", a, b)
	}
	return nil
}

// CLIENT UNBLOCK needs the blocked client's ID, which differs between the
// servers: the same script runs on each and the transcripts are compared.
func TestClientUnblock(t *testing.T) {
	requireServers(t)
	run := func(name, addr string) []string {
		var out []string
		a, b := dialRaw(t, name, addr), dialRaw(t, name, addr)
		id := b.MustDo(t, "CLIENT", "ID").Str
		rec := func(r *Reply, err error) {
			if err != nil {
				out = append(out, "error: "+strings.TrimPrefix(err.Error(), name+": "))
				return
			}
			out = append(out, string(r.Raw))
		}
		for _, how := range [][]string{{}, {"TIMEOUT"}, {"ERROR"}, {"error"}} {
			b.Send("BLPOP", "nokey", "0")
			time.Sleep(30 * time.Millisecond)
			rec(a.Do("CLIENT", "LIST", "ID", id))
			out[len(out)-1] = pickClientFields(out[len(out)-1], []string{"flags", "cmd"})
			rec(a.Do(append([]string{"CLIENT", "UNBLOCK", id}, how...)...))
			rec(b.ReadReply())
			rec(a.Do(append([]string{"CLIENT", "UNBLOCK", id}, how...)...))
			rec(b.Do("PING"))
		}
		// BZPOPMIN and BLMOVE time out the same way.
		b.Send("BZPOPMIN", "nokey", "0")
		time.Sleep(30 * time.Millisecond)
		rec(a.Do("CLIENT", "UNBLOCK", id))
		rec(b.ReadReply())
		b.Send("BLMOVE", "nokey", "dst", "LEFT", "RIGHT", "0")
		time.Sleep(30 * time.Millisecond)
		rec(a.Do("CLIENT", "UNBLOCK", id, "ERROR"))
		rec(b.ReadReply())
		// A client held by CLIENT PAUSE is not unblocked by limitkv (Redis
		// 7.0 crashes on it), so that is not compared here.
		return out
	}
	want, got := run("redis", redisAddr), run("limitkv", limitkvAddr)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("CLIENT UNBLOCK differs:\nredis:\n%q\nlimitkv:\n%q", want, got)
	}
}

// A go-redis client sees CLIENT PAUSE hold its writes for the pause and
// CLIENT UNPAUSE release them at once, on both servers.
func TestClientPauseTiming(t *testing.T) {
	rds, lkv := newClients(t)
	ctx := context.Background()
	for _, s := range []struct {
		name string
		c    *redis.Client
	}{{"redis", rds}, {"limitkv", lkv}} {
		c := s.c
		other := redis.NewClient(&redis.Options{Addr: c.Options().Addr})
		defer other.Close()
		if err := other.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		// The pause ends by itself: a write waits about its length.
		if err := c.Do(ctx, "CLIENT", "PAUSE", "300", "WRITE").Err(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		start := time.Now()
		if err := other.Get(ctx, "nokey").Err(); err != redis.Nil {
			t.Fatalf("%s: GET during a write pause: %v", s.name, err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%s: GET took %v during a write pause", s.name, d)
		}
		if err := other.Set(ctx, "paused", "1", 0).Err(); err != nil {
			t.Fatalf("%s: SET: %v", s.name, err)
		}
		if d := time.Since(start); d < 250*time.Millisecond || d > 1500*time.Millisecond {
			t.Errorf("%s: SET waited %v for a 300 ms pause", s.name, d)
		}
		// UNPAUSE releases a waiting write at once.
		if err := c.Do(ctx, "CLIENT", "PAUSE", "60000", "WRITE").Err(); err != nil {
			t.Fatal(err)
		}
		done := make(chan time.Duration, 1)
		start = time.Now()
		go func() {
			other.Incr(ctx, "paused")
			done <- time.Since(start)
		}()
		select {
		case d := <-done:
			t.Fatalf("%s: INCR answered after %v during a pause", s.name, d)
		case <-time.After(200 * time.Millisecond):
		}
		unpaused := time.Now()
		if err := c.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
			t.Fatalf("%s: UNPAUSE: %v", s.name, err)
		}
		select {
		case <-done:
			if d := time.Since(unpaused); d > 500*time.Millisecond {
				t.Errorf("%s: INCR answered %v after UNPAUSE", s.name, d)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: INCR never answered", s.name)
		}
		if v, err := c.Get(ctx, "paused").Result(); err != nil || v != "2" {
			t.Errorf("%s: paused = %q, %v", s.name, v, err)
		}
		c.Del(ctx, "paused")
	}
}
