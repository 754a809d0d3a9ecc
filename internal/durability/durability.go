package durability

import (
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

// durability is the component's face to the engine (engine.Durability).
type durability struct{ e *engine.Engine }

// AttachDurability gives e its durability component and, with replicaof
// in the configuration, the master it is to follow.
func Attach(e *engine.Engine) {
	e.Dur = &durability{e: e}
	presetConfiguredMaster(e)
}

func (d *durability) FlushAOF(force bool)         { aofFlush(d.e, force) }
func (d *durability) NoGoodReplicas() bool        { return NoGoodReplicas(d.e) }
func (d *durability) ReplOutputBytes() uint64     { return ReplOutputBytes(d.e) }
func (d *durability) ClientGone(c *engine.Client) { dropReplica(d.e, c) }
func (d *durability) Cron() {
	PersistCron(d.e)
	ReplicationCron(d.e)
}
func (d *durability) AbortBgsave() { AbortBgsaveLocked(d.e) }
func (d *durability) Save() error  { return SaveLocked(d.e) }
func (d *durability) RequestAcks() { requestAcks(d.e) }
func (d *durability) WaitTimeoutReply(b *engine.BlockState, w *resp.Writer) {
	waitTimeoutReply(d.e, b, w)
}

// durCommands are RDB's, the AOF's, MIGRATE's and replication's commands.
var Commands = concatCommands(persistCommands, aofCommands, migrateCommands, replicationCommands, replicationMasterCommands)

func concatCommands(tables ...[]*engine.Command) []*engine.Command {
	var out []*engine.Command
	for _, t := range tables {
		out = append(out, t...)
	}
	return out
}
