package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// Client-side caching (CLIENT TRACKING and its invalidations) against the
// real server. Errors and introspection run in both protocols; the pushes
// a tracking client gets need RESP3 (runResp3), and the RESP2 form goes to
// a second connection subscribed to __redis__:invalidate through REDIRECT,
// which needs each server's own client ids (runTrackingIDs).

// clientField compares one field of CLIENT INFO / CLIENT LIST lines.
func clientField(name string) func(rds, lkv *Reply) error {
	re := regexp.MustCompile(`(?:^|[ \n])` + name + `=(\S*)`)
	return func(rds, lkv *Reply) error {
		a, b := re.FindAllSubmatch(rds.Raw, -1), re.FindAllSubmatch(lkv.Raw, -1)
		if len(a) != len(b) {
			return fmt.Errorf("%d %s= fields against %d", len(a), name, len(b))
		}
		for i := range a {
			if !bytes.Equal(a[i][1], b[i][1]) {
				return fmt.Errorf("%s=%s against %s=%s", name, a[i][1], name, b[i][1])
			}
		}
		return nil
	}
}

// infoField compares one INFO field.
func infoField(name string) func(rds, lkv *Reply) error {
	re := regexp.MustCompile(`(?m)^` + name + `:(\S*)\r?$`)
	return func(rds, lkv *Reply) error {
		a, b := re.FindSubmatch(rds.Raw), re.FindSubmatch(lkv.Raw)
		if a == nil || b == nil {
			return fmt.Errorf("%s missing (redis %v, limitkv %v)", name, a != nil, b != nil)
		}
		if !bytes.Equal(a[1], b[1]) {
			return fmt.Errorf("%s:%s against %s:%s", name, a[1], name, b[1])
		}
		return nil
	}
}

func runResp3(t *testing.T, cases []Case) {
	t.Helper()
	requireServers(t)
	for _, c := range cases {
		c.resp3 = true
		t.Run(c.Name+" (RESP3)", func(t *testing.T) { runCase(t, c) })
	}
}

func TestTrackingErrors(t *testing.T) {
	runCases(t, []Case{
		{Name: "arity and syntax", Cmds: []Cmd{
			C("CLIENT", "TRACKING"),
			C("CLIENT", "TRACKING", "maybe"),
			C("CLIENT", "TRACKING", "on", "foo"),
			C("CLIENT", "TRACKING", "on", "REDIRECT"),
			C("CLIENT", "TRACKING", "on", "PREFIX"),
			C("CLIENT", "TRACKING", "on", "REDIRECT", "x"),
			C("CLIENT", "TRACKING", "on", "REDIRECT", "+1"),
			C("CLIENT", "TRACKING", "on", "REDIRECT", "99999999"),
			C("CLIENT", "TRACKING", "on", "REDIRECT", "0"),
			C("CLIENT", "TRACKING", "off", "REDIRECT", "99999999"),
			C("CLIENT", "TRACKING", "maybe", "BCAST"),
			C("CLIENT", "TRACKING", "off", "BCAST", "PREFIX", "a", "OPTIN", "OPTOUT"),
			C("CLIENT", "CACHING"),
			C("CLIENT", "CACHING", "yes", "no"),
			C("CLIENT", "GETREDIR", "x"),
			C("CLIENT", "TRACKINGINFO", "x"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "GETREDIR"),
		}},
		{Name: "incompatible options", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "PREFIX", "a"),
			C("CLIENT", "TRACKING", "on", "BCAST", "OPTIN"),
			C("CLIENT", "TRACKING", "on", "BCAST", "OPTOUT"),
			C("CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"),
			C("CLIENT", "TRACKING", "on", "PREFIX", "a", "OPTIN", "OPTOUT"),
			C("client", "tracking", "ON", "optin"),
			C("CLIENT", "TRACKING", "on", "OPTOUT"),
			C("CLIENT", "TRACKING", "on", "BCAST"),
			C("CLIENT", "TRACKING", "on", "OPTIN", "NOLOOP"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "TRACKING", "off"),
			C("CLIENT", "TRACKING", "on", "OPTOUT"),
			C("CLIENT", "TRACKING", "on", "OPTIN"),
			C("CLIENT", "TRACKINGINFO"),
		}},
		{Name: "prefix collisions", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab", "PREFIX", "a"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a", "PREFIX", "ab"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "", "PREFIX", "x"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a", "PREFIX", "b"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "abc"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "c", "PREFIX", "b"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "c", "PREFIX", "a"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "b"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "d\x00x", "PREFIX", "d\x00y"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "TRACKING", "off"),
			C("CLIENT", "TRACKINGINFO"),
			// Redis 7.0 answers an overlap found past the first prefix
			// with the error and then enables tracking and answers OK.
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x", "PREFIX", "y", "PREFIX", "y").Replies(2),
			C("CLIENT", "TRACKINGINFO"),
		}},
		{Name: "caching", Cmds: []Cmd{
			C("CLIENT", "CACHING", "yes"),
			C("CLIENT", "CACHING", "no"),
			C("CLIENT", "TRACKING", "on"),
			C("CLIENT", "CACHING", "yes"),
			C("CLIENT", "CACHING", "no"),
			C("CLIENT", "CACHING", "maybe"),
			C("CLIENT", "TRACKING", "on", "OPTIN"),
			C("CLIENT", "CACHING", "no"),
			C("CLIENT", "CACHING", "YES"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "GETREDIR"),
			// CACHING lasts through CLIENT commands, to the next other command.
			C("CLIENT", "TRACKINGINFO"),
			C("PING"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "TRACKING", "off"),
			C("CLIENT", "TRACKING", "on", "OPTOUT"),
			C("CLIENT", "CACHING", "yes"),
			C("CLIENT", "CACHING", "no"),
			C("CLIENT", "TRACKINGINFO"),
			C("MULTI"),
			C("GET", "a"),
			C("EXEC"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "TRACKING", "off"),
			C("CLIENT", "CACHING", "no"),
		}},
		{Name: "client list flags and redir", Cmds: []Cmd{
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			C("CLIENT", "INFO").Check("redir", clientField("redir")),
			C("CLIENT", "TRACKING", "on"),
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			C("CLIENT", "INFO").Check("redir", clientField("redir")),
			C("CLIENT", "LIST", "TYPE", "normal").Check("flags", clientField("flags")),
			C("CLIENT", "TRACKING", "off"),
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p"),
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			C("CLIENT", "INFO").Check("redir", clientField("redir")),
			C("MULTI"),
			C("CLIENT", "INFO"),
			C("EXEC").Check("flags", clientField("flags")),
			C("CLIENT", "TRACKING", "off"),
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			C("CLIENT", "INFO").Check("redir", clientField("redir")),
		}},
		{Name: "reset turns tracking off", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a", "NOLOOP"),
			C("RESET"),
			C("CLIENT", "TRACKINGINFO"),
			C("CLIENT", "GETREDIR"),
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			C("CLIENT", "TRACKING", "on", "OPTIN"),
			C("CLIENT", "CACHING", "yes"),
			C("RESET"),
			C("CLIENT", "TRACKINGINFO"),
		}},
		{Name: "not from scripts", Cmds: []Cmd{
			C("EVAL", "return redis.call('client', 'tracking', 'on')", "0"),
			C("EVAL", "return redis.call('client', 'trackinginfo')", "0"),
		}},
		{Name: "config", Cmds: []Cmd{
			C("CONFIG", "GET", "tracking-table-max-keys"),
			C("CONFIG", "SET", "tracking-table-max-keys", "-1"),
			C("CONFIG", "SET", "tracking-table-max-keys", "x"),
			C("CONFIG", "SET", "tracking-table-max-keys", "10"),
			C("CONFIG", "GET", "tracking-table-max-keys"),
			C("CONFIG", "SET", "tracking-table-max-keys", "1000000"),
		}},
		{Name: "command info", Cmds: []Cmd{
			C("COMMAND", "INFO", "client|tracking", "client|caching", "client|getredir", "client|trackinginfo"),
			C("COMMAND", "DOCS", "client|tracking").Ignore(),
		}},
	})
}

// TestTrackingInfoFields compares INFO's tracking fields: tracking_clients
// in Clients, tracking_total_keys, _items and _prefixes in Stats.
func TestTrackingInfoFields(t *testing.T) {
	settle := Sleep(100 * time.Millisecond) // earlier cases' connections are gone
	runCases(t, []Case{{Name: "info", Cmds: []Cmd{
		settle,
		C("INFO", "clients").Check("tracking_clients", infoField("tracking_clients")),
		C("CLIENT", "TRACKING", "on"),
		C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a", "PREFIX", "b").On(1),
		C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a").On(2),
		C("MGET", "k1", "k2", "k3"),
		C("GET", "k1").On(3),
		C("CLIENT", "TRACKING", "on").On(3),
		C("GET", "k1").On(3),
		C("GET", "k4").On(3),
		C("INFO", "clients").Check("tracking_clients", infoField("tracking_clients")),
		C("INFO", "stats").Check("tracking_total_keys", infoField("tracking_total_keys")),
		C("INFO", "stats").Check("tracking_total_items", infoField("tracking_total_items")),
		C("INFO", "stats").Check("tracking_total_prefixes", infoField("tracking_total_prefixes")),
		C("INFO").Check("tracking_total_prefixes", infoField("tracking_total_prefixes")),
		C("CLIENT", "TRACKING", "off").On(2),
		C("QUIT").On(1),
		settle,
		C("INFO", "stats").Check("tracking_total_prefixes", infoField("tracking_total_prefixes")),
		C("INFO", "clients").Check("tracking_clients", infoField("tracking_clients")),
		// Turning tracking off leaves the client's entries to go lazily.
		C("CLIENT", "TRACKING", "off"),
		C("INFO", "stats").Check("tracking_total_items", infoField("tracking_total_items")),
		C("SET", "k1", "x").On(3),
		C("INFO", "stats").Check("tracking_total_keys", infoField("tracking_total_keys")),
		C("INFO", "stats").Check("tracking_total_items", infoField("tracking_total_items")),
		C("FLUSHALL"),
		C("INFO", "stats").Check("tracking_total_keys", infoField("tracking_total_keys")),
		C("INFO", "stats").Check("tracking_total_items", infoField("tracking_total_items")),
	}, RESP2Only: "the RESP3 run would need the pushes read"}})
}

// TestTrackingPushes is a RESP3 tracking client getting its invalidations
// as pushes, mixed with its replies.
func TestTrackingPushes(t *testing.T) {
	push := Recv()
	runResp3(t, []Case{
		{Name: "get then set elsewhere", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("GET", "k"),
			C("SET", "k", "v").On(1),
			push,
			C("SET", "k", "w").On(1), // no longer tracked: nothing
			C("GET", "k"),
			C("DEL", "k").On(1),
			push,
			C("PING"),
		}},
		{Name: "several keys", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("MGET", "a", "b", "c"),
			C("MSET", "a", "1", "b", "2", "x", "3").On(1),
			push, push,
			C("DEL", "c", "zz").On(1),
			C("SET", "c", "1").On(1),
			push,
			C("PING"),
		}},
		{Name: "other types", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("HSET", "h", "f", "v").On(1),
			C("HGET", "h", "f"),
			C("HSET", "h", "f", "w").On(1),
			push,
			C("ZADD", "z", "1", "m").On(1),
			C("ZRANGE", "z", "0", "-1"),
			C("SUNIONSTORE", "z", "nosuch").On(1),
			push,
			C("PING"),
		}},
		{Name: "own writes come after the reply", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("GET", "k"),
			C("SET", "k", "1").Replies(2),
			C("SET", "k", "2"),
			C("MGET", "a", "b"),
			C("MSET", "a", "1", "b", "2").Replies(3),
		}},
		{Name: "noloop", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "NOLOOP"),
			C("GET", "k"),
			C("SET", "k", "1"),
			C("GET", "k"),
			C("SET", "k", "2").On(1),
			push,
			C("PING"),
		}},
		{Name: "optin", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "OPTIN"),
			C("GET", "a"),
			C("CLIENT", "CACHING", "yes"),
			C("GET", "b"),
			C("GET", "c"),
			C("MSET", "a", "1", "b", "1", "c", "1").On(1),
			push,
			C("CLIENT", "CACHING", "yes"),
			C("MULTI"),
			C("GET", "a"),
			C("GET", "c"),
			C("EXEC"),
			C("MSET", "a", "2", "c", "2").On(1),
			push, push,
			C("PING"),
		}},
		{Name: "optout", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "OPTOUT"),
			C("GET", "a"),
			C("CLIENT", "CACHING", "no"),
			C("GET", "b"),
			C("GET", "c"),
			C("MSET", "a", "1", "b", "1", "c", "1").On(1),
			push, push,
			C("PING"),
		}},
		{Name: "bcast", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:", "PREFIX", "obj:"),
			C("SET", "user:1", "a").On(1),
			push,
			C("MSET", "obj:2", "b", "other", "c", "user:2", "d", "obj:1", "e").On(1),
			push, push,
			C("SET", "other", "x").On(1),
			C("SET", "user:1", "x"),
			push,
			C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "zz"),
			C("SET", "zz1", "x").On(1),
			push,
			C("PING"),
		}},
		{Name: "bcast all keys noloop", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP"),
			C("SET", "a", "1"),
			C("MSET", "a", "2", "b", "3").On(1),
			push,
			C("MSET", "x", "1", "y", "2"),
			C("PING"),
		}},
		{Name: "bcast then normal", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "BCAST"),
			C("GET", "k"),
			C("CLIENT", "TRACKING", "off"),
			C("SET", "k", "1").On(1),
			C("CLIENT", "TRACKING", "on"),
			C("SET", "k", "2").On(1),
			C("PING"),
		}},
		{Name: "flush sends null", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("CLIENT", "TRACKING", "on", "BCAST").On(2),
			C("GET", "k"),
			C("FLUSHALL").On(1),
			push,
			Recv().On(2),
			C("FLUSHDB").On(1),
			push,
			Recv().On(2),
			C("SELECT", "3").On(1),
			C("FLUSHDB", "ASYNC").On(1),
			push,
			Recv().On(2),
			C("FLUSHALL").Replies(2),
			Recv().On(2),
			C("SET", "k", "x").On(1), // the flush forgot k
			Recv().On(2),
			C("PING"),
		}},
		{Name: "expiry", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("SET", "k", "v", "PX", "50").On(1),
			C("GET", "k"),
			Sleep(500 * time.Millisecond), // the active expiry cycle removes it
			push,
			C("GET", "k"),
			C("PING"),
		}},
		{Name: "transaction", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("MULTI"),
			C("GET", "a"),
			C("GET", "b"),
			C("SET", "a", "1"),
			C("INCR", "b"),
			C("EXEC").Replies(3),
			C("MULTI").On(1),
			C("GET", "x").On(1),
			C("EXEC").On(1),
			C("GET", "a"),
			C("MULTI").On(1),
			C("SET", "a", "2").On(1),
			C("DEL", "a").On(1),
			C("EXEC").On(1),
			push,
			C("PING"),
		}},
		{Name: "scripts", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			// A read in a script remembers the script's declared keys.
			C("EVAL", "return redis.call('get', KEYS[1])", "2", "s1", "s2"),
			C("SET", "s2", "x").On(1),
			push,
			C("EVAL", "return 1", "1", "s3"),
			C("EVAL_RO", "return redis.call('get', 'other')", "1", "s4"),
			C("MSET", "s3", "1", "s4", "2", "other", "3").On(1),
			push,
			C("EVAL_RO", "return 1", "1", "s5"),
			C("SET", "s5", "1").On(1),
			C("GET", "w"),
			C("EVAL", "redis.call('set', KEYS[1], 'x') return redis.call('get', KEYS[1])", "1", "w").Replies(2),
			C("EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "w").On(1),
			push,
			C("PING"),
		}},
		{Name: "table limit", Cmds: []Cmd{
			C("CONFIG", "SET", "tracking-table-max-keys", "1"),
			C("CLIENT", "TRACKING", "on"),
			C("GET", "a"),
			C("GET", "a"),
			// The next command finds two keys and forgets one, at random.
			C("GET", "b"),
			C("PING").Replies(2).Check("one of a, b", func(rds, lkv *Reply) error {
				ok := func(r *Reply) bool {
					s := string(r.Raw)
					return s == "+PONG\r\n" || s == ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\na\r\n" || s == ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nb\r\n"
				}
				if !ok(rds) || !ok(lkv) || (rds.Raw[0] == '+') != (lkv.Raw[0] == '+') {
					return errors.New("not an invalidation of a or b, then PONG")
				}
				return nil
			}),
			C("CONFIG", "SET", "tracking-table-max-keys", "1000000"),
		}},
		{Name: "pipelined own reads and writes", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			Raw("GET k\r\nSET k 1\r\nGET k\r\nMGET a b\r\n").Replies(5),
			C("SET", "k", "2").On(1),
			push,
			C("PING"),
		}},
		{Name: "bcast pipelined writes", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "BCAST"),
			Raw("SET a 1\r\nSET b 2\r\n").On(1).Replies(2),
			push, // one message for the batch
			Raw("SET a 1\r\nGET x\r\nSET c 2\r\n").Replies(4),
			C("PING"),
		}},
		{Name: "caching and a rejected command", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on", "OPTIN"),
			C("CLIENT", "CACHING", "yes"),
			C("NOSUCH"),
			C("GET", "k"),
			C("SET", "k", "1").On(1),
			C("PING"),
			C("CLIENT", "CACHING", "yes"),
			C("GET"),
			C("GET", "k"),
			C("SET", "k", "2").On(1),
			C("PING"),
			C("CLIENT", "CACHING", "yes"),
			C("CLIENT", "NOSUCH"),
			C("GET", "k"),
			C("SET", "k", "3").On(1),
			C("PING"),
			C("CLIENT", "CACHING", "yes"),
			C("CLIENT", "GETREDIR", "x"),
			C("GET", "k"),
			C("SET", "k", "4").On(1),
			push,
			C("CLIENT", "CACHING", "yes"),
			C("MULTI"),
			C("GET"),
			C("GET", "k"),
			C("EXEC"),
			C("GET", "k"),
			C("SET", "k", "5").On(1),
			C("PING"),
		}},
		{Name: "hello 2 stops pushes", Cmds: []Cmd{
			C("CLIENT", "TRACKING", "on"),
			C("GET", "k"),
			C("HELLO", "2").Ignore(),
			C("SET", "k", "1").On(1),
			C("PING"),
		}},
	})
	t.Cleanup(func() {
		for _, addr := range []string{redisAddr, limitkvAddr} {
			c := dialRaw(t, "cleanup", addr)
			c.MustDo(t, "CONFIG", "SET", "tracking-table-max-keys", "1000000")
			c.Close()
		}
	})
}

// idCmd marks a step whose reply holds client ids: each server's ids are
// written {id:N} (N the connection) before the replies are compared.
func idCmd(c Cmd) Cmd { c.cmpName = "ids"; return c }

// runTrackingIDs runs a case whose arguments name connections' client ids
// as {id:N}: each server gets its own ids. Every connection first sends
// HELLO 3 if resp3.
func runTrackingIDs(t *testing.T, name string, resp3 bool, cmds []Cmd) {
	t.Helper()
	requireServers(t)
	if resp3 {
		name += " (RESP3)"
	}
	t.Run(name, func(t *testing.T) {
		type side struct {
			addr  string
			conns map[int]*RawConn
			ids   map[int]string
		}
		sides := []*side{{addr: redisAddr}, {addr: limitkvAddr}}
		for _, s := range sides {
			s.conns, s.ids = map[int]*RawConn{}, map[int]string{}
		}
		get := func(s *side, n int) *RawConn {
			if c := s.conns[n]; c != nil {
				return c
			}
			c := dialRaw(t, s.addr, s.addr)
			if resp3 {
				c.MustDo(t, "HELLO", "3")
			}
			r := c.MustDo(t, "CLIENT", "ID")
			s.ids[n] = strings.TrimSuffix(strings.TrimPrefix(string(r.Raw), ":"), "\r\n")
			s.conns[n] = c
			return c
		}
		for _, s := range sides {
			get(s, 0).MustDo(t, "FLUSHALL")
		}
		subst := func(s *side, a string) string {
			for strings.Contains(a, "{id:") {
				i := strings.Index(a, "{id:")
				j := strings.Index(a[i:], "}") + i
				var n int
				fmt.Sscanf(a[i+4:j], "%d", &n)
				get(s, n)
				a = a[:i] + s.ids[n] + a[j+1:]
			}
			return a
		}
		norm := func(s *side, raw []byte) string {
			out := string(raw)
			for n, id := range s.ids {
				for _, f := range []string{":%s\r\n", "redir=%s ", "\r\n:%s\r\n"} {
					out = strings.ReplaceAll(out, fmt.Sprintf(f, id), fmt.Sprintf(f, fmt.Sprintf("{id:%d}", n)))
				}
			}
			return out
		}
		for i, cmd := range cmds {
			if cmd.pause > 0 {
				time.Sleep(cmd.pause)
				continue
			}
			var got [2][]*Reply
			for k, s := range sides {
				c := get(s, cmd.conn)
				if !cmd.rawSet {
					args := make([]string, len(cmd.Args))
					for j, a := range cmd.Args {
						args[j] = subst(s, a)
					}
					if err := c.Send(args...); err != nil {
						t.Fatalf("step %d %s: %v", i+1, cmd, err)
					}
				}
				rs, err := readN(c, cmd, nil)
				if err != nil {
					t.Fatalf("step %d %s: %s: %s", i+1, cmd, s.addr, describe(rs, err))
				}
				got[k] = rs
			}
			for j := range got[0] {
				a, b := got[0][j], got[1][j]
				if cmd.cmpName == "ids" {
					if x, y := norm(sides[0], a.Raw), norm(sides[1], b.Raw); x != y {
						t.Errorf("step %d %s: redis %q, limitkv %q", i+1, cmd, x, y)
					}
					continue
				}
				if err := compareReplies(cmd, a, b); err != nil {
					t.Errorf("step %d %s: %v\n  redis:   %q\n  limitkv: %q", i+1, cmd, err, a.Raw, b.Raw)
				}
			}
		}
		for _, s := range sides {
			for _, c := range s.conns {
				c.Close()
			}
		}
	})
}

// TestTrackingRedirect: invalidations sent to another connection, as
// __redis__:invalidate messages to a RESP2 subscriber or pushes to a RESP3
// one, and the tracking-redir-broken push when that connection is gone.
func TestTrackingRedirect(t *testing.T) {
	msg := Recv().On(1)
	settle := Sleep(50 * time.Millisecond)
	runTrackingIDs(t, "resp2 subscriber", false, []Cmd{
		C("SUBSCRIBE", "__redis__:invalidate").On(1),
		C("CLIENT", "TRACKING", "on", "REDIRECT", "{id:1}"),
		idCmd(C("CLIENT", "GETREDIR")),
		idCmd(C("CLIENT", "TRACKINGINFO")),
		C("CLIENT", "INFO").Check("flags", clientField("flags")),
		C("CLIENT", "TRACKING", "on", "REDIRECT", "{id:1}", "REDIRECT", "{id:1}"),
		C("GET", "k"),
		C("MGET", "a", "b"),
		C("SET", "k", "1").On(2),
		msg,
		C("SET", "k", "1"), // own write, not tracked any more
		C("GET", "k"),
		C("SET", "k", "2"),
		msg,
		C("MSET", "a", "1", "b", "2").On(2),
		msg, msg,
		C("GET", "k"),
		C("FLUSHALL").On(2),
		msg,
		C("FLUSHDB"),
		msg,
		C("CLIENT", "TRACKING", "off"),
		C("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p", "REDIRECT", "{id:1}"),
		C("MSET", "p1", "1", "p2", "2", "q", "3").On(2),
		msg,
		C("PING").On(1),
	})
	runTrackingIDs(t, "resp2 redirect needs a subscriber", false, []Cmd{
		C("CLIENT", "TRACKING", "on", "REDIRECT", "{id:1}"),
		C("GET", "k"),
		C("SET", "k", "1").On(2),
		C("PING").On(1), // nothing was sent to it
		C("SUBSCRIBE", "other").On(1),
		C("GET", "k"),
		C("SET", "k", "2").On(2),
		msg, // any subscription will do
		C("PING").On(1),
	})
	for _, resp3 := range []bool{false, true} {
		runTrackingIDs(t, "resp3 target", resp3, []Cmd{
			C("HELLO", "3").On(1).Ignore(),
			C("CLIENT", "TRACKING", "on", "REDIRECT", "{id:1}"),
			C("GET", "k"),
			C("SET", "k", "1").On(2),
			msg,
			C("FLUSHALL").On(2),
			msg, // a null in the tracking client's protocol
			C("PING").On(1),
		})
		// Only a RESP3 client hears that its redirect is broken.
		broken := idCmd(Recv())
		if !resp3 {
			broken = Sleep(time.Nanosecond)
		}
		runTrackingIDs(t, "redirect broken", resp3, []Cmd{
			C("CLIENT", "TRACKING", "on", "REDIRECT", "{id:1}"),
			C("GET", "k"),
			C("QUIT").On(1),
			settle,
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			C("SET", "k", "1").On(2),
			broken,
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			idCmd(C("CLIENT", "TRACKINGINFO")),
			idCmd(C("CLIENT", "GETREDIR")),
			C("GET", "k"),
			C("FLUSHALL").On(2),
			broken,
			C("GET", "k"),
			C("SET", "k", "2"),
			broken,
			C("CLIENT", "TRACKING", "on", "REDIRECT", "{id:1}"),
			C("CLIENT", "TRACKING", "on"),
			C("CLIENT", "INFO").Check("flags", clientField("flags")),
			idCmd(C("CLIENT", "TRACKINGINFO")),
		})
	}
}

// TestTrackingRueidis: rueidis's client-side cache (RESP3 tracking, its
// default mode) sees another client's write at its next DoCache, on Redis
// and on limitkv alike.
func TestTrackingRueidis(t *testing.T) {
	requireServers(t)
	for _, srv := range []struct{ name, addr string }{{"redis", redisAddr}, {"limitkv", limitkvAddr}} {
		t.Run(srv.name, func(t *testing.T) {
			ctx := context.Background()
			cached, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.addr}, DisableRetry: true})
			if err != nil {
				t.Fatal(err)
			}
			defer cached.Close()
			other, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.addr}, DisableCache: true})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			key := "rueidis:csc:" + srv.name
			if err := other.Do(ctx, other.B().Set().Key(key).Value("v1").Build()).Error(); err != nil {
				t.Fatal(err)
			}
			get := func() (string, bool) {
				r := cached.DoCache(ctx, cached.B().Get().Key(key).Cache(), time.Minute)
				v, err := r.ToString()
				if err != nil {
					t.Fatal(err)
				}
				return v, r.IsCacheHit()
			}
			if v, hit := get(); v != "v1" || hit {
				t.Fatalf("first read: %q (cache hit %v)", v, hit)
			}
			if v, hit := get(); v != "v1" || !hit {
				t.Fatalf("second read: %q (cache hit %v), want a cache hit", v, hit)
			}
			if err := other.Do(ctx, other.B().Set().Key(key).Value("v2").Build()).Error(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(2 * time.Second)
			for {
				v, _ := get()
				if v == "v2" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still %q 2s after the write: no invalidation", v)
				}
				time.Sleep(5 * time.Millisecond)
			}
			// A flush invalidates everything the cache holds.
			if v, hit := get(); v != "v2" || !hit {
				t.Fatalf("after the invalidation: %q (cache hit %v), want a cache hit", v, hit)
			}
			if err := other.Do(ctx, other.B().Flushall().Build()).Error(); err != nil {
				t.Fatal(err)
			}
			deadline = time.Now().Add(2 * time.Second)
			for {
				r := cached.DoCache(ctx, cached.B().Get().Key(key).Cache(), time.Minute)
				if rueidis.IsRedisNil(r.Error()) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still cached 2s after FLUSHALL: %v", r.Error())
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}
