package aof

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/stream"
)

// cmdsOf reads back what the encoder wrote, one command a line.
func cmdsOf(t *testing.T, b []byte) []string {
	t.Helper()
	rd := NewReader(bufio.NewReader(bytes.NewReader(b)), 0)
	var out []string
	for {
		args, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if rd.Offset() != int64(len(b)) {
				t.Fatalf("read %d of %d bytes", rd.Offset(), len(b))
			}
			return out
		}
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		out = append(out, string(bytes.Join(args, []byte(" "))))
	}
}

func strs(prefix string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(prefix + strconv.Itoa(i))
	}
	return out
}

func testStream(t *testing.T) *stream.Stream {
	s := stream.New()
	for _, id := range []stream.ID{{Ms: 1, Seq: 1}, {Ms: 2, Seq: 0}} {
		if _, err := s.Add(stream.AddID{ID: id}, [][]byte{[]byte("f"), []byte("v")}, 0, stream.DefaultLimits); err != nil {
			t.Fatal(err)
		}
	}
	s.Delete(stream.ID{Ms: 1, Seq: 1})
	g, err := s.CreateGroup("g", stream.ID{Ms: 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	g.CreateConsumer("idle", 5)
	if ids := s.Claim(g, "busy", stream.ClaimArgs{IDs: []stream.ID{{Ms: 2}}, Force: true, JustID: true, DeliveryTime: 1000, RetryCount: 4}, 2000); len(ids) != 1 {
		t.Fatalf("claim: %v", ids)
	}
	return s
}

// TestAppendEntry: each type as rewriteAppendOnlyFileRio writes it, the
// collections split at ItemsPerCmd, the deadline after the value.
func TestAppendEntry(t *testing.T) {
	tests := []struct {
		name string
		e    rdb.Entry
		want []string
	}{
		{"string", rdb.Entry{Key: []byte("k"), Value: rdb.Value{Type: rdb.TypeString, String: []byte("v")}},
			[]string{"SET k v"}},
		{"deadline", rdb.Entry{Key: []byte("k"), Value: rdb.Value{Type: rdb.TypeString, String: []byte("")}, Expire: 1700000000123, HasExpire: true},
			[]string{"SET k ", "PEXPIREAT k 1700000000123"}},
		{"list", rdb.Entry{Key: []byte("l"), Value: rdb.Value{Type: rdb.TypeList, List: [][]byte{[]byte("a"), []byte("1")}}},
			[]string{"RPUSH l a 1"}},
		{"set", rdb.Entry{Key: []byte("s"), Value: rdb.Value{Type: rdb.TypeSet, Set: [][]byte{[]byte("1"), []byte("2")}}},
			[]string{"SADD s 1 2"}},
		{"zset scores as %.17g", rdb.Entry{Key: []byte("z"), Value: rdb.Value{Type: rdb.TypeZSet, ZSet: []rdb.ZMember{
			{Member: []byte("a"), Score: 0.1}, {Member: []byte("b"), Score: 3}, {Member: []byte("c"), Score: math.Inf(-1)}, {Member: []byte("d"), Score: 1e20}}}},
			[]string{"ZADD z 0.10000000000000001 a 3 b -inf c 1e+20 d"}},
		{"hash as HMSET", rdb.Entry{Key: []byte("h"), Value: rdb.Value{Type: rdb.TypeHash, Hash: []rdb.HashField{{Field: []byte("f"), Value: []byte("v")}}}},
			[]string{"HMSET h f v"}},
		{"empty stream", rdb.Entry{Key: []byte("x"), Value: rdb.Value{Type: rdb.TypeStream, Stream: stream.New()}},
			[]string{"XADD x MAXLEN 0 0-1 x y", "XSETID x 0-0 ENTRIESADDED 0 MAXDELETEDID 0-0"}},
		{"stream with a group", rdb.Entry{Key: []byte("x"), Value: rdb.Value{Type: rdb.TypeStream, Stream: testStream(t)}},
			[]string{"XADD x 2-0 f v", "XSETID x 2-0 ENTRIESADDED 2 MAXDELETEDID 1-1", "XGROUP CREATE x g 2-0 ENTRIESREAD 2",
				"XCLAIM x g busy 0 2-0 TIME 1000 RETRYCOUNT 4 JUSTID FORCE", "XGROUP CREATECONSUMER x g idle"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := cmdsOf(t, AppendEntry(nil, &tc.e))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestAppendEntryChunks: n items go as ⌈n/64⌉ commands, each with the
// right argument count.
func TestAppendEntryChunks(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 128, 200} {
		items := strs("e", n)
		zs := make([]rdb.ZMember, n)
		hs := make([]rdb.HashField, n)
		for i, it := range items {
			zs[i] = rdb.ZMember{Member: it, Score: float64(i)}
			hs[i] = rdb.HashField{Field: it, Value: it}
		}
		for _, v := range []rdb.Value{{Type: rdb.TypeList, List: items}, {Type: rdb.TypeSet, Set: items},
			{Type: rdb.TypeZSet, ZSet: zs}, {Type: rdb.TypeHash, Hash: hs}} {
			got := cmdsOf(t, AppendEntry(nil, &rdb.Entry{Key: []byte("k"), Value: v}))
			if want := (n + ItemsPerCmd - 1) / ItemsPerCmd; len(got) != want {
				t.Errorf("%s of %d: %d commands, want %d", v.Type, n, len(got), want)
				continue
			}
			width := 1
			if v.Type == rdb.TypeZSet || v.Type == rdb.TypeHash {
				width = 2
			}
			total := 0
			for _, c := range got {
				args := len(strings.Fields(c)) - 2
				if args > ItemsPerCmd*width || args%width != 0 {
					t.Errorf("%s of %d: %q", v.Type, n, c)
				}
				total += args / width
			}
			if total != n {
				t.Errorf("%s of %d: %d items written", v.Type, n, total)
			}
		}
	}
}

func TestAppendSelectAndFunction(t *testing.T) {
	b := AppendSelect(nil, 12)
	b = AppendFunctionLoad(b, []byte("#!lua name=l\nreturn"))
	want := "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$19\r\n#!lua name=l\nreturn\r\n"
	if string(b) != want {
		t.Errorf("%q\nwant %q", b, want)
	}
}
