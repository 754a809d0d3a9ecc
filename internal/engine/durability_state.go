package engine

const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	errMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
)

// replState is the part of replication the engine reads itself, on every
// command: the read-only and stale-data rules, WAIT's offsets and its
// request for ACKs. The durability component owns the link, the replicas
// and the backlog, and keeps these current through the methods below.
type replState struct {
	replica bool  // masterhost is set
	linkUp  bool  // repl_state is REPL_STATE_CONNECTED
	offset  int64 // master_repl_offset: bytes of the stream fed or applied
	getAck  bool  // a WAIT asked for ACKs: REPLCONF GETACK follows the command
}

// IsReplica reports whether the server replicates a master. Call with the
// lock held.
func (e *Engine) IsReplica() bool { return e.repl.replica }

// SetReplLink records whether the server is a replica and whether its link
// to the master is up, for the dispatcher's rules. Called by the
// durability component with the lock held, whenever either changes.
func (e *Engine) SetReplLink(replica, up bool) { e.repl.replica, e.repl.linkUp = replica, up }

// ReplOffset is master_repl_offset. Call with the lock held.
func (e *Engine) ReplOffset() int64 { return e.repl.offset }

// SetReplOffset moves master_repl_offset: the durability component does as
// it feeds, proxies or resynchronises the stream. Call with the lock held.
func (e *Engine) SetReplOffset(off int64) { e.repl.offset = off }

// RequestAcksAfterCommand makes REPLCONF GETACK go to the replicas once the
// running command is done (WAIT's replicationRequestAckFromSlaves), after
// what that command propagated.
func (e *Engine) RequestAcksAfterCommand() { e.repl.getAck = true }

// replicaDenies is processCommand's read-only replica rule.
func (e *Engine) replicaDenies(c *Client, cmd *Command) bool {
	if !e.repl.replica || c.IsMaster || !e.Cfg.ReplicaReadOnly.Load() {
		return false
	}
	return writesData(c, cmd)
}

// writesData is processCommand's is_write_command: a write, or an EXEC
// whose queue holds one.
func writesData(c *Client, cmd *Command) bool { return execHas(c, cmd, FlagWrite) }

// deniesStale is processCommand's is_denystale_command: what a replica
// with a broken link refuses when replica-serve-stale-data is no.
func deniesStale(c *Client, cmd *Command) bool { return execLacks(c, cmd, FlagStale) }

// ReplConn is what the durability component keeps of a connection that
// spoke replication (REPLCONF, SYNC, PSYNC). The engine asks it only
// whether it made the connection a replica, which changes how the
// connection's output is limited and listed.
type ReplConn interface {
	IsReplica() bool
}

// IsReplicaConn reports whether the connection is a replica (it sent SYNC or
// PSYNC). Call with the lock held.
func (c *Client) IsReplicaConn() bool { return c.Repl != nil && c.Repl.IsReplica() }
