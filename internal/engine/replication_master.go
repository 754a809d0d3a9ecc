package engine

import (
	"bytes"
	"errors"
	"github.com/limitkv/limitkv/internal/config"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/propagate"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/repl"
	"github.com/limitkv/limitkv/internal/resp"
)

// The master side of replication (replication.c: syncCommand,
// masterTryPartialResynchronization, replicationFeedSlaves, REPLCONF ACK,
// WAIT, min-replicas, replicationCron's pings and timeouts).
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

var replicationMasterCommands = []*Command{
	{Name: "sync", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoMulti, Group: "server", Handler: cmdSync},
	{Name: "psync", Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagNoMulti, Group: "server", Handler: cmdSync},
	{Name: "wait", Arity: 3, Flags: FlagNoScript, Group: "generic", Handler: cmdWait},
}

const (
	errNoMasterLink = "NOMASTERLINK Can't SYNC while not connected with my master"
	errWaitReplica  = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."
	ErrNoReplicas   = "NOREPLICAS Not enough good replicas to write."

	// replSendWindow is how much of an RDB a replica's output buffer may
	// hold unsent before the sender waits, and replSendChunk the piece it
	// adds at a time.
	replSendWindow = 1 << 20
	replSendChunk  = 256 << 10
)

// A replica's states, as INFO names them (replstateToString).
const (
	replicaWaitStart = iota // waits for a snapshot to start
	replicaWaitEnd          // its snapshot is being made; the stream is kept for it
	replicaSendBulk         // its RDB is going out
	replicaOnline           // it gets the stream as it happens
)

// IsReplica reports whether the connection is a replica (it sent SYNC or
// PSYNC). Call with the lock held.
func (c *Client) IsReplica() bool { return c.repl != nil }

// replicaConf is what a connection said with REPLCONF before its SYNC.
type replicaConf struct {
	port       int
	ip         string
	capaEOF    bool
	capaPsync2 bool
}

// replica is a connection that asked for the stream (CLIENT_SLAVE).
type replica struct {
	c       *Client
	conf    replicaConf
	state   int
	psync   bool // PSYNC: it sends ACKs (SYNC's old protocol does not)
	ackOff  int64
	ackTime time.Time
	pending []byte // the stream since its snapshot, until its RDB is out
	// streamOnAck: online after an EOF-marked payload, but the stream is
	// held in pending until its first ACK (repl_start_cmd_stream_on_ack):
	// bytes right after the mark would hide it from a replica that looks
	// for the mark at the end of a read, as Redis's does.
	streamOnAck bool
}

// masterState is the master side's part of replState.
type masterState struct {
	replicas  []*replica
	Backlog   *repl.Backlog
	enc       propagate.Encoder // the stream's selected database (slaveseldb)
	feed      *replFeed
	syncing   *bgSave // the snapshot being made for waiting replicas
	waiters   []*Client
	lastPing  time.Time // the last keepalive PING (repl-ping-replica-period)
	lastTick  time.Time // the last once-a-second pass (newlines, timeouts)
	noneSince time.Time // since when no replica is connected (repl-backlog-ttl)
	proxyBuf  []byte
	getAck    bool // a WAIT asked for ACKs
	// A shutdown waiting for lagging replicas (shutdown-timeout), and
	// SHUTDOWN ABORT's request to stop it.
	shutdownWaiting, shutdownAbort bool
	// startChecked: redis.conf's replicaof has been acted on.
	startChecked bool

	SyncFull, SyncPartialOK, SyncPartialErr int64
}

// replFeed is the replication stream's propagate.Reader.
type replFeed struct {
	e   *Engine
	buf []byte
}

// Feed encodes op; Flushed hands the flush's bytes on in one piece.
func (f *replFeed) Feed(op propagate.Op) {
	if f.e.IsReplica() {
		return // a replica proxies its master's bytes instead
	}
	f.buf = f.e.Repl.enc.Append(f.buf, op)
}

func (f *replFeed) Flushed() {
	if len(f.buf) == 0 {
		return
	}
	f.e.replFeedBytes(f.buf)
	f.buf = f.buf[:0]
	if cap(f.buf) > 1<<20 {
		f.buf = nil
	}
}

// replFeedBytes appends p to the stream: the backlog, every replica that
// gets it, and the offset. Call with the lock held.
func (e *Engine) replFeedBytes(p []byte) {
	r := &e.Repl
	if r.Backlog != nil {
		r.Backlog.Write(p)
	}
	r.Offset += int64(len(p))
	var over []*replica
	for _, rp := range r.replicas {
		switch {
		case rp.state == replicaOnline && !rp.streamOnAck:
			rp.c.Out.Raw(p)
			if e.overOutputLimit(rp.c) {
				over = append(over, rp)
				continue
			}
			rp.c.notify()
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
		e.dropReplica(rp.c)
	}
}

// replProxy is a replica's replicationFeedStreamFromMasterStream: the
// command it applied from its master goes on, as the master sent it, to
// its backlog and its own replicas. size is the command's length on the
// wire, which its re-encoding has (the master sends RESP arrays).
func (e *Engine) replProxy(args [][]byte, size int64) {
	r := &e.Repl
	if r.Backlog == nil && len(r.replicas) == 0 {
		r.Offset += size
		return
	}
	r.proxyBuf = propagate.AppendCommand(r.proxyBuf[:0], args)
	e.replFeedBytes(r.proxyBuf)
	if cap(r.proxyBuf) > 1<<20 {
		r.proxyBuf = nil
	}
}

// createBacklog is createReplicationBacklog: empty, its first byte the
// next of the stream, and the stream read from now on.
func (e *Engine) createBacklog() {
	r := &e.Repl
	r.Backlog = repl.NewBacklog(int(e.Cfg.ReplBacklogSize.Load()), r.Offset+1)
	if r.feed == nil {
		r.feed = &replFeed{e: e}
		e.Prop.Stream.Attach(r.feed)
	}
	r.enc.Reset()
}

// freeBacklog is freeReplicationBacklog (repl-backlog-ttl passed with no
// replica): the stream is no longer recorded.
func (e *Engine) freeBacklog() {
	r := &e.Repl
	r.Backlog = nil
	if r.feed != nil {
		e.Prop.Stream.Detach(r.feed)
		r.feed = nil
	}
}

func cmdSync(x *Ctx) {
	e, c, r := x.E, x.C, &x.E.Repl
	if c.repl != nil {
		return // already a replica: ignored, as Redis
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
	psync := CEqualFold(x.Args[0], "psync")
	if psync {
		off, ok := num.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(ErrNotInt)
			return
		}
		if e.tryPartialResync(x, off) {
			r.SyncPartialOK++
			return
		}
		if len(x.Args[1]) == 0 || x.Args[1][0] != '?' {
			r.SyncPartialErr++
		}
	}
	r.SyncFull++
	rp := &replica{c: c, conf: c.replConf, state: replicaWaitStart, psync: psync, ackTime: e.Clock.Now()}
	c.repl = rp
	r.replicas = append(r.replicas, rp)
	e.Log.Info("Replica asks for synchronization", "addr", c.Addr)
	if len(r.replicas) == 1 && r.Backlog == nil {
		// A backlog made from nothing has no history to continue: a new
		// replication id, and no second one.
		e.Debug.ReplID = NewReplID()
		r.replid = e.Debug.ReplID
		r.Replid2, r.SecondOffset = "", -1
		e.createBacklog()
		e.Log.Info("Replication backlog created", "replid", r.replid)
	}
	e.startReplSync()
}

// tryPartialResync is masterTryPartialResynchronization: +CONTINUE and the
// backlog from off, if the replica's history is ours and the backlog still
// holds it.
func (e *Engine) tryPartialResync(x *Ctx, off int64) bool {
	r := &e.Repl
	id := string(x.Args[1])
	cur := e.ReplicationID()
	if id != cur && (id != r.Replid2 || r.Replid2 == "" || off > r.SecondOffset) {
		return false
	}
	if r.Backlog == nil || !r.Backlog.Has(off) {
		e.Log.Info("Unable to partial resync with replica for lack of backlog", "addr", x.C.Addr, "offset", off)
		return false
	}
	c := x.C
	rp := &replica{c: c, conf: c.replConf, state: replicaOnline, psync: true, ackTime: e.Clock.Now()}
	c.repl = rp
	r.replicas = append(r.replicas, rp)
	if rp.conf.capaPsync2 {
		x.W.Simple("CONTINUE " + cur)
	} else {
		x.W.Simple("CONTINUE")
	}
	// The replica keeps its selected database from the last link: no
	// SELECT is forced.
	x.W.Raw(r.Backlog.AppendFrom(nil, off))
	e.Log.Info("Partial resynchronization request accepted", "addr", c.Addr, "offset", off)
	return true
}

// startReplSync starts a snapshot for the replicas waiting for one, if no
// other snapshot runs (Redis's one child at a time: they wait for the next
// cron otherwise). Call with the lock held.
func (e *Engine) startReplSync() {
	r := &e.Repl
	if r.syncing != nil || e.Persist.BgRunning || e.aof.rw != nil || e.StartLoad.On {
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
	opts := e.writerOptions()
	opts.Repl = &rdb.ReplInfo{ID: id, Offset: r.Offset}
	bg := e.beginBgSnapshot(opts)
	r.syncing = bg
	// The next command after the point in time says its database: the
	// replicas' selected one is unknown after the load.
	r.enc.Reset()
	line := []byte("+FULLRESYNC " + id + " " + strconv.FormatInt(r.Offset, 10) + "\r\n")
	for _, rp := range group {
		rp.state = replicaWaitEnd
		if rp.psync {
			rp.c.Out.Raw(line)
			rp.c.notify()
		}
	}
	e.Log.Info("Starting BGSAVE for SYNC", "replicas", len(group), "offset", r.Offset)
	go e.makeReplRDB(bg, group)
}

// makeReplRDB writes the snapshot into memory and hands it to each replica
// of the group.
func (e *Engine) makeReplRDB(bg *bgSave, group []*replica) {
	var buf bytes.Buffer
	err := e.streamBgsave(bg, &buf)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range bg.dbs {
		d.snap.Abort() // after an error the walk may not be done
	}
	e.freezeAccess(false)
	e.Repl.syncing = nil
	payload := buf.Bytes()
	for _, rp := range group {
		if rp.c.repl != rp {
			continue // gone meanwhile
		}
		if err != nil {
			e.Log.Warn("SYNC failed: BGSAVE for replication failed", "err", err)
			e.KillClient(rp.c)
			continue
		}
		rp.state = replicaSendBulk
		go e.sendReplRDB(rp, payload)
	}
	e.Log.Info("Background RDB transfer started", "bytes", len(payload))
	e.startReplSync() // replicas that came in meanwhile
}

// sendReplRDB writes payload to the replica a window at a time, then what
// the stream held for it, and puts it online.
func (e *Engine) sendReplRDB(rp *replica, payload []byte) {
	var head, tail []byte
	eof := rp.conf.capaEOF && e.Cfg.ReplDisklessSync.Load()
	if eof {
		mark := NewReplID()
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
			e.mu.Lock()
			if rp.c.repl != rp || rp.c.Out == nil || rp.c.Killed {
				e.mu.Unlock()
				return
			}
			if rp.c.Unsent == nil || rp.c.Unsent() < replSendWindow {
				rp.c.Out.Raw(piece)
				rp.c.notify()
				e.mu.Unlock()
				break
			}
			e.mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if rp.c.repl != rp || rp.c.Out == nil {
		return
	}
	rp.state, rp.ackTime = replicaOnline, e.Clock.Now()
	if eof && rp.psync {
		rp.streamOnAck = true // the stream follows its first ACK
		rp.c.notify()
		e.Log.Info("Streamed RDB transfer with replica succeeded: waiting for REPLCONF ACK from replica to enable streaming", "addr", rp.c.Addr)
		return
	}
	rp.c.Out.Raw(rp.pending)
	rp.pending = nil
	rp.c.notify()
	e.Log.Info("Synchronization with replica succeeded", "addr", rp.c.Addr)
}

// dropReplica forgets a replica whose connection ended. Call with the lock
// held.
func (e *Engine) dropReplica(c *Client) {
	r := &e.Repl
	rp := c.repl
	if rp == nil {
		return
	}
	c.repl = nil
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
func (e *Engine) disconnectReplicas() {
	for _, rp := range append([]*replica(nil), e.Repl.replicas...) {
		e.KillClient(rp.c)
		e.dropReplica(rp.c)
	}
}

// replconfAck records a replica's REPLCONF ACK and answers the WAITs it
// satisfies. Call with the lock held.
func (e *Engine) replconfAck(c *Client, off int64) {
	rp := c.repl
	if rp == nil {
		return
	}
	if off > rp.ackOff {
		rp.ackOff = off
	}
	rp.ackTime = e.Clock.Now()
	if rp.streamOnAck && rp.state == replicaOnline {
		rp.streamOnAck = false
		rp.c.Out.Raw(rp.pending)
		rp.pending = nil
		rp.c.notify()
	}
	e.serveWaiters()
}

// countAcks is replicationCountAcksByOffset.
func (e *Engine) countAcks(off int64) int64 {
	n := int64(0)
	for _, rp := range e.Repl.replicas {
		if rp.state == replicaOnline && rp.ackOff >= off {
			n++
		}
	}
	return n
}

// goodReplicas is refreshGoodSlavesCount's figure: online replicas whose
// last ACK is at most min-replicas-max-lag seconds old.
func (e *Engine) goodReplicas() int64 {
	maxLag := e.Cfg.MinReplicasMaxLag.Load()
	now := e.Clock.Now()
	n := int64(0)
	for _, rp := range e.Repl.replicas {
		if rp.state == replicaOnline && int64(now.Sub(rp.ackTime)/time.Second) <= maxLag {
			n++
		}
	}
	return n
}

// noGoodReplicas is checkGoodReplicasStatus's refusal: a master with
// min-replicas-to-write and -max-lag set and fewer good replicas than the
// minimum refuses writes.
func (e *Engine) NoGoodReplicas() bool {
	min := e.Cfg.MinReplicasToWrite.Load()
	return min > 0 && e.Cfg.MinReplicasMaxLag.Load() > 0 && !e.IsReplica() && e.goodReplicas() < min
}

// waitState is a WAIT client's block: how many replicas must have acked
// which offset.
type waitState struct {
	off int64
	n   int64
}

func cmdWait(x *Ctx) {
	e, r := x.E, &x.E.Repl
	if e.IsReplica() {
		x.W.Error(errWaitReplica)
		return
	}
	n, ok := num.ParseInt(x.Args[1])
	if !ok {
		x.W.Error(ErrNotInt)
		return
	}
	ms, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		x.W.Error(ErrTimeoutNegative)
		return
	}
	if ms > 0 && ms > math.MaxInt64-e.Clock.Now().UnixMilli() {
		x.W.Error("ERR timeout is out of range")
		return
	}
	off := x.C.woff
	acked := e.countAcks(off)
	if acked >= n || !x.Block(nil, time.Duration(ms)*time.Millisecond) {
		x.W.Int(acked)
		return
	}
	x.block.wait = &waitState{off: off, n: n}
	r.waiters = append(r.waiters, x.C)
	// Ask every replica for an ACK now rather than at its next second
	// (replicationRequestAckFromSlaves), once the command is done.
	r.getAck = true
}

// requestAcks sends REPLCONF GETACK * down the stream.
func (e *Engine) requestAcks() {
	e.Repl.getAck = false
	if len(e.Repl.replicas) > 0 && !e.IsReplica() {
		e.replFeedBytes(getAckCmd)
	}
}

var (
	getAckCmd = propagate.AppendCommand(nil, [][]byte{[]byte("REPLCONF"), []byte("GETACK"), []byte("*")})
	pingCmd   = propagate.AppendCommand(nil, [][]byte{[]byte("PING")})
)

// waitTimeoutReply is WAIT's answer when it times out or is unblocked: the
// replicas that acked by then.
func (e *Engine) waitTimeoutReply(b *blockState, w *resp.Writer) {
	w.Int(e.countAcks(b.wait.off))
}

// serveWaiters answers the WAITs whose replicas have acked
// (processClientsWaitingReplicas).
func (e *Engine) serveWaiters() {
	r := &e.Repl
	keep := r.waiters[:0]
	for _, c := range r.waiters {
		b := c.Blocked
		if b == nil || b.wait == nil {
			continue // unblocked otherwise (timeout, CLIENT UNBLOCK, gone)
		}
		acked := e.countAcks(b.wait.off)
		if acked < b.wait.n {
			keep = append(keep, c)
			continue
		}
		e.answerBlocked(c, func(w *resp.Writer) { w.Int(acked) })
	}
	clear(r.waiters[len(keep):])
	r.waiters = keep
}

// ReplicationCron is the master side's part of replicationCron, run about
// every 100 ms: start syncs that waited for a snapshot, keep replicas
// waiting for theirs alive with a newline, ping the online ones every
// repl-ping-replica-period, drop those silent past repl-timeout, and free
// the backlog after repl-backlog-ttl with no replica.
func (e *Engine) ReplicationCron() {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &e.Repl
	e.startConfiguredMaster()
	if r.Backlog == nil && len(r.replicas) == 0 {
		return
	}
	e.startReplSync()
	now := e.Clock.Now()
	if r.Backlog != nil && r.Backlog.Size() != int(e.Cfg.ReplBacklogSize.Load()) {
		r.Backlog.Resize(int(e.Cfg.ReplBacklogSize.Load()))
	}
	if len(r.replicas) == 0 {
		if ttl := e.Cfg.ReplBacklogTTL.Load(); ttl > 0 && !e.IsReplica() && r.Backlog != nil &&
			now.Sub(r.noneSince) > time.Duration(ttl)*time.Second {
			e.freeBacklog()
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
	if !e.IsReplica() && now.Sub(r.lastPing) >= period && !e.paused() {
		e.replFeedBytes(pingCmd)
		r.lastPing = now
	}
	timeout := time.Duration(e.Cfg.ReplTimeout.Load()) * time.Second
	for _, rp := range append([]*replica(nil), r.replicas...) {
		switch {
		case rp.state == replicaWaitStart || rp.state == replicaWaitEnd:
			// A newline keeps the replica from timing out while it waits
			// (Redis sends one to replicas of a diskless sync).
			rp.c.Out.Raw([]byte("\n"))
			rp.c.notify()
		case rp.state == replicaOnline && rp.psync && now.Sub(rp.ackTime) > timeout:
			e.Log.Warn("Disconnecting timedout replica (streaming sync)", "addr", rp.c.Addr)
			e.KillClient(rp.c)
			e.dropReplica(rp.c)
		}
	}
}

// infoReplicas writes connected_slaves and the slaveN lines.
func (e *Engine) InfoReplicas(b *InfoBuf) {
	r := &e.Repl
	b.I("connected_slaves", int64(len(r.replicas)))
	if e.Cfg.MinReplicasToWrite.Load() > 0 && e.Cfg.MinReplicasMaxLag.Load() > 0 {
		b.I("min_slaves_good_slaves", e.goodReplicas())
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
		b.Kv("slave"+strconv.Itoa(i), "ip="+rp.ip()+",port="+strconv.Itoa(rp.conf.port)+",state="+state+
			",offset="+strconv.FormatInt(rp.ackOff, 10)+",lag="+strconv.FormatInt(lag, 10))
	}
}

// ip is the address the replica is known by: the one it announced, or its
// connection's.
func (rp *replica) ip() string {
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
func (e *Engine) roleReplicas(w *resp.Writer) {
	n := 0
	for _, rp := range e.Repl.replicas {
		if rp.state == replicaOnline {
			n++
		}
	}
	w.Array(n)
	for _, rp := range e.Repl.replicas {
		if rp.state != replicaOnline {
			continue
		}
		w.Array(3)
		w.BulkString(rp.ip())
		w.BulkString(strconv.Itoa(rp.conf.port))
		w.BulkString(strconv.FormatInt(rp.ackOff, 10))
	}
}

// answerWaiters ends every WAIT with the count it has (the server turned
// replica: no more ACKs will come for its offsets).
func (e *Engine) answerWaiters() {
	r := &e.Repl
	for _, c := range r.waiters {
		if b := c.Blocked; b != nil && b.wait != nil {
			e.answerBlocked(c, func(w *resp.Writer) { e.waitTimeoutReply(b, w) })
		}
	}
	clear(r.waiters)
	r.waiters = r.waiters[:0]
}

// saveReplInfo is rdbPopulateSaveInfo: what an RDB file records of the
// replication history, so that a restarted replica (or master) continues
// it with a partial resync. nil when there is none to continue.
func (e *Engine) saveReplInfo() *rdb.ReplInfo {
	r := &e.Repl
	switch {
	case !e.IsReplica() && r.Backlog != nil:
		return &rdb.ReplInfo{StreamDB: max(r.enc.DB(), 0), ID: e.ReplicationID(), Offset: r.Offset}
	case e.IsReplica() && r.synced:
		db := r.streamDB
		if r.master != nil {
			db = r.master.DB
		}
		return &rdb.ReplInfo{StreamDB: db, ID: e.ReplicationID(), Offset: r.Offset}
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
func (e *Engine) restoreReplInfo(ri *rdb.ReplInfo) {
	if ri == nil || *e.Cfg.Replicaof.Load() == "" || ri.StreamDB < 0 || ri.StreamDB >= config.NumDBs {
		return
	}
	r := &e.Repl
	r.replid, r.Offset, r.synced, r.streamDB = ri.ID, ri.Offset, true, ri.StreamDB
	e.Debug.ReplID = ri.ID
	e.Log.Info("Restored the replication history from the RDB file", "replid", ri.ID, "offset", ri.Offset)
}

// presetConfiguredMaster makes a server whose redis.conf says replicaof a
// replica from the start, as Redis is once it has read the file (ROLE,
// INFO, read-only, no expiry of its own); the link waits for the load.
func (e *Engine) presetConfiguredMaster() {
	host, port, ok := strings.Cut(*e.Cfg.Replicaof.Load(), " ")
	p, err := strconv.Atoi(port)
	if !ok || err != nil {
		return
	}
	r := &e.Repl
	r.host, r.port, r.state = host, p, replConnect
	e.setReplicaExpiry(true)
}

// startConfiguredMaster starts the link to the master redis.conf named,
// once the dataset is loaded (replicationCron connects after the load).
func (e *Engine) startConfiguredMaster() {
	r := &e.Repl
	if r.startChecked || e.StartLoad.On {
		return
	}
	r.startChecked = true
	if r.host == "" || r.stop != nil {
		return // REPLICAOF NO ONE came first, or a link runs
	}
	e.setMaster(r.host, r.port)
}

var errShutdownAborted = errors.New("shutdown aborted while waiting for replicas")

// replicasLagging is !isReadyToShutdown: some replica has not acked the
// whole stream.
func (e *Engine) replicasLagging() bool {
	for _, rp := range e.Repl.replicas {
		if rp.ackOff != e.Repl.Offset {
			return true
		}
	}
	return false
}

// beginShutdownWait is prepareForShutdown's wait for lagging replicas:
// unless now (SHUTDOWN NOW/FORCE) or shutdown-timeout is 0, writes are
// paused, the replicas asked for an ACK, and the deadline returned. Call
// with the lock held.
func (e *Engine) BeginShutdownWait(now bool) (time.Time, bool) {
	t := e.Cfg.ShutdownTimeout.Load()
	if now || t == 0 || e.Repl.shutdownWaiting || !e.replicasLagging() {
		return time.Time{}, false
	}
	if !e.paused() {
		e.replFeedBytes(getAckCmd)
	}
	e.pauseClients(nowMsReal()+t*1000+1000, pauseWrite)
	e.Repl.shutdownWaiting, e.Repl.shutdownAbort = true, false
	e.Log.Info("Waiting for replicas before shutting down.")
	return time.Now().Add(time.Duration(t) * time.Second), true
}

// awaitReplicas waits, without the lock, until every replica has acked the
// stream or the deadline passes (true), or SHUTDOWN ABORT came (false, and
// the pause is lifted).
func (e *Engine) awaitReplicas(deadline time.Time) bool {
	for {
		e.mu.Lock()
		r := &e.Repl
		if r.shutdownAbort {
			r.shutdownWaiting, r.shutdownAbort = false, false
			e.Cs.Pause.Set = false
			e.UpdatePause()
			e.mu.Unlock()
			e.Log.Info("Shutdown manually aborted.")
			return false
		}
		if !e.replicasLagging() || !time.Now().Before(deadline) {
			r.shutdownWaiting = false
			e.logLaggingReplicas()
			e.mu.Unlock()
			return true
		}
		e.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
}

// logLaggingReplicas is finishShutdown's report.
func (e *Engine) logLaggingReplicas() {
	r := &e.Repl
	lagging := 0
	for _, rp := range r.replicas {
		if rp.ackOff != r.Offset {
			lagging++
			e.Log.Warn("Lagging replica reported offset behind master", "addr", rp.c.Addr, "behind", r.Offset-rp.ackOff)
		}
	}
	if len(r.replicas) > 0 {
		e.Log.Info(strconv.Itoa(len(r.replicas)-lagging) + " of " + strconv.Itoa(len(r.replicas)) + " replicas are in sync when shutting down.")
	}
}

// abortShutdownWait is SHUTDOWN ABORT: false if no shutdown waits.
func (e *Engine) AbortShutdownWait() bool {
	if !e.Repl.shutdownWaiting {
		return false
	}
	e.Repl.shutdownAbort = true
	return true
}

// finishShutdownAfterWait ends a SHUTDOWN that waited for its replicas:
// the save and the stop, or the error to the client that asked.
func (e *Engine) FinishShutdownAfterWait(c *Client, deadline time.Time, save, nosave, force bool, stop func()) {
	ok := e.awaitReplicas(deadline)
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	if ok {
		err = e.ShutdownSaveLocked(save, nosave, force)
	}
	if !ok || err != nil {
		e.answerBlocked(c, func(w *resp.Writer) { w.Error(ErrShutdownFailed) })
		return
	}
	if c.Blocked != nil {
		c.CloseAfterReply = true // no reply: the connection closes, as Redis exits
		e.answerBlocked(c, func(*resp.Writer) {})
	}
	go stop()
}

// replOutputBytes is what the replicas' output holds unsent (and what the
// stream kept for those still syncing). Call with the lock held.
func (e *Engine) ReplOutputBytes() uint64 {
	n := 0
	for _, rp := range e.Repl.replicas {
		n += len(rp.pending)
		if rp.c.Unsent != nil {
			n += rp.c.Unsent()
		}
	}
	return uint64(n)
}

// answerBlocked ends c's wait (WAIT, a SHUTDOWN waiting for replicas) with
// the reply reply writes, as a served blocking command ends. Nothing
// happens if c no longer waits (it went away). Call with the lock held.
func (e *Engine) answerBlocked(c *Client, reply func(w *resp.Writer)) {
	b := c.Blocked
	if b == nil {
		return
	}
	mark := b.w.Len()
	reply(b.w)
	c.blockedReplyDone(b.w, mark)
	e.unblock(c)
	c.notify()
}
