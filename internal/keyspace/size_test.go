package keyspace

import (
	"testing"
	"unsafe"
)

// Every key costs one Entry: keep it in the 64-byte allocation class.
func TestEntryFitsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 64 {
		t.Fatalf("Entry is %d bytes, more than the 64-byte size class", n)
	}
}
