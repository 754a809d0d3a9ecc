package hll

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// SelfTest is PFSELFTEST: it checks that dense registers read back what
// was written without disturbing their neighbours, then adds ten million
// distinct elements to a dense and a sparse HLL side by side, checking at
// each power of ten that the sparse one is still sparse while it should
// be (under maxBytes/2 elements), that both count the same, and that the
// error is within six standard errors. The error texts are Redis's.
func SelfTest(maxBytes int, rng *rand.Rand) error {
	dense := make([]byte, DenseSize)
	r := dense[HeaderSize:]
	var want [Registers]uint8
	for range 1000 {
		var bits uint64
		for i := range want {
			if i%10 == 0 {
				bits = rng.Uint64()
			}
			v := uint8(bits & regMax)
			bits >>= regBits
			want[i] = v
			setReg(r, i, v)
		}
		for i := range want {
			if got := getReg(r, i); got != want[i] {
				return fmt.Errorf("TESTFAILED Register %d should be %d but is %d", i, want[i], got)
			}
		}
	}

	clear(r)
	copy(dense, "HYLL")
	sparse := load(New())
	relerr := 1.04 / math.Sqrt(Registers)
	checkpoint := int64(1)
	seed := rng.Uint64()
	var ele [8]byte
	for j := int64(1); j <= 10_000_000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		i, c := patLen(ele[:])
		denseSet(dense, i, c)
		sparse, _, _ = sparse.set(i, c, maxBytes) // a body built here is never corrupt
		if j != checkpoint {
			continue
		}
		sv := sparse.bytes()
		if j < int64(maxBytes/2) && !IsSparse(sv) {
			return fmt.Errorf("TESTFAILED sparse encoding not used")
		}
		dc, _ := Count(dense)
		sc, _ := Count(sv)
		if dc != sc {
			return fmt.Errorf("TESTFAILED dense/sparse disagree")
		}
		abserr := checkpoint - int64(dc)
		maxerr := uint64(math.Ceil(relerr * 6 * float64(checkpoint)))
		if j == 10 {
			maxerr = 1
		}
		if abserr < 0 {
			abserr = -abserr
		}
		if abserr > int64(maxerr) {
			return fmt.Errorf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, abserr)
		}
		checkpoint *= 10
	}
	return nil
}
