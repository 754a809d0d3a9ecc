package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/testredis"
)

// Hardening: limits, faults and hostile input. Where Redis's behaviour is
// observable (errors, closes, limits) both servers get the same bytes and
// must answer the same; where it is about limitkv's own resources (memory,
// latency under a slow reader) limitkv runs alone, in-process so its heap
// can be measured. Every test ends with both servers answering PING on a
// new connection.

// ---------------------------------------------------------------------------
// A private pair of servers, for tests that change settings.

type privatePair struct {
	redis, lkv string
}

// startPrivatePair starts a redis-server and a limitkv of the test's own,
// requiring pass if it is not empty (redis-server gets it as requirepass).
func startPrivatePair(t *testing.T, pass string) *privatePair {
	t.Helper()
	requireServers(t)
	rp, err := testredis.Start(testredis.Options{Path: redisServerPath})
	if err != nil {
		t.Fatalf("start a private redis-server: %v", err)
	}
	t.Cleanup(rp.Stop)
	if pass != "" {
		c := dialRaw(t, "redis", rp.Addr)
		if r := c.MustDo(t, "CONFIG", "SET", "requirepass", pass); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("CONFIG SET requirepass on the private redis: %s", r)
		}
		c.Close()
	}
	srv, err := limitkv.Start(limitkv.Options{Password: pass})
	if err != nil {
		t.Fatalf("start a private limitkv: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return &privatePair{redis: rp.Addr, lkv: srv.Addr()}
}

// both runs fn on the redis and the limitkv address concurrently.
func both(redisAddr, lkvAddr string, fn func(name, addr string) string) (rds, lkv string) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); rds = fn("redis", redisAddr) }()
	go func() { defer wg.Done(); lkv = fn("limitkv", lkvAddr) }()
	wg.Wait()
	return rds, lkv
}

// aliveAt checks that a new connection to each address answers PING (or,
// on a server that wants a password, NOAUTH).
func aliveAt(t *testing.T, addrs ...string) {
	t.Helper()
	for _, addr := range addrs {
		c, err := dialRawConn("probe", addr)
		if err != nil {
			t.Fatalf("%s no longer accepts connections: %v", addr, err)
		}
		r, err := c.Do("PING")
		c.Close()
		if err != nil || string(r.Raw) != "+PONG\r\n" && string(r.Raw) != "-NOAUTH Authentication required.\r\n" {
			t.Fatalf("%s: PING on a new connection: %v, %v", addr, r, err)
		}
	}
}

// ---------------------------------------------------------------------------
// Scenarios: raw bytes on numbered connections, compared with the replies
// and with which connections the server closed.

type step struct {
	conn    int
	data    string
	replies int
}

func send(data string) step          { return step{data: data, replies: 1} }
func sendN(data string, n int) step  { return step{data: data, replies: n} }
func on(conn int, data string) step  { return step{conn: conn, data: data, replies: 1} }
func mb(args ...string) string       { return string(encodeCommand(args...)) }
func inline(line string) string      { return line + "\r\n" }
func repeat(s string, n int) string  { return strings.Repeat(s, n) }
func digits(n int) string            { return strings.Repeat("9", n) }
func scenarioWait() time.Duration    { return 200 * time.Millisecond }
func replyTimeoutFor() time.Duration { return 2 * time.Second }
func normalizeReply(b []byte) []byte { return helloID.ReplaceAll(b, []byte("$2\r\nid\r\n:<id>\r\n")) }
func sameBytes(a, b []byte) bool     { return bytes.Equal(normalizeReply(a), normalizeReply(b)) }
func sameButHelloID(r, l *Reply) error {
	if sameBytes(r.Raw, l.Raw) {
		return nil
	}
	return fmt.Errorf("differ beyond the client id")
}

// helloID is HELLO's client id, which differs between any two servers.
var helloID = regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)

// scenario is a sequence of steps on fresh connections. known, if set, names
// a tracked divergence in a file this suite's authors do not own: a mismatch
// then skips, with both outcomes in the log.
type scenario struct {
	name  string
	steps []step
	known string
}

// run plays the scenario against addr and describes what happened.
func (sc scenario) run(name, addr string) string {
	conns := map[int]*RawConn{}
	dead := map[int]bool{}
	var order []int
	var out strings.Builder
	for i, st := range sc.steps {
		fmt.Fprintf(&out, "[%d] ", i)
		if dead[st.conn] {
			out.WriteString("(connection already closed)\n")
			continue
		}
		c := conns[st.conn]
		if c == nil {
			var err error
			if c, err = dialRawConn(name, addr); err != nil {
				fmt.Fprintf(&out, "dial: %v\n", err)
				dead[st.conn] = true
				continue
			}
			defer c.Close()
			c.Timeout = replyTimeoutFor()
			conns[st.conn] = c
			order = append(order, st.conn)
		}
		// Write in the background: a server that stops reading must not
		// block the scenario.
		go c.WriteRaw([]byte(st.data))
		for range st.replies {
			r, err := c.ReadReply()
			if err != nil {
				switch {
				case errors.Is(err, ErrClosed):
					out.WriteString("<closed>")
				case errors.Is(err, ErrTimeout):
					out.WriteString("<timeout>")
				default:
					fmt.Fprintf(&out, "<%v>", err)
				}
				dead[st.conn] = true
				break
			}
			out.Write(normalizeReply(r.Raw))
		}
		out.WriteString("\n")
	}
	// Whether each connection stays open: watched all at once.
	states := make([]string, len(order))
	var wg sync.WaitGroup
	for i, n := range order {
		if dead[n] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			closed, extra := conns[n].AwaitClose(scenarioWait())
			states[i] = fmt.Sprintf("conn %d: closed=%v", n, closed)
			if len(extra) > 0 {
				states[i] += fmt.Sprintf(" extra=%q", truncate(extra, 200))
			}
			states[i] += "\n"
		}()
	}
	wg.Wait()
	for _, st := range states {
		out.WriteString(st)
	}
	return out.String()
}

// runScenarios plays every scenario against both servers of pair, all at
// once (they must not depend on each other), and compares the outcomes.
func runScenarios(t *testing.T, pair *privatePair, scs []scenario) {
	t.Helper()
	playScenarios(t, pair, scs, true)
}

// runScenariosInOrder is runScenarios for scenarios that change settings:
// one after the other.
func runScenariosInOrder(t *testing.T, pair *privatePair, scs []scenario) {
	t.Helper()
	playScenarios(t, pair, scs, false)
}

func playScenarios(t *testing.T, pair *privatePair, scs []scenario, parallel bool) {
	t.Helper()
	type result struct{ rds, lkv string }
	results := make([]result, len(scs))
	var wg sync.WaitGroup
	for i, sc := range scs {
		wg.Add(1)
		play := func() {
			defer wg.Done()
			results[i].rds, results[i].lkv = both(pair.redis, pair.lkv, sc.run)
		}
		if parallel {
			go play()
		} else {
			play()
		}
	}
	wg.Wait()
	for i, sc := range scs {
		t.Run(sc.name, func(t *testing.T) {
			r := results[i]
			if r.rds == r.lkv {
				if sc.known != "" {
					t.Logf("conforms now; the known divergence (%s) can be dropped", sc.known)
				}
				return
			}
			msg := fmt.Sprintf("\n redis:\n%s limitkv:\n%s", indent(r.rds), indent(r.lkv))
			if sc.known != "" {
				t.Skipf("known divergence: %s%s", sc.known, msg)
			}
			t.Error("outcomes differ:" + msg)
		})
	}
	aliveAt(t, pair.redis, pair.lkv)
}

func indent(s string) string {
	return "   " + strings.ReplaceAll(strings.TrimRight(truncate([]byte(s), 2000), "\n"), "\n", "\n   ") + "\n"
}

// ---------------------------------------------------------------------------
// Malformed protocol: what protocol_test.go does not cover already.

func TestHardeningProtocol(t *testing.T) {
	requireServers(t)
	pair := &privatePair{redis: redisAddr, lkv: limitkvAddr}
	runScenarios(t, pair, []scenario{
		{name: "multibulk length int64 max", steps: []step{send("*9223372036854775807\r\n")}},
		{name: "multibulk length past int64", steps: []step{send("*9223372036854775808\r\n")}},
		{name: "multibulk length int64 min", steps: []step{sendN("*-9223372036854775808\r\nPING\r\n", 1)}},
		{name: "multibulk length 1M+1 waits", steps: []step{sendN("*1048577\r\n", 0)}},
		{name: "multibulk length leading zero", steps: []step{send("*01\r\n$4\r\nPING\r\n")}},
		{name: "multibulk length with spaces", steps: []step{send("* 1\r\n")}},
		{name: "multibulk length trailing space", steps: []step{send("*1 \r\n")}},
		{name: "multibulk length hex", steps: []step{send("*0x1\r\n")}},
		{name: "multibulk length 40 digits", steps: []step{send("*" + digits(40) + "\r\n")}},
		{name: "bulk length past int64", steps: []step{send("*1\r\n$9223372036854775808\r\n")}},
		{name: "bulk length int64 min", steps: []step{send("*1\r\n$-9223372036854775808\r\n")}},
		{name: "bulk length minus one", steps: []step{send("*1\r\n$-1\r\n")}},
		{name: "bulk length minus zero", steps: []step{send("*1\r\n$-0\r\n")}},
		{name: "bulk length plus sign", steps: []step{send("*1\r\n$+4\r\nPING\r\n")}},
		{name: "bulk length leading zero", steps: []step{send("*1\r\n$04\r\nPING\r\n")}},
		{name: "bulk length float", steps: []step{send("*1\r\n$4.0\r\nPING\r\n")}},
		{name: "bulk length 1 GB", steps: []step{send("*1\r\n$1073741824\r\n")}},
		{name: "bulk length 40 digits", steps: []step{send("*1\r\n$" + digits(40) + "\r\n")}},
		{name: "zero-length command name", steps: []step{send("*1\r\n$0\r\n\r\n")}},
		{name: "NUL command name", steps: []step{send("*1\r\n$1\r\n\x00\r\n"), send(mb("a\x00b", "c\x00d")),
			send(mb("foo", "ab", "\x00", "c\x00d", "e")), send(mb("CLIENT", "x\x00y")), send(mb("CONFIG", "\x00"))}},
		{name: "NUL in header then flood", steps: []step{send("*1\x00\r\n" + repeat("A", 70<<10))}},
		{name: "NUL in bulk header then flood", steps: []step{send("*1\r\n$4\x00\r\n" + repeat("B", 70<<10))}},
		{name: "NUL in an inline line waits", steps: []step{sendN(inline("ECHO a\x00b"), 0)}},
		{name: "CR without LF then flood", steps: []step{send("PING\r" + repeat("C", 70<<10))}},
		{name: "unbalanced single quote", steps: []step{send(inline("ECHO 'abc"))}},
		{name: "unbalanced double quote", steps: []step{send(inline(`ECHO "abc`))}},
		{name: "escaped closing quote", steps: []step{send(inline(`ECHO "abc\"`))}},
		{name: "quote then letter", steps: []step{send(inline(`ECHO 'a'b`))}},
		{name: "adjacent quoted args", steps: []step{send(inline(`ECHO "a""b"`))}},
		{name: "short hex escape", steps: []step{send(inline(`ECHO "\x4"`))}},
		{name: "bad hex escape", steps: []step{send(inline(`ECHO "\xZZ"`))}},
		{name: "error closes after earlier replies", steps: []step{sendN(mb("PING")+mb("ECHO", "x")+"*1\r\n$x\r\n"+mb("PING"), 3)}},
		{name: "half a command then a protocol error", steps: []step{send("*2\r\n$4\r\nECHO\r\n*1\r\n")}},
		{name: "binary garbage waits (a NUL hides the newline)", steps: []step{sendN("\xff\xfe\x00\x01*\r\n$\r\n\r\n", 0)}},
		{name: "binary garbage line", steps: []step{send("\xff\xfe\x01*\r\n$\r\n\r\n")}},
	})
}

// TestHardeningQueryBufferLimit: past client-query-buffer-limit the client
// is closed without a reply.
func TestHardeningQueryBufferLimit(t *testing.T) {
	pair := startPrivatePair(t, "")
	for _, addr := range []string{pair.redis, pair.lkv} {
		c := dialRaw(t, "admin", addr)
		if r := c.MustDo(t, "CONFIG", "SET", "client-query-buffer-limit", "1mb"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("CONFIG SET: %s", r)
		}
	}
	twoMB := repeat("q", 2<<20)
	runScenarios(t, pair, []scenario{
		{name: "one bulk past the limit", steps: []step{send("*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(len(twoMB)) + "\r\n" + twoMB + "\r\n")}},
		{name: "bulk just under the limit", steps: []step{send(mb("ECHO", twoMB[:1<<20-100]))}},
		{name: "pipeline past the limit in total", steps: []step{sendN(repeat(mb("SET", "qbk", repeat("v", 100<<10)), 20)+mb("STRLEN", "qbk"), 21)}},
	})
}

// ---------------------------------------------------------------------------
// Connection limits.

func TestHardeningMaxClients(t *testing.T) {
	pair := startPrivatePair(t, "")
	outcome := func(name, addr string) string {
		admin, err := dialRawConn(name, addr)
		if err != nil {
			return err.Error()
		}
		defer admin.Close()
		var out strings.Builder
		r, _ := admin.Do("CONFIG", "SET", "maxclients", "3")
		out.Write(r.Raw)
		var conns []*RawConn
		for i := range 3 { // admin + 2 fit; the third is one too many
			c, err := dialRawConn(name, addr)
			if err != nil {
				return err.Error()
			}
			defer c.Close()
			c.Timeout = 2 * time.Second
			conns = append(conns, c)
			if r, err := c.Do("PING"); err != nil {
				fmt.Fprintf(&out, "client %d: %v\n", i, err)
			} else {
				fmt.Fprintf(&out, "client %d: %q\n", i, r.Raw)
			}
		}
		closed, extra := conns[2].AwaitClose(time.Second)
		fmt.Fprintf(&out, "rejected client closed=%v extra=%q\n", closed, extra)
		conns[0].Close()
		// The freed slot is taken by a new client once the server noticed.
		for i := 0; ; i++ {
			c, err := dialRawConn(name, addr)
			if err == nil {
				c.Timeout = time.Second
				r, err := c.Do("PING")
				c.Close()
				if err == nil && string(r.Raw) == "+PONG\r\n" {
					break
				}
			}
			if i == 100 {
				out.WriteString("slot never freed\n")
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		r, _ = admin.Do("CONFIG", "SET", "maxclients", "10000")
		out.Write(r.Raw)
		return out.String()
	}
	rds, lkv := both(pair.redis, pair.lkv, outcome)
	if rds != lkv {
		t.Errorf("maxclients+1 connections:\n redis:\n%s limitkv:\n%s", indent(rds), indent(lkv))
	}
	t.Logf("redis:\n%s", rds)
	aliveAt(t, pair.redis, pair.lkv)
}

// TestHardeningIdleTimeout: CONFIG SET timeout 1 closes a silent client,
// keeps an active one, and (when limitkv has a blocking command) a blocked one.
func TestHardeningIdleTimeout(t *testing.T) {
	pair := startPrivatePair(t, "")
	var block []string
	for _, c := range [][]string{{"BLPOP", "idle:list", "0"}, {"BZPOPMIN", "idle:zset", "0"}} {
		if engine.Lookup([]byte(c[0])) != nil {
			block = c
			break
		}
	}
	outcome := func(name, addr string) string {
		var out strings.Builder
		dial := func() *RawConn {
			c, err := dialRawConn(name, addr)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return nil
			}
			return c
		}
		admin, idle, active := dial(), dial(), dial()
		if admin == nil || idle == nil || active == nil {
			return "dial failed"
		}
		defer admin.Close()
		defer idle.Close()
		defer active.Close()
		idle.MustDo(t, "PING")
		r := admin.MustDo(t, "CONFIG", "SET", "timeout", "1")
		out.Write(r.Raw)
		var blocked *RawConn
		if block != nil {
			if blocked = dial(); blocked != nil {
				defer blocked.Close()
				blocked.Send(block...)
			}
		}
		// Redis counts idle time in whole seconds, checked ten times a
		// second: a client idle for more than 1 s goes within about 2.1 s.
		for range 9 {
			time.Sleep(300 * time.Millisecond)
			if r, err := active.Do("PING"); err != nil || string(r.Raw) != "+PONG\r\n" {
				fmt.Fprintf(&out, "active client: %v %v\n", r, err)
				break
			}
		}
		closed, _ := idle.AwaitClose(100 * time.Millisecond)
		fmt.Fprintf(&out, "idle closed=%v\n", closed)
		if blocked != nil {
			closed, _ := blocked.AwaitClose(100 * time.Millisecond)
			fmt.Fprintf(&out, "blocked closed=%v\n", closed)
		}
		if r, err := active.Do("CONFIG", "SET", "timeout", "0"); err == nil {
			out.Write(r.Raw)
		}
		return out.String()
	}
	rds, lkv := both(pair.redis, pair.lkv, outcome)
	if rds != lkv {
		t.Errorf("idle timeout:\n redis:\n%s limitkv:\n%s", indent(rds), indent(lkv))
	}
	if block == nil {
		t.Log("limitkv has no blocking command yet: the blocked-client exemption is tested in internal/server only once one exists")
	}
	aliveAt(t, pair.redis, pair.lkv)
}

// ---------------------------------------------------------------------------
// Clients that vanish, and one that reads very slowly.

func TestHardeningVanishingClients(t *testing.T) {
	pair := startPrivatePair(t, "")
	value := repeat("v", 50<<20)
	members := 0
	for _, addr := range []string{pair.redis, pair.lkv} {
		c := dialRaw(t, "setup", addr)
		defer c.Close()
		c.Timeout = 10 * time.Second
		if r := c.MustDo(t, "SET", "big", value); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("SET 50 MB: %s", r)
		}
		// A 100k-member sorted set, where limitkv has ZADD already.
		args := []string{"ZADD", "z"}
		for i := range 100_000 {
			args = append(args, strconv.Itoa(i), "member:"+strconv.Itoa(i))
		}
		if r := c.MustDo(t, args...); string(r.Raw) == ":100000\r\n" {
			members++
		}
		c.Close()
	}
	cases := []struct {
		name string
		cmd  []string
		read int64
	}{
		{"GET of 50 MB, closed before reading", []string{"GET", "big"}, 0},
		{"GET of 50 MB, closed after 1 MB", []string{"GET", "big"}, 1 << 20},
		{"mid request", nil, 0},
	}
	if members == 2 {
		cases = append(cases, struct {
			name string
			cmd  []string
			read int64
		}{"ZRANGE of 100k, closed after 64 KB", []string{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, 64 << 10})
	} else {
		t.Log("limitkv has no ZADD yet: the ZRANGE case is left out")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, addr := range []string{pair.redis, pair.lkv} {
				for range 2 {
					c := dialRaw(t, "vanishing", addr)
					if tc.cmd == nil {
						c.WriteRaw([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000\r\npartial"))
					} else {
						c.Send(tc.cmd...)
					}
					if tc.read > 0 {
						c.NetConn().SetReadDeadline(time.Now().Add(5 * time.Second))
						io.CopyN(io.Discard, c.NetConn(), tc.read)
					}
					c.Close()
				}
			}
			aliveAt(t, pair.redis, pair.lkv)
		})
	}
	// Every vanished client is gone from limitkv's client list.
	c := dialRaw(t, "check", pair.lkv)
	deadline := time.Now().Add(3 * time.Second)
	for {
		r := c.MustDo(t, "INFO", "clients")
		if strings.Contains(r.Str, "connected_clients:1\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("vanished clients still listed: %s", r.Str)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHardeningSlowReader: a client reading its replies a byte a second
// delays nobody else.
func TestHardeningSlowReader(t *testing.T) {
	requireServers(t)
	setup := dialRaw(t, "limitkv", limitkvAddr)
	setup.MustDo(t, "SET", "slow:big", repeat("s", 1<<20))
	slow := dialRaw(t, "slow", limitkvAddr)
	slow.WriteRaw(bytes.Repeat(encodeCommand("GET", "slow:big"), 50))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var b [1]byte
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
				slow.NetConn().SetReadDeadline(time.Now().Add(time.Second))
				slow.NetConn().Read(b[:])
			}
		}
	}()
	var lat []time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	end := time.Now().Add(1500 * time.Millisecond)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dialRawConn("pinger", limitkvAddr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for time.Now().Before(end) {
				t0 := time.Now()
				r, err := c.Do("PING")
				if err != nil || string(r.Raw) != "+PONG\r\n" {
					t.Errorf("PING beside a slow reader: %v %v", r, err)
					return
				}
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(lat) == 0 {
		t.Fatal("no PING completed")
	}
	slices.Sort(lat)
	p99, worst := lat[len(lat)*99/100], lat[len(lat)-1]
	t.Logf("%d PINGs beside a slow reader: p99 %v, worst %v", len(lat), p99, worst)
	// The machine's own scheduling noise reaches ~100 ms at the tail on
	// two cores; a server that waited on the slow reader would stall whole
	// seconds (it takes a byte a second).
	if p99 > 50*time.Millisecond || worst > 700*time.Millisecond {
		t.Errorf("PING latency beside a slow reader: p99 %v, worst %v", p99, worst)
	}
	requireAlive(t)
}

// ---------------------------------------------------------------------------
// maxmemory.

// TestHardeningMaxMemoryReplies: with maxmemory far below what either
// server uses, every deny-oom command is refused with Redis's text and
// everything else is served.
func TestHardeningMaxMemoryReplies(t *testing.T) {
	pair := startPrivatePair(t, "")
	setup := func(key string) string {
		return mb("SET", key, "1") + mb("CONFIG", "SET", "maxmemory", "1")
	}
	restore := mb("CONFIG", "SET", "maxmemory", "0")
	runScenariosInOrder(t, pair, []scenario{
		{name: "writes refused, reads served", steps: []step{
			sendN(setup("mm:a"), 2),
			send(mb("GET", "mm:a")), send(mb("SET", "mm:b", "2")), send(mb("SETNX", "mm:b", "2")), send(mb("SETEX", "mm:b", "10", "2")),
			send(mb("MSET", "mm:b", "1")), send(mb("INCR", "mm:a")), send(mb("INCRBYFLOAT", "mm:a", "1.5")), send(mb("APPEND", "mm:a", "x")),
			send(mb("SETRANGE", "mm:a", "0", "x")), send(mb("GETSET", "mm:a", "x")), send(mb("EXISTS", "mm:a")), send(mb("STRLEN", "mm:a")),
			send(mb("EXPIRE", "mm:a", "100")), send(mb("TTL", "mm:a")), send(mb("PERSIST", "mm:a")), send(mb("TYPE", "mm:a")),
			send(mb("SORT", "mm:nokey")), send(mb("SORT_RO", "mm:nokey")), send(mb("SORT_RO", "mm:a")),
			send(mb("GETDEL", "mm:a")), send(mb("DEL", "mm:a")), send(mb("DBSIZE")), send(mb("PING")),
			send(mb("MULTI")), send(mb("DISCARD")),
			send(restore), send(mb("SET", "mm:b", "2")), send(mb("GET", "mm:b")),
		}},
		{name: "inside MULTI everything is refused",
			steps: []step{sendN(setup("mm:m"), 2), send(mb("MULTI")), send(mb("GET", "mm:m")), send(mb("PING")), send(mb("EXEC")), send(restore)}},
		{name: "scripts obey maxmemory",
			steps: []step{sendN(setup("mm:s"), 2),
				send(mb("EVAL", "return redis.pcall('set', KEYS[1], '1')", "1", "mm:s")),
				send(mb("EVAL", "return redis.call('get', KEYS[1])", "1", "mm:s")), send(restore)}},
	})
}

// heapNow is what limitkv's used memory starts from, read the same way.
func heapNow() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestHardeningMaxMemory fills an in-process limitkv to a maxmemory a few
// MB above what the process uses: writes are refused with OOM, reads are
// served, and deleting keys lets writes in again. Under volatile-ttl, keys
// nearest their deadline make room instead.
func TestHardeningMaxMemory(t *testing.T) {
	requireServers(t)
	srv, err := limitkv.Start(limitkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := dialRaw(t, "limitkv", srv.Addr())
	val := repeat("m", 16<<10)
	oom := "-" + engine.ErrOOM + "\r\n"
	base := uint64(0)
	limitAt := func(room uint64) {
		if base == 0 {
			runtime.GC()
			base = heapNow()
		}
		if r := c.MustDo(t, "CONFIG", "SET", "maxmemory", strconv.FormatUint(base+room, 10)); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("CONFIG SET maxmemory: %s", r)
		}
	}
	fill := func(prefix string, extra ...string) int {
		for i := range 10000 {
			r := c.MustDo(t, append([]string{"SET", prefix + strconv.Itoa(i), val}, extra...)...)
			switch string(r.Raw) {
			case "+OK\r\n":
			case oom:
				return i
			default:
				t.Fatalf("SET: %s", r)
			}
		}
		return -1
	}

	t.Run("noeviction", func(t *testing.T) {
		limitAt(16 << 20)
		n := fill("ne:")
		if n < 0 {
			t.Fatal("10000 x 16 KB written into 16 MB")
		}
		t.Logf("OOM after %d keys", n)
		// At the very edge a collection may yet bring the heap under the
		// limit; well past it, every write is refused.
		limitAt(4 << 20)
		if r := c.MustDo(t, "GET", "ne:0"); string(r.Raw) != "$16384\r\n"+val+"\r\n" {
			t.Fatalf("GET at maxmemory: %.40q", r.Raw)
		}
		if r := c.MustDo(t, "INCR", "counter"); string(r.Raw) != oom {
			t.Fatalf("INCR at maxmemory: %s", r)
		}
		for i := range n {
			c.Send("DEL", "ne:"+strconv.Itoa(i))
		}
		for range n {
			c.ReadReply()
		}
		deadline := time.Now().Add(3 * time.Second)
		for string(c.MustDo(t, "SET", "after", val).Raw) != "+OK\r\n" {
			if time.Now().After(deadline) {
				t.Fatal("writes still refused 3 s after deleting every key")
			}
			time.Sleep(10 * time.Millisecond)
		}
		c.MustDo(t, "FLUSHALL")
	})
	t.Run("volatile-ttl", func(t *testing.T) {
		c.MustDo(t, "CONFIG", "SET", "maxmemory-policy", "volatile-ttl")
		limitAt(16 << 20)
		for i := range 3000 { // 48 MB of volatile keys into 16 MB: all writes succeed
			if r := c.MustDo(t, "SET", "vt:"+strconv.Itoa(i), val, "EX", strconv.Itoa(1000+i)); string(r.Raw) != "+OK\r\n" {
				t.Fatalf("SET vt:%d under volatile-ttl: %s", i, r)
			}
		}
		info := c.MustDo(t, "INFO", "stats").Str
		if strings.Contains(info, "evicted_keys:0\r\n") {
			t.Fatal("INFO stats shows no evicted key")
		}
		dbsize := c.MustDo(t, "DBSIZE").Int
		if r := c.MustDo(t, "EXISTS", "vt:0"); string(r.Raw) != ":0\r\n" {
			t.Fatalf("the key nearest its deadline survived (%d keys left)", dbsize)
		}
		if r := c.MustDo(t, "EXISTS", "vt:2999"); string(r.Raw) != ":1\r\n" {
			t.Fatalf("the newest key was evicted (%d keys left)", dbsize)
		}
		// Without volatile keys left, writes are refused.
		if n := fill("pv:"); n < 0 {
			t.Fatal("persistent keys written without end")
		}
		c.MustDo(t, "CONFIG", "SET", "maxmemory", "0")
		c.MustDo(t, "FLUSHALL")
	})
	aliveAt(t, srv.Addr())
}
