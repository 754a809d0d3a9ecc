package hash

import (
	"slices"
	"testing"
)

// FuzzSmall drives the small encoding with operations decoded from the
// input and checks it after each against a model (map plus insertion
// order): contents, order, canonical bytes, and the listpack form kept
// until the thresholds say otherwise. Each operation is an opcode byte,
// then a length-prefixed field and (for sets) value.
func FuzzSmall(f *testing.F) {
	f.Add([]byte("\x00\x01a\x011\x00\x01b\x0212\x01\x01a"))
	f.Add([]byte("\x00\x020\x00\x00\x02-0\x0200\x00\x139223372036854775807\x01-\x02\x01\x020"))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x02\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{Entries: 64, Value: 40}
		h := New()
		model := map[string]string{}
		var order []string
		next := func() ([]byte, bool) {
			if len(data) == 0 {
				return nil, false
			}
			n := int(data[0])
			data = data[1:]
			n = min(n, len(data))
			s := data[:n]
			data = data[n:]
			return s, true
		}
		for len(data) > 0 {
			op := data[0] % 3
			data = data[1:]
			fld, ok := next()
			if !ok {
				return
			}
			switch op {
			case 0:
				val, _ := next()
				_, had := model[string(fld)]
				if h.Set(fld, val, lim) != had {
					t.Fatalf("Set(%q) updated flag wrong", fld)
				}
				if !had {
					order = append(order, string(fld))
				}
				model[string(fld)] = string(val)
			case 1:
				_, had := model[string(fld)]
				if h.Delete(fld) != had {
					t.Fatalf("Delete(%q) flag wrong", fld)
				}
				delete(model, string(fld))
				if i := slices.Index(order, string(fld)); i >= 0 {
					order = slices.Delete(order, i, i+1)
				}
			default:
				v, ok := h.Get(fld, nil)
				mv, mok := model[string(fld)]
				if ok != mok || string(v) != mv || h.ValueLen(fld) != len(mv) || h.Exists(fld) != mok {
					t.Fatalf("Get(%q) = %q %v, model %q %v", fld, v, ok, mv, mok)
				}
			}
			if h.Len() != len(model) {
				t.Fatalf("Len %d, model %d", h.Len(), len(model))
			}
			if h.Encoding() != "listpack" {
				return // the large encoding is TestModel's
			}
			var got []string
			h.ForEach(func(f, v []byte) bool {
				if model[string(f)] != string(v) {
					t.Fatalf("%q = %q, model %q", f, v, model[string(f)])
				}
				got = append(got, string(f))
				return true
			})
			if !slices.Equal(got, order) {
				t.Fatalf("order %q, model %q", got, order)
			}
			checkCanonical(t, h)
		}
	})
}
