package rdb

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/internal/stream"
	"github.com/redis/go-redis/v9"
)

// TestStreamOracleRandom runs long random sequences of XADD (explicit IDs,
// "ms-*", sometimes with trimming), XDEL, XTRIM MAXLEN/MINID (exact and
// "~", with and without LIMIT) and XSETID on redis-server and on package
// stream, comparing the replies at every step, and Len, first/last IDs,
// entries-added, max-deleted ID and the DUMP bytes every few steps (and
// everything XINFO STREAM FULL shows, radix-tree-nodes included, every
// 50 steps).
func TestStreamOracleRandom(t *testing.T) {
	steps := 3000
	if testing.Short() {
		steps = 600
	}
	configs := []streamScenario{
		{name: "entries 4", maxEntries: 4},
		{name: "entries 7 bytes 300", maxEntries: 7, maxBytes: 300},
		{name: "defaults"},
	}
	for ci, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			c, lim := startStreamRedis(t, cfg)
			m := newStreamModel(lim)
			rng := rand.New(rand.NewSource(int64(ci) + 1))
			var ids []string // IDs added, to pick XDEL and MINID targets
			ms := uint64(1)
			fieldSets := [][]string{{"a"}, {"a", "b"}, {"b", "a"}, {"x"}, {"a", "b", "c"}}
			value := func() string {
				switch rng.Intn(5) {
				case 0:
					return strconv.Itoa(rng.Intn(100000) - 50000)
				case 1:
					return string(bytes.Repeat([]byte{'v'}, rng.Intn(90)))
				default:
					return "v" + strconv.Itoa(rng.Intn(1000))
				}
			}
			compared, maxLen, maxNodes := 0, uint64(0), 0
			for step := 0; step < steps; step++ {
				var a []string
				switch r := rng.Intn(100); {
				case r < 60:
					ms += uint64(rng.Intn(3))
					a = []string{"XADD", "s"}
					if rng.Intn(10) == 0 {
						a = append(a, "MAXLEN", "~", strconv.Itoa(max(0, int(m.s.Len())-rng.Intn(8))))
					}
					if rng.Intn(4) == 0 {
						a = append(a, fmt.Sprintf("%d-*", ms))
					} else {
						a = append(a, fmt.Sprintf("%d-%d", ms, rng.Intn(4)))
					}
					for _, f := range fieldSets[rng.Intn(len(fieldSets))] {
						a = append(a, f, value())
					}
				case r < 75 && len(ids) > 0:
					a = []string{"XDEL", "s"}
					for k := rng.Intn(4) + 1; k > 0; k-- {
						a = append(a, ids[rng.Intn(len(ids))])
					}
				case r < 84:
					a = []string{"XTRIM", "s", "MAXLEN"}
					if rng.Intn(2) == 0 {
						a = append(a, "~")
					}
					a = append(a, strconv.Itoa(max(0, int(m.s.Len())-rng.Intn(5))))
					if a[3] == "~" && rng.Intn(2) == 0 {
						a = append(a, "LIMIT", strconv.Itoa(rng.Intn(30)))
					}
				case r < 90 && len(ids) > 0:
					a = []string{"XTRIM", "s", "MINID"}
					if rng.Intn(2) == 0 {
						a = append(a, "~")
					} else if rng.Intn(2) == 0 {
						a = append(a, "=")
					}
					first := m.s.FirstID()
					a = append(a, fmt.Sprintf("%d-%d", first.Ms+uint64(rng.Intn(3)), rng.Intn(3)))
					if a[3] == "~" && rng.Intn(2) == 0 {
						a = append(a, "LIMIT", strconv.Itoa(rng.Intn(30)))
					}
				default:
					// XSETID past the top: moves last-generated-id and may
					// set the other counters.
					ms += uint64(rng.Intn(2))
					a = []string{"XSETID", "s", fmt.Sprintf("%d-%d", ms, 10+rng.Intn(5))}
					if rng.Intn(2) == 0 {
						a = append(a, "ENTRIESADDED", strconv.FormatUint(m.s.EntriesAdded()+uint64(rng.Intn(3)), 10))
					}
				}
				rv, rerr := rdo(t, c, a...)
				if rerr != nil && rerr.Error() == "ERR no such key" {
					continue // XSETID before the first XADD: no stream yet
				}
				ours := m.apply(t, a)
				want, _ := simpleReply(rv, rerr)
				if want != ours {
					t.Fatalf("step %d %q: redis %q, ours %q", step, a, want, ours)
				}
				if a[0] == "XADD" && rerr == nil {
					ids = append(ids, want)
				}
				maxLen, maxNodes = max(maxLen, m.s.Len()), max(maxNodes, m.s.Nodes())
				if step%5 == 4 {
					compareStreamQuick(t, c, m.s, step, a)
					compared++
				}
				if step%50 == 49 {
					checkAgainstRedis(t, c, "s", m.s, fmt.Sprintf("step %d", step))
				}
			}
			t.Logf("%d steps, %d DUMP comparisons, up to %d entries in %d nodes", steps, compared, maxLen, maxNodes)
		})
	}
}

func compareStreamQuick(t *testing.T, c *redis.Client, s *stream.Stream, step int, last []string) {
	t.Helper()
	theirs, err := rdo(t, c, "DUMP", "s")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := EncodeDump(&Value{Type: TypeStream, Stream: s}, DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, []byte(theirs.(string))) {
		v, derr := DecodeDump([]byte(theirs.(string)), nil)
		if derr == nil {
			rs := v.Stream
			t.Fatalf("step %d (after %q): DUMP differs: redis len %d first %s last %s added %d maxdel %s nodes %d; ours len %d first %s last %s added %d maxdel %s nodes %d",
				step, last, rs.Len(), rs.FirstID(), rs.LastID(), rs.EntriesAdded(), rs.MaxDeletedID(), rs.Nodes(),
				s.Len(), s.FirstID(), s.LastID(), s.EntriesAdded(), s.MaxDeletedID(), s.Nodes())
		}
		t.Fatalf("step %d (after %q): DUMP differs (%v)", step, last, derr)
	}
}
