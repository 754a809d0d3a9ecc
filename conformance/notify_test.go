package conformance

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
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

// joinStep, placed after a step, reads that step's events together with
// the next one's: for effects whose moment differs where the outcome does
// not (Redis evicts on CONFIG SET maxmemory, limitkv on the next write).
var joinStep = Cmd{pause: time.Nanosecond, Args: []string{"join"}}

// notifyCase builds a case that sets notify-keyspace-events to flags on
// both servers, runs steps with the events of each read after it, and
// restores the default.
type notifyCase struct {
	name, flags string
	steps       []Cmd
	resp2Only   string
	// activeExpiry leaves the active expiry cycle on (every other case
	// switches it off, see TestKeyspaceNotifications).
	activeExpiry bool
}

func TestKeyspaceNotifications(t *testing.T) {
	requireServers(t)
	// A pair of its own with DEBUG on, so that the cases can switch the
	// active expiry cycle off: a key set with PX 1 must expire lazily, at
	// the access that follows, on both servers (limitkv's cycle runs every
	// 10 ms, Redis's every 100 ms, so otherwise the cycle may take it first
	// on one of them).
	rds, lkv := debugPair(t, "yes")
	oldR, oldL := redisAddr, limitkvAddr
	redisAddr, limitkvAddr = rds, lkv
	defer func() { redisAddr, limitkvAddr = oldR, oldL }()
	t.Cleanup(func() { resetNotify(t) })
	var cases []Case
	ncs := notifyCases(t)
	// Each class alone: the same mixed writes, filtered.
	for _, class := range []string{"g", "$", "l", "s", "h", "z", "x", "e", "t", "d", "n", "m"} {
		ncs = append(ncs, notifyCase{name: "class " + class + " alone", flags: "KE" + class, steps: cmds(
			C("SET", "a", "1", "EX", "100"), C("DEL", "a"), C("GET", "a"),
			C("RPUSH", "l", "x"), C("SADD", "s", "x"), C("HSET", "h", "f", "v"), C("ZADD", "z", "1", "m"),
			C("SET", "e", "1", "PX", "1"), Sleep(5*time.Millisecond), C("GET", "e"),
		)})
	}
	for _, nc := range ncs {
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
	active := "0"
	if nc.activeExpiry {
		active = "1"
	}
	cmds := []Cmd{
		C("DEBUG", "SET-ACTIVE-EXPIRE", active).On(1),
		C("CONFIG", "SET", "notify-keyspace-events", nc.flags).On(1),
		C("PSUBSCRIBE", "__key*__:*"),
	}
	for i, s := range nc.steps {
		if isJoin(s) {
			continue
		}
		cmds = append(cmds, s)
		if s.pause > 0 || joined(nc.steps, i) {
			continue
		}
		r := Recv().Replies(counts[i] + 1)
		r.where = s.where // a mismatch names the step that caused it
		cmds = append(cmds, C("PUBLISH", notifySentinel, "s").On(9), r)
	}
	cmds = append(cmds, C("CONFIG", "SET", "notify-keyspace-events", "").On(1), C("DEBUG", "SET-ACTIVE-EXPIRE", "1").On(1))
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
	defer c1.Do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	active := "0"
	if nc.activeExpiry {
		active = "1"
	}
	if err := do(c1, "DEBUG", "SET-ACTIVE-EXPIRE", active); err != nil {
		return nil, err
	}
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
		if isJoin(s) {
			continue
		}
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
		if joined(nc.steps, i) {
			continue
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

func isJoin(c Cmd) bool { return c.pause == joinStep.pause && len(c.Args) == 1 && c.Args[0] == "join" }

// joined reports whether step i's events are read with the next step's.
func joined(steps []Cmd, i int) bool { return i+1 < len(steps) && isJoin(steps[i+1]) }

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
		{name: "streams", flags: "KEA", steps: cmds(
			C("XADD", "x", "1-1", "a", "b"), C("XADD", "x", "MAXLEN", "1", "2-1", "a", "b"), C("XADD", "x", "NOMKSTREAM", "3-1", "a", "b"),
			C("XADD", "y", "NOMKSTREAM", "1-1", "a", "b"), C("XADD", "x", "1-1", "a", "b"), C("XDEL", "x", "2-1", "9-9"), C("XDEL", "x", "9-9"),
			C("XTRIM", "x", "MAXLEN", "0"), C("XTRIM", "x", "MAXLEN", "0"), C("XSETID", "x", "5-0"), C("XGROUP", "CREATE", "x", "g", "0"),
			C("XGROUP", "CREATE", "x", "g", "0"), C("XGROUP", "CREATE", "z", "g", "$", "MKSTREAM"), C("XGROUP", "CREATECONSUMER", "x", "g", "c"),
			C("XGROUP", "CREATECONSUMER", "x", "g", "c"), C("XADD", "x", "6-1", "a", "b"), C("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "x", ">"),
			C("XCLAIM", "x", "g", "c3", "0", "6-1"), C("XAUTOCLAIM", "x", "g", "c4", "0", "0"), C("XGROUP", "SETID", "x", "g", "0"),
			C("XGROUP", "DELCONSUMER", "x", "g", "c"), C("XGROUP", "DELCONSUMER", "x", "g", "nope"), C("XGROUP", "DESTROY", "x", "g"),
			C("XGROUP", "DESTROY", "x", "g"), C("DEL", "x", "z"),
		)},
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
		{name: "sets", flags: "KEA", steps: cmds(
			C("SADD", "s", "a", "b", "c"),
			C("SADD", "s", "a"),
			C("SREM", "s", "zz"),
			C("SREM", "s", "a"),
			C("SREM", "nope", "a"),
			C("SMOVE", "s", "t", "b"),
			C("SMOVE", "s", "t", "zz"),
			C("SADD", "t", "c"),
			C("SMOVE", "s", "t", "c"),
			C("SMOVE", "t", "t", "c"),
			C("SADD", "p", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"),
			C("SPOP", "p").Ignore(),
			C("SPOP", "p", "0"),
			C("SPOP", "p", "2").Ignore(),
			C("SPOP", "p", "6").Ignore(),
			C("SPOP", "p", "100").Ignore(),
			C("SPOP", "nope"),
			C("SADD", "one", "x"),
			C("SPOP", "one"),
			C("SADD", "a", "1", "2"), C("SADD", "b", "2", "3"),
			C("SINTERSTORE", "d", "a", "b"),
			C("SINTERSTORE", "d", "a", "nope"),
			C("SINTERSTORE", "d", "a", "nope"),
			C("SUNIONSTORE", "d", "a", "b"),
			C("SDIFFSTORE", "d", "a", "b"),
			C("SDIFFSTORE", "d", "a", "a"),
			C("SINTER", "nope", "a"), C("SMEMBERS", "nope"), C("SCARD", "nope"), C("SISMEMBER", "nope", "x"),
			C("SRANDMEMBER", "nope"), C("SINTERCARD", "1", "nope"),
		)},
		{name: "hashes", flags: "KEA", steps: cmds(
			C("HSET", "h", "f", "v", "g", "w"),
			C("HSET", "h", "f", "v"),
			C("HMSET", "h", "f", "x"),
			C("HSETNX", "h", "f", "y"),
			C("HSETNX", "h", "n", "y"),
			C("HSETNX", "h2", "n", "y"),
			C("HINCRBY", "h", "c", "5"),
			C("HINCRBY", "h", "f", "5"),
			C("HINCRBY", "h3", "c", "1"),
			C("HINCRBYFLOAT", "h", "fl", "1.5"),
			C("HINCRBYFLOAT", "h4", "fl", "1.5"),
			C("HDEL", "h", "nope"),
			C("HDEL", "h", "f", "g"),
			C("HDEL", "h2", "n"),
			C("HDEL", "nope", "n"),
			C("HGET", "nope", "f"), C("HGETALL", "nope"), C("HLEN", "nope"), C("HEXISTS", "nope", "f"),
		)},
		{name: "sorted sets", flags: "KEA", steps: cmds(
			C("ZADD", "z", "1", "a", "2", "b"),
			C("ZADD", "z", "1", "a"),
			C("ZADD", "z", "5", "a"),
			C("ZADD", "z", "NX", "6", "a"),
			C("ZADD", "z", "XX", "6", "new"),
			C("ZADD", "z", "XX", "CH", "7", "a"),
			C("ZADD", "z", "GT", "1", "a"),
			C("ZADD", "z", "INCR", "1", "a"),
			C("ZADD", "nope", "XX", "1", "a"),
			C("ZINCRBY", "z", "2", "b"),
			C("ZINCRBY", "z", "0", "b"),
			C("ZINCRBY", "zi", "1", "m"),
			C("ZADD", "z", "INCR", "GT", "-1", "a"),
			C("ZADD", "z", "3", "c", "4", "d", "5", "e"),
			C("ZREM", "z", "nope"),
			C("ZREM", "z", "c"),
			C("ZREMRANGEBYSCORE", "z", "100", "200"),
			C("ZREMRANGEBYSCORE", "z", "4", "4"),
			C("ZREMRANGEBYRANK", "z", "0", "0"),
			C("ZADD", "lx", "0", "a", "0", "b", "0", "c"),
			C("ZREMRANGEBYLEX", "lx", "[a", "[b"),
			C("ZREMRANGEBYLEX", "lx", "[a", "[c"),
			C("ZADD", "p", "1", "a", "2", "b", "3", "c", "4", "d"),
			C("ZPOPMIN", "p"),
			C("ZPOPMAX", "p", "0"),
			C("ZPOPMAX", "p", "1"),
			C("ZPOPMIN", "nope"),
			C("ZMPOP", "2", "nope", "p", "MIN", "COUNT", "5"),
			C("ZADD", "p", "1", "a", "2", "b"),
			C("BZPOPMIN", "nope", "p", "0"),
			C("BZPOPMAX", "p", "0"),
			C("ZADD", "p", "1", "a", "2", "b"),
			C("BZMPOP", "0", "1", "p", "MAX"),
			C("ZREMRANGEBYRANK", "p", "0", "-1"),
			C("ZADD", "s1", "1", "a", "2", "b"), C("ZADD", "s2", "3", "b"),
			C("ZUNIONSTORE", "d", "2", "s1", "s2"),
			C("ZINTERSTORE", "d", "2", "s1", "s2"),
			C("ZDIFFSTORE", "d", "2", "s1", "s2"),
			C("ZDIFFSTORE", "d", "2", "s1", "s1"),
			C("ZDIFFSTORE", "d", "2", "s1", "s1"),
			C("ZRANGESTORE", "d", "s1", "0", "-1"),
			C("ZRANGESTORE", "d", "s1", "5", "6"),
			C("ZRANGESTORE", "d", "nope", "0", "-1"),
			C("ZSCORE", "nope", "a"), C("ZRANGE", "nope", "0", "-1"), C("ZCARD", "nope"), C("ZRANK", "nope", "a"),
			C("ZUNION", "2", "nope", "s1"), C("ZRANDMEMBER", "nope"),
		)},
		{name: "blocked zset pop served", flags: "KEA", steps: cmds(
			C("BZPOPMIN", "bz", "0").On(2).NoReply(),
			C("ZADD", "bz", "1", "a", "2", "b"),
			Recv().On(2),
			C("BZMPOP", "0", "1", "bz", "MIN", "COUNT", "5").On(2),
		)},
		{name: "bitmaps hll geo sort", flags: "KEA", steps: cmds(
			C("SETBIT", "b", "7", "1"),
			C("SETBIT", "b", "7", "1"),
			C("SETBIT", "b", "7", "0"),
			C("SETBIT", "b", "100", "0"),
			C("BITFIELD", "bf", "SET", "u8", "0", "1"),
			C("BITFIELD", "bf", "SET", "u8", "0", "1"),
			C("BITFIELD", "bf", "INCRBY", "u8", "0", "1", "GET", "u4", "0"),
			C("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "255"),
			C("BITFIELD", "bf", "GET", "u8", "0"),
			C("BITFIELD", "nope", "GET", "u8", "0"),
			C("BITFIELD_RO", "nope", "GET", "u8", "0"),
			C("SET", "x", "ab"), C("SET", "y", "cd"),
			C("BITOP", "AND", "dst", "x", "y"),
			C("BITOP", "OR", "dst", "nope", "nope2"),
			C("BITOP", "OR", "dst", "nope", "nope2"),
			C("BITCOUNT", "nope"), C("GETBIT", "nope", "1"), C("BITPOS", "nope", "1"),
			C("PFADD", "h", "a", "b"),
			C("PFADD", "h", "a"),
			C("PFADD", "h2"),
			C("PFADD", "h2"),
			C("PFCOUNT", "h"),
			C("PFCOUNT", "nope"),
			C("PFCOUNT", "h", "nope"),
			C("PFMERGE", "hm", "h", "nope"),
			C("PFMERGE", "hm"),
			C("GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
			C("GEOADD", "g", "13.361389", "38.115556", "Palermo"),
			C("GEOADD", "g", "CH", "13.361389", "38.2", "Palermo"),
			C("GEOADD", "g", "NX", "13.361389", "38.3", "Palermo"),
			C("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "gs"),
			C("GEORADIUSBYMEMBER", "g", "Palermo", "1", "km", "STOREDIST", "gs"),
			C("GEOSEARCHSTORE", "gs2", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
			C("GEOSEARCHSTORE", "gs2", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
			C("GEOSEARCHSTORE", "gs2", "nope", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
			C("GEOPOS", "nope", "a"), C("GEODIST", "nope", "a", "b"), C("GEOHASH", "nope", "a"),
			C("GEOSEARCH", "nope", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
			C("RPUSH", "sl", "3", "1", "2"),
			C("SORT", "sl", "STORE", "so"),
			C("SORT", "sl", "BY", "w_*", "GET", "o_*", "STORE", "so"),
			C("SORT", "nope", "STORE", "so"),
			C("SORT", "nope", "STORE", "so"),
			C("SORT", "sl"),
			C("SORT", "nope"),
			C("SORT_RO", "nope"),
		)},
		{name: "new and keymiss", flags: "KEnm", steps: cmds(
			C("SET", "a", "1"),
			C("SET", "a", "2"),
			C("GET", "a"),
			C("GET", "nope"),
			C("MGET", "nope", "a", "nope2"),
			C("EXISTS", "nope"), C("TYPE", "nope"), C("TTL", "nope"), C("TOUCH", "nope"),
			C("OBJECT", "ENCODING", "nope"), C("OBJECT", "FREQ", "nope"),
			C("SET", "nope", "v", "XX"),
			C("DEL", "nope"),
			C("INCR", "n"), C("LPUSH", "l", "x"), C("SADD", "s", "x"), C("HSET", "h", "f", "v"),
			C("ZADD", "z", "1", "m"), C("PFADD", "p", "x"), C("SETBIT", "b", "1", "1"),
			C("APPEND", "ap", "x"), C("SETRANGE", "sr", "1", "x"), C("INCRBYFLOAT", "f", "1"),
			C("RENAME", "a", "a2"), C("MOVE", "a2", "1"), C("COPY", "n", "n2"), C("COPY", "n", "n3", "DB", "2"),
			C("LMOVE", "l", "l2", "LEFT", "LEFT"),
			C("SINTERSTORE", "si", "s", "nope"), C("SUNIONSTORE", "su", "s", "nope"),
			C("ZUNIONSTORE", "zu", "2", "z", "nope"), C("SORT", "nope", "STORE", "st"),
			C("SORT", "s", "ALPHA", "BY", "nope_*", "GET", "#", "GET", "nope_*", "STORE", "st"),
			C("BITOP", "OR", "bo", "b", "nope"), C("PFMERGE", "pm", "p", "nope"), C("PFCOUNT", "nope"), C("PFCOUNT", "nope", "p"),
			C("GETDEL", "nope"), C("GETEX", "nope", "EX", "10"), C("GETSET", "gs", "v"), C("SET", "gs2", "v", "GET"),
			C("DUMP", "nope"), C("LRANGE", "nope", "0", "1"), C("SRANDMEMBER", "nope"), C("HGETALL", "nope"),
			C("ZSCORE", "nope", "m"), C("ZRANGESTORE", "zr", "nope", "0", "-1"), C("GEOPOS", "nope", "m"),
			C("LPOP", "nope"), C("SPOP", "nope"), C("ZPOPMIN", "nope"), C("HDEL", "nope", "f"), C("SREM", "nope", "m"),
			C("EXPIRE", "nope", "1"), C("PERSIST", "nope"), C("LINSERT", "nope", "BEFORE", "a", "b"),
			C("BITFIELD", "nope", "GET", "u8", "0"), C("BITFIELD", "bfn", "SET", "u8", "0", "1"),
			C("BITCOUNT", "nope"), C("STRLEN", "nope"), C("LLEN", "nope"), C("SCARD", "nope"), C("ZCARD", "nope"),
			C("RESTORE", "rn", "0", str),
			C("SELECT", "3"), C("GET", "nope"), C("SET", "db3", "v"), C("SELECT", "0"),
		)},
		{name: "K only", flags: "Kg$", steps: cmds(
			C("SET", "a", "1"), C("EXPIRE", "a", "100"), C("LPUSH", "l", "x"), C("DEL", "a"),
		)},
		{name: "E only", flags: "Eg$", steps: cmds(
			C("SET", "a", "1"), C("EXPIRE", "a", "100"), C("LPUSH", "l", "x"), C("DEL", "a"),
		)},
		{name: "classes without K or E", flags: "A", steps: cmds(
			C("SET", "a", "1"), C("DEL", "a"),
		)},
		// One key per sleep: whether the active cycle or the access
		// reclaims it, the events before the access's sentinel are the same.
		{name: "expired lazily", flags: "KEAm", steps: cmds(
			C("SET", "a", "1", "PX", "1"), Sleep(5*time.Millisecond), C("GET", "a"),
			C("SET", "b", "1", "PX", "1"), Sleep(5*time.Millisecond), C("SET", "b", "2"),
			C("SET", "c", "1", "PX", "1"), Sleep(5*time.Millisecond), C("LPUSH", "c", "x"),
			C("HSET", "h", "f", "v"), C("PEXPIRE", "h", "5"), Sleep(10*time.Millisecond), C("HGET", "h", "f"),
			C("SET", "d", "1", "PX", "1"), Sleep(5*time.Millisecond), C("EXISTS", "d"),
		)},
		{name: "expired by the active cycle", flags: "Kx", activeExpiry: true, steps: cmds(
			C("SET", "a", "1", "PX", "30"),
			C("SELECT", "4"),
			C("SET", "b", "1", "PX", "30"),
			Sleep(400*time.Millisecond),
			C("PING"),
			C("SELECT", "0"),
		)},
		{name: "evicted", flags: "KEA", steps: cmds(
			C("SET", "persistent", "1"),
			C("SET", "volatile", "1", "EX", "1000"),
			C("CONFIG", "SET", "maxmemory-policy", "volatile-ttl", "maxmemory", "1"), joinStep,
			C("SET", "more", "1"),
			C("CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction"),
			C("EXISTS", "persistent", "volatile"),
		)},
		{name: "seed script", flags: "KEAmn", steps: cmds(
			C("SCRIPT", "LOAD", seedScript),
			C("EVALSHA", seedSHA, "1", "rl", "1000", "100", "2", "m1"),
			C("EVALSHA", seedSHA, "1", "rl", "1000", "100", "2", "m1"),
			C("EVALSHA", seedSHA, "1", "rl", "1001", "100", "2", "m2"),
			C("EVALSHA", seedSHA, "1", "rl", "1002", "100", "2", "m3"),
			C("EVALSHA", seedSHA, "1", "rl", "1150", "100", "2", "m4"),
			C("EVALSHA", seedSHA, "1", "rl", "1500", "100", "1", "m5"),
			C("EVALSHA", seedSHA, "1", "rl", "1500.5", "100", "5", "m6"),
			C("SET", "str", "x"),
			C("EVALSHA", seedSHA, "1", "str", "1000", "100", "2", "m1"),
		)},
	}
}

// TestRateLimitKeyEvents replays random sliding-window calls as
// TestRateLimitDifferential does: on Redis the seed script by EVALSHA, on
// limitkv each limiter form (RL.CHECK, the native and the interpreted
// EVALSHA paths), comparing the keyspace events of every call.
func TestRateLimitKeyEvents(t *testing.T) {
	requireServers(t)
	// Its own pair, with the active expiry cycle off on both (see
	// TestKeyspaceNotifications): a window's key that expires between
	// two calls then goes at the next access on both servers.
	rdsAddr, lkvAddr := debugPair(t, "yes")
	oldR, oldL := redisAddr, limitkvAddr
	redisAddr, limitkvAddr = rdsAddr, lkvAddr
	defer func() { redisAddr, limitkvAddr = oldR, oldL }()
	for _, addr := range []string{rdsAddr, lkvAddr} {
		c := dialRaw(t, "setup", addr)
		c.MustDo(t, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
		c.Close()
	}
	t.Cleanup(func() { resetNotify(t) })
	for _, form := range limiterForms {
		t.Run(form.name, func(t *testing.T) {
			seed := rlSeed(t)
			t.Logf("seed %d (rerun with LIMITKV_SEED=%d)", seed, seed)
			rnd := rand.New(rand.NewSource(seed))
			flushBoth(t)
			type side struct{ cmd, sub, pub *RawConn }
			var sides [2]side
			for i, addr := range []string{redisAddr, limitkvAddr} {
				name := []string{"redis", "limitkv"}[i]
				sides[i] = side{dialRaw(t, name, addr), dialRaw(t, name, addr), dialRaw(t, name, addr)}
				sides[i].cmd.MustDo(t, "CONFIG", "SET", "notify-keyspace-events", "KEAmn")
				sides[i].sub.MustDo(t, "PSUBSCRIBE", "__key*__:*")
			}
			rds, lkv := sides[0].cmd, sides[1].cmd
			rds.MustDo(t, "SCRIPT", "LOAD", seedScript)
			var lkvSHA string
			if form.load != "" {
				lkvSHA = lkv.MustDo(t, "SCRIPT", "LOAD", form.load).Str
			}
			events := func(s side) []string {
				s.pub.MustDo(t, "PUBLISH", notifySentinel, "s")
				var out []string
				for {
					r, err := s.sub.ReadReply()
					if err != nil {
						t.Fatalf("%s: reading events: %v", s.sub.Name, err)
					}
					if len(r.Elems) == 4 && r.Elems[2].Str == notifySentinel {
						return out
					}
					out = append(out, string(r.Raw))
				}
			}
			base := time.Now().UnixMilli()
			clock := int64(0)
			keys := []string{"rl:u1", "rl:u2"}
			fails := 0
			for step := 0; step < 300 && fails < 5; step++ {
				key := keys[rnd.Intn(len(keys))]
				switch p := rnd.Intn(100); {
				case p < 3:
					rds.MustDo(t, "DEL", key)
					lkv.MustDo(t, "DEL", key)
				case p < 5:
					// 5 ms, not 1: Redis's PEXPIRE reads the clock again
					// to see whether the deadline has passed, so with 1 ms
					// it deletes the key at once (a del event, no expire)
					// whenever the millisecond turns during the command.
					rds.MustDo(t, "PEXPIRE", key, "5")
					lkv.MustDo(t, "PEXPIRE", key, "5")
					time.Sleep(10 * time.Millisecond)
				case p < 10:
					clock -= rnd.Int63n(500)
				case p < 30:
				default:
					clock += rnd.Int63n(100)
				}
				now := strconv.FormatInt(base+clock, 10)
				window := strconv.FormatInt([]int64{50, 200, 1000}[rnd.Intn(3)], 10)
				limit := strconv.FormatInt([]int64{1, 2, 4}[rnd.Intn(3)], 10)
				member := now + ":" + strconv.Itoa(rnd.Intn(3))
				redisCmd := []string{"EVALSHA", seedSHA, "1", key, now, window, limit, member}
				lkvCmd := []string{"RL.CHECK", key, now, window, limit, member}
				if lkvSHA != "" {
					lkvCmd = []string{"EVALSHA", lkvSHA, "1", key, now, window, limit, member}
				}
				r, l := rds.MustDo(t, redisCmd...), lkv.MustDo(t, lkvCmd...)
				if string(r.Raw) != string(l.Raw) {
					fails++
					t.Errorf("step %d: %v: redis %q, limitkv %q", step, lkvCmd, r.Raw, l.Raw)
				}
				re, le := events(sides[0]), events(sides[1])
				if strings.Join(re, "") != strings.Join(le, "") {
					fails++
					t.Errorf("step %d: %v: events differ\n  redis:   %q\n  limitkv: %q", step, lkvCmd, re, le)
				}
			}
			for _, s := range sides {
				s.cmd.MustDo(t, "CONFIG", "SET", "notify-keyspace-events", "")
			}
		})
	}
}

// TestWatchFollowsKeyEvents: WATCH is invalidated exactly where Redis calls
// signalModifiedKey, which limitkv's handlers now say themselves (no reply
// is inspected): a few writes that change nothing, and a few whose reply
// does not show that they changed something.
func TestWatchFollowsKeyEvents(t *testing.T) {
	watch := func(name string, setup []Cmd, write Cmd) Case {
		cmds := append([]Cmd{}, setup...)
		cmds = append(cmds, C("WATCH", "k"), write.On(1), C("MULTI"), C("PING"), C("EXEC"))
		return Case{Name: name, Cmds: cmds}
	}
	runCases(t, []Case{
		watch("zadd same score", []Cmd{C("ZADD", "k", "1", "m")}, C("ZADD", "k", "1", "m")),
		watch("zadd new score", []Cmd{C("ZADD", "k", "1", "m")}, C("ZADD", "k", "2", "m")),
		watch("zincrby 0", []Cmd{C("ZADD", "k", "1", "m")}, C("ZINCRBY", "k", "0", "m")),
		watch("ltrim keeping all", []Cmd{C("RPUSH", "k", "a")}, C("LTRIM", "k", "0", "-1")),
		watch("hsetnx existing", []Cmd{C("HSET", "k", "f", "v")}, C("HSETNX", "k", "f", "w")),
		watch("hset same value", []Cmd{C("HSET", "k", "f", "v")}, C("HSET", "k", "f", "v")),
		watch("setrange empty", []Cmd{C("SET", "k", "v")}, C("SETRANGE", "k", "0", "")),
		watch("setbit same bit", []Cmd{C("SETBIT", "k", "1", "1")}, C("SETBIT", "k", "1", "1")),
		watch("pfcount recomputes", []Cmd{C("PFADD", "k", "a")}, C("PFCOUNT", "k")),
		watch("pfcount cached", []Cmd{C("PFADD", "k", "a"), C("PFCOUNT", "k")}, C("PFCOUNT", "k")),
		watch("getex without option", []Cmd{C("SET", "k", "v")}, C("GETEX", "k")),
		watch("getex persist without ttl", []Cmd{C("SET", "k", "v")}, C("GETEX", "k", "PERSIST")),
		watch("sinterstore into k", []Cmd{C("SADD", "a", "1")}, C("SINTERSTORE", "k", "a")),
		watch("sinterstore empty, k missing", nil, C("SINTERSTORE", "k", "nope")),
		watch("smove onto k", []Cmd{C("SADD", "a", "1")}, C("SMOVE", "a", "k", "1")),
		watch("rl.check as script", []Cmd{C("SCRIPT", "LOAD", seedScript)}, C("EVALSHA", seedSHA, "1", "k", "1000", "100", "5", "m")),
		watch("copy onto k", []Cmd{C("SET", "a", "1")}, C("COPY", "a", "k")),
		watch("lmove from k", []Cmd{C("RPUSH", "k", "a", "b")}, C("LMOVE", "k", "d", "LEFT", "LEFT")),
		watch("zrangestore into k", []Cmd{C("ZADD", "a", "1", "m")}, C("ZRANGESTORE", "k", "a", "0", "-1")),
		watch("georadius store elsewhere", []Cmd{C("GEOADD", "k", "13", "38", "p")}, C("GEORADIUS", "k", "13", "38", "10", "km", "STORE", "d")),
	})
}
