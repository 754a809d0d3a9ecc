package conformance

import (
	"strconv"
	"testing"
	"time"
)

// A function past busy-reply-threshold: other clients get FUNCTION KILL's
// BUSY text, FUNCTION KILL stops it unless it has written, SCRIPT KILL
// does not, and FUNCTION STATS may look at it.
func TestFunctionBusy(t *testing.T) {
	requireServers(t)
	t.Cleanup(func() {
		for _, addr := range []string{redisAddr, limitkvAddr} {
			c := dialRaw(t, "cleanup", addr)
			c.Timeout = 10 * time.Second
			c.Do("CONFIG", "SET", "busy-reply-threshold", "5000")
			c.Do("FUNCTION", "FLUSH")
		}
	})
	lib := func(ms int, first string) string {
		return "#!lua name=busylib\nredis.register_function('spin', function(keys, args) " + loopFor(ms, first) + " end)"
	}
	fbusy := func(code string, cmds ...Cmd) []Cmd {
		out := []Cmd{
			C("FUNCTION", "LOAD", "REPLACE", code),
			C("CONFIG", "SET", "busy-reply-threshold", strconv.Itoa(int(busyThreshold/time.Millisecond))),
			C("FCALL", "spin", "0").NoReply(),
			Sleep(busyThreshold + 200*time.Millisecond),
		}
		out = append(out, cmds...)
		return append(out, C("CONFIG", "SET", "busy-reply-threshold", "5000").On(1), C("FUNCTION", "FLUSH").On(1))
	}
	runCases(t, []Case{
		{Name: "not busy", Cmds: []Cmd{C("FUNCTION", "KILL"), C("FUNCTION", "KILL", "x")}},
		{Name: "function kill", Cmds: fbusy(lib(3000, ""),
			C("PING").On(1), C("GET", "k").On(1), C("SCRIPT", "KILL").On(1),
			C("FUNCTION", "STATS").On(1).Ignore(),
			C("FUNCTION", "KILL").On(1),
			scriptReply(),
			C("PING").On(1), C("FUNCTION", "KILL").On(1))},
		{Name: "unkillable after a write", Cmds: fbusy(lib(1200, "redis.call('set', 'w', '1')"),
			C("FUNCTION", "KILL").On(1), C("GET", "w").On(1),
			scriptReply(),
			C("GET", "w").On(1))},
	})
}
