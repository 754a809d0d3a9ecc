package clusterbus

// Message is one clusterMsg: the header every type shares and the data
// its type carries.
type Message struct {
	Header
	// Body is the type's data: *Ping for PING, PONG and MEET, *Fail,
	// *Publish for PUBLISH and PUBLISHSHARD, *Update, *Module, and
	// *Unknown for a type Redis 7.0 does not know. FAILOVER_AUTH_REQUEST,
	// FAILOVER_AUTH_ACK and MFSTART are a header alone: their Body is
	// nil. Encode takes a nil Body as the type's empty data.
	Body Body
}

// Header is the fixed part of every message, in wire order. The signature,
// total length and protocol version are not here: Encode writes them and
// Decode checks them.
type Header struct {
	// Port is the sender's client port (the TLS one when TLS is on), as
	// announced (cluster-announce-port).
	Port uint16
	Type Type
	// Count is the number of gossip entries of a PING, PONG or MEET, which
	// Encode takes from the body; other types carry it unused.
	Count uint16
	// CurrentEpoch is the sender's view of the cluster's epoch.
	CurrentEpoch uint64
	// ConfigEpoch is the sender's config epoch if it is a master, its
	// master's if it is a replica.
	ConfigEpoch uint64
	// Offset is the replication offset: a master's own, a replica's
	// processed one.
	Offset uint64
	Sender NodeName
	// MySlots are the slots the sender serves, or its master's if it is
	// a replica.
	MySlots SlotBitmap
	// SlaveOf names the sender's master, zero for a master.
	SlaveOf NodeName
	// MyIP is the sender's announced address (cluster-announce-ip);
	// empty, the receiver uses the connection's peer address.
	MyIP IP
	// Extensions is the number of ping extensions, which Encode takes from
	// a PING, PONG or MEET's body; other types carry it unused.
	Extensions uint16
	// Reserved is notused1, 30 bytes Redis zeroes and ignores, kept so a
	// decoded message encodes to the bytes it came from.
	Reserved [30]byte
	// PPort is the plaintext client port when Port is TLS, else 0.
	PPort uint16
	// CPort is the sender's cluster bus port.
	CPort uint16
	// Flags are the sender's NodeFlags (NodeMyself always set by Redis).
	Flags NodeFlags
	// State is the cluster state from the sender's view (StateOK,
	// StateFail).
	State uint8
	// MFlags are message flags, MFlag0* in MFlags[0]. Encode sets
	// MFlag0ExtData when a PING, PONG or MEET has extensions.
	MFlags [3]byte
}

// Body is the data of one message type. Its implementations are the
// package's *Ping, *Fail, *Publish, *Update, *Module and *Unknown.
type Body interface{ body() }

// Ping is the data of PING, PONG and MEET: gossip about other nodes, then
// extensions about the sender.
type Ping struct {
	Gossip []Gossip
	Exts   []Ext
}

// Gossip is one clusterMsgDataGossip entry: what the sender knows of
// another node.
type Gossip struct {
	Node NodeName
	// PingSent and PongReceived are the sender's last PING to the node and
	// last PONG from it, in Unix seconds (0 for none pending).
	PingSent     uint32
	PongReceived uint32
	IP           IP
	Port         uint16
	CPort        uint16
	Flags        NodeFlags
	PPort        uint16
	// Reserved is notused1, which Redis zeroes and ignores.
	Reserved uint16
}

// Ext is one ping extension (clusterMsgPingExt) as it is on the wire: its
// type and its data, padded to a multiple of 8 bytes. HostnameExt makes
// the one extension Redis 7.0 sends.
type Ext struct {
	Type uint16
	// Reserved is the header's 16 bits of padding, ignored by Redis.
	Reserved uint16
	// Data follows the 8-byte extension header. Encode pads it with zeros
	// to a multiple of 8 bytes.
	Data []byte
}

// Fail is the data of FAIL: a node the sender declares failed.
type Fail struct {
	Node NodeName
}

// Publish is the data of PUBLISH and PUBLISHSHARD: a message published on
// the sender, for the receiver's subscribers.
type Publish struct {
	Channel []byte
	Message []byte
}

// Update is the data of UPDATE: a node's newer slot configuration, sent
// to a node whose PING claimed slots it no longer owns.
type Update struct {
	ConfigEpoch uint64
	Node        NodeName
	Slots       SlotBitmap
}

// Module is the data of MODULE: a message from a module's cluster API
// (RM_SendClusterMessage) to the same module on the receiver.
type Module struct {
	// ModuleID identifies the sending module (moduleTypeEncodeId of its
	// name). It is the one field Redis does not convert to network order:
	// it travels in the sender's host order, little endian on the
	// platforms Redis runs on, and that is how it is read and written here.
	ModuleID uint64
	Type     uint8
	Payload  []byte
}

// Unknown is the data of a type past TypeCount, as it came: Redis 7.0
// accepts such messages (a newer node's) and ignores them.
type Unknown struct {
	Data []byte
}

func (*Ping) body()    {}
func (*Fail) body()    {}
func (*Publish) body() {}
func (*Update) body()  {}
func (*Module) body()  {}
func (*Unknown) body() {}

// HostnameExt returns the hostname extension announcing name: the name, a
// NUL, and zeros to a multiple of 8 bytes, as writeHostnamePingExt lays it
// out. Redis 7.0 sends one only when the hostname is not empty.
func HostnameExt(name string) Ext {
	data := make([]byte, (len(name)+1+7)&^7)
	copy(data, name)
	return Ext{Type: ExtHostname, Data: data}
}

// Hostname returns the name of a hostname extension: its data up to the
// first NUL. ok is false for other types, and for data without a NUL
// (which Decode rejects).
func (e Ext) Hostname() (name string, ok bool) {
	if e.Type != ExtHostname {
		return "", false
	}
	for i, c := range e.Data {
		if c == 0 {
			return string(e.Data[:i]), true
		}
	}
	return "", false
}

// Hostname returns the sender's hostname as clusterProcessPingExtensions
// takes it: the last hostname extension's, or "" without one (which
// clears the sender's hostname on a Redis receiver).
func (p *Ping) Hostname() string {
	name := ""
	for _, e := range p.Exts {
		if h, ok := e.Hostname(); ok {
			name = h
		}
	}
	return name
}
