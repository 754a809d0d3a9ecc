package conformance

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Conformance of the list family: every command and option, every error
// path, OBJECT ENCODING (always "quicklist" in Redis 7.0), TTL interplay,
// WATCH no-ops, MULTI and EVAL, and the blocking pops and moves. The
// randomized differential test is in list_random_test.go.

// lBig builds an RPUSH of n elements "<prefix><i>".
func lBig(key, prefix string, n int) Cmd {
	args := []string{"RPUSH", key}
	for i := range n {
		args = append(args, prefix+strconv.Itoa(i))
	}
	c := C(args...)
	c.where = caller()
	return c
}

// lAll is an LRANGE of the whole list, the usual state check.
func lAll(key string) Cmd {
	c := C("LRANGE", key, "0", "-1")
	c.where = caller()
	return c
}

func TestListPush(t *testing.T) {
	runCases(t, []Case{
		{Name: "lpush rpush", Cmds: []Cmd{C("LPUSH", "k", "a", "b"), C("RPUSH", "k", "c", "d"), lAll("k"), C("LLEN", "k"), C("TYPE", "k")}},
		{Name: "binary and integers", Cmds: []Cmd{C("RPUSH", "k", "", "\x00\xff\r\n", "0", "-0", "01", "+1", "63", "64", "-1", "127", "128", "-129",
			"9223372036854775807", "-9223372036854775808", "9223372036854775808", "1700000000123", "1.5", " 1", strings.Repeat("x", 64), strings.Repeat("y", 200)),
			lAll("k"), C("LINDEX", "k", "5"), C("LPOS", "k", "-0"), C("LPOS", "k", "0"), C("LREM", "k", "0", "01"), lAll("k")}},
		{Name: "pushx", Cmds: []Cmd{C("LPUSHX", "k", "a"), C("RPUSHX", "k", "a", "b"), C("EXISTS", "k"), C("RPUSH", "k", "x"), C("LPUSHX", "k", "a", "b"),
			C("RPUSHX", "k", "c", "d"), lAll("k")}},
		{Name: "arity", Cmds: []Cmd{C("LPUSH"), C("LPUSH", "k"), C("RPUSH", "k"), C("LPUSHX", "k"), C("RPUSHX", "k"), C("LLEN"), C("LLEN", "a", "b")}},
		{Name: "wrong type", Cmds: []Cmd{C("SET", "s", "v"), C("LPUSH", "s", "a"), C("RPUSH", "s", "a"), C("LPUSHX", "s", "a"), C("RPUSHX", "s", "a"),
			C("LLEN", "s"), C("ZADD", "z", "1", "a"), C("LPUSH", "z", "a"), C("LRANGE", "s", "0", "-1"), C("LINDEX", "s", "0"), C("LSET", "s", "0", "x"),
			C("LINSERT", "s", "BEFORE", "a", "b"), C("LREM", "s", "0", "a"), C("LTRIM", "s", "0", "1"), C("LPOS", "s", "a"), C("LPOP", "s"), C("RPOP", "s", "2"),
			C("LMOVE", "s", "d", "LEFT", "LEFT"), C("RPUSH", "l", "x"), C("LMOVE", "l", "s", "LEFT", "RIGHT"), C("RPOPLPUSH", "l", "z"), lAll("l"),
			C("LMPOP", "2", "nokey", "s", "LEFT"), C("GET", "s"), C("ZADD", "l", "1", "a"), C("INCR", "l"), C("APPEND", "l", "x")}},
		{Name: "large lists", Cmds: []Cmd{lBig("k", "m", 2000), C("LPUSH", "k", "head"), C("LLEN", "k"), C("LINDEX", "k", "1000"), C("LINDEX", "k", "-1"),
			C("LRANGE", "k", "995", "1005"), C("LRANGE", "k", "-3", "-1"), C("LSET", "k", "1500", strings.Repeat("z", 9000)), C("LINDEX", "k", "1500"),
			C("LINSERT", "k", "AFTER", "m700", strings.Repeat("w", 5000)), C("LRANGE", "k", "699", "703"), C("LPOS", "k", "m1999"), C("LLEN", "k")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("RPUSH", "k", "a"), C("EXPIRE", "k", "100"), C("RPUSH", "k", "b"), C("TTL", "k").TTLApprox(1), C("LPOP", "k"),
			C("LSET", "k", "0", "x"), C("TTL", "k").TTLApprox(1)}},
	})
}

func TestListRead(t *testing.T) {
	abc := []Cmd{C("RPUSH", "k", "a", "b", "c", "d", "e")}
	runCases(t, []Case{
		{Name: "lrange", Cmds: append(abc, C("LRANGE", "k", "0", "2"), C("LRANGE", "k", "-2", "-1"), C("LRANGE", "k", "-100", "100"), C("LRANGE", "k", "3", "1"),
			C("LRANGE", "k", "5", "10"), C("LRANGE", "k", "-1", "-2"), C("LRANGE", "k", "2", "-100"), C("LRANGE", "k", "-9223372036854775808", "9223372036854775807"),
			C("LRANGE", "nokey", "0", "-1"), C("LRANGE", "k", "x", "1"), C("LRANGE", "k", "0", "1.5"), C("LRANGE", "nokey", "a", "b"),
			C("LRANGE", "k", "9223372036854775808", "1"), C("LRANGE", "k"), C("LRANGE", "k", "0", "1", "2"))},
		{Name: "lindex", Cmds: append(abc, C("LINDEX", "k", "0"), C("LINDEX", "k", "-1"), C("LINDEX", "k", "4"), C("LINDEX", "k", "5"), C("LINDEX", "k", "-6"),
			C("LINDEX", "k", "x"), C("LINDEX", "nokey", "x"), C("LINDEX", "nokey", "0"), C("LINDEX", "k", "-9223372036854775808"), C("LINDEX", "k"))},
		{Name: "llen", Cmds: append(abc, C("LLEN", "k"), C("LLEN", "nokey"))},
		{Name: "encoding", Cmds: append(abc, C("OBJECT", "ENCODING", "k"), lBig("b", "m", 1000), C("OBJECT", "ENCODING", "b"),
			C("RPUSH", "v", strings.Repeat("x", 100000)), C("OBJECT", "ENCODING", "v"))},
	})
}

func TestListWrite(t *testing.T) {
	abc := []Cmd{C("RPUSH", "k", "a", "b", "c", "b", "a")}
	runCases(t, []Case{
		{Name: "lset", Cmds: append(abc, C("LSET", "k", "0", "x"), C("LSET", "k", "-1", "y"), C("LSET", "k", "5", "z"), C("LSET", "k", "-6", "z"),
			C("LSET", "k", "x", "z"), C("LSET", "nokey", "0", "z"), C("LSET", "nokey", "x", "z"), C("LSET", "k", "1", "12345"), lAll("k"), C("LSET", "k", "0"))},
		{Name: "linsert", Cmds: append(abc, C("LINSERT", "k", "BEFORE", "b", "x"), C("LINSERT", "k", "after", "a", "y"), C("LINSERT", "k", "AFTER", "zz", "y"),
			C("LINSERT", "k", "middle", "a", "y"), C("LINSERT", "nokey", "BEFORE", "a", "y"), C("LINSERT", "nokey", "foo", "a", "y"),
			C("LINSERT", "k", "AFTER\x00x", "a", "q"), lAll("k"), C("LINSERT", "k", "BEFORE", "a"), C("EXISTS", "nokey"))},
		{Name: "lrem", Cmds: append(abc, C("LREM", "k", "1", "a"), lAll("k"), C("LREM", "k", "-1", "b"), lAll("k"), C("LREM", "k", "0", "zz"),
			C("LREM", "k", "x", "a"), C("LREM", "nokey", "0", "a"), C("LREM", "nokey", "x", "a"), C("LREM", "k", "0", "b"), C("LREM", "k", "-9223372036854775808", "a"),
			lAll("k"), C("LREM", "k", "0", "c"), C("EXISTS", "k"))},
		{Name: "ltrim", Cmds: append(abc, C("LTRIM", "k", "1", "-2"), lAll("k"), C("LTRIM", "k", "-100", "100"), lAll("k"), C("LTRIM", "k", "x", "1"),
			C("LTRIM", "nokey", "0", "1"), C("LTRIM", "k", "2", "1"), C("EXISTS", "k"), lBig("b", "m", 3000), C("LTRIM", "b", "1000", "1999"), C("LLEN", "b"),
			C("LRANGE", "b", "0", "1"), C("LRANGE", "b", "-1", "-1"), C("LTRIM", "b", "5", "5"), lAll("b"))},
		{Name: "lpop rpop", Cmds: append(abc, C("LPOP", "k"), C("RPOP", "k"), C("LPOP", "k", "2"), C("RPOP", "k", "0"), C("RPOP", "k", "5"), C("EXISTS", "k"),
			C("LPOP", "k"), C("LPOP", "k", "0"), C("LPOP", "k", "3"), C("RPOP", "k", "-1"), C("RPOP", "k", "x"), C("RPUSH", "k", "a"), C("LPOP", "k", "-1"),
			C("LPOP", "k", "1", "2"), C("RPOP"), C("LPOP", "k", "1"), C("SET", "s", "x"), C("LPOP", "s", "0"), C("LPOP", "s", "-1"))},
		{Name: "pop many", Cmds: []Cmd{lBig("k", "m", 3000), C("LPOP", "k", "1001").Check("len", lLenOnly), C("RPOP", "k", "3"), C("LLEN", "k"),
			C("RPOP", "k", "5000").Check("len", lLenOnly), C("EXISTS", "k")}},
	})
}

// lLenOnly compares long pop replies in full; the check exists only to
// keep the failure message short.
func lLenOnly(rds, lkv *Reply) error {
	if string(rds.Raw) != string(lkv.Raw) {
		return errString("replies differ (" + strconv.Itoa(len(rds.Raw)) + " vs " + strconv.Itoa(len(lkv.Raw)) + " bytes)")
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

func TestListLPos(t *testing.T) {
	k := []Cmd{C("RPUSH", "k", "a", "b", "c", "1", "2", "3", "c", "c")}
	runCases(t, []Case{
		{Name: "basic", Cmds: append(k, C("LPOS", "k", "c"), C("LPOS", "k", "x"), C("LPOS", "k", "c", "RANK", "2"), C("LPOS", "k", "c", "RANK", "-1"),
			C("LPOS", "k", "c", "RANK", "-3"), C("LPOS", "k", "c", "RANK", "4"), C("LPOS", "k", "c", "COUNT", "0"), C("LPOS", "k", "c", "COUNT", "2"),
			C("LPOS", "k", "c", "COUNT", "2", "RANK", "-1"), C("LPOS", "k", "c", "RANK", "2", "COUNT", "0"), C("LPOS", "k", "x", "COUNT", "0"),
			C("LPOS", "k", "c", "MAXLEN", "3"), C("LPOS", "k", "c", "MAXLEN", "2"), C("LPOS", "k", "c", "COUNT", "0", "MAXLEN", "7"),
			C("LPOS", "k", "c", "RANK", "-1", "MAXLEN", "1"), C("LPOS", "k", "1"), C("LPOS", "k", "c", "rank", "1", "count", "1", "maxlen", "0"))},
		{Name: "extreme ranks", Cmds: append(k, C("LPOS", "k", "c", "RANK", "-9223372036854775808"), C("LPOS", "k", "c", "RANK", "-9223372036854775808", "COUNT", "2"),
			C("LPOS", "k", "c", "RANK", "9223372036854775807"), C("LPOS", "k", "c", "RANK", "-9223372036854775807", "COUNT", "0"))},
		{Name: "missing key", Cmds: []Cmd{C("LPOS", "nokey", "a"), C("LPOS", "nokey", "a", "COUNT", "1"), C("LPOS", "nokey", "a", "RANK", "0")}},
		{Name: "errors", Cmds: append(k, C("LPOS", "k", "c", "RANK", "0"), C("LPOS", "k", "c", "RANK", "x"), C("LPOS", "k", "c", "COUNT", "-1"),
			C("LPOS", "k", "c", "COUNT", "x"), C("LPOS", "k", "c", "MAXLEN", "-1"), C("LPOS", "k", "c", "MAXLEN", "x"), C("LPOS", "k", "c", "RANK"),
			C("LPOS", "k", "c", "FOO", "1"), C("LPOS", "k", "c", "COUNT"), C("LPOS", "k"), C("LPOS", "k", "c", "RANK", "9223372036854775808"),
			C("LPOS", "k", "c", "RANK", "0", "COUNT", "-1"), C("LPOS", "k", "c", "COUNT", "-1", "RANK", "0"))},
	})
}

func TestListMove(t *testing.T) {
	runCases(t, []Case{
		{Name: "lmove directions", Cmds: []Cmd{C("RPUSH", "s", "a", "b", "c"), C("LMOVE", "s", "d", "LEFT", "LEFT"), C("LMOVE", "s", "d", "RIGHT", "RIGHT"),
			C("LMOVE", "s", "d", "left", "right"), lAll("d"), C("EXISTS", "s"), C("LMOVE", "s", "d", "LEFT", "LEFT"), C("LMOVE", "d", "d", "RIGHT", "LEFT"),
			lAll("d"), C("LMOVE", "d", "d", "LEFT", "LEFT"), lAll("d")}},
		{Name: "rotate one element", Cmds: []Cmd{C("RPUSH", "k", "a"), C("LMOVE", "k", "k", "LEFT", "RIGHT"), C("RPOPLPUSH", "k", "k"), lAll("k")}},
		{Name: "rpoplpush", Cmds: []Cmd{C("RPUSH", "s", "a", "b"), C("RPOPLPUSH", "s", "d"), C("RPOPLPUSH", "s", "d"), C("RPOPLPUSH", "s", "d"), lAll("d"),
			C("EXISTS", "s"), C("RPOPLPUSH", "s"), C("RPOPLPUSH", "s", "d", "x")}},
		{Name: "errors", Cmds: []Cmd{C("RPUSH", "s", "a"), C("LMOVE", "s", "d", "UP", "LEFT"), C("LMOVE", "s", "d", "LEFT", "DOWN"), C("LMOVE", "nokey", "d", "UP", "LEFT"),
			C("LMOVE", "nokey", "d", "LEFT", "LEFT"), C("SET", "str", "x"), C("LMOVE", "nokey", "str", "LEFT", "LEFT"), C("LMOVE", "s", "str", "LEFT", "LEFT"),
			lAll("s"), C("LMOVE", "s", "d", "LEFT"), C("LMOVE", "s", "d", "LEFT\x00x", "RIGHT")}},
		{Name: "lmpop", Cmds: []Cmd{C("RPUSH", "a", "1", "2", "3"), C("RPUSH", "b", "x", "y"), C("LMPOP", "2", "nokey", "a", "LEFT"), C("LMPOP", "2", "a", "b", "RIGHT", "COUNT", "5"),
			C("LMPOP", "1", "a", "LEFT"), C("LMPOP", "2", "a", "b", "LEFT", "COUNT", "1"), C("LMPOP", "1", "b", "left", "count", "9"), C("LMPOP", "1", "b", "LEFT")}},
		{Name: "lmpop errors", Cmds: []Cmd{C("RPUSH", "a", "1"), C("LMPOP"), C("LMPOP", "1"), C("LMPOP", "1", "a"), C("LMPOP", "0", "a", "LEFT"), C("LMPOP", "-1", "a", "LEFT"),
			C("LMPOP", "x", "a", "LEFT"), C("LMPOP", "2", "a", "LEFT"), C("LMPOP", "1", "a", "UP"), C("LMPOP", "1", "a", "LEFT", "COUNT"),
			C("LMPOP", "1", "a", "LEFT", "COUNT", "0"), C("LMPOP", "1", "a", "LEFT", "COUNT", "x"), C("LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"),
			C("LMPOP", "1", "a", "LEFT", "FOO"), C("LMPOP", "9223372036854775807", "a", "LEFT"), C("LMPOP", "5", "a", "b", "LEFT"), lAll("a")}},
	})
}

// TestListBlocking covers the blocking pops and moves: timeouts, clients
// woken by a write from another connection, served in the order they
// blocked, BLMOVE chains.
func TestListBlocking(t *testing.T) {
	wait := Sleep(25 * time.Millisecond)
	read := func(conn int) Cmd { return Raw("").On(conn) }
	runCases(t, []Case{
		{Name: "served at once", Cmds: []Cmd{C("RPUSH", "k", "a", "b", "c"), C("BLPOP", "nokey", "k", "0"), C("BRPOP", "k", "1"), C("BLMPOP", "0", "2", "nokey", "k", "LEFT", "COUNT", "3"),
			C("EXISTS", "k"), C("RPUSH", "k", "x", "y"), C("BLMOVE", "k", "d", "LEFT", "RIGHT", "0"), C("BRPOPLPUSH", "k", "d", "0"), lAll("d"), C("EXISTS", "k")}},
		{Name: "timeouts", Cmds: []Cmd{C("BLPOP", "k", "k2", "0.05"), C("BRPOP", "k", "0.05"), C("BLMPOP", "0.05", "2", "k", "k2", "RIGHT", "COUNT", "3"),
			C("BLMOVE", "k", "d", "LEFT", "LEFT", "0.05"), C("BRPOPLPUSH", "k", "d", "0.05"), C("BLPOP", "k", "0.0001")}},
		{Name: "timeout errors", Cmds: []Cmd{C("BLPOP", "k"), C("BLPOP", "k", "x"), C("BLPOP", "k", "-1"), C("BRPOP", "k", "-0.5"), C("BLPOP", "k", "nan"),
			C("BLPOP", "k", "inf"), C("BLPOP", "k", "1e400"), C("BLPOP", "k", ""), C("BLMOVE", "k", "d", "LEFT", "LEFT", "x"), C("BLMOVE", "k", "d", "LEFT", "LEFT", "-1"),
			C("BRPOPLPUSH", "k", "d", "x"), C("BRPOPLPUSH", "k", "d", "-1"), C("BLMPOP", "x", "1", "k", "LEFT"), C("BLMPOP", "-1", "1", "k", "LEFT")}},
		{Name: "argument errors", Cmds: []Cmd{C("SET", "s", "v"), C("BLPOP", "s", "0"), C("BLPOP", "nokey", "s", "0"), C("BRPOP", "s", "x"), C("RPUSH", "k", "a"),
			C("BLPOP", "s", "k", "0"), C("BLPOP", "k", "s", "0"), C("RPUSH", "k", "a"), C("BLMOVE", "s", "d", "LEFT", "LEFT", "0"), C("BLMOVE", "nokey", "s", "LEFT", "LEFT", "0.01"),
			C("BLMOVE", "k", "s", "LEFT", "LEFT", "0"), C("BLMOVE", "k", "d", "UP", "LEFT", "x"), C("BLMOVE", "k", "d", "LEFT", "UP", "0"), C("BRPOPLPUSH", "s", "d", "0"),
			C("BLMPOP"), C("BLMPOP", "0"), C("BLMPOP", "0", "1", "k"), C("BLMPOP", "0", "0", "k", "LEFT"), C("BLMPOP", "x", "0", "k", "LEFT"), C("BLMPOP", "x", "1", "k", "foo"),
			C("BLMPOP", "x", "1", "k", "LEFT", "COUNT", "0"), C("BLMPOP", "x", "2", "k", "LEFT"), C("BLMPOP", "0", "1", "s", "LEFT"), lAll("k")}},
		{Name: "woken by rpush", Cmds: []Cmd{C("BLPOP", "k", "k2", "5").NoReply(), wait, C("RPUSH", "k2", "a", "b").On(1), read(0), lAll("k2").On(1)}},
		{Name: "woken brpop", Cmds: []Cmd{C("BRPOP", "k", "0").NoReply(), wait, C("LPUSH", "k", "a", "b").On(1), read(0), lAll("k").On(1)}},
		{Name: "woken blmpop", Cmds: []Cmd{C("BLMPOP", "5", "2", "k", "k2", "RIGHT", "COUNT", "2").NoReply(), wait, C("RPUSH", "k2", "a", "b", "c").On(1), read(0), lAll("k2").On(1)}},
		{Name: "woken blmove", Cmds: []Cmd{C("BLMOVE", "k", "d", "RIGHT", "LEFT", "5").NoReply(), wait, C("RPUSH", "k", "a", "b").On(1), read(0), lAll("k").On(1), lAll("d").On(1)}},
		{Name: "woken brpoplpush onto wrong type", Cmds: []Cmd{C("SET", "d", "x"), C("BRPOPLPUSH", "k", "d", "5").NoReply(), wait, C("RPUSH", "k", "a").On(1), read(0), lAll("k").On(1)}},
		{Name: "three clients served in order", Cmds: []Cmd{C("BRPOP", "q", "5").NoReply(), wait, C("BLMPOP", "5", "1", "q", "LEFT", "COUNT", "2").On(1).NoReply(), wait,
			C("BLPOP", "q", "5").On(2).NoReply(), wait, C("RPUSH", "q", "a", "b", "c", "d").On(3), read(0), read(1), read(2), C("EXISTS", "q").On(3)}},
		{Name: "second client waits for the next push", Cmds: []Cmd{C("BLPOP", "r", "5").NoReply(), wait, C("BLPOP", "r", "5").On(1).NoReply(), wait,
			C("RPUSH", "r", "a").On(2), read(0), C("EXISTS", "r").On(2), C("RPUSH", "r", "b").On(2), read(1)}},
		{Name: "blmove chain wakes the next waiter", Cmds: []Cmd{C("BLPOP", "d", "5").NoReply(), wait, C("BLMOVE", "s", "d", "LEFT", "RIGHT", "5").On(1).NoReply(), wait,
			C("RPUSH", "s", "x", "y").On(2), read(1), read(0), lAll("s").On(2), C("EXISTS", "d").On(2)}},
		{Name: "blmove onto the same key", Cmds: []Cmd{C("BLMOVE", "k", "k", "LEFT", "RIGHT", "5").NoReply(), wait, C("RPUSH", "k", "a", "b").On(1), read(0), lAll("k").On(1)}},
		{Name: "wrong type key then push", Cmds: []Cmd{C("BLPOP", "s", "t", "5").NoReply(), wait, C("SET", "s", "x").On(1), C("ZADD", "s2", "1", "a").On(1),
			C("RPUSH", "t", "a").On(1), read(0)}},
		{Name: "zadd on the key does not serve a list waiter", Cmds: []Cmd{C("BLPOP", "s", "0.2").NoReply(), wait, C("ZADD", "s", "1", "a").On(1), read(0),
			C("BLMOVE", "m", "d", "LEFT", "LEFT", "0.2").NoReply(), wait, C("ZADD", "m", "1", "a").On(1), read(0)}},
		{Name: "rename copy move onto the key", Cmds: []Cmd{C("RPUSH", "src", "a", "b"), C("BLPOP", "k", "5").NoReply(), wait, C("RENAME", "src", "k").On(1), read(0),
			C("RPUSH", "src", "c"), C("BRPOP", "j", "5").NoReply(), wait, C("COPY", "k", "j").On(1), read(0), lAll("k").On(1),
			C("SELECT", "1").On(2), C("BLPOP", "src", "5").On(2).NoReply(), wait, C("MOVE", "src", "1").On(1), read(2), C("EXISTS", "src").On(1)}},
		{Name: "push and pop in multi keeps waiting", Cmds: []Cmd{C("BLPOP", "u", "0.2").NoReply(), wait, C("MULTI").On(1), C("RPUSH", "u", "a").On(1),
			C("LPOP", "u").On(1), C("EXEC").On(1), read(0)}},
		{Name: "multi and script do not block", Cmds: []Cmd{C("MULTI"), C("BLPOP", "nokey", "0"), C("BRPOP", "nokey", "0"), C("BLMPOP", "0", "1", "nokey", "LEFT"),
			C("BLMOVE", "nokey", "d", "LEFT", "LEFT", "0"), C("BRPOPLPUSH", "nokey", "d", "0"), C("EXEC"),
			C("EVAL", "return redis.call('blmpop', '0', '1', 'nokey', 'left')", "0"), C("EVAL", "return redis.call('blpop', 'nokey', '0')", "0"),
			C("EVAL", "return redis.call('blmove', 'nokey', 'd', 'left', 'left', '0')", "0")}},
		{Name: "served from the key that became ready", Cmds: []Cmd{C("BLPOP", "ka", "kb", "5").NoReply(), wait, C("MULTI").On(1), C("RPUSH", "kb", "x").On(1),
			C("RPUSH", "ka", "y").On(1), C("EXEC").On(1), read(0), lAll("ka").On(1)}},
		{Name: "blmpop served from the key that became ready", Cmds: []Cmd{C("BLMPOP", "5", "2", "ka", "kb", "RIGHT", "COUNT", "5").NoReply(), wait, C("MULTI").On(1),
			C("RPUSH", "kb", "x", "z").On(1), C("RPUSH", "ka", "y").On(1), C("EXEC").On(1), read(0), lAll("ka").On(1), lAll("kb").On(1)}},
		{Name: "waiter outlives its timeout sibling", Cmds: []Cmd{C("BLPOP", "r", "0.1").NoReply(), C("BLPOP", "r", "5").On(1).NoReply(),
			Sleep(200 * time.Millisecond), read(0), C("RPUSH", "r", "a").On(2), read(1)}},
		{Name: "served blmove invalidates a watch on its destination", Cmds: []Cmd{C("BLMOVE", "s", "d", "LEFT", "LEFT", "5").NoReply(), wait,
			C("WATCH", "d").On(2), C("RPUSH", "s", "a").On(1), read(0), C("MULTI").On(2), C("PING").On(2), C("EXEC").On(2)}},
		{Name: "served blpop invalidates a watch on its key only", Cmds: []Cmd{C("BLPOP", "s", "t", "5").NoReply(), wait, C("WATCH", "t").On(2),
			C("RPUSH", "s", "a", "b").On(1), read(0), C("MULTI").On(2), C("PING").On(2), C("EXEC").On(2)}},
		{Name: "same key twice", Cmds: []Cmd{C("BLPOP", "k", "k", "5").NoReply(), wait, C("RPUSH", "k", "a", "b").On(1), read(0), lAll("k").On(1),
			C("BLMPOP", "0.05", "2", "k2", "k2", "LEFT")}},
		{Name: "served in multi", Cmds: []Cmd{C("RPUSH", "k", "a", "b"), C("MULTI"), C("BLPOP", "k", "0"), C("BLMOVE", "k", "k", "LEFT", "LEFT", "0"), C("BRPOP", "k", "0"),
			C("BRPOP", "k", "0"), C("EXEC")}},
	})
}

func TestListTTL(t *testing.T) {
	runCases(t, []Case{
		{Name: "expired before read", Cmds: []Cmd{C("RPUSH", "k", "a", "b"), C("PEXPIRE", "k", "40"), C("LLEN", "k"), Sleep(80 * time.Millisecond),
			C("LLEN", "k"), lAll("k"), C("LINDEX", "k", "0"), C("EXISTS", "k"), C("RPUSHX", "k", "a"), C("LSET", "k", "0", "x"), C("TTL", "k")}},
		{Name: "expired then recreated has no ttl", Cmds: []Cmd{C("RPUSH", "k", "a"), C("PEXPIRE", "k", "30"), Sleep(60 * time.Millisecond),
			C("LPUSH", "k", "b"), lAll("k"), C("TTL", "k")}},
		{Name: "emptied key loses ttl", Cmds: []Cmd{C("RPUSH", "k", "a"), C("EXPIRE", "k", "100"), C("LPOP", "k"), C("TTL", "k"), C("RPUSH", "k", "a"), C("TTL", "k")}},
		{Name: "move keeps source ttl", Cmds: []Cmd{C("RPUSH", "k", "a", "b"), C("EXPIRE", "k", "100"), C("LMOVE", "k", "d", "LEFT", "LEFT"), C("TTL", "k").TTLApprox(1),
			C("TTL", "d"), C("LTRIM", "k", "0", "0"), C("TTL", "k").TTLApprox(1)}},
		{Name: "blocking pop on expired key times out", Cmds: []Cmd{C("RPUSH", "k", "a"), C("PEXPIRE", "k", "30"), Sleep(60 * time.Millisecond), C("BLPOP", "k", "0.05")}},
	})
}

func TestListTransactionsAndScripts(t *testing.T) {
	runCases(t, []Case{
		{Name: "multi", Cmds: []Cmd{C("MULTI"), C("RPUSH", "k", "a", "b"), C("LPOP", "k"), C("LSET", "k", "5", "x"), C("LPOS", "k", "b"), C("LRANGE", "k", "0", "-1"),
			C("EXEC")}},
		{Name: "multi queue errors", Cmds: []Cmd{C("MULTI"), C("RPUSH", "k"), C("LPOP", "k"), C("EXEC"), C("EXISTS", "k")}},
		{Name: "eval", Cmds: []Cmd{C("EVAL", "redis.call('rpush', KEYS[1], 'a', 'b', '3'); return redis.call('lrange', KEYS[1], 0, -1)", "1", "k"),
			C("EVAL", "return redis.call('lpop', KEYS[1], 5)", "1", "k"), C("EVAL", "return redis.call('lpop', KEYS[1])", "1", "k"),
			C("EVAL", "return redis.call('lpop', KEYS[1], 2)", "1", "k"), C("EVAL", "return redis.call('lpos', KEYS[1], 'a')", "1", "k"),
			C("EVAL", "return redis.pcall('lset', KEYS[1], 0, 'x')", "1", "k"), C("EVAL", "redis.call('rpush', KEYS[1], 7); return redis.call('lindex', KEYS[1], 0)", "1", "k"),
			C("EVAL", "return redis.call('lmpop', 1, KEYS[1], 'left')", "1", "k"), C("EVAL", "return redis.call('lmpop', 1, KEYS[1], 'left')", "1", "k"),
			C("EVAL", "return redis.call('brpoplpush', 'a', 'b', 0)", "0"), C("EVAL", "return redis.call('blpop', 'a', 0)", "0")}},
	})
}

// TestListWatch checks which writes invalidate a WATCH: only those that
// changed something, and only the keys they changed.
func TestListWatch(t *testing.T) {
	l := []Cmd{C("RPUSH", "k", "a", "b")}
	runCases(t, []Case{
		zsWatchCase("rpush", l, C("RPUSH", "k", "c")),
		zsWatchCase("lpushx missing", nil, C("LPUSHX", "k", "c")),
		zsWatchCase("lpushx", l, C("LPUSHX", "k", "c")),
		zsWatchCase("linsert no pivot", l, C("LINSERT", "k", "BEFORE", "zz", "c")),
		zsWatchCase("linsert", l, C("LINSERT", "k", "BEFORE", "a", "c")),
		zsWatchCase("lrem none", l, C("LREM", "k", "0", "zz")),
		zsWatchCase("lrem", l, C("LREM", "k", "0", "a")),
		zsWatchCase("ltrim nothing trimmed", l, C("LTRIM", "k", "0", "-1")),
		zsWatchCase("ltrim missing", nil, C("LTRIM", "k", "0", "-1")),
		zsWatchCase("lset", l, C("LSET", "k", "0", "a")),
		zsWatchCase("lset error", l, C("LSET", "k", "9", "a")),
		zsWatchCase("lpop zero", l, C("LPOP", "k", "0")),
		zsWatchCase("lpop missing", nil, C("LPOP", "k")),
		zsWatchCase("rpop", l, C("RPOP", "k")),
		zsWatchCase("lmove to d", l, C("LMOVE", "x", "d", "LEFT", "LEFT"), C("RPUSH", "x", "1"), C("LMOVE", "x", "d", "LEFT", "LEFT")),
		zsWatchCase("lmove missing source", nil, C("LMOVE", "x", "k", "LEFT", "LEFT")),
		zsWatchCase("lmpop other key", append(l, C("RPUSH", "k2", "x")), C("LMPOP", "2", "k2", "k", "LEFT")),
		zsWatchCase("lmpop", l, C("LMPOP", "2", "k2", "k", "LEFT")),
		zsWatchCase("lmpop nothing", l, C("LMPOP", "1", "k2", "LEFT")),
		zsWatchCase("blpop other key", append(l, C("RPUSH", "k2", "x")), C("BLPOP", "k2", "k", "0")),
		zsWatchCase("blpop", l, C("BLPOP", "k2", "k", "0")),
		zsWatchCase("blmpop", l, C("BLMPOP", "0", "2", "k2", "k", "LEFT")),
		zsWatchCase("brpoplpush", l, C("BRPOPLPUSH", "k", "k2", "0")),
		zsWatchCase("blocking pops of nothing in multi", nil, C("MULTI"), C("BLPOP", "k", "0"), C("BLMPOP", "0", "1", "k", "LEFT"),
			C("BLMOVE", "k", "d", "LEFT", "LEFT", "0"), C("EXEC")),
		zsWatchCase("reads", l, C("LRANGE", "k", "0", "-1"), C("LLEN", "k"), C("LINDEX", "k", "0"), C("LPOS", "k", "a")),
	})
}

func TestListConfig(t *testing.T) {
	runCases(t, []Case{
		{Name: "list-max-listpack-size", Cmds: []Cmd{C("CONFIG", "GET", "list-max-listpack-size"), C("CONFIG", "GET", "list-max-ziplist-size"),
			C("CONFIG", "SET", "list-max-listpack-size", "3"), lBig("k", "m", 20), C("LINSERT", "k", "AFTER", "m5", "x"), C("LSET", "k", "2", strings.Repeat("y", 10000)),
			lAll("k"), C("OBJECT", "ENCODING", "k"), C("CONFIG", "GET", "list-max-ziplist-size"), C("CONFIG", "SET", "list-max-ziplist-size", "-5"),
			C("CONFIG", "GET", "list-max-listpack-size"), C("CONFIG", "SET", "list-max-listpack-size", "x"), C("CONFIG", "SET", "list-max-listpack-size", "2147483648"),
			C("CONFIG", "SET", "list-max-listpack-size", "-2147483649"), C("CONFIG", "SET", "list-max-listpack-size", "-2147483648"),
			C("CONFIG", "SET", "list-max-listpack-size", "0"), lBig("j", "m", 5), lAll("j"), C("CONFIG", "SET", "list-max-listpack-size", "-2"),
			C("CONFIG", "GET", "list-max-*").PairsUnordered()}},
		{Name: "old list settings", Cmds: []Cmd{C("CONFIG", "SET", "list-max-ziplist-entries", "5"), C("CONFIG", "SET", "list-max-ziplist-value", "5"),
			C("CONFIG", "GET", "list-max-ziplist-entries"), C("CONFIG", "GET", "list-compress-*")}},
		{Name: "list-compress-depth", Cmds: []Cmd{C("CONFIG", "GET", "list-compress-depth"), C("CONFIG", "SET", "list-compress-depth", "1"), lBig("k", "m", 3000),
			C("LINDEX", "k", "1500"), C("CONFIG", "SET", "list-compress-depth", "-1"), C("CONFIG", "SET", "list-compress-depth", "x"),
			C("CONFIG", "SET", "list-compress-depth", "2147483648"), C("CONFIG", "SET", "list-compress-depth", "0"), C("CONFIG", "GET", "list-compress-depth")}},
	})
}
