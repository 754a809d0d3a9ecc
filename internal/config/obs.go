package config

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/limitkv/limitkv/internal/num"
)

// ObsConfig holds the settings of the statistics, slow log and latency
// monitor (cmdstats.go, slowlog.go, latency.go), with Redis 7.0's
// defaults.
type ObsConfig struct {
	SlowlogSlowerThan atomic.Int64 // slowlog-log-slower-than, µs; <0 disables
	SlowlogMaxLen     atomic.Int64 // slowlog-max-len
	LatencyThreshold  atomic.Int64 // latency-monitor-threshold, ms; 0 disables
	LatencyTracking   atomic.Bool  // latency-tracking
	pcts              atomic.Pointer[[]float64]
}

func (o *ObsConfig) init() {
	o.SlowlogSlowerThan.Store(10000)
	o.SlowlogMaxLen.Store(128)
	o.LatencyTracking.Store(true)
	o.pcts.Store(&[]float64{50, 99, 99.9})
}

// percentiles is latency-tracking-info-percentiles.
func (o *ObsConfig) Percentiles() []float64 {
	if p := o.pcts.Load(); p != nil {
		return *p
	}
	return nil
}

// formatPercentile is Redis's "%f" then trimDoubleString: 99.9, 50.
func FormatPercentile(p float64) string {
	s := strconv.FormatFloat(p, 'f', 6, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// parsePercentiles is setConfigLatencyTrackingInfoPercentilesOutputOption
// on CONFIG SET's split of the value at single spaces.
func ParsePercentiles(v string) ([]float64, string) {
	if v == "" {
		return []float64{}, ""
	}
	words := strings.Split(v, " ")
	out := make([]float64, 0, len(words))
	for _, w := range words {
		f, ok := num.ParseFloat([]byte(w))
		if !ok {
			return nil, "Invalid latency-tracking-info-percentiles parameters"
		}
		if f > 100 || f < 0 {
			return nil, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		out = append(out, f)
	}
	return out, ""
}

var obsConfigParams = []ConfigParam{
	numParam("slowlog-log-slower-than", "", numSpec{lo: uint64(minusOne), hi: longMax},
		func(c *Config) int64 { return c.Obs.SlowlogSlowerThan.Load() }, func(c *Config, n int64) { c.Obs.SlowlogSlowerThan.Store(n) }),
	numParam("slowlog-max-len", "", numSpec{unsigned: true, lo: 0, hi: longMax},
		func(c *Config) int64 { return c.Obs.SlowlogMaxLen.Load() }, func(c *Config, n int64) { c.Obs.SlowlogMaxLen.Store(n) }),
	numParam("latency-monitor-threshold", "", numSpec{lo: 0, hi: longMax},
		func(c *Config) int64 { return c.Obs.LatencyThreshold.Load() }, func(c *Config, n int64) { c.Obs.LatencyThreshold.Store(n) }),
	boolParam("latency-tracking", func(c *Config) bool { return c.Obs.LatencyTracking.Load() },
		func(c *Config, b bool) { c.Obs.LatencyTracking.Store(b) }),
	{
		Name: "latency-tracking-info-percentiles", multi: true,
		Get: func(c *Config) string {
			ps := c.Obs.Percentiles()
			s := make([]string, len(ps))
			for i, p := range ps {
				s[i] = FormatPercentile(p)
			}
			return strings.Join(s, " ")
		},
		Parse: func(c *Config, v string) (func(), string) {
			ps, err := ParsePercentiles(v)
			if err != "" {
				return nil, err
			}
			return func() { c.Obs.pcts.Store(&ps) }, ""
		},
		rewrite: func(c *Config) []string {
			ps := c.Obs.Percentiles()
			if len(ps) == 0 {
				return []string{`latency-tracking-info-percentiles ""`}
			}
			line := "latency-tracking-info-percentiles"
			for _, p := range ps {
				line += " " + FormatPercentile(p)
			}
			return []string{line}
		},
	},
}

func init() { ConfigParams = append(ConfigParams, obsConfigParams...) }

// minusOne is slowlog-log-slower-than's lower bound, stored in numSpec.lo
// as its two's complement.
var minusOne int64 = -1
