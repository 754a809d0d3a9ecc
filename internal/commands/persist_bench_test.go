package commands

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/zset"
)

// TestBgsaveLockHold measures how long BGSAVE holds the executor lock (its
// start, and the walk's slices in all and at most) with no clients, for
// a million rate-limit keys (5-member sorted sets with a TTL, as the
// benchmark's seed makes them). It takes a few seconds, so it runs only
// with LIMITKV_BGSAVE_KEYS set (e.g. 1000000).
func TestBgsaveLockHold(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LIMITKV_BGSAVE_KEYS"))
	if n <= 0 {
		t.Skip("set LIMITKV_BGSAVE_KEYS=1000000 to measure")
	}
	tt := newTester(t)
	tt.E.Cfg.SetDir(t.TempDir(), "")
	db := tt.E.DB(0)
	now := tt.Clock.Now().UnixMilli()
	lim := tt.E.Cfg.ZsetLimits()
	for i := range n {
		z := zset.New()
		for j := range 5 {
			ms := now - int64(j*1000)
			z.Add(strconv.FormatInt(ms, 10)+"-"+strconv.Itoa(j), float64(ms), lim)
		}
		e := db.Add([]byte("{t}:ratelimit:api:user"+strconv.Itoa(i)), z)
		db.SetExpiry(e, now+60000)
	}
	start := time.Now()
	tt.Expect("+Background saving started\r\n", "BGSAVE")
	reply := time.Since(start)
	durability.WaitBgsave(tt.E)
	total := time.Since(start)
	st, _ := os.Stat(tt.E.Cfg.RDBPath())
	hold, slices, held, longest := durability.Of(tt.E).LastBgsaveCost()
	t.Logf("%d keys: start held the lock %v (BGSAVE answered after %v); the walk %d slices holding it %v in all, %v at most; file written after %v, %d bytes",
		n, hold, reply, slices, held, longest, total, st.Size())
}
