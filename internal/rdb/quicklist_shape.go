package rdb

import "github.com/limitkv/limitkv/internal/listpack"

// QuicklistShape is the node structure of the quicklist Redis 7.0 builds
// for list by pushing its elements at the tail with limits l (the split
// the writer uses too): the number of nodes and the sum of their sizes
// (a packed node's listpack bytes, a plain node's element), which DEBUG
// OBJECT reports as ql_nodes and ql_uncompressed_size.
func QuicklistShape(list [][]byte, l Limits) (nodes, size int) {
	l = l.withDefaults()
	var cur *listpack.Builder
	flush := func() {
		if cur != nil {
			size += cur.Size()
		}
	}
	for _, el := range list {
		if len(el) >= l.ListPackedThreshold {
			flush()
			cur = nil
			nodes++
			size += len(el)
			continue
		}
		if cur == nil || !quicklistAllowInsert(cur.Size(), cur.Len(), len(el), l.ListMaxListpackSize) {
			flush()
			cur = listpack.NewBuilder()
			nodes++
		}
		cur.AppendString(el)
	}
	flush()
	return nodes, size
}
