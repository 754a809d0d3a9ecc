package clusterstate

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"math/bits"
)

// Sizes and timing multipliers of cluster.h.
const (
	Slots    = 16384 // CLUSTER_SLOTS
	NameLen  = 40    // CLUSTER_NAMELEN: a node ID is 40 characters
	PortIncr = 10000 // CLUSTER_PORT_INCR: the bus port when none is given

	// FailReportValidityMult times the node timeout is how long a failure
	// report counts (CLUSTER_FAIL_REPORT_VALIDITY_MULT).
	FailReportValidityMult = 2
	// FailUndoTimeMult times the node timeout is how long a master serving
	// slots stays FAIL once reachable again (CLUSTER_FAIL_UNDO_TIME_MULT).
	FailUndoTimeMult = 2
	// BlacklistTTL is how long, in seconds, a forgotten node is not re-added
	// from gossip (CLUSTER_BLACKLIST_TTL).
	BlacklistTTL = 60
)

// Name is a node ID: 40 characters, lower-case letters and digits (Redis
// generates hex). A fixed array, so it is a map key and compares as
// memcmp does.
type Name [NameLen]byte

// NullName is the all-zero name the bus sends for "no master"
// (CLUSTER_NODE_NULL_NAME).
var NullName Name

// ParseName accepts what verifyClusterNodeId accepts: exactly 40 bytes of
// a-z and 0-9. Node IDs from commands and from nodes.conf go through it.
func ParseName(s string) (Name, bool) {
	var n Name
	if len(s) != NameLen {
		return n, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return n, false
		}
		n[i] = c
	}
	return n, true
}

// NewName returns 40 random hex characters, as getRandomHexChars makes a
// node's first name (and a handshake node's provisional one).
func NewName() Name { return RandomName(rand.Reader) }

// RandomName is NewName reading its randomness from r (a test's
// deterministic source). It panics if r fails, as a node cannot run
// without a name.
func RandomName(r io.Reader) Name {
	var raw [NameLen / 2]byte
	if _, err := io.ReadFull(r, raw[:]); err != nil {
		panic("clusterstate: no randomness for a node name: " + err.Error())
	}
	var n Name
	hex.Encode(n[:], raw[:])
	return n
}

func (n Name) String() string { return string(n[:]) }

// Flags is a node's CLUSTER_NODE_* bitset; the values are Redis's, as the
// bus carries them.
type Flags uint16

// The node flags of cluster.h.
const (
	FlagMaster     Flags = 1 << iota // master
	FlagSlave                        // slave (a replica)
	FlagPFail                        // fail?: we cannot reach it
	FlagFail                         // fail: a majority of masters agree
	FlagMyself                       // myself
	FlagHandshake                    // handshake: the first PING is not answered yet
	FlagNoAddr                       // noaddr: its address is unknown
	FlagMeet                         // send it MEET rather than PING
	FlagMigrateTo                    // a master eligible for replica migration
	FlagNoFailover                   // nofailover: a replica that will not fail over
)

// flagNames is redisNodeFlagsTable: the flags nodes.conf and CLUSTER NODES
// show, in the order shown. MEET and MIGRATE_TO are never shown.
var flagNames = [...]struct {
	flag Flags
	name string
}{
	{FlagMyself, "myself"},
	{FlagMaster, "master"},
	{FlagSlave, "slave"},
	{FlagPFail, "fail?"},
	{FlagFail, "fail"},
	{FlagHandshake, "handshake"},
	{FlagNoAddr, "noaddr"},
	{FlagNoFailover, "nofailover"},
}

// String is representClusterNodeFlags: the shown flags joined by commas,
// or "noflags".
func (f Flags) String() string { return string(f.appendText(nil)) }

func (f Flags) appendText(b []byte) []byte {
	start := len(b)
	for _, fn := range flagNames {
		if f&fn.flag != 0 {
			if len(b) > start {
				b = append(b, ',')
			}
			b = append(b, fn.name...)
		}
	}
	if len(b) == start {
		b = append(b, "noflags"...)
	}
	return b
}

// Bitmap is a set of slots laid out as cluster.c's bitmaps (bit j of byte
// j/8, least significant first), the layout of the bus's myslots field.
type Bitmap [Slots / 8]byte

// Has reports whether slot is in the set (bitmapTestBit).
func (b *Bitmap) Has(slot int) bool { return b[slot>>3]&(1<<(slot&7)) != 0 }

// Set adds slot (bitmapSetBit).
func (b *Bitmap) Set(slot int) { b[slot>>3] |= 1 << (slot & 7) }

// Clear removes slot (bitmapClearBit).
func (b *Bitmap) Clear(slot int) { b[slot>>3] &^= 1 << (slot & 7) }

// Count is the number of slots in the set.
func (b *Bitmap) Count() int {
	n := 0
	for _, c := range b {
		n += bits.OnesCount8(c)
	}
	return n
}

// Ranges is the set as ascending runs of consecutive slots, the form
// nodes.conf, CLUSTER NODES and CLUSTER SHARDS give.
func (b *Bitmap) Ranges() []Range {
	var rs []Range
	start := -1
	for j := 0; j <= Slots; j++ {
		in := j < Slots && b.Has(j)
		switch {
		case in && start < 0:
			start = j
		case !in && start >= 0:
			rs = append(rs, Range{start, j - 1})
			start = -1
		}
	}
	return rs
}

// Range is the slots Start to End, both included.
type Range struct{ Start, End int }

// FailReport is one node's word that another is failing
// (clusterNodeFailReport), with the time it was last said.
type FailReport struct {
	Node *Node
	Time int64 // ms
}

// Node is one node of the cluster as this node sees it (clusterNode).
//
// The exported fields are plain data the bus and the cron update as
// cluster.c does. What must stay consistent with the rest of the State is
// unexported and changed through State's methods: the name (the key of the
// nodes table), the slots (mirrored by the owner table), the master and
// replica links (kept symmetric) and the failure reports.
type Node struct {
	Flags       Flags
	ConfigEpoch uint64
	IP          string // latest known address; "" before the first MEET
	Hostname    string // announced hostname; "" when none
	Port        int    // clients' port (TLS when the cluster bus is TLS)
	PPort       int    // plaintext clients' port of a TLS node, else 0
	CPort       int    // the cluster bus port

	// Linked is whether this node has an outbound bus link (node->link in
	// Redis, which exists from the connect attempt on): CLUSTER NODES says
	// "connected" for it and for myself, "disconnected" otherwise.
	Linked bool

	// Times in Unix milliseconds, 0 when never.
	Ctime          int64 // when this entry was created
	PingSent       int64 // our pending PING, 0 once answered
	PongReceived   int64
	DataReceived   int64
	FailTime       int64 // when FAIL was set
	VotedTime      int64 // our last vote for a replica of this master
	ReplOffsetTime int64
	OrphanedTime   int64
	ReplOffset     int64 // last known replication offset

	name        Name
	slots       Bitmap
	numSlots    int
	master      *Node
	replicas    []*Node
	failReports []FailReport
}

// NewNode is createClusterNode: a node with the given name and flags, made
// at now, known to no State until AddNode. Pass NewName() for a node whose
// name is not known yet.
func NewNode(name Name, flags Flags, now int64) *Node {
	return &Node{name: name, Flags: flags, Ctime: now}
}

// Name is the node ID.
func (n *Node) Name() Name { return n.name }

// ID is the node ID as a string.
func (n *Node) ID() string { return string(n.name[:]) }

// IsMaster is nodeIsMaster.
func (n *Node) IsMaster() bool { return n.Flags&FlagMaster != 0 }

// IsReplica is nodeIsSlave.
func (n *Node) IsReplica() bool { return n.Flags&FlagSlave != 0 }

// IsMyself reports the MYSELF flag.
func (n *Node) IsMyself() bool { return n.Flags&FlagMyself != 0 }

// InHandshake is nodeInHandshake.
func (n *Node) InHandshake() bool { return n.Flags&FlagHandshake != 0 }

// HasAddr is nodeHasAddr.
func (n *Node) HasAddr() bool { return n.Flags&FlagNoAddr == 0 }

// TimedOut is nodeTimedOut: PFAIL is set.
func (n *Node) TimedOut() bool { return n.Flags&FlagPFail != 0 }

// Failed is nodeFailed: FAIL is set.
func (n *Node) Failed() bool { return n.Flags&FlagFail != 0 }

// CantFailover is nodeCantFailover.
func (n *Node) CantFailover() bool { return n.Flags&FlagNoFailover != 0 }

// Master is the node this one replicates (slaveof), nil for a master or a
// replica whose master we do not know.
func (n *Node) Master() *Node { return n.master }

// Replicas are the nodes known to replicate this one, in the order they
// were added (the order CLUSTER SLOTS and SHARDS list them). The slice is
// the node's own: do not modify it.
func (n *Node) Replicas() []*Node { return n.replicas }

// NumSlots is how many slots the node serves.
func (n *Node) NumSlots() int { return n.numSlots }

// HasSlot reports whether the node serves slot (clusterNodeGetSlotBit).
func (n *Node) HasSlot(slot int) bool { return n.slots.Has(slot) }

// Slots is a copy of the node's slot bitmap (what the bus sends as myslots
// and compares with the one received).
func (n *Node) Slots() Bitmap { return n.slots }

// FailReports is a copy of the failure reports about this node, oldest
// first. They may be stale: FailureReportsCount drops the expired ones.
func (n *Node) FailReports() []FailReport {
	return append([]FailReport(nil), n.failReports...)
}

// CountNonFailingReplicas is clusterCountNonFailingSlaves.
func (n *Node) CountNonFailingReplicas() int {
	ok := 0
	for _, r := range n.replicas {
		if !r.Failed() {
			ok++
		}
	}
	return ok
}

// addReplica is clusterNodeAddSlave: the caller sets r.master.
func (n *Node) addReplica(r *Node) bool {
	for _, x := range n.replicas {
		if x == r {
			return false
		}
	}
	n.replicas = append(n.replicas, r)
	n.Flags |= FlagMigrateTo
	return true
}

// removeReplica is clusterNodeRemoveSlave: the caller updates r.master.
func (n *Node) removeReplica(r *Node) bool {
	for j, x := range n.replicas {
		if x == r {
			n.replicas = append(n.replicas[:j], n.replicas[j+1:]...)
			if len(n.replicas) == 0 {
				// A master that lost its last replica is no longer a
				// target for replica migration until it gets one again.
				n.Flags &^= FlagMigrateTo
			}
			return true
		}
	}
	return false
}
