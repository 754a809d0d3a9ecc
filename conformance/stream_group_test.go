package conformance

import (
	"testing"
	"time"
)

// Consumer groups, XREAD/XREADGROUP (blocking too) and XINFO. Delivery
// times come from each server's clock: replies holding them are compared
// with timeLoose (L), and XCLAIM TIME pins them where exact values matter.

func TestStreamGroups(t *testing.T) {
	base := xcat(xadds("s", 1, 5), []Cmd{C("XGROUP", "CREATE", "s", "g", "0")})
	runCases(t, []Case{
		{Name: "xgroup", Cmds: xcat(xadds("s", 1, 3), []Cmd{C("XGROUP", "CREATE", "s", "g", "0"), C("XGROUP", "CREATE", "s", "g", "$"), C("XGROUP", "CREATE", "s", "g2", "$", "ENTRIESREAD", "3"),
			C("XGROUP", "CREATE", "s", "g3", "2-1", "MKSTREAM", "ENTRIESREAD", "-1"), C("XGROUP", "CREATE", "s", "g4", "x"), C("XGROUP", "CREATE", "s", "g4", "-"),
			C("XGROUP", "CREATE", "s", "g4", "0", "ENTRIESREAD", "-2"), C("XGROUP", "CREATE", "s", "g4", "0", "ENTRIESREAD", "x"), C("XGROUP", "CREATE", "s", "g4", "0", "FOO"),
			C("XGROUP", "CREATE", "s", "g4", "0", "ENTRIESREAD"), C("XGROUP", "CREATE", "nokey", "g", "0"), C("XGROUP", "CREATE", "nokey", "g", "$", "MKSTREAM"),
			C("XGROUP", "CREATE", "nokey2", "g", "x", "MKSTREAM"), C("EXISTS", "nokey2"), C("XINFO", "STREAM", "nokey"), C("XINFO", "GROUPS", "s"),
			C("XGROUP", "SETID", "s", "g", "2-1"), C("XGROUP", "SETID", "s", "g", "$", "ENTRIESREAD", "3"), C("XGROUP", "SETID", "s", "g2", "-"),
			C("XGROUP", "SETID", "s", "g3", "+"), C("XGROUP", "SETID", "s", "nog", "0"), C("XGROUP", "SETID", "nokey3", "g", "0"), C("XGROUP", "SETID", "s", "g", "x"),
			C("XGROUP", "SETID", "s", "g", "0", "MKSTREAM"), C("XGROUP", "SETID", "s", "g", "0", "ENTRIESREAD"), C("XINFO", "GROUPS", "s"),
			C("XGROUP", "CREATECONSUMER", "s", "g", "c1"), C("XGROUP", "CREATECONSUMER", "s", "g", "c1"), C("XGROUP", "CREATECONSUMER", "s", "nog", "c1"),
			C("XGROUP", "CREATECONSUMER", "nokey3", "g", "c1"), C("XGROUP", "DELCONSUMER", "s", "g", "c1"), C("XGROUP", "DELCONSUMER", "s", "g", "c1"),
			C("XGROUP", "DELCONSUMER", "s", "nog", "c1"), C("XGROUP", "DESTROY", "s", "g"), C("XGROUP", "DESTROY", "s", "g"), C("XGROUP", "DESTROY", "nokey3", "g"),
			C("XGROUP", "HELP"), C("XGROUP", "HELP", "x"), C("XGROUP", "FOO"), C("XGROUP", "FOO", "s", "g"), C("XGROUP"), C("XGROUP", "CREATE", "s"),
			C("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM", "ENTRIESREAD", "1", "MKSTREAM"), C("XGROUP", "DESTROY", "s", "g", "x"), C("XGROUP", "CREATECONSUMER", "s", "g"),
			C("XINFO", "GROUPS", "s")})},
		{Name: "readgroup and pending", Cmds: append(base, C("XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "s", ">"),
			C("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">"), C("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">"),
			C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0"), C("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "s", "1-1"),
			C("XREADGROUP", "GROUP", "g", "c3", "STREAMS", "s", "0"), C("XPENDING", "s", "g"), L("XPENDING", "s", "g", "-", "+", "10"),
			L("XPENDING", "s", "g", "-", "+", "10", "c1"), C("XPENDING", "s", "g", "-", "+", "10", "nocons"), L("XPENDING", "s", "g", "(1-1", "(5-1", "2"),
			C("XPENDING", "s", "g", "-", "+", "0"), C("XPENDING", "s", "g", "-", "+", "-5"), C("XPENDING", "s", "g", "IDLE", "100000", "-", "+", "10"),
			L("XPENDING", "s", "g", "IDLE", "0", "-", "+", "10", "c2"), C("XPENDING", "s", "g", "IDLE", "x", "-", "+", "10"), C("XPENDING", "s", "g", "IDLE", "5", "-", "+"),
			C("XPENDING", "s", "g", "-", "+"), C("XPENDING", "s", "g", "-", "+", "x"), C("XPENDING", "s", "g", "x", "+", "1"), C("XPENDING", "s", "g", "(+", "+", "1"),
			C("XPENDING", "s", "nog"), C("XPENDING", "nokey", "g"), C("XPENDING", "nokey", "g", "x", "+", "1"), C("XPENDING", "s", "g", "-", "+", "1", "c", "x", "y"),
			C("XACK", "s", "g", "1-1", "1-1", "9-9"), C("XACK", "s", "g", "x"), C("XACK", "s", "nog", "x"), C("XACK", "nokey", "g", "x"), C("XPENDING", "s", "g"),
			C("XDEL", "s", "3-1"), C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0"), L("XINFO", "CONSUMERS", "s", "g"), C("XINFO", "GROUPS", "s"),
			C("XGROUP", "DELCONSUMER", "s", "g", "c2"), C("XPENDING", "s", "g"))},
		{Name: "readgroup noack and errors", Cmds: append(base, C("XREADGROUP", "GROUP", "g", "c1", "NOACK", "STREAMS", "s", ">"), C("XPENDING", "s", "g"),
			C("XINFO", "GROUPS", "s"), C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "$"), C("XREADGROUP", "GROUP", "nog", "c1", "STREAMS", "s", ">"),
			C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "nokey", ">"), C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s"), C("XREADGROUP", "STREAMS", "s", ">", "x", "y"),
			C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "x"), C("XREADGROUP", "GROUP", "g", "c1", "COUNT", "x", "STREAMS", "s", ">"),
			C("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "x", "STREAMS", "s", ">"), C("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "-1", "STREAMS", "s", ">"),
			C("XREADGROUP", "GROUP", "g", "c1", "FOO", "STREAMS", "s", ">"), C("XREADGROUP", "GROUP", "g", "STREAMS", "s", ">"),
			C("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "10", "STREAMS", "s", ">"), C("XREADGROUP", "GROUP", "g", "c1", "COUNT", "-3", "STREAMS", "s", "0"),
			C("XADD", "s", "6-1", "a", "b"), C("XGROUP", "CREATE", "s", "g2", "0"), C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "s", ">", ">"),
			C("XREADGROUP", "GROUP", "g2", "c1", "COUNT", "1", "STREAMS", "s", "s", ">", "0"), C("XINFO", "GROUPS", "s"))},
		{Name: "claim", Cmds: append(base, C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">"), C("XCLAIM", "s", "g", "c2", "0", "1-1", "2-1", "TIME", "1000", "RETRYCOUNT", "7"),
			C("XINFO", "STREAM", "s", "FULL").Check("timeLoose", timeLoose(200)), C("XCLAIM", "s", "g", "c2", "3600000", "1-1", "3-1"), C("XCLAIM", "s", "g", "c3", "0", "3-1", "JUSTID"),
			C("XCLAIM", "s", "g", "c3", "0", "1-1", "FORCE", "JUSTID", "LASTID", "9-9"), C("XINFO", "GROUPS", "s"), C("XACK", "s", "g", "4-1"),
			C("XCLAIM", "s", "g", "c3", "0", "4-1", "JUSTID"), C("XCLAIM", "s", "g", "c3", "0", "4-1", "FORCE", "JUSTID", "RETRYCOUNT", "3", "IDLE", "5000"),
			L("XPENDING", "s", "g", "4-1", "4-1", "1"), C("XDEL", "s", "5-1"), C("XCLAIM", "s", "g", "c3", "0", "5-1"), C("XPENDING", "s", "g"),
			C("XCLAIM", "s", "g", "c3", "x", "1-1"), C("XCLAIM", "s", "g", "c3", "0", "1-1", "IDLE", "x"), C("XCLAIM", "s", "g", "c3", "0", "1-1", "TIME", "x"),
			C("XCLAIM", "s", "g", "c3", "0", "1-1", "RETRYCOUNT", "x"), C("XCLAIM", "s", "g", "c3", "0", "1-1", "LASTID", "x"), C("XCLAIM", "s", "g", "c3", "0", "1-1", "FOO"),
			C("XCLAIM", "s", "g", "c3", "0", "1-1", "IDLE"), C("XCLAIM", "s", "nog", "c3", "0", "1-1"), C("XCLAIM", "nokey", "g", "c3", "x", "1-1"),
			C("XCLAIM", "s", "g", "c3", "0", "x", "1-1"), C("XCLAIM", "s", "g", "c4", "0", "99-1", "FORCE"), C("XCLAIM", "s", "g", "c4", "-5", "2-1", "TIME", "-5", "JUSTID"),
			L("XPENDING", "s", "g", "-", "+", "10"), C("XINFO", "GROUPS", "s"))},
		{Name: "autoclaim", Cmds: append(base, C("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">"), C("XAUTOCLAIM", "s", "g", "c2", "0", "0", "COUNT", "2"),
			C("XAUTOCLAIM", "s", "g", "c2", "3600000", "0"), C("XDEL", "s", "3-1", "4-1"), C("XAUTOCLAIM", "s", "g", "c3", "0", "(1-1", "COUNT", "2", "JUSTID"),
			C("XAUTOCLAIM", "s", "g", "c3", "0", "0", "JUSTID"), C("XPENDING", "s", "g"), C("XAUTOCLAIM", "s", "g", "c3", "0", "(18446744073709551615-18446744073709551615"),
			C("XAUTOCLAIM", "s", "g", "c3", "x", "0"), C("XAUTOCLAIM", "s", "g", "c3", "0", "x"), C("XAUTOCLAIM", "s", "g", "c3", "0", "0", "COUNT", "0"),
			C("XAUTOCLAIM", "s", "g", "c3", "0", "0", "COUNT", "x"), C("XAUTOCLAIM", "s", "g", "c3", "0", "0", "COUNT", "576460752303423488"), C("XAUTOCLAIM", "s", "g", "c3", "0", "0", "FOO"),
			C("XAUTOCLAIM", "s", "g", "c3", "0", "0", "COUNT"), C("XAUTOCLAIM", "s", "nog", "c3", "0", "0"), C("XAUTOCLAIM", "nokey", "g", "c3", "0", "0"),
			C("XAUTOCLAIM", "nokey", "g", "c3", "x", "0"), C("XAUTOCLAIM", "s", "g", "c3", "-1", "-", "COUNT", "1"))},
	})
}

func TestStreamReadInfo(t *testing.T) {
	base := xcat(xadds("s", 1, 4), xadds("t", 2, 3))
	runCases(t, []Case{
		{Name: "xread", Cmds: append(base, C("XREAD", "STREAMS", "s", "0"), C("XREAD", "COUNT", "2", "STREAMS", "s", "t", "1", "0-0"), C("XREAD", "STREAMS", "s", "t", "$", "$"),
			C("XREAD", "STREAMS", "s", "nokey", "t", "3-1", "0", "2-1"), C("XREAD", "STREAMS", "s", "(1"), C("XREAD", "STREAMS", "s", ">"), C("XREAD", "STREAMS", "s", "-"),
			C("XREAD", "STREAMS", "s"), C("XREAD", "STREAMS", "s", "t", "0"), C("XREAD", "COUNT", "0", "STREAMS", "s", "0"), C("XREAD", "COUNT", "-1", "STREAMS", "s", "3"),
			C("XREAD", "GROUP", "g", "c", "STREAMS", "s", "0"), C("XREAD", "NOACK", "STREAMS", "s", "0"), C("XREAD", "FOO", "STREAMS", "s", "0"), C("XREAD", "COUNT", "1"),
			C("XREAD", "BLOCK", "x", "STREAMS", "s", "0"), C("XREAD", "BLOCK", "-1", "STREAMS", "s", "0"), C("XREAD", "BLOCK", "1", "STREAMS", "s", "$"),
			C("XREAD", "BLOCK", "10", "STREAMS", "nokey", "0"), C("XREAD", "STREAMS", "nokey", "$"), C("XREAD", "STREAMS", "s", "18446744073709551615"),
			C("XREAD", "streams", "s", "streams", "0"), C("XDEL", "s", "4-1"), C("XREAD", "STREAMS", "s", "3-1"))},
		{Name: "xinfo", Cmds: append(base, C("XINFO", "STREAM", "s"), C("XINFO", "STREAM", "s", "FULL"), C("XINFO", "STREAM", "s", "FULL", "COUNT", "2"),
			C("XINFO", "STREAM", "s", "FULL", "COUNT", "0"), C("XINFO", "STREAM", "s", "FULL", "COUNT", "-1"), C("XINFO", "STREAM", "s", "FULL", "COUNT", "x"),
			C("XINFO", "STREAM", "s", "FULL", "COUNT"), C("XINFO", "STREAM", "s", "FOO"), C("XINFO", "STREAM", "s", "FULL", "FOO", "1"), C("XINFO", "STREAM", "nokey"),
			C("XINFO", "GROUPS", "s"), C("XINFO", "GROUPS", "nokey"), C("XINFO", "GROUPS", "s", "x"), C("XINFO", "CONSUMERS", "s", "nog"), C("XINFO", "CONSUMERS", "s"),
			C("XINFO", "HELP"), C("XINFO", "help", "x"), C("XINFO", "FOO", "s"), C("XINFO", "FOO"), C("XINFO", "STREAM"), C("XINFO"),
			C("XGROUP", "CREATE", "s", "g", "0"), C("XGROUP", "CREATE", "s", "a", "$"), C("XREADGROUP", "GROUP", "g", "c", "COUNT", "3", "STREAMS", "s", ">"),
			C("XINFO", "STREAM", "s"), C("XINFO", "STREAM", "s", "FULL", "COUNT", "2").Check("timeLoose", timeLoose(200)), C("XINFO", "GROUPS", "s"),
			C("XDEL", "s", "2-1"), C("XINFO", "GROUPS", "s"), C("XADD", "e", "1-1", "a", "b"), C("XDEL", "e", "1-1"), C("XINFO", "STREAM", "e"), C("XINFO", "STREAM", "e", "FULL"))},
		{Name: "generic commands", Cmds: append(base, C("TYPE", "s"), C("OBJECT", "ENCODING", "s"), C("COPY", "s", "s2"), C("XRANGE", "s2", "-", "+"), C("RENAME", "t", "t2"),
			C("XRANGE", "t2", "-", "+"), C("SCAN", "0", "TYPE", "stream", "MATCH", "s"), C("SCAN", "0", "TYPE", "string"), C("DEBUG", "DIGEST-VALUE", "s", "s2", "t2"), C("XGROUP", "CREATE", "s", "g", "0"),
			C("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"), C("COPY", "s", "s3"), C("XPENDING", "s3", "g"), C("XINFO", "GROUPS", "s3"),
			C("DUMP", "s").Ignore(), C("MOVE", "s2", "1"), C("SELECT", "1"), C("XLEN", "s2"), C("SELECT", "0"), C("EXPIRE", "s", "100"), C("DEBUG", "DIGEST-VALUE", "s"),
			C("DEL", "s"), C("EXISTS", "s"))},
		{Name: "dump restore", Cmds: append(base, C("XGROUP", "CREATE", "s", "g", "0"), C("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"),
			C("XDEL", "s", "2-1"), C("XCLAIM", "s", "g", "c", "0", "1-1", "TIME", "12345", "JUSTID"), C("XGROUP", "SETID", "s", "g", "1-1"), C("XGROUP", "CREATECONSUMER", "s", "g", "c2").Ignore(),
			C("EVAL", "local d = redis.call('DUMP', 's'); redis.call('DEL', 'c'); redis.call('RESTORE', 'c', 0, d); return redis.call('XPENDING', 'c', 'g', '-', '+', 10)", "0").Check("timeLoose", timeLoose(200)),
			C("XINFO", "STREAM", "c"), C("DEBUG", "DIGEST-VALUE", "s", "c"))},
	})
}

func TestStreamBlocking(t *testing.T) {
	wait := Sleep(25 * time.Millisecond)
	read := func(conn int) Cmd { return Raw("").On(conn) }
	runCases(t, []Case{
		{Name: "xread woken by xadd", Cmds: []Cmd{C("XREAD", "BLOCK", "5000", "STREAMS", "s", "t", "$", "$").NoReply(), wait, C("XADD", "t", "1-1", "a", "b").On(1), read(0),
			C("XADD", "s", "1-1", "x", "y").On(1), C("XREAD", "BLOCK", "5000", "STREAMS", "s", "$").NoReply(), wait, C("XADD", "s", "2-1", "c", "d").On(1), read(0)}},
		{Name: "xread timeout", Cmds: []Cmd{C("XREAD", "BLOCK", "30", "STREAMS", "s", "0"), C("XADD", "s", "1-1", "a", "b"), C("XREAD", "BLOCK", "30", "STREAMS", "s", "$")}},
		{Name: "arrival order", Cmds: []Cmd{C("XADD", "s", "1-1", "a", "b"), C("XREAD", "BLOCK", "5000", "STREAMS", "s", "$").NoReply(), wait,
			C("XREAD", "BLOCK", "5000", "COUNT", "1", "STREAMS", "s", "1-1").On(1).NoReply(), wait, C("XADD", "s", "2-1", "c", "d", "e", "f").On(2), C("XADD", "s", "3-1", "c", "d").On(2),
			read(0), read(1)}},
		{Name: "xreadgroup woken", Cmds: []Cmd{C("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), C("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "5000", "STREAMS", "s", ">").NoReply(), wait,
			C("XREADGROUP", "GROUP", "g", "c2", "BLOCK", "5000", "STREAMS", "s", ">").On(1).NoReply(), wait, C("XADD", "s", "1-1", "a", "b").On(2), read(0),
			C("XADD", "s", "2-1", "a", "b").On(2), read(1), C("XPENDING", "s", "g").On(2), C("XINFO", "GROUPS", "s").On(2)}},
		{Name: "xreadgroup errors when unblocked", Cmds: []Cmd{C("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), C("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "5000", "STREAMS", "s", ">").NoReply(), wait,
			C("XGROUP", "DESTROY", "s", "g").On(1), read(0), C("XGROUP", "CREATE", "s", "g", "$").On(1), C("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "5000", "STREAMS", "s", ">").NoReply(), wait,
			C("DEL", "s").On(1), read(0), C("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM").On(1), C("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "5000", "STREAMS", "s", ">").NoReply(), wait,
			C("SET", "s", "x").On(1), read(0), C("XREAD", "BLOCK", "5000", "STREAMS", "s2", "$").NoReply(), wait, C("DEL", "s2").On(1), C("XADD", "s2", "1-1", "a", "b").On(1), read(0)}},
		{Name: "noack served", Cmds: []Cmd{C("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), C("XREADGROUP", "GROUP", "g", "c1", "NOACK", "BLOCK", "5000", "STREAMS", "s", ">").NoReply(), wait,
			C("XADD", "s", "1-1", "a", "b").On(1), read(0), C("XPENDING", "s", "g").On(1), C("XINFO", "GROUPS", "s").On(1)}},
		{Name: "in multi", Cmds: []Cmd{C("MULTI"), C("XREAD", "BLOCK", "0", "STREAMS", "s", "$"), C("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"), C("EXEC"),
			C("EVAL", "return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', 's', '$')", "0"), C("EVAL", "return redis.call('xread', 'STREAMS', 's', '0')", "0")}},
	})
}
