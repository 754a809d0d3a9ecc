package commands

import (
	"crypto/sha1"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/limiter"
)

// The recognised library scripts run natively (limitcmd's twins) must
// answer, store and propagate exactly as the interpreter does with the
// same clock. Two servers on one manual clock: one runs the library's
// script (recognised, native), the other the same script behind an extra
// statement (not recognised, interpreted).
func TestRecognisedScriptsMatchInterpreter(t *testing.T) {
	scripts := []struct {
		name, body string
		argv       func(r *rand.Rand) []string
	}{
		{"redis_rate allowN", limiter.RedisRateAllowNScript, redisRateArgv},
		{"redis_rate allowAtMost", limiter.RedisRateAllowAtMostScript, redisRateArgv},
		{"rate-limiter-flexible consume", limiter.RLFConsumeScript, func(r *rand.Rand) []string {
			return []string{[]string{"1", "1", "2", "5", "0", "-1", "+3", "x"}[r.IntN(8)], []string{"1", "2", "60", "1", "2", "60", "0", "1.5"}[r.IntN(8)]}
		}},
	}
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			nat, itp := newTester(t), newTester(t)
			capN, capI := captureStream(nat), captureStream(itp)
			rnd := rand.New(rand.NewPCG(1, 2))
			keys := []string{"k1", "k2", "k3"}
			natives, steps := 0, 600
			for step := range steps {
				d := time.Duration(rnd.Int64N(int64(3 * time.Second)))
				if rnd.IntN(10) == 0 {
					d = time.Duration(rnd.Int64N(int64(2 * time.Minute)))
				}
				nat.Clock.Add(d)
				itp.Clock.Add(d)
				key := keys[rnd.IntN(len(keys))]
				switch rnd.IntN(60) {
				case 0: // what the library would not leave: the interpreter decides
					v := []string{"abc", "12", "0x10", " 7"}[rnd.IntN(4)]
					for _, tt := range []*tester{nat, itp} {
						tt.Do("SET", key, v)
					}
				case 1:
					for _, tt := range []*tester{nat, itp} {
						tt.Do("PERSIST", key)
					}
				case 2:
					for _, tt := range []*tester{nat, itp} {
						tt.Do("DEL", key)
						tt.Do("HSET", key, "f", "v")
					}
				case 3, 4, 5, 6:
					for _, tt := range []*tester{nat, itp} {
						tt.Do("DEL", key)
					}
				}
				capN.take()
				capI.take()
				args := append([]string{"EVAL", sc.body, "1", key}, sc.argv(rnd)...)
				before := scriptCalls(nat)
				rn := nat.Do(args...)
				// On the script's first line, so errors name the same lines.
				args[1] = "local unrecognised = 0 " + sc.body
				ri := strings.ReplaceAll(itp.Do(args...), sha1Hex(args[1]), sha1Hex(sc.body))
				if scriptCalls(nat) == before {
					natives++
				}
				if rn != ri {
					t.Fatalf("step %d %q: native %q, interpreter %q", step, args[2:], rn, ri)
				}
				for _, read := range [][]string{{"TYPE", key}, {"GET", key}, {"PTTL", key}} {
					if a, b := nat.Do(read...), itp.Do(read...); a != b {
						t.Fatalf("step %d %q: %v native %q, interpreter %q", step, args[2:], read, a, b)
					}
				}
				if a, b := strings.Join(capN.take(), "|"), strings.Join(capI.take(), "|"); a != b {
					t.Fatalf("step %d %q: stream native %q, interpreter %q", step, args[2:], a, b)
				}
			}
			t.Logf("%d steps matched, %d of them native", steps, natives)
			if natives < steps/3 {
				t.Fatalf("only %d of %d steps ran natively: the script is not recognised", natives, steps)
			}
		})
	}
}

func redisRateArgv(r *rand.Rand) []string {
	burst := []string{"1", "5", "10", "0", "2.5"}[r.IntN(5)]
	rate := []string{"1", "5", "10", "3", "0.5"}[r.IntN(5)]
	period := []string{"1", "60", "3600", "0.25"}[r.IntN(4)]
	cost := []string{"1", "1", "2", "0", "7", "-1", "x"}[r.IntN(7)]
	if r.IntN(30) == 0 {
		rate = []string{"0", "0x10", " 5"}[r.IntN(3)]
	}
	return []string{burst, rate, period, cost}
}

// scriptCalls counts the commands scripts ran through redis.call: the
// native twins run none.
func scriptCalls(tt *tester) int {
	n := 0
	for _, line := range strings.Split(tt.Do("INFO", "commandstats"), "\n") {
		for _, c := range []string{"cmdstat_get:", "cmdstat_set:", "cmdstat_time:", "cmdstat_incrby:", "cmdstat_pttl:"} {
			if strings.HasPrefix(line, c) {
				f := strings.TrimPrefix(strings.SplitN(line, ",", 2)[0], c+"calls=")
				n += atoiT(nil, f)
			}
		}
	}
	return n
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}
