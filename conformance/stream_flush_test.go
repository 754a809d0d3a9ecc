package conformance

import (
	"testing"
	"time"
)

// XREADGROUP waiters and whole-database changes: FLUSHALL, FLUSHDB and
// SWAPDB unblock them with -UNBLOCKED when their stream goes (Redis's
// scanDatabaseForDeletedStreams), a SWAPDB that brings in another stream
// serves them from it or fails them with -NOGROUP (scanDatabaseForReadyKeys),
// and XREAD waiters stay blocked. Connections: 0 and 3 block, 1 changes
// the data, 2 blocks in XREAD or in another database.
func TestStreamBlockedFlushSwap(t *testing.T) {
	wait := Sleep(25 * time.Millisecond)
	read := func(conn int) Cmd { return Raw("").On(conn) }
	group := func(db string) []Cmd {
		return []Cmd{C("SELECT", db).On(1), C("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM").On(1), C("SELECT", "0").On(1)}
	}
	blockGroup := func(conn int, db string) []Cmd {
		return []Cmd{C("SELECT", db).On(conn), C("XREADGROUP", "GROUP", "g", "c", "BLOCK", "5000", "STREAMS", "s", ">").On(conn).NoReply(), wait}
	}
	blockRead := func(conn int, db string) []Cmd {
		return []Cmd{C("SELECT", db).On(conn), C("XREAD", "BLOCK", "5000", "STREAMS", "s", "$").On(conn).NoReply(), wait}
	}
	in := func(db string, cmds ...Cmd) []Cmd {
		out := []Cmd{C("SELECT", db).On(1)}
		for _, c := range cmds {
			out = append(out, c.On(1))
		}
		return append(out, C("SELECT", "0").On(1))
	}
	runCases(t, []Case{
		{Name: "flushall", Cmds: xcat(group("0"), group("1"), blockGroup(0, "0"), blockGroup(3, "1"), blockRead(2, "0"),
			[]Cmd{C("FLUSHALL").On(1), read(0), read(3), C("XADD", "s", "1-1", "a", "b").On(1), read(2)})},
		{Name: "flushall async in multi", Cmds: xcat(group("0"), blockGroup(0, "0"),
			[]Cmd{C("MULTI").On(1), C("FLUSHALL", "ASYNC").On(1), C("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM").On(1), C("EXEC").On(1), C("XADD", "s", "1-1", "a", "b").On(1), read(0)})},
		{Name: "flushdb", Cmds: xcat(group("0"), group("1"), blockGroup(0, "0"), blockGroup(3, "1"), blockRead(2, "0"),
			[]Cmd{C("FLUSHDB").On(1), read(0), C("XADD", "s", "1-1", "a", "b").On(1), read(2)},
			in("1", C("XADD", "s", "1-1", "a", "b")), []Cmd{read(3)})},
		{Name: "flushdb of another database", Cmds: xcat(group("0"), blockGroup(0, "0"),
			in("1", C("SET", "x", "y"), C("FLUSHDB")), []Cmd{C("XADD", "s", "1-1", "a", "b").On(1), read(0)})},
		{Name: "swapdb with nothing there", Cmds: xcat(group("0"), blockGroup(0, "0"), group("2"), blockGroup(3, "2"),
			[]Cmd{C("SWAPDB", "0", "1").On(1), read(0), C("SWAPDB", "3", "2").On(1), read(3)})},
		// A list wakes blocked clients after a swap anyway (the ready-key
		// scan), a string does not: only the deleted-stream scan does.
		{Name: "swapdb with another type there", Cmds: xcat(group("0"), group("2"), blockGroup(0, "0"), blockGroup(3, "2"),
			in("1", C("SET", "s", "x")), in("3", C("RPUSH", "s", "x")),
			[]Cmd{C("SWAPDB", "1", "0").On(1), read(0), C("TYPE", "s").On(1), C("SWAPDB", "2", "3").On(1), read(3)})},
		{Name: "swapdb with a stream without the group", Cmds: xcat(group("0"), blockGroup(0, "0"),
			in("1", C("XADD", "s", "1-1", "a", "b")), []Cmd{C("SWAPDB", "0", "1").On(1), read(0)})},
		{Name: "swapdb with a stream with news for the group", Cmds: xcat(group("0"), blockGroup(0, "0"), blockRead(2, "0"),
			in("1", C("XADD", "s", "1-1", "a", "b"), C("XGROUP", "CREATE", "s", "g", "0"), C("XADD", "s", "2-1", "c", "d")),
			[]Cmd{C("SWAPDB", "0", "1").On(1), read(0), C("XPENDING", "s", "g").On(1), C("XADD", "s", "3-1", "e", "f").On(1), read(2)})},
		{Name: "swapdb with a stream with nothing new", Cmds: xcat(group("0"), blockGroup(0, "0"),
			in("1", C("XADD", "s", "1-1", "a", "b"), C("XGROUP", "CREATE", "s", "g", "$")),
			[]Cmd{C("SWAPDB", "0", "1").On(1), C("XADD", "s", "2-1", "c", "d").On(1), read(0)})},
		{Name: "swapdb of other databases", Cmds: xcat(group("0"), blockGroup(0, "0"), in("1", C("SET", "x", "y")),
			[]Cmd{C("SWAPDB", "1", "2").On(1), C("SWAPDB", "0", "0").On(1), C("XADD", "s", "1-1", "a", "b").On(1), read(0)})},
	})
}
