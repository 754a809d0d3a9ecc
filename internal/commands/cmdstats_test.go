package commands

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/admin"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/clock"
)

func TestErrorCode(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{"ERR syntax error", "ERR"},
		{"WRONGTYPE Operation", "WRONGTYPE"},
		{"NOSPACE", "ERR"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 x", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"}, // space at byte 31 of "-..."
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ01234 x", "ERR"},                           // space at byte 32: past Redis's search
		{" leading", ""},
	} {
		if got := engine.ErrorCode([]byte(c.msg)); got != c.want {
			t.Errorf("errorCode(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}

func TestNestedErrors(t *testing.T) {
	for _, c := range []struct{ reply, want string }{
		{"+OK\r\n", ""},
		{"-ERR x\r\n", "ERR x"},
		{"*3\r\n:1\r\n*1\r\n-IN z\r\n$5\r\n-NO x\r\n", "IN z"},
		{"%1\r\n+k\r\n-E v\r\n", "E v"},
		{"|1\r\n+a\r\n-A1 x\r\n-B2 y\r\n", "A1 x,B2 y"},
		{"*2\r\n$-1\r\n-LAST one\r\n", "LAST one"},
	} {
		var got []string
		engine.NestedErrors([]byte(c.reply), func(m []byte) { got = append(got, string(m)) })
		if strings.Join(got, ",") != c.want {
			t.Errorf("%q: %v, want %q", c.reply, got, c.want)
		}
	}
}

func TestPercentileSetting(t *testing.T) {
	for _, c := range []struct {
		in, get, err string
	}{
		{"50 99 99.9", "50 99 99.9", ""},
		{"0 100 33.3333 99.990", "0 100 33.3333 99.99", ""},
		{"", "", ""},
		{"1e1 0x10", "10 16", ""},
		{"101", "", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{"1  2", "", "Invalid latency-tracking-info-percentiles parameters"},
		{"nan", "", "Invalid latency-tracking-info-percentiles parameters"},
	} {
		ps, err := config.ParsePercentiles(c.in)
		if err != c.err {
			t.Errorf("%q: error %q, want %q", c.in, err, c.err)
			continue
		}
		if err != "" {
			continue
		}
		var s []string
		for _, p := range ps {
			s = append(s, config.FormatPercentile(p))
		}
		if strings.Join(s, " ") != c.get {
			t.Errorf("%q: reads back %q, want %q", c.in, strings.Join(s, " "), c.get)
		}
	}
}

// TestLatencyMonitorSeconds: one sample per second, the worst of it, and
// the all-time maximum kept past a quieter second.
func TestLatencyMonitorSeconds(t *testing.T) {
	tt := newTester(t)
	tt.Expect("+OK\r\n", "CONFIG", "SET", "latency-monitor-threshold", "5")
	tt.E.Lock()
	tt.E.LatencyAddIfNeeded("expire-cycle", 4) // under the threshold
	tt.E.LatencyAddIfNeeded("expire-cycle", 7)
	tt.E.LatencyAddIfNeeded("expire-cycle", 9)
	tt.E.LatencyAddIfNeeded("expire-cycle", 6)
	tt.Clock.Add(time.Second)
	tt.E.LatencyAddIfNeeded("expire-cycle", 5)
	tt.E.Unlock()
	t0 := tt.Clock.Now().Unix() - 1
	tt.Expect("*2\r\n*2\r\n:"+itoa(t0)+"\r\n:9\r\n*2\r\n:"+itoa(t0+1)+"\r\n:5\r\n", "LATENCY", "HISTORY", "expire-cycle")
	tt.Expect("*1\r\n*4\r\n$12\r\nexpire-cycle\r\n:"+itoa(t0+1)+"\r\n:5\r\n:9\r\n", "LATENCY", "LATEST")
	tt.Expect(":1\r\n", "LATENCY", "RESET", "EXPIRE-CYCLE")
}

// TestSparkline renders what Redis 7.0.15's LATENCY GRAPH drew for the
// samples 143, 25, 35 and 3 ms, 5, 3, 2 and 1 s old.
func TestSparkline(t *testing.T) {
	var s admin.SparkSeq
	for i, v := range []float64{143, 25, 35, 3} {
		s.Add(v, []string{"5s", "3s", "2s", "1s"}[i])
	}
	var b strings.Builder
	s.Render(&b, 80, 4)
	want := "#   \n|   \n|   \n|o#_\n    \n5321\nssss\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// TestCommandClock checks what one clock read per command gives on both
// kinds of clock: the command's own time (a deadline set from it, also
// after the wall offset is taken again) and its duration in INFO
// commandstats, measured on the monotonic clock even when the engine's
// clock is a test's, which has no monotonic half.
func TestCommandClock(t *testing.T) {
	for _, c := range []struct {
		name string
		clk  clock.Clock
	}{
		{"real", nil},
		{"manual", clock.NewManual(time.Unix(1_700_000_000, 0))},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.DefaultConfig()
			cfg.EnableDebugCommand.Store(config.DebugCommandYes)
			e := New(cfg, c.clk, nil)
			tt := &tester{t: t, E: e, C: e.NewClient("127.0.0.1:1", "127.0.0.1:6379")}
			do := tt.Do
			// Sleeps between the writes let the wall offset be reused
			// and taken again.
			for i, pause := range []time.Duration{0, 10 * time.Millisecond, 60 * time.Millisecond, 120 * time.Millisecond} {
				time.Sleep(pause)
				before := e.Clock.Now().UnixMilli()
				do("SET", "k", "v", "PX", "60000")
				after := e.Clock.Now().UnixMilli()
				e.Lock()
				exp := e.DB(0).Peek([]byte("k")).Expiry()
				e.Unlock()
				// A ms either side: the real clock's command time is the
				// monotonic reading plus an offset, which may round across
				// a millisecond the wall reads around it do not.
				if exp < before+60000-1 || exp > after+60000+1 {
					t.Errorf("write %d: deadline %d outside [%d, %d]: the command's time is not the clock's", i, exp, before+60000, after+60000)
				}
			}
			do("DEBUG", "SLEEP", "0.02")
			info := do("INFO", "commandstats")
			m := regexp.MustCompile(`cmdstat_debug:calls=1,usec=(\d+),`).FindStringSubmatch(info)
			if m == nil {
				t.Fatalf("no debug line in %q", info)
			}
			if us, _ := strconv.Atoi(m[1]); us < 20000 || us > 2_000_000 {
				t.Errorf("DEBUG SLEEP 0.02 took usec=%d", us)
			}
		})
	}
}
