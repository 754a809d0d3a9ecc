package durability

import (
	"strconv"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
)

// INFO's persistence and replication sections, which the component writes
// itself, as Redis's genRedisInfoString has each subsystem write its own
// from its state; internal/admin frames them with the other sections. The
// few replication figures other sections print (stats, memory) are the
// methods at the end.

// InfoPersistence writes INFO persistence's fields.
func (d *Component) InfoPersistence(b *engine.InfoBuf) {
	e, p := d.e, &d.persist
	bg, cur := "0", "-1"
	if p.bgRunning {
		bg = "1"
		cur = strconv.FormatInt(int64(e.Clock.Now().Sub(p.bgStart)/time.Second), 10)
	}
	processed, total := saveProgress(p)
	perc := "0.00"
	if total > 0 {
		perc = strconv.FormatFloat(float64(processed)/float64(total)*100, 'f', 2, 64)
	}
	loading := "0"
	if e.StartLoad.On {
		loading = "1"
	}
	status := "ok"
	if !p.lastBgOK {
		status = "err"
	}
	// There is no fork, so no copy-on-write.
	for _, kv := range [][2]string{
		{"loading", loading}, {"async_loading", "0"}, {"current_cow_peak", "0"}, {"current_cow_size", "0"},
		{"current_cow_size_age", "0"}, {"current_fork_perc", perc},
		{"current_save_keys_processed", strconv.FormatInt(processed, 10)},
		{"current_save_keys_total", strconv.FormatInt(total, 10)}, {"rdb_changes_since_last_save", strconv.FormatInt(e.DirtyCount(), 10)},
		{"rdb_bgsave_in_progress", bg},
		{"rdb_last_save_time", strconv.FormatInt(p.lastSave.Unix(), 10)}, {"rdb_last_bgsave_status", status},
		{"rdb_last_bgsave_time_sec", strconv.FormatInt(p.lastBgSecs, 10)}, {"rdb_current_bgsave_time_sec", cur},
		{"rdb_saves", strconv.FormatInt(p.saves, 10)},
		{"rdb_last_cow_size", "0"}, {"rdb_last_load_keys_expired", strconv.Itoa(p.loadExpired)},
		{"rdb_last_load_keys_loaded", strconv.Itoa(p.loadKeys)},
	} {
		b.Kv(kv[0], kv[1])
	}
	d.aofInfo(b, false)
	b.Kv("module_fork_in_progress", "0")
	b.Kv("module_fork_last_cow_size", "0")
	d.aofInfo(b, true)
	if e.StartLoad.On {
		e.LoadingInfo(b)
	}
}

// saveProgress is INFO's current_save_keys_processed and _total.
func saveProgress(p *rdbState) (processed, total int64) {
	if p.bg == nil {
		return 0, 0
	}
	return min(p.bg.saved, p.bg.total), p.bg.total
}

// aofInfo writes INFO persistence's aof fields: the always-present ones,
// or (tail) those shown only with appendonly yes.
func (d *Component) aofInfo(b *engine.InfoBuf, tail bool) {
	a := &d.aof
	if tail {
		if !d.e.Cfg.AOF.Enabled.Load() {
			return
		}
		b.I("aof_current_size", a.currentSize)
		b.I("aof_base_size", a.baseSize)
		b.I("aof_pending_rewrite", b2i(a.scheduled))
		b.I("aof_buffer_length", int64(len(a.buf)))
		b.I("aof_pending_bio_fsync", 0)
		b.I("aof_delayed_fsync", a.delayed)
		return
	}
	cur := int64(-1)
	if a.rw != nil {
		cur = int64(time.Since(a.rw.start) / time.Second)
	}
	b.I("aof_enabled", b2i(a.state != aofOff))
	b.I("aof_rewrite_in_progress", b2i(a.rw != nil))
	b.I("aof_rewrite_scheduled", b2i(a.scheduled))
	b.I("aof_last_rewrite_time_sec", a.lastRwSecs)
	b.I("aof_current_rewrite_time_sec", cur)
	b.Kv("aof_last_bgrewrite_status", okErr(a.lastRwOK))
	b.I("aof_rewrites", a.rewrites)
	b.I("aof_rewrites_consecutive_failures", a.rwFailures)
	b.Kv("aof_last_write_status", okErr(a.writeErr == nil))
	b.I("aof_last_cow_size", 0)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func okErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}

// InfoReplication writes INFO replication's fields.
func (d *Component) InfoReplication(b *engine.InfoBuf) {
	e, r := d.e, &d.repl
	if e.IsReplica() {
		d.infoReplica(b)
	} else {
		b.Kv("role", "master")
	}
	d.infoReplicas(b)
	b.Kv("master_failover_state", d.failoverInfo())
	b.Kv("master_replid", e.ReplicationID())
	replid2 := r.replid2
	if replid2 == "" {
		replid2 = strings.Repeat("0", 40)
	}
	b.Kv("master_replid2", replid2)
	b.I("master_repl_offset", e.ReplOffset())
	second := r.secondOffset
	if r.replid2 == "" || r.replid2 == strings.Repeat("0", 40) {
		second = -1
	}
	b.I("second_repl_offset", second)
	active, first, hist := int64(0), int64(0), int64(0)
	if bl := r.backlog; bl != nil {
		active, first, hist = 1, bl.First(), int64(bl.Histlen())
	}
	b.I("repl_backlog_active", active)
	b.I("repl_backlog_size", e.Cfg.ReplBacklogSize.Load())
	b.I("repl_backlog_first_byte_offset", first)
	b.I("repl_backlog_histlen", hist)
}

// infoReplica writes INFO replication's lines for a replica, as Redis
// prints them.
func (d *Component) infoReplica(b *engine.InfoBuf) {
	e, r := d.e, &d.repl
	b.Kv("role", "slave")
	b.Kv("master_host", r.host)
	b.I("master_port", int64(r.port))
	status := "down"
	if r.state == replConnected {
		status = "up"
	}
	b.Kv("master_link_status", status)
	lastIO := int64(-1)
	if r.master != nil {
		lastIO = int64(e.Clock.Now().Sub(r.lastIO) / time.Second)
	}
	b.I("master_last_io_seconds_ago", lastIO)
	sync := int64(0)
	if r.state == replSync {
		sync = 1
	}
	b.I("master_sync_in_progress", sync)
	b.I("slave_read_repl_offset", e.ReplOffset())
	b.I("slave_repl_offset", e.ReplOffset())
	if r.state != replConnected {
		down := int64(-1)
		if !r.downSince.IsZero() {
			down = int64(e.Clock.Now().Sub(r.downSince) / time.Second)
		}
		b.I("master_link_down_since_seconds", down)
	}
	b.I("slave_priority", e.Cfg.ReplicaPriority.Load())
	ro := int64(0)
	if e.Cfg.ReplicaReadOnly.Load() {
		ro = 1
	}
	b.I("slave_read_only", ro)
	b.I("replica_announced", e.Cfg.ReplicaAnnounced())
}

// infoReplicas writes connected_slaves and the slaveN lines.
func (d *Component) infoReplicas(b *engine.InfoBuf) {
	e, r := d.e, &d.repl
	b.I("connected_slaves", int64(len(r.replicas)))
	if e.Cfg.MinReplicasToWrite.Load() > 0 && e.Cfg.MinReplicasMaxLag.Load() > 0 {
		b.I("min_slaves_good_slaves", d.goodReplicas())
	}
	now := e.Clock.Now()
	for i, rp := range r.replicas {
		state := "wait_bgsave"
		lag := int64(0)
		switch rp.state {
		case replicaSendBulk:
			state = "send_bulk"
		case replicaOnline:
			state = "online"
			lag = int64(now.Sub(rp.ackTime) / time.Second)
		}
		b.Kv("slave"+strconv.Itoa(i), "ip="+ip(rp)+",port="+strconv.Itoa(rp.conf.port)+",state="+state+
			",offset="+strconv.FormatInt(rp.ackOff, 10)+",lag="+strconv.FormatInt(lag, 10))
	}
}

// SyncCounts are INFO stats' sync_full, sync_partial_ok and
// sync_partial_err.
func (d *Component) SyncCounts() (full, partialOK, partialErr int64) {
	r := &d.repl
	return r.syncFull, r.syncPartialOK, r.syncPartialErr
}

// BacklogSize is the replication backlog's size in bytes, 0 without one
// (INFO memory's mem_replication_backlog).
func (d *Component) BacklogSize() int64 {
	if bl := d.repl.backlog; bl != nil {
		return int64(bl.Size())
	}
	return 0
}
