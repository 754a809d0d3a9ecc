package clusterbus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Signature opens every message: "RCmb", Redis Cluster message bus.
const Signature = "RCmb"

// ProtoVer is the only protocol version Redis 7.0 speaks
// (CLUSTER_PROTO_VER); it drops messages of any other.
const ProtoVer = 1

// Field offsets in clusterMsg, fixed by cluster.h's static_asserts, and in
// the structures of its data union (laid out by C's rules, asserted by
// the tests and by real Redis reading them).
const (
	offSig          = 0
	offTotlen       = 4
	offVer          = 8
	offPort         = 10
	offType         = 12
	offCount        = 14
	offCurrentEpoch = 16
	offConfigEpoch  = 24
	offOffset       = 32
	offSender       = 40
	offMySlots      = 80
	offSlaveOf      = 2128
	offMyIP         = 2168
	offExtensions   = 2214
	offNotUsed1     = 2216
	offPPort        = 2246
	offCPort        = 2248
	offFlags        = 2250
	offState        = 2252
	offMFlags       = 2253
	offData         = 2256

	// clusterMsgDataGossip
	offGossipNode         = 0
	offGossipPingSent     = 40
	offGossipPongReceived = 44
	offGossipIP           = 48
	offGossipPort         = 94
	offGossipCPort        = 96
	offGossipFlags        = 98
	offGossipPPort        = 100
	offGossipNotUsed1     = 102

	// clusterMsgPingExt
	offExtLength = 0
	offExtType   = 4
	offExtUnused = 6

	// clusterMsgDataPublish: two lengths, then channel and message bytes.
	offPublishChannelLen = 0
	offPublishMessageLen = 4
	offPublishBulk       = 8

	// clusterMsgDataUpdate
	offUpdateConfigEpoch = 0
	offUpdateNode        = 8
	offUpdateSlots       = 48
	updateSize           = 48 + Slots/8

	// clusterMsgModule: module_id, len, type, then the payload.
	offModuleID   = 0
	offModuleLen  = 8
	offModuleType = 12
	offModuleBulk = 13

	failSize = NameLen
)

var be = binary.BigEndian

// Encode returns msg's bytes. It panics, as on an index out of range, when
// msg cannot be a message: a Body of another type than Type's, more than
// 65535 gossip entries or extensions, or more than 4 GiB in all. It does
// not stop what the format can carry but Redis 7.0 drops, such as an
// extension longer than MaxExtLen; Decode rejects those.
func Encode(msg *Message) []byte { return AppendEncode(nil, msg) }

// AppendEncode appends msg's bytes to dst, as Encode.
func AppendEncode(dst []byte, msg *Message) []byte {
	h := &msg.Header
	count, exts, mflags0 := h.Count, h.Extensions, h.MFlags[0]
	size := HeaderSize
	switch b := msg.Body.(type) {
	case *Ping:
		mustType(msg, h.Type.isPing())
		count = mustUint16(len(b.Gossip), "gossip entries")
		exts = mustUint16(len(b.Exts), "extensions")
		if len(b.Exts) > 0 {
			mflags0 |= MFlag0ExtData
		}
		size += GossipSize * len(b.Gossip)
		for _, e := range b.Exts {
			size += ExtHeaderSize + pad8(len(e.Data))
		}
	case *Fail:
		mustType(msg, h.Type == TypeFail)
		size += failSize
	case *Publish:
		mustType(msg, h.Type == TypePublish || h.Type == TypePublishShard)
		size += offPublishBulk + len(b.Channel) + len(b.Message)
	case *Update:
		mustType(msg, h.Type == TypeUpdate)
		size += updateSize
	case *Module:
		mustType(msg, h.Type == TypeModule)
		size += offModuleBulk + len(b.Payload)
	case *Unknown:
		mustType(msg, h.Type >= TypeCount)
		size += len(b.Data)
	case nil:
		switch {
		case h.Type.isPing():
			count, exts = 0, 0
		case h.Type == TypeFail:
			size += failSize
		case h.Type == TypePublish || h.Type == TypePublishShard:
			size += offPublishBulk
		case h.Type == TypeUpdate:
			size += updateSize
		case h.Type == TypeModule:
			size += offModuleBulk
		}
	default:
		panic(fmt.Sprintf("clusterbus: Encode of a %T body", msg.Body))
	}
	if uint64(size) > math.MaxUint32 {
		panic(fmt.Sprintf("clusterbus: Encode of a %s message of %d bytes, past the 32-bit length", h.Type, size))
	}

	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	m := dst[start:]
	copy(m[offSig:], Signature)
	be.PutUint32(m[offTotlen:], uint32(size))
	be.PutUint16(m[offVer:], ProtoVer)
	be.PutUint16(m[offPort:], h.Port)
	be.PutUint16(m[offType:], uint16(h.Type))
	be.PutUint16(m[offCount:], count)
	be.PutUint64(m[offCurrentEpoch:], h.CurrentEpoch)
	be.PutUint64(m[offConfigEpoch:], h.ConfigEpoch)
	be.PutUint64(m[offOffset:], h.Offset)
	copy(m[offSender:], h.Sender[:])
	copy(m[offMySlots:], h.MySlots[:])
	copy(m[offSlaveOf:], h.SlaveOf[:])
	copy(m[offMyIP:], h.MyIP[:])
	be.PutUint16(m[offExtensions:], exts)
	copy(m[offNotUsed1:], h.Reserved[:])
	be.PutUint16(m[offPPort:], h.PPort)
	be.PutUint16(m[offCPort:], h.CPort)
	be.PutUint16(m[offFlags:], uint16(h.Flags))
	m[offState] = h.State
	m[offMFlags] = mflags0
	m[offMFlags+1] = h.MFlags[1]
	m[offMFlags+2] = h.MFlags[2]

	d := m[offData:]
	switch b := msg.Body.(type) {
	case *Ping:
		for i := range b.Gossip {
			putGossip(d[i*GossipSize:], &b.Gossip[i])
		}
		d = d[len(b.Gossip)*GossipSize:]
		for _, e := range b.Exts {
			n := ExtHeaderSize + pad8(len(e.Data))
			be.PutUint32(d[offExtLength:], uint32(n))
			be.PutUint16(d[offExtType:], e.Type)
			be.PutUint16(d[offExtUnused:], e.Reserved)
			copy(d[ExtHeaderSize:], e.Data)
			d = d[n:]
		}
	case *Fail:
		copy(d, b.Node[:])
	case *Publish:
		be.PutUint32(d[offPublishChannelLen:], uint32(len(b.Channel)))
		be.PutUint32(d[offPublishMessageLen:], uint32(len(b.Message)))
		copy(d[offPublishBulk+copy(d[offPublishBulk:], b.Channel):], b.Message)
	case *Update:
		be.PutUint64(d[offUpdateConfigEpoch:], b.ConfigEpoch)
		copy(d[offUpdateNode:], b.Node[:])
		copy(d[offUpdateSlots:], b.Slots[:])
	case *Module:
		binary.LittleEndian.PutUint64(d[offModuleID:], b.ModuleID)
		be.PutUint32(d[offModuleLen:], uint32(len(b.Payload)))
		d[offModuleType] = b.Type
		copy(d[offModuleBulk:], b.Payload)
	case *Unknown:
		copy(d, b.Data)
	}
	return dst
}

func putGossip(d []byte, g *Gossip) {
	copy(d[offGossipNode:], g.Node[:])
	be.PutUint32(d[offGossipPingSent:], g.PingSent)
	be.PutUint32(d[offGossipPongReceived:], g.PongReceived)
	copy(d[offGossipIP:], g.IP[:])
	be.PutUint16(d[offGossipPort:], g.Port)
	be.PutUint16(d[offGossipCPort:], g.CPort)
	be.PutUint16(d[offGossipFlags:], uint16(g.Flags))
	be.PutUint16(d[offGossipPPort:], g.PPort)
	be.PutUint16(d[offGossipNotUsed1:], g.Reserved)
}

func pad8(n int) int { return (n + 7) &^ 7 }

func mustType(msg *Message, ok bool) {
	if !ok {
		panic(fmt.Sprintf("clusterbus: Encode of a %T body in a %s (%d) message", msg.Body, msg.Type, msg.Type))
	}
}

func mustUint16(n int, what string) uint16 {
	if n > math.MaxUint16 {
		panic(fmt.Sprintf("clusterbus: Encode of %d %s, past the 16-bit count", n, what))
	}
	return uint16(n)
}

// ErrInvalid is wrapped by every error Decode returns: the message is one
// clusterProcessPacket would drop (or, see Decode, read past the end of).
// Redis drops such a message and keeps the link, and so may a reader
// that got it from ReadMessage: the stream is still in step.
var ErrInvalid = errors.New("clusterbus: invalid message")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Decode parses one whole message, b being exactly its bytes. It accepts
// what Redis 7.0.15's clusterProcessPacket accepts: the signature, a
// length of at least HeaderSize equal to len(b), version 1, and the
// length each type implies (explen): a header alone for
// FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK and MFSTART; a node name for
// FAIL; the two lengths and their bytes for PUBLISH and PUBLISHSHARD;
// the epoch, name and slots for UPDATE; the id, length, type and payload
// for MODULE; for PING, PONG and MEET the count gossip entries, then,
// when MFlag0ExtData is set, the Extensions extensions, each a multiple
// of 8 bytes long and within the message. A type past TypeCount is
// accepted with any data, as Redis does.
//
// Where Redis 7.0.15 would read past the message, Decode rejects it
// rather than guess: extensions announced without MFlag0ExtData (Redis
// skips the length check but still walks them); an extension shorter
// than its own 8-byte header, or whose header lies past the end; an
// extension longer than MaxExtLen (Redis checks the length cut to 16 bits
// but steps over the whole); a hostname extension without a NUL in its
// data (Redis reads it as a C string); and PUBLISH or MODULE lengths
// whose sum overflows the 32-bit explen.
//
// The Message shares no memory with b. Decode never allocates more than
// a small multiple of len(b), whatever the lengths inside claim.
func Decode(b []byte) (*Message, error) {
	if len(b) < HeaderSize {
		return nil, invalid("%d bytes, fewer than the %d-byte header", len(b), HeaderSize)
	}
	if string(b[offSig:offSig+4]) != Signature {
		return nil, invalid("signature %q, not %q", b[offSig:offSig+4], Signature)
	}
	totlen := be.Uint32(b[offTotlen:])
	if uint64(totlen) != uint64(len(b)) {
		return nil, invalid("length field %d for %d bytes", totlen, len(b))
	}
	if v := be.Uint16(b[offVer:]); v != ProtoVer {
		return nil, invalid("protocol version %d, not %d", v, ProtoVer)
	}
	msg := &Message{}
	h := &msg.Header
	h.Port = be.Uint16(b[offPort:])
	h.Type = Type(be.Uint16(b[offType:]))
	h.Count = be.Uint16(b[offCount:])
	h.CurrentEpoch = be.Uint64(b[offCurrentEpoch:])
	h.ConfigEpoch = be.Uint64(b[offConfigEpoch:])
	h.Offset = be.Uint64(b[offOffset:])
	copy(h.Sender[:], b[offSender:])
	copy(h.MySlots[:], b[offMySlots:])
	copy(h.SlaveOf[:], b[offSlaveOf:])
	copy(h.MyIP[:], b[offMyIP:])
	h.Extensions = be.Uint16(b[offExtensions:])
	copy(h.Reserved[:], b[offNotUsed1:])
	h.PPort = be.Uint16(b[offPPort:])
	h.CPort = be.Uint16(b[offCPort:])
	h.Flags = NodeFlags(be.Uint16(b[offFlags:]))
	h.State = b[offState]
	copy(h.MFlags[:], b[offMFlags:])

	d := b[offData:]
	// want is explen less the header, in 64 bits so that no sum wraps.
	var want uint64
	switch t := h.Type; {
	case t.isPing():
		p, err := decodePing(h, d)
		if err != nil {
			return nil, err
		}
		msg.Body = p
		return msg, nil
	case t == TypeFail:
		want = failSize
		if uint64(len(d)) == want {
			f := &Fail{}
			copy(f.Node[:], d)
			msg.Body = f
		}
	case t == TypePublish || t == TypePublishShard:
		want = offPublishBulk
		if len(d) >= offPublishBulk {
			cl, ml := be.Uint32(d[offPublishChannelLen:]), be.Uint32(d[offPublishMessageLen:])
			want += uint64(cl) + uint64(ml)
			if uint64(len(d)) == want {
				bulk := d[offPublishBulk:]
				msg.Body = &Publish{Channel: clone(bulk[:cl]), Message: clone(bulk[cl:])}
			}
		}
	case t == TypeUpdate:
		want = updateSize
		if uint64(len(d)) == want {
			u := &Update{ConfigEpoch: be.Uint64(d[offUpdateConfigEpoch:])}
			copy(u.Node[:], d[offUpdateNode:])
			copy(u.Slots[:], d[offUpdateSlots:])
			msg.Body = u
		}
	case t == TypeModule:
		want = offModuleBulk
		if len(d) >= offModuleBulk {
			want += uint64(be.Uint32(d[offModuleLen:]))
			if uint64(len(d)) == want {
				msg.Body = &Module{ModuleID: binary.LittleEndian.Uint64(d[offModuleID:]),
					Type: d[offModuleType], Payload: clone(d[offModuleBulk:])}
			}
		}
	case t == TypeFailoverAuthRequest || t == TypeFailoverAuthAck || t == TypeMFStart:
		want = 0
	default:
		msg.Body = &Unknown{Data: clone(d)}
		return msg, nil
	}
	if uint64(len(d)) != want {
		return nil, invalid("%s message of length %d but expected length %d", h.Type, totlen, HeaderSize+want)
	}
	return msg, nil
}

// decodePing reads the gossip entries and extensions of a PING, PONG or
// MEET.
func decodePing(h *Header, d []byte) (*Ping, error) {
	gossipLen := int(h.Count) * GossipSize
	if gossipLen > len(d) {
		return nil, invalid("%s message of length %d but %d gossip entries need %d", h.Type,
			HeaderSize+len(d), h.Count, HeaderSize+gossipLen)
	}
	p := &Ping{}
	if h.Count > 0 {
		p.Gossip = make([]Gossip, h.Count)
		for i := range p.Gossip {
			p.Gossip[i] = readGossip(d[i*GossipSize:])
		}
	}
	rest := d[gossipLen:]
	if h.MFlags[0]&MFlag0ExtData == 0 {
		if h.Extensions != 0 {
			return nil, invalid("%s message announces %d extensions without the extension flag", h.Type, h.Extensions)
		}
	} else {
		for i := 0; i < int(h.Extensions); i++ {
			if len(rest) < ExtHeaderSize {
				return nil, invalid("%s message ends inside extension %d's header", h.Type, i)
			}
			n := be.Uint32(rest[offExtLength:])
			switch {
			case n%8 != 0:
				return nil, invalid("%s message without proper padding (%d bytes)", h.Type, n)
			case n < ExtHeaderSize:
				return nil, invalid("%s message with an extension of %d bytes, shorter than its header", h.Type, n)
			case n > MaxExtLen:
				return nil, invalid("%s message with an extension of %d bytes, past Redis's 16-bit limit", h.Type, n)
			case uint64(n) > uint64(len(rest)):
				return nil, invalid("%s message with extension data that exceeds total packet length (%d)", h.Type, HeaderSize+len(d))
			}
			e := Ext{Type: be.Uint16(rest[offExtType:]), Reserved: be.Uint16(rest[offExtUnused:]),
				Data: clone(rest[ExtHeaderSize:n])}
			if _, ok := e.Hostname(); e.Type == ExtHostname && !ok {
				return nil, invalid("%s message with a hostname extension that has no NUL", h.Type)
			}
			p.Exts = append(p.Exts, e)
			rest = rest[n:]
		}
	}
	if len(rest) != 0 {
		return nil, invalid("%s message of length %d but expected length %d", h.Type,
			HeaderSize+len(d), HeaderSize+len(d)-len(rest))
	}
	return p, nil
}

func readGossip(d []byte) Gossip {
	g := Gossip{
		PingSent:     be.Uint32(d[offGossipPingSent:]),
		PongReceived: be.Uint32(d[offGossipPongReceived:]),
		Port:         be.Uint16(d[offGossipPort:]),
		CPort:        be.Uint16(d[offGossipCPort:]),
		Flags:        NodeFlags(be.Uint16(d[offGossipFlags:])),
		PPort:        be.Uint16(d[offGossipPPort:]),
		Reserved:     be.Uint16(d[offGossipNotUsed1:]),
	}
	copy(g.Node[:], d[offGossipNode:])
	copy(g.IP[:], d[offGossipIP:])
	return g
}

// clone copies b; empty stays nil, so that a decoded message compares
// equal to one built without the field.
func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
