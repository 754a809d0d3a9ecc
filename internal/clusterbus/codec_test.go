package clusterbus

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// header is a plausible sender: a master with a few slots.
func header(t Type) Header {
	h := Header{Type: t, Port: 7000, CPort: 17000, Flags: NodeMyself | NodeMaster,
		CurrentEpoch: 7, ConfigEpoch: 3, Offset: 12345, State: StateOK,
		Sender: NodeName([]byte("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca")),
		MyIP:   MakeIP("10.0.0.5")}
	for s := uint16(0); s < 5461; s++ {
		h.MySlots.Set(s)
	}
	return h
}

func gossip(name string, port uint16, flags NodeFlags) Gossip {
	var n NodeName
	copy(n[:], name)
	return Gossip{Node: n, PingSent: 1700000000, PongReceived: 1700000001, IP: MakeIP("10.0.0.9"),
		Port: port, CPort: port + 10000, Flags: flags}
}

// TestRoundTrip encodes a message of every type, checks its length
// against explen as clusterProcessPacket computes it, and decodes it back.
func TestRoundTrip(t *testing.T) {
	replica := header(TypePing)
	replica.Flags = NodeMyself | NodeSlave
	replica.SlaveOf = NodeName([]byte("07c37dfeb235213a872192d90877d0cd55635b91"))
	paused := header(TypeFailoverAuthAck)
	paused.MFlags[0] = MFlag0Paused | MFlag0ForceAck
	upd := &Update{ConfigEpoch: 9, Node: replica.SlaveOf}
	upd.Slots.Set(0)
	upd.Slots.Set(Slots - 1)

	for _, tc := range []struct {
		name string
		msg  Message
		size int
	}{
		{"ping bare", Message{Header: header(TypePing), Body: &Ping{}}, 2256},
		{"ping gossip", Message{Header: header(TypePing), Body: &Ping{Gossip: []Gossip{
			gossip("a", 7001, NodeMaster), gossip("b", 7002, NodeSlave|NodePFail), gossip("c", 7003, NodeMaster|NodeFail)}}},
			2256 + 3*104},
		{"pong hostname", Message{Header: header(TypePong), Body: &Ping{Gossip: []Gossip{gossip("a", 7001, NodeMaster)},
			Exts: []Ext{HostnameExt("node-1.example.com")}}}, 2256 + 104 + 8 + 24},
		{"pong 7-byte hostname", Message{Header: header(TypePong), Body: &Ping{Exts: []Ext{HostnameExt("1234567")}}}, 2256 + 16},
		{"meet unknown extension", Message{Header: header(TypeMeet), Body: &Ping{
			Exts: []Ext{{Type: 3, Data: bytes.Repeat([]byte{7}, 16)}, HostnameExt("h")}}}, 2256 + 24 + 16},
		{"ping replica", Message{Header: replica, Body: &Ping{}}, 2256},
		{"fail", Message{Header: header(TypeFail), Body: &Fail{Node: replica.SlaveOf}}, 2296},
		{"publish", Message{Header: header(TypePublish), Body: &Publish{Channel: []byte("news"), Message: []byte("hello\x00world")}}, 2256 + 8 + 4 + 11},
		{"publish empty", Message{Header: header(TypePublish), Body: &Publish{}}, 2264},
		{"publishshard", Message{Header: header(TypePublishShard), Body: &Publish{Channel: []byte("{u1}c"), Message: []byte("m")}}, 2256 + 8 + 6},
		{"auth request", Message{Header: header(TypeFailoverAuthRequest)}, 2256},
		{"auth ack", Message{Header: paused}, 2256},
		{"mfstart", Message{Header: header(TypeMFStart)}, 2256},
		{"update", Message{Header: header(TypeUpdate), Body: upd}, 2256 + 2096},
		{"module", Message{Header: header(TypeModule), Body: &Module{ModuleID: 0x1234, Type: 200, Payload: []byte("payload")}}, 2256 + 13 + 7},
		{"unknown type", Message{Header: header(Type(42)), Body: &Unknown{Data: []byte("from a newer node")}}, 2256 + 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Encode(&tc.msg)
			if len(b) != tc.size {
				t.Fatalf("%d bytes, want %d", len(b), tc.size)
			}
			if got := binary.BigEndian.Uint32(b[4:]); int(got) != tc.size {
				t.Fatalf("totlen %d, want %d", got, tc.size)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.msg
			if p, ok := want.Body.(*Ping); ok {
				// Decode reports what Encode derived.
				want.Count, want.Extensions = uint16(len(p.Gossip)), uint16(len(p.Exts))
				if len(p.Exts) > 0 {
					want.MFlags[0] |= MFlag0ExtData
				}
				if len(p.Gossip) == 0 && len(p.Exts) == 0 {
					want.Body = &Ping{}
				}
			}
			if !reflect.DeepEqual(got, &want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", got, &want)
			}
			if again := AppendEncode([]byte("x"), got); !bytes.Equal(again[1:], b) {
				t.Fatal("re-encoding differs")
			}
		})
	}
}

// TestDecodeAcceptsWhatRedisAccepts: odd messages clusterProcessPacket
// lets through, which must decode and re-encode unchanged.
func TestDecodeAcceptsWhatRedisAccepts(t *testing.T) {
	withFlag := header(TypePing)
	withFlag.MFlags[0] = MFlag0ExtData // the flag, no extension
	failWithCount := header(TypeFail)
	failWithCount.Count, failWithCount.Extensions = 3, 2 // unused by FAIL
	hostJunk := Ext{Type: ExtHostname, Data: []byte("host\x00junk\x01\x02\x03\x04\x05\x06\x07")}
	for _, tc := range []struct {
		name string
		msg  Message
		mod  func([]byte) // applied to the encoding
	}{
		{"extension flag without extensions", Message{Header: withFlag, Body: &Ping{}}, nil},
		{"unused count and extensions on FAIL", Message{Header: failWithCount, Body: &Fail{}}, nil},
		{"hostname with bytes after its NUL", Message{Header: header(TypePong), Body: &Ping{Exts: []Ext{hostJunk}}}, nil},
		{"unknown extension type", Message{Header: header(TypePong), Body: &Ping{Exts: []Ext{{Type: 999, Reserved: 5}}}}, nil},
		{"unknown message type, header alone", Message{Header: header(Type(11))}, nil},
		{"nonzero reserved bytes", Message{Header: header(TypePing), Body: &Ping{Gossip: []Gossip{{Reserved: 9}}}},
			func(b []byte) { b[offNotUsed1] = 1 }},
		{"garbage after the myip NUL", Message{Header: header(TypeMFStart)}, func(b []byte) { b[offMyIP+40] = 'x' }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Encode(&tc.msg)
			if tc.mod != nil {
				tc.mod(b)
			}
			m, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(Encode(m), b) {
				t.Fatal("re-encoding differs")
			}
		})
	}
	m, _ := Decode(Encode(&Message{Header: header(TypePong), Body: &Ping{Exts: []Ext{hostJunk}}}))
	if h := m.Body.(*Ping).Hostname(); h != "host" {
		t.Errorf("hostname %q, want the bytes before the NUL", h)
	}
}

// TestDecodeRejects: each case breaks a valid message one way; Decode must
// refuse it with an ErrInvalid error, and never panic.
func TestDecodeRejects(t *testing.T) {
	enc := func(m Message) []byte { return Encode(&m) }
	ping := enc(Message{Header: header(TypePing), Body: &Ping{Gossip: []Gossip{gossip("a", 1, NodeMaster)},
		Exts: []Ext{HostnameExt("abc"), {Type: 9, Data: make([]byte, 8)}}}})
	extAt := HeaderSize + GossipSize // the first extension
	put32 := func(b []byte, off int, v uint32) []byte {
		b = bytes.Clone(b)
		binary.BigEndian.PutUint32(b[off:], v)
		return b
	}
	put16 := func(b []byte, off int, v uint16) []byte {
		b = bytes.Clone(b)
		binary.BigEndian.PutUint16(b[off:], v)
		return b
	}
	withTotlen := func(b []byte) []byte { return put32(b, offTotlen, uint32(len(b))) }
	fail := enc(Message{Header: header(TypeFail), Body: &Fail{}})
	pub := enc(Message{Header: header(TypePublish), Body: &Publish{Channel: []byte("c"), Message: []byte("m")}})
	mod := enc(Message{Header: header(TypeModule), Body: &Module{Payload: []byte("p")}})
	ack := enc(Message{Header: header(TypeFailoverAuthAck)})
	upd := enc(Message{Header: header(TypeUpdate), Body: &Update{}})
	noFlag := bytes.Clone(ping)
	noFlag[offMFlags] &^= MFlag0ExtData

	for _, tc := range []struct {
		name, why string
		b         []byte
	}{
		{"empty", "fewer than", nil},
		{"8 bytes", "fewer than", ping[:8]},
		{"header less one byte", "fewer than", withTotlen(ping[:HeaderSize-1])},
		{"signature", "signature", append([]byte("RCmc"), ping[4:]...)},
		{"version 0", "version", put16(ping, offVer, 0)},
		{"version 2", "version", put16(ping, offVer, 2)},
		{"totlen over the bytes", "length field", put32(ping, offTotlen, uint32(len(ping)+1))},
		{"totlen under the bytes", "length field", put32(ping, offTotlen, uint32(len(ping)-8))},
		{"bytes cut, totlen kept", "length field", ping[:len(ping)-8]},
		{"trailing bytes after the extensions", "expected length", withTotlen(append(bytes.Clone(ping), make([]byte, 8)...))},
		{"gossip count past the end", "gossip", put16(ping, offCount, 100)},
		{"gossip count 65535", "gossip", put16(ping, offCount, 65535)},
		{"gossip count one short", "", put16(ping, offCount, 0)},
		{"extensions without the flag", "without the extension flag", noFlag},
		{"one extension more than sent", "header", put16(ping, offExtensions, 3)},
		{"one extension fewer than sent", "expected length", put16(ping, offExtensions, 1)},
		{"extension length not padded", "padding", put32(ping, extAt, 17)},
		{"extension length 0", "shorter than its header", put32(ping, extAt, 0)},
		{"extension past the end", "exceeds", put32(ping, extAt, 64)},
		{"extension length cut to 16 bits by Redis", "16-bit", put32(ping, extAt, 1<<16+16)},
		{"extension length 4 GiB", "", put32(ping, extAt, 0xfffffff8)},
		{"hostname without a NUL", "no NUL", enc(Message{Header: header(TypePong),
			Body: &Ping{Exts: []Ext{{Type: ExtHostname, Data: []byte("12345678")}}}})},
		{"hostname extension without data", "no NUL", enc(Message{Header: header(TypePong),
			Body: &Ping{Exts: []Ext{{Type: ExtHostname}}}})},
		{"fail one byte long", "expected length", withTotlen(append(bytes.Clone(fail), 0))},
		{"fail one byte short", "expected length", withTotlen(fail[:len(fail)-1])},
		{"update short", "expected length", withTotlen(upd[:len(upd)-1])},
		{"auth ack with data", "expected length", withTotlen(append(bytes.Clone(ack), 0))},
		{"publish without its lengths", "expected length", withTotlen(pub[:HeaderSize+4])},
		{"publish channel length past the end", "expected length", put32(pub, HeaderSize+offPublishChannelLen, 2)},
		{"publish lengths summing past 32 bits", "expected length",
			put32(put32(pub, HeaderSize+offPublishChannelLen, math.MaxUint32), HeaderSize+offPublishMessageLen, 3)},
		{"module without its length", "expected length", withTotlen(mod[:HeaderSize+12])},
		{"module length past the end", "expected length", put32(mod, HeaderSize+offModuleLen, 2)},
		{"module length 4 GiB", "expected length", put32(mod, HeaderSize+offModuleLen, math.MaxUint32)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode(tc.b)
			if err == nil {
				t.Fatalf("accepted: %+v", m.Header)
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("error %q, want ErrInvalid saying %q", err, tc.why)
			}
		})
	}
}

// TestEncodePanics: a message Encode cannot write is a programming error.
func TestEncodePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  Message
	}{
		{"ping body on FAIL", Message{Header: header(TypeFail), Body: &Ping{}}},
		{"fail body on PING", Message{Header: header(TypePing), Body: &Fail{}}},
		{"unknown body on a known type", Message{Header: header(TypeUpdate), Body: &Unknown{}}},
		{"too many gossip entries", Message{Header: header(TypePing), Body: &Ping{Gossip: make([]Gossip, 1<<16)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			Encode(&tc.msg)
		})
	}
}

// TestEncodeNilBody: a nil Body is the type's empty data.
func TestEncodeNilBody(t *testing.T) {
	for ty := range TypeCount + 1 {
		b := Encode(&Message{Header: header(ty)})
		m, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", ty, err)
		}
		if !bytes.Equal(Encode(m), b) {
			t.Errorf("%s: re-encoding differs", ty)
		}
	}
}

// TestReadFrame cuts messages off a stream as clusterReadHandler does.
func TestReadFrame(t *testing.T) {
	good := Encode(&Message{Header: header(TypePublish), Body: &Publish{Channel: []byte("c"), Message: bytes.Repeat([]byte("m"), 200000)}})
	bad := Encode(&Message{Header: header(TypeFail), Body: &Fail{}})
	binary.BigEndian.PutUint16(bad[offVer:], 9) // framed well, dropped by Decode
	stream := bytes.NewReader(append(append(append([]byte(nil), bad...), good...), good[:100]...))
	r := bufio.NewReader(stream)
	if _, err := ReadMessage(r, 1<<20); !errors.Is(err, ErrInvalid) {
		t.Fatalf("first message: %v, want ErrInvalid", err)
	}
	m, err := ReadMessage(r, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Body.(*Publish); len(p.Message) != 200000 {
		t.Fatalf("message of %d bytes", len(p.Message))
	}
	if _, err := ReadMessage(r, 1<<20); err != io.ErrUnexpectedEOF {
		t.Fatalf("cut message: %v", err)
	}
	if _, err := ReadMessage(r, 1<<20); err != io.EOF {
		t.Fatalf("end of stream: %v", err)
	}

	buf := make([]byte, 0, 1<<20)
	f, err := ReadFrame(bytes.NewReader(good), buf, 0)
	if err != nil || !bytes.Equal(f, good) {
		t.Fatalf("ReadFrame into a roomy buffer: %v", err)
	}
	if &f[0] != &buf[:1][0] {
		t.Error("ReadFrame allocated though the buffer had room")
	}

	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"signature", []byte("RCmB\x00\x00\x10\x00"), ErrFrame},
		{"length below the header", []byte("RCmb\x00\x00\x08\xcf"), ErrFrame},
		{"length over the limit", []byte("RCmb\x00\x10\x00\x01"), ErrTooLong},
		{"short prefix", []byte("RCm"), io.ErrUnexpectedEOF},
	} {
		if _, err := ReadFrame(bytes.NewReader(tc.in), nil, 1<<20); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestReadFrameHostileLength: a peer claiming a 4 GiB message and sending
// a few bytes costs memory for the bytes, not the claim.
func TestReadFrameHostileLength(t *testing.T) {
	in := append([]byte("RCmb\xff\xff\xff\xf0"), make([]byte, 3000)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFrame(bytes.NewReader(in), nil, 0)
	runtime.ReadMemStats(&after)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("err %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("allocated %d bytes for 3008 received", n)
	}
}
