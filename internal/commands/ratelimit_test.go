package commands

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/family/limitcmd"
)

func TestRLCheckSeedContract(t *testing.T) {
	tt := newTester(t)
	now := tt.Clock.Now().UnixMilli()
	at := func(d int64) string { return itoa(now + d) }
	// 5 per 60 s: five admitted (replies 0..4), the sixth refused (5).
	for i := int64(0); i < 5; i++ {
		tt.Expect(integer(i), "RL.CHECK", "u", at(i), "60000", "5", "m"+itoa(i))
	}
	tt.Expect(integer(5), "RL.CHECK", "u", at(10), "60000", "5", "m-refused")
	tt.Expect(integer(5), "ZCARD", "u")
	tt.Expect(nilReply, "ZSCORE", "u", "m-refused")
	tt.Expect(integer(61000), "PTTL", "u")
	// 60 s after the first entry it leaves the window (score <= now-window).
	tt.Expect(integer(4), "RL.CHECK", "u", at(60000), "60000", "5", "m5")
	tt.Expect(integer(5), "RL.CHECK", "u", at(60000), "60000", "5", "m6")
}

func TestRLCheckInfoAndPeek(t *testing.T) {
	tt := newTester(t)
	now := tt.Clock.Now().UnixMilli()
	info := func(allowed, count, limit, remaining, retry, reset int64) string {
		return array(bulk("allowed"), integer(allowed), bulk("count"), integer(count), bulk("limit"), integer(limit),
			bulk("remaining"), integer(remaining), bulk("retry_after_ms"), integer(retry), bulk("reset_after_ms"), integer(reset))
	}
	tt.Expect(info(1, 0, 2, 2, 0, 0), "RL.PEEK", "k", itoa(now), "1000", "2", "INFO")
	tt.Expect(info(1, 1, 2, 1, 0, 1000), "RL.CHECK", "k", itoa(now), "1000", "2", "a", "INFO")
	tt.Expect(info(1, 2, 2, 0, 0, 1000), "RL.CHECK", "k", itoa(now+100), "1000", "2", "b", "info")
	// Refused: the oldest entry (score now) leaves at now+1000, 900 ms later.
	tt.Expect(info(0, 2, 2, 0, 900, 1000), "RL.CHECK", "k", itoa(now+100), "1000", "2", "c", "INFO")
	tt.Expect(info(0, 2, 2, 0, 900, 1000), "RL.PEEK", "k", itoa(now+100), "1000", "2", "INFO")
	tt.Expect(info(0, 2, 2, 0, -1, 1000), "RL.PEEK", "k", itoa(now+100), "1000", "2", "COST", "3", "INFO")
	tt.Expect(integer(2), "ZCARD", "k")
}

func TestRLCheckServerTimeAndMembers(t *testing.T) {
	tt := newTester(t)
	for i := int64(0); i < 3; i++ {
		tt.Expect(integer(i), "RL.CHECK", "k", "*", "1000", "3", "*")
	}
	tt.Expect(integer(3), "RL.CHECK", "k", "*", "1000", "3", "*")
	tt.Expect(integer(3), "ZCARD", "k") // three distinct members in one millisecond
	tt.Clock.Add(1001 * time.Millisecond)
	tt.Expect(integer(0), "RL.CHECK", "k", "*", "1000", "3", "*", "COST", "2")
	tt.Expect(integer(2), "ZCARD", "k")
	// A clock stepping back is clamped to the newest entry: still refused.
	tt.Clock.Add(-5 * time.Second)
	tt.Expect(integer(2), "RL.CHECK", "k", "*", "1000", "3", "*", "COST", "2")
}

func TestRLCheckErrors(t *testing.T) {
	tt := newTester(t)
	tt.Do("SET", "s", "v")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"RL.CHECK", "k", "1", "1", "1"}, errReply("ERR wrong number of arguments for 'rl.check' command")},
		{[]string{"RL.CHECK", "k", "x", "1", "1", "m"}, errReply(limitcmd.ErrRLNow)},
		{[]string{"RL.CHECK", "k", "1.5", "1", "1", "m"}, errReply(limitcmd.ErrRLNow)},
		{[]string{"RL.CHECK", "k", "1", "0", "1", "m"}, errReply(limitcmd.ErrRLWindow)},
		{[]string{"RL.CHECK", "k", "1", "-5", "1", "m"}, errReply(limitcmd.ErrRLWindow)},
		{[]string{"RL.CHECK", "k", "1", "10", "0", "m"}, errReply(limitcmd.ErrRLLimit)},
		{[]string{"RL.CHECK", "k", "1", "10", "1", "m", "COST", "0"}, errReply(limitcmd.ErrRLCost)},
		{[]string{"RL.CHECK", "k", "1", "10", "1", "m", "COST"}, errReply(engine.ErrSyntax)},
		{[]string{"RL.CHECK", "k", "1", "10", "1000000000", "m", "COST", "100001"}, errReply(limitcmd.ErrRLCost)},
		{[]string{"RL.CHECK", "k", "1", "10", "1", "m", "BOGUS"}, errReply(engine.ErrSyntax)},
		{[]string{"RL.CHECK", "s", "1", "10", "1", "m"}, errReply(engine.ErrWrongType)},
		{[]string{"RL.PEEK", "s", "1", "10", "1"}, errReply(engine.ErrWrongType)},
	}
	for _, tc := range tests {
		tt.Expect(tc.want, tc.args...)
	}
	tt.Expect(integer(0), "EXISTS", "k") // nothing was created by a refused argument
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The decisions the metrics endpoint reports are counted per command,
// limit and answer, whichever series the request before counted in (the
// last series is kept at hand), and CONFIG RESETSTAT starts them again.
func TestRLDecisionCounts(t *testing.T) {
	tt := newTester(t)
	for _, c := range [][]string{
		{"RL.CHECK", "a", "1000", "60000", "1", "m1"}, // allowed, limit 1
		{"RL.CHECK", "a", "1000", "60000", "1", "m2"}, // refused, limit 1
		{"RL.CHECK", "b", "1000", "60000", "5", "m1"}, // allowed, limit 5
		{"RL.PEEK", "a", "1000", "60000", "1"},        // refused, limit 1
		{"RL.CHECK", "a", "1000", "60000", "1", "m3"}, // refused, limit 1
		{"RL.CHECK", "c", "1000", "60000", "5", "m1"}, // allowed, limit 5
	} {
		tt.Do(c...)
	}
	got := func() string {
		var b strings.Builder
		for _, d := range tt.E.MetricsSnapshot().RL {
			fmt.Fprintf(&b, "%s/%s/%v=%d ", d.Cmd, d.Limit, d.Allowed, d.Count)
		}
		return b.String()
	}
	want := "rl.check/1/false=2 rl.check/1/true=1 rl.check/5/true=2 rl.peek/1/false=1 "
	if g := got(); g != want {
		t.Errorf("decisions %q, want %q", g, want)
	}
	tt.Expect(okReply, "CONFIG", "RESETSTAT")
	tt.Do("RL.CHECK", "d", "1000", "60000", "5", "m1")
	if g, want := got(), "rl.check/5/true=1 "; g != want {
		t.Errorf("after RESETSTAT %q, want %q", g, want)
	}
}
