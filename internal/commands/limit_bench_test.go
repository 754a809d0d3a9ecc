package commands

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/internal/resp"
)

// BenchmarkLimiters is the executor's cost of each limiter as bench/'s
// workload 12 sends it (1,000 per hour, a fixed now, random keys of a
// million), without the network: where a row's server CPU goes.
func BenchmarkLimiters(b *testing.B) {
	for _, args := range [][]string{
		{"RL.CHECK", "", "1700000000000", "3600000", "1000", "*"},
		{"RL.GCRA", "", "1700000000000", "999", "1000", "3600"},
		{"RL.TOKEN", "", "1700000000000", "1000", "1000", "3600000"},
		{"RL.FIXED", "", "3600000", "1000"},
		{"RL.SLIDING", "", "1700000000000", "3600000", "1000"},
		{"RL.RESERVE", "", "1700000000000", "3600000", "1000", "1"},
		{"CL.THROTTLE", "", "999", "1000", "3600", "1"},
	} {
		b.Run(args[0], func(b *testing.B) {
			tt := newTester(b)
			bargs := make([][]byte, len(args))
			for i, a := range args {
				bargs[i] = []byte(a)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			var w resp.Writer
			tt.E.Lock()
			defer tt.E.Unlock()
			b.ReportAllocs()
			for b.Loop() {
				bargs[1] = strconv.AppendInt(bargs[1][:0], int64(rng.IntN(1_000_000)), 10)
				w.Reset(1 << 16)
				tt.E.Exec(tt.C, bargs, &w)
			}
		})
	}
}
