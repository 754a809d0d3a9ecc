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

// TestStreamOracleRandomGroups interleaves XADD, XDEL and XTRIM with the
// group commands (XREADGROUP new and history, NOACK, XACK, XCLAIM with
// FORCE/JUSTID/RETRYCOUNT/LASTID, XAUTOCLAIM, XGROUP SETID/DELCONSUMER,
// XPENDING) and compares every reply with redis-server, and the whole
// state (XINFO STREAM FULL, DUMP bytes, both decodings) every 25 steps.
// Idle times are kept out: min-idle is 0 and no IDLE/TIME is given.
func TestStreamOracleRandomGroups(t *testing.T) {
	steps := 2000
	if testing.Short() {
		steps = 400
	}
	c, lim := startStreamRedis(t, streamScenario{maxEntries: 5})
	m := newStreamModel(lim)
	rng := rand.New(rand.NewSource(99))
	ms := uint64(1)
	groups := []string{"g1", "g2"}
	consumers := []string{"ann", "bo", "cy"}
	randID := func() string { return fmt.Sprintf("%d-%d", 1+rng.Intn(int(ms)), rng.Intn(3)) }
	for _, g := range groups {
		a := []string{"XGROUP", "CREATE", "s", g, "0", "MKSTREAM"}
		rdo(t, c, a...)
		m.s.CreateGroup(g, stream.ID{}, stream.ScgInvalidEntriesRead)
	}
	for step := 0; step < steps; step++ {
		g, cn := groups[rng.Intn(2)], consumers[rng.Intn(3)]
		var a []string
		switch r := rng.Intn(100); {
		case r < 35:
			ms += uint64(rng.Intn(2))
			a = []string{"XADD", "s", fmt.Sprintf("%d-*", ms), "f", strconv.Itoa(step)}
		case r < 42:
			a = []string{"XDEL", "s", randID(), randID()}
		case r < 45:
			a = []string{"XTRIM", "s", "MAXLEN", strconv.Itoa(max(0, int(m.s.Len())-rng.Intn(6)))}
		case r < 60:
			a = []string{"XREADGROUP", "GROUP", g, cn, "COUNT", strconv.Itoa(1 + rng.Intn(4))}
			if rng.Intn(5) == 0 {
				a = append(a, "NOACK")
			}
			a = append(a, "STREAMS", "s", ">")
		case r < 65:
			a = []string{"XREADGROUP", "GROUP", g, cn, "COUNT", strconv.Itoa(rng.Intn(4)), "STREAMS", "s", "0"}
		case r < 72:
			a = []string{"XACK", "s", g, randID(), randID(), randID()}
		case r < 80:
			a = []string{"XCLAIM", "s", g, cn, "0", randID(), randID()}
			for _, o := range [][]string{{"FORCE"}, {"JUSTID"}, {"RETRYCOUNT", strconv.Itoa(rng.Intn(9))}, {"LASTID", randID()}} {
				if rng.Intn(4) == 0 {
					a = append(a, o...)
				}
			}
		case r < 86:
			a = []string{"XAUTOCLAIM", "s", g, cn, "0", randID(), "COUNT", strconv.Itoa(1 + rng.Intn(5))}
			if rng.Intn(3) == 0 {
				a = append(a, "JUSTID")
			}
		case r < 88:
			a = []string{"XGROUP", "SETID", "s", g, randID()}
		case r < 89:
			a = []string{"XGROUP", "DELCONSUMER", "s", g, cn}
		case r < 94:
			a = []string{"XPENDING", "s", g}
		default:
			a = []string{"XPENDING", "s", g, "-", "+", strconv.Itoa(rng.Intn(8))}
			if rng.Intn(2) == 0 {
				a = append(a, cn)
			}
		}
		rv, rerr := rdo(t, c, a...)
		ours := m.apply(t, a)
		want, ok := groupReply(a, rv, rerr)
		if !ok {
			want, _ = simpleReply(rv, rerr)
		}
		if want != ours {
			t.Fatalf("step %d %q: redis %q, ours %q", step, a, want, ours)
		}
		if step%25 == 24 {
			checkAgainstRedis(t, c, "s", m.s, fmt.Sprintf("step %d", step))
		}
	}
	pel := 0
	for _, g := range m.s.Groups() {
		pel += g.PendingCount()
	}
	t.Logf("%d steps; at the end %d entries, %d nodes, %d pending", steps, m.s.Len(), m.s.Nodes(), pel)
}
