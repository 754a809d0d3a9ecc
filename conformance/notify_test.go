package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/rdb"
)

// Keyspace notifications against the real server. Connection 0 listens
// with one PSUBSCRIBE (several patterns would let Redis deliver in its
// dict's order); the commands run on connection 1 and up.
//
// After every step a sentinel message is published from connection 9 and
// everything pushed up to it is read and compared, so a missing, extra or
// reordered event fails the step that caused it. How many pushes a step
// makes is learnt from Redis by a first run of the same steps
// (notifyCounts): the comparison is still Redis against limitkv, event by
// event.

const notifySentinel = "__keyevent@15__:sentinel"

// notifyCase builds a case that sets notify-keyspace-events to flags on
// both servers, runs steps with the events of each read after it, and
// restores the default.
type notifyCase struct {
	name, flags string
	steps       []Cmd
	resp2Only   string
}

func TestKeyspaceNotifications(t *testing.T) {
	requireServers(t)
	t.Cleanup(func() { resetNotify(t) })
	var cases []Case
	for _, nc := range notifyCases(t) {
		cases = append(cases, nc.build(t))
	}
	runCases(t, cases)
}

func resetNotify(t *testing.T) {
	for _, addr := range []string{redisAddr, limitkvAddr} {
		c, err := dialRawConn("reset", addr)
		if err != nil {
			t.Errorf("reset notify-keyspace-events on %s: %v", addr, err)
			continue
		}
		c.Do("CONFIG", "SET", "notify-keyspace-events", "")
		c.Do("CONFIG", "SET", "maxmemory", "0")
		c.Do("CONFIG", "SET", "maxmemory-policy", "noeviction")
		c.Close()
	}
}

// build runs the steps on Redis alone to count each one's pushes, then
// makes the case both servers run.
func (nc notifyCase) build(t *testing.T) Case {
	counts, err := notifyCounts(nc)
	if err != nil {
		t.Fatalf("%s: counting events on redis: %v", nc.name, err)
	}
	t.Logf("%s: events per step %v", nc.name, counts)
	cmds := []Cmd{
		C("CONFIG", "SET", "notify-keyspace-events", nc.flags).On(1),
		C("PSUBSCRIBE", "__key*__:*"),
	}
	for i, s := range nc.steps {
		cmds = append(cmds, s)
		if s.pause > 0 {
			continue
		}
		r := Recv().Replies(counts[i] + 1)
		r.where = s.where // a mismatch names the step that caused it
		cmds = append(cmds, C("PUBLISH", notifySentinel, "s").On(9), r)
	}
	cmds = append(cmds, C("CONFIG", "SET", "notify-keyspace-events", "").On(1))
	return Case{Name: nc.name, Cmds: cmds, RESP2Only: nc.resp2Only}
}

// notifyCounts runs nc on Redis and reports, per step, how many pushes
// reached the subscriber before the sentinel.
func notifyCounts(nc notifyCase) ([]int, error) {
	conns := map[int]*RawConn{}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	get := func(n int) (*RawConn, error) {
		if c := conns[n]; c != nil {
			return c, nil
		}
		c, err := dialRawConn("redis", redisAddr)
		if err != nil {
			return nil, err
		}
		conns[n] = c
		return c, nil
	}
	sub, err := get(0)
	if err != nil {
		return nil, err
	}
	do := func(c *RawConn, args ...string) error {
		r, err := c.Do(args...)
		if err == nil && r.Type == '-' {
			err = fmt.Errorf("%v: %s", args, r.Str)
		}
		return err
	}
	if err := do(sub, "FLUSHALL"); err != nil {
		return nil, err
	}
	c1, err := get(1)
	if err != nil {
		return nil, err
	}
	defer c1.Do("CONFIG", "SET", "notify-keyspace-events", "")
	if err := do(c1, "CONFIG", "SET", "notify-keyspace-events", nc.flags); err != nil {
		return nil, err
	}
	if _, err := sub.Do("PSUBSCRIBE", "__key*__:*"); err != nil {
		return nil, err
	}
	pub, err := get(9)
	if err != nil {
		return nil, err
	}
	counts := make([]int, len(nc.steps))
	for i, s := range nc.steps {
		if s.pause > 0 {
			time.Sleep(s.pause)
			continue
		}
		c, err := get(s.conn)
		if err != nil {
			return nil, err
		}
		if !s.rawSet {
			if err := c.Send(s.Args...); err != nil {
				return nil, err
			}
		}
		for k := 0; k < s.nReplies(); k++ {
			if _, err := c.ReadReply(); err != nil {
				return nil, fmt.Errorf("step %d (%s): %w", i+1, s, err)
			}
		}
		if err := do(pub, "PUBLISH", notifySentinel, "s"); err != nil {
			return nil, err
		}
		for {
			r, err := sub.ReadReply()
			if err != nil {
				return nil, fmt.Errorf("step %d (%s): reading events: %w", i+1, s, err)
			}
			if len(r.Elems) == 4 && r.Elems[2].Str == notifySentinel {
				break
			}
			counts[i]++
		}
	}
	return counts, nil
}

// cmds is a shorthand for a step list on connection 1.
func cmds(steps ...Cmd) []Cmd {
	for i := range steps {
		if steps[i].conn == 0 && steps[i].pause == 0 {
			steps[i] = steps[i].On(1)
		}
	}
	return steps
}

func notifyCases(t testing.TB) []notifyCase {
	str := dumpOf(t, rdb.Value{Type: rdb.TypeString, String: []byte("hello")})
	list := dumpOf(t, rdb.Value{Type: rdb.TypeList, List: [][]byte{[]byte("a"), []byte("b")}})
	return []notifyCase{
		{name: "strings", flags: "KEA", steps: cmds(
			C("SET", "s", "1"),
			C("SET", "s", "2", "EX", "100"),
			C("SET", "s", "3", "KEEPTTL"),
			C("SET", "s", "3", "NX"),
			C("SET", "s", "4", "XX", "GET"),
			C("SET", "nope", "4", "XX"),
			C("SET", "s", "5", "PX", "100000", "GET"),
			C("SETNX", "s", "x"),
			C("SETNX", "s2", "x"),
			C("SETEX", "s3", "100", "v"),
			C("PSETEX", "s3", "100000", "v"),
			C("GETSET", "s3", "w"),
			C("GETDEL", "s3"),
			C("GETDEL", "s3"),
			C("SET", "g", "v"),
			C("GETEX", "g"),
			C("GETEX", "g", "EX", "100"),
			C("GETEX", "g", "PERSIST"),
			C("GETEX", "g", "PERSIST"),
			C("GETEX", "g", "PXAT", "1"),
			C("GETEX", "g", "EX", "100"),
			C("MSET", "a", "1", "b", "2", "a", "3"),
			C("MSETNX", "a", "1", "c", "2"),
			C("MSETNX", "c", "1", "d", "2"),
			C("INCR", "n"), C("INCRBY", "n", "5"), C("DECR", "n"), C("DECRBY", "n", "2"),
			C("INCR", "a"), C("INCR", "s"),
			C("INCRBYFLOAT", "f", "1.5"), C("INCRBYFLOAT", "f", "1"),
			C("APPEND", "ap", "x"), C("APPEND", "ap", "yz"), C("APPEND", "ap", ""),
			C("SETRANGE", "sr", "2", "ab"), C("SETRANGE", "sr", "0", "z"), C("SETRANGE", "sr", "0", ""),
			C("SETRANGE", "none", "5", ""),
			C("GET", "missing"), C("MGET", "a", "missing"), C("STRLEN", "missing"), C("GETRANGE", "missing", "0", "1"),
		)},
		{name: "config canonical forms", flags: "", steps: cmds(
			C("CONFIG", "SET", "notify-keyspace-events", "AKE"),
			C("CONFIG", "GET", "notify-keyspace-events"),
			C("CONFIG", "SET", "notify-keyspace-events", "Eg$lshzxetd"),
			C("CONFIG", "GET", "notify-keyspace-events"),
			C("CONFIG", "SET", "notify-keyspace-events", "mnKEA"),
			C("CONFIG", "GET", "notify-keyspace-events"),
			C("CONFIG", "SET", "notify-keyspace-events", "zg$K"),
			C("CONFIG", "GET", "notify-keyspace-events"),
			C("CONFIG", "SET", "notify-keyspace-events", "ndtexzhsl$g"),
			C("CONFIG", "GET", "notify-keyspace-events"),
			C("CONFIG", "SET", "notify-keyspace-events", "KEq"),
			C("CONFIG", "SET", "notify-keyspace-events", "K E"),
			C("CONFIG", "GET", "notify-keyspace-events"),
			C("CONFIG", "SET", "notify-keyspace-events", ""),
			C("CONFIG", "GET", "notify-keyspace-events"),
			C("CONFIG", "GET", "notify*"),
		)},
		{name: "generic", flags: "KEA", steps: cmds(
			C("MSET", "a", "1", "b", "2", "c", "3"),
			C("DEL", "a", "nope", "b"),
			C("UNLINK", "c", "nope"),
			C("SET", "r", "v"),
			C("RENAME", "r", "r2"),
			C("SET", "r3", "x"),
			C("RENAME", "r2", "r3"),
			C("RENAME", "r3", "r3"),
			C("RENAMENX", "r3", "r3"),
			C("SET", "r4", "y"),
			C("RENAMENX", "r3", "r4"),
			C("RENAMENX", "r3", "r5"),
			C("RENAME", "nope", "x"),
			C("MOVE", "r5", "3"),
			C("MOVE", "r5", "3"),
			C("SET", "r5", "z"),
			C("MOVE", "r5", "3"),
			C("COPY", "r4", "cp"),
			C("COPY", "r4", "cp"),
			C("COPY", "r4", "cp", "REPLACE"),
			C("COPY", "r4", "cp", "DB", "2"),
			C("COPY", "nope", "cp"),
			C("EXPIRE", "r4", "100"),
			C("PEXPIRE", "r4", "100000", "NX"),
			C("EXPIRE", "r4", "200", "GT"),
			C("EXPIREAT", "r4", "99999999999"),
			C("PEXPIREAT", "r4", "99999999999000"),
			C("TTL", "r4"),
			C("PERSIST", "r4"),
			C("PERSIST", "r4"),
			C("EXPIRE", "nope", "10"),
			C("EXPIRE", "r4", "-1"),
			C("SET", "p", "v"),
			C("PEXPIREAT", "p", "1"),
			C("SET", "d", "v"),
			C("DUMP", "nope"),
			C("TYPE", "nope"),
			C("EXISTS", "nope", "d"),
			C("TOUCH", "nope", "d"),
			C("OBJECT", "ENCODING", "nope"),
			C("TTL", "nope"), C("PTTL", "nope"), C("EXPIRETIME", "nope"),
			C("SELECT", "5"),
			C("SET", "in5", "v"),
			C("DEL", "in5"),
			C("SELECT", "0"),
			C("SET", "sw", "v"),
			C("SWAPDB", "0", "1"),
			C("SWAPDB", "0", "1"),
			C("FLUSHDB"),
			C("SET", "fa", "v"),
			C("FLUSHALL"),
		)},
		{name: "restore", flags: "KEA", steps: cmds(
			C("RESTORE", "rs", "0", str),
			C("RESTORE", "rs", "0", str),
			C("RESTORE", "rs", "0", str, "REPLACE"),
			C("RESTORE", "rs", "1", str, "ABSTTL", "REPLACE"),
			C("RESTORE", "rs", "1", str, "ABSTTL"),
			C("RESTORE", "rs2", "5000", list),
			C("RESTORE", "rs3", "0", "garbage"),
		)},
		{name: "lists", flags: "KEA", steps: cmds(
			C("LPUSH", "l", "a", "b"),
			C("RPUSH", "l", "c"),
			C("LPUSHX", "l", "d"),
			C("RPUSHX", "l", "e"),
			C("LPUSHX", "nope", "d"),
			C("RPUSHX", "nope", "d"),
			C("LINSERT", "l", "BEFORE", "a", "x"),
			C("LINSERT", "l", "AFTER", "zz", "x"),
			C("LINSERT", "nope", "AFTER", "a", "x"),
			C("LSET", "l", "0", "y"),
			C("LSET", "l", "99", "y"),
			C("LPOP", "l"),
			C("RPOP", "l"),
			C("LPOP", "l", "0"),
			C("LPOP", "l", "2"),
			C("RPOP", "nope"),
			C("RPUSH", "l", "a", "a", "b", "a"),
			C("LREM", "l", "1", "a"),
			C("LREM", "l", "0", "zz"),
			C("LREM", "l", "-5", "a"),
			C("LTRIM", "l", "0", "0"),
			C("LTRIM", "l", "0", "-1"),
			C("LTRIM", "nope", "0", "-1"),
			C("RPUSH", "l", "q"),
			C("LTRIM", "l", "5", "1"),
			C("RPUSH", "l", "1", "2", "3"),
			C("LREM", "l", "0", "1"),
			C("LREM", "l", "0", "2"),
			C("LREM", "l", "0", "3"),
			C("RPUSH", "src", "1", "2"),
			C("LMOVE", "src", "dst", "LEFT", "RIGHT"),
			C("RPOPLPUSH", "src", "dst"),
			C("LMOVE", "dst", "dst", "RIGHT", "LEFT"),
			C("LMOVE", "nope", "dst", "RIGHT", "LEFT"),
			C("RPUSH", "m1", "a", "b", "c"),
			C("LMPOP", "2", "nope", "m1", "LEFT", "COUNT", "2"),
			C("LMPOP", "1", "m1", "RIGHT"),
			C("LMPOP", "1", "m1", "RIGHT"),
			C("RPUSH", "b1", "v", "w"),
			C("BLPOP", "nope", "b1", "0"),
			C("BRPOP", "b1", "0"),
			C("RPUSH", "b2", "v", "w"),
			C("BLMOVE", "b2", "b3", "LEFT", "LEFT", "0"),
			C("BRPOPLPUSH", "b2", "b3", "0"),
			C("BLMPOP", "0", "1", "b3", "LEFT", "COUNT", "5"),
			C("LRANGE", "nope", "0", "-1"), C("LLEN", "nope"), C("LINDEX", "nope", "0"), C("LPOS", "nope", "a"),
		)},
		{name: "blocked list pops served", flags: "KEA", steps: cmds(
			C("BLPOP", "bl", "0").On(2).NoReply(),
			C("RPUSH", "bl", "a", "b"),
			Recv().On(2),
			C("BLMOVE", "bm", "bd", "RIGHT", "LEFT", "0").On(2).NoReply(),
			C("LPUSH", "bm", "x"),
			Recv().On(2),
			C("BLMPOP", "0", "2", "q1", "q2", "LEFT", "COUNT", "3").On(2).NoReply(),
			C("RPUSH", "q2", "1", "2"),
			Recv().On(2),
			C("BRPOPLPUSH", "bd", "bd2", "0").On(2),
		)},
	}
}
