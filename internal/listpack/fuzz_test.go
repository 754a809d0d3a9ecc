package listpack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzWalk: Walk never panics on any input, agrees with Decode, and on a
// listpack it accepts, refuses every truncation: cut short as is, or cut
// and given a new EOF and size (the count left unknown), where only a cut
// between entries leaves a listpack, holding the entries before the cut.
func FuzzWalk(f *testing.F) {
	f.Add(Encode(nil))
	f.Add(Encode([][]byte{[]byte("a"), []byte("-1"), []byte("5000"), []byte("70000"), []byte("9000000000")}))
	f.Add(Encode([][]byte{bytes.Repeat([]byte{'x'}, 100), bytes.Repeat([]byte{'y'}, 200)}))
	f.Add([]byte{7, 0, 0, 0, 0, 0, 0xFF})
	f.Fuzz(checkWalk)
}

func checkWalk(t *testing.T, lp []byte) {
	var elems [][]byte
	var ends []int // offset after each entry
	p := HeaderSize
	err := Walk(lp, func(s []byte, v int64, isInt bool) error {
		elems = append(elems, s)
		p += entrySize(lp, p)
		ends = append(ends, p)
		return nil
	})
	dec, derr := Decode(lp)
	if (err == nil) != (derr == nil) || err == nil && len(dec) != len(elems) {
		t.Fatalf("Walk %v, Decode %v (%d elements, %d)", err, derr, len(dec), len(elems))
	}
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v", err)
		}
		return
	}
	if p != len(lp)-1 {
		t.Fatalf("entries end at %d, EOF at %d", p, len(lp)-1)
	}
	for k := range len(lp) {
		if Walk(lp[:k], func([]byte, int64, bool) error { return nil }) == nil {
			t.Fatalf("accepted the first %d of %d bytes", k, len(lp))
		}
	}
	boundary := map[int]int{HeaderSize: 0}
	for i, e := range ends {
		boundary[e] = i + 1
	}
	// Every cut of a small listpack; of a large one (quadratic to
	// check whole), the cuts at and around each entry's edges.
	cuts := map[int]bool{}
	for k := HeaderSize; k < len(lp)-1; k++ {
		if len(lp) <= 512 {
			cuts[k] = true
		}
	}
	for e := range boundary {
		for d := -3; d <= 3; d++ {
			if k := e + d; k >= HeaderSize && k < len(lp)-1 {
				cuts[k] = true
			}
		}
	}
	cut := make([]byte, 0, len(lp))
	for k := range cuts {
		cut = append(append(cut[:0], lp[:k]...), EOF)
		binary.LittleEndian.PutUint32(cut, uint32(len(cut)))
		binary.LittleEndian.PutUint16(cut[4:], NumeleUnknown)
		n := 0
		err := Walk(cut, func([]byte, int64, bool) error { n++; return nil })
		want, whole := boundary[k]
		if whole && (err != nil || n != want) {
			t.Fatalf("cut after entry %d (byte %d): %v, %d entries", want, k, err, n)
		}
		if !whole && err == nil {
			t.Fatalf("cut inside an entry (byte %d of %d) accepted", k, len(lp))
		}
	}
}

// entrySize is the bytes of the entry at p, read from its encoding byte
// alone: the fuzzer's inputs may hold integers wider than they need, whose
// entries re-encoding would not measure.
func entrySize(lp []byte, p int) int {
	b := lp[p]
	var n int
	switch {
	case b < 0x80:
		n = 1
	case b < 0xC0:
		n = 1 + int(b&0x3f)
	case b < 0xE0:
		n = 2
	case b < 0xF0:
		n = 2 + (int(b&0x0f)<<8 | int(lp[p+1]))
	case b == 0xF0:
		n = 5 + int(binary.LittleEndian.Uint32(lp[p+1:]))
	default:
		n = 1 + [...]int{2, 3, 4, 8}[b-0xF1]
	}
	return n + BacklenSize(n)
}
