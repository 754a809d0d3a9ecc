package clusterbus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capturedDir holds messages a real Redis 7.0.15 sent the conformance
// tests (LIMITKV_CLUSTERBUS_CAPTURE), named by type: they are the decoder's
// golden inputs when redis-server is absent, and the fuzzer's seeds.
const capturedDir = "testdata/redis-7.0.15"

func captured(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(capturedDir, "*.bin"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captured messages in %s (%v)", capturedDir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".bin")] = b
	}
	return out
}

// TestDecodeCaptured decodes what Redis sent, which must re-encode to the
// same bytes and carry what the conformance test that captured it saw.
func TestDecodeCaptured(t *testing.T) {
	want := map[string]struct {
		ty       Type
		minCount uint16
		hostname string
	}{
		"meet":          {TypeMeet, 0, ""},
		"meet-gossip":   {TypeMeet, 1, ""},
		"ping":          {TypePing, 1, ""},
		"pong-gossip":   {TypePong, 1, ""},
		"pong-hostname": {TypePong, 0, "redis-under-test.example"},
		"pong-pfail":    {TypePong, 1, ""},
		"publish":       {TypePublish, 0, ""},
		"update":        {TypeUpdate, 0, ""},
		"fail":          {TypeFail, 0, ""},
	}
	for name, b := range captured(t) {
		w, ok := want[name]
		if !ok {
			t.Errorf("%s.bin: no expectation for it", name)
			continue
		}
		m, err := Decode(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(Encode(m), b) {
			t.Errorf("%s: re-encoding differs", name)
		}
		if m.Type != w.ty || m.Count < w.minCount || m.Flags != NodeMyself|NodeMaster {
			t.Errorf("%s: %s with %d gossip entries, flags %d", name, m.Type, m.Count, m.Flags)
		}
		if p, ok := m.Body.(*Ping); ok && p.Hostname() != w.hostname {
			t.Errorf("%s: hostname %q, want %q", name, p.Hostname(), w.hostname)
		}
	}
}

// FuzzDecode: Decode never panics, an accepted message re-encodes to the
// very bytes it came from (so no field is lost or invented), and ReadFrame
// frames the same bytes alike. Each input is tried as it is and, because
// mutations of a 2256-byte header rarely reach the data, also expanded
// from a short form (see expand) whose every byte matters.
func FuzzDecode(f *testing.F) {
	seeds := [][]byte{}
	for _, b := range captured(f) {
		seeds = append(seeds, b)
	}
	for _, m := range []*Message{
		{Header: header(TypePing), Body: &Ping{Gossip: []Gossip{gossip("a", 1, NodeMaster)}, Exts: []Ext{HostnameExt("x"), {Type: 7}}}},
		{Header: header(TypePublishShard), Body: &Publish{Channel: []byte("c"), Message: []byte("m")}},
		{Header: header(TypeModule), Body: &Module{ModuleID: 1, Type: 2, Payload: []byte("p")}},
		{Header: header(TypeUpdate), Body: &Update{}},
		{Header: header(TypeFailoverAuthRequest)},
		{Header: header(Type(300)), Body: &Unknown{Data: []byte("later")}},
	} {
		seeds = append(seeds, Encode(m))
	}
	for _, b := range seeds {
		f.Add(b)
		f.Add(shorten(b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		check(t, b)
		check(t, expand(b))
	})
}

func check(t *testing.T, b []byte) {
	m, err := Decode(b)
	if err != nil {
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %v does not wrap ErrInvalid", err)
		}
		return
	}
	if again := Encode(m); !bytes.Equal(again, b) {
		t.Fatalf("%s message re-encodes differently:\n% x\n% x", m.Type, again, b)
	}
	fr, err := ReadFrame(bytes.NewReader(b), nil, len(b))
	if err != nil || !bytes.Equal(fr, b) {
		t.Fatalf("ReadFrame of a message Decode accepts: %v", err)
	}
}

// expand makes a message of a short form: the type, gossip count,
// extension count and mflags[0] in the first 4 bytes, then the data; the
// rest of the header is a fixed sender's, the length the true one.
func expand(b []byte) []byte {
	if len(b) < 4 || len(b) >= HeaderSize {
		return nil
	}
	h := header(Type(b[0] % 16))
	m := Encode(&Message{Header: h})
	binary.BigEndian.PutUint16(m[offCount:], uint16(b[1]))
	binary.BigEndian.PutUint16(m[offExtensions:], uint16(b[2]))
	m[offMFlags] = b[3]
	m = append(m, b[4:]...)
	binary.BigEndian.PutUint32(m[offTotlen:], uint32(len(m)))
	return m
}

// shorten is expand's inverse, for seeds.
func shorten(m []byte) []byte {
	return append([]byte{m[offType+1], m[offCount+1], m[offExtensions+1], m[offMFlags]}, m[HeaderSize:]...)
}
