package engine

const LatencyTSLen = 160

type LatencySample struct{ Time, Latency int64 }

type latencySeries struct {
	Idx     int
	Max     int64
	Samples [LatencyTSLen]LatencySample
}

type LatencyMonitor struct {
	Events map[string]*latencySeries
}

// latencySample is what call() adds for a command that ran ms ms.
func (e *Engine) latencySample(c *Command, ms int64) {
	if thr := e.Cfg.Obs.LatencyThreshold.Load(); thr == 0 || ms < thr {
		return
	}
	ev := "command"
	if c.Flags&FlagFast != 0 {
		ev = "fast-command"
	}
	e.latencyAdd(ev, ms)
}

// LatencyAddIfNeeded records ms for event when it reaches
// latency-monitor-threshold (latencyAddSampleIfNeeded). Call with the
// lock held.
func (e *Engine) LatencyAddIfNeeded(event string, ms int64) {
	if thr := e.Cfg.Obs.LatencyThreshold.Load(); thr == 0 || ms < thr {
		return
	}
	e.latencyAdd(event, ms)
}

func (e *Engine) latencyAdd(event string, ms int64) {
	m := &e.Obs.Lat
	if m.Events == nil {
		m.Events = make(map[string]*latencySeries)
	}
	ts := m.Events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.Events[event] = ts
	}
	now := e.Clock.Now().Unix()
	ts.Max = max(ts.Max, ms)
	// One sample per second: the worst of it.
	prev := &ts.Samples[(ts.Idx+LatencyTSLen-1)%LatencyTSLen]
	if prev.Time == now {
		prev.Latency = max(prev.Latency, ms)
		return
	}
	ts.Samples[ts.Idx] = LatencySample{now, ms}
	ts.Idx = (ts.Idx + 1) % LatencyTSLen
}
