package durability

import (
	"time"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

// Component is the durability component (engine.Durability): RDB
// snapshots, the AOF, MIGRATE's connections and replication, with their
// state, which nothing outside this package reaches but through its
// methods and functions.
type Component struct {
	e       *engine.Engine
	persist rdbState
	aof     aofState
	repl    replState
	migrate map[string]*migrateSocket // MIGRATE's cached connections, by "host:port" as given
}

// Attach gives e its durability component and, with replicaof in the
// configuration, the master it is to follow.
func Attach(e *engine.Engine) {
	d := &Component{e: e}
	d.persist.lastSave, d.persist.lastBgOK, d.persist.lastBgSecs = e.Start, true, -1
	d.aof.lastRwSecs, d.aof.lastRwOK = -1, true
	e.Dur = d
	d.presetConfiguredMaster()
}

// Of is e's durability component, as Attach installed it.
func Of(e *engine.Engine) *Component { return e.Dur.(*Component) }

func (d *Component) FlushAOF(force bool)         { d.aofFlush(force) }
func (d *Component) ClientGone(c *engine.Client) { d.dropReplica(c) }
func (d *Component) Cron() {
	PersistCron(d.e)
	ReplicationCron(d.e)
}
func (d *Component) AbortBgsave() { AbortBgsaveLocked(d.e) }
func (d *Component) Save() error  { return SaveLocked(d.e) }
func (d *Component) RequestAcks() { d.requestAcks() }
func (d *Component) WaitTimeoutReply(b *engine.BlockState, w *resp.Writer) {
	d.waitTimeoutReply(b, w)
}

// WritesRefused is Redis's writeCommandsDeniedByDiskError for RDB: writes
// stop while the last background save failed, if save points are set.
func (d *Component) WritesRefused() bool {
	cfg := d.e.Cfg
	return cfg.StopWritesOnBgsaveError.Load() && !d.persist.lastBgOK && len(cfg.SavePoints()) > 0
}

func (d *Component) SaveStatus() (lastSave time.Time, bgRunning, lastBgOK bool) {
	p := &d.persist
	return p.lastSave, p.bgRunning, p.lastBgOK
}

// Commands are RDB's, the AOF's, MIGRATE's and replication's commands.
var Commands = concatCommands(persistCommands, aofCommands, migrateCommands, replicationCommands, replicationMasterCommands, failoverCommands)

func concatCommands(tables ...[]*engine.Command) []*engine.Command {
	var out []*engine.Command
	for _, t := range tables {
		out = append(out, t...)
	}
	return out
}
