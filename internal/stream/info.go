package stream

// Info holds the figures XINFO STREAM reports before its entries and
// groups.
type Info struct {
	Length          uint64
	RadixTreeKeys   int // nodes
	RadixTreeNodes  int // rax nodes of the node keys, see RaxNodes
	LastGeneratedID ID
	MaxDeletedID    ID
	EntriesAdded    uint64
	RecordedFirstID ID
	Groups          int
}

// Info returns XINFO STREAM's figures.
func (s *Stream) Info() Info {
	return Info{
		Length:          s.length,
		RadixTreeKeys:   len(s.nodes),
		RadixTreeNodes:  s.RaxNodes(),
		LastGeneratedID: s.lastID,
		MaxDeletedID:    s.maxDeleted,
		EntriesAdded:    s.entriesAdded,
		RecordedFirstID: s.firstID,
		Groups:          s.GroupCount(),
	}
}

// RaxNodes is the node count of the radix tree Redis would hold for the
// node keys (16-byte big-endian master IDs): "radix-tree-nodes".
//
// rax keeps its tree compressed: a chain of single-child nodes is one
// compressed node, a byte where keys diverge is a node with a child per
// byte value, each key ends in an empty leaf node, and the empty tree is
// its head node alone. Redis's insertions build exactly that shape, and
// removals re-merge what they leave with a single child, so the count is a
// function of the key set; the random test against redis-server checks it
// after insertions, XDEL node removals and trims.
func (s *Stream) RaxNodes() int {
	if len(s.nodes) == 0 {
		return 1
	}
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		keys[i] = n.master.Key()
	}
	return raxCount(keys, 0)
}

// raxCount counts the nodes of the compressed trie of keys (sorted,
// distinct, sharing their first depth bytes) below depth.
func raxCount(keys [][16]byte, depth int) int {
	if depth == 16 {
		return 1
	}
	// the bytes all keys share from depth make one compressed node
	l := depth
	for l < 16 && keys[0][l] == keys[len(keys)-1][l] {
		l++ // sorted: first and last agreeing means all agree
	}
	if l > depth {
		return 1 + raxCount(keys, l)
	}
	total := 1
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][depth] == keys[i][depth] {
			j++
		}
		total += raxCount(keys[i:j], depth+1)
		i = j
	}
	return total
}
