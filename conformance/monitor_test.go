package conformance

import (
	"bufio"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// monLineRE is a MONITOR line: timestamp, database, client.
var monLineRE = regexp.MustCompile(`^\+(\d+)\.(\d{6}) \[(\d+) ([^\]]*)\] (.*)\r\n$`)

// maskMonitorLine checks a MONITOR line's timestamp (within a minute of
// now) and client address (127.0.0.1:port or lua), and masks both.
func maskMonitorLine(r *Reply) (string, error) {
	m := monLineRE.FindStringSubmatch(string(r.Raw))
	if m == nil {
		return string(r.Raw), nil // not a monitor line: compared as is
	}
	sec, _ := strconv.ParseInt(m[1], 10, 64)
	if d := time.Since(time.Unix(sec, 0)); d < -time.Minute || d > time.Minute {
		return "", fmt.Errorf("timestamp %s is %v from now", m[1], d)
	}
	who := m[4]
	if who != "lua" {
		if !regexp.MustCompile(`^127\.0\.0\.1:\d+$`).MatchString(who) {
			return "", fmt.Errorf("client %q is not an address", who)
		}
		who = "ADDR"
	}
	return "+T [" + m[3] + " " + who + "] " + m[5], nil
}

// monLine compares MONITOR lines with their timestamps and ports masked.
func monLine(rds, lkv *Reply) error {
	a, err := maskMonitorLine(rds)
	if err != nil {
		return fmt.Errorf("redis: %v", err)
	}
	b, err := maskMonitorLine(lkv)
	if err != nil {
		return fmt.Errorf("limitkv: %v", err)
	}
	if a != b {
		return fmt.Errorf("lines differ: redis %q, limitkv %q", a, b)
	}
	return nil
}

// mon reads n monitor lines on connection 0.
func mon(n int) Cmd { return Recv().Replies(n).Check("monitor line", monLine) }

// Connection 0 monitors; connection 1 (first used before MONITOR, so its
// HELLO 3 is not shown) runs commands. A Recv that finds a line Redis did
// not send (or misses one) fails by mismatch or timeout.
func TestMonitorConformance(t *testing.T) {
	start := []Cmd{C("PING").On(1), C("MONITOR")}
	settle := Sleep(20 * time.Millisecond)
	with := func(cmds ...Cmd) []Cmd { return append(append([]Cmd(nil), start...), cmds...) }
	runCases(t, []Case{
		{Name: "commands and quoting", Cmds: with(
			C("SET", "k", "v").On(1), mon(1),
			C("get", "k").On(1), mon(1),
			C("SET", "q", "a b\"c\\d\x01\x7f\xff\n\r\t\a\b\x00é").On(1), mon(1),
			C("SET", "n", "12345").On(1), mon(1),
			C("ECHO", "").On(1), mon(1),
			C("CLIENT", "GETNAME").On(1), mon(1),
		)},
		{Name: "database after the command", Cmds: with(
			C("SELECT", "3").On(1), mon(1),
			C("SET", "x", "1").On(1), mon(1),
			C("SELECT", "0").On(1), mon(1),
			C("SWAPDB", "0", "1").On(1), mon(1),
			C("SWAPDB", "0", "1").On(1), mon(1),
		)},
		{Name: "admin commands and refusals are not shown", Cmds: with(
			C("CONFIG", "GET", "maxmemory").On(1),
			C("CLIENT", "KILL", "ID", "999999").On(1),
			C("CLIENT", "NO-EVICT", "OFF").On(1),
			C("CLIENT", "PAUSE", "0").On(1),
			C("CLIENT", "UNPAUSE").On(1),
			C("CLIENT", "UNBLOCK", "999999").On(1),
			C("GET").On(1),
			C("NOSUCH", "x").On(1),
			C("CLIENT", "NOSUCH").On(1),
			C("MONITOR").On(2),
			C("PING").On(1), mon(1),
			C("CLIENT", "REPLY", "ON").On(1), mon(1),
		)},
		{Name: "scripts", Cmds: with(
			C("EVAL", "redis.call('set', KEYS[1], 'x') return redis.call('get', KEYS[1])", "1", "k").On(1), mon(3),
			C("EVAL", "redis.call('select', 5) return redis.call('incr', 'n')", "0").On(1), mon(3),
			C("EVAL", "return 1", "9").On(1), mon(1),
			C("EVAL", "return redis.pcall('nosuch')", "0").On(1), mon(1),
			C("EVALSHA", "nosuch", "0").On(1), mon(1),
			C("SCRIPT", "LOAD", "return redis.call('ping')").On(1), mon(1),
			C("EVALSHA", "b3a02c833904802db9c34a3cf1292eee3246df3c", "0").On(1), mon(2),
			C("EVAL_RO", "return redis.call('get', 'k')", "0").On(1), mon(2),
		)},
		{Name: "transactions", Cmds: with(
			C("MULTI").On(1), mon(1),
			C("SET", "a", "1").On(1),
			C("GET", "a").On(1),
			C("EXEC").On(1), mon(3),
			C("MULTI").On(1),
			C("NOSUCH").On(1),
			C("EXEC").On(1), mon(2),
			C("MULTI").On(1),
			C("GET", "a", "b").On(1),
			C("DISCARD").On(1), mon(2),
			C("EXEC", "x").On(1), mon(1),
			C("MULTI").On(1),
			C("EVAL", "return redis.call('get', 'a')", "0").On(1),
			C("EXEC").On(1), mon(4),
		)},
		{Name: "secrets are redacted", Cmds: with(
			C("AUTH", "pw").On(1), mon(1),
			C("AUTH", "user", "pw").On(1), mon(1),
			C("AUTH", "a", "b", "c").On(1), mon(1),
			C("HELLO", "2", "AUTH", "nobody", "wrong").On(1), mon(1),
			C("HELLO", "2", "AUTH", "u1", "p1", "AUTH", "u2", "p2").On(1), mon(1),
			C("HELLO", "2", "SETNAME", "a b", "AUTH", "u", "p").On(1), mon(1),
			C("HELLO", "4", "AUTH", "u", "p").On(1), mon(1),
			C("HELLO", "x", "AUTH", "u", "p").On(1), mon(1),
			C("HELLO", "2", "FOO", "AUTH", "u", "p").On(1), mon(1),
		)},
		{Name: "blocking commands are shown once", Cmds: with(
			C("BLPOP", "nokey", "0.05").On(1).Timeout(time.Second), mon(1),
			C("BLPOP", "l", "2").On(1).NoReply(),
			mon(1),
			C("LPUSH", "l", "a").On(2),
			Recv().On(1),
			mon(1),
		)},
		{Name: "the monitor itself", Cmds: []Cmd{
			C("PING").On(1),
			C("MONITOR"),
			C("GET", "k"),
			C("SET", "k", "v"),
			C("PUBLISH", "c", "m"),
			C("PFCOUNT", "h"),
			C("EVAL", "return 1", "0"),
			C("EVAL", "#!lua flags=no-writes\nreturn 2", "0").Replies(2).Check("monitor line", monLine),
			C("MULTI").Replies(2).Check("monitor line", monLine),
			C("GET", "k"),
			C("PING"),
			C("EXEC").Replies(2).Check("monitor line", monLine),
			C("MONITOR").NoReply(),
			C("ECHO", "e").Replies(2).Check("monitor line", monLine),
			C("CLIENT", "INFO").Replies(2).Check("monitor flags", sameClientFields("flags", "db", "multi", "cmd")),
			C("SET", "k", "v").On(1), mon(1),
			C("RESET"),
			C("SET", "k", "v2").On(1),
			C("GET", "k"),
			C("CLIENT", "INFO").Check("flags after RESET", sameClientFields("flags", "cmd")),
		}},
		{Name: "MONITOR inside MULTI and scripts", Cmds: []Cmd{
			C("MULTI"),
			C("MONITOR"),
			C("EXEC"),
			C("EVAL", "return redis.call('monitor')", "0"),
			C("SET", "k", "v"),
			C("GET", "k"),
		}},
		{Name: "several monitors", Cmds: []Cmd{
			C("PING").On(1),
			C("MONITOR"),
			C("MONITOR").On(2),
			C("SET", "k", "v").On(1),
			mon(1), mon(1).On(2),
			C("QUIT").On(2),
			mon(1),
			C("INCR", "n").On(1),
			mon(1),
		}},
		{Name: "CLIENT REPLY OFF silences a monitor", Cmds: with(
			// Nothing to wait for after a silenced command: let it run
			// before the other connection's.
			C("CLIENT", "REPLY", "OFF").NoReply(), settle,
			C("SET", "k", "1").On(1),
			C("CLIENT", "REPLY", "ON").Replies(2).Check("monitor line", monLine),
			C("CLIENT", "REPLY", "SKIP").NoReply(),
			C("PING").NoReply(), settle,
			C("SET", "k", "2").On(1), mon(2),
		)},
		{Name: "subscribed monitor", RESP2Only: "the subscribed context is RESP2's", Cmds: with(
			C("SUBSCRIBE", "ch").Replies(2).Check("monitor line", monLine),
			C("PUBLISH", "ch", "m").On(1),
			Recv().Replies(2).Check("monitor line", monLine),
			C("GET", "k"),
			C("CLIENT", "LIST", "TYPE", "pubsub").On(1).Check("monitor listed as pubsub", sameMonitorListFields("flags", "sub", "cmd")),
			C("CLIENT", "LIST", "TYPE", "normal").On(1).Check("monitor not listed as normal", sameMonitorListFields("flags")),
			C("UNSUBSCRIBE").Replies(2).Check("monitor line", monLine),
			C("CLIENT", "LIST", "TYPE", "normal").On(1).Check("monitor listed as normal", sameMonitorListFields("flags", "sub")),
		)},
	})
}

// sameMonitorListFields compares the named fields of the CLIENT LIST
// lines of monitors (flags=O...), which may be none.
func sameMonitorListFields(names ...string) func(rds, lkv *Reply) error {
	pick := func(r *Reply) string {
		var rows []string
		for _, l := range strings.Split(string(r.Raw), "\n") {
			if strings.Contains(l, " flags=O") {
				rows = append(rows, pickClientFields(l, names))
			}
		}
		return strings.Join(rows, "; ")
	}
	return func(rds, lkv *Reply) error {
		if a, b := pick(rds), pick(lkv); a != b {
			return fmt.Errorf("monitors differ: redis %q, limitkv %q", a, b)
		}
		return nil
	}
}

// redis-cli MONITOR prints each line without its "+" (and "OK" first):
// run it against both servers and compare what it prints.
func TestMonitorRedisCLI(t *testing.T) {
	requireServers(t)
	cli, err := testredis.FindTool("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	run := func(addr string) []string {
		host, port, _ := strings.Cut(addr, ":")
		cmd := exec.Command(cli, "-h", host, "-p", port, "MONITOR")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cmd.Process.Kill()
			cmd.Wait()
		}()
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		next := func() string {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("%s: redis-cli ended", addr)
				}
				return l
			case <-time.After(3 * time.Second):
				t.Fatalf("%s: no line from redis-cli MONITOR", addr)
			}
			return ""
		}
		if l := next(); l != "OK" {
			t.Fatalf("%s: redis-cli MONITOR printed %q first", addr, l)
		}
		c := dialRaw(t, "client", addr)
		var got []string
		for _, args := range [][]string{{"SET", "cli", "a \"b\"\n"}, {"SELECT", "2"}, {"EVAL", "return redis.call('ping')", "0"}, {"SELECT", "0"}} {
			c.MustDo(t, args...)
		}
		for i := 0; i < 5; i++ {
			l := next()
			m := regexp.MustCompile(`^(\d+)\.\d{6} \[(\d+) (127\.0\.0\.1:\d+|lua)\] (.*)$`).FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("%s: line %q is not in MONITOR's format", addr, l)
			}
			who := m[3]
			if who != "lua" {
				who = "ADDR"
			}
			got = append(got, m[2]+" "+who+" "+m[4])
		}
		return got
	}
	rds, lkv := run(redisAddr), run(limitkvAddr)
	if strings.Join(rds, "\n") != strings.Join(lkv, "\n") {
		t.Errorf("redis-cli MONITOR output differs:\nredis:\n%s\nlimitkv:\n%s", strings.Join(rds, "\n"), strings.Join(lkv, "\n"))
	}
}
