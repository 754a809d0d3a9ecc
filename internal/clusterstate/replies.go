package clusterstate

// EndpointType is cluster-preferred-endpoint-type: what CLUSTER SLOTS and
// SHARDS give clients to connect to.
type EndpointType int

// The preferred endpoint types.
const (
	EndpointIP       EndpointType = iota // ip (the default)
	EndpointHostname                     // hostname ("?" when a node has none)
	EndpointUnknown                      // unknown-endpoint (null; "" in SHARDS)
)

// ReplyOptions is what CLUSTER SLOTS and SHARDS need beyond the state.
type ReplyOptions struct {
	Endpoint EndpointType
	// TLSCluster is tls-cluster: Port is then the TLS port and PPort the
	// plaintext one.
	TLSCluster bool
	// PlaintextClient is a client on a plaintext connection: in a TLS
	// cluster, CLUSTER SLOTS gives it the plaintext ports where known.
	PlaintextClient bool
	// MyReplOffset is myself's replication offset, which the state does not
	// keep: the processed offset as a replica (replicationGetSlaveOffset),
	// master_repl_offset as a master.
	MyReplOffset int64
}

// SlotsRange is one element of CLUSTER SLOTS: a run of slots with one
// owner, its master first, then its available replicas.
type SlotsRange struct {
	Start, End int
	Nodes      []SlotsNode
}

// SlotsNode is a node of a SlotsRange, sent as the array [endpoint, port,
// id, {meta}].
type SlotsNode struct {
	// Endpoint is the preferred endpoint; NullEndpoint means a RESP null
	// instead (EndpointUnknown).
	Endpoint     string
	NullEndpoint bool
	Port         int
	ID           string
	// Meta is the map of the other known endpoints, in order: "ip" unless
	// the endpoint is the IP, then "hostname" when the node has one and the
	// endpoint is not the hostname.
	Meta []Field
}

// Field is a name and a value of a reply map.
type Field struct{ Name, Value string }

// Slots is the content of CLUSTER SLOTS (clusterReplyMultiBulkSlots): the
// owner table's runs in slot order. A replica is listed when available:
// not FAIL and with a non-zero replication offset (isReplicaAvailable), so
// clients do not read from one still loading its first sync.
func (s *State) Slots(o ReplyOptions) []SlotsRange {
	var out []SlotsRange
	for _, r := range s.OwnerRanges() {
		e := SlotsRange{Start: r.Start, End: r.End, Nodes: []SlotsNode{s.slotsNode(r.Node, o)}}
		for _, rep := range r.Node.replicas {
			if s.replicaAvailable(rep, o) {
				e.Nodes = append(e.Nodes, s.slotsNode(rep, o))
			}
		}
		out = append(out, e)
	}
	return out
}

func (s *State) replicaAvailable(n *Node, o ReplyOptions) bool {
	if n.Failed() {
		return false
	}
	offset := n.ReplOffset
	if n.IsMyself() {
		offset = o.MyReplOffset
	}
	return offset != 0
}

// slotsNode is addNodeToNodeReply.
func (s *State) slotsNode(n *Node, o ReplyOptions) SlotsNode {
	sn := SlotsNode{Port: n.Port, ID: n.ID()}
	if o.TLSCluster && o.PlaintextClient && n.PPort != 0 {
		sn.Port = n.PPort
	}
	switch o.Endpoint {
	case EndpointIP:
		sn.Endpoint = n.IP
	case EndpointHostname:
		sn.Endpoint = n.Hostname
		if sn.Endpoint == "" {
			sn.Endpoint = "?"
		}
	default:
		sn.NullEndpoint = true
	}
	if o.Endpoint != EndpointIP {
		sn.Meta = append(sn.Meta, Field{"ip", n.IP})
	}
	if o.Endpoint != EndpointHostname && n.Hostname != "" {
		sn.Meta = append(sn.Meta, Field{"hostname", n.Hostname})
	}
	return sn
}

// Shard is one element of CLUSTER SHARDS: a master's slots, as start and
// end pairs, and its nodes, the master first.
type Shard struct {
	Slots []int // start1, end1, start2, end2, ...
	Nodes []ShardNode
}

// ShardNode is a node of a Shard, sent as a map whose fields, in this
// order, are id, port (when not 0), tls-port (when not 0), ip, endpoint,
// hostname (when not ""), role, replication-offset and health.
type ShardNode struct {
	ID         string
	Port       int // plaintext port, 0 when unknown
	TLSPort    int // TLS port in a TLS cluster, else 0
	IP         string
	Endpoint   string
	Hostname   string
	Role       string // "master" or "replica"
	ReplOffset int64
	Health     string // "online", "fail", or "loading" for a replica at offset 0
}

// Shards is the content of CLUSTER SHARDS (clusterReplyShards): one shard
// per master, slot-less masters included, in the listing order.
func (s *State) Shards(o ReplyOptions) []Shard {
	ranges := s.nodeRanges()
	var out []Shard
	for _, n := range s.order {
		if !n.IsMaster() {
			continue
		}
		sh := Shard{Slots: []int{}, Nodes: []ShardNode{s.shardNode(n, o)}}
		for _, r := range ranges[n] {
			sh.Slots = append(sh.Slots, r.Start, r.End)
		}
		for _, rep := range n.replicas {
			sh.Nodes = append(sh.Nodes, s.shardNode(rep, o))
		}
		out = append(out, sh)
	}
	return out
}

// shardNode is addNodeDetailsToShardReply.
func (s *State) shardNode(n *Node, o ReplyOptions) ShardNode {
	sn := ShardNode{ID: n.ID(), Port: n.Port, IP: n.IP, Hostname: n.Hostname, Role: "master", Health: "online"}
	if o.TLSCluster {
		sn.Port, sn.TLSPort = n.PPort, n.Port
	}
	switch o.Endpoint {
	case EndpointIP:
		sn.Endpoint = n.IP
	case EndpointHostname:
		sn.Endpoint = n.Hostname
		if sn.Endpoint == "" {
			sn.Endpoint = "?"
		}
	}
	sn.ReplOffset = n.ReplOffset
	if n.IsMyself() {
		sn.ReplOffset = o.MyReplOffset
	}
	if n.IsReplica() {
		sn.Role = "replica"
	}
	switch {
	case n.Failed():
		sn.Health = "fail"
	case n.IsReplica() && sn.ReplOffset == 0:
		sn.Health = "loading"
	}
	return sn
}
