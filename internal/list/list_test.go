package list

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// check verifies l's invariants and that it holds exactly want.
func check(t *testing.T, l *List, want [][]byte) {
	t.Helper()
	if l.Len() != len(want) {
		t.Fatalf("Len %d, want %d", l.Len(), len(want))
	}
	count, nodes, bytesCap := 0, 0, 0
	var prev *node
	for n := l.head; n != nil; n = n.next {
		if n.prev != prev {
			t.Fatalf("node %d: broken prev link", nodes)
		}
		if n.n == 0 {
			t.Fatalf("node %d is empty", nodes)
		}
		k := 0
		for off := 0; off < len(n.buf); k++ {
			d, ok := decodeAt(n.buf, off)
			if !ok {
				t.Fatalf("node %d: malformed entry at %d", nodes, off)
			}
			off += d.size
		}
		if k != n.n {
			t.Fatalf("node %d: %d entries, header says %d", nodes, k, n.n)
		}
		if k > l.fill.maxCount() || (k > 1 && len(n.buf) > l.fill.maxBytes()) {
			t.Fatalf("node %d over its limit: %d entries, %d bytes", nodes, k, len(n.buf))
		}
		count += k
		nodes++
		bytesCap += cap(n.buf)
		prev = n
	}
	if prev != l.tail || count != l.length || nodes != l.nodes || bytesCap != l.bytes {
		t.Fatalf("header out of step: count %d/%d nodes %d/%d bytes %d/%d", count, l.length, nodes, l.nodes, bytesCap, l.bytes)
	}
	var got [][]byte
	l.Each(0, false, func(i int, v []byte) bool {
		if i != len(got) {
			t.Fatalf("Each index %d, want %d", i, len(got))
		}
		got = append(got, append([]byte(nil), v...))
		return true
	})
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("element %d: %q, want %q", i, got[i], want[i])
		}
	}
	// Backwards too.
	j := len(want) - 1
	l.Each(len(want)-1, true, func(i int, v []byte) bool {
		if i != j || !bytes.Equal(v, want[j]) {
			t.Fatalf("reverse element %d (%d): %q, want %q", i, j, v, want[j])
		}
		j--
		return true
	})
	if j != -1 {
		t.Fatalf("reverse walk stopped at %d", j)
	}
}

func TestEncodingRoundTrip(t *testing.T) {
	for _, v := range []string{"", "a", "0", "63", "64", "-1", "127", "128", "-129", "65535", "1700000000123",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "01", "-0", "+1", " 1", "1.5",
		strings.Repeat("x", 63), strings.Repeat("y", 64), strings.Repeat("z", 200), strings.Repeat("w", 20000)} {
		b := appendEntry(nil, []byte(v))
		if len(b) != entrySize([]byte(v)) {
			t.Errorf("%q: size %d, entrySize %d", v, len(b), entrySize([]byte(v)))
		}
		d, ok := decodeAt(b, 0)
		if !ok || d.size != len(b) || string(d.value(nil)) != v || !d.equal([]byte(v)) {
			t.Errorf("%q: decoded %q ok=%v size %d/%d", v, d.value(nil), ok, d.size, len(b))
		}
		if prevStart(b, len(b)) != 0 {
			t.Errorf("%q: backlen leads to %d", v, prevStart(b, len(b)))
		}
	}
	// Integers are stored as integers only when the text round-trips.
	for v, isInt := range map[string]bool{"12": true, "-12": true, "012": false, "-0": false, "+5": false, "1e3": false, "": false} {
		if _, ok := asInt([]byte(v)); ok != isInt {
			t.Errorf("asInt(%q) = %v", v, ok)
		}
	}
}

func TestBasics(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   func(l *List, m *[][]byte)
	}{
		{"push front", func(l *List, m *[][]byte) { l.PushFront([]byte("a")); *m = append([][]byte{[]byte("a")}, *m...) }},
		{"push back", func(l *List, m *[][]byte) { l.PushBack([]byte("b")); *m = append(*m, []byte("b")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(DefaultFill)
			var m [][]byte
			for range 3000 {
				tc.op(l, &m)
			}
			check(t, l, m)
			if l.Nodes() < 2 {
				t.Fatalf("3000 entries in %d node(s)", l.Nodes())
			}
		})
	}
	l := New(3)
	for i := range 10 {
		l.PushBack([]byte(strconv.Itoa(i)))
	}
	if l.Nodes() != 4 {
		t.Fatalf("10 entries with fill 3: %d nodes", l.Nodes())
	}
	var got string
	l.Index(-1, func(v []byte) { got = string(v) })
	if got != "9" || l.Index(10, nil) || l.Index(-11, nil) {
		t.Fatalf("Index -1 = %q", got)
	}
	if !l.Insert([]byte("4"), []byte("x"), true) || l.Insert([]byte("nope"), []byte("y"), false) {
		t.Fatal("Insert")
	}
	if n := l.Remove([]byte("x"), 0, false); n != 1 {
		t.Fatalf("Remove: %d", n)
	}
	l.DeleteRange(0, l.Len())
	if l.Len() != 0 || l.Nodes() != 0 || l.MemoryUsage() != listSize {
		t.Fatalf("cleared list: len %d nodes %d", l.Len(), l.Nodes())
	}
}

// TestModel runs random operations against a slice model, for several fills.
func TestModel(t *testing.T) {
	for _, fill := range []Fill{1, 2, 5, 128, -1, -2, -5} {
		t.Run(fmt.Sprint(fill), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(fill+10), 7))
			l := New(fill)
			var m [][]byte
			val := func() []byte {
				switch r.IntN(5) {
				case 0:
					return []byte(strconv.Itoa(r.IntN(200) - 100))
				case 1:
					return []byte(strconv.FormatInt(r.Int64N(1<<50), 10))
				case 2:
					return bytes.Repeat([]byte{'a' + byte(r.IntN(3))}, r.IntN(3000))
				}
				return []byte(string(rune('a' + r.IntN(4))))
			}
			for step := range 4000 {
				switch r.IntN(10) {
				case 0:
					v := val()
					l.PushFront(v)
					m = append([][]byte{v}, m...)
				case 1, 2:
					v := val()
					l.PushBack(v)
					m = append(m, v)
				case 3:
					var got []byte
					ok := l.PopFront(func(v []byte) { got = append([]byte(nil), v...) })
					if ok != (len(m) > 0) || (ok && !bytes.Equal(got, m[0])) {
						t.Fatalf("step %d PopFront %q ok=%v", step, got, ok)
					}
					if ok {
						m = m[1:]
					}
				case 4:
					var got []byte
					ok := l.PopBack(func(v []byte) { got = append([]byte(nil), v...) })
					if ok != (len(m) > 0) || (ok && !bytes.Equal(got, m[len(m)-1])) {
						t.Fatalf("step %d PopBack %q ok=%v", step, got, ok)
					}
					if ok {
						m = m[:len(m)-1]
					}
				case 5:
					if len(m) > 0 {
						i := r.IntN(len(m))
						v := val()
						l.Set(int64(i), v)
						m[i] = v
					}
				case 6:
					if len(m) > 0 {
						pivot := m[r.IntN(len(m))]
						v := val()
						after := r.IntN(2) == 0
						if !l.Insert(pivot, v, after) {
							t.Fatalf("step %d: pivot not found", step)
						}
						for i := range m {
							if bytes.Equal(m[i], pivot) {
								if after {
									i++
								}
								m = append(m[:i], append([][]byte{v}, m[i:]...)...)
								break
							}
						}
					}
				case 7:
					v := val()
					count := r.IntN(3)
					fromTail := r.IntN(2) == 0
					got := l.Remove(v, count, fromTail)
					want := 0
					var keep [][]byte
					if !fromTail {
						for _, e := range m {
							if bytes.Equal(e, v) && (count == 0 || want < count) {
								want++
								continue
							}
							keep = append(keep, e)
						}
					} else {
						for i := len(m) - 1; i >= 0; i-- {
							if bytes.Equal(m[i], v) && (count == 0 || want < count) {
								want++
								continue
							}
							keep = append([][]byte{m[i]}, keep...)
						}
					}
					if got != want {
						t.Fatalf("step %d Remove %q %d: %d, want %d", step, v, count, got, want)
					}
					m = keep
				case 8:
					if len(m) > 0 {
						s := r.IntN(len(m))
						c := r.IntN(len(m) - s + 1)
						l.DeleteRange(s, c)
						m = append(m[:s:s], m[s+c:]...)
					}
				case 9:
					if len(m) > 0 {
						i := r.IntN(len(m))
						var got []byte
						l.Index(int64(i-len(m)), func(v []byte) { got = append([]byte(nil), v...) })
						if !bytes.Equal(got, m[i]) {
							t.Fatalf("step %d Index %d: %q, want %q", step, i, got, m[i])
						}
					}
				}
				if step%97 == 0 {
					check(t, l, m)
					check(t, l.Clone(), m)
				}
			}
			check(t, l, m)
		})
	}
}

// FuzzNodeEncoding feeds arbitrary elements through a node's encoding and
// arbitrary bytes through its decoder, which must never panic.
func FuzzNodeEncoding(f *testing.F) {
	for _, s := range []string{"", "0", "-1", "63", "64", "12345678901234", "-9223372036854775808", "abc", "01", strings.Repeat("x", 70)} {
		f.Add([]byte(s), []byte{0x41, 0x80})
	}
	f.Fuzz(func(t *testing.T, v, raw []byte) {
		b := appendEntry([]byte("pre"), v)
		d, ok := decodeAt(b, 3)
		if !ok || d.size != len(b)-3 || !bytes.Equal(d.value(nil), v) || !d.equal(v) {
			t.Fatalf("%q: round trip gave %q (ok %v)", v, d.value(nil), ok)
		}
		if prevStart(b, len(b)) != 3 {
			t.Fatalf("%q: backlen wrong", v)
		}
		for off := 0; off < len(raw); {
			d, ok := decodeAt(raw, off)
			if !ok {
				break
			}
			off += d.size
		}
		l := New(2)
		l.PushBack(v)
		l.PushFront(raw)
		l.PushBack(v)
		check(t, l, [][]byte{raw, v, v})
	})
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemoryPerElement measures heap bytes per element (LIST_MEASURE=1):
// 1M small elements in one list, and 100k lists of 5, and compares them
// with MemoryUsage.
func TestMemoryPerElement(t *testing.T) {
	if os.Getenv("LIST_MEASURE") == "" {
		t.Skip("set LIST_MEASURE=1 to measure bytes per element")
	}
	for _, kind := range []struct {
		name string
		el   func(i int) []byte
	}{
		{"10-byte strings", func(i int) []byte { return fmt.Appendf(nil, "job:%06d", i%1000000) }},
		{"13-digit timestamps", func(i int) []byte { return strconv.AppendInt(nil, 1700000000000+int64(i), 10) }},
	} {
		const n = 1000000
		els := make([][]byte, n)
		for i := range els {
			els[i] = kind.el(i)
		}
		before := heapInUse()
		l := New(DefaultFill)
		for _, e := range els {
			l.PushBack(e)
		}
		after := heapInUse()
		t.Logf("%s, one list of %d: %.2f bytes/element (heap), MemoryUsage %.2f",
			kind.name, n, float64(after-before)/n, float64(l.MemoryUsage())/n)
		runtime.KeepAlive(l)
		l = nil

		const lists, per = 100000, 5
		before = heapInUse()
		all := make([]*List, lists)
		usage := 0
		for i := range all {
			all[i] = New(DefaultFill)
			for j := range per {
				all[i].PushBack(els[i*per+j])
			}
			usage += all[i].MemoryUsage()
		}
		after = heapInUse()
		t.Logf("%s, %d lists of %d: %.2f bytes/element (heap), MemoryUsage %.2f",
			kind.name, lists, per, float64(after-before)/(lists*per), float64(usage)/(lists*per))
		runtime.KeepAlive(all)
		runtime.KeepAlive(els)
	}
}
