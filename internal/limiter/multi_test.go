package limiter

import (
	"errors"
	"testing"
)

func TestDecideAll(t *testing.T) {
	const now = int64(1_764_000_000_000)
	tb := TokenBucket{Capacity: 5, Refill: 1, PeriodMs: 1000}
	fw := FixedWindow{WindowMs: 60_000, Limit: 3}
	cell := CellParams{MaxBurst: 4, Count: 1, Period: 1}
	conc := Concurrency{Limit: 1}
	full := Value{Kind: String, Str: "3", TTL: 30_000}
	held := Value{Kind: ZSet, ZSet: []ZMember{{"other", float64(now + 500)}}, TTL: 500}
	cases := []struct {
		name    string
		limits  []Limit
		allowed bool
		refused int
	}{
		{"all pass", []Limit{{Value{}, tb.Check(2)}, {Value{}, fw.Check(1)}, {Value{}, cell.Check(1)}}, true, -1},
		{"the window is full", []Limit{{Value{}, tb.Check(2)}, {full, fw.Check(1)}, {Value{}, cell.Check(1)}}, false, 1},
		{"first refusal is named", []Limit{{Value{}, tb.Check(9)}, {full, fw.Check(1)}}, false, 0},
		{"a lease is taken", []Limit{{held, Concurrency{Limit: 2}.Check("me", 100)}, {Value{}, SlidingWindow{1000, 1}.Check(1)}}, true, -1},
		{"no slot", []Limit{{Value{}, tb.Check(1)}, {held, conc.Check("me", 100)}}, false, 1},
	}
	for _, c := range cases {
		m, writes, err := DecideAll(c.limits, now)
		if err != nil || m.Allowed != c.allowed || m.Refused != c.refused || len(m.Results) != len(c.limits) {
			t.Errorf("%s: %+v %v", c.name, m, err)
			continue
		}
		if !c.allowed {
			if writes != nil {
				t.Errorf("%s: a refused step charges %v", c.name, writes)
			}
			continue
		}
		for i, w := range writes {
			if !w.Changed || w.Value.Kind == Absent {
				t.Errorf("%s: limit %d not charged: %+v", c.name, i, w)
			}
		}
		if c.name == "all pass" && (writes[0].Value.Hash.Get("tokens") != "3" || writes[1].Value.Str != "1") {
			t.Errorf("charges: %v", writes)
		}
	}
	_, _, err := DecideAll([]Limit{{Value{}, tb.Check(1)}, {Value{Kind: Hash}, fw.Check(1)}}, now)
	if !errors.Is(err, ErrWrongType) {
		t.Errorf("wrong type: %v", err)
	}
}
