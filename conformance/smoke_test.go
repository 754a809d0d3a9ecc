package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// sameHelloButID compares two HELLO 2 replies field by field except the
// value of "id", which names each server's own connection.
func sameHelloButID(rds, lkv *Reply) error {
	if rds.Type != lkv.Type || (rds.Type != '*' && rds.Type != '%') || len(rds.Elems) != len(lkv.Elems) {
		return fmt.Errorf("shapes differ: %q vs %q", rds.Raw, lkv.Raw)
	}
	for i := 0; i+1 < len(rds.Elems); i += 2 {
		if rds.Elems[i].Str == "id" {
			if rds.Elems[i+1].Type != ':' || lkv.Elems[i+1].Type != ':' {
				return fmt.Errorf("id is not an integer")
			}
			continue
		}
		if string(rds.Elems[i].Raw)+string(rds.Elems[i+1].Raw) != string(lkv.Elems[i].Raw)+string(lkv.Elems[i+1].Raw) {
			return fmt.Errorf("field %d differs: %q vs %q", i/2, rds.Elems[i+1].Raw, lkv.Elems[i+1].Raw)
		}
	}
	return nil
}

func TestSmoke(t *testing.T) {
	long := strings.Repeat("x", 300)
	runCases(t, []Case{
		{Name: "ping", Cmds: []Cmd{C("PING")}},
		{Name: "hello 2", Cmds: []Cmd{C("HELLO").Check("same map but the client id", sameHelloButID), C("HELLO", "2").Check("same map but the client id", sameHelloButID)}},
		{Name: "hello bad versions", Cmds: []Cmd{C("HELLO", "1"), C("HELLO", "4"), C("HELLO", "x"), C("HELLO", "2", "BOGUS"), C("HELLO", "2", "SETNAME", "a b")}},
		{Name: "hello 3", Cmds: []Cmd{C("HELLO", "3").Check("same map but the client id", sameHelloButID),
			C("HELLO").Check("same map but the client id", sameHelloButID), C("GET", "nokey"), C("HELLO", "2").Check("same map but the client id", sameHelloButID),
			C("GET", "nokey"), C("HELLO", "3", "SETNAME", "n3").Check("same map but the client id", sameHelloButID), C("CLIENT", "GETNAME"),
			C("RESET"), C("GET", "nokey")}},
		{Name: "ping lowercase", Cmds: []Cmd{C("ping"), C("PiNg")}},
		{Name: "ping msg", Cmds: []Cmd{C("PING", "hello world")}},
		{Name: "ping empty msg", Cmds: []Cmd{C("PING", "")}},
		{Name: "ping binary msg", Cmds: []Cmd{C("PING", "a\x00b\r\nc\xff")}},
		{Name: "ping arity", Cmds: []Cmd{C("PING", "a", "b")}},
		{Name: "echo", Cmds: []Cmd{C("ECHO", "hello")}},
		{Name: "echo empty", Cmds: []Cmd{C("ECHO", "")}},
		{Name: "echo binary", Cmds: []Cmd{C("ECHO", "\x00\x01\r\n\xfe\xff")}},
		{Name: "echo arity", Cmds: []Cmd{C("ECHO"), C("ECHO", "a", "b"), C("echo")}},
		{Name: "unknown command", Cmds: []Cmd{C("FOO", "a", "b")}},
		{Name: "unknown command no args", Cmds: []Cmd{C("FOO")}},
		{Name: "unknown command keeps case", Cmds: []Cmd{C("fOo", "A")}},
		{Name: "unknown command empty name", Cmds: []Cmd{C("")}},
		{Name: "unknown command long args", Cmds: []Cmd{C("FOO", long, "b"), C("FOO", "a", long), C(long)}},
		{Name: "unknown command newline in args", Cmds: []Cmd{C("FOO", "a\r\nb", "c\nd")}},
		{Name: "inline ping", Cmds: []Cmd{Raw("PING\r\n"), Raw("ping hi\r\n")}},
		{Name: "pipelined steps", Cmds: []Cmd{Raw("PING\r\nECHO x\r\n").Replies(2), C("PING")}},
	})
}

// TestSmokeGoRedis runs go-redis v9 against both servers in each protocol
// (its default is RESP3: HELLO 3 on every connection), through commands
// whose replies RESP3 types differently.
func TestSmokeGoRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			rds, lkv := newClients(t, func(o *redis.Options) { o.Protocol = proto })
			ctx := context.Background()
			key := fmt.Sprintf("smoke:%d:", proto)
			type result struct {
				ping, set, get string
				missErr        string
				score          float64
				withScores     []redis.Z
				popped         []redis.Z
				config         map[string]string
				resp           string
			}
			run := func(name string, cl *redis.Client) result {
				var r result
				var err error
				if r.ping, err = cl.Ping(ctx).Result(); err != nil {
					t.Fatalf("%s: PING: %v", name, err)
				}
				if r.set, err = cl.Set(ctx, key+"k", "v\x00\r\nw", 0).Result(); err != nil {
					t.Fatalf("%s: SET: %v", name, err)
				}
				if r.get, err = cl.Get(ctx, key+"k").Result(); err != nil {
					t.Fatalf("%s: GET: %v", name, err)
				}
				if _, err = cl.Get(ctx, key+"missing").Result(); err != nil {
					r.missErr = err.Error()
				}
				cl.Del(ctx, key+"z")
				cl.ZAdd(ctx, key+"z", redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 3, Member: "c"})
				if r.score, err = cl.ZScore(ctx, key+"z", "a").Result(); err != nil {
					t.Fatalf("%s: ZSCORE: %v", name, err)
				}
				if r.withScores, err = cl.ZRangeWithScores(ctx, key+"z", 0, -1).Result(); err != nil {
					t.Fatalf("%s: ZRANGE WITHSCORES: %v", name, err)
				}
				if r.popped, err = cl.ZPopMin(ctx, key+"z", 2).Result(); err != nil {
					t.Fatalf("%s: ZPOPMIN: %v", name, err)
				}
				if r.config, err = cl.ConfigGet(ctx, "maxmemory-policy").Result(); err != nil {
					t.Fatalf("%s: CONFIG GET: %v", name, err)
				}
				info, err := cl.ClientInfo(ctx).Result()
				if err != nil {
					t.Fatalf("%s: CLIENT INFO: %v", name, err)
				}
				r.resp = fmt.Sprint(info.Resp)
				return r
			}
			want, got := run("redis", rds), run("limitkv", lkv)
			if fmt.Sprintf("%+v", want) != fmt.Sprintf("%+v", got) {
				t.Errorf("go-redis results differ:\n  redis:   %+v\n  limitkv: %+v", want, got)
			}
			if want.get != "v\x00\r\nw" || want.missErr != "redis: nil" || want.resp != fmt.Sprint(proto) {
				t.Errorf("oracle sanity check failed: %+v", want)
			}
		})
	}
}
