package set

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func all(s *Set) []string {
	var out []string
	s.Each(func(m []byte) bool { out = append(out, string(m)); return true })
	return out
}

func sorted(ms []string) []string {
	out := slices.Clone(ms)
	slices.Sort(out)
	return out
}

func addAll(s *Set, lim int64, ms ...string) int {
	n := 0
	for _, m := range ms {
		if s.Add([]byte(m), lim) {
			n++
		}
	}
	return n
}

func TestEncodings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first string // NewFor's argument; "" means New
		add   []string
		lim   int64
		enc   string
		order []string // expected Each order for an intset
	}{
		{"integers", "", []string{"3", "-1", "2", "3"}, 512, "intset", []string{"-1", "2", "3"}},
		{"extremes", "", []string{"9223372036854775807", "-9223372036854775808", "0"}, 512, "intset", []string{"-9223372036854775808", "0", "9223372036854775807"}},
		{"leading zero is a string", "", []string{"1", "01"}, 512, "hashtable", nil},
		{"minus zero is a string", "", []string{"-0"}, 512, "hashtable", nil},
		{"plus is a string", "", []string{"+1"}, 512, "hashtable", nil},
		{"space is a string", "", []string{" 1"}, 512, "hashtable", nil},
		{"overflow is a string", "", []string{"9223372036854775808"}, 512, "hashtable", nil},
		{"empty is a string", "", []string{""}, 512, "hashtable", nil},
		{"at the limit", "", []string{"1", "2", "3"}, 3, "intset", []string{"1", "2", "3"}},
		{"past the limit", "", []string{"1", "2", "3", "4"}, 3, "hashtable", nil},
		{"duplicate at the limit stays", "", []string{"1", "2", "3", "3"}, 3, "intset", []string{"1", "2", "3"}},
		{"limit zero", "", []string{"1"}, 0, "hashtable", nil},
		{"NewFor an integer", "7", []string{"7"}, 512, "intset", []string{"7"}},
		{"NewFor a string", "x", []string{"1"}, 512, "hashtable", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			if tc.first != "" {
				s = NewFor([]byte(tc.first))
			}
			addAll(s, tc.lim, tc.add...)
			if s.Encoding() != tc.enc {
				t.Fatalf("encoding %s, want %s", s.Encoding(), tc.enc)
			}
			if tc.order != nil && !slices.Equal(all(s), tc.order) {
				t.Fatalf("order %v, want %v", all(s), tc.order)
			}
			uniq := map[string]bool{}
			for _, m := range tc.add {
				uniq[m] = true
				if !s.Has([]byte(m)) {
					t.Fatalf("%q missing", m)
				}
			}
			if s.Len() != len(uniq) {
				t.Fatalf("Len %d, want %d", s.Len(), len(uniq))
			}
		})
	}
}

func TestNeverConvertsBack(t *testing.T) {
	s := New()
	addAll(s, 512, "1", "x")
	s.Remove([]byte("x"))
	if s.Encoding() != "hashtable" || !s.Has([]byte("1")) || s.Len() != 1 {
		t.Fatal("hash table went back or lost a member")
	}
}

func TestIntsetLookupsByText(t *testing.T) {
	s := New()
	addAll(s, 512, "1", "2")
	for _, m := range []string{"01", "+1", "1.0", " 1", "-0"} {
		if s.Has([]byte(m)) || s.Remove([]byte(m)) {
			t.Errorf("%q matched an intset member", m)
		}
	}
}

func TestCloneIndependent(t *testing.T) {
	for _, first := range []string{"1", "x"} {
		s := NewFor([]byte(first))
		addAll(s, 512, first, "2", "3")
		c := s.Clone()
		if c.Encoding() != s.Encoding() || !slices.Equal(sorted(all(c)), sorted(all(s))) {
			t.Fatalf("clone differs")
		}
		c.Add([]byte("new"), 512)
		s.Remove([]byte("2"))
		if s.Has([]byte("new")) || !c.Has([]byte("2")) {
			t.Fatalf("clone shares storage")
		}
	}
}

func TestRandomCoversAll(t *testing.T) {
	for _, prefix := range []string{"", "m"} {
		s := New()
		for i := range 50 {
			s.Add([]byte(prefix+strconv.Itoa(i)), 512)
		}
		seen := map[string]bool{}
		for range 5000 {
			m := string(s.Random(nil))
			if !s.Has([]byte(m)) {
				t.Fatalf("Random gave a non-member %q", m)
			}
			seen[m] = true
		}
		if len(seen) != 50 {
			t.Fatalf("%s: Random reached %d of 50 members", s.Encoding(), len(seen))
		}
	}
}

// TestScanGuarantee checks the SSCAN promise: a member present for the
// whole scan is returned, while the table doubles and shrinks between
// calls.
func TestScanGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 10 {
		s := New()
		for i := range 300 {
			s.Add([]byte("keep"+strconv.Itoa(i)), 512)
		}
		seen := map[string]bool{}
		cursor := uint64(0)
		for step := 0; ; step++ {
			cursor = s.Scan(cursor, func(m []byte) { seen[string(m)] = true })
			if cursor == 0 {
				break
			}
			switch r.IntN(4) {
			case 0:
				for i := range r.IntN(600) {
					s.Add([]byte("tmp"+strconv.Itoa(round)+"-"+strconv.Itoa(step)+"-"+strconv.Itoa(i)), 512)
				}
			case 1:
				var drop [][]byte
				s.Each(func(m []byte) bool {
					if m[0] == 't' {
						drop = append(drop, slices.Clone(m))
					}
					return true
				})
				for _, m := range drop {
					s.Remove(m)
				}
			}
		}
		for i := range 300 {
			if !seen["keep"+strconv.Itoa(i)] {
				t.Fatalf("round %d: keep%d never returned", round, i)
			}
		}
	}
}

func TestScanIntsetWhole(t *testing.T) {
	s := New()
	addAll(s, 512, "5", "1", "3")
	var got []string
	if c := s.Scan(77, func(m []byte) { got = append(got, string(m)) }); c != 0 || !slices.Equal(got, []string{"1", "3", "5"}) {
		t.Fatalf("cursor %d, members %v", c, got)
	}
}

func TestTableShrinks(t *testing.T) {
	s := New()
	for i := range 1000 {
		s.Add([]byte("m"+strconv.Itoa(i)), 512)
	}
	big := len(s.ht.buckets)
	for i := range 995 {
		s.Remove([]byte("m" + strconv.Itoa(i)))
	}
	if len(s.ht.buckets) >= big || len(s.ht.buckets) > 16 {
		t.Fatalf("table of %d buckets for %d members (was %d)", len(s.ht.buckets), s.Len(), big)
	}
	if s.ht.bytes != 5*8 {
		t.Fatalf("member bytes %d", s.ht.bytes)
	}
}

// TestModel drives random operations against a map.
func TestModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		lim := []int64{0, 3, 16, 512}[round%4]
		s := New()
		model := map[string]bool{}
		for range 300 {
			var m string
			switch r.IntN(4) {
			case 0:
				m = string(rune('a' + r.IntN(5)))
			case 1:
				m = strconv.Itoa(r.IntN(1 << 20))
			default:
				m = strconv.Itoa(r.IntN(40) - 20)
			}
			if round%5 != 0 && m[0] >= 'a' {
				m = "7" // most rounds stay integer-only
			}
			switch r.IntN(3) {
			case 0, 1:
				if s.Add([]byte(m), lim) == model[m] {
					t.Fatalf("Add(%q)", m)
				}
				model[m] = true
			default:
				if s.Remove([]byte(m)) != model[m] {
					t.Fatalf("Remove(%q)", m)
				}
				delete(model, m)
			}
		}
		want := make([]string, 0, len(model))
		for m := range model {
			want = append(want, m)
		}
		if !slices.Equal(sorted(all(s)), sorted(want)) {
			t.Fatalf("round %d: members differ from the model", round)
		}
		if s.IsIntset() {
			prev := int64(0)
			for i, m := range all(s) {
				v, _ := strconv.ParseInt(m, 10, 64)
				if i > 0 && v <= prev {
					t.Fatalf("intset out of order")
				}
				prev = v
			}
		}
	}
}

// FuzzSet reads the input as operations on one set with a small
// set-max-intset-entries (opcode byte, member length byte, member bytes)
// and checks it against a map, its encoding against Redis's rule (an
// intset while every member ever added was an integer and the set never
// passed the limit), and a full scan.
func FuzzSet(f *testing.F) {
	op := func(code byte, m string) []byte { return append([]byte{code, byte(len(m))}, m...) }
	f.Add(slices.Concat(op(0, "1"), op(0, "2"), op(0, "x"), op(1, "x")), uint8(4))
	f.Add(slices.Concat(op(0, "1"), op(0, "2"), op(0, "3"), op(0, "4"), op(0, "5")), uint8(3))
	f.Add(slices.Concat(op(0, "-0"), op(0, "01"), op(2, "1")), uint8(8))
	f.Add(binary.LittleEndian.AppendUint64(op(0, "9223372036854775807"), 0), uint8(1))
	f.Fuzz(func(t *testing.T, prog []byte, limit uint8) {
		lim := int64(limit % 16)
		s := New()
		model := map[string]bool{}
		converted := false
		for len(prog) >= 2 {
			code, n := prog[0]%3, int(prog[1])
			prog = prog[2:]
			n = min(n, len(prog))
			m := prog[:n]
			prog = prog[n:]
			switch code {
			case 0:
				if s.Add(m, lim) == model[string(m)] {
					t.Fatalf("Add(%q)", m)
				}
				model[string(m)] = true
				if _, err := strconv.ParseInt(string(m), 10, 64); err != nil || strconv.FormatInt(mustInt(m), 10) != string(m) || int64(len(model)) > lim {
					converted = true
				}
			case 1:
				if s.Remove(m) != model[string(m)] {
					t.Fatalf("Remove(%q)", m)
				}
				delete(model, string(m))
			default:
				if s.Has(m) != model[string(m)] {
					t.Fatalf("Has(%q)", m)
				}
			}
			if s.IsIntset() == converted {
				t.Fatalf("encoding %s after %d members (converted %v)", s.Encoding(), len(model), converted)
			}
		}
		if s.Len() != len(model) {
			t.Fatalf("Len %d, model %d", s.Len(), len(model))
		}
		seen := map[string]bool{}
		c := uint64(0)
		for {
			c = s.Scan(c, func(m []byte) { seen[string(m)] = true })
			if c == 0 {
				break
			}
		}
		if len(seen) != len(model) {
			t.Fatalf("scan saw %d of %d", len(seen), len(model))
		}
	})
}

func mustInt(m []byte) int64 {
	v, _ := strconv.ParseInt(string(m), 10, 64)
	return v
}

// Random picks a hash table's members with equal chances, as Redis's
// SRANDMEMBER histogram test demands (chi-square below 40 for ten
// members, df 9; a pick biased by chain length scored about 150).
func TestRandomIsFair(t *testing.T) {
	s := NewFor([]byte("MARY"))
	for _, m := range []string{"1", "5", "10", "50", "125", "MARY", "PATRICIA", "LINDA", "BARBARA", "ELIZABETH"} {
		s.Add([]byte(m), 512)
	}
	if s.IsIntset() {
		t.Fatal("want a hash table")
	}
	const picks = 100000
	counts := map[string]int{}
	var buf []byte
	for range picks {
		buf = s.Random(buf[:0])
		counts[string(buf)]++
	}
	exp := float64(picks) / 10
	chi := 0.0
	for _, c := range counts {
		d := float64(c) - exp
		chi += d * d / exp
	}
	if len(counts) != 10 || chi > 40 {
		t.Fatalf("chi-square %.1f over %d members: %v", chi, len(counts), counts)
	}
}
