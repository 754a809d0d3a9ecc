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
	e := x.E
	// redis.conf's replicaof makes the server a replica from the start,
	// so a REPLICAOF before the first cron tick acts on that role.
	startConfiguredMaster(e)
	if engine.CEqualFold(x.Args[1], "no") && engine.CEqualFold(x.Args[2], "one") {
		if e.IsReplica() {
			unsetMaster(e)
			e.Log.Info("MASTER MODE enabled (user request)", "client", x.C.Addr)
		}
		x.W.OK()
		return
	}
	port, ok := num.ParseInt(x.Args[2])
	if !ok || port < 0 || port > 65535 {
		x.W.Error(engine.ErrInvalidPort)
		return
	}
	host := string(x.Args[1])
	if e.IsReplica() && strings.EqualFold(e.Repl.Host, host) && e.Repl.Port == int(port) {
		x.W.Simple("OK Already connected to specified master")
		return
	}
	setMaster(e, host, int(port))
	e.Log.Info("REPLICAOF enabled (user request)", "master", net.JoinHostPort(host, strconv.Itoa(int(port))), "client", x.C.Addr)
	x.W.OK()
}

// setMaster is replicationSetMaster: drop the link to any previous master
// and start the one to host:port. The data stays until the sync replaces
// it.
func setMaster(e *engine.Engine, host string, port int) {
	r := &e.Repl
	if r.Master != nil {
		r.DownSince = e.Clock.Now() // freeing the master client: replicationHandleMasterDisconnection
	}
	stopLink(e)
	if !r.Synced {
		// This master's own history becomes what a partial resync with
		// the new master may continue from (Redis caches itself as the
		// master: replicationCacheMasterUsingMyself).
		r.Replid, r.Synced = e.ReplicationID(), true
	}
	r.Host, r.Port, r.State = host, port, engine.ReplConnect
	hp := host + " " + strconv.Itoa(port)
	e.Cfg.Replicaof.Store(&hp)
	setReplicaExpiry(e, true)
	// Our replicas resync with us, and learn of the change (they may
	// still continue partially).
	disconnectReplicas(e)
	answerWaiters(e)
	stop, done := make(chan struct{}), make(chan struct{})
	r.Stop, r.Done = stop, done
	go replicate(e, host, port, stop, done)
}

// unsetMaster is replicationUnsetMaster: the server becomes a master with
// its data, and a new replication id, keeping the old one for replicas
// that continue from it (replid2, second_repl_offset).
func unsetMaster(e *engine.Engine) {
	stopLink(e)
	r := &e.Repl
	r.Host, r.Port, r.State = "", 0, engine.ReplNone
	r.DownSince = time.Time{}
	// The time without replicas starts now, or a promoted replica would
	// free its backlog before its old peers can reconnect and continue.
	r.NoneSince = e.Clock.Now()
	e.Cfg.Replicaof.Store(config.Ptr(""))
	r.Replid2, r.SecondOffset = r.Replid, r.Offset+1
	r.Replid = engine.NewReplID()
	e.Debug.ReplID = r.Replid
	setReplicaExpiry(e, false)
	// Replicas reconnect and continue from replid2; our own writes now
	// feed the stream, which says its database first.
	disconnectReplicas(e)
	if r.Backlog == nil {
		createBacklog(e)
	}
	r.Enc.Reset()
}

// stopLink ends the replication goroutine and waits for it, with the lock
// held (it takes the lock itself only between network reads).
func stopLink(e *engine.Engine) {
	r := &e.Repl
	if r.Stop == nil {
		return
	}
	close(r.Stop)
	done := r.Done
	r.Stop, r.Done = nil, nil
	e.Mu.Unlock()
	<-done
	e.Mu.Lock()
	r.Master = nil
}

// setReplicaExpiry switches lazy and active expiry to a replica's rules.
func setReplicaExpiry(e *engine.Engine, on bool) {
	for _, db := range e.Dbs {
		db.KeepExpired = on || e.Cs.Pause.Kind != engine.PauseOff
	}
}

// replicate keeps the link to the master until stop is closed: connect,
// sync, apply the stream; on any failure, wait a second and reconnect
// (replicationCron's retry), asking for a partial resync.
func replicate(e *engine.Engine, host string, port int, stop, done chan struct{}) {
	defer close(done)
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	for {
		err := syncOnce(e, addr, stop)
		select {
		case <-stop:
			return
		default:
		}
		e.Mu.Lock()
		if e.Repl.Stop == stop {
			if e.Repl.Master != nil {
				e.Repl.DownSince = e.Clock.Now()
			}
			e.Repl.State, e.Repl.Master = engine.ReplConnect, nil
		}
		e.Mu.Unlock()
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

func syncOnce(e *engine.Engine, addr string, stop chan struct{}) error {
	e.Mu.Lock()
	e.Repl.State = engine.ReplConnecting
	opts := repl.Options{
		ListeningPort: e.Cfg.AnnouncedPort(),
		AnnounceIP:    e.Cfg.AnnouncedIP(),
		MasterAuth:    *e.Cfg.MasterAuth.Load(),
		MasterUser:    *e.Cfg.MasterUser.Load(),
		Timeout:       time.Duration(e.Cfg.ReplTimeout.Load()) * time.Second,
	}
	e.Mu.Unlock()
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

	e.Mu.Lock()
	e.Repl.State = engine.ReplSync
	replid, offset := "?", int64(-1)
	if e.Repl.Synced {
		replid, offset = e.Repl.Replid, e.Repl.Offset+1
	}
	e.Mu.Unlock()
	s, err := link.PSync(replid, offset)
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
		e.Mu.Lock()
		err = loadFromMaster(e, &buf)
		if err == nil {
			r := &e.Repl
			r.Replid, r.Replid2, r.SecondOffset = s.ReplID, strings.Repeat("0", 40), -1
			r.Offset, r.Synced = s.Offset, true
			r.FullSyncs++
			e.Debug.ReplID = s.ReplID
			// A new history: our replicas must sync again, and the backlog
			// starts with the master's next byte, ready for a promotion.
			disconnectReplicas(e)
			createBacklog(e)
		}
		e.Mu.Unlock()
		if err != nil {
			return err
		}
	} else {
		e.Mu.Lock()
		if s.ReplID != "" && s.ReplID != e.Repl.Replid {
			r := &e.Repl
			r.Replid2, r.SecondOffset = r.Replid, r.Offset+1
			r.Replid = s.ReplID
			e.Debug.ReplID = s.ReplID
			disconnectReplicas(e) // they learn the new id on reconnecting
		}
		if e.Repl.Backlog == nil {
			createBacklog(e)
		}
		e.Mu.Unlock()
		e.Log.Info("Successful partial resynchronization with master")
	}
	db := 0 // a full sync's stream starts with SELECT
	if !s.Full {
		e.Mu.Lock()
		db = e.Repl.StreamDB // the master does not say it again
		e.Mu.Unlock()
	}
	return applyStream(e, link, stop, db)
}

// loadFromMaster replaces the data with the master's payload. Call with
// the lock held.
func loadFromMaster(e *engine.Engine, r io.Reader) error {
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
func applyStream(e *engine.Engine, link *repl.Link, stop chan struct{}, db int) error {
	var sendMu sync.Mutex
	send := func(args ...string) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return link.Send(args...)
	}
	c := e.NewClient(link.RemoteAddr(), link.LocalAddr())
	defer func() {
		e.Mu.Lock()
		e.Repl.StreamDB = c.DB
		e.RemoveClientLocked(c)
		e.Mu.Unlock()
	}()
	e.Mu.Lock()
	c.DB = db
	// The master is obeyed: no password, ACL, OOM or read-only rule
	// applies to it (Redis's mustObeyClient; its user is the superuser).
	c.IsMaster, c.User = true, nil
	c.Authed.Store(true)
	r := &e.Repl
	r.Master, r.MasterSend, r.State, r.LastIO = c, send, engine.ReplConnected, e.Clock.Now()
	r.DownSince = time.Time{}
	e.Mu.Unlock()

	acks := time.NewTicker(time.Second)
	defer acks.Stop()
	ackDone := make(chan struct{})
	defer close(ackDone)
	go func() {
		for {
			select {
			case <-acks.C:
				e.Mu.Lock()
				off := e.Repl.Offset
				e.Mu.Unlock()
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
			e.Mu.Lock()
			e.Repl.LastIO = e.Clock.Now()
			for _, args := range cmds {
				if len(args) == 0 {
					continue
				}
				size := repl.CommandSize(args)
				if len(args) >= 2 && engine.CEqualFold(args[0], "replconf") && engine.CEqualFold(args[1], "getack") {
					// The ACK is of what came before the GETACK.
					send("REPLCONF", "ACK", strconv.FormatInt(e.Repl.Offset, 10))
					replProxy(e, args, size)
					continue
				}
				applyMasterCommand(e, c, args, &w)
				replProxy(e, args, size)
				w.Reset(0)
			}
			e.Mu.Unlock()
		}
		if err != nil {
			return err
		}
	}
}

// applyMasterCommand runs one command of the master's stream: keys past
// their deadline are still there for it (the master's DEL removes them).
func applyMasterCommand(e *engine.Engine, c *engine.Client, args [][]byte, w *resp.Writer) {
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
	e, r := x.E, &x.E.Repl
	if !e.IsReplica() {
		x.W.Array(3)
		x.W.BulkString("master")
		x.W.Int(r.Offset)
		roleReplicas(e, x.W)
		return
	}
	x.W.Array(5)
	x.W.BulkString("slave")
	x.W.BulkString(r.Host)
	x.W.Int(int64(r.Port))
	x.W.BulkString(r.State)
	off := int64(-1)
	if r.Master != nil {
		off = r.Offset
	}
	x.W.Int(off)
}

// cmdReplconf is REPLCONF as a replica's master or a client sends it.
func cmdReplconf(x *engine.Ctx) {
	if len(x.Args)%2 == 0 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	conf := &x.C.ReplConf
	for i := 1; i < len(x.Args); i += 2 {
		switch opt, val := x.Args[i], x.Args[i+1]; {
		case engine.CEqualFold(opt, "listening-port"):
			port, ok := num.ParseInt(val)
			if !ok || port < math.MinInt32 || port > math.MaxInt32 {
				x.W.Error(engine.ErrNotInt)
				return
			}
			conf.Port = int(int32(port))
		case engine.CEqualFold(opt, "ip-address"):
			if len(val) >= 46 { // NET_HOST_STR_LEN
				x.W.Error("ERR REPLCONF ip-address provided by replica instance is too long: " + strconv.Itoa(len(val)) + " bytes")
				return
			}
			conf.Ip = string(val)
		case engine.CEqualFold(opt, "capa"):
			switch {
			case engine.CEqualFold(val, "eof"):
				conf.CapaEOF = true
			case engine.CEqualFold(val, "psync2"):
				conf.CapaPsync2 = true
			}
		case engine.CEqualFold(opt, "rdb-only"), engine.CEqualFold(opt, "rdb-filter-only"):
		case engine.CEqualFold(opt, "ack"):
			// A replica's ACK (and only a replica's) counts; it is never
			// answered.
			if off, ok := num.ParseInt(val); ok {
				replconfAck(x.E, x.C, off)
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

// infoReplica writes INFO replication's lines for a replica, as Redis
// prints them.
func InfoReplica(e *engine.Engine, b *engine.InfoBuf) {
	r := &e.Repl
	b.Kv("role", "slave")
	b.Kv("master_host", r.Host)
	b.I("master_port", int64(r.Port))
	status := "down"
	if r.State == engine.ReplConnected {
		status = "up"
	}
	b.Kv("master_link_status", status)
	lastIO := int64(-1)
	if r.Master != nil {
		lastIO = int64(e.Clock.Now().Sub(r.LastIO) / time.Second)
	}
	b.I("master_last_io_seconds_ago", lastIO)
	sync := int64(0)
	if r.State == engine.ReplSync {
		sync = 1
	}
	b.I("master_sync_in_progress", sync)
	b.I("slave_read_repl_offset", r.Offset)
	b.I("slave_repl_offset", r.Offset)
	if r.State != engine.ReplConnected {
		down := int64(-1)
		if !r.DownSince.IsZero() {
			down = int64(e.Clock.Now().Sub(r.DownSince) / time.Second)
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
