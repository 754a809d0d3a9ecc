package main

// In-process benchmarks of limitkv's executor: one command through
// Engine.Exec (dispatch, handler, reply encoding) without the network, to
// count allocations and CPU per request. They start no server, so they may
// live here; run them with
//
//	go test ./bench -run '^$' -bench . -benchmem
//
// Arguments are built in reused buffers outside the engine, so the
// allocations reported are the engine's own.

import (
	"bytes"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/commands"
	kvconfig "github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

type execBench struct {
	e *engine.Engine
	c *engine.Client
	w resp.Writer
}

func newExecBench() *execBench {
	e := commands.New(kvconfig.DefaultConfig(), nil, nil)
	return &execBench{e: e, c: e.NewClient("127.0.0.1:1", "127.0.0.1:6379")}
}

// do runs one command the way a connection does for a batch of one.
func (x *execBench) do(args [][]byte) {
	x.e.Lock()
	x.e.Exec(x.c, args, &x.w)
	x.e.Unlock()
	x.w.Reset(64 << 10)
}

// must runs args once and fails the benchmark (skips, if the command is not
// there yet) on an error reply.
func (x *execBench) must(b *testing.B, args ...string) string {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	x.e.Lock()
	x.e.Exec(x.c, bargs, &x.w)
	x.e.Unlock()
	out := string(x.w.Bytes())
	x.w.Reset(64 << 10)
	if len(out) > 0 && out[0] == '-' {
		b.Skipf("%s answers %q", args[0], out)
	}
	return out
}

func BenchmarkExecPING(b *testing.B) {
	x := newExecBench()
	args := [][]byte{[]byte("PING")}
	b.ReportAllocs()
	for b.Loop() {
		x.do(args)
	}
}

// seedArgs fills the seed check's arguments for a uniformly random user
// among users, at a clock that advances 30 requests per millisecond (the
// rate the seed workload runs at over the network), with unique members.
type seedArgs struct {
	keys          [][]byte
	now, mem      []byte
	args          [][]byte
	rng           *rand.Rand
	base          int64
	i             int64
	keyAt, nowAt  int
	memAt         int
	window, limit []byte
}

func newSeedArgs(users int, head ...string) *seedArgs {
	s := &seedArgs{rng: rand.New(rand.NewPCG(1, 2)), base: time.Now().UnixMilli(),
		window: []byte(seedWindow), limit: []byte(seedLimit)}
	for u := 0; u < users; u++ {
		s.keys = append(s.keys, []byte("{t}:ratelimit:ai:user"+strconv.Itoa(u)))
	}
	for _, h := range head {
		s.args = append(s.args, []byte(h))
	}
	s.keyAt = len(s.args)
	s.nowAt, s.memAt = s.keyAt+1, s.keyAt+4
	s.args = append(s.args, nil, nil, s.window, s.limit, nil)
	return s
}

func (s *seedArgs) next() [][]byte {
	ms := s.base + s.i/30
	s.i++
	s.now = strconv.AppendInt(s.now[:0], ms, 10)
	s.mem = strconv.AppendInt(s.mem[:0], ms, 10)
	s.mem = append(s.mem, ':')
	tag := s.rng.Uint32()
	for sh := 28; sh >= 0; sh -= 4 {
		s.mem = append(s.mem, hexDigits[(tag>>uint(sh))&15])
	}
	s.args[s.keyAt] = s.keys[s.rng.IntN(len(s.keys))]
	s.args[s.nowAt], s.args[s.memAt] = s.now, s.mem
	return s.args
}

func BenchmarkExecRLCheck(b *testing.B) {
	x := newExecBench()
	s := newSeedArgs(100_000, "RL.CHECK")
	x.must(b, "RL.CHECK", "probe", "0", seedWindow, seedLimit, "m")
	b.ReportAllocs()
	for b.Loop() {
		x.do(s.next())
	}
}

// BenchmarkExecRLCheckAllowed keeps every request under the limit (a new
// user each time), so each one records an entry: the write path alone.
func BenchmarkExecRLCheckAllowed(b *testing.B) {
	x := newExecBench()
	s := newSeedArgs(1, "RL.CHECK")
	key := []byte("{t}:ratelimit:ai:user")
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		args := s.next()
		key = strconv.AppendInt(key[:len("{t}:ratelimit:ai:user")], int64(n), 10)
		n++
		args[s.keyAt] = key
		x.do(args)
	}
}

func BenchmarkExecEvalSHASeed(b *testing.B) {
	x := newExecBench()
	if sha := x.must(b, "SCRIPT", "LOAD", seedScript); !bytes.Contains([]byte(sha), []byte(seedSHA)) {
		b.Fatalf("SCRIPT LOAD: %q", sha)
	}
	x.must(b, "EVALSHA", seedSHA, "1", "probe", "0", seedWindow, seedLimit, "m")
	s := newSeedArgs(100_000, "EVALSHA", seedSHA, "1")
	b.ReportAllocs()
	for b.Loop() {
		x.do(s.next())
	}
}

func BenchmarkExecZADD(b *testing.B) {
	x := newExecBench()
	x.must(b, "ZADD", "probe", "1", "m")
	rng := rand.New(rand.NewPCG(3, 4))
	args := [][]byte{[]byte("ZADD"), nil, nil, nil}
	var k, sc, m []byte
	b.ReportAllocs()
	for b.Loop() {
		k = strconv.AppendInt(append(k[:0], "zr:"...), int64(rng.IntN(100_000)), 10)
		sc = strconv.AppendInt(sc[:0], int64(rng.IntN(100_000)), 10)
		m = strconv.AppendInt(append(m[:0], "m:"...), int64(rng.IntN(100_000)), 10)
		args[1], args[2], args[3] = k, sc, m
		x.do(args)
	}
}

func BenchmarkExecSET(b *testing.B) {
	x := newExecBench()
	rng := rand.New(rand.NewPCG(5, 6))
	args := [][]byte{[]byte("SET"), nil, []byte("x")}
	var k []byte
	b.ReportAllocs()
	for b.Loop() {
		k = strconv.AppendInt(append(k[:0], "k:"...), int64(rng.IntN(100_000)), 10)
		args[1] = k
		x.do(args)
	}
}

// BenchmarkReadBatchRLCheck parses pipelined batches of 16 RL.CHECK requests
// with the server's protocol reader: the per-request cost before Exec.
func BenchmarkReadBatchRLCheck(b *testing.B) {
	var batch []byte
	for i := 0; i < 16; i++ {
		batch = appendSeed(batch, seedRLCheck, "", i*6151, 1_700_000_000_000+int64(i), uint32(i))
	}
	src := &repeatReader{data: batch}
	rd := resp.NewReader(src, 16<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(batch)))
	for b.Loop() {
		cmds, err := rd.ReadBatch(resp.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if len(cmds) == 0 {
			b.Fatal("no commands")
		}
	}
}

// repeatReader returns data over and over as an endless stream, at most one
// copy per Read so that each ReadBatch sees one batch.
type repeatReader struct {
	data []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := copy(p, r.data[r.off:])
	r.off = (r.off + n) % len(r.data)
	return n, nil
}

// BenchmarkLiveBytesPerUser records the memory workload's data (users x 5
// requests of the seed format, through RL.CHECK, the passes interleaved as
// workload 4 does) in-process and reports the live heap per user after a
// full GC: the data structures' cost without the GC's headroom, which is
// what workload 4's RSS adds. One iteration is the whole load, so run it
// with -benchtime 1x:
//
//	go test ./bench -run '^$' -bench LiveBytesPerUser -benchtime 1x
func BenchmarkLiveBytesPerUser(b *testing.B) {
	const users, passes = 1_000_000, 5
	for b.Loop() {
		before := liveHeap()
		x := newExecBench()
		s := newSeedArgs(1, "RL.CHECK")
		keys := make([][]byte, users)
		for u := range keys {
			keys[u] = []byte("{t}:ratelimit:ai:user" + strconv.Itoa(u))
		}
		for i := 0; i < passes*users; i++ {
			// 100 requests a millisecond: the whole load spans 50 s, so no
			// entry leaves the 60 s window, as in workload 4.
			s.i = int64(i) * 30 / 100
			args := s.next()
			args[s.keyAt] = keys[i%users]
			x.do(args)
		}
		keysSize := 0
		for _, k := range keys {
			keysSize += 24 + cap(k) // the benchmark's own key copies (a size class of 32 here) and slice headers
		}
		live := liveHeap() - before - uint64(keysSize)
		if n := x.must(b, "DBSIZE"); n != ":"+strconv.Itoa(users)+"\r\n" {
			b.Fatalf("DBSIZE %q", n)
		}
		if n := x.must(b, "ZCARD", string(keys[users-1])); n != ":5\r\n" {
			b.Fatalf("ZCARD %q, want 5 entries a user", n)
		}
		b.ReportMetric(float64(live)/users, "live-B/user")
		// LIMITKV_HEAP_PROFILE=file writes where the live bytes are, while
		// the engine is still alive (a -memprofile is taken after it is gone).
		if path := os.Getenv("LIMITKV_HEAP_PROFILE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.WriteHeapProfile(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		runtime.KeepAlive(x)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkExecRLCheckBatch16 runs RL.CHECK in pipelined batches of 16
// over a million users (more than the CPU caches hold), with and without
// Engine.Prefetch, the way a connection runs a batch: one op is one batch.
// Run it with a fixed count, as loading the users takes seconds:
//
//	go test ./bench -run '^$' -bench RLCheckBatch16 -benchtime 20000x
func BenchmarkExecRLCheckBatch16(b *testing.B) {
	for _, prefetch := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "prefetch"}[prefetch], func(b *testing.B) {
			x := newExecBench()
			s := newSeedArgs(1_000_000, "RL.CHECK")
			for i := 0; i < 1_000_000; i++ { // every user exists
				args := s.next()
				args[s.keyAt] = s.keys[i]
				x.do(args)
			}
			batches := make([][][][]byte, b.N)
			for n := range batches {
				batches[n] = make([][][]byte, 16)
				for i := range batches[n] {
					for _, a := range s.next() { // next reuses its buffers
						batches[n][i] = append(batches[n][i], append([]byte(nil), a...))
					}
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for _, batch := range batches {
				x.e.Lock()
				if prefetch {
					x.e.Prefetch(x.c, batch)
				}
				for _, args := range batch {
					x.e.Exec(x.c, args, &x.w)
				}
				x.e.Unlock()
				x.w.Reset(64 << 10)
			}
		})
	}
}

// BenchmarkExecLimiters runs workload 12's native rows in process: each
// limiter on random keys among a million, at a fixed now, so the
// allocations per check (which the GC then pays for across a large heap)
// show without the network.
func BenchmarkExecLimiters(b *testing.B) {
	for _, row := range []struct{ name, cmd, tail string }{
		{"RL.GCRA", "RL.GCRA", limNow + " " + limBurst + " " + limLimit + " " + limPeriod},
		{"RL.TOKEN", "RL.TOKEN", limNow + " " + limLimit + " " + limLimit + " " + limWindow},
		{"RL.FIXED", "RL.FIXED", limWindow + " " + limLimit},
		{"RL.SLIDING", "RL.SLIDING", limNow + " " + limWindow + " " + limLimit},
		{"RL.RESERVE", "RL.RESERVE", limNow + " " + limWindow + " " + limLimit + " 1"},
		{"CL.THROTTLE", "CL.THROTTLE", limBurst + " " + limLimit + " " + limPeriod},
	} {
		b.Run(row.name, func(b *testing.B) {
			x := newExecBench()
			tail := bytes.Fields([]byte(row.tail))
			x.must(b, append([]string{row.cmd, "probe"}, strings.Fields(row.tail)...)...)
			rng := rand.New(rand.NewPCG(1, 2))
			args := append([][]byte{[]byte(row.cmd), nil}, tail...)
			var key []byte
			b.ReportAllocs()
			for b.Loop() {
				key = strconv.AppendInt(append(key[:0], "{l}:k:"...), rng.Int64N(limRand), 10)
				args[1] = key
				x.do(args)
			}
		})
	}
}
