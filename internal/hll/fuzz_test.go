package hll

import (
	"bytes"
	"testing"
)

// FuzzHLL feeds arbitrary bytes as an HLL value (as they are when they
// pass the header check, else behind a sparse header) to everything that
// reads or edits one. Nothing may panic, and where the body decodes, the
// encodings must agree: the dense conversion counts the same, and an
// addition cannot fail.
func FuzzHLL(f *testing.F) {
	f.Add([]byte(emptySparse), []byte("a,b,c"), uint16(3000))
	f.Add([]byte{}, []byte("a"), uint16(3000))
	f.Add([]byte("\x7f\xfe"), []byte("a,b,c,d,e,f"), uint16(20))
	f.Add([]byte("\x40\xfe\x7f"), []byte("x,y,z,,w"), uint16(3000))
	f.Add([]byte("\x7f\xfe\x83"), []byte("q"), uint16(0))
	f.Fuzz(func(t *testing.T, v, elems []byte, maxBytes uint16) {
		if !Valid(v) {
			v = append(header(Sparse), v...)
			if !Valid(v) {
				return
			}
		}
		// Give the value spare capacity holding a terminator byte, as a
		// stored value may have.
		orig := append([]byte(nil), v...)
		v = append(v, 0x7f)[:len(v)]
		// clone copies v with its terminator.
		clone := func() []byte {
			c := make([]byte, len(v)+1)
			copy(c, v[:len(v)+1])
			return c[:len(v)]
		}
		var list [][]byte
		if len(elems) > 0 {
			list = bytes.Split(elems, []byte(","))
		}

		card, cerr := Count(v)
		_ = Decode(v)
		var r Regs
		merr := r.Merge(v)
		d, derr := ToDense(clone())
		if cerr == nil {
			if merr != nil || derr != nil {
				t.Fatalf("Count decodes, Merge %v, ToDense %v", merr, derr)
			}
			if dc, _ := Count(d); dc != card {
				t.Fatalf("dense count %d, sparse %d", dc, card)
			}
			if r.Count() != card && IsSparse(orig) {
				t.Fatalf("merged count %d, count %d", r.Count(), card)
			}
		}
		out, _, aerr := Add(clone(), list, int(maxBytes)%5000)
		if cerr == nil && aerr != nil {
			t.Fatalf("Add failed on a body that decodes: %v", aerr)
		}
		_, _ = Count(out)
		_ = Decode(out)
		if merr == nil {
			dst, err := Store(clone(), &r, !IsSparse(v), int(maxBytes)%5000)
			if err == nil {
				var got Regs
				if got.Merge(dst) == nil && got != r {
					t.Fatal("Store lost registers")
				}
			}
		}
	})
}
