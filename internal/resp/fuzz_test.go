package resp

import (
	"testing"
)

// fuzzLimits picks the limits of a fuzz run: the defaults, or small ones so
// that every limit is reachable by small inputs.
func fuzzLimits(mode uint8) Limits {
	switch mode % 5 {
	case 1:
		return Limits{MaxMultibulkLen: 3, MaxUnauthBulkLen: 8}
	case 2:
		return Limits{MaxBulkLen: 16, MaxQueryBuf: 64}
	case 3:
		return Limits{MaxQueryBuf: 20}
	case 4:
		return Limits{MaxBulkLen: 5, MaxQueryBuf: 1000, MaxMultibulkLen: 2, MaxUnauthBulkLen: 3}
	}
	return Limits{}
}

// FuzzReader feeds any bytes to the reader, whole and in pieces of a fuzzed
// size with a fuzzed buffer size, and checks that it never panics, that both
// deliveries agree with each other and with the whole-input reference model
// of Redis (refParse), that the limits hold, that the buffer never outgrows
// twice what arrived, and that the commands re-encoded as multibulk parse
// back to themselves.
func FuzzReader(f *testing.F) {
	for _, tc := range allCases() {
		if len(tc.in) < 1024 {
			f.Add([]byte(tc.in), uint8(0), uint8(0))
		}
	}
	f.Add([]byte(mb("AUTH", "x")+mb("RPUSH", "k", "1", "2", "3")), uint8(1), uint8(1))
	f.Add([]byte(mb("SET", "k", "0123456789abcdefg")), uint8(2), uint8(2))
	f.Add([]byte("GET \"k\\x41\" 'a b'\r\n"+mb("SET", "k", "v")), uint8(3), uint8(3))
	f.Add([]byte(mb("SET", "keyname", "v")+"*1\r\n$2\r\nab"), uint8(4), uint8(4))

	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, mode uint8) {
		lim := fuzzLimits(mode)
		maxBulk, qb := lim.MaxBulkLen, lim.MaxQueryBuf
		if maxBulk <= 0 {
			maxBulk = DefaultMaxBulkLen
		}
		if qb <= 0 {
			qb = DefaultMaxQueryBuf
		}

		whole := parseWith(t, &chunkReader{data: data}, 0, lim)

		size := 16 + int(chunk%64)
		r := NewReader(&chunkReader{data: data, chunk: 1 + int(chunk)%23}, size)
		pieces := drain(t, r, lim)
		if c := cap(r.buf); c > max(size, 2*len(data)) {
			t.Fatalf("buffer of %d bytes for %d bytes of input", c, len(data))
		}

		// The 64 KB rules depend on how the bytes arrive (in Redis too),
		// unless the query buffer limit, checked first, is below them.
		if len(data) <= InlineMaxSize || qb <= InlineMaxSize {
			ref := refParse(data, lim)
			if !sameResult(whole, ref) {
				t.Fatalf("whole vs reference:\n got %v\nwant %v", whole, ref)
			}
			if !sameResult(pieces, ref) {
				t.Fatalf("pieces vs reference:\n got %v\nwant %v", pieces, ref)
			}
		}

		for _, cmd := range whole.cmds {
			if len(cmd) == 0 {
				t.Fatalf("empty command")
			}
			for _, a := range cmd {
				if int64(len(a)) > max(maxBulk, qb) {
					t.Fatalf("argument of %d bytes beyond the limits", len(a))
				}
			}
		}

		// Re-encode and parse back.
		if len(whole.cmds) > 0 {
			enc := encode(whole.cmds)
			back := parseWith(t, &chunkReader{data: enc, chunk: 1 + int(mode)%97}, 16, Limits{})
			want := result{cmds: whole.cmds, err: wantErr(errEOF)}
			if !sameResult(back, want) {
				t.Fatalf("re-encoded:\n got %v\nwant %v", back, want)
			}
		}
	})
}
