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
	"strconv"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/resp"
)

type execBench struct {
	e *commands.Engine
	c *commands.Client
	w resp.Writer
}

func newExecBench() *execBench {
	e := commands.New(commands.DefaultConfig(), nil, nil)
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
