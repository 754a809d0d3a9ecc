package commands

import (
	"testing"

	"github.com/limitkv/limitkv/internal/resp"
)

// BenchmarkExecHotPath is Exec's cost for the commands a rate limiter's
// traffic is made of, to measure what the per-command statistics add.
func BenchmarkExecHotPath(b *testing.B) {
	for _, args := range [][]string{{"PING"}, {"SET", "k", "v"}, {"GET", "k"}} {
		b.Run(args[0], func(b *testing.B) {
			tt := newTester(b)
			tt.Do("SET", "k", "v")
			bargs := make([][]byte, len(args))
			for i, a := range args {
				bargs[i] = []byte(a)
			}
			var w resp.Writer
			tt.E.Lock()
			defer tt.E.Unlock()
			b.ReportAllocs()
			for b.Loop() {
				w.Reset(1 << 16)
				tt.E.Exec(tt.C, bargs, &w)
			}
		})
	}
}
