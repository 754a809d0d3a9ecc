package limiter

import (
	"crypto/sha1"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestForeignScriptSHA1s(t *testing.T) {
	for _, c := range []struct{ text, sha string }{
		{RedisRateAllowNScript, RedisRateAllowNSHA1},
		{RedisRateAllowAtMostScript, RedisRateAllowAtMostSHA1},
		{RLFConsumeScript, RLFConsumeSHA1},
	} {
		h := sha1.Sum([]byte(c.text))
		if got := hex.EncodeToString(h[:]); got != c.sha {
			t.Errorf("SHA1 %s, constant says %s", got, c.sha)
		}
	}
}

// The texts here are the module's, byte for byte.
func TestRedisRateScriptsMatchModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-redis/redis_rate/v10").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "lua.go"))
	if err != nil {
		t.Skip(err)
	}
	for name, text := range map[string]string{"allowN": RedisRateAllowNScript, "allowAtMost": RedisRateAllowAtMostScript} {
		if !strings.Contains(string(src), "var "+name+" = redis.NewScript(`"+text+"`)") {
			t.Errorf("%s differs from the module's lua.go", name)
		}
	}
}

// With one request a second every figure is an exact float, so the
// expected replies can be written down; the differential test covers the
// inexact ones.
func TestRedisRateModel(t *testing.T) {
	a := RedisRateArgs{Burst: 10, Rate: 1, Period: 1}
	sec, usec := int64(1_764_000_000), int64(0)
	now := float64(sec - RedisRateEpoch)
	at := func(off float64) Value { return Value{Kind: String, Str: luaNum(now + off), TTL: 7000} }
	cases := []struct {
		name  string
		fn    func(Value, int64, int64, RedisRateArgs) (RedisRateReply, Value, bool, error)
		v     Value
		cost  float64
		reply RedisRateReply
		after Value
	}{
		{"first", RedisRateAllowN, Value{}, 1, RedisRateReply{1, 9, "-1", "1"}, Value{Kind: String, Str: luaNum(now + 1), TTL: 1000}},
		{"zero cost writes nothing", RedisRateAllowN, Value{}, 0, RedisRateReply{0, 10, "-1", "0"}, Value{}},
		{"burst used up", RedisRateAllowN, at(10), 1, RedisRateReply{0, 0, "1", "10"}, at(10)},
		{"stale TAT counts from now", RedisRateAllowN, at(-5), 2, RedisRateReply{2, 8, "-1", "2"}, Value{Kind: String, Str: luaNum(now + 2), TTL: 2000}},
		{"at most takes what is left", RedisRateAllowAtMost, at(7), 5, RedisRateReply{3, 0, "-1", "10"}, Value{Kind: String, Str: luaNum(now + 10), TTL: 10000}},
		{"at most refused", RedisRateAllowAtMost, at(9.5), 5, RedisRateReply{0, 0, "0.5", "9.5"}, at(9.5)},
		{"TTL rounds up to seconds", RedisRateAllowAtMost, at(2.25), 1, RedisRateReply{1, 6, "-1", "3.25"}, Value{Kind: String, Str: luaNum(now + 3.25), TTL: 4000}},
	}
	for _, c := range cases {
		a.Cost = c.cost
		r, after, _, err := c.fn(c.v, sec, usec, a)
		if err != nil || r != c.reply || !after.Equal(c.after, 0) {
			t.Errorf("%s: reply %+v %v, want %+v; state %v, want %v", c.name, r, err, c.reply, after, c.after)
		}
	}
}

// redis_rate's scripts read TIME; to drive them with the test's clock the
// one call is replaced by the same two strings TIME would answer, and the
// rest of the text runs unchanged.
func withPassedTime(t *testing.T, script string) string {
	const call = `redis.call("TIME")`
	if strings.Count(script, call) != 1 {
		t.Fatalf("script has %d TIME calls", strings.Count(script, call))
	}
	return strings.Replace(script, call, `{ARGV[5], ARGV[6]}`, 1)
}

func TestRedisRateDifferential(t *testing.T) {
	d := newDiffer(t)
	rng := rand.New(rand.NewPCG(3, 4))
	allowN, atMost := withPassedTime(t, RedisRateAllowNScript), withPassedTime(t, RedisRateAllowAtMostScript)
	sec, usec := int64(1_764_000_000), int64(0)
	periods := []string{"1", "60", "3600", "0.5", "2.5"}
	counts := map[string]int{}
	for seq := 0; seq < 40; seq++ {
		d.reset()
		burst, rate, period := 1+rng.IntN(20), 1+rng.IntN(20), periods[rng.IntN(len(periods))]
		pf, _ := strconv.ParseFloat(period, 64)
		stepUs := int64(pf / float64(rate) * 2e6)
		for i := 0; i < 150; i++ {
			if rng.IntN(20) == 0 {
				usec -= rng.Int64N(2e6)
			} else if rng.IntN(5) > 0 {
				usec += rng.Int64N(stepUs + 1)
			}
			sec, usec = sec+floorDiv(usec, 1e6), usec-floorDiv(usec, 1e6)*1e6
			cost := 1
			if rng.IntN(4) == 0 {
				cost = rng.IntN(burst + 3)
			}
			argv := []string{strconv.Itoa(burst), strconv.Itoa(rate), period, strconv.Itoa(cost)}
			a, err := ParseRedisRateArgs(argv)
			if err != nil {
				t.Fatal(err)
			}
			nowMs := sec*1000 + usec/1000
			v := d.sync(nowMs)
			fn, script, name := RedisRateAllowN, allowN, "allowN"
			if rng.IntN(2) == 0 {
				fn, script, name = RedisRateAllowAtMost, atMost, "allowAtMost"
			}
			r, after, _, err := fn(v, sec, usec, a)
			got, gerr := d.eval(script, argv[0], argv[1], argv[2], argv[3], strconv.FormatInt(sec, 10), strconv.FormatInt(usec, 10))
			d.check(nowMs, name, r.Reply(), err, after, got, gerr)
			counts[name]++
		}
	}
	t.Logf("redis_rate: %d steps matched (%v)", d.steps, counts)
}

func TestRLFModel(t *testing.T) {
	cases := []struct {
		name          string
		v             Value
		a             RLFArgs
		consumed, ttl int64
		after         Value
		err           error
	}{
		{"new key", Value{}, RLFArgs{1, 60}, 1, 60000, Value{Kind: String, Str: "1", TTL: 60000}, nil},
		{"counts on", Value{Kind: String, Str: "4", TTL: 1234}, RLFArgs{3, 60}, 7, 1234, Value{Kind: String, Str: "7", TTL: 1234}, nil},
		{"heals a key without TTL", Value{Kind: String, Str: "4", TTL: -1}, RLFArgs{1, 5}, 5, 5000, Value{Kind: String, Str: "5", TTL: 5000}, nil},
		{"not a number", Value{Kind: String, Str: "x", TTL: 10}, RLFArgs{1, 5}, 0, 0, Value{Kind: String, Str: "x", TTL: 10}, errNotInt},
		{"overflow", Value{Kind: String, Str: "9223372036854775807", TTL: 10}, RLFArgs{1, 5}, 0, 0, Value{Kind: String, Str: "9223372036854775807", TTL: 10}, errIncrOverflow},
		{"wrong type", Value{Kind: Hash, Hash: FieldsOf("a", "b"), TTL: -1}, RLFArgs{1, 5}, 0, 0, Value{Kind: Hash, Hash: FieldsOf("a", "b"), TTL: -1}, ErrWrongType},
	}
	for _, c := range cases {
		consumed, ttl, after, err := RLFConsume(c.v, c.a)
		if err != c.err || consumed != c.consumed || ttl != c.ttl || !after.Equal(c.after, 0) {
			t.Errorf("%s: %d %d %v %v", c.name, consumed, ttl, after, err)
		}
	}
	for _, c := range []struct {
		argv []string
		err  error
	}{
		{[]string{"1", "0"}, errInvalidExpire}, {[]string{"1", "x"}, errNotInt}, {[]string{"1.5", "3"}, errNotInt}, {[]string{"2", "3"}, nil},
	} {
		if _, err := ParseRLFArgs(c.argv); err != c.err {
			t.Errorf("%q: %v, want %v", c.argv, err, c.err)
		}
	}
}

func TestRLFDifferential(t *testing.T) {
	d := newDiffer(t)
	rng := rand.New(rand.NewPCG(5, 6))
	now := int64(1_764_000_000_000)
	for seq := 0; seq < 20; seq++ {
		d.reset()
		dur := 1 + rng.Int64N(5)
		for i := 0; i < 150; i++ {
			if rng.IntN(20) == 0 {
				now -= rng.Int64N(1000)
			} else {
				now += rng.Int64N(dur * 300)
			}
			if rng.IntN(40) == 0 { // a key left without TTL (RLF's duration-0 path) gets healed
				d.model = Value{Kind: String, Str: strconv.Itoa(rng.IntN(5)), TTL: -1}
				d.must(d.rdb.Set(d.ctx, d.key, d.model.Str, 0).Err())
			}
			argv := []string{strconv.Itoa(1 + rng.IntN(3)), strconv.FormatInt(dur, 10), "10", strconv.FormatInt(dur, 10)}
			a, err := ParseRLFArgs(argv)
			if err != nil {
				t.Fatal(err)
			}
			v := d.sync(now)
			consumed, ttl, after, err := RLFConsume(v, a)
			got, gerr := d.eval(RLFConsumeScript, argv[0], argv[1], argv[2], argv[3])
			// PTTL inside the script ages with the server's clock.
			d.agedReply(got, ints(consumed, ttl), 1)
			d.check(now, "rlf", ints(consumed, ttl), err, after, got, gerr)
		}
	}
	t.Logf("rate-limiter-flexible: %d steps matched", d.steps)
}
