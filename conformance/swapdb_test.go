package conformance

import (
	"testing"
	"time"
)

// Conformance of SWAPDB: the contents of two databases change places while
// clients stay on the number they selected; watches fail as Redis's
// touchAllWatchedKeysInDb decides, and clients blocked on a key the swap
// brings in are served.

// swWatchCase watches key k in database db on connection 0, runs between
// on connection 1 (database 0 unless it SELECTs), then MULTI/PING/EXEC on
// connection 0.
func swWatchCase(name string, db string, setup []Cmd, between ...Cmd) Case {
	cmds := append([]Cmd{}, setup...)
	cmds = append(cmds, C("SELECT", db), C("WATCH", "k"))
	for _, b := range between {
		cmds = append(cmds, b.On(1))
	}
	cmds = append(cmds, C("MULTI"), C("PING"), C("EXEC"))
	return Case{Name: name, Cmds: cmds}
}

func TestSwapDB(t *testing.T) {
	runCases(t, []Case{
		{Name: "swap contents", Cmds: []Cmd{C("SET", "a", "0"), C("ZADD", "z", "1", "m"), C("SELECT", "1"), C("SET", "a", "1"), C("SET", "b", "1"),
			C("SWAPDB", "0", "1"), C("GET", "a"), C("GET", "b"), C("TYPE", "z"), C("DBSIZE"), C("SELECT", "0"), C("GET", "a"), C("GET", "b"),
			C("DBSIZE"), C("GET", "a").On(1), C("SWAPDB", "1", "0"), C("GET", "a"), C("ZRANGE", "z", "0", "-1", "WITHSCORES"), C("SWAPDB", "0", "15"),
			C("DBSIZE"), C("SELECT", "15"), C("DBSIZE"), C("KEYS", "*").Unordered()}},
		{Name: "same db", Cmds: []Cmd{C("SET", "a", "0"), C("SWAPDB", "0", "0"), C("GET", "a"), C("SWAPDB", "3", "3")}},
		{Name: "errors", Cmds: []Cmd{C("SWAPDB"), C("SWAPDB", "0"), C("SWAPDB", "0", "1", "2"), C("SWAPDB", "x", "1"), C("SWAPDB", "0", "x"),
			C("SWAPDB", "x", "y"), C("SWAPDB", "0", "16"), C("SWAPDB", "16", "0"), C("SWAPDB", "-1", "0"), C("SWAPDB", "x", "16"), C("SWAPDB", "16", "x"),
			C("SWAPDB", "2147483648", "0"), C("SWAPDB", "0", "-2147483649"), C("SWAPDB", "2147483647", "0"), C("SWAPDB", "1.5", "0"), C("SWAPDB", " 1", "0"),
			C("SWAPDB", "01", "0"), C("SWAPDB", "", "0"), C("SWAPDB", "0", "99999999999999999999")}},
		{Name: "ttl travels", Cmds: []Cmd{C("SET", "a", "v", "EX", "100"), C("ZADD", "z", "1", "m"), C("PEXPIRE", "z", "40"), C("SWAPDB", "0", "2"),
			C("TTL", "a"), C("SELECT", "2"), C("TTL", "a").TTLApprox(1), C("PERSIST", "a"), C("TTL", "a"), Sleep(80 * time.Millisecond), C("EXISTS", "z"),
			C("DBSIZE"), C("SWAPDB", "2", "0"), C("DBSIZE"), C("SELECT", "0"), C("TTL", "a")}},
		{Name: "encodings travel", Cmds: []Cmd{zsBig("z", "m", 200, zsInt), C("ZADD", "s", "1", "a"), C("SWAPDB", "0", "1"), C("SELECT", "1"),
			C("OBJECT", "ENCODING", "z"), C("OBJECT", "ENCODING", "s"), C("ZCARD", "z")}},
		{Name: "in multi and eval", Cmds: []Cmd{C("SET", "a", "0"), C("MULTI"), C("SWAPDB", "0", "1"), C("GET", "a"), C("SWAPDB", "0", "x"), C("EXEC"),
			C("GET", "a"), C("EVAL", "return redis.call('swapdb', '0', '1')", "0"), C("GET", "a"), C("EVAL", "return redis.pcall('swapdb', '0', '99')", "0"),
			C("EVAL_RO", "return redis.pcall('swapdb', '0', '1')", "0"), C("GET", "a")}},
		{Name: "command info", Cmds: []Cmd{C("COMMAND", "INFO", "swapdb"), C("COMMAND", "DOCS", "swapdb"), C("COMMAND", "GETKEYS", "swapdb", "0", "1")}},
	})
}

func TestSwapDBWatch(t *testing.T) {
	s1 := func(args ...string) []Cmd { return []Cmd{C("SELECT", "1").On(2), C(args...).On(2)} }
	runCases(t, []Case{
		swWatchCase("key in watched db", "0", []Cmd{C("SET", "k", "v")}, C("SWAPDB", "0", "1")),
		swWatchCase("key only in the other db", "0", s1("SET", "k", "v"), C("SWAPDB", "0", "1")),
		swWatchCase("key in neither", "0", []Cmd{C("SET", "x", "v")}, C("SWAPDB", "0", "1")),
		swWatchCase("other pair of dbs", "0", []Cmd{C("SET", "k", "v")}, C("SWAPDB", "1", "2")),
		swWatchCase("same db", "0", []Cmd{C("SET", "k", "v")}, C("SWAPDB", "0", "0")),
		swWatchCase("watched in db 1", "1", s1("SET", "k", "v"), C("SWAPDB", "1", "0")),
		swWatchCase("swap error", "0", []Cmd{C("SET", "k", "v")}, C("SWAPDB", "0", "16")),
		swWatchCase("swap twice", "0", []Cmd{C("SET", "k", "v")}, C("SWAPDB", "0", "1"), C("SWAPDB", "0", "1")),
		swWatchCase("swapped then written in new place", "0", s1("SET", "k", "v"), C("SWAPDB", "0", "1"), C("SELECT", "1"), C("SET", "k", "w")),
		// Deletions reach the watchers of the database the key is in now.
		swWatchCase("deleted after an earlier swap", "1", []Cmd{C("SET", "k", "v"), C("SWAPDB", "0", "1")}, C("SELECT", "1"), C("DEL", "k")),
		swWatchCase("expired after an earlier swap", "1", []Cmd{C("SET", "k", "v", "PX", "30"), C("SWAPDB", "0", "1")}, Sleep(60*time.Millisecond),
			C("SELECT", "1"), C("GET", "k")),
		swWatchCase("flushed after an earlier swap", "1", []Cmd{C("SET", "k", "v"), C("SWAPDB", "0", "1")}, C("SELECT", "1"), C("FLUSHDB")),
		// Keys past their deadline: Redis keeps a watch taken on an expired
		// key valid when the swap leaves the key gone or still expired.
		swWatchCase("expired watched, gone after swap", "0", []Cmd{C("SET", "k", "v", "PX", "1"), Sleep(20 * time.Millisecond)}, C("SWAPDB", "0", "1")),
		swWatchCase("expired watched, expired after swap", "0", append([]Cmd{C("SET", "k", "v", "PX", "1")}, append(s1("SET", "k", "v", "PX", "1"), Sleep(20*time.Millisecond))...),
			C("SWAPDB", "0", "1")),
		swWatchCase("expired watched, live after swap", "0", append([]Cmd{C("SET", "k", "v", "PX", "1")}, append(s1("SET", "k", "w"), Sleep(20*time.Millisecond))...),
			C("SWAPDB", "0", "1")),
		swWatchCase("live watched, expired after swap", "0", append([]Cmd{C("SET", "k", "v")}, append(s1("SET", "k", "v", "PX", "1"), Sleep(20*time.Millisecond))...),
			C("SWAPDB", "0", "1")),
		swWatchCase("missing watched, expired after swap", "0", append(s1("SET", "k", "v", "PX", "1"), Sleep(20*time.Millisecond)), C("SWAPDB", "0", "1")),
	})
}

func TestSwapDBBlocked(t *testing.T) {
	wait := Sleep(25 * time.Millisecond)
	read := func(conn int) Cmd { return Raw("").On(conn) }
	runCases(t, []Case{
		{Name: "served by the swap", Cmds: []Cmd{C("BZPOPMIN", "k", "5").NoReply(), wait, C("SELECT", "1").On(1), C("ZADD", "k", "1", "a", "2", "b").On(1),
			C("SWAPDB", "0", "1").On(1), read(0), C("ZRANGE", "k", "0", "-1", "WITHSCORES").On(1), C("SELECT", "0").On(1),
			C("ZRANGE", "k", "0", "-1", "WITHSCORES").On(1)}},
		{Name: "blocked in db 1 served by swap", Cmds: []Cmd{C("SELECT", "1"), C("BZMPOP", "5", "2", "x", "k", "MAX", "COUNT", "5").NoReply(), wait,
			C("ZADD", "k", "1", "a").On(1), C("SWAPDB", "1", "0").On(1), read(0), C("EXISTS", "k").On(1)}},
		{Name: "wrong type does not serve", Cmds: []Cmd{C("BZPOPMIN", "k", "0.3").NoReply(), wait, C("SELECT", "1").On(1), C("SET", "k", "v").On(1),
			C("SWAPDB", "0", "1").On(1), read(0), C("GET", "k").On(1)}},
		{Name: "unrelated swap keeps waiting", Cmds: []Cmd{C("BZPOPMIN", "k", "0.3").NoReply(), wait, C("SELECT", "2").On(1), C("ZADD", "k", "1", "a").On(1),
			C("SWAPDB", "1", "2").On(1), read(0)}},
		{Name: "expired key does not serve", Cmds: []Cmd{C("BZPOPMIN", "k", "0.3").NoReply(), wait, C("SELECT", "1").On(1), C("ZADD", "k", "1", "a").On(1),
			C("PEXPIRE", "k", "1").On(1), Sleep(10 * time.Millisecond), C("SWAPDB", "0", "1").On(1), read(0)}},
	})
}
