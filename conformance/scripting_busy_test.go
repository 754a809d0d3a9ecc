package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// A script running past busy-reply-threshold (set low here) keeps running
// while other clients are answered BUSY, except for the allow-busy commands;
// SCRIPT KILL stops it unless it has written.

// busyThreshold is the busy-reply-threshold the busy cases run with.
const busyThreshold = 200 * time.Millisecond

// loopFor is a script body that runs for about ms milliseconds of real time
// (TIME is not frozen inside a script), after running first, then returns
// 'done'. The iteration bound ends it even if the clock misbehaves.
func loopFor(ms int, first string) string {
	return first + " local function now() local t = redis.call('time') return t[1] * 1000 + math.floor(t[2] / 1000) end " +
		"local start = now() local n = 0 " +
		"while now() - start < " + strconv.Itoa(ms) + " and n < 100000000 do n = n + 1 end return 'done'"
}

// busy wraps cmds with the threshold setting, the long script on
// connection 0 (answered by the step that reads it, see scriptReply), and
// a pause that takes it past the threshold.
func busy(script string, cmds ...Cmd) []Cmd {
	out := []Cmd{
		C("CONFIG", "SET", "busy-reply-threshold", strconv.Itoa(int(busyThreshold/time.Millisecond))),
		ev(script).NoReply(),
		Sleep(busyThreshold + 200*time.Millisecond),
	}
	out = append(out, cmds...)
	return append(out, C("CONFIG", "SET", "busy-reply-threshold", "5000").On(1))
}

// scriptReply reads the long script's reply on connection 0.
func scriptReply() Cmd { return Raw("").Replies(1).Timeout(10 * time.Second) }

func TestScriptingBusy(t *testing.T) {
	requireServers(t)
	t.Cleanup(func() {
		for _, addr := range []string{redisAddr, limitkvAddr} {
			c := dialRaw(t, "cleanup", addr)
			c.Timeout = 10 * time.Second
			c.Do("CONFIG", "SET", "busy-reply-threshold", "5000")
		}
	})
	runCases(t, []Case{
		{Name: "not busy", Cmds: []Cmd{C("SCRIPT", "KILL"), C("script", "kill"), C("SCRIPT", "KILL", "x")}},
		{Name: "kill", Cmds: busy(loopFor(3000, ""),
			C("PING").On(1), C("GET", "k").On(1), C("SET", "k", "v").On(1), C("EVAL", "return 1", "0").On(1),
			C("SCRIPT", "LOAD", "return 1").On(1), C("CLIENT", "ID").On(1), C("SCRIPT", "KILL").On(1),
			scriptReply(),
			C("PING").On(1), C("SCRIPT", "KILL").On(1), C("GET", "k").On(1))},
		{Name: "kill survives pcall", Cmds: busy(strings.Replace(loopFor(3000, ""), "do n = n + 1 end",
			"do pcall(function() for i = 1, 1000 do n = n + 1 end end) end", 1),
			C("SCRIPT", "KILL").On(1), scriptReply(), C("PING").On(1))},
		// The script must outlast the SHUTDOWNs by far: one that ended
		// first would shut the shared Redis down (it once did under load).
		{Name: "unkillable after a write", Cmds: busy(loopFor(2500, "redis.call('set', 'w', '1')"),
			C("SCRIPT", "KILL").On(1), C("GET", "w").On(1), C("SHUTDOWN").On(1), C("SHUTDOWN", "SAVE").On(1),
			scriptReply(),
			C("SCRIPT", "KILL").On(1), C("GET", "w").On(1))},
		{Name: "allow-busy commands", Cmds: busy(loopFor(3000, ""),
			C("MULTI").On(1), C("SET", "a", "1").On(1), C("EXEC").On(1),
			C("MULTI").On(1), C("DISCARD").On(1),
			C("WATCH", "a").On(1), C("UNWATCH").On(1),
			C("AUTH", "x").On(1), C("AUTH", "default", "x").On(1),
			C("NOSUCHCOMMAND").On(1), C("GET").On(1), C("SCRIPT").On(1),
			C("HELLO", "2").On(1).Check("HELLO", sameHelloShape), C("RESET").On(1),
			C("SCRIPT", "KILL").On(1), scriptReply())},
		{Name: "new connection while busy", Cmds: busy(loopFor(3000, ""),
			C("PING").On(2), C("SCRIPT", "KILL").On(2), scriptReply(), C("PING").On(2))},
		{Name: "transaction queued before", Cmds: append([]Cmd{C("MULTI").On(1), C("INCR", "c").On(1)},
			busy(loopFor(3000, ""), C("EXEC").On(1), C("SCRIPT", "KILL").On(1), scriptReply(), C("GET", "c").On(1))...)},
		{Name: "blocked client waits for the script", Cmds: append([]Cmd{C("PING").On(1), C("BLPOP", "l", "5").On(1).NoReply(), Sleep(50 * time.Millisecond)},
			busy(loopFor(800, "redis.call('rpush', 'l', 'a')"), C("LLEN", "l").On(2), scriptReply(),
				Raw("").On(1).Replies(1), C("LLEN", "l").On(2))...)},
	})
}

// sameHelloShape compares HELLO's replies without the fields that differ
// between the servers (id, version, modules).
func sameHelloShape(rds, lkv *Reply) error {
	if rds.Type != lkv.Type || len(rds.Elems) != len(lkv.Elems) {
		return fmt.Errorf("HELLO shapes differ")
	}
	return nil
}

// TestScriptingBusyShutdown: SHUTDOWN NOSAVE stops a server busy with a
// script, even one that has written; neither client gets a reply.
func TestScriptingBusyShutdown(t *testing.T) {
	requireServers(t)
	p, err := testredis.Start(testredis.Options{Path: redisServerPath})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	laddr, _ := startLimitkv(t)
	for _, side := range []struct{ name, addr string }{{"redis", p.Addr}, {"limitkv", laddr}} {
		a := dialRaw(t, side.name, side.addr)
		if r := a.MustDo(t, "CONFIG", "SET", "busy-reply-threshold", "200"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET: %q", side.name, r.Raw)
		}
		if err := a.Send("EVAL", loopFor(5000, "redis.call('set', 'w', '1')"), "0"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(busyThreshold + 200*time.Millisecond)
		b := dialRaw(t, side.name, side.addr)
		if r := b.MustDo(t, "SCRIPT", "KILL"); !strings.HasPrefix(string(r.Raw), "-UNKILLABLE ") {
			t.Errorf("%s: SCRIPT KILL answered %q", side.name, r.Raw)
		}
		if err := b.Send("SHUTDOWN", "NOSAVE"); err != nil {
			t.Fatal(err)
		}
		for _, c := range []*RawConn{b, a} {
			if closed, extra := c.AwaitClose(3 * time.Second); !closed || len(extra) != 0 {
				t.Errorf("%s: closed=%v, sent %q", side.name, closed, extra)
			}
		}
		deadline := time.Now().Add(3 * time.Second)
		for pingOK(side.addr) {
			if time.Now().After(deadline) {
				t.Errorf("%s still answers after SHUTDOWN NOSAVE", side.name)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
