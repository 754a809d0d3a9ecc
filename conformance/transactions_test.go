package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// watchCase is a WATCH scenario: setup, WATCH k on connection 0, what
// happens in between, then MULTI / PING / EXEC, whose reply (nil array or
// [PONG]) tells whether the watch was invalidated.
func watchCase(name string, setup []Cmd, between ...Cmd) Case {
	cmds := append([]Cmd{}, setup...)
	cmds = append(cmds, C("WATCH", "k"))
	cmds = append(cmds, between...)
	cmds = append(cmds, C("MULTI"), C("PING"), C("EXEC"))
	return Case{Name: name, Cmds: cmds}
}

func TestTransactions(t *testing.T) {
	runCases(t, []Case{
		{Name: "multi exec", Cmds: []Cmd{C("MULTI"), C("SET", "a", "1"), C("INCR", "a"), C("GET", "a"), C("EXEC"), C("GET", "a")}},
		{Name: "empty exec", Cmds: []Cmd{C("MULTI"), C("EXEC")}},
		{Name: "runtime error inside", Cmds: []Cmd{C("SET", "s", "x"), C("MULTI"), C("SET", "a", "1"), C("INCR", "s"), C("GET", "a"), C("EXEC")}},
		{Name: "nested multi", Cmds: []Cmd{C("MULTI"), C("MULTI"), C("SET", "a", "2"), C("EXEC"), C("GET", "a")}},
		{Name: "exec without multi", Cmds: []Cmd{C("EXEC"), C("exec")}},
		{Name: "discard without multi", Cmds: []Cmd{C("DISCARD")}},
		{Name: "discard", Cmds: []Cmd{C("MULTI"), C("SET", "a", "1"), C("DISCARD"), C("GET", "a"), C("EXEC")}},
		{Name: "execabort arity", Cmds: []Cmd{C("MULTI"), C("SET", "a"), C("SET", "b", "1"), C("EXEC"), C("GET", "b")}},
		{Name: "execabort unknown", Cmds: []Cmd{C("MULTI"), C("NOSUCH", "x"), C("SET", "b", "1"), C("EXEC"), C("GET", "b")}},
		{Name: "discard after error", Cmds: []Cmd{C("MULTI"), C("SET", "a"), C("DISCARD"), C("EXEC")}},
		{Name: "watch inside multi", Cmds: []Cmd{C("MULTI"), C("WATCH", "x"), C("SET", "a", "1"), C("EXEC")}},
		{Name: "watch arity", Cmds: []Cmd{C("WATCH"), C("MULTI", "x"), C("DISCARD", "x"), C("UNWATCH", "x")}},
		{Name: "multi arity inside multi", Cmds: []Cmd{C("MULTI"), C("MULTI", "x"), C("SET", "a", "1"), C("EXEC"), C("GET", "a")}},
		{Name: "exec arity inside multi",
			Cmds: []Cmd{C("MULTI"), C("SET", "a", "1"), C("EXEC", "x"), C("EXEC"), C("GET", "a"), C("EXEC", "x")}},
		{Name: "unwatch queued", Cmds: []Cmd{C("MULTI"), C("UNWATCH"), C("EXEC")}},
		{Name: "unwatch", Cmds: []Cmd{C("UNWATCH"), C("WATCH", "a", "b"), C("WATCH", "a"), C("UNWATCH")}},
		{Name: "select inside", Cmds: []Cmd{C("MULTI"), C("SELECT", "3"), C("SET", "z", "1"), C("EXEC"), C("DBSIZE"), C("SELECT", "0"), C("DBSIZE")}},
		{Name: "eval inside", Cmds: []Cmd{C("MULTI"), C("EVAL", "return redis.call('incr', KEYS[1])", "1", "n"), C("EVAL", "return 1", "x"), C("EXEC")}},
		{Name: "script inside", Cmds: []Cmd{C("MULTI"), C("SCRIPT", "LOAD", "return 1"), C("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"), C("EXEC")}},
		{Name: "reset leaves multi", Cmds: []Cmd{C("MULTI"), C("SET", "a", "1"), C("RESET"), C("EXEC"), C("GET", "a")}},
		{Name: "binary args", Cmds: []Cmd{C("MULTI"), C("SET", "k\x00\r\n", "v\x00\xff"), C("GET", "k\x00\r\n"), C("EXEC")}},
		{Name: "many commands", Cmds: func() []Cmd {
			cmds := []Cmd{C("MULTI")}
			for i := range 50 {
				cmds = append(cmds, C("APPEND", "l", fmt.Sprint(i)), C("INCR", "n"))
			}
			return append(cmds, C("EXEC"))
		}()},
		{Name: "expired key inside", Cmds: []Cmd{C("SET", "e", "v", "PX", "30"), C("MULTI"), C("GET", "e"), Sleep(60 * time.Millisecond), C("GET", "e"), C("EXEC")}},

		// WATCH: what invalidates a watched key, checked against Redis 7.0.15.
		watchCase("watch untouched", nil),
		watchCase("watch other client set", nil, C("SET", "k", "v").On(1)),
		watchCase("watch same client set", nil, C("SET", "k", "v")),
		watchCase("watch set same value", []Cmd{C("SET", "k", "v")}, C("SET", "k", "v").On(1)),
		watchCase("watch set nx no-op", []Cmd{C("SET", "k", "v")}, C("SET", "k", "w", "NX").On(1)),
		watchCase("watch set nx get no-op", []Cmd{C("SET", "k", "v")}, C("SET", "k", "w", "NX", "GET").On(1)),
		watchCase("watch set xx missing", nil, C("SET", "k", "w", "XX").On(1)),
		watchCase("watch set xx get missing", nil, C("SET", "k", "w", "XX", "GET").On(1)),
		watchCase("watch set xx existing", []Cmd{C("SET", "k", "v")}, C("SET", "k", "w", "XX").On(1)),
		watchCase("watch setnx no-op", []Cmd{C("SET", "k", "v")}, C("SETNX", "k", "w").On(1)),
		watchCase("watch setnx sets", nil, C("SETNX", "k", "w").On(1)),
		watchCase("watch msetnx fails", []Cmd{C("SET", "a", "1")}, C("MSETNX", "k", "1", "a", "2").On(1)),
		watchCase("watch mset other key", nil, C("MSET", "a", "1", "b", "2").On(1)),
		watchCase("watch mset same key", nil, C("MSET", "a", "1", "k", "2").On(1)),
		watchCase("watch del missing", nil, C("DEL", "k").On(1)),
		watchCase("watch del existing", []Cmd{C("SET", "k", "v")}, C("DEL", "k").On(1)),
		watchCase("watch unlink existing", []Cmd{C("SET", "k", "v")}, C("UNLINK", "k", "x").On(1)),
		watchCase("watch getdel missing", nil, C("GETDEL", "k").On(1)),
		watchCase("watch incrby 0", []Cmd{C("SET", "k", "1")}, C("INCRBY", "k", "0").On(1)),
		watchCase("watch incr fails", []Cmd{C("SET", "k", "x")}, C("INCR", "k").On(1)),
		watchCase("watch read", []Cmd{C("SET", "k", "x")}, C("GET", "k").On(1), C("EXISTS", "k"), C("TTL", "k")),
		watchCase("watch append empty", []Cmd{C("SET", "k", "x")}, C("APPEND", "k", "").On(1)),
		watchCase("watch setrange empty", []Cmd{C("SET", "k", "x")}, C("SETRANGE", "k", "0", "").On(1)),
		watchCase("watch setrange", []Cmd{C("SET", "k", "x")}, C("SETRANGE", "k", "0", "y").On(1)),
		watchCase("watch expire future", []Cmd{C("SET", "k", "x")}, C("EXPIRE", "k", "100").On(1)),
		watchCase("watch expire missing", nil, C("EXPIRE", "k", "100").On(1)),
		watchCase("watch expire nx fails", []Cmd{C("SET", "k", "x", "EX", "100")}, C("EXPIRE", "k", "200", "NX").On(1)),
		watchCase("watch expire past deletes", []Cmd{C("SET", "k", "x")}, C("PEXPIREAT", "k", "1").On(1)),
		watchCase("watch persist no ttl", []Cmd{C("SET", "k", "x")}, C("PERSIST", "k").On(1)),
		watchCase("watch persist ttl", []Cmd{C("SET", "k", "x", "EX", "100")}, C("PERSIST", "k").On(1)),
		watchCase("watch getex no options", []Cmd{C("SET", "k", "x")}, C("GETEX", "k").On(1)),
		watchCase("watch getex ex", []Cmd{C("SET", "k", "x")}, C("GETEX", "k", "EX", "100").On(1)),
		watchCase("watch rename onto", []Cmd{C("SET", "a", "1")}, C("RENAME", "a", "k").On(1)),
		watchCase("watch rename from", []Cmd{C("SET", "k", "1")}, C("RENAME", "k", "b").On(1)),
		watchCase("watch renamenx fails", []Cmd{C("SET", "a", "1"), C("SET", "k", "1")}, C("RENAMENX", "a", "k").On(1)),
		watchCase("watch other db", nil, C("SELECT", "1").On(1), C("SET", "k", "v").On(1)),
		watchCase("watch then select", nil, C("SELECT", "1"), C("SET", "k", "v").On(1)),
		watchCase("watch select then write own db", nil, C("SELECT", "1"), C("SET", "k", "v").On(1), C("SET", "k", "v")),
		watchCase("watch flushall with key", []Cmd{C("SET", "k", "v")}, C("FLUSHALL").On(1)),
		watchCase("watch flushall without key", nil, C("FLUSHALL").On(1)),
		watchCase("watch flushdb other db", []Cmd{C("SET", "k", "v")}, C("SELECT", "1").On(1), C("FLUSHDB").On(1)),
		watchCase("watch move away", []Cmd{C("SET", "k", "v")}, C("MOVE", "k", "1").On(1)),
		watchCase("watch expires before exec", []Cmd{C("SET", "k", "v", "PX", "40")}, Sleep(80*time.Millisecond)),
		watchCase("watch expires then read", []Cmd{C("SET", "k", "v", "PX", "40")}, Sleep(80*time.Millisecond), C("GET", "k").On(1)),
		watchCase("watch expired before watch", []Cmd{C("SET", "k", "v", "PX", "10"), Sleep(40 * time.Millisecond)}),
		watchCase("watch twice", nil, C("WATCH", "k"), C("SET", "k", "1").On(1)),
		watchCase("watch several keys", nil, C("WATCH", "a", "b"), C("SET", "b", "1").On(1)),
		watchCase("watch unwatch", nil, C("SET", "k", "1").On(1), C("UNWATCH")),
		watchCase("watch eval write", nil, C("EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "k").On(1)),
		watchCase("watch eval no-op", nil, C("EVAL", "return redis.call('del', KEYS[1])", "1", "k").On(1)),
		watchCase("watch write in failed multi", nil, C("MULTI").On(1), C("SET", "k", "1").On(1), C("EXEC").On(1)),
		{Name: "exec clears watch", Cmds: []Cmd{C("WATCH", "k"), C("MULTI"), C("EXEC"), C("SET", "k", "1").On(1), C("MULTI"), C("PING"), C("EXEC")}},
		{Name: "discard clears watch", Cmds: []Cmd{C("WATCH", "k"), C("MULTI"), C("DISCARD"), C("SET", "k", "1").On(1), C("MULTI"), C("PING"), C("EXEC")}},
		{Name: "execabort clears watch", Cmds: []Cmd{C("WATCH", "k"), C("MULTI"), C("NOSUCH"), C("EXEC"), C("SET", "k", "1").On(1), C("MULTI"), C("PING"), C("EXEC")}},
		{Name: "failed exec clears watch", Cmds: []Cmd{C("WATCH", "k"), C("SET", "k", "1").On(1), C("MULTI"), C("EXEC"), C("SET", "k", "2").On(1), C("MULTI"), C("PING"), C("EXEC")}},
		{Name: "own writes inside multi", Cmds: []Cmd{C("WATCH", "k"), C("MULTI"), C("SET", "k", "1"), C("EXEC"), C("GET", "k")}},
		{Name: "watched write queued not run", Cmds: []Cmd{C("WATCH", "k"), C("MULTI"), C("SET", "x", "1"), C("SET", "k", "1").On(1), C("EXEC"), C("GET", "x")}},
	})
}

// TestTransactionsZset covers the sorted-set no-op writes, when limitkv has
// the sorted-set family.
func TestTransactionsZset(t *testing.T) {
	requireServers(t)
	_, lkv := dialPair(t)
	if r := lkv.MustDo(t, "ZCARD", "probe"); r.IsError() {
		t.Skip("sorted-set commands not implemented yet: " + r.Str)
	}
	z := []Cmd{C("ZADD", "k", "1", "a")}
	runCases(t, []Case{
		watchCase("watch zadd same score ch", z, C("ZADD", "k", "CH", "1", "a").On(1)),
		watchCase("watch zadd same score", z, C("ZADD", "k", "1", "a").On(1)),
		watchCase("watch zadd new score", z, C("ZADD", "k", "2", "a").On(1)),
		watchCase("watch zadd new member", z, C("ZADD", "k", "1", "b").On(1)),
		watchCase("watch zadd xx missing key", nil, C("ZADD", "k", "XX", "2", "a").On(1)),
		watchCase("watch zadd nx existing", z, C("ZADD", "k", "NX", "2", "a").On(1)),
		watchCase("watch zadd incr nx existing", z, C("ZADD", "k", "NX", "INCR", "2", "a").On(1)),
		watchCase("watch zrem missing member", z, C("ZREM", "k", "b").On(1)),
		watchCase("watch zrem member", z, C("ZREM", "k", "a").On(1)),
		watchCase("watch zremrangebyscore none", z, C("ZREMRANGEBYSCORE", "k", "5", "6").On(1)),
		watchCase("watch zremrangebyscore some", z, C("ZREMRANGEBYSCORE", "k", "0", "6").On(1)),
		watchCase("watch zpopmin empty", nil, C("ZPOPMIN", "k").On(1)),
		{Name: "blocking command does not block", Cmds: []Cmd{C("MULTI"), C("BZPOPMIN", "nozset", "0"), C("EXEC")}},
	})
}

// TestTransactionsGoRedis checks that go-redis v9's TxPipelined and
// Watch-based optimistic locking see identical results on both servers.
func TestTransactionsGoRedis(t *testing.T) {
	rds, lkv := newClients(t)
	flushBoth(t)
	ctx := context.Background()
	run := func(cl *redis.Client) string {
		var out string
		cmds, err := cl.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "tx:a", "1", 0)
			p.Incr(ctx, "tx:a")
			p.IncrBy(ctx, "tx:a", 10)
			p.Get(ctx, "tx:a")
			p.Get(ctx, "tx:missing")
			p.Expire(ctx, "tx:a", time.Minute)
			return nil
		})
		out += fmt.Sprintf("err=%v;", err)
		for _, c := range cmds {
			out += c.String() + ";"
		}
		// A runtime error inside the transaction.
		cmds, err = cl.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "tx:s", "x", 0)
			p.Incr(ctx, "tx:s")
			p.Get(ctx, "tx:s")
			return nil
		})
		out += fmt.Sprintf("err=%v;", err)
		for _, c := range cmds {
			out += c.String() + ";"
		}
		// Optimistic locking: the first attempt is spoiled by a write from
		// another connection, the retry succeeds.
		other := redis.NewClient(&redis.Options{Addr: cl.Options().Addr})
		defer other.Close()
		attempts := 0
		for range 3 {
			attempts++
			err = cl.Watch(ctx, func(tx *redis.Tx) error {
				n, err := tx.Get(ctx, "tx:counter").Int()
				if err != nil && err != redis.Nil {
					return err
				}
				if attempts == 1 {
					other.Set(ctx, "tx:counter", "100", 0)
				}
				_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "tx:counter", n+1, 0)
					return nil
				})
				return err
			}, "tx:counter")
			if err != redis.TxFailedErr {
				break
			}
		}
		v, _ := cl.Get(ctx, "tx:counter").Result()
		out += fmt.Sprintf("watch attempts=%d err=%v counter=%s", attempts, err, v)
		return out
	}
	want, got := run(rds), run(lkv)
	if want != got {
		t.Errorf("go-redis transaction results differ:\n  redis:   %s\n  limitkv: %s", want, got)
	}
}
