package conformance

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/aof"
	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/limitkv/limitkv/ratelimit/seedscript"
)

// The AOF against the real thing: the same workload on a redis-server and
// on a limitkv binary, both with appendonly yes, must leave the same
// stream in their incremental files (absolute times compared within a
// tolerance) and the same dataset; each loads the other's AOF directory
// to the same DEBUG DIGEST, and redis-check-aof accepts limitkv's. The
// crash tests kill -9 a limitkv under load and check what survives.

var (
	lkvBinOnce sync.Once
	lkvBin     string
	lkvBinErr  error
)

// limitkvBinary builds cmd/limitkv once per test run.
func limitkvBinary(t *testing.T) string {
	t.Helper()
	lkvBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "limitkv-aof-bin")
		if err != nil {
			lkvBinErr = err
			return
		}
		lkvBin = filepath.Join(dir, "limitkv")
		out, err := exec.Command("go", "build", "-o", lkvBin, "../cmd/limitkv").CombinedOutput()
		if err != nil {
			lkvBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if lkvBinErr != nil {
		t.Fatal(lkvBinErr)
	}
	return lkvBin
}

// startLimitkvProc starts the binary on dir with args (DEBUG on) and waits
// for PING; with wantFail it waits for the process to exit instead. It is
// killed at the end of the test.
func startLimitkvProc(t *testing.T, dir string, wantFail bool, args ...string) *testredis.Proc {
	t.Helper()
	p, err := testredis.Start(testredis.Options{Path: limitkvBinary(t), Dir: dir, NoWait: wantFail,
		Timeout: 20 * time.Second, Args: append([]string{"--enable-debug-command", "yes"}, args...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	if wantFail {
		select {
		case <-p.Done():
		case <-time.After(20 * time.Second):
			t.Fatalf("limitkv did not exit; log:\n%s", p.Log())
		}
	}
	return p
}

// term stops the process with SIGINT, as an operator would, and fails the
// test if it does not stop by itself.
func term(t *testing.T, p *testredis.Proc) {
	t.Helper()
	p.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not stop; log:\n%s", filepath.Base(p.Cmd.Path), p.Log())
	}
}

// aofCmds reads every incremental file the manifest in dir names.
func aofCmds(t *testing.T, dir string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := aof.Parse("appendonly.aof", data)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, ai := range m.Incr {
		f, err := os.Open(filepath.Join(dir, ai.Name))
		if err != nil {
			t.Fatal(err)
		}
		rd := aof.NewReader(bufio.NewReader(f), 0)
		for {
			args, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", ai.Name, err)
			}
			var s []string
			for _, a := range args {
				s = append(s, string(a))
			}
			out = append(out, s)
		}
		f.Close()
	}
	return out
}

// sameStream compares two streams command by command; the argument after
// PXAT and the absolute times of PEXPIREAT and RESTORE ... ABSTTL may differ by up to tol ms (the servers' clocks
// read at different instants).
func sameStream(a, b [][]string, tol int64) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) || i >= len(b) {
			return fmt.Sprintf("lengths differ: %d and %d commands; first extra at %d: %q %q", len(a), len(b), i, at(a, i), at(b, i))
		}
		x, y := a[i], b[i]
		if len(x) != len(y) {
			return fmt.Sprintf("command %d: %q vs %q", i, x, y)
		}
		for j := range x {
			if x[j] == y[j] {
				continue
			}
			if j > 0 && (strings.EqualFold(x[j-1], "PXAT") || (j == 2 && (strings.EqualFold(x[0], "PEXPIREAT") || strings.EqualFold(x[0], "RESTORE")))) {
				n1, e1 := strconv.ParseInt(x[j], 10, 64)
				n2, e2 := strconv.ParseInt(y[j], 10, 64)
				if e1 == nil && e2 == nil && n1-n2 <= tol && n2-n1 <= tol {
					continue
				}
			}
			return fmt.Sprintf("command %d: %q vs %q", i, x, y)
		}
	}
	return ""
}

func at(s [][]string, i int) []string {
	if i < len(s) {
		return s[i]
	}
	return nil
}

// aofWorkload is a mixed write workload: every type, relative and absolute
// expiries, keys expiring lazily, no-op writes, SELECT, MULTI/EXEC, scripts
// (the seed sliding window among them), functions. rl is the sliding-window
// check in the server's own form (RL.CHECK on limitkv, the seed script on
// Redis: both must propagate the same effects).
func aofWorkload(t *testing.T, c, c2 *RawConn, target string, now int64, rl func(args ...string) []string) {
	t.Helper()
	future := strconv.FormatInt(now/1000+3600, 10)
	do := func(args ...string) {
		t.Helper()
		if _, err := c.Do(args...); err != nil {
			t.Fatal(err)
		}
	}
	seq := [][]string{
		{"SET", "s1", "v1"}, {"SET", "s2", "v2", "EX", "100"}, {"SET", "s3", "v3", "PX", "100000", "GET"},
		{"SET", "s4", "v4", "EXAT", future}, {"SET", "s1", "x", "NX"}, {"SET", "nx", "y", "XX"},
		{"SETEX", "s5", "100", "v5"}, {"PSETEX", "s6", "100000", "v6"}, {"SETNX", "s1", "z"}, {"SETNX", "s7", "z"},
		{"GETEX", "s1", "EX", "200"}, {"GETEX", "s2", "PERSIST"}, {"GETEX", "s7"}, {"GETEX", "s7", "PERSIST"},
		{"GETEX", "s6", "PXAT", "1"},
		{"EXPIRE", "s1", "300"}, {"PEXPIRE", "s3", "300000"}, {"EXPIREAT", "s4", future}, {"PEXPIREAT", "s5", future + "000"},
		{"EXPIRE", "s1", "100", "GT"}, {"EXPIRE", "missing", "10"}, {"EXPIRE", "s7", "-1"}, {"PERSIST", "s1"}, {"PERSIST", "s1"},
		{"INCR", "n"}, {"INCRBY", "n", "5"}, {"DECR", "n"}, {"INCRBYFLOAT", "f", "1.1"}, {"INCRBYFLOAT", "f", "2e2"},
		{"APPEND", "s2", "more"}, {"SETRANGE", "s2", "1", "ab"}, {"GETSET", "s2", "new"}, {"GETDEL", "s2"}, {"GETDEL", "s2"},
		{"MSET", "m1", "1", "m2", "2"}, {"MSETNX", "m1", "3", "m3", "3"}, {"SETBIT", "bits", "7", "1"}, {"SETBIT", "bits", "7", "1"},
		{"PFADD", "hll", "a", "b", "c"}, {"PFADD", "hll", "a"},
		{"RPUSH", "l", "a", "b", "c", "d"}, {"LPUSH", "l", "z"}, {"LPOP", "l"}, {"RPOP", "l", "2"}, {"LPOP", "nolist"},
		{"LMOVE", "l", "l2", "LEFT", "RIGHT"}, {"BLPOP", "l", "0"}, {"BRPOP", "l2", "1"}, {"LPUSH", "l", "q"}, {"LSET", "l", "0", "r"},
		{"LREM", "l", "0", "nothing"}, {"LTRIM", "l", "0", "-1"}, {"LINSERT", "l", "BEFORE", "r", "p"},
		{"HSET", "h", "f1", "v1", "f2", "v2"}, {"HSET", "h", "f1", "v1"}, {"HDEL", "h", "f2"}, {"HDEL", "h", "nofield"},
		{"HINCRBY", "h", "n", "2"}, {"HINCRBYFLOAT", "h", "fl", "1.5"}, {"HSETNX", "h", "f1", "x"},
		{"SADD", "set", "a", "b", "c"}, {"SADD", "set", "a"}, {"SREM", "set", "b"}, {"SREM", "set", "nope"}, {"SMOVE", "set", "set2", "a"},
		{"SINTERSTORE", "set3", "set", "set2"}, {"SUNIONSTORE", "set4", "set", "set2"},
		{"ZADD", "z", "1", "a", "2", "b", "3", "c"}, {"ZADD", "z", "1", "a"}, {"ZINCRBY", "z", "5", "a"}, {"ZREM", "z", "nope"},
		{"ZPOPMIN", "z"}, {"BZPOPMAX", "z", "0"}, {"ZREMRANGEBYSCORE", "z", "100", "200"}, {"ZUNIONSTORE", "z2", "1", "z"},
		{"GEOADD", "geo", "13.361389", "38.115556", "Palermo"},
		{"DEL", "m3", "missing"}, {"UNLINK", "m2"}, {"EXISTS", "m1"}, {"RENAME", "m1", "m1r"}, {"RENAMENX", "m1r", "n"},
		{"COPY", "h", "hcopy"}, {"TOUCH", "hcopy"},
		{"MULTI"}, {"SET", "t1", "1"}, {"INCR", "t2"}, {"EXEC"},
		{"MULTI"}, {"SET", "t3", "1"}, {"GET", "t3"}, {"EXEC"},
		{"MULTI"}, {"GET", "t3"}, {"EXEC"},
		{"MULTI"}, {"SET", "t4", "1"}, {"EXPIRE", "t4", "100"}, {"SELECT", "3"}, {"SET", "t5", "1"}, {"SELECT", "0"}, {"EXEC"},
		{"EVAL", "redis.call('SET', KEYS[1], 'a'); redis.call('EXPIRE', KEYS[1], 100); return redis.call('INCR', KEYS[2])", "2", "e1", "e2"},
		{"EVAL", "return redis.call('SET', KEYS[1], 'one')", "1", "e3"},
		{"EVAL", "return redis.call('GET', KEYS[1])", "1", "e3"},
		{"EVAL", "redis.call('SELECT', 5); redis.call('SET', 'inside5', '1'); return 1", "0"},
		{"FUNCTION", "LOAD", "#!lua name=aoflib\nredis.register_function('aofset', function(keys, args) redis.call('SET', keys[1], args[1]); return redis.call('INCR', keys[1]..'n') end)"},
		{"FCALL", "aofset", "1", "fk", "fv"},
		{"SELECT", "2"}, {"SET", "db2", "x"}, {"HSET", "db2h", "a", "b"}, {"SELECT", "0"}, {"SET", "back0", "y"},
		{"MOVE", "back0", "4"}, {"SWAPDB", "3", "4"}, {"SELECT", "4"}, {"FLUSHDB"}, {"SELECT", "0"},
		{"SADD", "sp", "a", "b"}, {"SPOP", "sp", "5"}, {"SADD", "sp1", "only"}, {"SPOP", "sp1"},
		{"SADD", "sp2", "x", "y", "z"}, {"SPOP", "sp2", "0"}, {"SPOP", "nosuchset"},
		{"RPUSH", "lm", "1", "2", "3"}, {"LMPOP", "2", "nolist", "lm", "LEFT", "COUNT", "10"},
		{"RPUSH", "lb", "1", "2"}, {"BLMOVE", "lb", "lb2", "right", "left", "0"}, {"BRPOPLPUSH", "lb", "lb2", "0"},
		{"ZADD", "zm", "1", "a", "2", "b"}, {"ZMPOP", "1", "zm", "MAX", "COUNT", "1"}, {"BZMPOP", "0", "1", "zm", "MIN"},
		{"HINCRBYFLOAT", "h", "fl", "0.25"},
		// Replicas' only (PUBLISH), the AOF's only and nobody's (set_repl).
		{"PUBLISH", "ch", "m"}, {"MULTI"}, {"SET", "p1", "v"}, {"PUBLISH", "ch", "m"}, {"EXEC"},
		{"EVAL", "redis.set_repl(redis.REPL_AOF) redis.call('set', KEYS[1], 'aof') redis.set_repl(redis.REPL_REPLICA) redis.call('set', KEYS[2], 'r') " +
			"redis.set_repl(redis.REPL_NONE) return redis.call('set', KEYS[3], 'none')", "3", "sr1", "sr2", "sr3"},
		{"DEL", "sr2", "sr3"},
		{"SET", "short", "v", "PX", "30"},
	}
	for _, args := range seq {
		do(args...)
	}
	time.Sleep(150 * time.Millisecond)
	// Lazily expired (unless the cycle got there first: a DEL either way).
	do("GET", "short")
	// With the cycle off, keys expire at access, inside the command that
	// meets them: a write that does is propagated with the DEL, in
	// MULTI/EXEC; a read propagates the DEL alone.
	do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	do("SET", "lazy1", "v", "PX", "20")
	do("SET", "lazy2", "v", "PX", "20")
	time.Sleep(60 * time.Millisecond)
	do("SET", "lazy1", "again")
	do("EXISTS", "lazy2")
	do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	// A blocked client served by a push: the push, then the pop it made.
	served := make(chan error, 1)
	go func() { _, err := c2.Do("BLMOVE", "waitsrc", "waitdst", "LEFT", "RIGHT", "0"); served <- err }()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(c.MustDo(t, "INFO", "clients").Str, "blocked_clients:1"); {
		if time.Now().After(deadline) {
			t.Fatal("BLMOVE did not block")
		}
		time.Sleep(5 * time.Millisecond)
	}
	do("RPUSH", "waitsrc", "w1", "w2")
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// MIGRATE goes as DEL of what the target took; with COPY, as nothing.
	host, port, _ := net.SplitHostPort(target)
	do("MSET", "mig1", "a", "mig2", "b")
	if r := c.MustDo(t, "MIGRATE", host, port, "", "0", "5000", "REPLACE", "KEYS", "mig1", "mig2", "nomig"); r.Str != "OK" {
		t.Fatalf("MIGRATE: %q", r.Raw)
	}
	do("SET", "mig3", "c")
	do("MIGRATE", host, port, "mig3", "0", "5000", "COPY", "REPLACE")
	dump := c.MustDo(t, "DUMP", "n").Str
	do("RESTORE", "rk", "100000", dump)
	do("RESTORE", "rk", "0", dump, "REPLACE")
	do("RESTORE", "rk", "1", dump, "REPLACE", "ABSTTL")
	// The sliding-window check: admitted, admitted, pruned and refused.
	base := now - 10_000
	for i, step := range []int64{0, 1, 2, 5000, 9000} {
		rl("rlkey", strconv.FormatInt(base+step, 10), "4000", "2", "m"+strconv.Itoa(i))
	}
	do("EVALSHA", sha1hex(seedscript.Source), "1", "rlkey2", strconv.FormatInt(now, 10), "60000", "5", "mm")
	do("SET", "last", "1")
}

// startAOFPair starts a redis-server and a limitkv binary, each on its own
// directory with appendonly yes and appendfsync always.
func startAOFPair(t *testing.T) (redis *RawConn, rp *testredis.Proc, rdir string, lkv *RawConn, lp *testredis.Proc, ldir string) {
	rdir, ldir = t.TempDir(), t.TempDir()
	redis, rp = startRedisOn(t, rdir, "--appendonly", "yes", "--appendfsync", "always", "--hz", "100")
	lp = startLimitkvProc(t, ldir, false, "--appendonly", "yes", "--appendfsync", "always")
	lkv = dialRaw(t, "limitkv", lp.Addr)
	return
}

func TestAOFStreamMatchesRedis(t *testing.T) {
	requireServers(t)
	redis, rp, rdir, lkv, lp, ldir := startAOFPair(t)
	// The seed script must be in Redis's cache for EVALSHA, as in limitkv's.
	for _, c := range []*RawConn{redis, lkv} {
		c.MustDo(t, "SCRIPT", "LOAD", seedscript.Source)
	}
	sha := sha1hex(seedscript.Source)
	_, target := startRedisOn(t, t.TempDir()) // where MIGRATE sends keys
	now := time.Now().UnixMilli()
	aofWorkload(t, redis, dialRaw(t, "redis", rp.Addr), target.Addr, now, func(args ...string) []string {
		return []string{redis.MustDo(t, append([]string{"EVALSHA", sha, "1", args[0]}, args[1:]...)...).Str}
	})
	aofWorkload(t, lkv, dialRaw(t, "limitkv", lp.Addr), target.Addr, now, func(args ...string) []string {
		return []string{lkv.MustDo(t, append([]string{"RL.CHECK"}, args...)...).Str}
	})
	rd, ld := redis.MustDo(t, "DEBUG", "DIGEST").Str, lkv.MustDo(t, "DEBUG", "DIGEST").Str
	if rd != ld {
		t.Errorf("DEBUG DIGEST after the workload: redis %s, limitkv %s", rd, ld)
	}
	want := aofCmds(t, filepath.Join(rdir, "appendonlydir"))
	got := aofCmds(t, filepath.Join(ldir, "appendonlydir"))
	if diff := sameStream(got, want, 5000); diff != "" {
		t.Errorf("limitkv's incr AOF differs from Redis's: %s", diff)
		for i := 0; i < len(got) || i < len(want); i++ {
			t.Logf("%3d limitkv %q\n    redis   %q", i, at(got, i), at(want, i))
		}
	}

	// Each loads the other's directory to the same dataset.
	lkv.MustDo(t, "BGREWRITEAOF")
	waitAOFRewrite(t, lkv)
	lkv.MustDo(t, "SET", "after-rewrite", "1")
	digest := lkv.MustDo(t, "DEBUG", "DIGEST").Str
	term(t, lp)
	rp.Stop()
	checkAOF(t, filepath.Join(ldir, "appendonlydir", "appendonly.aof.manifest"))
	// A real redis-server started on limitkv's directory.
	r2, _ := startRedisOn(t, ldir, "--appendonly", "yes")
	if got := r2.MustDo(t, "DEBUG", "DIGEST").Str; got != digest {
		t.Errorf("redis-server on limitkv's AOF: digest %s, limitkv had %s", got, digest)
	}
	// limitkv on Redis's directory.
	l2 := startLimitkvProc(t, rdir, false, "--appendonly", "yes")
	if got := dialRaw(t, "limitkv", l2.Addr).MustDo(t, "DEBUG", "DIGEST").Str; got != rd {
		t.Errorf("limitkv on Redis's AOF: digest %s, redis had %s", got, rd)
	}
}

func waitAOFRewrite(t *testing.T, c *RawConn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info := c.MustDo(t, "INFO", "persistence").Str
		if strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "aof_rewrite_scheduled:0") {
			if !strings.Contains(info, "aof_last_bgrewrite_status:ok") {
				t.Fatalf("rewrite failed:\n%s", info)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rewrite did not finish:\n%s", info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func checkAOF(t *testing.T, manifest string) {
	t.Helper()
	bin, err := testredis.FindTool("redis-check-aof")
	if err != nil {
		t.Log("redis-check-aof not found; not checking the AOF with it")
		return
	}
	out, err := exec.Command(bin, manifest).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is valid") {
		t.Errorf("redis-check-aof %s: %v\n%s", manifest, err, out)
	}
}

// TestAOFCrashAlways kills limitkv (kill -9) at random points while
// clients write with appendfsync always: every write whose reply a client
// read must be there after the restart.
func TestAOFCrashAlways(t *testing.T) {
	requireServers(t)
	testAOFCrash(t, "always", 3, 0)
	t.Run("goroutine front", func(t *testing.T) { testAOFCrash(t, "always", 2, 0, "--net-front", "goroutine") })
}

// TestAOFCrashEverysec: with everysec a crash loses at most the writes of
// about the last second.
func TestAOFCrashEverysec(t *testing.T) {
	requireServers(t)
	testAOFCrash(t, "everysec", 2, 2*time.Second)
}

func testAOFCrash(t *testing.T, policy string, rounds int, window time.Duration, extra ...string) {
	dir := t.TempDir()
	type ack struct {
		key string
		at  time.Time
	}
	var all []ack
	for round := 0; round < rounds; round++ {
		p := startLimitkvProc(t, dir, false, append([]string{"--appendonly", "yes", "--appendfsync", policy}, extra...)...)
		var mu sync.Mutex
		var acked []ack
		var stop atomic.Bool
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn, err := net.Dial("tcp", p.Addr)
				if err != nil {
					return
				}
				defer conn.Close()
				br := bufio.NewReader(conn)
				for i := 0; !stop.Load(); i++ {
					key := fmt.Sprintf("r%d:w%d:%d", round, w, i)
					cmd := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\n1\r\n", len(key), key)
					if _, err := conn.Write([]byte(cmd)); err != nil {
						return
					}
					line, err := br.ReadString('\n')
					if err != nil || line != "+OK\r\n" {
						return
					}
					mu.Lock()
					acked = append(acked, ack{key, time.Now()})
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(200+rand.Intn(600)) * time.Millisecond)
		p.Cmd.Process.Kill()
		killedAt := time.Now()
		<-p.Done()
		stop.Store(true)
		wg.Wait()
		mu.Lock()
		if len(acked) == 0 {
			t.Fatalf("round %d: no write acknowledged; log:\n%s", round, p.Log())
		}
		for _, a := range acked {
			if window > 0 && killedAt.Sub(a.at) < window {
				continue // may be lost under everysec
			}
			all = append(all, a)
		}
		mu.Unlock()
		// The restart loads what the crash left (a torn tail is cut).
		q := startLimitkvProc(t, dir, false, append([]string{"--appendonly", "yes", "--appendfsync", policy}, extra...)...)
		c := dialRaw(t, "limitkv", q.Addr)
		missing := 0
		for _, a := range all {
			if c.MustDo(t, "EXISTS", a.key).Int != 1 {
				missing++
				if missing < 5 {
					t.Errorf("round %d: acknowledged %s (%v before the kill) is lost", round, a.key, killedAt.Sub(a.at))
				}
			}
		}
		if missing > 0 {
			t.Fatalf("round %d: %d of %d acknowledged writes lost; log:\n%s", round, missing, len(all), q.Log())
		}
		t.Logf("round %d: %d writes acknowledged, all there after kill -9 and restart", round, len(acked))
		term(t, q)
	}
}

// TestAOFTornTail: a last file cut inside a command loads with
// aof-load-truncated yes (Redis's messages, the file truncated at the last
// complete command), refuses to start with no; a damaged middle refuses to
// start whatever the setting.
func TestAOFTornTail(t *testing.T) {
	requireServers(t)
	dir := t.TempDir()
	p := startLimitkvProc(t, dir, false, "--appendonly", "yes")
	c := dialRaw(t, "limitkv", p.Addr)
	c.MustDo(t, "SET", "a", "1")
	c.MustDo(t, "RPUSH", "l", "x", "y")
	term(t, p)
	incr := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	good, err := os.ReadFile(incr)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(append([]byte(nil), good...), "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nhel"...)
	os.WriteFile(incr, torn, 0o644)
	q := startLimitkvProc(t, dir, true, "--appendonly", "yes", "--aof-load-truncated", "no")
	if !strings.Contains(q.Log(), "Unexpected end of file reading the append only file appendonly.aof.1.incr.aof") {
		t.Errorf("aof-load-truncated no did not refuse the torn file; log:\n%s", q.Log())
	}
	q = startLimitkvProc(t, dir, false, "--appendonly", "yes")
	for _, want := range []string{"!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!",
		fmt.Sprintf("!!! Truncating the AOF appendonly.aof.1.incr.aof at offset %d !!!", len(good)),
		"AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled"} {
		// The process's output reaches the buffer through a pipe: the
		// last lines may still be on their way when it answers.
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(q.Log(), want) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if log := q.Log(); !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	c = dialRaw(t, "limitkv", q.Addr)
	if got := c.MustDo(t, "LRANGE", "l", "0", "-1").Raw; !bytes.Equal(got, []byte("*2\r\n$1\r\nx\r\n$1\r\ny\r\n")) {
		t.Errorf("after the torn tail, LRANGE l: %q", got)
	}
	c.MustDo(t, "SET", "c", "3")
	term(t, q)
	if after, _ := os.ReadFile(incr); !bytes.HasPrefix(after, good) || bytes.Contains(after, []byte("hel")) {
		t.Errorf("the torn tail was not cut:\n%q", after)
	}
	checkAOF(t, filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	// A damaged middle: a command that is not one.
	data, _ := os.ReadFile(incr)
	bad := bytes.Replace(data, []byte("*4\r\n$5\r\nRPUSH"), []byte("?4\r\n$5\r\nRPUSH"), 1)
	if bytes.Equal(bad, data) {
		t.Fatalf("no RPUSH to damage in %q", data)
	}
	os.WriteFile(incr, bad, 0o644)
	r := startLimitkvProc(t, dir, true, "--appendonly", "yes")
	if !strings.Contains(r.Log(), "Bad file format reading the append only file appendonly.aof.1.incr.aof") {
		t.Errorf("a damaged middle did not refuse the start; log:\n%s", r.Log())
	}
}

// TestAOFConfigSetAppendonly: CONFIG SET appendonly yes on a server with
// data makes a base by a rewrite; the AOF then has everything.
func TestAOFConfigSetAppendonly(t *testing.T) {
	requireServers(t)
	dir := t.TempDir()
	p := startLimitkvProc(t, dir, false)
	c := dialRaw(t, "limitkv", p.Addr)
	for i := 0; i < 100; i++ {
		c.MustDo(t, "SET", "k"+strconv.Itoa(i), strconv.Itoa(i))
	}
	c.MustDo(t, "CONFIG", "SET", "appendonly", "yes")
	c.MustDo(t, "SET", "during", "1")
	waitAOFRewrite(t, c)
	c.MustDo(t, "SET", "after", "1")
	if info := c.MustDo(t, "INFO", "persistence").Str; !strings.Contains(info, "aof_enabled:1") {
		t.Errorf("INFO after CONFIG SET appendonly yes:\n%s", info)
	}
	// BGREWRITEAOF while another client writes: the new base and the new
	// incr file together hold every write, before, during and after.
	pipe := dialRaw(t, "limitkv", p.Addr)
	for i := 0; i < 20000; i += 500 {
		args := []string{"MSET"}
		for j := i; j < i+500; j++ {
			args = append(args, "big"+strconv.Itoa(j), strconv.Itoa(j))
		}
		pipe.MustDo(t, args...)
	}
	writer := dialRaw(t, "limitkv", p.Addr)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			writer.Do("INCR", "big"+strconv.Itoa(i*7))
			writer.Do("DEL", "big"+strconv.Itoa(i*7+1))
		}
	}()
	c.MustDo(t, "BGREWRITEAOF")
	<-done
	waitAOFRewrite(t, c)
	if ls, _ := os.ReadDir(filepath.Join(dir, "appendonlydir")); len(ls) != 3 {
		var names []string
		for _, f := range ls {
			names = append(names, f.Name())
		}
		t.Errorf("after the rewrite appendonlydir holds %q; want a manifest, a base and an incr file", names)
	}
	digest := c.MustDo(t, "DEBUG", "DIGEST").Str
	term(t, p)
	checkAOF(t, filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	q := startLimitkvProc(t, dir, false, "--appendonly", "yes")
	if got := dialRaw(t, "limitkv", q.Addr).MustDo(t, "DEBUG", "DIGEST").Str; got != digest {
		t.Errorf("restart on the AOF: digest %s, want %s", got, digest)
	}
}

func sha1hex(s string) string { return fmt.Sprintf("%x", sha1.Sum([]byte(s))) }
