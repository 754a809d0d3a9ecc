package rdb

import (
	"errors"
	"sync"
)

// LZF, the compressor Redis uses for strings in RDB files (lzf_c.c/lzf_d.c
// with HLOG 16 and VERY_FAST). The compressor follows the same match-finding
// rules, so for the same input it normally produces the same bytes Redis does
// (Redis leaves its hash table uninitialised, so rarely it finds an extra
// match; both outputs decode to the same data).

const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
)

func lzfIdx(h uint32) uint32 {
	return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1)
}

// lzfCompress compresses in into at most outLen bytes. It returns nil when
// the result would not fit (the data does not compress enough).
func lzfCompress(in []byte, outLen int) []byte { return lzfCompressTo(nil, in, outLen) }

// lzfCompressTo is lzfCompress writing into dst's memory when it has room
// (the encoder reuses one buffer for all its strings).
func lzfCompressTo(dst, in []byte, outLen int) []byte {
	inLen := len(in)
	if inLen == 0 || outLen <= 0 {
		return nil
	}
	st := lzfStates.Get().(*lzfState)
	defer lzfStates.Put(st)
	st.gen++
	if st.gen == 0 { // wrapped: forget every old entry
		clear(st.tab[:])
		st.gen = 1
	}
	gen := uint64(st.gen) << 32
	htab := &st.tab
	// lookup returns the position stored for slot in this call, or -1.
	lookup := func(slot uint32) int {
		v := htab[slot]
		if v&^0xffffffff != gen {
			return -1
		}
		return int(uint32(v)) - 1
	}
	set := func(slot uint32, pos int) { htab[slot] = gen | uint64(pos+1) }
	var out []byte
	if cap(dst) >= outLen {
		out = dst[:outLen]
	} else {
		out = make([]byte, outLen)
	}
	ip, op := 0, 0
	lit := 0
	op++ // start run
	hval := uint32(in[0])<<8 | uint32(at(in, 1))
	for ip < inLen-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := lzfIdx(hval)
		ref := lookup(slot)
		set(slot, ip)
		var off int
		if ref >= 0 && ref < ip {
			off = ip - ref - 1
		} else {
			off = lzfMaxOff
		}
		if off < lzfMaxOff && ref > 0 && in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			l := 2
			maxlen := inLen - ip - l
			if maxlen > lzfMaxRef {
				maxlen = lzfMaxRef
			}
			if op+3+1 >= outLen {
				nl := 0
				if lit == 0 {
					nl = 1
				}
				if op-nl+3+1 >= outLen {
					return nil
				}
			}
			out[op-lit-1] = byte(lit - 1)
			if lit == 0 {
				op--
			}
			matched := false
			if maxlen > 16 {
				for k := 0; k < 16; k++ {
					l++
					if in[ref+l] != in[ip+l] {
						matched = true
						break
					}
				}
			}
			if !matched {
				for {
					l++
					if !(l < maxlen && in[ref+l] == in[ip+l]) {
						break
					}
				}
			}
			l -= 2
			ip++
			if l < 7 {
				out[op] = byte(off>>8) + byte(l<<5)
				op++
			} else {
				out[op] = byte(off>>8) + 7<<5
				out[op+1] = byte(l - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++
			ip += l + 1
			if ip >= inLen-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			set(lzfIdx(hval), ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			set(lzfIdx(hval), ip)
			ip++
		} else {
			if op >= outLen {
				return nil
			}
			lit++
			out[op] = in[ip]
			op++
			ip++
			if lit == lzfMaxLit {
				out[op-lit-1] = byte(lit - 1)
				lit = 0
				op++
			}
		}
	}
	if op+3 > outLen {
		return nil
	}
	for ip < inLen {
		if op >= outLen {
			return nil
		}
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			if op >= outLen {
				// The C code may point one past its buffer here; the run
				// byte would never be written, so this is only a bound.
				return nil
			}
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	if lit == 0 {
		op--
	}
	return out[:op]
}

// lzfState is the compressor's hash table, reused between calls: entries
// carry the generation (call) that wrote them, so a new call starts with an
// empty table without clearing 512 KiB.
type lzfState struct {
	tab [lzfHSize]uint64
	gen uint32
}

var lzfStates = sync.Pool{New: func() any { return new(lzfState) }}

func at(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

var errLZF = errors.New("rdb: invalid LZF compressed string")

// lzfDecompress expands in into exactly outLen bytes.
func lzfDecompress(in []byte, outLen int) ([]byte, error) {
	out := make([]byte, outLen)
	ip, op := 0, 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 {
			ctrl++
			if op+ctrl > outLen || ip+ctrl > len(in) {
				return nil, errLZF
			}
			copy(out[op:], in[ip:ip+ctrl])
			op += ctrl
			ip += ctrl
			continue
		}
		l := ctrl >> 5
		ref := op - (ctrl&0x1f)<<8 - 1
		if ip >= len(in) {
			return nil, errLZF
		}
		if l == 7 {
			l += int(in[ip])
			ip++
			if ip >= len(in) {
				return nil, errLZF
			}
		}
		ref -= int(in[ip])
		ip++
		if op+l+2 > outLen || ref < 0 {
			return nil, errLZF
		}
		l += 2
		for k := 0; k < l; k++ { // overlapping copies repeat bytes
			out[op] = out[ref]
			op++
			ref++
		}
	}
	if op != outLen {
		return nil, errLZF
	}
	return out, nil
}
