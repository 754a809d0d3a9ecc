package zset

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// limiterMember is a typical rate-limiter member: "<ms timestamp>:<8 hex>",
// 22 bytes.
func limiterMember(ts int64, r *rand.Rand) string {
	return strconv.FormatInt(ts, 10) + ":" + fmt.Sprintf("%08x", r.Uint32())
}

// filled returns a set of n limiter members with scores base, base+1, ...
// and the members.
func filled(n int, r *rand.Rand) (*Set, []string) {
	s := New()
	ms := make([]string, n)
	for i := range ms {
		ms[i] = limiterMember(1700000000000+int64(i), r)
		s.Add(ms[i], float64(1700000000000+int64(i)), DefaultLimits())
	}
	return s, ms
}

var benchSizes = []int{5, 127, 1000, 100000} // 127: a full listpack that can take one more

func BenchmarkAdd(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			s, _ := filled(n, r)
			pool := make([]string, 1024)
			scores := make([]float64, len(pool))
			for i := range pool {
				pool[i] = limiterMember(1700000000000+int64(r.Intn(n)), r)
				scores[i] = float64(1700000000000 + r.Int63n(int64(n)))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Add a member at a random place, then remove it: the set
				// keeps its size and encoding.
				k := i % len(pool)
				s.Add(pool[k], scores[k], DefaultLimits())
				s.Remove(pool[k])
			}
		})
	}
}

// BenchmarkRemoveRangeByScore is the sliding-window limiter step: ZADD now,
// ZREMRANGEBYSCORE -inf (now-n], which removes one member.
func BenchmarkRemoveRangeByScore(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			s, _ := filled(n, r)
			pool := make([]string, n+1024)
			for i := range pool {
				pool[i] = limiterMember(int64(i), r)
			}
			next := 1700000000000 + int64(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Add(pool[i%len(pool)], float64(next), DefaultLimits())
				rng := ScoreRange{Min: AllScores.Min, Max: float64(next - int64(n))}
				if s.RemoveRangeByScore(rng) != 1 {
					b.Fatal("window broken")
				}
				next++
			}
		})
	}
}

// BenchmarkRangeByScore reads 5 members from the middle of the set.
func BenchmarkRangeByScore(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			s, _ := filled(n, r)
			mid := float64(1700000000000 + int64(n/2))
			rng := ScoreRange{Min: mid - 2, Max: mid + 2}
			total := 0
			visit := func(m []byte, _ float64) bool { total += len(m); return true }
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.RangeByScore(rng, i&1 == 0, 0, -1, visit)
			}
		})
	}
}

// BenchmarkRangeByRank reads the highest-scored member, as ZRANGE -1 -1
// (forward, from the end) and ZREVRANGE 0 0 (reverse) do.
func BenchmarkRangeByRank(b *testing.B) {
	for _, n := range benchSizes {
		for _, rev := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/rev=%v", n, rev), func(b *testing.B) {
				r := rand.New(rand.NewSource(1))
				s, _ := filled(n, r)
				total := 0
				visit := func(m []byte, _ float64) bool { total += len(m); return true }
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if rev {
						s.RangeByRank(0, 0, true, visit)
					} else {
						s.RangeByRank(n-1, n-1, false, visit)
					}
				}
			})
		}
	}
}

// BenchmarkRank ranks a random member.
func BenchmarkRank(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			s, ms := filled(n, r)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Rank(ms[r.Intn(len(ms))], false)
			}
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemoryPerMember measures heap bytes per member (ZSET_MEASURE=1):
// 100k small sets of 5 limiter members, and large sets of 1M members.
func TestMemoryPerMember(t *testing.T) {
	if os.Getenv("ZSET_MEASURE") == "" {
		t.Skip("set ZSET_MEASURE=1 to measure bytes per member")
	}
	r := rand.New(rand.NewSource(1))
	const sets, per = 100000, 5
	// The members as the caller would hand them over, made first so that
	// only what the sets hold is counted.
	ms := make([]string, sets*per)
	for i := range ms {
		ms[i] = limiterMember(1700000000000+int64(i), r)
	}
	before := heapInUse()
	all := make([]*Set, sets)
	usage := 0
	for i := range all {
		s := New()
		for j := 0; j < per; j++ {
			s.Add(ms[i*per+j], float64(1700000000000+int64(i*per+j)), DefaultLimits())
		}
		all[i] = s
		usage += s.MemoryUsage()
	}
	after := heapInUse()
	t.Logf("small: %d sets x %d members of %d bytes: %.1f bytes/member (heap), MemoryUsage says %.1f",
		sets, per, len(ms[0]), float64(after-before)/float64(sets*per), float64(usage)/float64(sets*per))
	runtime.KeepAlive(all)
	all = nil
	ms = nil

	for _, order := range []string{"ascending scores", "random scores"} {
		const n = 1000000
		before := heapInUse()
		s := New()
		for i := 0; i < n; i++ {
			sc := int64(i)
			if order != "ascending scores" {
				sc = r.Int63n(1 << 40)
			}
			s.Add(limiterMember(1700000000000+sc, r), float64(1700000000000+sc), DefaultLimits())
		}
		after := heapInUse()
		t.Logf("large, %s: %d members of 22 bytes: %.1f bytes/member (heap, member strings included), MemoryUsage says %.1f",
			order, s.Len(), float64(after-before)/float64(s.Len()), float64(s.MemoryUsage())/float64(s.Len()))
		runtime.KeepAlive(s)
	}
}
