package conformance

// SERVER family: DBSIZE, FLUSHDB, FLUSHALL, TIME, SHUTDOWN, CLIENT, COMMAND,
// CONFIG, INFO, and redis-cli talking to limitkv.
//
// Known, deliberate differences (not compared):
//   - CLIENT SETINFO is Redis 7.2's (go-redis v9 sends it on every
//     connection); Redis 7.0 answers it as an unknown subcommand.
//   - CLIENT LIST/INFO: values limitkv has no counterpart for (fd, buffer
//     sizes, ids, addresses, ages) differ; the field list and the values
//     limitkv knows are compared.
//   - COMMAND COUNT/LIST and COMMAND/COMMAND INFO/DOCS without names list
//     only limitkv's commands; containers list only the subcommands limitkv
//     has, and Redis lists commands and subcommands in hash order.
//   - INFO: values differ; limitkv has no Commandstats, Errorstats or
//     Latencystats section.
//   - CONFIG GET: limitkv has a subset of Redis's settings (patterns below
//     only match settings limitkv has); port differs between the servers.

import (
	"bytes"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

func TestServerKeyspaceCommands(t *testing.T) {
	runCases(t, []Case{
		{Name: "dbsize", Cmds: []Cmd{C("DBSIZE"), C("SET", "a", "1"), C("SET", "b", "2"), C("DBSIZE"),
			C("SELECT", "2"), C("DBSIZE"), C("SET", "c", "3"), C("DBSIZE"), C("SELECT", "0")}},
		{Name: "dbsize counts expiring keys", Cmds: []Cmd{C("SET", "a", "1", "PX", "100000"), C("DBSIZE")}},
		{Name: "dbsize arity", Cmds: []Cmd{C("DBSIZE", "x"), C("dbsize", "a", "b")}},
		{Name: "flushdb", Cmds: []Cmd{C("SET", "a", "1"), C("SELECT", "1"), C("SET", "b", "1"), C("FLUSHDB"), C("DBSIZE"),
			C("SELECT", "0"), C("DBSIZE"), C("GET", "a")}},
		{Name: "flushdb options", Cmds: []Cmd{C("SET", "a", "1"), C("FLUSHDB", "ASYNC"), C("DBSIZE"), C("SET", "a", "1"),
			C("FLUSHDB", "sync"), C("DBSIZE"), C("FLUSHDB", "aSyNc")}},
		{Name: "flushdb bad options", Cmds: []Cmd{C("SET", "a", "1"), C("FLUSHDB", "x"), C("FLUSHDB", "async", "sync"),
			C("FLUSHDB", "SYNC", "SYNC"), C("FLUSHDB", ""), C("DBSIZE")}},
		{Name: "flushall", Cmds: []Cmd{C("SET", "a", "1"), C("SELECT", "9"), C("SET", "b", "1"), C("FLUSHALL"), C("DBSIZE"),
			C("SELECT", "0"), C("DBSIZE"), C("EXISTS", "a")}},
		{Name: "flushall options", Cmds: []Cmd{C("SET", "a", "1"), C("FLUSHALL", "ASYNC"), C("DBSIZE"),
			C("SET", "a", "1"), C("FLUSHALL", "SYNC"), C("DBSIZE"), C("FLUSHALL", "async")}},
		{Name: "flushall bad options", Cmds: []Cmd{C("SET", "a", "1"), C("FLUSHALL", "foo"), C("FLUSHALL", "SYNC", "ASYNC"),
			C("FLUSHALL", "a", "b", "c"), C("DBSIZE")}},
		{Name: "time", Cmds: []Cmd{C("TIME").Ignore(), C("TIME", "x"), C("time", "a", "b")}},
		{Name: "time shape", Cmds: []Cmd{C("TIME").Check("two integer bulks", checkTime)}},
	})
}

// checkTime requires limitkv's TIME to be [seconds, microseconds] close to Redis's.
func checkTime(rds, lkv *Reply) error {
	parse := func(r *Reply) (int64, error) {
		if r.Type != '*' || len(r.Elems) != 2 {
			return 0, fmt.Errorf("not a two-element array: %q", r.Raw)
		}
		s, err1 := strconv.ParseInt(r.Elems[0].Str, 10, 64)
		us, err2 := strconv.ParseInt(r.Elems[1].Str, 10, 64)
		if err1 != nil || err2 != nil || us < 0 || us > 999999 {
			return 0, fmt.Errorf("bad TIME %q", r.Raw)
		}
		return s*1e6 + us, nil
	}
	a, err := parse(rds)
	if err != nil {
		return err
	}
	b, err := parse(lkv)
	if err != nil {
		return err
	}
	if d := a - b; d > 5e6 || d < -5e6 {
		return fmt.Errorf("clocks %d µs apart", d)
	}
	return nil
}

func TestServerShutdownErrors(t *testing.T) {
	runCases(t, []Case{
		{Name: "abort without shutdown", Cmds: []Cmd{C("SHUTDOWN", "ABORT"), C("shutdown", "abort")}},
		{Name: "bad options", Cmds: []Cmd{C("SHUTDOWN", "FOO"), C("SHUTDOWN", "NOSAVE", "SAVE"), C("SHUTDOWN", "SAVE", "NOSAVE"),
			C("SHUTDOWN", "ABORT", "NOW"), C("SHUTDOWN", "abort", "force"), C("SHUTDOWN", "NOSAVE", "ABORT"),
			C("SHUTDOWN", "now", "now", "foo"), C("SHUTDOWN", ""), C("PING")}},
		{Name: "in multi", Cmds: []Cmd{C("MULTI"), C("SHUTDOWN"), C("SHUTDOWN", "ABORT"), C("PING"), C("EXEC"), C("PING")}},
	})
}

// TestServerShutdown stops private servers: SHUTDOWN closes the connection
// without a reply and the server stops accepting connections.
func TestServerShutdown(t *testing.T) {
	requireServers(t)
	for _, args := range [][]string{{"SHUTDOWN", "NOSAVE"}, {"SHUTDOWN", "NOW", "NOSAVE", "FORCE"}} {
		p, err := testredis.Start(testredis.Options{Path: redisServerPath})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		laddr, _ := startLimitkv(t)
		for _, side := range []struct{ name, addr string }{{"redis", p.Addr}, {"limitkv", laddr}} {
			c := dialRaw(t, side.name, side.addr)
			if err := c.Send(args...); err != nil {
				t.Fatal(err)
			}
			closed, extra := c.AwaitClose(3 * time.Second)
			if !closed || len(extra) != 0 {
				t.Errorf("%s %v: closed=%v, sent %q", side.name, args, closed, extra)
			}
			deadline := time.Now().Add(3 * time.Second)
			for pingOK(side.addr) {
				if time.Now().After(deadline) {
					t.Errorf("%s still answers after %v", side.name, args)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
}

func TestServerClient(t *testing.T) {
	runCases(t, []Case{
		{Name: "id", Cmds: []Cmd{C("CLIENT", "ID").Ignore(), C("CLIENT", "ID", "x"), C("client", "id", "a", "b")}},
		{Name: "names", Cmds: []Cmd{C("CLIENT", "GETNAME"), C("CLIENT", "SETNAME", "worker-1"), C("CLIENT", "GETNAME"),
			C("CLIENT", "SETNAME", "other"), C("CLIENT", "GETNAME"), C("CLIENT", "SETNAME", ""), C("CLIENT", "GETNAME")}},
		{Name: "name survives select", Cmds: []Cmd{C("CLIENT", "SETNAME", "n"), C("SELECT", "3"), C("CLIENT", "GETNAME"), C("SELECT", "0")}},
		{Name: "setname invalid", Cmds: []Cmd{C("CLIENT", "SETNAME", "a b"), C("CLIENT", "SETNAME", "a\nb"),
			C("CLIENT", "SETNAME", "caf\xc3\xa9"), C("CLIENT", "SETNAME", "a\x00"), C("CLIENT", "SETNAME", "\x7f"),
			C("CLIENT", "SETNAME", "ok~!"), C("CLIENT", "GETNAME")}},
		{Name: "name arity", Cmds: []Cmd{C("CLIENT", "SETNAME"), C("CLIENT", "SETNAME", "a", "b"), C("CLIENT", "GETNAME", "x")}},
		{Name: "list type filters", Cmds: []Cmd{C("CLIENT", "LIST", "TYPE", "master"), C("CLIENT", "LIST", "TYPE", "replica"),
			C("CLIENT", "LIST", "TYPE", "SLAVE"), C("CLIENT", "LIST", "TYPE", "pubsub"), C("CLIENT", "LIST", "TYPE", "foo")}},
		{Name: "list ids", Cmds: []Cmd{C("CLIENT", "LIST", "ID", "99999999", "88888888"), C("CLIENT", "LIST", "ID", "x"),
			C("CLIENT", "LIST", "ID", "1", "x"), C("CLIENT", "LIST", "ID", "0"), C("CLIENT", "LIST", "ID", "-1"),
			C("CLIENT", "LIST", "ID", "1.5")}},
		{Name: "list syntax", Cmds: []Cmd{C("CLIENT", "LIST", "foo"), C("CLIENT", "LIST", "TYPE"), C("CLIENT", "LIST", "ID"),
			C("CLIENT", "LIST", "TYPE", "normal", "ID", "1"), C("CLIENT", "LIST", "TYPE", "normal", "x")}},
		{Name: "list and info lines", Cmds: []Cmd{C("CLIENT", "SETNAME", "me"), C("SELECT", "4"),
			C("CLIENT", "LIST", "TYPE", "normal").Check("client line", checkClientLines),
			C("CLIENT", "INFO").Check("client line", checkClientLines),
			C("CLIENT", "LIST", "TYPE", "NORMAL").Check("client line", checkClientLines),
			C("SELECT", "0")}},
		{Name: "info arity", Cmds: []Cmd{C("CLIENT", "INFO", "x")}},
		{Name: "kill errors", Cmds: []Cmd{C("CLIENT", "KILL", "1.2.3.4:5"), C("CLIENT", "KILL", "ID", "x"),
			C("CLIENT", "KILL", "ID", "0"), C("CLIENT", "KILL", "ID", "-5"), C("CLIENT", "KILL", "TYPE", "foo"),
			C("CLIENT", "KILL", "TYPE", "foo", "ID", "x"), C("CLIENT", "KILL", "ID", "x", "TYPE", "foo"),
			C("CLIENT", "KILL", "USER", "bob"), C("CLIENT", "KILL", "SKIPME", "maybe"), C("CLIENT", "KILL", "ID", "1", "ID"),
			C("CLIENT", "KILL", "foo", "bar"), C("CLIENT", "KILL", "MAXAGE", "10"), C("CLIENT", "KILL")}},
		{Name: "kill nobody", Cmds: []Cmd{C("CLIENT", "KILL", "ID", "99999999"), C("CLIENT", "KILL", "TYPE", "master"),
			C("CLIENT", "KILL", "TYPE", "replica"), C("CLIENT", "KILL", "TYPE", "slave"), C("CLIENT", "KILL", "TYPE", "pubsub"),
			C("CLIENT", "KILL", "ADDR", "1.2.3.4:5"), C("CLIENT", "KILL", "LADDR", "1.2.3.4:5"),
			C("CLIENT", "KILL", "ID", "99999999", "TYPE", "normal", "SKIPME", "no"), C("CLIENT", "KILL", "id", "1", "skipme", "NO"),
			C("PING")}},
		{Name: "help", Cmds: []Cmd{C("CLIENT", "HELP"), C("client", "help"), C("CLIENT", "HELP", "x")}},
		{Name: "unknown subcommand", Cmds: []Cmd{C("CLIENT", "FOO"), C("CLIENT"), C("CLIENT", "")}},
		{Name: "setinfo", Skip: "CLIENT SETINFO is Redis 7.2's; the 7.0 oracle does not have it (unit tests cover it)",
			Cmds: []Cmd{C("CLIENT", "SETINFO", "lib-name", "x")}},
	})
}

// clientFields parses a CLIENT LIST line into its field names and values.
func clientFields(line string) ([]string, map[string]string) {
	var names []string
	vals := map[string]string{}
	for _, f := range strings.Split(line, " ") {
		k, v, _ := strings.Cut(f, "=")
		names = append(names, k)
		vals[k] = v
	}
	return names, vals
}

// checkClientLines compares the caller's CLIENT LIST/INFO line: the same
// fields in the same order, and the values limitkv keeps as Redis does.
func checkClientLines(rds, lkv *Reply) error {
	if rds.Type != lkv.Type {
		return fmt.Errorf("types differ: %q vs %q", rds.Raw, lkv.Raw)
	}
	line := func(r *Reply) (string, error) {
		s := r.Str
		if r.Type == '=' { // RESP3 verbatim string
			s = strings.TrimPrefix(s, "txt:")
		}
		if (r.Type != '$' && r.Type != '=') || !strings.HasSuffix(s, "\n") {
			return "", fmt.Errorf("not a newline-terminated bulk: %q", r.Raw)
		}
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		// The caller is the most recent connection: the last line.
		return lines[len(lines)-1], nil
	}
	a, err := line(rds)
	if err != nil {
		return err
	}
	b, err := line(lkv)
	if err != nil {
		return err
	}
	na, va := clientFields(a)
	nb, vb := clientFields(b)
	if strings.Join(na, " ") != strings.Join(nb, " ") {
		return fmt.Errorf("fields differ:\n redis   %v\n limitkv %v", na, nb)
	}
	for _, k := range []string{"name", "flags", "db", "sub", "psub", "ssub", "multi", "qbuf", "argv-mem", "multi-mem",
		"obl", "oll", "omem", "events", "cmd", "user", "redir", "resp"} {
		if va[k] != vb[k] {
			return fmt.Errorf("%s: redis %q, limitkv %q", k, va[k], vb[k])
		}
	}
	return nil
}

// TestServerClientKill kills connections by ID, by address (both forms) and
// itself, and checks the killed connection is closed, on both servers.
func TestServerClientKill(t *testing.T) {
	requireServers(t)
	type outcome struct {
		replies []string
		closed  []bool
	}
	run := func(name, addr string) outcome {
		var o outcome
		do := func(c *RawConn, args ...string) {
			r, err := c.Do(args...)
			if err != nil {
				o.replies = append(o.replies, "transport error")
				return
			}
			o.replies = append(o.replies, string(r.Raw))
		}
		isClosed := func(c *RawConn) {
			// The next command on a killed connection finds it closed.
			_ = c.Send("PING")
			closed, extra := c.AwaitClose(2 * time.Second)
			o.closed = append(o.closed, closed && len(extra) == 0)
		}
		id := func(c *RawConn) string { return c.MustDo(t, "CLIENT", "ID").Str }

		a, b := dialRaw(t, name, addr), dialRaw(t, name, addr)
		do(b, "CLIENT", "KILL", "ID", id(a))
		isClosed(a)

		// PING first: the server must have accepted a before b names it.
		a = dialRaw(t, name, addr)
		a.MustDo(t, "PING")
		do(b, "CLIENT", "KILL", a.NetConn().LocalAddr().String())
		isClosed(a)

		a = dialRaw(t, name, addr)
		a.MustDo(t, "PING")
		do(b, "CLIENT", "KILL", "ADDR", a.NetConn().LocalAddr().String(), "SKIPME", "yes")
		isClosed(a)

		// The filter form skips the caller by default...
		do(b, "CLIENT", "KILL", "ID", id(b))
		do(b, "PING")
		// ...but not with SKIPME no: the reply comes, then the close.
		do(b, "CLIENT", "KILL", "ID", id(b), "SKIPME", "no")
		closed, _ := b.AwaitClose(2 * time.Second)
		o.closed = append(o.closed, closed)

		// The old form may kill the caller.
		c := dialRaw(t, name, addr)
		do(c, "CLIENT", "KILL", c.NetConn().LocalAddr().String())
		closed, _ = c.AwaitClose(2 * time.Second)
		o.closed = append(o.closed, closed)
		return o
	}
	want, got := run("redis", redisAddr), run("limitkv", limitkvAddr)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("CLIENT KILL differs:\n redis   %+v\n limitkv %+v", want, got)
	}
	if strings.Join(want.replies, "") != ":1\r\n+OK\r\n:1\r\n:0\r\n+PONG\r\n:1\r\n+OK\r\n" || fmt.Sprint(want.closed) != "[true true true true true]" {
		t.Errorf("oracle sanity check: %+v", want)
	}
}

func TestServerConfig(t *testing.T) {
	runCases(t, []Case{
		{Name: "get one", Cmds: []Cmd{C("CONFIG", "GET", "bind"), C("CONFIG", "GET", "requirepass"), C("CONFIG", "GET", "proto-max-bulk-len"),
			C("CONFIG", "GET", "client-query-buffer-limit"), C("CONFIG", "GET", "maxclients"), C("CONFIG", "GET", "timeout"),
			C("CONFIG", "GET", "maxmemory"), C("CONFIG", "GET", "maxmemory-policy"), C("CONFIG", "GET", "protected-mode"),
			C("CONFIG", "GET", "busy-reply-threshold"), C("CONFIG", "GET", "lua-time-limit"), C("CONFIG", "GET", "databases"),
			C("CONFIG", "GET", "save"), C("CONFIG", "GET", "appendonly"), C("CONFIG", "GET", "zset-max-listpack-entries"),
			C("CONFIG", "GET", "zset-max-ziplist-entries"), C("CONFIG", "GET", "zset-max-listpack-value"),
			C("CONFIG", "GET", "zset-max-ziplist-value")}},
		{Name: "get port", Cmds: []Cmd{C("CONFIG", "GET", "port").Check("port pair", checkPortPair)}},
		{Name: "get case and duplicates", Cmds: []Cmd{C("CONFIG", "GET", "TIMEOUT"), C("CONFIG", "GET", "timeout", "TIMEOUT"),
			C("CONFIG", "GET", "MaxMemory", "maxmemory"), C("CONFIG", "GET", "nosuch"), C("CONFIG", "GET", "nosuch", "timeout")}},
		{Name: "get several", Cmds: []Cmd{C("CONFIG", "GET", "save", "appendonly").PairsUnordered(),
			C("CONFIG", "GET", "zset-max-ziplist-entries", "zset-max-listpack-entries").PairsUnordered(),
			C("CONFIG", "GET", "timeout", "maxclients", "databases", "bind").PairsUnordered()}},
		{Name: "get patterns", Cmds: []Cmd{C("CONFIG", "GET", "zset-max-*").PairsUnordered(), C("CONFIG", "GET", "ZSET*").PairsUnordered(),
			C("CONFIG", "GET", "lua*").PairsUnordered(), C("CONFIG", "GET", "busy*").PairsUnordered(),
			C("CONFIG", "GET", "[b]ind").PairsUnordered(), C("CONFIG", "GET", "appendonl?").PairsUnordered(),
			C("CONFIG", "GET", "maxmemory-p*", "maxmemory").PairsUnordered(), C("CONFIG", "GET", "zset-max-*-value", "zset*value").PairsUnordered(),
			C("CONFIG", "GET", "requirep*ss").PairsUnordered(), C("CONFIG", "GET", "no*such")}},
		{Name: "get arity", Cmds: []Cmd{C("CONFIG", "GET"), C("CONFIG")}},
		{Name: "set unknown and arity", Cmds: []Cmd{C("CONFIG", "SET", "foo", "bar"), C("CONFIG", "SET", "port"),
			C("CONFIG", "SET", "port", "1", "2"), C("CONFIG", "SET", "timeout", "5", "foo", "bar"), C("CONFIG", "SET", "FOO", "1", "databases", "3"),
			C("CONFIG", "GET", "timeout")}},
		{Name: "set immutable and duplicate", Cmds: []Cmd{C("CONFIG", "SET", "databases", "3"), C("CONFIG", "SET", "DATABASES", "16"),
			C("CONFIG", "SET", "timeout", "1", "timeout", "2"), C("CONFIG", "SET", "timeout", "1", "TIMEOUT", "2"),
			C("CONFIG", "SET", "timeout", "1", "databases", "3", "foo", "1"), C("CONFIG", "SET", "databases", "3", "foo", "1"),
			C("CONFIG", "SET", "timeout", "x", "foo", "1"), C("CONFIG", "SET", "timeout", "1", "timeout", "2", "databases", "3"),
			C("CONFIG", "SET", "databases", "3", "timeout", "2", "timeout", "2"), C("CONFIG", "GET", "timeout")}},
		{Name: "set integers", Cmds: []Cmd{C("CONFIG", "SET", "timeout", "-1"), C("CONFIG", "SET", "TIMEOUT", "abc"),
			C("CONFIG", "SET", "timeout", "2147483648"), C("CONFIG", "SET", "timeout", "9223372036854775808"),
			C("CONFIG", "SET", "timeout", " 5"), C("CONFIG", "SET", "timeout", "05"), C("CONFIG", "SET", "timeout", ""),
			C("CONFIG", "SET", "maxclients", "0"), C("CONFIG", "SET", "maxclients", "-1"), C("CONFIG", "SET", "maxclients", "4294967296"),
			C("CONFIG", "SET", "maxclients", "10x"), C("CONFIG", "SET", "port", "70000"), C("CONFIG", "SET", "port", "-1"),
			C("CONFIG", "SET", "ZSET-MAX-ZIPLIST-ENTRIES", "-1"), C("CONFIG", "SET", "zset-max-listpack-value", "x"), C("CONFIG", "SET", "zset-max-listpack-value", "1kb"),
			C("CONFIG", "GET", "zset-max-listpack-value"), C("CONFIG", "SET", "zset-max-listpack-value", "64"),
			C("CONFIG", "SET", "LUA-TIME-LIMIT", "x"), C("CONFIG", "SET", "busy-reply-threshold", "-1"),
			C("CONFIG", "SET", "timeout", "1kb")}},
		{Name: "set integers ok", Cmds: []Cmd{C("CONFIG", "SET", "timeout", "300"), C("CONFIG", "GET", "timeout"),
			C("CONFIG", "SET", "timeout", "0"), C("CONFIG", "SET", "maxclients", "500"), C("CONFIG", "GET", "maxclients"),
			C("CONFIG", "SET", "maxclients", "10000"),
			C("CONFIG", "SET", "zset-max-ziplist-entries", "100", "zset-max-listpack-entries", "200"),
			C("CONFIG", "GET", "zset-max-ziplist-entries"), C("CONFIG", "SET", "ZSET-MAX-LISTPACK-ENTRIES", "128"),
			C("CONFIG", "SET", "zset-max-listpack-value", "1", "zset-max-ziplist-value", "2"), C("CONFIG", "GET", "zset-max-listpack-value"),
			C("CONFIG", "SET", "zset-max-listpack-value", "64"),
			C("CONFIG", "SET", "lua-time-limit", "100"), C("CONFIG", "GET", "busy-reply-threshold"),
			C("CONFIG", "SET", "busy-reply-threshold", "5000"), C("CONFIG", "GET", "lua-time-limit")}},
		{Name: "set memory", Cmds: []Cmd{C("CONFIG", "SET", "maxmemory", "10x"), C("CONFIG", "SET", "maxmemory", "-1"),
			C("CONFIG", "SET", "maxmemory", "1.5mb"), C("CONFIG", "SET", "maxmemory", " 1"), C("CONFIG", "SET", "maxmemory", "+1"),
			C("CONFIG", "SET", "maxmemory", "1tb"), C("CONFIG", "SET", "maxmemory", "1gb"), C("CONFIG", "GET", "maxmemory"),
			C("CONFIG", "SET", "maxmemory", "1GB"), C("CONFIG", "SET", "maxmemory", "1B"), C("CONFIG", "GET", "maxmemory"),
			C("CONFIG", "SET", "maxmemory", "1Kb"), C("CONFIG", "GET", "maxmemory"), C("CONFIG", "SET", "maxmemory", "3k"),
			C("CONFIG", "GET", "maxmemory"), C("CONFIG", "SET", "maxmemory", "2M"), C("CONFIG", "GET", "maxmemory"),
			C("CONFIG", "SET", "maxmemory", ""), C("CONFIG", "GET", "maxmemory"), C("CONFIG", "SET", "maxmemory", "kb"),
			C("CONFIG", "SET", "maxmemory", "17179869184gb"), C("CONFIG", "GET", "maxmemory"), C("CONFIG", "SET", "maxmemory", "0")}},
		{Name: "set bulk and query limits", Cmds: []Cmd{C("CONFIG", "SET", "proto-max-bulk-len", "100"),
			C("CONFIG", "SET", "proto-max-bulk-len", "99999999999999999999"), C("CONFIG", "SET", "proto-max-bulk-len", "1mb"),
			C("CONFIG", "GET", "proto-max-bulk-len"), C("CONFIG", "SET", "proto-max-bulk-len", "512mb"),
			C("CONFIG", "SET", "client-query-buffer-limit", "100"), C("CONFIG", "SET", "client-query-buffer-limit", "99999999999999999999"),
			C("CONFIG", "SET", "client-query-buffer-limit", "2mb"), C("CONFIG", "GET", "client-query-buffer-limit"),
			C("CONFIG", "SET", "client-query-buffer-limit", "1gb")}},
		{Name: "set enums and bools", Cmds: []Cmd{C("CONFIG", "SET", "maxmemory-policy", "foo"), C("CONFIG", "SET", "maxmemory-policy", ""),
			C("CONFIG", "SET", "maxmemory-policy", "VOLATILE-TTL"), C("CONFIG", "GET", "maxmemory-policy"),
			C("CONFIG", "SET", "maxmemory-policy", "noeviction"), C("CONFIG", "SET", "protected-mode", "maybe"),
			C("CONFIG", "SET", "protected-mode", "NO"), C("CONFIG", "GET", "protected-mode"), C("CONFIG", "SET", "protected-mode", "yes"),
			C("CONFIG", "SET", "appendonly", "maybe"), C("CONFIG", "SET", "appendonly", "no"), C("CONFIG", "GET", "appendonly")}},
		{Name: "set save", Cmds: []Cmd{C("CONFIG", "SET", "save", ""), C("CONFIG", "GET", "save"), C("CONFIG", "SET", "save", "x y"),
			C("CONFIG", "SET", "save", "abc"), C("CONFIG", "SET", "save", "3600 1 300"), C("CONFIG", "SET", "save", "0 1"),
			C("CONFIG", "SET", "save", "1 -1")}},
		{Name: "set atomic", Cmds: []Cmd{C("CONFIG", "SET", "timeout", "5", "maxclients", "x"), C("CONFIG", "GET", "timeout"),
			C("CONFIG", "SET", "timeout", "5", "maxmemory", "1x", "maxclients", "7"), C("CONFIG", "GET", "timeout"), C("CONFIG", "GET", "maxclients"),
			C("CONFIG", "SET", "timeout", "5", "maxclients", "600", "maxmemory", "1mb"),
			C("CONFIG", "GET", "timeout"), C("CONFIG", "GET", "maxclients"), C("CONFIG", "GET", "maxmemory"),
			C("CONFIG", "SET", "timeout", "0", "maxclients", "10000", "maxmemory", "0")}},
		{Name: "set same port and bind", Cmds: []Cmd{C("CONFIG", "SET", "bind", "127.0.0.1"), C("CONFIG", "GET", "bind")}},
		{Name: "requirepass", Cmds: []Cmd{C("CONFIG", "SET", "requirepass", "s3cret"), C("CONFIG", "GET", "requirepass"), C("PING"),
			C("AUTH", "s3cret"), C("AUTH", "wrong"), C("CONFIG", "SET", "requirepass", ""), C("CONFIG", "GET", "requirepass"), C("AUTH", "x")}},
		{Name: "resetstat rewrite help", Cmds: []Cmd{C("CONFIG", "RESETSTAT"), C("CONFIG", "RESETSTAT", "x"), C("CONFIG", "REWRITE"),
			C("CONFIG", "REWRITE", "x"), C("CONFIG", "HELP"), C("CONFIG", "HELP", "x"), C("CONFIG", "FOO"), C("config", "")}},
	})
}

// checkPortPair accepts CONFIG GET port answering each server's own port.
func checkPortPair(rds, lkv *Reply) error {
	port := func(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }
	head := "*2"
	if rds.Type == '%' {
		head = "%1"
	}
	want := func(p string) string { return fmt.Sprintf("%s\r\n$4\r\nport\r\n$%d\r\n%s\r\n", head, len(p), p) }
	if string(rds.Raw) != want(port(redisAddr)) || string(lkv.Raw) != want(port(limitkvAddr)) {
		return fmt.Errorf("redis %q, limitkv %q", rds.Raw, lkv.Raw)
	}
	return nil
}

// TestServerConfigSetPort checks CONFIG SET port to the port the server
// already listens on succeeds, and to a port taken fails as in Redis. (The
// conformance suite's limitkv is embedded and cannot move; the binary's
// move is cmd/limitkv's TestConfigSetPortRebinds.)
func TestServerConfigSetPort(t *testing.T) {
	rds, lkv := dialPair(t)
	for _, c := range []struct {
		conn *RawConn
		addr string
	}{{rds, redisAddr}, {lkv, limitkvAddr}} {
		port := c.addr[strings.LastIndexByte(c.addr, ':')+1:]
		if r := c.conn.MustDo(t, "CONFIG", "SET", "port", port); string(r.Raw) != "+OK\r\n" {
			t.Errorf("%s: CONFIG SET port %s: %q", c.conn.Name, port, r.Raw)
		}
	}
	// Each to the other's port, which is taken: both refuse, in one text.
	portOf := func(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }
	r := rds.MustDo(t, "CONFIG", "SET", "port", portOf(limitkvAddr))
	l := lkv.MustDo(t, "CONFIG", "SET", "port", portOf(redisAddr))
	if want := "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n"; string(r.Raw) != want || string(l.Raw) != want {
		t.Errorf("CONFIG SET port (taken): redis %q, limitkv %q", r.Raw, l.Raw)
	}
}

func TestServerCommandSubcommands(t *testing.T) {
	runCases(t, []Case{
		{Name: "info unknown", Cmds: []Cmd{C("COMMAND", "INFO", "nosuch"), C("COMMAND", "INFO", "client list"), C("COMMAND", "INFO", "client|"),
			C("COMMAND", "INFO", "|list"), C("COMMAND", "INFO", "get|x"), C("COMMAND", "INFO", "a|b|c"), C("COMMAND", "INFO", ""),
			C("COMMAND", "INFO", "client|nosuch")}},
		{Name: "info simple", Cmds: []Cmd{C("COMMAND", "INFO", "get"), C("COMMAND", "INFO", "GET", "nosuch", "get"),
			C("COMMAND", "INFO", "dbsize", "time", "flushall", "flushdb", "shutdown", "info"),
			C("COMMAND", "INFO", "client|list", "CLIENT|KILL", "config|set", "command|docs")}},
		{Name: "docs", Cmds: []Cmd{C("COMMAND", "DOCS", "nosuch"), C("COMMAND", "DOCS", "dbsize"), C("COMMAND", "DOCS", "get", "nosuch", "GET"),
			C("COMMAND", "DOCS", "set"), C("COMMAND", "DOCS", "client|id", "config|get", "config|set"), C("COMMAND", "DOCS", "info", "time")}},
		{Name: "list filters", Cmds: []Cmd{C("COMMAND", "LIST", "FILTERBY", "PATTERN", "config|*").Unordered(),
			C("COMMAND", "LIST", "FILTERBY", "pattern", "COMMAND|*").Unordered(), C("COMMAND", "LIST", "FILTERBY", "PATTERN", "flush*").Unordered(),
			C("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"), C("COMMAND", "LIST", "FILTERBY", "MODULE", "x"),
			C("COMMAND", "LIST", "FILTERBY"), C("COMMAND", "LIST", "foo"), C("COMMAND", "LIST", "FILTERBY", "foo", "bar"),
			C("COMMAND", "LIST", "FILTERBY", "PATTERN", "x", "y")}},
		{Name: "count arity", Cmds: []Cmd{C("COMMAND", "COUNT", "x"), C("COMMAND", "COUNT").Ignore()}},
		{Name: "getkeys", Cmds: []Cmd{C("COMMAND", "GETKEYS"), C("COMMAND", "GETKEYS", "get"), C("COMMAND", "GETKEYS", "get", "a"),
			C("COMMAND", "GETKEYS", "nosuch", "a"), C("COMMAND", "GETKEYS", "ping", "x"), C("COMMAND", "GETKEYS", "dbsize", "x"),
			C("COMMAND", "GETKEYS", "get", "a", "b"), C("COMMAND", "GETKEYS", "client", "x", "y"), C("COMMAND", "GETKEYS", "GET", "a"),
			C("COMMAND", "GETKEYS", "set", "k", "v", "EX", "10"), C("COMMAND", "GETKEYS", "mset", "a", "1", "b", "2"),
			C("COMMAND", "GETKEYS", "mset", "a", "1", "b"), C("COMMAND", "GETKEYS", "del", "a", "b", "c"),
			C("COMMAND", "GETKEYS", "eval", "s", "0"), C("COMMAND", "GETKEYS", "eval", "s", "2", "k1", "k2", "arg"),
			C("COMMAND", "GETKEYS", "object", "encoding", "k"), C("COMMAND", "GETKEYS", "copy", "a", "b", "REPLACE"),
			C("COMMAND", "GETKEYS", "rename", "a", "b"), C("COMMAND", "GETKEYS", "expire", "k", "10")}},
		{Name: "getkeysandflags", Cmds: []Cmd{C("COMMAND", "GETKEYSANDFLAGS", "set", "a", "b"),
			C("COMMAND", "GETKEYSANDFLAGS", "set", "a", "b", "GET"), C("COMMAND", "GETKEYSANDFLAGS", "get", "a"),
			C("COMMAND", "GETKEYSANDFLAGS", "del", "a", "b"), C("COMMAND", "GETKEYSANDFLAGS", "rename", "a", "b"),
			C("COMMAND", "GETKEYSANDFLAGS", "ping", "x")}},
		{Name: "help", Cmds: []Cmd{C("COMMAND", "HELP"), C("COMMAND", "HELP", "x"), C("COMMAND", "FOO")}},
	})
}

// TestServerCommandInfoDocsAll compares COMMAND INFO and COMMAND DOCS of
// every command limitkv has with Redis's: byte for byte, except that a
// container's subcommand list holds only the subcommands limitkv has (each
// byte-identical to Redis's), in any order.
func TestServerCommandInfoDocsAll(t *testing.T) {
	rds, lkv := dialPair(t)
	list := lkv.MustDo(t, "COMMAND", "LIST")
	if list.Type != '*' || len(list.Elems) == 0 {
		t.Fatalf("COMMAND LIST: %q", list.Raw)
	}
	for _, e := range list.Elems {
		name := e.Str
		if strings.Contains(name, "|") {
			continue // compared inside their container
		}
		ri, li := rds.MustDo(t, "COMMAND", "INFO", name), lkv.MustDo(t, "COMMAND", "INFO", name)
		if len(ri.Elems) == 1 && ri.Elems[0].Null {
			continue // not a Redis command (RL.*)
		}
		if err := sameCommandEntry(ri.Elems[0], li.Elems[0], 9, false); err != nil {
			t.Errorf("COMMAND INFO %s: %v", name, err)
		}
		rd, ld := rds.MustDo(t, "COMMAND", "DOCS", name), lkv.MustDo(t, "COMMAND", "DOCS", name)
		if len(rd.Elems) != 2 || len(ld.Elems) != 2 || rd.Elems[0].Str != ld.Elems[0].Str {
			t.Errorf("COMMAND DOCS %s: redis %.80q, limitkv %.80q", name, rd.Raw, ld.Raw)
			continue
		}
		if err := sameCommandEntry(rd.Elems[1], ld.Elems[1], -1, true); err != nil {
			t.Errorf("COMMAND DOCS %s: %v", name, err)
		}
	}
	// Every command limitkv reports in COMMAND (no arguments) is as in COMMAND INFO.
	all := lkv.MustDo(t, "COMMAND")
	if len(all.Elems) != len(lkv.MustDo(t, "COMMAND", "INFO").Elems) || int64(len(all.Elems)) != lkv.MustDo(t, "COMMAND", "COUNT").Int {
		t.Errorf("COMMAND, COMMAND INFO and COMMAND COUNT disagree")
	}
	docs := lkv.MustDo(t, "COMMAND", "DOCS")
	if len(docs.Elems) != 2*len(all.Elems) {
		t.Errorf("COMMAND DOCS has %d elements for %d commands", len(docs.Elems), len(all.Elems))
	}
}

// sameCommandEntry compares a COMMAND INFO entry (subcommands at index sub)
// or a COMMAND DOCS map (docs: subcommands under the "subcommands" key).
func sameCommandEntry(rds, lkv *Reply, sub int, docs bool) error {
	split := func(r *Reply) (head []string, subs map[string]string, err error) {
		subs = map[string]string{}
		if r.Type != '*' {
			return nil, nil, fmt.Errorf("not an array: %q", r.Raw)
		}
		for i := 0; i < len(r.Elems); i++ {
			el := r.Elems[i]
			switch {
			case !docs && i == sub:
				for _, s := range el.Elems {
					subs[s.Elems[0].Str] = string(s.Raw)
				}
			case docs && i%2 == 0 && el.Str == "subcommands" && i+1 < len(r.Elems):
				m := r.Elems[i+1]
				for j := 0; j+1 < len(m.Elems); j += 2 {
					subs[m.Elems[j].Str] = string(m.Elems[j+1].Raw)
				}
				i++
			default:
				head = append(head, string(el.Raw))
			}
		}
		return head, subs, nil
	}
	rh, rs, err := split(rds)
	if err != nil {
		return err
	}
	lh, ls, err := split(lkv)
	if err != nil {
		return err
	}
	if strings.Join(rh, "") != strings.Join(lh, "") {
		return fmt.Errorf("entries differ:\n redis   %q\n limitkv %q", strings.Join(rh, ""), strings.Join(lh, ""))
	}
	names := make([]string, 0, len(ls))
	for n := range ls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == "client|setinfo" {
			continue // Redis 7.2's
		}
		if rs[n] != ls[n] {
			return fmt.Errorf("subcommand %s:\n redis   %q\n limitkv %q", n, rs[n], ls[n])
		}
	}
	return nil
}

// infoSections parses an INFO reply into section titles and field names.
func infoSections(t *testing.T, r *Reply) (titles []string, fields map[string][]string, values map[string]map[string]string) {
	t.Helper()
	if r.Type != '$' {
		t.Fatalf("INFO: %q", r.Raw)
	}
	fields = map[string][]string{}
	values = map[string]map[string]string{}
	cur := ""
	for _, l := range strings.Split(r.Str, "\r\n") {
		switch {
		case strings.HasPrefix(l, "# "):
			cur = l[2:]
			titles = append(titles, cur)
			values[cur] = map[string]string{}
		case l == "":
		default:
			k, v, _ := strings.Cut(l, ":")
			fields[cur] = append(fields[cur], k)
			values[cur][k] = v
		}
	}
	return titles, fields, values
}

// infoByTraffic are the sections whose fields name the commands and errors
// each server has seen (observe_test.go compares them).
var infoByTraffic = map[string]bool{"Commandstats": true, "Errorstats": true, "Latencystats": true}

func TestServerInfo(t *testing.T) {
	rds, lkv := dialPair(t)
	flushBoth(t)
	for _, c := range []*RawConn{rds, lkv} {
		for _, cmd := range [][]string{{"SET", "a", "1"}, {"SET", "b", "2"}, {"SELECT", "3"}, {"SET", "c", "3"}, {"SELECT", "0"}} {
			c.MustDo(t, cmd...)
		}
	}
	for _, args := range [][]string{{"INFO"}, {"INFO", "default"}, {"INFO", "all"}, {"INFO", "EVERYTHING"},
		{"INFO", "server", "clients", "memory"}, {"INFO", "keyspace", "stats"}, {"INFO", "cpu", "replication", "persistence"},
		{"INFO", "cluster", "modules"}, {"INFO", "default", "commandstats"}, {"INFO", "all", "keyspace"}} {
		rt, rf, _ := infoSections(t, rds.MustDo(t, args...))
		lt, lf, _ := infoSections(t, lkv.MustDo(t, args...))
		if strings.Join(rt, ",") != strings.Join(lt, ",") {
			t.Errorf("%v: sections: redis %v, limitkv %v", args, rt, lt)
			continue
		}
		for _, s := range lt {
			if s == "Keyspace" || infoByTraffic[s] {
				continue
			}
			got := strings.Join(lf[s], ",")
			want := strings.Join(rf[s], ",")
			if s == "Server" {
				want += ",limitkv_version"
			}
			if got != want {
				t.Errorf("%v: section %s fields:\n redis   %s\n limitkv %s", args, s, want, got)
			}
		}
	}
	runCases(t, []Case{
		{Name: "unknown sections", Cmds: []Cmd{C("INFO", "foo"), C("INFO", "foo", "bar"), C("INFO", "")}},
		{Name: "keyspace", Cmds: []Cmd{C("INFO", "keyspace"), C("SET", "a", "1"), C("SET", "b", "2", "EX", "1000"), C("SELECT", "3"),
			C("SET", "c", "3"), C("SELECT", "0"), C("INFO", "KEYSPACE", "keyspace").Check("keyspace", checkKeyspace),
			C("INFO", "keyspace", "foo").Check("keyspace", checkKeyspace)}},
		{Name: "cluster and modules", Cmds: []Cmd{C("INFO", "cluster"), C("INFO", "CLUSTER", "modules"), C("INFO", "modules")}},
	})
	// Values limitkv keeps as Redis does.
	_, _, rv := infoSections(t, rds.MustDo(t, "INFO"))
	_, _, lv := infoSections(t, lkv.MustDo(t, "INFO"))
	for _, f := range [][2]string{{"Server", "redis_version"}, {"Server", "redis_mode"}, {"Server", "arch_bits"},
		{"Clients", "maxclients"}, {"Memory", "maxmemory"}, {"Memory", "maxmemory_human"}, {"Memory", "maxmemory_policy"},
		{"Replication", "role"}, {"Cluster", "cluster_enabled"}, {"Persistence", "aof_enabled"}, {"Persistence", "loading"}} {
		if rv[f[0]][f[1]] != lv[f[0]][f[1]] {
			t.Errorf("INFO %s: redis %q, limitkv %q", f[1], rv[f[0]][f[1]], lv[f[0]][f[1]])
		}
	}
}

// checkKeyspace compares INFO keyspace lines without avg_ttl.
func checkKeyspace(rds, lkv *Reply) error {
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\r\n") {
			// Redis's avg_ttl is a smoothed estimate its expiry cycle updates.
			if i := strings.Index(l, ",avg_ttl="); i >= 0 {
				l = l[:i]
			}
			out = append(out, l)
		}
		return strings.Join(out, "\r\n")
	}
	if norm(rds.Str) != norm(lkv.Str) {
		return fmt.Errorf("redis %q, limitkv %q", rds.Str, lkv.Str)
	}
	return nil
}

// TestServerRedisCli runs redis-cli against both servers.
func TestServerRedisCli(t *testing.T) {
	requireServers(t)
	cli, err := testredis.FindTool("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	run := func(addr string, args ...string) string {
		host, port := addr[:strings.LastIndexByte(addr, ':')], addr[strings.LastIndexByte(addr, ':')+1:]
		out, err := exec.Command(cli, append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %v on %s: %v\n%s", args, addr, err, out)
		}
		return string(out)
	}
	for _, args := range [][]string{{"PING"}, {"--no-raw", "COMMAND", "DOCS", "GET"}, {"--no-raw", "COMMAND", "INFO", "dbsize"},
		{"CONFIG", "GET", "maxmemory"}, {"--no-raw", "CLIENT", "GETNAME"}, {"ECHO", "hello world"}} {
		want, got := run(redisAddr, args...), run(limitkvAddr, args...)
		if want != got {
			t.Errorf("redis-cli %v:\n redis   %q\n limitkv %q", args, want, got)
		}
	}
	// The counts differ (limitkv has fewer commands); both must be integers.
	for _, addr := range []string{redisAddr, limitkvAddr} {
		out := strings.TrimSpace(run(addr, "COMMAND", "COUNT"))
		if n, err := strconv.Atoi(out); err != nil || n < 10 {
			t.Errorf("redis-cli COMMAND COUNT on %s: %q", addr, out)
		}
	}
	// Interactive mode reads COMMAND DOCS at start for its hints and HELP.
	out := run(limitkvAddr, "--no-raw", "COMMAND", "DOCS")
	if !bytes.Contains([]byte(out), []byte(`"summary"`)) {
		t.Errorf("redis-cli COMMAND DOCS on limitkv: %.200q", out)
	}
}
