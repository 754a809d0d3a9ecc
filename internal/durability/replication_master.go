package durability

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/propagate"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/repl"
	"github.com/limitkv/limitkv/internal/resp"
)

// The master side of replication (replication.c: syncCommand,
// masterTryPartialResynchronization, replicationFeedSlaves,
// replicationCron's pings and timeouts); what the replicas' ACKs serve
// (WAIT, min-replicas, a shutdown's wait) is in replication_acks.go.
//
// A replica is an ordinary connection that sent SYNC or PSYNC: everything
// it is sent (the +FULLRESYNC line, the RDB, the stream) goes through its
// connection's output buffer (Client.Out), the one writer path every
// unasked-for frame takes, so the front's output limits (the replica
// class) and slow-reader handling apply to it as to a subscriber.
//
// The stream is fed from the propagation stream (propagate.Reader) on a
// master, and from the master's own bytes on a replica (a replica proxies
// what it applies, as Redis does, so the offsets of a chain agree and a
// promoted replica can continue its peers with a partial resync). Every
// byte goes to the backlog and advances master_repl_offset.
//
// The RDB of a full sync is made with the fork-free snapshot BGSAVE uses
// (bgsave.go), at the instant of the +FULLRESYNC reply, into memory, and
// sent in windows so the output buffer holds a bounded part of it. It is
// never written to disk, whatever repl-diskless-sync says; that setting
// chooses the wire form ($EOF:<mark> for replicas that announce capa eof,
// $<length> otherwise), and a replica is never made to wait
// repl-diskless-sync-delay, since each sync takes its own snapshot.
var replicationMasterCommands = []*engine.Command{
	{Name: "sync", Arity: 1, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagNoMulti, Group: "server", Handler: cmdSync},
	{Name: "psync", Arity: -3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagNoMulti, Group: "server", Handler: cmdSync},
	{Name: "wait", Arity: 3, Flags: engine.FlagNoScript, Group: "generic", Handler: cmdWait},
}

const (
	errNoMasterLink = "NOMASTERLINK Can't SYNC while not connected with my master"
	errWaitReplica  = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."

	// replSendWindow is how much of an RDB a replica's output buffer may
	// hold unsent before the sender waits, and replSendChunk the piece it
	// adds at a time.
	replSendWindow = 1 << 20
	replSendChunk  = 256 << 10
)

// Feed encodes op; Flushed hands the flush's bytes on in one piece.
func (f *replFeed) Feed(op propagate.Op) {
	if f.d.e.IsReplica() {
		return // a replica proxies its master's bytes instead
	}
	f.buf = f.d.repl.enc.Append(f.buf, op)
}

func (f *replFeed) Flushed() {
	if len(f.buf) == 0 {
		return
	}
	f.d.replFeedBytes(f.buf)
	f.buf = f.buf[:0]
	if cap(f.buf) > 1<<20 {
		f.buf = nil
	}
}

// replFeedBytes appends p to the stream: the backlog, every replica that
// gets it, and the offset. Call with the lock held.
func (d *Component) replFeedBytes(p []byte) {
	e := d.e
	r := &d.repl
	if r.backlog != nil {
		r.backlog.Write(p)
	}
	e.SetReplOffset(e.ReplOffset() + int64(len(p)))
	var over []*replica
	for _, rp := range r.replicas {
		switch {
		case rp.state == replicaOnline && !rp.streamOnAck:
			rp.c.Out.Raw(p)
			if e.OverOutputLimit(rp.c) {
				over = append(over, rp)
				continue
			}
			rp.c.NotifyOutput()
		case rp.state != replicaWaitStart:
			rp.pending = append(rp.pending, p...)
			if lim := e.OutputLimit(rp.c); lim.Hard > 0 && uint64(len(rp.pending)) > lim.Hard {
				over = append(over, rp)
			}
		}
	}
	for _, rp := range over {
		e.Log.Warn("Client scheduled to be closed ASAP for overcoming of output buffer limits.", "client", rp.c.ID, "addr", rp.c.Addr, "class", "replica")
		e.KillClient(rp.c)
		d.dropReplica(rp.c)
	}
}

// replProxy is a replica's replicationFeedStreamFromMasterStream: the
// command it applied from its master goes on, as the master sent it, to
// its backlog and its own replicas. size is the command's length on the
// wire, which its re-encoding has (the master sends RESP arrays).
func (d *Component) replProxy(args [][]byte, size int64) {
	e := d.e
	r := &d.repl
	if r.backlog == nil && len(r.replicas) == 0 {
		e.SetReplOffset(e.ReplOffset() + size)
		return
	}
	r.proxyBuf = propagate.AppendCommand(r.proxyBuf[:0], args)
	d.replFeedBytes(r.proxyBuf)
	if cap(r.proxyBuf) > 1<<20 {
		r.proxyBuf = nil
	}
}

// createBacklog is createReplicationBacklog: empty, its first byte the
// next of the stream, and the stream read from now on.
func (d *Component) createBacklog() {
	e := d.e
	r := &d.repl
	r.backlog = repl.NewBacklog(int(e.Cfg.ReplBacklogSize.Load()), e.ReplOffset()+1)
	if r.feed == nil {
		r.feed = &replFeed{d: d}
		e.Prop.Stream.Attach(r.feed)
	}
	r.enc.Reset()
}

// freeBacklog is freeReplicationBacklog (repl-backlog-ttl passed with no
// replica): the stream is no longer recorded.
func (d *Component) freeBacklog() {
	r := &d.repl
	r.backlog = nil
	if r.feed != nil {
		d.e.Prop.Stream.Detach(r.feed)
		r.feed = nil
	}
}

func cmdSync(x *engine.Ctx) {
	e, c, d := x.E, x.C, Of(x.E)
	r := &d.repl
	if replicaOf(c) != nil {
		return // already a replica: ignored, as Redis
	}
	if len(x.Args) > 3 && engine.CEqualFold(x.Args[0], "psync") && engine.CEqualFold(x.Args[3], "failover") {
		if !d.psyncFailover(x) {
			return
		}
	}
	if r.failover.state != noFailover {
		x.W.Error("NOMASTERLINK Can't SYNC while failing over")
		return
	}
	if c.Out == nil || c.Unsent == nil {
		// An in-process client (the embedded API, a test engine) has no
		// connection to stream to.
		x.W.Error("ERR SYNC and PSYNC need a network connection")
		return
	}
	if e.IsReplica() && r.state != replConnected {
		x.W.Error(errNoMasterLink)
		return
	}
	psync := engine.CEqualFold(x.Args[0], "psync")
	if psync {
		off, ok := num.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
		if d.tryPartialResync(x, off) {
			r.syncPartialOK++
			return
		}
		if len(x.Args[1]) == 0 || x.Args[1][0] != '?' {
			r.syncPartialErr++
		}
	}
	r.syncFull++
	rc := connOf(c)
	rp := &replica{c: c, conf: rc.conf, state: replicaWaitStart, psync: psync, ackTime: e.Clock.Now()}
	rc.replica = rp
	r.replicas = append(r.replicas, rp)
	e.Log.Info("Replica asks for synchronization", "addr", c.Addr)
	if len(r.replicas) == 1 && r.backlog == nil {
		// A backlog made from nothing has no history to continue: a new
		// replication id, and no second one.
		e.Debug.ReplID = engine.NewReplID()
		r.replid = e.Debug.ReplID
		r.replid2, r.secondOffset = "", -1
		d.createBacklog()
		e.Log.Info("Replication backlog created", "replid", r.replid)
	}
	d.startReplSync()
}

// tryPartialResync is masterTryPartialResynchronization: +CONTINUE and the
// backlog from off, if the replica's history is ours and the backlog still
// holds it.
func (d *Component) tryPartialResync(x *engine.Ctx, off int64) bool {
	e := d.e
	r := &d.repl
	id := string(x.Args[1])
	cur := e.ReplicationID()
	if id != cur && (id != r.replid2 || r.replid2 == "" || off > r.secondOffset) {
		return false
	}
	if r.backlog == nil || !r.backlog.Has(off) {
		e.Log.Info("Unable to partial resync with replica for lack of backlog", "addr", x.C.Addr, "offset", off)
		return false
	}
	c := x.C
	rc := connOf(c)
	rp := &replica{c: c, conf: rc.conf, state: replicaOnline, psync: true, ackTime: e.Clock.Now()}
	rc.replica = rp
	r.replicas = append(r.replicas, rp)
	if rp.conf.capaPsync2 {
		x.W.Simple("CONTINUE " + cur)
	} else {
		x.W.Simple("CONTINUE")
	}
	// The replica keeps its selected database from the last link: no
	// SELECT is forced.
	x.W.Raw(r.backlog.AppendFrom(nil, off))
	e.Log.Info("Partial resynchronization request accepted", "addr", c.Addr, "offset", off)
	return true
}

// startReplSync starts a snapshot for the replicas waiting for one, if no
// other snapshot runs (Redis's one child at a time: they wait for the next
// cron otherwise). Call with the lock held.
func (d *Component) startReplSync() {
	e := d.e
	r := &d.repl
	if r.syncing != nil || d.persist.bgRunning || d.aof.rw != nil || e.StartLoad.On {
		return
	}
	var group []*replica
	for _, rp := range r.replicas {
		if rp.state == replicaWaitStart {
			group = append(group, rp)
		}
	}
	if len(group) == 0 {
		return
	}
	id := e.ReplicationID()
	opts := d.writerOptions()
	opts.Repl = &rdb.ReplInfo{ID: id, Offset: e.ReplOffset()}
	bg := d.beginBgSnapshot(opts)
	r.syncing = bg
	// The next command after the point in time says its database: the
	// replicas' selected one is unknown after the load.
	r.enc.Reset()
	line := []byte("+FULLRESYNC " + id + " " + strconv.FormatInt(e.ReplOffset(), 10) + "\r\n")
	for _, rp := range group {
		rp.state = replicaWaitEnd
		if rp.psync {
			rp.c.Out.Raw(line)
			rp.c.NotifyOutput()
		}
	}
	e.Log.Info("Starting BGSAVE for SYNC", "replicas", len(group), "offset", e.ReplOffset())
	go d.makeReplRDB(bg, group)
}

// makeReplRDB writes the snapshot into memory and hands it to each replica
// of the group.
func (d *Component) makeReplRDB(bg *bgSave, group []*replica) {
	e := d.e
	var buf bytes.Buffer
	err := d.streamBgsave(bg, &buf)
	e.LockBare()
	defer e.UnlockBare()
	for _, sd := range bg.dbs {
		sd.snap.Abort() // after an error the walk may not be done
	}
	d.freezeAccess(false)
	d.repl.syncing = nil
	payload := buf.Bytes()
	for _, rp := range group {
		if replicaOf(rp.c) != rp {
			continue // gone meanwhile
		}
		if err != nil {
			e.Log.Warn("SYNC failed: BGSAVE for replication failed", "err", err)
			e.KillClient(rp.c)
			continue
		}
		rp.state = replicaSendBulk
		go d.sendReplRDB(rp, payload)
	}
	e.Log.Info("Background RDB transfer started", "bytes", len(payload))
	d.startReplSync() // replicas that came in meanwhile
}

// sendReplRDB writes payload to the replica a window at a time, then what
// the stream held for it, and puts it online.
func (d *Component) sendReplRDB(rp *replica, payload []byte) {
	e := d.e
	var head, tail []byte
	eof := rp.conf.capaEOF && e.Cfg.ReplDisklessSync.Load()
	if eof {
		mark := engine.NewReplID()
		head, tail = []byte("$EOF:"+mark+"\r\n"), []byte(mark)
	} else {
		head = []byte("$" + strconv.Itoa(len(payload)) + "\r\n")
	}
	pieces := [][]byte{head}
	for p := payload; len(p) > 0; {
		n := min(len(p), replSendChunk)
		pieces = append(pieces, p[:n])
		p = p[n:]
	}
	if tail != nil {
		pieces = append(pieces, tail)
	}
	for _, piece := range pieces {
		for {
			e.LockBare()
			if replicaOf(rp.c) != rp || rp.c.Out == nil || rp.c.Killed {
				e.UnlockBare()
				return
			}
			if rp.c.Unsent == nil || rp.c.Unsent() < replSendWindow {
				rp.c.Out.Raw(piece)
				rp.c.NotifyOutput()
				e.UnlockBare()
				break
			}
			e.UnlockBare()
			time.Sleep(time.Millisecond)
		}
	}
	e.LockBare()
	defer e.UnlockBare()
	if replicaOf(rp.c) != rp || rp.c.Out == nil {
		return
	}
	rp.state, rp.ackTime = replicaOnline, e.Clock.Now()
	if eof && rp.psync {
		rp.streamOnAck = true // the stream follows its first ACK
		rp.c.NotifyOutput()
		e.Log.Info("Streamed RDB transfer with replica succeeded: waiting for REPLCONF ACK from replica to enable streaming", "addr", rp.c.Addr)
		return
	}
	rp.c.Out.Raw(rp.pending)
	rp.pending = nil
	rp.c.NotifyOutput()
	e.Log.Info("Synchronization with replica succeeded", "addr", rp.c.Addr)
}

// dropReplica forgets a replica whose connection ended. Call with the lock
// held.
func (d *Component) dropReplica(c *engine.Client) {
	e := d.e
	r := &d.repl
	rc, _ := c.Repl.(*replConn)
	if rc == nil || rc.replica == nil {
		return
	}
	rp := rc.replica
	rc.replica = nil
	for i, o := range r.replicas {
		if o == rp {
			r.replicas = append(r.replicas[:i], r.replicas[i+1:]...)
			break
		}
	}
	if len(r.replicas) == 0 {
		r.noneSince = e.Clock.Now()
	}
	e.Log.Info("Connection with replica lost", "addr", c.Addr)
}

// disconnectReplicas is disconnectSlaves: they reconnect and learn the new
// replication id (a partial resync may still take them on).
func (d *Component) disconnectReplicas() {
	for _, rp := range append([]*replica(nil), d.repl.replicas...) {
		d.e.KillClient(rp.c)
		d.dropReplica(rp.c)
	}
}

// pingCmd is the keepalive the master sends down the stream.
var pingCmd = propagate.AppendCommand(nil, [][]byte{[]byte("PING")})

// ReplicationCron is the master side's part of replicationCron, run about
// every 100 ms: start syncs that waited for a snapshot, keep replicas
// waiting for theirs alive with a newline, ping the online ones every
// repl-ping-replica-period, drop those silent past repl-timeout, and free
// the backlog after repl-backlog-ttl with no replica.
func ReplicationCron(e *engine.Engine) {
	d := Of(e)
	e.LockBare()
	defer e.UnlockBare()
	r := &d.repl
	d.startConfiguredMaster()
	d.updateFailover()
	if r.backlog == nil && len(r.replicas) == 0 {
		return
	}
	d.startReplSync()
	now := e.Clock.Now()
	if r.backlog != nil && r.backlog.Size() != int(e.Cfg.ReplBacklogSize.Load()) {
		r.backlog.Resize(int(e.Cfg.ReplBacklogSize.Load()))
	}
	if len(r.replicas) == 0 {
		if ttl := e.Cfg.ReplBacklogTTL.Load(); ttl > 0 && !e.IsReplica() && r.backlog != nil &&
			now.Sub(r.noneSince) > time.Duration(ttl)*time.Second {
			// A new replication id, and no replid2: writes taken while
			// there is no backlog must not let a former replica of ours,
			// promoted meanwhile, continue from us later by replid2 with
			// different data (replicationCron's comment in Redis).
			r.replid, r.replid2, r.secondOffset = engine.NewReplID(), "", -1
			e.Debug.ReplID = r.replid
			d.freeBacklog()
			e.Log.Info("Replication backlog freed after repl-backlog-ttl with no replica", "seconds", ttl)
		}
		return
	}
	if now.Sub(r.lastTick) < time.Second {
		return
	}
	r.lastTick = now
	period := time.Duration(e.Cfg.ReplPingPeriod.Load()) * time.Second
	// No ping while clients are paused: it would move the offset a
	// shutdown waits for the replicas to reach.
	if !e.IsReplica() && now.Sub(r.lastPing) >= period && !e.Paused() {
		d.replFeedBytes(pingCmd)
		r.lastPing = now
	}
	timeout := time.Duration(e.Cfg.ReplTimeout.Load()) * time.Second
	for _, rp := range append([]*replica(nil), r.replicas...) {
		switch {
		case rp.state == replicaWaitStart || rp.state == replicaWaitEnd:
			// A newline keeps the replica from timing out while it waits
			// (Redis sends one to replicas of a diskless sync).
			rp.c.Out.Raw([]byte("\n"))
			rp.c.NotifyOutput()
		case rp.state == replicaOnline && rp.psync && now.Sub(rp.ackTime) > timeout:
			e.Log.Warn("Disconnecting timedout replica (streaming sync)", "addr", rp.c.Addr)
			e.KillClient(rp.c)
			d.dropReplica(rp.c)
		}
	}
}

// ip is the address the replica is known by: the one it announced, or its
// connection's.
func ip(rp *replica) string {
	if rp.conf.ip != "" {
		return rp.conf.ip
	}
	host, _, err := net.SplitHostPort(rp.c.Addr)
	if err != nil {
		return rp.c.Addr
	}
	return host
}

// roleReplicas writes ROLE's list of online replicas: ip, port, acked
// offset, all as strings.
func (d *Component) roleReplicas(w *resp.Writer) {
	n := 0
	for _, rp := range d.repl.replicas {
		if rp.state == replicaOnline {
			n++
		}
	}
	w.Array(n)
	for _, rp := range d.repl.replicas {
		if rp.state != replicaOnline {
			continue
		}
		w.Array(3)
		w.BulkString(ip(rp))
		w.BulkString(strconv.Itoa(rp.conf.port))
		w.BulkString(strconv.FormatInt(rp.ackOff, 10))
	}
}

// saveReplInfo is rdbPopulateSaveInfo: what an RDB file records of the
// replication history, so that a restarted replica (or master) continues
// it with a partial resync. nil when there is none to continue.
func (d *Component) saveReplInfo() *rdb.ReplInfo {
	e := d.e
	r := &d.repl
	switch {
	case !e.IsReplica() && r.backlog != nil:
		return &rdb.ReplInfo{StreamDB: max(r.enc.DB(), 0), ID: e.ReplicationID(), Offset: e.ReplOffset()}
	case e.IsReplica() && r.synced:
		db := r.streamDB
		if r.master != nil {
			db = r.master.DB
		}
		return &rdb.ReplInfo{StreamDB: db, ID: e.ReplicationID(), Offset: e.ReplOffset()}
	}
	return nil
}

// replInfoOf reads the repl-* aux fields of a file.
func replInfoOf(aux []rdb.AuxField) *rdb.ReplInfo {
	var ri rdb.ReplInfo
	var id, off bool
	for _, a := range aux {
		switch string(a.Key) {
		case "repl-id":
			ri.ID, id = string(a.Value), len(a.Value) == 40
		case "repl-offset":
			ri.Offset, off = num.ParseInt(a.Value)
		case "repl-stream-db":
			db, _ := num.ParseInt(a.Value)
			ri.StreamDB = int(db)
		}
	}
	if !id || !off {
		return nil
	}
	return &ri
}

// restoreReplInfo is loadDataFromDisk's use of a file's replication info:
// a server that starts as a replica takes the history the file was saved
// at, so its first PSYNC asks to continue from there. Call with the lock
// held, at start.
func (d *Component) restoreReplInfo(ri *rdb.ReplInfo) {
	e := d.e
	if ri == nil || *e.Cfg.Replicaof.Load() == "" || ri.StreamDB < 0 || ri.StreamDB >= config.NumDBs {
		return
	}
	r := &d.repl
	r.replid, r.synced, r.streamDB = ri.ID, true, ri.StreamDB
	e.SetReplOffset(ri.Offset)
	e.Debug.ReplID = ri.ID
	e.Log.Info("Restored the replication history from the RDB file", "replid", ri.ID, "offset", ri.Offset)
}

// presetConfiguredMaster makes a server whose redis.conf says replicaof a
// replica from the start, as Redis is once it has read the file (ROLE,
// INFO, read-only, no expiry of its own); the link waits for the load.
func (d *Component) presetConfiguredMaster() {
	host, port, ok := strings.Cut(*d.e.Cfg.Replicaof.Load(), " ")
	p, err := strconv.Atoi(port)
	if !ok || err != nil {
		return
	}
	d.setLink(host, p, replConnect)
	d.setReplicaExpiry(true)
}

// startConfiguredMaster starts the link to the master redis.conf named,
// once the dataset is loaded (replicationCron connects after the load).
func (d *Component) startConfiguredMaster() {
	r := &d.repl
	if r.startChecked || d.e.StartLoad.On {
		return
	}
	r.startChecked = true
	if r.host == "" || r.stop != nil {
		return // REPLICAOF NO ONE came first, or a link runs
	}
	d.setMaster(r.host, r.port)
}

// ReplOutputBytes is what the replicas' output holds unsent (and what the
// stream kept for those still syncing). Call with the lock held.
func (d *Component) ReplOutputBytes() uint64 {
	n := 0
	for _, rp := range d.repl.replicas {
		n += len(rp.pending)
		if rp.c.Unsent != nil {
			n += rp.c.Unsent()
		}
	}
	return uint64(n)
}

// replFeed is the replication stream's propagate.Reader.
type replFeed struct {
	d   *Component
	buf []byte
}
