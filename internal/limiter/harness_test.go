package limiter

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/internal/testredis"
)

// differ runs one algorithm's steps on a real redis-server and on the Go
// model side by side. The harness, not either clock, decides when a key
// expires: before each step it applies the model's TTL in simulated time
// (DEL when it has run out, else PEXPIRE to what is left), so the server's
// wall clock, which barely moves during a test, plays no part.
type differ struct {
	t        *testing.T
	ctx      context.Context
	rdb      *redis.Client
	key      string
	model    Value
	expireAt int64 // simulated ms
	steps    int
	syncAt   time.Time
	shas     map[string]string // per server: each test starts its own
}

var sharedRedis struct {
	addr string
}

func newDiffer(t *testing.T) *differ {
	t.Helper()
	if sharedRedis.addr == "" {
		p := testredis.StartT(t)
		sharedRedis.addr = p.Addr
		t.Cleanup(func() { sharedRedis.addr = "" })
	}
	rdb := redis.NewClient(&redis.Options{Addr: sharedRedis.addr, Protocol: 2})
	t.Cleanup(func() { rdb.Close() })
	d := &differ{t: t, ctx: context.Background(), rdb: rdb, key: "lim:" + t.Name(), shas: map[string]string{}}
	d.reset()
	return d
}

func (d *differ) reset() {
	if err := d.rdb.Del(d.ctx, d.key).Err(); err != nil {
		d.t.Fatal(err)
	}
	d.model = Value{}
}

// sync applies the model's expiry at simulated time now and returns the
// state both sides now hold. A TTL under shortTTL counts as run out, so the
// server cannot expire the key on its own between PEXPIRE and the script.
func (d *differ) sync(now int64) Value {
	d.syncAt = time.Now()
	if d.model.Kind != Absent && d.model.TTL >= 0 {
		if rem := d.expireAt - now; rem < shortTTL {
			d.model = Value{}
			d.must(d.rdb.Del(d.ctx, d.key).Err())
		} else {
			d.model.TTL = rem
			d.must(d.rdb.PExpire(d.ctx, d.key, ms(rem)).Err())
		}
	}
	return d.model
}

func (d *differ) must(err error) {
	if err != nil {
		d.t.Helper()
		d.t.Fatal(err)
	}
}

// eval runs a script by SHA with the differ's key.
func (d *differ) eval(script string, args ...any) (any, error) {
	sha, ok := d.shas[script]
	if !ok {
		var err error
		sha, err = d.rdb.ScriptLoad(d.ctx, script).Result()
		d.must(err)
		d.shas[script] = sha
	}
	return d.rdb.EvalSha(d.ctx, sha, []string{d.key}, args...).Result()
}

// check compares one step: the reply (or error) and then the key.
func (d *differ) check(now int64, desc string, want []any, wantErr error, after Value, got any, gotErr error) {
	d.t.Helper()
	d.steps++
	switch {
	case wantErr != nil || gotErr != nil:
		if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() {
			d.t.Fatalf("step %d %s: error: go %v, redis %v", d.steps, desc, wantErr, gotErr)
		}
	default:
		if g := normReply(got); !reflect.DeepEqual(g, want) {
			d.t.Fatalf("step %d %s: reply: go %v, redis %v (state before %v)", d.steps, desc, want, g, d.model)
		}
	}
	real := d.read()
	if real.Kind == Absent && after.Kind != Absent && after.TTL >= 0 && after.TTL <= d.aged() {
		after = Value{} // the server's clock ran the short TTL out first
	}
	// A TTL read back can only have aged, by the wall time since sync.
	if !after.Equal(real, d.aged()) || real.TTL > after.TTL {
		d.t.Fatalf("step %d %s: state: go %v, redis %v (before %v)", d.steps, desc, after, real, d.model)
	}
	d.model = after
	if after.Kind != Absent && after.TTL >= 0 {
		d.expireAt = now + after.TTL
	}
}

// aged is how many ms a TTL set at sync may since have lost (the machine
// is shared, so this is measured, not assumed).
func (d *differ) aged() int64 { return time.Since(d.syncAt).Milliseconds() + 2 }

// agedReply accepts a reply figure that is a TTL the server read: it may
// be up to aged() under the model's.
func (d *differ) agedReply(got any, want []any, idx ...int) {
	g, ok := got.([]any)
	if !ok || len(g) != len(want) {
		return
	}
	for _, i := range idx {
		w, _ := want[i].(int64)
		if n, ok := g[i].(int64); ok && w > 0 && n <= w && n >= w-d.aged() {
			g[i] = w
		}
	}
}

func normReply(v any) []any {
	xs, ok := v.([]any)
	if !ok {
		return []any{v}
	}
	out := make([]any, len(xs))
	for i, x := range xs {
		if n, ok := x.([]any); ok {
			out[i] = normReply(n)
		} else {
			out[i] = x
		}
	}
	return out
}

// read is the key as redis-cli would show it.
func (d *differ) read() Value {
	typ, err := d.rdb.Type(d.ctx, d.key).Result()
	d.must(err)
	var v Value
	switch typ {
	case "none":
		return Value{}
	case "string":
		v.Kind = String
		v.Str, err = d.rdb.Get(d.ctx, d.key).Result()
	case "hash":
		v.Kind = Hash
		var m map[string]string
		m, err = d.rdb.HGetAll(d.ctx, d.key).Result()
		for f, x := range m {
			v.Hash.Set(f, x)
		}
	case "zset":
		v.Kind = ZSet
		var zs []redis.Z
		zs, err = d.rdb.ZRangeWithScores(d.ctx, d.key, 0, -1).Result()
		for _, z := range zs {
			v.ZSet = append(v.ZSet, ZMember{Member: z.Member.(string), Score: z.Score})
		}
	default:
		d.t.Fatalf("unexpected type %s", typ)
	}
	d.must(err)
	pttl, err := d.rdb.Do(d.ctx, "PTTL", d.key).Int64()
	d.must(err)
	if pttl == -2 { // expired between the reads
		return Value{}
	}
	v.TTL = pttl
	return v
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// redisErr turns an error the Go side returns into what a script's
// error_reply looks like to the client.
func redisErr(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(err.Error())
}

func ints(xs ...int64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// shortTTL is the smallest TTL the harness leaves to the server: on a
// loaded machine (CI runs the suite with -race on 2 cores) hundreds of ms
// can pass between PEXPIRE and the script; a TTL that ran out there would
// be an expiry the model did not make. Shorter ones are applied as DEL.
const shortTTL = 1500
