// Package clusterbus is the Redis Cluster bus wire format: the clusterMsg
// packets that cluster nodes exchange on their bus port (the client port
// plus 10000 by default), encoded and decoded byte for byte as Redis 7.0
// does, so that limitkv nodes can sit in one cluster with redis-server 7.0
// nodes.
//
// The specification is Redis 7.0.15's src/cluster.h (the structures and
// the static_asserts fixing their offsets) and src/cluster.c (which fields
// go through htons/htonl/htonu64, what clusterProcessPacket and
// clusterReadHandler accept). Every multi-byte field is big endian but
// the MODULE message's module id, which Redis copies in its host order.
//
// The package knows nothing of sockets, nodes or cluster state: Encode and
// Decode turn a Message into bytes and back, ReadFrame and ReadMessage cut
// one message off a stream. Decode accepts what clusterProcessPacket
// accepts and rejects what it drops, with one rule added: where Redis 7.0
// would read past the packet it was given (see Decode), Decode rejects.
package clusterbus

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/bits"
)

// Type is a message's type field (CLUSTERMSG_TYPE_*).
type Type uint16

// The message types of Redis 7.0. PING, PONG and MEET are one packet: a
// PONG answers a PING or MEET, and a MEET makes the receiver add the
// sender to its nodes.
const (
	TypePing                Type = 0
	TypePong                Type = 1
	TypeMeet                Type = 2
	TypeFail                Type = 3
	TypePublish             Type = 4
	TypeFailoverAuthRequest Type = 5
	TypeFailoverAuthAck     Type = 6
	TypeUpdate              Type = 7
	TypeMFStart             Type = 8
	TypeModule              Type = 9
	TypePublishShard        Type = 10
	// TypeCount is one past the last type Redis 7.0 knows
	// (CLUSTERMSG_TYPE_COUNT); Redis accepts higher ones and ignores them.
	TypeCount Type = 11
)

var typeNames = [TypeCount]string{"ping", "pong", "meet", "fail", "publish", "auth-req", "auth-ack",
	"update", "mfstart", "module", "publishshard"}

// String is the name Redis's logs and CLUSTER INFO give the type
// (clusterGetMessageTypeString), "unknown" past TypeCount.
func (t Type) String() string {
	if t < TypeCount {
		return typeNames[t]
	}
	return "unknown"
}

// isPing reports whether t carries gossip and extensions.
func (t Type) isPing() bool { return t == TypePing || t == TypePong || t == TypeMeet }

// NodeFlags is a node's flags field (CLUSTER_NODE_*), in the header about
// the sender and in each gossip entry about another node.
type NodeFlags uint16

// The node flags of Redis 7.0.
const (
	NodeMaster     NodeFlags = 1   // a master
	NodeSlave      NodeFlags = 2   // a replica
	NodePFail      NodeFlags = 4   // unreachable from the sender's view, not yet agreed
	NodeFail       NodeFlags = 8   // failed, as a majority of masters agreed
	NodeMyself     NodeFlags = 16  // set by every sender on itself
	NodeHandshake  NodeFlags = 32  // first PING not yet exchanged
	NodeNoAddr     NodeFlags = 64  // address unknown
	NodeMeet       NodeFlags = 128 // a MEET is to be sent to it
	NodeMigrateTo  NodeFlags = 256 // a master eligible for replica migration
	NodeNoFailover NodeFlags = 512 // a replica that will not fail over
)

// Bits of Header.MFlags[0] (CLUSTERMSG_FLAG0_*); MFlags[1] and [2] have
// none in Redis 7.0.
const (
	MFlag0Paused   = 1 << 0 // a master paused for a manual failover
	MFlag0ForceAck = 1 << 1 // vote for this FAILOVER_AUTH_REQUEST even if the master is up
	MFlag0ExtData  = 1 << 2 // PING, PONG or MEET carrying extensions
)

// Cluster states in Header.State, from the sender's point of view.
const (
	StateOK   = 0
	StateFail = 1
)

// ExtHostname is the ping extension type carrying the sender's announced
// hostname (cluster-announce-hostname), the only extension Redis 7.0
// defines and sends. Later releases add others (human node name,
// forgotten node, shard id); Decode keeps any type as an Ext, and Redis
// 7.0 skips the ones it does not know.
const ExtHostname uint16 = 0

// Sizes on the wire.
const (
	// Slots is the number of hash slots, one bit each in a SlotBitmap.
	Slots = 16384
	// NameLen is a node name's length: 40 hex characters (CLUSTER_NAMELEN).
	NameLen = 40
	// IPLen is an address field's length, NUL-padded (NET_IP_STR_LEN).
	IPLen = 46
	// HeaderSize is the fixed header before the type's data, the least
	// a message can be (CLUSTERMSG_MIN_LEN, sizeof(clusterMsg) without
	// its union). The C struct with its union is 4352 bytes, but no
	// message is sent at that size unless its data fills it.
	HeaderSize = 2256
	// GossipSize is one clusterMsgDataGossip entry.
	GossipSize = 104
	// ExtHeaderSize is a ping extension's length and type before its data
	// (clusterMsgPingExt).
	ExtHeaderSize = 8
	// MaxExtLen is the largest extension length Redis 7.0 accepts: it
	// reads the 32-bit length into a uint16 when checking a packet.
	MaxExtLen = 65535 &^ 7
)

// NodeName is a node's 40-character name (its id, as CLUSTER MYID says),
// as raw bytes: a wire field is not checked, a name from Redis is 40
// lowercase hex digits, and the all-zero name means "none" (SlaveOf of a
// master).
type NodeName [NameLen]byte

// NewNodeName returns a random name as Redis makes one
// (getRandomHexChars): 40 lowercase hex digits.
func NewNodeName() NodeName {
	var raw [NameLen / 2]byte
	_, _ = rand.Read(raw[:])
	var n NodeName
	hex.Encode(n[:], raw[:])
	return n
}

// ParseNodeName returns s as a name if Redis would look a node up by it
// (verifyClusterNodeId: 40 characters, each 0-9 or a-z).
func ParseNodeName(s string) (NodeName, error) {
	var n NodeName
	if len(s) != NameLen {
		return n, fmt.Errorf("clusterbus: node name %q is not %d characters", s, NameLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return n, fmt.Errorf("clusterbus: node name %q has a byte outside 0-9 and a-z", s)
		}
	}
	copy(n[:], s)
	return n, nil
}

// String returns the name's bytes as they are.
func (n NodeName) String() string { return string(n[:]) }

// IsZero reports whether n is the null name (CLUSTER_NODE_NULL_NAME).
func (n NodeName) IsZero() bool { return n == NodeName{} }

// IP is an address field (myip, a gossip entry's ip): a NUL-terminated
// string in 46 bytes. A sender's empty myip asks the receiver to take the
// address the connection comes from.
type IP [IPLen]byte

// MakeIP returns s in an address field, cut to 45 bytes as Redis's strncpy
// of cluster-announce-ip does.
func MakeIP(s string) IP {
	var ip IP
	copy(ip[:IPLen-1], s)
	return ip
}

// String returns the bytes before the first NUL.
func (ip IP) String() string {
	for i, c := range ip {
		if c == 0 {
			return string(ip[:i])
		}
	}
	return string(ip[:])
}

// SlotBitmap holds one bit per hash slot, slot s being bit s%8 (least
// significant first) of byte s/8, as bitmapTestBit reads it.
type SlotBitmap [Slots / 8]byte

// Has reports whether slot is set.
func (m *SlotBitmap) Has(slot uint16) bool { return m[slot/8]&(1<<(slot%8)) != 0 }

// Set sets slot.
func (m *SlotBitmap) Set(slot uint16) { m[slot/8] |= 1 << (slot % 8) }

// Clear clears slot.
func (m *SlotBitmap) Clear(slot uint16) { m[slot/8] &^= 1 << (slot % 8) }

// Count returns the number of slots set.
func (m *SlotBitmap) Count() int {
	n := 0
	for _, b := range m {
		n += bits.OnesCount8(b)
	}
	return n
}
