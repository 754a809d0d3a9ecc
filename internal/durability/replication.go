package durability

import (
	"bytes"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/repl"
	"github.com/limitkv/limitkv/internal/resp"
)

// The replica side of replication (replication.c): REPLICAOF/SLAVEOF start
// a goroutine that keeps a link to the master, does the full or partial
// resync, and applies the master's command stream as the master client,
// counting its offset as the master does. While a replica, the server
// refuses writes from its clients (replica-read-only), its keys do not
// expire by themselves (it waits for the master's DEL, and a key past its
// deadline reads as missing to everyone but the master), and INFO
// replication and ROLE describe the link.

var replicationCommands = []*engine.Command{
	{Name: "replicaof", Arity: 3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagStale, Group: "server", Handler: cmdReplicaOf},
	{Name: "slaveof", Arity: 3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagStale, Group: "server", Handler: cmdReplicaOf},
	{Name: "role", Arity: 1, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale | engine.FlagFast, Group: "server", Handler: cmdRole},
	{Name: "replconf", Arity: -1, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale | engine.FlagAllowBusy, Group: "server", Handler: cmdReplconf},
}

func cmdReplicaOf(x *engine.Ctx) {
	e, d := x.E, Of(x.E)
	// A cluster node's master is the cluster's decision (CLUSTER REPLICATE).
	if e.Cfg.ClusterEnabled() {
		x.W.Error("ERR REPLICAOF not allowed in cluster mode.")
		return
	}
	if d.repl.failover.state != noFailover {
		x.W.Error("ERR REPLICAOF not allowed while failing over.")
		return
	}
	// redis.conf's replicaof makes the server a replica from the start,
	// so a REPLICAOF before the first cron tick acts on that role.
	d.startConfiguredMaster()
	if engine.CEqualFold(x.Args[1], "no") && engine.CEqualFold(x.Args[2], "one") {
		if e.IsReplica() {
			d.unsetMaster()
			e.Log.Info("MASTER MODE enabled (user request)", "client", x.C.Addr)
		}
		x.W.OK()
		return
	}
	port, ok := num.ParseInt(x.Args[2])
	if !ok || port < 0 || port > 65535 {
		x.W.Error(errInvalidPort)
		return
	}
	host := string(x.Args[1])
	if e.IsReplica() && strings.EqualFold(d.repl.host, host) && d.repl.port == int(port) {
		x.W.Simple("OK Already connected to specified master")
		return
	}
	d.setMaster(host, int(port))
	e.Log.Info("REPLICAOF enabled (user request)", "master", net.JoinHostPort(host, strconv.Itoa(int(port))), "client", x.C.Addr)
	x.W.OK()
}

// setMaster is replicationSetMaster: drop the link to any previous master
// and start the one to host:port. The data stays until the sync replaces
// it.
func (d *Component) setMaster(host string, port int) {
	e := d.e
	r := &d.repl
	if r.master != nil {
		r.downSince = e.Clock.Now() // freeing the master client: replicationHandleMasterDisconnection
	}
	d.stopLink()
	if !r.synced {
		// This master's own history becomes what a partial resync with
		// the new master may continue from (Redis caches itself as the
		// master: replicationCacheMasterUsingMyself).
		r.replid, r.synced = e.ReplicationID(), true
	}
	d.setLink(host, port, replConnect)
	hp := host + " " + strconv.Itoa(port)
	e.Cfg.Replicaof.Store(&hp)
	d.setReplicaExpiry(true)
	// Our replicas resync with us, and learn of the change (they may
	// still continue partially).
	d.disconnectReplicas()
	d.answerWaiters()
	stop, done := make(chan struct{}), make(chan struct{})
	r.stop, r.done = stop, done
	go d.replicate(host, port, stop, done)
}

// unsetMaster is replicationUnsetMaster: the server becomes a master with
// its data, and a new replication id, keeping the old one for replicas
// that continue from it (replid2, second_repl_offset).
func (d *Component) unsetMaster() {
	e := d.e
	d.stopLink()
	r := &d.repl
	d.setLink("", 0, replNone)
	r.downSince = time.Time{}
	// The time without replicas starts now, or a promoted replica would
	// free its backlog before its old peers can reconnect and continue.
	r.noneSince = e.Clock.Now()
	e.Cfg.Replicaof.Store(config.Ptr(""))
	r.replid2, r.secondOffset = r.replid, e.ReplOffset()+1
	r.replid = engine.NewReplID()
	e.Debug.ReplID = r.replid
	d.setReplicaExpiry(false)
	// Replicas reconnect and continue from replid2; our own writes now
	// feed the stream, which says its database first.
	d.disconnectReplicas()
	if r.backlog == nil {
		d.createBacklog()
	}
	r.enc.Reset()
}

// setLink sets the master (host "" for none) and the link's state.
func (d *Component) setLink(host string, port int, state string) {
	d.repl.host, d.repl.port = host, port
	d.setLinkState(state)
}

// setLinkState moves the link to state, and tells the engine what its
// dispatcher reads of the link (the read-only and stale-data rules).
func (d *Component) setLinkState(state string) {
	d.repl.state = state
	d.e.SetReplLink(d.repl.host != "", state == replConnected)
}

// stopLink ends the replication goroutine and waits for it, with the lock
// held (it takes the lock itself only between network reads).
func (d *Component) stopLink() {
	e := d.e
	r := &d.repl
	if r.stop == nil {
		return
	}
	close(r.stop)
	done := r.done
	r.stop, r.done = nil, nil
	e.UnlockBare()
	<-done
	e.LockBare()
	r.master = nil
}

// setReplicaExpiry switches lazy and active expiry to a replica's rules.
func (d *Component) setReplicaExpiry(on bool) {
	e := d.e
	for _, db := range e.Dbs {
		db.KeepExpired = on || e.Cs.Pause.Kind != engine.PauseOff
	}
}

// replicate keeps the link to the master until stop is closed: connect,
// sync, apply the stream; on any failure, wait a second and reconnect
// (replicationCron's retry), asking for a partial resync.
func (d *Component) replicate(host string, port int, stop, done chan struct{}) {
	e := d.e
	defer close(done)
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	for {
		err := d.syncOnce(addr, stop)
		select {
		case <-stop:
			return
		default:
		}
		e.LockBare()
		if d.repl.stop == stop {
			if d.repl.master != nil {
				d.repl.downSince = e.Clock.Now()
			}
			d.setLinkState(replConnect)
			d.repl.master = nil
		}
		e.UnlockBare()
		if err != nil {
			e.Log.Warn("replication link to master failed", "master", addr, "err", err)
		}
		select {
		case <-stop:
			return
		case <-time.After(time.Second):
		}
	}
}

func (d *Component) syncOnce(addr string, stop chan struct{}) error {
	e := d.e
	e.LockBare()
	d.setLinkState(replConnecting)
	opts := repl.Options{
		ListeningPort: e.Cfg.AnnouncedPort(),
		AnnounceIP:    e.Cfg.AnnouncedIP(),
		MasterAuth:    *e.Cfg.MasterAuth.Load(),
		MasterUser:    *e.Cfg.MasterUser.Load(),
		Timeout:       time.Duration(e.Cfg.ReplTimeout.Load()) * time.Second,
	}
	e.UnlockBare()
	link, err := repl.Dial(addr, opts)
	if err != nil {
		return err
	}
	defer link.Close()
	// stop closes the link, so that a read in progress ends.
	closed := make(chan struct{})
	defer close(closed)
	go func() {
		select {
		case <-stop:
			link.Close()
		case <-closed:
		}
	}()

	e.LockBare()
	d.setLinkState(replSync)
	replid, offset := "?", int64(-1)
	if d.repl.synced {
		replid, offset = d.repl.replid, e.ReplOffset()+1
	}
	extra := d.failoverPsyncArgs()
	e.UnlockBare()
	s, err := link.PSync(replid, offset, extra...)
	if len(extra) > 0 {
		e.LockBare()
		d.failoverPsyncAnswered(err == nil, stop)
		e.UnlockBare()
	}
	if err != nil {
		return err
	}
	if s.Full {
		e.Log.Info("Full resync from master", "replid", s.ReplID, "offset", s.Offset)
		payload, err := link.Payload()
		if err != nil {
			return err
		}
		// The payload is read whole before the data is replaced, so a
		// link that breaks mid-transfer leaves the old data serving.
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, payload); err != nil {
			return err
		}
		e.LockBare()
		err = d.loadFromMaster(&buf)
		if err == nil {
			r := &d.repl
			r.replid, r.replid2, r.secondOffset = s.ReplID, strings.Repeat("0", 40), -1
			r.synced = true
			e.SetReplOffset(s.Offset)
			r.fullSyncs++
			e.Debug.ReplID = s.ReplID
			// A new history: our replicas must sync again, and the backlog
			// starts with the master's next byte, ready for a promotion.
			d.disconnectReplicas()
			d.createBacklog()
		}
		e.UnlockBare()
		if err != nil {
			return err
		}
	} else {
		e.LockBare()
		if s.ReplID != "" && s.ReplID != d.repl.replid {
			r := &d.repl
			r.replid2, r.secondOffset = r.replid, e.ReplOffset()+1
			r.replid = s.ReplID
			e.Debug.ReplID = s.ReplID
			d.disconnectReplicas() // they learn the new id on reconnecting
		}
		if d.repl.backlog == nil {
			d.createBacklog()
		}
		e.UnlockBare()
		e.Log.Info("Successful partial resynchronization with master")
	}
	db := 0 // a full sync's stream starts with SELECT
	if !s.Full {
		e.LockBare()
		db = d.repl.streamDB // the master does not say it again
		e.UnlockBare()
	}
	return d.applyStream(link, stop, db)
}

// loadFromMaster replaces the data with the master's payload. Call with
// the lock held.
func (d *Component) loadFromMaster(r io.Reader) error {
	e := d.e
	for _, db := range e.Dbs {
		db.Flush()
	}
	e.Scripts.DropFunctions() // the payload's libraries replace ours
	if _, err := Load(e, r, false); err != nil {
		for _, db := range e.Dbs {
			db.Flush()
		}
		return err
	}
	return nil
}

// applyStream runs the master's commands as the master client and answers
// REPLCONF GETACK, sending REPLCONF ACK <offset> every second too.
func (d *Component) applyStream(link *repl.Link, stop chan struct{}, db int) error {
	e := d.e
	var sendMu sync.Mutex
	send := func(args ...string) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return link.Send(args...)
	}
	c := e.NewClient(link.RemoteAddr(), link.LocalAddr())
	defer func() {
		e.LockBare()
		d.repl.streamDB = c.DB
		e.RemoveClientLocked(c)
		e.UnlockBare()
	}()
	e.LockBare()
	c.DB = db
	// The master is obeyed: no password, ACL, OOM or read-only rule
	// applies to it (Redis's mustObeyClient; its user is the superuser).
	c.IsMaster, c.User = true, nil
	c.Authed.Store(true)
	r := &d.repl
	r.master, r.masterSend, r.lastIO = c, send, e.Clock.Now()
	d.setLinkState(replConnected)
	r.downSince = time.Time{}
	e.UnlockBare()

	acks := time.NewTicker(time.Second)
	defer acks.Stop()
	ackDone := make(chan struct{})
	defer close(ackDone)
	go func() {
		for {
			select {
			case <-acks.C:
				e.LockBare()
				off := e.ReplOffset()
				e.UnlockBare()
				send("REPLCONF", "ACK", strconv.FormatInt(off, 10))
			case <-ackDone:
				return
			}
		}
	}()

	rd := resp.NewReader(link.Stream(), 64<<10)
	var w resp.Writer
	lim := resp.Limits{MaxBulkLen: e.Cfg.ProtoMaxBulkLen.Load(), MaxQueryBuf: 1 << 62}
	for {
		cmds, err := rd.ReadBatch(lim)
		if len(cmds) > 0 {
			e.LockBare()
			d.repl.lastIO = e.Clock.Now()
			for _, args := range cmds {
				if len(args) == 0 {
					continue
				}
				size := repl.CommandSize(args)
				if len(args) >= 2 && engine.CEqualFold(args[0], "replconf") && engine.CEqualFold(args[1], "getack") {
					// The ACK is of what came before the GETACK.
					send("REPLCONF", "ACK", strconv.FormatInt(e.ReplOffset(), 10))
					d.replProxy(args, size)
					continue
				}
				d.applyMasterCommand(c, args, &w)
				d.replProxy(args, size)
				w.Reset(0)
			}
			e.UnlockBare()
		}
		if err != nil {
			return err
		}
	}
}

// applyMasterCommand runs one command of the master's stream: keys past
// their deadline are still there for it (the master's DEL removes them).
func (d *Component) applyMasterCommand(c *engine.Client, args [][]byte, w *resp.Writer) {
	e := d.e
	for _, db := range e.Dbs {
		db.NoExpire = true
	}
	e.Exec(c, args, w)
	for _, db := range e.Dbs {
		db.NoExpire = false
	}
	if w.Len() > 0 && w.Bytes()[0] == '-' {
		e.Log.Warn("command from the master failed", "cmd", string(args[0]), "reply", strings.TrimSpace(string(w.Bytes())))
	}
}

func cmdRole(x *engine.Ctx) {
	e, d := x.E, Of(x.E)
	r := &d.repl
	if !e.IsReplica() {
		x.W.Array(3)
		x.W.BulkString("master")
		x.W.Int(e.ReplOffset())
		d.roleReplicas(x.W)
		return
	}
	x.W.Array(5)
	x.W.BulkString("slave")
	x.W.BulkString(r.host)
	x.W.Int(int64(r.port))
	x.W.BulkString(r.state)
	off := int64(-1)
	if r.master != nil {
		off = e.ReplOffset()
	}
	x.W.Int(off)
}

// cmdReplconf is REPLCONF as a replica's master or a client sends it.
func cmdReplconf(x *engine.Ctx) {
	d := Of(x.E)
	if len(x.Args)%2 == 0 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	conf := &connOf(x.C).conf
	for i := 1; i < len(x.Args); i += 2 {
		switch opt, val := x.Args[i], x.Args[i+1]; {
		case engine.CEqualFold(opt, "listening-port"):
			port, ok := num.ParseInt(val)
			if !ok || port < math.MinInt32 || port > math.MaxInt32 {
				x.W.Error(engine.ErrNotInt)
				return
			}
			conf.port = int(int32(port))
		case engine.CEqualFold(opt, "ip-address"):
			if len(val) >= 46 { // NET_HOST_STR_LEN
				x.W.Error("ERR REPLCONF ip-address provided by replica instance is too long: " + strconv.Itoa(len(val)) + " bytes")
				return
			}
			conf.ip = string(val)
		case engine.CEqualFold(opt, "capa"):
			switch {
			case engine.CEqualFold(val, "eof"):
				conf.capaEOF = true
			case engine.CEqualFold(val, "psync2"):
				conf.capaPsync2 = true
			}
		case engine.CEqualFold(opt, "rdb-only"), engine.CEqualFold(opt, "rdb-filter-only"):
		case engine.CEqualFold(opt, "ack"):
			// A replica's ACK (and only a replica's) counts; it is never
			// answered.
			if off, ok := num.ParseInt(val); ok {
				d.replconfAck(x.C, off)
			}
			return
		case engine.CEqualFold(opt, "getack"):
			return // no reply, as Redis (only a master's GETACK gets one, in the stream)
		default:
			x.W.Error("ERR Unrecognized REPLCONF option: " + string(x.Args[i]))
			return
		}
	}
	x.W.OK()
}

// SetMaster is replicationSetMaster for the cluster component: CLUSTER
// REPLICATE, or a change of role the cluster's gossip decides. Call with
// the lock held.
func (d *Component) SetMaster(host string, port int) {
	if d.e.IsReplica() && strings.EqualFold(d.repl.host, host) && d.repl.port == port {
		return
	}
	d.setMaster(host, port)
}

// UnsetMaster is replicationUnsetMaster for the cluster component (CLUSTER
// RESET of a replica). Call with the lock held.
func (d *Component) UnsetMaster() {
	if d.e.IsReplica() {
		d.unsetMaster()
	}
}

// MasterDataAge is how stale a replica's data may be, as the cluster's
// failover judges it (clusterHandleSlaveFailover's data_age): the time
// since the master last sent anything while the link is up, else since the
// link went down. ok is false when the link has not been up since the last
// sync or the start: Redis then counts from the epoch (repl_down_since 0),
// and so does the caller. Call with the lock held.
func (d *Component) MasterDataAge() (age time.Duration, ok bool) {
	r := &d.repl
	now := d.e.Clock.Now()
	if r.state == replConnected {
		return now.Sub(r.lastIO), true
	}
	if r.downSince.IsZero() {
		return 0, false
	}
	return now.Sub(r.downSince), true
}
