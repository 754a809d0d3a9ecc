package rdb

// CRC-64 as Redis computes it (crc64.c): the Jones polynomial, reflected
// input and output, initial value 0 and no final inversion. hash/crc64 in the
// standard library inverts the register before and after, so its results
// differ; this package keeps its own tables.

const crc64JonesReflected = 0x95ac9329ac4bc9b5

var crcTables = func() *[8][256]uint64 {
	t := new([8][256]uint64)
	for i := 0; i < 256; i++ {
		c := uint64(i)
		for k := 0; k < 8; k++ {
			if c&1 == 1 {
				c = c>>1 ^ crc64JonesReflected
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := 0; i < 256; i++ {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][i] = c
		}
	}
	return t
}()

// CRC64 continues the Redis CRC-64 crc over p. Start with crc 0.
func CRC64(crc uint64, p []byte) uint64 {
	t := crcTables
	for len(p) >= 8 {
		crc ^= uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
			uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24&0xff] ^
			t[3][crc>>32&0xff] ^ t[2][crc>>40&0xff] ^ t[1][crc>>48&0xff] ^ t[0][crc>>56]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return crc
}
