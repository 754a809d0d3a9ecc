package commands

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Unit tests for what the differential tests cannot compare: the random
// commands' results against the state they leave.

// parseBulks reads a RESP2 array of bulk strings.
func parseBulks(t *testing.T, r string) []string {
	t.Helper()
	if !strings.HasPrefix(r, "*") {
		t.Fatalf("not an array: %q", r)
	}
	lines := strings.Split(strings.TrimSuffix(r, "\r\n"), "\r\n")
	n, _ := strconv.Atoi(lines[0][1:])
	var out []string
	for i := 1; i+1 < len(lines); i += 2 {
		out = append(out, lines[i+1])
	}
	if len(out) != n {
		t.Fatalf("array of %d, parsed %d: %q", n, len(out), r)
	}
	return out
}

func fill(tt *tester, key string, members []string) {
	tt.Do(append([]string{"SADD", key}, members...)...)
}

func TestSetSPopKeepsTheRest(t *testing.T) {
	ints := make([]string, 600)
	for i := range ints {
		ints[i] = strconv.Itoa(i)
	}
	mixed := append(slices.Clone(ints[:50]), "x", "y", "z")
	for _, tc := range []struct {
		name    string
		members []string
		count   int
		enc     string // encoding afterwards
	}{
		{"intset, one by one", ints[:100], 10, "intset"},
		{"intset, rebuilt", ints[:100], 95, "intset"},
		{"hash table, one by one", ints, 100, "hashtable"},
		{"hash table of integers rebuilt as intset", ints, 590, "intset"},
		{"mixed, one by one", mixed, 3, "hashtable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTester(t)
			fill(tt, "k", tc.members)
			tt.Do("EXPIRE", "k", "100")
			popped := parseBulks(t, tt.Do("SPOP", "k", strconv.Itoa(tc.count)))
			rest := parseBulks(t, tt.Do("SMEMBERS", "k"))
			if len(popped) != tc.count || len(rest) != len(tc.members)-tc.count {
				t.Fatalf("popped %d, left %d", len(popped), len(rest))
			}
			got := append(slices.Clone(popped), rest...)
			slices.Sort(got)
			want := slices.Clone(tc.members)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("popped and remaining members are not the set")
			}
			for _, m := range popped {
				tt.Expect(integer(0), "SISMEMBER", "k", m)
			}
			if tc.enc != "" && !strings.Contains(tt.Do("OBJECT", "ENCODING", "k"), tc.enc) {
				if !slices.ContainsFunc(rest, func(m string) bool { _, err := strconv.Atoi(m); return err != nil }) {
					t.Fatalf("encoding %q, want %s", tt.Do("OBJECT", "ENCODING", "k"), tc.enc)
				}
			}
			if ttl := tt.Do("TTL", "k"); ttl == integer(-1) || ttl == integer(-2) {
				t.Fatalf("TTL lost: %q", ttl)
			}
		})
	}
}

func TestSetSRandMemberDistinct(t *testing.T) {
	tt := newTester(t)
	members := make([]string, 300)
	for i := range members {
		members[i] = "m" + strconv.Itoa(i)
	}
	fill(tt, "k", members)
	fill(tt, "i", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"})
	for _, key := range []string{"k", "i"} {
		for _, count := range []int{1, 2, 5, 9, 50, 150, 299} {
			got := parseBulks(t, tt.Do("SRANDMEMBER", key, strconv.Itoa(count)))
			want := count
			if key == "i" {
				want = min(count, 10)
			}
			if len(got) != want {
				t.Fatalf("SRANDMEMBER %s %d: %d members", key, count, len(got))
			}
			seen := map[string]bool{}
			for _, m := range got {
				if seen[m] {
					t.Fatalf("SRANDMEMBER %s %d: %q twice", key, count, m)
				}
				seen[m] = true
				tt.Expect(integer(1), "SISMEMBER", key, m)
			}
		}
	}
	// Negative counts repeat members; over many draws every member shows.
	seen := map[string]bool{}
	for _, m := range parseBulks(t, tt.Do("SRANDMEMBER", "i", "-2000")) {
		seen[m] = true
	}
	if len(seen) != 10 {
		t.Fatalf("2000 picks reached %d of 10 members", len(seen))
	}
	tt.Expect(integer(300), "SCARD", "k")
}

func TestSetKeyspaceHits(t *testing.T) {
	tt := newTester(t)
	hits := func() (int64, int64) {
		return tt.E.Stats.KeyspaceHits, tt.E.Stats.KeyspaceMisses
	}
	tt.Do("SADD", "a", "1", "2")
	tt.Do("SADD", "b", "2")
	for _, tc := range []struct {
		args         []string
		hits, misses int64
	}{
		{[]string{"SADD", "a", "3"}, 0, 0},
		{[]string{"SCARD", "a"}, 1, 0},
		{[]string{"SISMEMBER", "nokey", "1"}, 0, 1},
		{[]string{"SINTER", "a", "b", "nokey"}, 2, 1},
		{[]string{"SINTERSTORE", "d", "a", "b"}, 2, 0},
		{[]string{"SMOVE", "a", "b", "1"}, 0, 0},
		{[]string{"SPOP", "b", "100"}, 1, 0}, // SPOP of the whole set reads it again (as SUNION)
		{[]string{"SRANDMEMBER", "a"}, 1, 0},
		{[]string{"SSCAN", "nokey", "0"}, 0, 1},
	} {
		h0, m0 := hits()
		tt.Do(tc.args...)
		h1, m1 := hits()
		if h1-h0 != tc.hits || m1-m0 != tc.misses {
			t.Errorf("%v: %d hits, %d misses; want %d, %d", tc.args, h1-h0, m1-m0, tc.hits, tc.misses)
		}
	}
}
