package stream

import "math/bits"

// MemoryUsage approximates what MEMORY USAGE reports for a stream
// (objectComputeSize in object.c, with samples as its SAMPLES, 5 by
// default; 0 means all nodes, as MEMORY USAGE's SAMPLES 0), to be added to the key's own overhead the
// way the caller adds it for other types. Redis sums:
//
//   - the robj and the stream struct (16 + 80 bytes);
//   - for the node tree streamRadixTreeMemoryUsage: 16 bytes per key plus
//     244 per rax node (sizeof(raxNode) plus a fixed 30 words; its
//     sizeof(rax) term is overwritten in 7.0.15, so it is not counted);
//   - the listpacks' allocation sizes (zmalloc_size): the first samples
//     nodes measured, their average times all nodes but the last, plus the
//     last one measured;
//   - per group 40 bytes, its PEL's tree as above and 24 per NACK; per
//     consumer 24 bytes, its name and its PEL's tree.
//
// The allocation size of a listpack is modelled as jemalloc's size class
// of its bytes, except for the node being filled, which Redis allocates
// with room for stream-node-max-bytes (at most 4096) up front and only
// shrinks when it moves to a new node: the limit in force when that node
// was created (node.prealloc), not the current one. It matches redis-server exactly
// for every scenario of the rdb package's tests (XDEL, trims and groups
// included, and after RESTORE). What it cannot see: a listpack whose
// counters shrank in width keeps its allocation in Redis if jemalloc
// resizes it in place, which this model assumes never happens.
func (s *Stream) MemoryUsage(samples int) int64 {
	size := int64(16 + 80)
	size += raxMemory(len(s.nodes), s.RaxNodes())
	if samples <= 0 {
		samples = len(s.nodes)
	}
	alloc := func(i int) int64 {
		n := s.nodes[i]
		b := n.size()
		if i == len(s.nodes)-1 {
			b = max(b, n.prealloc)
		}
		return int64(jemallocSize(b))
	}
	var lpsize int64
	k := 0
	for ; k < samples && k < len(s.nodes); k++ {
		lpsize += alloc(k)
	}
	if len(s.nodes) <= k {
		size += lpsize
	} else {
		size += lpsize / int64(k) * int64(len(s.nodes)-1)
		size += alloc(len(s.nodes) - 1)
	}
	for _, g := range s.Groups() {
		size += 40 + raxMemory(g.pel.Len(), pelRaxNodes(g.pel.Len(), g.Pending)) + 24*int64(g.pel.Len())
		for _, c := range g.Consumers() {
			size += 24 + int64(len(c.Name)) + raxMemory(c.pel.Len(), pelRaxNodes(c.pel.Len(), c.Pending))
		}
	}
	return size
}

// streamPrealloc is STREAM_LISTPACK_MAX_PRE_ALLOCATE.
const streamPrealloc = 4096

func raxMemory(keys, nodes int) int64 { return int64(keys)*16 + int64(nodes)*(4+8*30) }

func pelRaxNodes(n int, each func(ID, func(ID, *NACK) bool)) int {
	if n == 0 {
		return 1
	}
	keys := make([][16]byte, 0, n)
	each(ID{}, func(id ID, _ *NACK) bool { keys = append(keys, id.Key()); return true })
	return raxCount(keys, 0)
}

// jemallocSize is the size class jemalloc (Redis's allocator) serves a
// request of n bytes from.
func jemallocSize(n int) int {
	switch {
	case n <= 8:
		return 8
	case n <= 128:
		return (n + 15) &^ 15
	}
	k := bits.Len(uint(n-1)) - 1 // 2^k < n <= 2^(k+1)
	step := 1 << (k - 2)
	return (n + step - 1) &^ (step - 1)
}
