package engine

import (
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/keyslot"
	"github.com/limitkv/limitkv/internal/keyspace"
)

// Cluster is what the engine asks of the cluster component when the server
// runs in cluster mode (cluster-enabled yes): whether this node serves a
// command's keys. The component keeps the cluster's state (nodes, slots,
// epochs, the bus) behind it; the engine only gathers the keys, as
// processCommand does before it calls getNodeByQuery.
type Cluster interface {
	// Redirect is getNodeByQuery with clusterRedirectClient's words: ""
	// when this node serves the query, else the error to refuse it with
	// ("MOVED 3999 127.0.0.1:6381", "CROSSSLOT ...", "CLUSTERDOWN ...").
	Redirect(q *SlotQuery) string
	// PropagatePublish sends a PUBLISH (shard false) to every node of the
	// cluster, or an SPUBLISH to the nodes of this node's shard, instead
	// of the replication stream (clusterPropagatePublish). Call with the
	// lock held.
	PropagatePublish(channel, message []byte, shard bool)
	// Cron is clusterCron, ten times a second; it takes the lock.
	Cron()
	// KillLink is DEBUG CLUSTERLINK KILL: the links with the node named
	// node in direction ("to", "from" or "all", any case) are closed. It
	// returns the error to answer with, "" for OK. Call with the lock held.
	KillLink(direction, node string) string
}

// Cluster.Redirect's CLUSTERDOWN errors for a cluster down (all commands, or
// writes when reads are allowed then), which scripts word their own way.
const (
	ErrClusterDown   = "CLUSTERDOWN The cluster is down"
	ErrClusterDownRO = "CLUSTERDOWN The cluster is down and only accepts read commands"
)

// SlotQuery is a command as getNodeByQuery sees it.
type SlotQuery struct {
	// Keys are the keys (and, for SPUBLISH/SSUBSCRIBE/SUNSUBSCRIBE, the
	// shard channels) of the command, or of every command an EXEC runs.
	Keys        [][]byte
	Write       bool // the command, or EXEC's queue, writes
	Asking      bool // the client sent ASKING, or the command is one allowed while importing
	ReadOnly    bool // the connection sent READONLY
	PubSubShard bool // SPUBLISH, SSUBSCRIBE, SUNSUBSCRIBE
	Migrate     bool // MIGRATE, served locally while its slot moves
	// Exists reports whether a key is in database 0, without touching or
	// expiring it (the lookup getNodeByQuery makes for a slot that moves).
	Exists func(key []byte) bool
}

// clusterRedirect is processCommand's cluster step: the error that refuses
// x's command, or "". Commands without keys (and EXEC outside MULTI) are
// always served; so are those of the master link and of the AOF.
func (e *Engine) clusterRedirect(x *Ctx, cmd *Command) string {
	c := x.C
	c.Slot = -1
	if c.MustObey() {
		return ""
	}
	q := e.newSlotQuery(c)
	switch cmd.Name {
	case "exec":
		if c.Multi == nil {
			return ""
		}
		for _, qc := range c.Multi.cmds {
			q.Keys = e.appendKeys(q.Keys, qc.cmd, qc.args)
		}
		q.Write = c.Multi.write
	case "spublish", "ssubscribe", "sunsubscribe":
		q.PubSubShard = true
		if cmd.Name == "spublish" {
			q.Keys = append(q.Keys, x.Args[1])
		} else {
			q.Keys = append(q.Keys, x.Args[1:]...)
		}
	default:
		q.Keys = e.appendKeys(q.Keys, cmd, x.Args)
		_, q.Write, _ = e.effectiveFlags(c, cmd, x.Args)
		q.Migrate = cmd.Name == "migrate"
		// CMD_ASKING: the source of a slot's move sends its keys so, and
		// the importing target must take them without an ASKING first.
		q.Asking = q.Asking || cmd.Name == "restore-asking"
	}
	if len(q.Keys) == 0 {
		return ""
	}
	msg := e.Cluster.Redirect(q)
	if msg == "" {
		c.Slot = int(keyslot.Slot(q.Keys[0]))
	}
	return msg
}

// newSlotQuery is the query for one of c's commands, without its keys yet
// (the engine's one, reused).
func (e *Engine) newSlotQuery(c *Client) *SlotQuery {
	q := &e.slotQuery
	*q = SlotQuery{Keys: q.Keys[:0], ReadOnly: c.ReadOnly, Asking: c.Asking, Exists: q.Exists}
	if q.Exists == nil {
		// lookupKeyReadWithFlags(LOOKUP_NOEXPIRE): a key past its deadline
		// is missing, though not deleted here.
		q.Exists = func(key []byte) bool {
			ent := e.Dbs[0].Peek(key)
			return ent != nil && (ent.Expiry() == keyspace.NoExpiry || ent.Expiry() > e.NowMs())
		}
	}
	return q
}

// ScriptClusterCheck is scriptVerifyClusterState for cmd, which a script
// run by c calls with args: on a cluster node, a script's command must
// have its keys served here (its error then is the script's words for
// getNodeByQuery's refusal), and, unless the script allows cross-slot
// keys, in the slot of c's command (c.Slot, which the script's first key
// sets when the command declared none). "" lets the command run. Call
// with the lock held.
func (e *Engine) ScriptClusterCheck(c *Client, cmd *Command, args [][]byte, allowCrossSlot bool) string {
	if e.Cluster == nil || c.MustObey() {
		return ""
	}
	q := e.newSlotQuery(c)
	if cmd.Name == "spublish" {
		q.PubSubShard = true
		q.Keys = append(q.Keys, args[1])
	} else {
		q.Keys = e.appendKeys(q.Keys, cmd, args)
		_, q.Write, _ = e.effectiveFlags(c, cmd, args)
	}
	if len(q.Keys) == 0 {
		return ""
	}
	switch msg := e.Cluster.Redirect(q); {
	case msg == "":
	case msg == ErrClusterDownRO:
		return "Script attempted to execute a write command while the cluster is down and readonly"
	case msg == ErrClusterDown:
		return "Script attempted to execute a command while the cluster is down"
	default:
		return "Script attempted to access a non local key in a cluster node"
	}
	if !allowCrossSlot {
		slot := int(keyslot.Slot(q.Keys[0]))
		if c.Slot == -1 {
			c.Slot = slot
		} else if c.Slot != slot {
			return "Script attempted to access keys that do not hash to the same slot"
		}
	}
	return ""
}

// appendKeys appends the keys of cmd in args (getKeysFromCommand).
func (e *Engine) appendKeys(dst [][]byte, cmd *Command, args [][]byte) [][]byte {
	var buf [8]int
	for _, pos := range e.commandKeys(cmd, args, buf[:0]) {
		dst = append(dst, args[pos])
	}
	return dst
}

// EnableSlotIndex makes database 0 keep its keys by hash slot, for
// CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT (cluster mode has database 0
// only). Keys already there are indexed now. Call with the lock held.
func (e *Engine) EnableSlotIndex() {
	if e.slotIndex != nil {
		return
	}
	e.slotIndex = keyslot.NewIndex(func(fn func(key string)) {
		// Database 0 at the time of the walk, whichever table it is.
		e.Dbs[0].ForEach(func(ent *keyspace.Entry) bool { fn(ent.Key()); return true })
	})
	e.Dbs[0].ForEach(func(ent *keyspace.Entry) bool { e.slotIndex.Add(ent.Key()); return true })
	e.BindDB(0)
}

// SlotIndex is database 0's keys by hash slot (nil unless EnableSlotIndex
// ran). Call with the lock held.
func (e *Engine) SlotIndex() *keyslot.Index { return e.slotIndex }

// DelKeysInSlot is cluster.c's delKeysInSlot as Redis fixed it in 7.2
// (#11084): every key of slot in database 0 is deleted (past its deadline
// or not, as dbDelete), and each deletion is what a DEL by the server is
// elsewhere: propagated alone to the AOF and the replicas (which would
// otherwise keep keys their master dropped, and serve them to READONLY
// clients), signalled as a modification (WATCH, client tracking), the
// "del" event, one change for the dirty count. It returns how many keys
// went. A master calls it for the slots it lost to a newer configEpoch
// while still serving others. Call with the lock held, outside a command.
func (e *Engine) DelKeysInSlot(slot int) int {
	idx := e.slotIndex
	if idx == nil || idx.Count(slot) == 0 {
		return 0
	}
	db := e.Dbs[0]
	n := 0
	for _, k := range idx.Keys(nil, slot, idx.Count(slot)) {
		ent := db.Peek(bkey(k))
		if ent == nil {
			continue
		}
		key := []byte(k) // the entry's key goes with it
		db.Remove(ent)
		e.propagateDeletion(0, key)
		e.KeyModified(0, key, nil)
		e.NotifyKeyspace(config.EvGeneric, "del", key, 0)
		e.persist.dirty++
		n++
	}
	return n
}

// RedirectBlocked is the cluster step of clientsCronHandleTimeout: each
// client blocked on keys (not WAIT, not one CLIENT PAUSE holds) is given
// to redirect with a key it waits on (they share a slot), whether it sent
// READONLY and whether its command writes; an error redirect answers
// unblocks it with that error (clusterRedirectBlockedClientIfNeeded: the
// slot moved away, or the cluster is down). Call with the lock held.
func (e *Engine) RedirectBlocked(redirect func(key []byte, readOnly, write bool) string) {
	if len(e.waiting) == 0 {
		return
	}
	blocked := map[*Client]bool{}
	for _, list := range e.waiting {
		for _, c := range list {
			if b := c.Blocked; b != nil && b.Wait == nil && !b.postponed && len(b.keys) > 0 {
				blocked[c] = true
			}
		}
	}
	for c := range blocked {
		b := c.Blocked
		cmd := Lookup(b.args[0])
		msg := redirect(bkey(b.keys[0]), c.ReadOnly, cmd != nil && cmd.Flags&FlagWrite != 0)
		if msg == "" {
			continue
		}
		e.Unblock(c)
		mark := b.W.Len()
		b.W.Error(msg)
		c.BlockedReplyDone(b.W, mark)
		c.NotifyOutput()
	}
}
