package admin

import (
	"fmt"
	"strings"

	"github.com/limitkv/limitkv/internal/engine"
)

// LATENCY DOCTOR: Redis 7.0's createLatencyReport, for the events limitkv
// records (latency.go). Its advice texts are Redis's; those for events
// limitkv never records (fork, AOF, eviction) cannot appear.

type latencyStats struct {
	allTimeHigh, avg, min, max, mad int64
	samples                         int
	period                          int64
}

func analyzeLatency(e *engine.Engine, ev string) latencyStats {
	ts := e.Obs.Lat.Events[ev]
	var ls latencyStats
	if ts == nil {
		return ls
	}
	ls.allTimeHigh = ts.Max
	var sum int64
	for _, s := range ts.Samples {
		if s.Time == 0 {
			continue
		}
		ls.samples++
		if ls.samples == 1 {
			ls.min, ls.max = s.Latency, s.Latency
		} else {
			ls.min, ls.max = min(ls.min, s.Latency), max(ls.max, s.Latency)
		}
		sum += s.Latency
		if ls.period == 0 || s.Time < ls.period {
			ls.period = s.Time
		}
	}
	if ls.samples > 0 {
		ls.avg = sum / int64(ls.samples)
		ls.period = e.Clock.Now().Unix() - ls.period
		if ls.period == 0 {
			ls.period = 1
		}
		sum = 0
		for _, s := range ts.Samples {
			if s.Time == 0 {
				continue
			}
			d := ls.avg - s.Latency
			sum += max(d, -d)
		}
		ls.mad = sum / int64(ls.samples)
	}
	return ls
}

func cmdLatencyDoctor(x *engine.Ctx) { x.W.Verbatim("txt", latencyReport(x.E)) }

func latencyReport(e *engine.Engine) string {
	m := &e.Obs.Lat
	thr := e.Cfg.Obs.LatencyThreshold.Load()
	if len(m.Events) == 0 && thr == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	var b strings.Builder
	var slowEnabled, slowTuning, slowInspect, scheduler, hz, large, thp bool
	advices := 0
	names := eventNames(m)
	for i, ev := range names {
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		ls := analyzeLatency(e, ev)
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			i+1, ev, ls.samples, ls.avg, ls.mad, float64(ls.period)/float64(ls.samples), m.Events[ev].Max)
		switch strings.ToLower(ev) {
		case "command":
			if slowlog := e.Cfg.Obs.SlowlogSlowerThan.Load(); slowlog < 0 {
				slowEnabled = true
				advices++
			} else if slowlog/1000 > thr {
				slowTuning = true
				advices++
			}
			slowInspect, large = true, true
			advices += 2
		case "fast-command":
			scheduler = true
			advices++
		case "expire-cycle":
			hz, large = true, true
			advices += 2
		}
		b.WriteByte('\n')
	}
	if anonHugePages() > 0 {
		thp = true
		advices++
	}
	switch {
	case len(names) == 0 && advices == 0:
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
	case len(names) > 0 && advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n")
	default:
		b.WriteString("\nI have a few advices for you:\n\n")
		if slowEnabled {
			fmt.Fprintf(&b, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", thr*1000)
		}
		if slowTuning {
			fmt.Fprintf(&b, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", thr*1000)
		}
		if slowInspect {
			b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
		}
		if scheduler {
			b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
				"  1) Lower the system load.\n" +
				"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
				"  3) Check if you have a \"noisy neighbour\" problem.\n" +
				"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
				"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
		}
		// limitkv's hz is fixed at 10 (INFO's hz), below Redis's 100 mark.
		if hz {
			b.WriteString("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n")
		}
		if large {
			b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
		}
		if thp {
			b.WriteString("- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n")
		}
	}
	return b.String()
}
