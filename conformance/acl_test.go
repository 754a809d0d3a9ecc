package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/testredis"
)

// ACL (Redis 7.0): every case runs on a pair of servers of the test's own,
// so the users it makes never reach the other tests' connections. Users
// persist from case to case, so each case starts by deleting the users
// the cases make and emptying the ACL log.

// aclPair starts a private redis-server and limitkv, each with an ACL file
// of its own (empty at start) when withFile.
// With relative, the servers are given the file's name only, which each
// finds in its dir.
func aclPair(t *testing.T, withFile bool, extra ...string) (rds, lkv, rdsFile, lkvFile string) {
	return aclPairFile(t, withFile, false, extra...)
}

func aclPairFile(t *testing.T, withFile, relative bool, extra ...string) (rds, lkv, rdsFile, lkvFile string) {
	t.Helper()
	requireServers(t)
	rdir, ldir := t.TempDir(), t.TempDir()
	var rargs []string
	// DEBUG allowed, as startRedisOn has it.
	cfg := limitkv.Config{"enable-debug-command": "yes"}
	if withFile {
		rdsFile, lkvFile = filepath.Join(rdir, "users.acl"), filepath.Join(ldir, "users.acl")
		for _, f := range []string{rdsFile, lkvFile} {
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rname, lname := rdsFile, lkvFile
		if relative {
			rname, lname = "users.acl", "users.acl"
		}
		rargs = append(rargs, "--aclfile", rname)
		cfg["aclfile"] = lname
	}
	for i := 0; i+1 < len(extra); i += 2 {
		rargs = append(rargs, "--"+extra[i], extra[i+1])
		cfg[extra[i]] = extra[i+1]
	}
	c, p := startRedisOn(t, rdir, rargs...)
	c.Close()
	srv, err := limitkv.Start(limitkv.Options{Dir: ldir, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return p.Addr, srv.Addr(), rdsFile, lkvFile
}

// aclClean deletes the users the cases make and empties the log.
func aclClean() []Cmd {
	return []Cmd{
		C("ACL", "DELUSER", "u", "v", "w", "acme", "x y"),
		C("ACL", "LOG", "RESET"),
	}
}

func aclCase(name string, cmds ...Cmd) Case {
	return Case{Name: name, Cmds: append(aclClean(), cmds...)}
}

// aclLogSame compares ACL LOG replies: every field byte for byte except
// age-seconds (a small non-negative number on both) and client-info, of
// which the fields listed are compared.
func aclLogSame(fields ...string) func(rds, lkv *Reply) error {
	return func(rds, lkv *Reply) error {
		if rds.Type != lkv.Type || len(rds.Elems) != len(lkv.Elems) {
			return fmt.Errorf("shapes differ")
		}
		for i := range rds.Elems {
			a, b := rds.Elems[i], lkv.Elems[i]
			if a.Type != b.Type || len(a.Elems) != len(b.Elems) || len(a.Elems) != 14 {
				return fmt.Errorf("entry %d: shapes differ", i)
			}
			for j := 0; j < 14; j += 2 {
				ka, va, vb := a.Elems[j].Str, a.Elems[j+1], b.Elems[j+1]
				if string(a.Elems[j].Raw) != string(b.Elems[j].Raw) {
					return fmt.Errorf("entry %d: field %d is %q and %q", i, j/2, a.Elems[j].Raw, b.Elems[j].Raw)
				}
				switch ka {
				case "age-seconds":
					for _, v := range []*Reply{va, vb} {
						f, err := strconv.ParseFloat(v.Str, 64)
						if err != nil || f < 0 || f > 30 || v.Type != va.Type {
							return fmt.Errorf("entry %d: age-seconds %q, %q", i, va.Raw, vb.Raw)
						}
					}
				case "client-info":
					x, y := pickClientFields(va.Str, fields), pickClientFields(vb.Str, fields)
					if x != y {
						return fmt.Errorf("entry %d: client-info %q vs %q", i, x, y)
					}
				default:
					if string(va.Raw) != string(vb.Raw) {
						return fmt.Errorf("entry %d: %s is %q and %q", i, ka, va.Raw, vb.Raw)
					}
				}
			}
		}
		return nil
	}
}

var logFields = []string{"name", "db", "user", "cmd", "multi", "sub", "psub", "resp"}

func TestACLUsers(t *testing.T) {
	rds, lkv, _, _ := aclPair(t, false)
	hash := "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8" // "password"
	runCasesOn(t, rds, lkv, []Case{
		aclCase("default user",
			C("ACL", "LIST"), C("ACL", "USERS"), C("ACL", "GETUSER", "default"), C("ACL", "WHOAMI"),
			C("ACL", "GETUSER", "nosuch")),
		aclCase("setuser and list",
			C("ACL", "SETUSER", "u"), C("ACL", "GETUSER", "u"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "on", ">p1", "~{acme}:*", "+@all"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "v", "on", "nopass", "+@read", "-get", "~k*", "%R~r*", "%W~w*", "%RW~b*", "&ch", "&ch2", "(+set ~s* &x)"),
			C("ACL", "GETUSER", "v"), C("ACL", "LIST"), C("ACL", "USERS")),
		aclCase("passwords",
			C("ACL", "SETUSER", "u", ">a", ">b", ">a", "#"+hash), C("ACL", "GETUSER", "u"),
			C("ACL", "SETUSER", "u", "<a", "!"+hash), C("ACL", "GETUSER", "u"),
			C("ACL", "SETUSER", "u", "<zz"), C("ACL", "SETUSER", "u", "!"+strings.ToUpper(hash)),
			C("ACL", "SETUSER", "u", "#"+hash[:63]), C("ACL", "SETUSER", "u", "nopass"), C("ACL", "GETUSER", "u"),
			C("ACL", "SETUSER", "u", ">x"), C("ACL", "LIST"), C("ACL", "SETUSER", "u", "resetpass"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", ">"), C("ACL", "LIST")),
		aclCase("flags and reset",
			C("ACL", "SETUSER", "u", "on", "off", "on", "skip-sanitize-payload"), C("ACL", "GETUSER", "u"),
			C("ACL", "SETUSER", "u", "sanitize-payload", "allkeys", "allchannels", "allcommands"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "(+get ~a)", "(", "+set", "~b", ")"), C("ACL", "LIST"), C("ACL", "GETUSER", "u"),
			C("ACL", "SETUSER", "u", "clearselectors"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset"), C("ACL", "LIST"), C("ACL", "GETUSER", "u"),
			C("ACL", "SETUSER", "u", "~a", "resetkeys", "&c", "resetchannels", "nocommands"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "RESET", "ON", "ALLKEYS", "~*"), C("ACL", "LIST")),
		aclCase("command rules",
			C("ACL", "SETUSER", "u", "reset", "+@all", "-@dangerous"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+@read", "+@write"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "+@all", "-@admin"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+@hash", "+@string"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "+@all", "-@keyspace", "-@pubsub"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+@fast"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+@sortedset", "+@list"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+@scripting", "+@transaction", "+@connection"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "+@all", "-@write"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+config|get"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "+@all", "-client|kill"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "+@all", "-get", "+get"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "+@ALL", "-GET"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+select|0"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+select|0", "+select"), C("ACL", "LIST"),
			C("ACL", "SETUSER", "u", "reset", "-@all", "+select|0", "-select"), C("ACL", "LIST")),
		aclCase("setuser errors",
			C("ACL", "SETUSER", "x y"), C("ACL", "SETUSER", "x\x00y"),
			C("ACL", "SETUSER", "u", "(+get"), C("ACL", "SETUSER", "u", "on", "(+get", "~a"),
			C("ACL", "SETUSER", "u", "+nosuch"), C("ACL", "SETUSER", "u", "-nosuch"), C("ACL", "SETUSER", "u", "+@nosuch"),
			C("ACL", "SETUSER", "u", "-@"), C("ACL", "SETUSER", "u", "+"), C("ACL", "SETUSER", "u", "bogus"),
			C("ACL", "SETUSER", "u", "~a", "allkeys", "~b"), C("ACL", "SETUSER", "u", "&a", "allchannels", "&b"),
			C("ACL", "SETUSER", "u", "~a b"), C("ACL", "SETUSER", "u", "%X~a"), C("ACL", "SETUSER", "u", "%RR~a"),
			C("ACL", "SETUSER", "u", "+config|get|x"), C("ACL", "SETUSER", "u", "+config|nosuch"),
			C("ACL", "SETUSER", "u", "+get|"), C("ACL", "SETUSER", "u", "(+get) (~a b)"),
			C("ACL", "SETUSER", "u", "(nosuch)"),
			// Nothing of a refused SETUSER applies, and no user was made.
			C("ACL", "SETUSER", "u", "on", "+nosuch"), C("ACL", "USERS"),
			C("ACL", "SETUSER"), C("ACL", "GETUSER"), C("ACL", "GETUSER", "a", "b"), C("ACL", "DELUSER"),
			C("ACL", "DELUSER", "default"), C("ACL", "DELUSER", "u", "default"), C("ACL", "USERS")),
		aclCase("deluser",
			C("ACL", "SETUSER", "u"), C("ACL", "SETUSER", "v"), C("ACL", "DELUSER", "u", "nosuch", "v", "u"),
			C("ACL", "DELUSER", "nosuch"), C("ACL", "USERS")),
		aclCase("subcommands and errors",
			C("ACL"), C("ACL", "NOSUCH"), C("ACL", "HELP"), C("ACL", "HELP", "x"), C("ACL", "LIST", "x"),
			C("ACL", "USERS", "x"), C("ACL", "WHOAMI", "x"), C("ACL", "CAT", "a", "b"),
			C("ACL", "GENPASS", "1", "2"), C("ACL", "LOG", "1", "2"), C("ACL", "SAVE"), C("ACL", "LOAD"),
			C("ACL", "SAVE", "x"), C("ACL", "LOAD", "x"), C("ACL", "DRYRUN", "default"), C("ACL", "DRYRUN", "default", "x")),
		aclCase("cat",
			C("ACL", "CAT"), C("ACL", "CAT", "nosuch"), C("ACL", "CAT", "x").On(1)),
	})
	// limitkv has part of Redis's commands: a category lists, in any order,
	// those of Redis's members that limitkv has.
	var cats []Cmd
	for _, cat := range []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
		"hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
		"transaction", "scripting", "Hash"} {
		cats = append(cats, C("ACL", "CAT", cat).Check("members limitkv has", sameKnownMembers(t, rds, lkv)))
	}
	runCasesOn(t, rds, lkv, []Case{
		{Name: "cat members", Cmds: cats},
		aclCase("genpass",
			C("ACL", "GENPASS").Check("64 hex digits", hexLen(64)), C("ACL", "GENPASS", "1").Check("1 hex digit", hexLen(1)),
			C("ACL", "GENPASS", "5").Check("2 hex digits", hexLen(2)), C("ACL", "GENPASS", "4096").Check("1024", hexLen(1024)),
			C("ACL", "GENPASS", "0"), C("ACL", "GENPASS", "4097"), C("ACL", "GENPASS", "-1"), C("ACL", "GENPASS", "x")),
		aclCase("dryrun",
			C("ACL", "SETUSER", "u", "on", "nopass", "~{acme}:*", "&news", "+@all", "-flushall", "-config|set"),
			C("ACL", "DRYRUN", "u", "SET", "{acme}:a", "1"), C("ACL", "DRYRUN", "u", "set", "{other}:a", "1"),
			C("ACL", "DRYRUN", "u", "MSET", "{acme}:a", "1", "b", "2"), C("ACL", "DRYRUN", "u", "flushall"),
			C("ACL", "DRYRUN", "u", "config", "set", "a", "b"), C("ACL", "DRYRUN", "u", "config", "get", "a"),
			C("ACL", "DRYRUN", "u", "config"), C("ACL", "DRYRUN", "u", "config", "nosuch"),
			C("ACL", "DRYRUN", "u", "publish", "news", "x"), C("ACL", "DRYRUN", "u", "publish", "ads", "x"),
			C("ACL", "DRYRUN", "u", "subscribe", "news", "ads"), C("ACL", "DRYRUN", "u", "psubscribe", "n*"),
			C("ACL", "DRYRUN", "u", "get"), C("ACL", "DRYRUN", "u", "nosuch"), C("ACL", "DRYRUN", "nosuch", "get", "a"),
			C("ACL", "DRYRUN", "u", "eval", "return 1", "1", "{b}"),
			C("ACL", "SETUSER", "v", "on", "nopass", "%R~r*", "%W~w*", "+@all"),
			C("ACL", "DRYRUN", "v", "get", "r1"), C("ACL", "DRYRUN", "v", "get", "w1"), C("ACL", "DRYRUN", "v", "set", "w1", "x"),
			C("ACL", "DRYRUN", "v", "set", "r1", "x"), C("ACL", "DRYRUN", "v", "copy", "r1", "w1"),
			C("ACL", "DRYRUN", "v", "copy", "w1", "r1"), C("ACL", "DRYRUN", "v", "lmove", "r1", "w1", "left", "left"),
			C("ACL", "DRYRUN", "v", "set", "w1", "x", "get"), C("ACL", "DRYRUN", "v", "sort", "r1"),
			C("ACL", "DRYRUN", "v", "sort", "r1", "store", "r2"),
			C("ACL", "SETUSER", "w", "on", "nopass", "-@all", "+get", "~a", "(+set ~b)", "(+get ~c)"),
			C("ACL", "DRYRUN", "w", "get", "a"), C("ACL", "DRYRUN", "w", "get", "b"), C("ACL", "DRYRUN", "w", "get", "c"),
			C("ACL", "DRYRUN", "w", "set", "b", "1"), C("ACL", "DRYRUN", "w", "set", "a", "1"), C("ACL", "DRYRUN", "w", "del", "a"),
			C("ACL", "SETUSER", "w", "reset", "on", "-@all", "+select|1"),
			C("ACL", "DRYRUN", "w", "select", "1"), C("ACL", "DRYRUN", "w", "select", "2")),
	})
}

// hexLen checks GENPASS: n lower-case hex digits on both.
func hexLen(n int) func(rds, lkv *Reply) error {
	return func(rds, lkv *Reply) error {
		for _, r := range []*Reply{rds, lkv} {
			if r.Type != '$' || len(r.Str) != n || strings.Trim(r.Str, "0123456789abcdef") != "" {
				return fmt.Errorf("want %d hex digits, got %q", n, r.Raw)
			}
		}
		return nil
	}
}

func TestACLAuthAndPermissions(t *testing.T) {
	rds, lkv, _, _ := aclPair(t, false)
	setup := C("ACL", "SETUSER", "u", "on", ">pu", "~{acme}:*", "&news", "+@all", "-flushall", "-debug")
	runCasesOn(t, rds, lkv, []Case{
		aclCase("auth as a user",
			setup, C("AUTH", "u", "pu").On(1), C("ACL", "WHOAMI").On(1),
			C("CLIENT", "INFO").On(1).Check("user", sameClientFields("user", "cmd")),
			C("AUTH", "u", "wrong").On(1), C("ACL", "WHOAMI").On(1), C("AUTH", "nosuch", "x").On(1),
			C("AUTH", "default", "x").On(1), C("ACL", "WHOAMI").On(1),
			C("ACL", "LOG").Check("log", aclLogSame(logFields...)),
			C("ACL", "SETUSER", "u", "off"), C("AUTH", "u", "pu").On(2), C("ACL", "WHOAMI").On(1),
			C("ACL", "SETUSER", "v", "on", "nopass"), C("AUTH", "v", "anything").On(2), C("ACL", "WHOAMI").On(2),
			C("AUTH", "x").On(3), C("ACL", "LOG", "2").Check("log", aclLogSame(logFields...))),
		aclCase("hello auth",
			setup, C("HELLO", "2", "AUTH", "u", "pu", "SETNAME", "app").On(1).Check("hello", sameButHelloID), C("ACL", "WHOAMI").On(1),
			C("HELLO", "2", "AUTH", "u", "no").On(2), C("ACL", "WHOAMI").On(2),
			C("ACL", "LOG").Check("log", aclLogSame(logFields...))),
		aclCase("reset returns to default",
			setup, C("AUTH", "u", "pu").On(1), C("RESET").On(1), C("ACL", "WHOAMI").On(1)),
		aclCase("noperm",
			setup, C("AUTH", "u", "pu").On(1),
			C("SET", "{acme}:a", "1").On(1), C("SET", "{other}:a", "1").On(1), C("MSET", "{acme}:b", "1", "{x}:c", "2").On(1),
			C("GET", "{other}:a").On(1), C("FLUSHALL").On(1), C("DEBUG", "SLEEP", "0").On(1),
			C("PUBLISH", "news", "x").On(1), C("PUBLISH", "ads", "x").On(1), C("SUBSCRIBE", "news", "ads").On(1),
			C("PSUBSCRIBE", "n*").On(1),
			C("ACL", "LOG").Check("log", aclLogSame(logFields...)),
			C("ACL", "LOG", "1").Check("log", aclLogSame(logFields...)), C("ACL", "LOG", "-1"),
			C("ACL", "LOG", "RESET"), C("ACL", "LOG")),
		aclCase("log groups repeats",
			setup, C("AUTH", "u", "pu").On(1),
			C("GET", "{other}:a").On(1), C("GET", "{other}:a").On(1), C("GET", "{other}:b").On(1), C("GET", "{other}:a").On(1),
			C("ACL", "LOG").Check("log", aclLogSame(logFields...))),
		aclCase("noperm in multi",
			setup, C("AUTH", "u", "pu").On(1),
			C("MULTI").On(1), C("SET", "{acme}:a", "1").On(1), C("SET", "{other}:a", "1").On(1), C("EXEC").On(1),
			C("MULTI").On(1), C("FLUSHALL").On(1), C("EXEC").On(1),
			C("MULTI").On(1), C("SET", "{acme}:a", "1").On(1), C("GET", "{acme}:a").On(1), C("PUBLISH", "news", "x").On(1),
			C("ACL", "SETUSER", "u", "resetkeys", "~{acme}:b", "resetchannels"),
			C("EXEC").On(1),
			C("ACL", "LOG").Check("log", aclLogSame(logFields...))),
		aclCase("exec refused",
			C("ACL", "SETUSER", "u", "on", ">pu", "~*", "+@all", "-exec"), C("AUTH", "u", "pu").On(1),
			C("MULTI").On(1), C("SET", "a", "1").On(1), C("EXEC").On(1), C("EXEC").On(1), C("GET", "a").On(1),
			C("ACL", "LOG").Check("log", aclLogSame(logFields...))),
		aclCase("log length",
			C("CONFIG", "GET", "acllog-max-len"), C("CONFIG", "SET", "acllog-max-len", "2"), C("CONFIG", "SET", "acllog-max-len", "-1"),
			C("AUTH", "a", "x"), C("AUTH", "b", "x"), C("AUTH", "c", "x"),
			C("ACL", "LOG").Check("log", aclLogSame(logFields...)), C("ACL", "LOG", "0"),
			C("CONFIG", "SET", "acllog-max-len", "0"), C("AUTH", "d", "x"), C("ACL", "LOG"),
			C("CONFIG", "SET", "acllog-max-len", "128")),
		aclCase("noperm in scripts",
			setup, C("AUTH", "u", "pu").On(1),
			C("EVAL", "return redis.call('set', KEYS[1], 1)", "1", "{acme}:a").On(1),
			C("EVAL", "return redis.call('get', '{other}:b')", "0").On(1),
			C("EVAL", "return redis.pcall('get', '{other}:b')", "0").On(1),
			C("EVAL", "return redis.pcall('flushall')", "0").On(1),
			C("EVAL", "return redis.pcall('publish', 'ads', 'x')", "0").On(1),
			C("EVAL", "return 1", "1", "{other}:k").On(1),
			C("EVAL", "return {redis.acl_check_cmd('set', '{acme}:a', 1), redis.acl_check_cmd('set', '{x}:a', 1), redis.acl_check_cmd('flushall'), redis.acl_check_cmd('get'), redis.acl_check_cmd('config', 'get', 'x'), redis.acl_check_cmd('get', '{x}:k')}", "0").On(1),
			C("EVAL", "return redis.acl_check_cmd('nosuch')", "0").On(1),
			C("EVAL", "return redis.acl_check_cmd()", "0").On(1),
			C("EVAL", "return redis.acl_check_cmd({})", "0").On(1),
			C("EVAL", "return redis.acl_check_cmd('config', 'nosuch')", "0").On(1),
			C("EVAL", "return redis.acl_check_cmd('publish', 'ads', 'x')", "0").On(1),
			C("FUNCTION", "LOAD", "REPLACE", "#!lua name=acltest\nredis.register_function('g', function(keys) return redis.call('get', keys[1]) end)"),
			C("FCALL", "g", "1", "{acme}:a").On(1), C("FCALL", "g", "1", "{x}:a").On(1), C("FUNCTION", "DELETE", "acltest"),
			C("ACL", "LOG").Check("log", aclLogSame("name", "db", "user", "cmd", "multi", "resp"))),
		aclCase("client list and kill by user",
			setup, C("AUTH", "u", "pu").On(1), C("CLIENT", "SETNAME", "one").On(1),
			C("CLIENT", "KILL", "USER", "nosuch"), C("CLIENT", "KILL", "USER", "u"), C("PING").On(1),
			C("CLIENT", "KILL", "USER", "u")),
		aclCase("deleted user disconnects",
			setup, C("AUTH", "u", "pu").On(1), C("AUTH", "u", "pu").On(2), C("ACL", "DELUSER", "u").On(2), C("PING").On(1),
			C("ACL", "WHOAMI").On(3)),
		aclCase("revoked channel drops a subscriber",
			setup, C("AUTH", "u", "pu").On(1), C("SUBSCRIBE", "news").On(1),
			// A superset of the channels keeps the subscriber.
			C("ACL", "SETUSER", "u", "&other"), C("PUBLISH", "news", "x"), C("PING").On(1).Replies(2),
			C("ACL", "SETUSER", "u", "resetchannels"), C("PUBLISH", "news", "x"), C("PING").On(1)),
		aclCase("default user restricted",
			C("ACL", "SETUSER", "default", "resetkeys", "~d*"), C("SET", "a", "1"), C("SET", "d1", "1"),
			C("ACL", "SETUSER", "default", "~*"), C("SET", "a", "1")),
	})
}

// TestACLRequirePass: requirepass is the default user's password.
func TestACLRequirePass(t *testing.T) {
	rds, lkv, _, _ := aclPair(t, false)
	runCasesOn(t, rds, lkv, []Case{{Name: "requirepass sets the default user's password", RESP2Only: "sets and clears server settings in order", Cmds: []Cmd{
		C("CONFIG", "SET", "requirepass", "pw"), C("ACL", "GETUSER", "default"), C("ACL", "LIST"),
		C("PING").On(1), C("AUTH", "pw").On(1), C("ACL", "WHOAMI").On(1),
		C("ACL", "SETUSER", "default", ">second"), C("CONFIG", "GET", "requirepass"), C("AUTH", "second").On(2),
		C("CONFIG", "SET", "requirepass", "third"), C("ACL", "LIST"), C("AUTH", "second").On(3), C("AUTH", "third").On(3),
		C("ACL", "SETUSER", "default", "nopass"), C("CONFIG", "GET", "requirepass"), C("PING").On(4), C("AUTH", "x").On(4),
		C("ACL", "SETUSER", "default", "resetpass"), C("PING").On(5), C("AUTH", "default", "x").On(5),
		C("CONFIG", "SET", "requirepass", ""), C("ACL", "LIST"), C("PING").On(6), C("AUTH", "x").On(6),
		C("ACL", "SETUSER", "default", "off"), C("PING").On(7), C("HELLO", "3").On(7),
		C("ACL", "SETUSER", "default", "on"), C("PING").On(8),
		C("ACL", "LOG").Check("log", aclLogSame(logFields...)),
	}}})
}

// TestACLFile: ACL SAVE writes the same file as Redis, and ACL LOAD reads
// it back (or refuses a broken one, changing nothing).
func TestACLFile(t *testing.T) {
	for _, relative := range []bool{false, true} {
		t.Run(fmt.Sprintf("relative=%v", relative), func(t *testing.T) { testACLFile(t, relative) })
	}
}

func testACLFile(t *testing.T, relative bool) {
	rds, lkv, rfile, lfile := aclPairFile(t, true, relative)
	write := func(text string) Cmd {
		return C("PING").Check("write the files", func(a, b *Reply) error {
			for _, f := range []string{rfile, lfile} {
				if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
					return err
				}
			}
			return nil
		})
	}
	sameFiles := C("PING").Check("same files", func(a, b *Reply) error {
		x, err := os.ReadFile(rfile)
		if err != nil {
			return err
		}
		y, err := os.ReadFile(lfile)
		if err != nil {
			return err
		}
		if string(x) != string(y) {
			return fmt.Errorf("redis wrote %q, limitkv %q", x, y)
		}
		return nil
	})
	// The messages name each server's own file.
	samePath := func(a, b *Reply) error {
		x := strings.ReplaceAll(string(a.Raw), rfile, "FILE")
		y := strings.ReplaceAll(string(b.Raw), lfile, "FILE")
		if x != y {
			return fmt.Errorf("redis %q, limitkv %q", x, y)
		}
		return nil
	}
	runCasesOn(t, rds, lkv, []Case{{Name: "save and load", RESP2Only: "changes the files in order", Cmds: []Cmd{
		C("CONFIG", "GET", "aclfile").Check("path", samePath), C("CONFIG", "SET", "aclfile", "x"),
		C("ACL", "SETUSER", "u", "on", ">p", "~a*", "&c", "-@all", "+get", "(+set ~b)"),
		C("ACL", "SETUSER", "v", "off", "nopass", "+@all", "-@dangerous", "%R~r"),
		C("ACL", "SAVE"), sameFiles,
		C("AUTH", "u", "p").On(1), C("ACL", "WHOAMI").On(1),
		C("ACL", "DELUSER", "v"), C("ACL", "LOAD"), C("ACL", "LIST"),
		// The users were replaced: their connections are gone.
		C("ACL", "WHOAMI").On(1),
		write("user default on nopass ~* &* +@all\nuser w on >x ~* +@read\n\n  user z off\n"),
		C("ACL", "LOAD"), C("ACL", "LIST"),
		write("user w on +nosuch\nnotuser x\nuser w\nuser q on badrule\nuser q (+get\n"),
		C("ACL", "LOAD").Check("errors", samePath), C("ACL", "LIST"),
		write("user w on\n"),
		C("ACL", "LOAD"), C("ACL", "LIST"),
		C("ACL", "SAVE"), sameFiles,
	}}})
}

// sameKnownMembers compares a list of command names with Redis's, over the
// commands both have (COMMAND LIST lists every command and subcommand a
// server has): limitkv's own (RL.*) are in README's categories.
func sameKnownMembers(t *testing.T, rdsAddr, lkvAddr string) func(rds, lkv *Reply) error {
	list := func(name, addr string) map[string]bool {
		c := dialRaw(t, name, addr)
		defer c.Close()
		have := map[string]bool{}
		for _, e := range c.MustDo(t, "COMMAND", "LIST").Elems {
			have[e.Str] = true
		}
		return have
	}
	inRedis, inLkv := list("redis", rdsAddr), list("limitkv", lkvAddr)
	return func(rds, lkv *Reply) error {
		var want, got []string
		for _, e := range rds.Elems {
			if inLkv[e.Str] {
				want = append(want, e.Str)
			}
		}
		for _, e := range lkv.Elems {
			if inRedis[e.Str] {
				got = append(got, e.Str)
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, " ") != strings.Join(got, " ") {
			return fmt.Errorf("redis's members limitkv has: %v\nlimitkv: %v", want, got)
		}
		return nil
	}
}

// A server whose ACL file has an error does not start, with Redis's words.
func TestACLFileAtStart(t *testing.T) {
	requireServers(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "users.acl")
	if err := os.WriteFile(f, []byte("user u on +nosuch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := testredis.Start(testredis.Options{Path: redisServerPath, Dir: dir, Args: []string{"--aclfile", f}})
	if err == nil {
		p.Stop()
	}
	const prefix = "Aborting Redis startup because of ACL errors: "
	var out string
	if err != nil {
		out = err.Error()
	}
	i := strings.Index(out, prefix)
	if err == nil || i < 0 {
		t.Fatalf("redis-server: %v", err)
	}
	want := strings.TrimSpace(out[i:])
	srv, err := limitkv.Start(limitkv.Options{Config: limitkv.Config{"aclfile": f}})
	if err == nil {
		srv.Close()
		t.Fatal("limitkv started")
	}
	if got := strings.TrimPrefix(err.Error(), "limitkv: "); got != want {
		t.Errorf("limitkv: %q\nredis:   %q", got, want)
	}
	os.Remove(f)
	if srv, err := limitkv.Start(limitkv.Options{Config: limitkv.Config{"aclfile": f}}); err == nil {
		srv.Close()
		t.Error("limitkv started without its ACL file")
	}
}
