package hash

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func b(s string) []byte { return []byte(s) }

// pairs lists a hash's pairs in iteration order.
func pairs(h *Hash) []string {
	var out []string
	h.ForEach(func(f, v []byte) bool {
		out = append(out, string(f), string(v))
		return true
	})
	return out
}

func TestStringEncoding(t *testing.T) {
	for _, tc := range []struct {
		s     string
		isInt bool
	}{
		{"", false}, {"0", true}, {"-0", false}, {"007", false}, {"+1", false}, {" 1", false}, {"1 ", false},
		{"1", true}, {"-1", true}, {"9223372036854775807", true}, {"-9223372036854775808", true},
		{"9223372036854775808", false}, {"-9223372036854775809", false}, {"12345678901234567890", false},
		{"1.5", false}, {"1e3", false}, {"abc", false}, {"\x00", false}, {strings.Repeat("z", 200), false},
		{"1700000000123", true}, {"126", true}, {"127", true}, {"-1", true},
	} {
		enc := appendStr(nil, b(tc.s))
		if len(enc) != encLen(b(tc.s)) {
			t.Errorf("%q: encLen %d, encoded %d bytes", tc.s, encLen(b(tc.s)), len(enc))
		}
		if (enc[0]&1 == 1) != tc.isInt {
			t.Errorf("%q: integer form %v, want %v", tc.s, enc[0]&1 == 1, tc.isInt)
		}
		if len(enc) > len(tc.s)+2 {
			t.Errorf("%q: %d bytes encoded, more than listpack's %d", tc.s, len(enc), len(tc.s)+2)
		}
		s, next := readStr(enc, 0)
		if got := string(s.bytes(make([]byte, 0, 20))); got != tc.s || next != len(enc) || skipStr(enc, 0) != len(enc) {
			t.Errorf("%q: decoded %q, next %d of %d", tc.s, got, next, len(enc))
		}
		if s.textLen() != len(tc.s) {
			t.Errorf("%q: textLen %d", tc.s, s.textLen())
		}
		q := newQuery(b(tc.s))
		if ok, n := q.matchAt(enc, 0); !ok || n != len(enc) {
			t.Errorf("%q: does not match itself", tc.s)
		}
	}
	if encLen(b("126")) != 1 || encLen(b("127")) != 3 || encLen(b("-1")) != 2 {
		t.Error("small integers must take one byte, others a header and a varint")
	}
	// Integers are never longer than their text.
	for _, v := range []int64{0, 9, 10, 63, 64, 99, 100, 126, 127, 8191, 8192, 1 << 40, -(1 << 40), 1<<63 - 1, -1 << 63} {
		s := strconv.FormatInt(v, 10)
		if n := encLen(b(s)); n > len(s)+1 {
			t.Errorf("%d: %d bytes", v, n)
		}
	}
}

func TestSmallBasics(t *testing.T) {
	h := New()
	lim := DefaultLimits()
	if h.Len() != 0 || h.Encoding() != "listpack" || h.Exists(b("a")) {
		t.Fatal("empty hash")
	}
	if h.Set(b("a"), b("1"), lim) || h.Set(b("b"), b("two"), lim) || !h.Set(b("a"), b("one hundred"), lim) {
		t.Fatal("Set's updated flags")
	}
	h.Set(b("10"), b("-5"), lim)
	h.Set(b(""), b(""), lim)
	if got, want := pairs(h), []string{"a", "one hundred", "b", "two", "10", "-5", "", ""}; !slices.Equal(got, want) {
		t.Fatalf("pairs %q, want %q", got, want)
	}
	if v, ok := h.Get(b("10"), nil); !ok || string(v) != "-5" {
		t.Fatalf("Get 10: %q %v", v, ok)
	}
	if h.ValueLen(b("a")) != 11 || h.ValueLen(b("10")) != 2 || h.ValueLen(b("x")) != 0 {
		t.Fatal("ValueLen")
	}
	if h.Exists(b("010")) || h.Exists(b("1")) || !h.Exists(b("")) {
		t.Fatal("Exists must compare exact bytes")
	}
	if !h.Delete(b("b")) || h.Delete(b("b")) || h.Len() != 3 {
		t.Fatal("Delete")
	}
	if got, want := pairs(h), []string{"a", "one hundred", "10", "-5", "", ""}; !slices.Equal(got, want) {
		t.Fatalf("pairs after delete %q, want %q", got, want)
	}
}

func TestConversion(t *testing.T) {
	lim := Limits{Entries: 4, Value: 8}
	h := New()
	for i := range 4 {
		h.Set(b(strconv.Itoa(i)), b("v"), lim)
	}
	if h.Encoding() != "listpack" {
		t.Fatal("converted at the limit")
	}
	h.Set(b("0"), b("w"), lim)
	if h.Encoding() != "listpack" {
		t.Fatal("an update converted")
	}
	h.Set(b("new"), b("v"), lim)
	if h.Encoding() != "hashtable" || h.Len() != 5 {
		t.Fatal("no conversion past the entry limit")
	}
	for i := range 4 {
		h.Delete(b(strconv.Itoa(i)))
	}
	if h.Encoding() != "hashtable" {
		t.Fatal("converted back")
	}

	for _, tc := range []struct {
		name  string
		f, v  string
		large bool
	}{{"value at limit", "f", "12345678", false}, {"long value", "f", "123456789", true}, {"long field", "123456789", "v", true}} {
		h := New()
		h.Set(b(tc.f), b(tc.v), lim)
		if (h.Encoding() == "hashtable") != tc.large {
			t.Errorf("%s: %s", tc.name, h.Encoding())
		}
	}
	h = New()
	h.TryConversion([][]byte{b("f"), b("123456789")}, lim)
	if h.Encoding() != "hashtable" {
		t.Error("TryConversion did not convert")
	}
	h = New()
	h.TryConversion([][]byte{b("f"), b("12345678")}, lim)
	if h.Encoding() != "listpack" {
		t.Error("TryConversion converted")
	}
	old := maxSmallBytes
	maxSmallBytes = 16
	defer func() { maxSmallBytes = old }()
	h = New()
	h.TryConversion([][]byte{b("12345678"), b("12345678"), b("1")}, lim)
	if h.Encoding() != "hashtable" {
		t.Error("TryConversion ignored the safety limit")
	}
}

func TestLargeResizeAndScan(t *testing.T) {
	lim := Limits{Entries: 0, Value: 64}
	h := New()
	const n = 5000
	for i := range n {
		h.Set(b("f"+strconv.Itoa(i)), b(strconv.Itoa(i)), lim)
	}
	if h.Len() != n || h.Encoding() != "hashtable" {
		t.Fatal("len/encoding")
	}
	// A scan interleaved with growth and shrinkage returns every field
	// present throughout.
	seen := map[string]int{}
	cursor, calls := uint64(0), 0
	for {
		cursor = h.Scan(cursor, func(f, v []byte) {
			if "f"+string(v) != string(f) && !bytes.HasPrefix(f, b("g")) {
				t.Fatalf("pair %q %q", f, v)
			}
			seen[string(f)]++
		})
		calls++
		switch calls {
		case 100:
			for i := range 20000 {
				h.Set(b("g"+strconv.Itoa(i)), b("x"), lim)
			}
		case 300:
			for i := range 20000 {
				h.Delete(b("g" + strconv.Itoa(i)))
			}
			for i := 1000; i < n; i++ {
				h.Delete(b("f" + strconv.Itoa(i)))
			}
		}
		if cursor == 0 {
			break
		}
	}
	for i := range 1000 {
		if seen["f"+strconv.Itoa(i)] == 0 {
			t.Fatalf("f%d never returned", i)
		}
	}
	for h.tb().rehashIdx >= 0 {
		h.tb().rehash(100)
	}
	if h.Len() != 1000 || len(h.tb().ht[0]) > 4096 {
		t.Fatalf("len %d, buckets %d: did not shrink", h.Len(), len(h.tb().ht[0]))
	}
}

func TestPickerAndClone(t *testing.T) {
	for _, lim := range []Limits{DefaultLimits(), {Entries: 0, Value: 64}} {
		h := New()
		for i := range 50 {
			h.Set(b("f"+strconv.Itoa(i)), b("v"+strconv.Itoa(i)), lim)
		}
		p := h.NewPicker()
		hits := map[string]int{}
		for range 5000 {
			p.Random(func(f, v []byte) bool {
				if "v"+string(f[1:]) != string(v) {
					t.Fatalf("pair %q %q", f, v)
				}
				hits[string(f)]++
				return true
			})
		}
		if len(hits) != 50 {
			t.Errorf("%s: %d of 50 fields drawn", h.Encoding(), len(hits))
		}
		c := h.Clone()
		c.Set(b("f0"), b("changed"), lim)
		if v, _ := h.Get(b("f0"), nil); string(v) != "v0" || c.Encoding() != h.Encoding() || c.Len() != h.Len() {
			t.Errorf("%s: clone shares memory or lost its encoding", h.Encoding())
		}
	}
}

// TestModel runs random operations against a map model, for both
// encodings and a threshold crossed during the run.
func TestModel(t *testing.T) {
	for _, lim := range []Limits{{Entries: 512, Value: 64}, {Entries: 16, Value: 64}, {Entries: 0, Value: 0}, {Entries: 1000, Value: 6}} {
		t.Run(fmt.Sprint(lim), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(lim.Entries)))
			h := New()
			model := map[string]string{}
			var order []string // insertion order while small
			field := func() []byte {
				switch r.IntN(4) {
				case 0:
					return b(strconv.Itoa(r.IntN(40) - 20))
				case 1:
					return b("f" + strconv.Itoa(r.IntN(40)))
				case 2:
					return b(strings.Repeat("x", r.IntN(10)))
				}
				return b(fmt.Sprintf("%02d", r.IntN(30)))
			}
			value := func() []byte {
				switch r.IntN(3) {
				case 0:
					return b(strconv.FormatInt(r.Int64()>>r.IntN(64), 10))
				case 1:
					return b(strings.Repeat("v", r.IntN(70)))
				}
				return b("-0" + strconv.Itoa(r.IntN(9)))
			}
			for step := range 20000 {
				f := field()
				switch r.IntN(3) {
				case 0, 1:
					v := value()
					_, had := model[string(f)]
					if got := h.Set(f, v, lim); got != had {
						t.Fatalf("step %d: Set(%q) updated %v, model %v", step, f, got, had)
					}
					if !had {
						order = append(order, string(f))
					}
					model[string(f)] = string(v)
				default:
					_, had := model[string(f)]
					if got := h.Delete(f); got != had {
						t.Fatalf("step %d: Delete(%q) %v, model %v", step, f, got, had)
					}
					delete(model, string(f))
					if i := slices.Index(order, string(f)); i >= 0 {
						order = slices.Delete(order, i, i+1)
					}
				}
				if h.Len() != len(model) {
					t.Fatalf("step %d: Len %d, model %d", step, h.Len(), len(model))
				}
				g := field()
				v, ok := h.Get(g, make([]byte, 0, 20))
				if mv, mok := model[string(g)]; ok != mok || string(v) != mv || h.ValueLen(g) != len(mv) {
					t.Fatalf("step %d: Get(%q) %q %v, model %q %v", step, g, v, ok, mv, mok)
				}
				if step%500 == 0 {
					got := map[string]string{}
					var gotOrder []string
					h.ForEach(func(f, v []byte) bool {
						got[string(f)] = string(v)
						gotOrder = append(gotOrder, string(f))
						return true
					})
					if len(got) != len(model) {
						t.Fatalf("step %d: ForEach %d pairs, model %d", step, len(got), len(model))
					}
					for k, v := range model {
						if got[k] != v {
							t.Fatalf("step %d: %q = %q, model %q", step, k, got[k], v)
						}
					}
					if h.Encoding() == "listpack" && !slices.Equal(gotOrder, order) {
						t.Fatalf("step %d: order %q, model %q", step, gotOrder, order)
					}
					if h.Encoding() == "listpack" {
						checkCanonical(t, h)
					}
				}
			}
		})
	}
}

// checkCanonical rebuilds a small hash's buffer from its pairs and
// requires the same bytes.
func checkCanonical(t *testing.T, h *Hash) {
	t.Helper()
	var lp []byte
	h.ForEach(func(f, v []byte) bool {
		n, _ := lpCount(lp)
		lp = lpSetCount(lp, n+1)
		lp = appendStr(appendStr(lp, f), v)
		return true
	})
	if !bytes.Equal(lp, h.lp()) {
		t.Fatalf("buffer not canonical:\n got %x\nwant %x", h.lp(), lp)
	}
}
