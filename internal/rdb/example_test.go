package rdb_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/limitkv/limitkv/internal/rdb"
)

// A SAVE writes every database's keys; a load reads them back one by one.
func Example() {
	var file bytes.Buffer
	w, err := rdb.NewWriter(&file, rdb.WriterOptions{})
	if err != nil {
		panic(err)
	}
	_ = w.SelectDB(0, 2, 1)
	_ = w.WriteEntry(&rdb.Entry{Key: []byte("greeting"), Value: rdb.Value{Type: rdb.TypeString, String: []byte("hello")}})
	_ = w.WriteEntry(&rdb.Entry{
		Key:    []byte("scores"),
		Value:  rdb.Value{Type: rdb.TypeZSet, ZSet: []rdb.ZMember{{Member: []byte("ann"), Score: 3}}},
		Expire: 4102444800000, HasExpire: true, // Unix ms
	})
	if err := w.Close(); err != nil {
		panic(err)
	}

	r, err := rdb.NewReader(&file, nil)
	if err != nil {
		panic(err)
	}
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err) // wraps rdb.ErrCorrupt, ErrChecksum, ErrUnsupported...
		}
		fmt.Println(e.DB, string(e.Key), e.Value.Type, e.Value.Encoding, e.HasExpire)
	}
	// Output:
	// 0 greeting string raw false
	// 0 scores zset listpack true
}

// DUMP and RESTORE.
func ExampleDecodeDump() {
	payload, _ := rdb.EncodeDump(&rdb.Value{Type: rdb.TypeList, List: [][]byte{[]byte("a"), []byte("b")}}, rdb.DumpOptions{})
	v, err := rdb.DecodeDump(payload, nil)
	fmt.Println(len(v.List), err)
	payload[0] ^= 1
	_, err = rdb.DecodeDump(payload, nil)
	fmt.Println(errors.Is(err, rdb.ErrBadDumpPayload))
	// Output:
	// 2 <nil>
	// true
}
