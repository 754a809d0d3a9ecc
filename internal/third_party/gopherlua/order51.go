package lua

import (
	"math"
	"unsafe"
)

// Lua 5.1's table layout, kept beside gopher-lua's storage so that what
// depends on it comes out as in Redis's Lua: the order of next/pairs (and
// so of cjson.encode's objects and cmsgpack's maps) and the border # finds
// in a table with holes. Upstream iterates in insertion order and measures
// # on its own array.
//
// order51 mirrors ltable.c: an array part of sizearray slots and a hash
// part of 2^k nodes, each a key with a collision chain, filled by newkey's
// main-position rule and its lastfree pointer, and rebuilt by rehash with
// computesizes' array sizing. It holds keys only: values stay in the
// LTable's own maps, and a key whose value is nil is the "dead" entry Lua
// keeps in its node until the next rehash. Hashes are Lua's: strings as
// Redis's lstring.c (every character hashed), numbers by their two 32-bit
// halves, booleans as 0/1, other objects by address (as in Redis, where
// their order is the allocator's).
//
// One difference stays: Lua's collector turns the key of a dead entry into
// a DEADKEY, after which setting that key again takes a new node; here the
// key stays, as it does in Lua until a collection runs.

type node51 struct {
	key  LValue // nil: a free node
	next int32  // collision chain, -1 at its end
}

type order51 struct {
	sizearray int
	nodes     []node51 // nil: Lua's dummynode (no hash part)
	lastfree  int
}

// find is the node holding key, found as Lua finds it: along the chain
// from its main position; -1 if none.
func (o *order51) find(key LValue) int {
	if o.nodes == nil {
		return -1
	}
	for i := o.mainPos(key); i >= 0; i = int(o.nodes[i].next) {
		if o.nodes[i].key == key {
			return i
		}
	}
	return -1
}

// maxABits and maxASize are ltable.c's MAXBITS and MAXASIZE.
const (
	maxABits = 26
	maxASize = 1 << maxABits
)

// fb2Int is luaO_fb2int, the size a table constructor's operand encodes.
func fb2Int(x int) int {
	e := (x >> 3) & 31
	if e == 0 {
		return x
	}
	return ((x & 7) + 8) << (e - 1)
}

// o51 is the table's layout, made on first use with the sizes the table
// was created with (luaH_new).
func (tb *LTable) o51() *order51 {
	if tb.order == nil {
		o := &order51{}
		o.sizearray = int(tb.pre51[0])
		o.setNodes(int(tb.pre51[1]))
		tb.order = o
	}
	return tb.order
}

func ceilLog2(x uint) int {
	l := 0
	for x--; x > 0; x >>= 1 {
		l++
	}
	return l
}

// setNodes is setnodevector.
func (o *order51) setNodes(size int) {
	if size == 0 {
		o.nodes, o.lastfree = nil, 0
		return
	}
	size = 1 << ceilLog2(uint(size))
	o.nodes = make([]node51, size)
	for i := range o.nodes {
		o.nodes[i].next = -1
	}
	o.lastfree = size
}

// strHash51 is Redis's luaS_newlstr hash: seeded with the length, every
// character from the last.
func strHash51(s string) uint32 {
	h := uint32(len(s))
	for i := len(s); i > 0; i-- {
		h ^= (h << 5) + (h >> 2) + uint32(s[i-1])
	}
	return h
}

// mainPos is mainposition.
func (o *order51) mainPos(key LValue) int {
	size := len(o.nodes)
	if size == 0 {
		return 0
	}
	mod := uint32((size - 1) | 1)
	switch k := key.(type) {
	case LString:
		return int(strHash51(string(k)) & uint32(size-1))
	case LNumber:
		if k == 0 {
			return 0
		}
		b := math.Float64bits(float64(k))
		return int((uint32(b) + uint32(b>>32)) % mod)
	case LBool:
		if k {
			return 1 & (size - 1)
		}
		return 0
	}
	return int(uint32(objAddr(key)) % mod)
}

// objAddr is the address of a collectable value (its pointer word).
func objAddr(v LValue) uintptr {
	type iface struct{ typ, data unsafe.Pointer }
	return uintptr((*iface)(unsafe.Pointer(&v)).data)
}

// arrayIndex51 is arrayindex: the key as an int, or -1.
func arrayIndex51(key LValue) int {
	if n, ok := key.(LNumber); ok {
		f := float64(n)
		if f >= math.MinInt32 && f <= math.MaxInt32 {
			if k := int(f); float64(k) == f {
				return k
			}
		}
	}
	return -1
}

// has reports whether key has a non-nil value in the table's storage.
func (tb *LTable) has(key LValue) bool { return tb.RawGet(key) != LNil }

// note51 is luaH_set's part before the value is stored: the key gets its
// slot (an array slot, its node, or a new node), even when the value is
// nil, as in Lua. Call it before the storage changes.
func (tb *LTable) note51(key LValue) {
	o := tb.o51()
	if k := arrayIndex51(key); k >= 1 && k <= o.sizearray {
		return
	}
	if o.find(key) >= 0 {
		return
	}
	tb.newKey51(key)
}

// getFreePos is getfreepos.
func (o *order51) getFreePos() int {
	for o.lastfree > 0 {
		o.lastfree--
		if o.nodes[o.lastfree].key == nil {
			return o.lastfree
		}
	}
	return -1
}

// newKey51 is newkey.
func (tb *LTable) newKey51(key LValue) {
	o := tb.order
	if o.nodes == nil {
		tb.rehash51(key)
		tb.note51(key)
		return
	}
	mp := o.mainPos(key)
	if k := o.nodes[mp].key; k != nil && tb.has(k) {
		n := o.getFreePos()
		if n < 0 {
			tb.rehash51(key)
			tb.note51(key)
			return
		}
		othern := o.mainPos(k)
		if othern != mp {
			// The colliding node is out of its main position: it moves
			// to the free node, and the new key takes its place.
			for int(o.nodes[othern].next) != mp {
				othern = int(o.nodes[othern].next)
			}
			o.nodes[othern].next = int32(n)
			o.nodes[n] = o.nodes[mp]
			o.nodes[mp] = node51{next: -1}
		} else {
			o.nodes[n].next = o.nodes[mp].next
			o.nodes[mp].next = int32(n)
			mp = n
		}
	}
	o.nodes[mp].key = key // over a dead entry's key, if mp held one
}

// countInt is countint.
func countInt(key LValue, nums *[maxABits + 1]int) int {
	if k := arrayIndex51(key); k > 0 && k <= maxASize {
		nums[ceilLog2(uint(k))]++
		return 1
	}
	return 0
}

// rehash51 is rehash: new sizes from the keys with values and ek.
func (tb *LTable) rehash51(ek LValue) {
	o := tb.order
	var nums [maxABits + 1]int
	nasize := 0
	// numusearray
	i := 1
	for lg, ttlg := 0, 1; lg <= maxABits; lg, ttlg = lg+1, ttlg*2 {
		lim := ttlg
		if lim > o.sizearray {
			lim = o.sizearray
			if i > lim {
				break
			}
		}
		lc := 0
		for ; i <= lim; i++ {
			if tb.has(LNumber(i)) {
				lc++
			}
		}
		nums[lg] += lc
		nasize += lc
	}
	totaluse := nasize
	// numusehash
	for j := len(o.nodes) - 1; j >= 0; j-- {
		if k := o.nodes[j].key; k != nil && tb.has(k) {
			nasize += countInt(k, &nums)
			totaluse++
		}
	}
	nasize += countInt(ek, &nums)
	totaluse++
	// computesizes
	a, na, n := 0, 0, 0
	for i, twotoi := 0, 1; twotoi/2 < nasize; i, twotoi = i+1, twotoi*2 {
		if nums[i] > 0 {
			a += nums[i]
			if a > twotoi/2 {
				n, na = twotoi, a
			}
		}
		if a == nasize {
			break
		}
	}
	tb.resize51(n, totaluse-na)
}

// resize51 is resize: the array part to nasize, a new hash part for
// nhsize keys, and the keys with values put back, the old nodes last to
// first.
func (tb *LTable) resize51(nasize, nhsize int) {
	o := tb.order
	oldasize := o.sizearray
	old := o.nodes
	if nasize > oldasize {
		o.sizearray = nasize
	}
	o.setNodes(nhsize)
	if nasize < oldasize {
		o.sizearray = nasize
		for i := nasize; i < oldasize; i++ {
			if tb.has(LNumber(i + 1)) {
				tb.note51(LNumber(i + 1))
			}
		}
	}
	for i := len(old) - 1; i >= 0; i-- {
		if k := old[i].key; k != nil && tb.has(k) {
			tb.note51(k)
		}
	}
}

// resizeArray51 is luaH_resizearray, which OP_SETLIST does before it
// stores a constructor's items.
func (tb *LTable) resizeArray51(nasize int) {
	o := tb.o51()
	if nasize <= o.sizearray {
		return
	}
	nh := 0
	if o.nodes != nil {
		nh = len(o.nodes)
	}
	tb.resize51(nasize, nh)
}

// next51 is luaH_next; ok is false for a key not in the table.
func (tb *LTable) next51(key LValue) (k, v LValue, ok bool) {
	o := tb.o51()
	i := -1
	if key != LNil {
		if a := arrayIndex51(key); a >= 1 && a <= o.sizearray {
			i = a - 1
		} else if p := o.find(key); p >= 0 {
			i = p + o.sizearray
		} else {
			return LNil, LNil, false
		}
	}
	for i++; i < o.sizearray; i++ {
		if v := tb.RawGet(LNumber(i + 1)); v != LNil {
			return LNumber(i + 1), v, true
		}
	}
	for i -= o.sizearray; i < len(o.nodes); i++ {
		if k := o.nodes[i].key; k != nil {
			if v := tb.RawGet(k); v != LNil {
				return k, v, true
			}
		}
	}
	return LNil, LNil, true
}

// getn51 is luaH_getn, the length operator's border.
func (tb *LTable) getn51() int {
	if tb.order == nil && tb.pre51 == [2]int32{} {
		return 0
	}
	o := tb.o51()
	j := o.sizearray
	if j > 0 && !tb.has(LNumber(j)) {
		i := 0
		for j-i > 1 {
			m := (i + j) / 2
			if !tb.has(LNumber(m)) {
				j = m
			} else {
				i = m
			}
		}
		return i
	}
	if o.nodes == nil {
		return j
	}
	// unbound_search
	i := j
	j++
	for tb.has(LNumber(j)) {
		i = j
		j *= 2
		if j > math.MaxInt32 {
			i = 1
			for tb.has(LNumber(i)) {
				i++
			}
			return i - 1
		}
	}
	for j-i > 1 {
		m := (i + j) / 2
		if !tb.has(LNumber(m)) {
			j = m
		} else {
			i = m
		}
	}
	return i
}
