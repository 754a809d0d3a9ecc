package ratelimit

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) {
	redis.SetLogger(quietLogger{}) // dial failures are what some tests are about
	code := m.Run()
	stopRealRedis()
	os.Exit(code)
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// t0 is where every test clock starts: a round time, so expected waits are
// plain numbers.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is the client clock of script-backend tests against real Redis,
// whose own clock the test cannot move (the script takes the time from the
// client, so only key TTLs follow Redis's clock).
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is one store with a clock the test moves, and the options that make
// a Limiter use it a given way.
type env struct {
	rdb     *redis.Client
	backend Backend // forced backend, or BackendAuto
	want    Backend // the backend the limiter must end up using
	now     func() time.Time
	advance func(time.Duration)
}

func (e *env) limiter(t testing.TB, o Options) *Limiter {
	t.Helper()
	if o.Limit == 0 {
		o.Limit = 5
	}
	if o.Window == 0 {
		o.Window = time.Minute
	}
	if o.Name == "" {
		o.Name = "suggest-categories"
	}
	o.Backend = e.backend
	if o.Now == nil {
		o.Now = e.now
	}
	l, err := New(e.rdb, o)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := l.Backend(context.Background()); err != nil || b != e.want {
		t.Fatalf("backend: got %v, %v; want %v", b, err, e.want)
	}
	return l
}

// envKinds are the ways a limiter can meet a store: the RL.CHECK path with
// limitkv's clock and with the client's, the seed's script on limitkv, and
// the script on a real redis-server.
var envKinds = []string{"limitkv", "limitkv-client-clock", "limitkv-script", "redis-script"}

func newEnv(t testing.TB, kind string) *env {
	t.Helper()
	switch kind {
	case "limitkv", "limitkv-client-clock", "limitkv-script":
		clk := limitkv.NewManualClock(t0)
		srv := limitkv.StartT(t, limitkv.Options{Clock: clk})
		e := &env{rdb: newClient(t, srv.Addr()), advance: clk.Add, want: BackendLimitkv}
		switch kind {
		case "limitkv-client-clock":
			e.now = clk.Now
		case "limitkv-script":
			e.backend, e.want, e.now = BackendScript, BackendScript, clk.Now
			needCommands(t, e.rdb, scriptCommands...)
		}
		return e
	case "redis-script":
		addr := realRedis(t)
		rdb := newClient(t, addr)
		if err := rdb.FlushAll(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		clk := &fakeClock{t: t0}
		return &env{rdb: rdb, want: BackendScript, now: clk.Now, advance: clk.Add}
	}
	t.Fatalf("unknown env %q", kind)
	return nil
}

// scriptCommands are the commands the seed's script and the refusal lookup
// run.
var scriptCommands = []string{"zremrangebyscore", "zcard", "zadd", "pexpire", "zrange", "zrangebyscore"}

// needCommands skips the test if the server does not know one of the
// commands at all (COMMAND INFO answers nil): limitkv grows command family
// by family, and a case that needs sorted-set commands waits for them. A
// server that knows a command but runs it wrongly still fails the test.
func needCommands(t testing.TB, rdb *redis.Client, names ...string) {
	t.Helper()
	args := []any{"COMMAND", "INFO"}
	for _, n := range names {
		args = append(args, n)
	}
	v, err := rdb.Do(context.Background(), args...).Slice()
	if err != nil {
		t.Fatalf("COMMAND INFO: %v", err)
	}
	var missing []string
	for i, x := range v {
		if x == nil {
			missing = append(missing, names[i])
		}
	}
	if len(missing) > 0 {
		t.Skipf("the server lacks %s (not implemented in limitkv yet)", strings.Join(missing, ", "))
	}
}

func newClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, DialerRetries: 1,
		DialTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// ---------------------------------------------------------------------------
// A real redis-server, started once for the package on a free loopback port.

var realRedisState struct {
	once sync.Once
	p    *testredis.Proc
	err  error // start failure
	skip string
}

// realRedis returns the address of the package's redis-server, starting it
// on first use. Without redis-server the test skips, or fails when
// LIMITKV_REQUIRE_REDIS=1 (CI).
func realRedis(t testing.TB) string {
	t.Helper()
	s := &realRedisState
	s.once.Do(func() {
		path, err := testredis.Find()
		if err != nil {
			s.skip = err.Error()
			return
		}
		s.p, s.err = testredis.Start(testredis.Options{Path: path})
	})
	if s.skip != "" {
		if testredis.Required() {
			t.Fatalf("%s=1 but %s", testredis.EnvRequire, s.skip)
		}
		t.Skip(s.skip + ": skipping this real-Redis case (LIMITKV_REQUIRE_REDIS=1 makes it a failure)")
	}
	if s.err != nil {
		t.Fatalf("starting redis-server: %v", s.err)
	}
	return s.p.Addr
}

// stopRealRedis stops the package's redis-server, if it was started.
func stopRealRedis() {
	if p := realRedisState.p; p != nil {
		p.Stop()
	}
}

// ---------------------------------------------------------------------------
// A fake RESP server, for replies no real server gives on demand.

// fakeServer answers each command with reply(args) (raw RESP); an empty
// answer means "-ERR unknown command". It counts the commands it saw.
type fakeServer struct {
	ln    net.Listener
	reply func(args []string) string
	mu    sync.Mutex
	seen  []string
}

func startFake(t testing.TB, reply func(args []string) string) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{ln: ln, reply: reply}
	var wg sync.WaitGroup
	conns := make(chan net.Conn, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
			wg.Add(1)
			go func() { defer wg.Done(); f.serve(c) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for {
			select {
			case c := <-conns:
				c.Close()
				continue
			default:
			}
			break
		}
		wg.Wait()
	})
	return f
}

func (f *fakeServer) Addr() string { return f.ln.Addr().String() }

func (f *fakeServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		args, err := readCommand(br)
		if err != nil {
			return
		}
		f.mu.Lock()
		f.seen = append(f.seen, strings.ToUpper(args[0]))
		f.mu.Unlock()
		out := f.reply(args)
		if out == "" {
			out = "-ERR unknown command '" + args[0] + "'\r\n"
		}
		if _, err := io.WriteString(c, out); err != nil {
			return
		}
	}
}

func readCommand(br *bufio.Reader) ([]string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "*") {
		return nil, errors.New("not a multibulk")
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 1 {
		return nil, errors.New("bad multibulk length")
	}
	args := make([]string, n)
	for i := range args {
		h, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimRight(h, "\r\n")[1:])
		if err != nil || size < 0 {
			return nil, errors.New("bad bulk length")
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}
