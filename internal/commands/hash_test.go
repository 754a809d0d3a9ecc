package commands

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/hash"
	"github.com/limitkv/limitkv/internal/keyspace"
)

// Unit tests of the hash family. Byte-for-byte parity with Redis is proven
// in conformance/hash_test.go, hash_random_test.go and lib_hash_test.go;
// these pin the logic without a Redis at hand.

func TestHashCommands(t *testing.T) {
	for _, c := range []cmdCase{
		{"hset hget", []step{cmd(":2\r\n", "HSET", "k", "a", "1", "b", "2"), cmd("$1\r\n1\r\n", "HGET", "k", "a"), cmd(":0\r\n", "HSET", "k", "a", "3"),
			cmd("*4\r\n$1\r\na\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n2\r\n", "HGETALL", "k"), cmd("+hash\r\n", "TYPE", "k")}},
		{"odd hset", []step{cmd("-ERR wrong number of arguments for 'hset' command\r\n", "HSET", "k", "a", "1", "b"), cmd(":0\r\n", "EXISTS", "k"),
			cmd("-ERR wrong number of arguments for 'hmset' command\r\n", "HMSET", "k", "a", "1", "b")}},
		{"hincrby", []step{cmd(":5\r\n", "HINCRBY", "k", "n", "5"), cmd("-ERR increment or decrement would overflow\r\n", "HINCRBY", "k", "n", "9223372036854775807"),
			cmd(":5\r\n", "HINCRBY", "k", "n", "0"), cmd(":1\r\n", "HSET", "k", "s", "x"), cmd("-ERR hash value is not an integer\r\n", "HINCRBY", "k", "s", "1")}},
		{"hincrbyfloat", []step{cmd("$3\r\n1.5\r\n", "HINCRBYFLOAT", "k", "f", "1.5"), cmd("-ERR value is NaN or Infinity\r\n", "HINCRBYFLOAT", "k", "f", "inf"),
			cmd("$3\r\n0.3\r\n", "HINCRBYFLOAT", "k", "g", "0.3"), cmd(":1\r\n", "HSET", "k", "s", "x"), cmd("-ERR hash value is not a float\r\n", "HINCRBYFLOAT", "k", "s", "1")}},
		{"hdel drops the key", []step{cmd(":1\r\n", "HSET", "k", "a", "1"), cmd(":1\r\n", "HDEL", "k", "a", "a"), cmd(":0\r\n", "EXISTS", "k")}},
		{"encodings", []step{cmd(":1\r\n", "HSET", "k", "a", "1"), cmd("$8\r\nlistpack\r\n", "OBJECT", "ENCODING", "k"),
			cmd(":0\r\n", "HSET", "k", "a", "01234567890123456789012345678901234567890123456789012345678901234"), cmd("$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "k")}},
		{"hscan small", []step{cmd(":2\r\n", "HSET", "k", "a", "1", "b", "2"), cmd("*2\r\n$1\r\n0\r\n*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n", "HSCAN", "k", "7"),
			cmd("*2\r\n$1\r\n0\r\n*0\r\n", "HSCAN", "no", "0", "COUNT", "0"), cmd("-ERR syntax error\r\n", "HSCAN", "k", "0", "COUNT", "0")}},
		{"hrandfield", []step{cmd(":1\r\n", "HSET", "k", "a", "1"), cmd("*2\r\n$1\r\na\r\n$1\r\na\r\n", "HRANDFIELD", "k", "-2"),
			cmd("-ERR value is out of range\r\n", "HRANDFIELD", "k", "-9223372036854775807", "WITHVALUES"), cmd("$-1\r\n", "HRANDFIELD", "no")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tt := newTester(t)
			for _, s := range c.steps {
				tt.Expect(s.want, s.args...)
			}
		})
	}
}

// TestHashConfig checks the thresholds' CONFIG names, aliases and
// defaults (Redis 7.0: 512 entries, 64 bytes).
func TestHashConfig(t *testing.T) {
	tt := newTester(t)
	tt.Expect("*2\r\n$25\r\nhash-max-listpack-entries\r\n$3\r\n512\r\n", "CONFIG", "GET", "hash-max-listpack-entries")
	tt.Expect("*2\r\n$24\r\nhash-max-ziplist-entries\r\n$3\r\n512\r\n", "CONFIG", "GET", "hash-max-ziplist-entries")
	tt.Expect("+OK\r\n", "CONFIG", "SET", "hash-max-ziplist-value", "1kb")
	if got := tt.E.Cfg.HashLimits(); got != (hash.Limits{Entries: 512, Value: 1024}) {
		t.Fatalf("limits %+v", got)
	}
}

// TestMemoryHashEstimate checks a hash key's estimate (entryMemory, with
// the hash's MemoryUsage) against what the heap holds, for the small
// limiter shapes and a large hash.
func TestMemoryHashEstimate(t *testing.T) {
	for _, tc := range []struct {
		name         string
		keys, fields int
		lim          hash.Limits
	}{
		{"token bucket", 20000, 2, hash.DefaultLimits()},
		{"ring of 120", 500, 120, hash.DefaultLimits()},
		{"hashtable of 50", 1000, 50, hash.Limits{Entries: 0, Value: 64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := keyspace.New()
			keys := make([][]byte, tc.keys)
			for i := range keys {
				keys[i] = fmt.Appendf(nil, "rl:user:%08d", i)
			}
			runtime.GC()
			before := heapObjects()
			for i, k := range keys {
				h := hash.New()
				for j := range tc.fields {
					h.Set(strconv.AppendInt(nil, int64(j), 10), strconv.AppendInt(nil, 1700000000000+int64(i+j), 10), tc.lim)
				}
				db.Add(k, h)
			}
			runtime.GC()
			heap := float64(heapObjects()) - float64(before)
			var est float64
			db.ForEach(func(e *keyspace.Entry) bool { est += float64(engine.EntryMemory(e)); return true })
			runtime.KeepAlive(db)
			runtime.KeepAlive(keys) // made before the baseline: must not be freed before the second reading
			ratio := est / heap
			t.Logf("heap %.0f B/key, estimate %.0f B/key (ratio %.2f)", heap/float64(tc.keys), est/float64(tc.keys), ratio)
			if ratio < 0.8 || ratio > 1.25 {
				t.Errorf("estimate off by more than 20%%: ratio %.2f", ratio)
			}
		})
	}
}
