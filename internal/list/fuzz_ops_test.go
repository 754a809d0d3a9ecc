package list

import (
	"bytes"
	"strconv"
	"testing"
)

// FuzzListOps drives a list and a slice model with operations read from
// the input, with small fills so that nodes split and merge often.
func FuzzListOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0x21, 0x32, 0x43})
	f.Add(bytes.Repeat([]byte{1, 0x81, 6, 0x47}, 40))
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 || len(ops) > 4000 {
			return
		}
		fill := Fill(int(ops[0]%8) - 5)
		if ops[0]&0x80 != 0 {
			fill = Fill(ops[0]%5 + 1)
		}
		l := New(fill)
		var m [][]byte
		val := func(b byte) []byte {
			switch b % 4 {
			case 0:
				return []byte(strconv.Itoa(int(b) - 128))
			case 1:
				return bytes.Repeat([]byte{'a' + b%3}, int(b)*20)
			case 2:
				return []byte{b}
			}
			return []byte(strconv.FormatInt(int64(b)<<40, 10))
		}
		for i := 1; i+1 < len(ops); i += 2 {
			op, arg := ops[i], ops[i+1]
			switch op % 8 {
			case 0:
				l.PushFront(val(arg))
				m = append([][]byte{val(arg)}, m...)
			case 1:
				l.PushBack(val(arg))
				m = append(m, val(arg))
			case 2:
				if l.PopFront(nil) {
					m = m[1:]
				}
			case 3:
				if l.PopBack(nil) {
					m = m[:len(m)-1]
				}
			case 4:
				if len(m) > 0 {
					j := int(arg) % len(m)
					l.Set(int64(j), val(op))
					m[j] = val(op)
				}
			case 5:
				if len(m) > 0 {
					pivot := m[int(arg)%len(m)]
					after := op&0x10 != 0
					l.Insert(pivot, val(op), after)
					for j := range m {
						if bytes.Equal(m[j], pivot) {
							if after {
								j++
							}
							m = append(m[:j], append([][]byte{val(op)}, m[j:]...)...)
							break
						}
					}
				}
			case 6:
				if len(m) > 0 {
					s := int(arg) % len(m)
					c := int(op>>3) % (len(m) - s + 1)
					l.DeleteRange(s, c)
					m = append(m[:s:s], m[s+c:]...)
				}
			case 7:
				v := val(arg)
				n := l.Remove(v, int(op>>4)%3, op&0x08 != 0)
				want := 0
				for _, e := range m {
					if bytes.Equal(e, v) {
						want++
					}
				}
				if lim := int(op>>4) % 3; lim > 0 && want > lim {
					want = lim
				}
				if n != want {
					t.Fatalf("Remove %q: %d, want %d", v, n, want)
				}
				// Rebuild the model from the list's order check below.
				var keep [][]byte
				l.Each(0, false, func(_ int, e []byte) bool { keep = append(keep, append([]byte(nil), e...)); return true })
				if len(keep) != len(m)-n {
					t.Fatalf("Remove left %d elements, want %d", len(keep), len(m)-n)
				}
				m = keep
			}
		}
		check(t, l, m)
	})
}
