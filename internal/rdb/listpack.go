package rdb

import "github.com/limitkv/limitkv/internal/listpack"

// Listpacks (small hashes, sorted sets, list nodes) are encoded and
// checked by package listpack, which streams share: these keep the
// package's API and its callers' names.

// EncodeListpack returns the listpack Redis builds by appending elems in
// order (integer-looking strings become integer entries).
func EncodeListpack(elems [][]byte) []byte { return listpack.Encode(elems) }

// DecodeListpack validates lp as Redis's deep integrity check does and
// returns its elements as strings (integers in decimal).
func DecodeListpack(lp []byte) ([][]byte, error) { return listpack.Decode(lp) }
