package limitcmd

import (
	"testing"

	"github.com/limitkv/limitkv/internal/limiter"
)

// RL.ALL's specs: each algorithm's words, COST only where a cost exists,
// and the spec's decision on an empty key as its own command's.
func TestParseSpec(t *testing.T) {
	const now = 1_700_000_000_000
	tests := []struct {
		spec    string
		ok      bool
		count   int64 // units counted on an empty key
		limit   int64
		allowed bool
	}{
		{"TOKEN 5 1 1000", true, 1, 5, true},
		{"token 5 1 1000 cost 3", true, 3, 5, true},
		{"TOKEN 5 1 1000 COST 6", true, 0, 5, false},
		{"FIXED 1000 2 COST 2", true, 2, 2, true},
		{"SLIDING 1000 4", true, 1, 4, true},
		{"GCRA 2 10 60 COST 3", true, 3, 3, true},
		{"GCRA 2 10 60", true, 1, 3, true},
		{"LEASE 2 500 job", true, 1, 2, true},
		{"BUDGET 1000 10 4", true, 4, 10, true},
		{"", false, 0, 0, false},
		{"TOKEN 5 1", false, 0, 0, false},
		{"FIXED 1000 2 COST", false, 0, 0, false},
		{"FIXED 1000 2 PRICE 3", false, 0, 0, false},
		{"LEASE 2 500", false, 0, 0, false},
		{"LEASE 2 500 job COST 2", false, 0, 0, false},
		{"BUDGET 1000 10", false, 0, 0, false},
		{"GCRA 2 10", false, 0, 0, false},
		{"LEAKY 1 2", false, 0, 0, false},
	}
	for _, tc := range tests {
		check, _, msg := parseSpec(tc.spec)
		if (msg == "") != tc.ok {
			t.Errorf("%q: error %q, want ok=%v", tc.spec, msg, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		r, _, _, err := check(limiter.Value{}, now)
		if err != nil || r.Allowed != tc.allowed || r.Count != tc.count || r.Limit != tc.limit {
			t.Errorf("%q: %+v %v, want allowed=%v count=%d limit=%d", tc.spec, r, err, tc.allowed, tc.count, tc.limit)
		}
	}
}

func TestLimitErr(t *testing.T) {
	tests := []struct {
		i         int
		msg, want string
	}{
		{0, "ERR window must be positive", "ERR limit 0: window must be positive"},
		{2, "WRONGTYPE Operation against a key", "WRONGTYPE limit 2: Operation against a key"},
		{1, "Cell error: Zero rates are not supported", "ERR limit 1: Cell error: Zero rates are not supported"},
	}
	for _, tc := range tests {
		if got := limitErr(tc.i, tc.msg); got != tc.want {
			t.Errorf("limitErr(%d, %q) = %q, want %q", tc.i, tc.msg, got, tc.want)
		}
	}
}
