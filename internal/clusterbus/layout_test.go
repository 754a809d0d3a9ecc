package clusterbus

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestHeaderOffsets holds the encoder to cluster.h's static_asserts: each
// row is one assert's offset, written here as the header spells it, and
// the field's bytes must land there. Every field gets a distinct value so
// that a field written at another's offset shows.
func TestHeaderOffsets(t *testing.T) {
	h := Header{
		Port: 0x0a0b, Type: Type(0x7766), Count: 0x0e0f,
		CurrentEpoch: 0x1011121314151617, ConfigEpoch: 0x18191a1b1c1d1e1f, Offset: 0x2021222324252627,
		Sender: fill[NodeName](0x41), SlaveOf: fill[NodeName](0x42), MyIP: fill[IP](0x43),
		Extensions: 0x2829, Reserved: fill[[30]byte](0x44),
		PPort: 0x2a2b, CPort: 0x2c2d, Flags: 0x2e2f, State: 0x30, MFlags: [3]byte{0x31, 0x32, 0x33},
	}
	h.MySlots[0], h.MySlots[Slots/8-1] = 0x45, 0x46
	b := Encode(&Message{Header: h, Body: &Unknown{}})
	u16 := func(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
	u64 := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	for _, f := range []struct {
		name      string
		off, cOff int // cluster.h's offset, and the package's constant
		want      []byte
	}{
		{"sig", 0, offSig, []byte("RCmb")},
		{"totlen", 4, offTotlen, []byte{0, 0, 0x08, 0xd0}}, // 2256
		{"ver", 8, offVer, u16(1)},
		{"port", 10, offPort, u16(h.Port)},
		{"type", 12, offType, u16(uint16(h.Type))},
		{"count", 14, offCount, u16(h.Count)},
		{"currentEpoch", 16, offCurrentEpoch, u64(h.CurrentEpoch)},
		{"configEpoch", 24, offConfigEpoch, u64(h.ConfigEpoch)},
		{"offset", 32, offOffset, u64(h.Offset)},
		{"sender", 40, offSender, h.Sender[:]},
		{"myslots", 80, offMySlots, h.MySlots[:]},
		{"slaveof", 2128, offSlaveOf, h.SlaveOf[:]},
		{"myip", 2168, offMyIP, h.MyIP[:]},
		{"extensions", 2214, offExtensions, u16(h.Extensions)},
		{"notused1", 2216, offNotUsed1, h.Reserved[:]},
		{"pport", 2246, offPPort, u16(h.PPort)},
		{"cport", 2248, offCPort, u16(h.CPort)},
		{"flags", 2250, offFlags, u16(uint16(h.Flags))},
		{"state", 2252, offState, []byte{h.State}},
		{"mflags", 2253, offMFlags, h.MFlags[:]},
		{"data", 2256, offData, nil},
	} {
		if f.off != f.cOff {
			t.Errorf("offsetof(clusterMsg, %s) is %d in cluster.h, %d here", f.name, f.off, f.cOff)
		}
		if got := b[f.off : f.off+len(f.want)]; !bytes.Equal(got, f.want) {
			t.Errorf("%s at %d: % x, want % x", f.name, f.off, got, f.want)
		}
	}
	if len(b) != HeaderSize || HeaderSize != 2256 {
		t.Errorf("a header alone is %d bytes, HeaderSize %d; CLUSTERMSG_MIN_LEN is 2256", len(b), HeaderSize)
	}
	// The fields tile the header: each ends where the next begins.
	if offMyIP+IPLen != offExtensions || offSlaveOf+NameLen != offMyIP || offMySlots+Slots/8 != offSlaveOf {
		t.Error("header fields overlap or leave a gap")
	}
}

// TestDataLayout does the same for the structures of the data union, which
// cluster.h does not assert: their offsets follow C's layout rules (each
// field aligned to its size, the struct to its largest member), computed
// here by hand as the comments show.
func TestDataLayout(t *testing.T) {
	g := Gossip{Node: fill[NodeName](0x51), PingSent: 0x52535455, PongReceived: 0x56575859,
		IP: fill[IP](0x5a), Port: 0x5b5c, CPort: 0x5d5e, Flags: 0x5f60, PPort: 0x6162, Reserved: 0x6364}
	ping := Encode(&Message{Header: Header{Type: TypePing},
		Body: &Ping{Gossip: []Gossip{g}, Exts: []Ext{{Type: 0x7172, Reserved: 0x7374, Data: []byte("abc")}}}})
	fail := Encode(&Message{Header: Header{Type: TypeFail}, Body: &Fail{Node: fill[NodeName](0x81)}})
	pub := Encode(&Message{Header: Header{Type: TypePublish}, Body: &Publish{Channel: []byte("ch"), Message: []byte("hello")}})
	upd := &Update{ConfigEpoch: 0x9192939495969798, Node: fill[NodeName](0x99)}
	upd.Slots[0], upd.Slots[Slots/8-1] = 0x9a, 0x9b
	update := Encode(&Message{Header: Header{Type: TypeUpdate}, Body: upd})
	module := Encode(&Message{Header: Header{Type: TypeModule},
		Body: &Module{ModuleID: 0xa1a2a3a4a5a6a7a8, Type: 0xa9, Payload: []byte("pay")}})

	for _, f := range []struct {
		name      string
		msg       []byte
		off, cOff int // offset in the data union, and the package's constant
		want      []byte
	}{
		// clusterMsgDataGossip: 104 bytes, aligned to 4.
		{"gossip.nodename", ping, 0, offGossipNode, g.Node[:]},
		{"gossip.ping_sent", ping, 40, offGossipPingSent, []byte{0x52, 0x53, 0x54, 0x55}},
		{"gossip.pong_received", ping, 44, offGossipPongReceived, []byte{0x56, 0x57, 0x58, 0x59}},
		{"gossip.ip", ping, 48, offGossipIP, g.IP[:]},
		{"gossip.port", ping, 94, offGossipPort, []byte{0x5b, 0x5c}}, // 48+46
		{"gossip.cport", ping, 96, offGossipCPort, []byte{0x5d, 0x5e}},
		{"gossip.flags", ping, 98, offGossipFlags, []byte{0x5f, 0x60}},
		{"gossip.pport", ping, 100, offGossipPPort, []byte{0x61, 0x62}},
		{"gossip.notused1", ping, 102, offGossipNotUsed1, []byte{0x63, 0x64}},
		// clusterMsgPingExt after the gossip: length (8 + "abc" padded to
		// 8), type, unused, then the data.
		{"ext.length", ping, 104 + 0, 104 + offExtLength, []byte{0, 0, 0, 16}},
		{"ext.type", ping, 104 + 4, 104 + offExtType, []byte{0x71, 0x72}},
		{"ext.unused", ping, 104 + 6, 104 + offExtUnused, []byte{0x73, 0x74}},
		{"ext.data", ping, 104 + 8, 104 + ExtHeaderSize, []byte("abc\x00\x00\x00\x00\x00")},
		// clusterMsgDataFail
		{"fail.nodename", fail, 0, 0, bytes.Repeat([]byte{0x81}, 40)},
		// clusterMsgDataPublish: the lengths, then channel and message.
		{"publish.channel_len", pub, 0, offPublishChannelLen, []byte{0, 0, 0, 2}},
		{"publish.message_len", pub, 4, offPublishMessageLen, []byte{0, 0, 0, 5}},
		{"publish.bulk_data", pub, 8, offPublishBulk, []byte("chhello")},
		// clusterMsgDataUpdate
		{"update.configEpoch", update, 0, offUpdateConfigEpoch, []byte{0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98}},
		{"update.nodename", update, 8, offUpdateNode, upd.Node[:]},
		{"update.slots", update, 48, offUpdateSlots, upd.Slots[:]},
		// clusterMsgModule: module_id in host (little endian) order.
		{"module.module_id", module, 0, offModuleID, []byte{0xa8, 0xa7, 0xa6, 0xa5, 0xa4, 0xa3, 0xa2, 0xa1}},
		{"module.len", module, 8, offModuleLen, []byte{0, 0, 0, 3}},
		{"module.type", module, 12, offModuleType, []byte{0xa9}},
		{"module.bulk_data", module, 13, offModuleBulk, []byte("pay")},
	} {
		if f.off != f.cOff {
			t.Errorf("%s: offset %d by C's rules, %d here", f.name, f.off, f.cOff)
		}
		if got := f.msg[HeaderSize+f.off:][:len(f.want)]; !bytes.Equal(got, f.want) {
			t.Errorf("%s at %d: % x, want % x", f.name, f.off, got, f.want)
		}
	}
	// Lengths as clusterProcessPacket's explen computes them.
	for _, l := range []struct {
		name      string
		got, want int
	}{
		{"ping with one gossip and one extension", len(ping), 2256 + 104 + 16},
		{"fail", len(fail), 2256 + 40},
		{"publish", len(pub), 2256 + 16 - 8 + 2 + 5}, // sizeof(clusterMsgDataPublish) - 8 + lengths
		{"update", len(update), 2256 + 2096},         // sizeof(clusterMsgDataUpdate)
		{"module", len(module), 2256 + 16 - 3 + 3},   // sizeof(clusterMsgModule) - 3 + len
		{"sizeof(clusterMsgDataGossip)", GossipSize, 104},
		{"sizeof(clusterMsgPingExt)", ExtHeaderSize, 8},
	} {
		if l.got != l.want {
			t.Errorf("%s: %d bytes, want %d", l.name, l.got, l.want)
		}
	}
}

// TestSlotBitmap: slot s is bit s%8, least significant first, of byte
// s/8, as bitmapTestBit reads it.
func TestSlotBitmap(t *testing.T) {
	var m SlotBitmap
	for _, s := range []uint16{0, 7, 8, 5461, Slots - 1} {
		m.Set(s)
	}
	if m[0] != 0x81 || m[1] != 0x01 || m[5461/8] != 1<<(5461%8) || m[Slots/8-1] != 0x80 {
		t.Errorf("bitmap bytes %#x %#x %#x %#x", m[0], m[1], m[5461/8], m[Slots/8-1])
	}
	if m.Count() != 5 || !m.Has(5461) || m.Has(5460) {
		t.Errorf("Count %d, Has(5461) %v, Has(5460) %v", m.Count(), m.Has(5461), m.Has(5460))
	}
	m.Clear(7)
	if m.Has(7) || m[0] != 0x01 {
		t.Errorf("after Clear(7): byte 0 is %#x", m[0])
	}
}

func TestNames(t *testing.T) {
	n := NewNodeName()
	if _, err := ParseNodeName(n.String()); err != nil {
		t.Errorf("NewNodeName %q: %v", n, err)
	}
	if n == NewNodeName() {
		t.Error("two random names are the same")
	}
	for _, s := range []string{"", "abc", "07c37dfeb235213a872192d90877d0cd55635b9A", "07c37dfeb235213a872192d90877d0cd55635b9-"} {
		if _, err := ParseNodeName(s); err == nil {
			t.Errorf("ParseNodeName(%q) accepted", s)
		}
	}
	// verifyClusterNodeId takes any lowercase letter, not only hex.
	if _, err := ParseNodeName("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"); err != nil {
		t.Error(err)
	}
	if ip := MakeIP("10.0.0.1"); ip.String() != "10.0.0.1" || ip[8] != 0 {
		t.Errorf("MakeIP: %q", ip.String())
	}
	long := MakeIP(string(bytes.Repeat([]byte("x"), 60)))
	if got := long.String(); len(got) != IPLen-1 {
		t.Errorf("a 60-byte address keeps %d bytes, want %d and a NUL", len(got), IPLen-1)
	}
	if TypePong.String() != "pong" || TypeFailoverAuthRequest.String() != "auth-req" || Type(11).String() != "unknown" {
		t.Error("type names differ from clusterGetMessageTypeString")
	}
}

func fill[A ~[40]byte | ~[46]byte | ~[30]byte](c byte) A {
	var a A
	for i := range len(a) {
		a[i] = c
	}
	return a
}
