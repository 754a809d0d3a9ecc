package clusterstate

import (
	"errors"
	"net/netip"
)

// Health is the cluster's state as this node judges it (CLUSTER_OK,
// CLUSTER_FAIL).
type Health int

// The two cluster states, with Redis's values.
const (
	StateOK   Health = 0
	StateFail Health = 1
)

func (h Health) String() string {
	if h == StateOK {
		return "ok"
	}
	return "fail"
}

// Todo is what clusterBeforeSleep must do (todo_before_sleep): operations
// add to State.Todo where cluster.c calls clusterDoBeforeSleep, and the
// component does the work and clears the bits.
type Todo uint8

// The CLUSTER_TODO_* bits.
const (
	TodoHandleFailover       Todo = 1 << iota // run the replica failover logic
	TodoUpdateState                           // re-evaluate Health and Size (UpdateState)
	TodoSaveConfig                            // write nodes.conf
	TodoFsyncConfig                           // and fsync it
	TodoHandleManualFailover                  // run the manual failover logic
)

// MsgTypeCount is the number of bus message types (CLUSTERMSG_TYPE_COUNT);
// the message statistics are indexed by Redis's type numbers.
const MsgTypeCount = 11

// State is this node's view of the cluster (clusterState).
type State struct {
	// Myself is this node; it is in the nodes table.
	Myself *Node

	CurrentEpoch  uint64
	LastVoteEpoch uint64 // epoch of the last vote this master granted

	// Health and Size are what UpdateState last computed: the cluster state
	// and the number of masters serving at least one slot.
	Health Health
	Size   int

	// NodeTimeout (cluster-node-timeout, ms) and RequireFullCoverage
	// (cluster-require-full-coverage) are the settings the operations here
	// read; New sets Redis's defaults.
	NodeTimeout         int64
	RequireFullCoverage bool

	Todo Todo

	// Bus statistics for CLUSTER INFO, kept by the bus: messages sent and
	// received by type, and links freed for exceeding their buffer limit.
	MessagesSent             [MsgTypeCount]int64
	MessagesReceived         [MsgTypeCount]int64
	LinksBufferLimitExceeded uint64

	// OnShardSlotDeleted, when set, is called with a slot that loses its
	// owner while that owner is this node or its master: Redis then drops
	// the slot's shard channels (removeChannelsInSlot).
	OnShardSlotDeleted func(slot int)

	nodes         map[Name]*Node
	order         []*Node // the nodes in the order the texts list them
	slots         [Slots]*Node
	migratingTo   [Slots]*Node
	importingFrom [Slots]*Node
	blacklist     map[Name]int64 // name -> Unix second it may be re-added after

	// clusterUpdateState's statics.
	firstUpdate       int64
	amongMinorityTime int64
}

// DefaultNodeTimeout is cluster-node-timeout's default, in ms.
const DefaultNodeTimeout = 15000

func newState() *State {
	return &State{
		Health:              StateFail,
		Size:                1, // clusterInit's value until UpdateState runs
		NodeTimeout:         DefaultNodeTimeout,
		RequireFullCoverage: true,
		nodes:               map[Name]*Node{},
		blacklist:           map[Name]int64{},
	}
}

// New is the state of a node that found no nodes.conf (clusterInit): a
// master with a new random name that knows no other node. The component
// then sets myself's ports and address and saves the file.
func New(now int64) *State {
	s := newState()
	s.Myself = NewNode(NewName(), FlagMyself|FlagMaster, now)
	s.mustAdd(s.Myself)
	return s
}

// ErrNodeExists is AddNode's and RenameNode's answer for a name already in
// the table (an assertion in Redis).
var ErrNodeExists = errors.New("clusterstate: a node with that name already exists")

// AddNode adds n to the nodes table (clusterAddNode), at the end of the
// listing order.
func (s *State) AddNode(n *Node) error {
	if _, dup := s.nodes[n.name]; dup {
		return ErrNodeExists
	}
	s.nodes[n.name] = n
	s.order = append(s.order, n)
	return nil
}

func (s *State) mustAdd(n *Node) {
	if err := s.AddNode(n); err != nil {
		panic(err)
	}
}

// Lookup finds a node by name.
func (s *State) Lookup(name Name) *Node { return s.nodes[name] }

// LookupID is clusterLookupNode: a node by an ID given as text, nil when
// the ID is malformed or unknown.
func (s *State) LookupID(id string) *Node {
	name, ok := ParseName(id)
	if !ok {
		return nil
	}
	return s.nodes[name]
}

// Nodes lists every known node in the listing order: nodes.conf's order
// for the nodes loaded from it, then the others as they were added. Redis
// lists its hash table's order, which the file records; keeping it makes a
// file Redis wrote save back unchanged.
func (s *State) Nodes() []*Node { return append([]*Node(nil), s.order...) }

// NumNodes is cluster_known_nodes (handshake nodes included).
func (s *State) NumNodes() int { return len(s.nodes) }

// DelNode is clusterDelNode: the node's slots become unassigned, its
// migrating and importing marks go, the failure reports it sent are
// dropped, its replicas forget their master and it leaves its master's
// replica list and the table. Deleting Myself is not allowed (Redis never
// does) and panics.
func (s *State) DelNode(n *Node) {
	if n == s.Myself {
		panic("clusterstate: DelNode(myself)")
	}
	for j := 0; j < Slots; j++ {
		if s.importingFrom[j] == n {
			s.importingFrom[j] = nil
		}
		if s.migratingTo[j] == n {
			s.migratingTo[j] = nil
		}
		if s.slots[j] == n {
			s.DelSlot(j)
		}
	}
	for _, other := range s.order {
		if other != n {
			other.delFailReport(n)
		}
	}
	// freeClusterNode.
	for _, r := range n.replicas {
		r.master = nil
	}
	if n.IsReplica() && n.master != nil {
		n.master.removeReplica(n)
	}
	delete(s.nodes, n.name)
	for i, x := range s.order {
		if x == n {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// RenameNode is clusterRenameNode: a handshake node gets the name the peer
// gave in its first PONG. It keeps its place in the listing order.
func (s *State) RenameNode(n *Node, name Name) error {
	if name == n.name {
		return nil
	}
	if _, dup := s.nodes[name]; dup {
		return ErrNodeExists
	}
	delete(s.nodes, n.name)
	n.name = name
	s.nodes[name] = n
	return nil
}

// Handshake errors (clusterStartHandshake's errno).
var (
	ErrInvalidAddress      = errors.New("clusterstate: invalid node address")          // EINVAL
	ErrHandshakeInProgress = errors.New("clusterstate: handshake already in progress") // EAGAIN
)

// NormalizeIP is clusterStartHandshake's check and normal form of an
// address: an IPv4 or IPv6 literal (no zone), written as inet_ntop writes
// it.
func NormalizeIP(ip string) (string, bool) {
	a, err := netip.ParseAddr(ip)
	if err != nil || a.Zone() != "" {
		return "", false
	}
	return a.String(), true
}

// HandshakeInProgress is clusterHandshakeInProgress: a handshake node with
// this address (the IP compared case-insensitively) exists.
func (s *State) HandshakeInProgress(ip string, port, cport int) bool {
	for _, n := range s.order {
		if n.InHandshake() && EqualFoldASCII(n.IP, ip) && n.Port == port && n.CPort == cport {
			return true
		}
	}
	return false
}

// StartHandshake is clusterStartHandshake (CLUSTER MEET, and gossip about
// an unknown node): it adds a node in HANDSHAKE|MEET state with a random
// name, which RenameNode fixes when the peer answers. It fails with
// ErrInvalidAddress for a bad IP or port and ErrHandshakeInProgress when
// one is already under way for the address (CLUSTER MEET still answers OK).
func (s *State) StartHandshake(ip string, port, cport int, now int64) (*Node, error) {
	norm, ok := NormalizeIP(ip)
	if !ok || port <= 0 || port > 65535 || cport <= 0 || cport > 65535 {
		return nil, ErrInvalidAddress
	}
	if s.HandshakeInProgress(norm, port, cport) {
		return nil, ErrHandshakeInProgress
	}
	n := NewNode(NewName(), FlagHandshake|FlagMeet, now)
	n.IP, n.Port, n.CPort = norm, port, cport
	for s.nodes[n.name] != nil { // 160 random bits: never in practice
		n.name = NewName()
	}
	s.mustAdd(n)
	return n, nil
}

// BlacklistAdd keeps a forgotten node (CLUSTER FORGET) from being re-added
// by gossip for BlacklistTTL seconds (clusterBlacklistAddNode).
func (s *State) BlacklistAdd(name Name, now int64) {
	s.blacklistCleanup(now)
	s.blacklist[name] = now/1000 + BlacklistTTL
}

// BlacklistExists is clusterBlacklistExists.
func (s *State) BlacklistExists(name Name, now int64) bool {
	s.blacklistCleanup(now)
	_, ok := s.blacklist[name]
	return ok
}

// blacklistCleanup drops the expired entries on each use, as Redis does,
// so that entries never accumulate.
func (s *State) blacklistCleanup(now int64) {
	for name, expire := range s.blacklist {
		if expire < now/1000 {
			delete(s.blacklist, name)
		}
	}
}

// EqualFoldASCII is strcasecmp(a, b) == 0, as cluster.c compares node
// addresses: ASCII letters fold, every other byte must match.
func EqualFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
