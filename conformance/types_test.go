package conformance

import (
	"errors"
	"testing"
)

// sameScanPage compares a SCAN reply that covers the whole keyspace: cursor
// 0 on both, the same keys in any order (the order is Redis's hash order).
func sameScanPage(rds, lkv *Reply) error {
	for _, r := range []*Reply{rds, lkv} {
		if r.Type != '*' || len(r.Elems) != 2 || r.Elems[0].Str != "0" {
			return errors.New("not a complete SCAN page")
		}
	}
	return sameMultiset(rawElems(rds.Elems[1].Elems, 1), rawElems(lkv.Elems[1].Elems, 1))
}

// TestGenericAcrossTypes checks the generic commands on a key of every
// type: TYPE, OBJECT, COPY, RENAME, MOVE, DEL, SCAN's TYPE filter,
// EXISTS and TTLs, each value read back after the move.
func TestGenericAcrossTypes(t *testing.T) {
	type kind struct {
		name  string
		build Cmd
		read  Cmd // reads the whole value at "k2" after COPY
	}
	kinds := []kind{
		{"string", C("SET", "k", "12345"), C("GET", "k2")},
		{"list", C("RPUSH", "k", "a", "b", "1"), C("LRANGE", "k2", "0", "-1")},
		{"hash", C("HSET", "k", "f", "v", "g", "1"), C("HGETALL", "k2")},
		{"set intset", C("SADD", "k", "3", "1", "2"), C("SMEMBERS", "k2")},
		{"set hashtable", C("SADD", "k", "x", "y"), C("SMEMBERS", "k2").Unordered()},
		{"zset", C("ZADD", "k", "1", "a", "2", "b"), C("ZRANGE", "k2", "0", "-1", "WITHSCORES")},
		{"hyperloglog", C("PFADD", "k", "a", "b", "c"), C("GET", "k2")},
		{"bitmap", C("SETBIT", "k", "100", "1"), C("GET", "k2")},
	}
	var cases []Case
	for _, k := range kinds {
		cases = append(cases, Case{Name: k.name, Cmds: []Cmd{
			k.build, C("TYPE", "k"), C("OBJECT", "ENCODING", "k"), C("OBJECT", "REFCOUNT", "k"),
			C("EXPIRE", "k", "100"),
			C("COPY", "k", "k2"), C("TYPE", "k2"), C("OBJECT", "ENCODING", "k2"), C("TTL", "k2").TTLApprox(1), k.read,
			C("COPY", "k", "k2"), C("COPY", "k", "k2", "REPLACE"),
			C("SCAN", "0", "TYPE", "string", "COUNT", "100").Check("scan page", sameScanPage),
			C("SCAN", "0", "TYPE", "list", "COUNT", "100").Check("scan page", sameScanPage), C("SCAN", "0", "TYPE", "hash", "COUNT", "100").Check("scan page", sameScanPage),
			C("SCAN", "0", "TYPE", "set", "COUNT", "100").Check("scan page", sameScanPage), C("SCAN", "0", "TYPE", "zset", "COUNT", "100").Check("scan page", sameScanPage),
			C("RENAME", "k2", "k3"), C("TYPE", "k3"), C("OBJECT", "ENCODING", "k3"), C("TTL", "k3").TTLApprox(1),
			C("MOVE", "k3", "1"), C("EXISTS", "k3"), C("SELECT", "1"), C("TYPE", "k3"), C("OBJECT", "ENCODING", "k3"),
			C("DEL", "k3"), C("SELECT", "0"), C("DEL", "k", "k3"), C("TYPE", "k"),
		}})
	}
	runCases(t, cases)
}
