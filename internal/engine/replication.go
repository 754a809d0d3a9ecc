package engine

import (
	"bytes"
	"github.com/limitkv/limitkv/internal/config"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

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

var replicationCommands = []*Command{
	{Name: "replicaof", Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagStale, Group: "server", Handler: cmdReplicaOf},
	{Name: "slaveof", Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagStale, Group: "server", Handler: cmdReplicaOf},
	{Name: "role", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast, Group: "server", Handler: cmdRole},
	{Name: "replconf", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagAllowBusy, Group: "server", Handler: cmdReplconf},
}

const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	errInvalidPort     = "ERR Invalid master port"
	errMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
)

// Link states, as ROLE names them.
const (
	replNone       = ""
	replConnect    = "connect"
	replConnecting = "connecting"
	replSync       = "sync"
	replConnected  = "connected"
)

type replState struct {
	masterState // serving replicas (replication_master.go)

	host  string // masterhost: "" on a master
	port  int
	state string

	replid, Replid2 string
	Offset          int64 // master_repl_offset: bytes of the stream applied
	SecondOffset    int64
	synced          bool // replid/offset name data the master can continue from

	master     *Client // the master's client while the link is up
	streamDB   int     // the master client's database when the link broke (a partial resync continues in it)
	masterSend func(args ...string) error
	lastIO     time.Time
	downSince  time.Time // repl_down_since: when a connected link was lost (zero: not since the last sync)
	stop       chan struct{}
	done       chan struct{}
	fullSyncs  int64
}

// IsReplica reports whether the server replicates a master. Call with the
// lock held.
func (e *Engine) IsReplica() bool { return e.Repl.host != "" }

func cmdReplicaOf(x *Ctx) {
	e := x.E
	// redis.conf's replicaof makes the server a replica from the start,
	// so a REPLICAOF before the first cron tick acts on that role.
	e.startConfiguredMaster()
	if CEqualFold(x.Args[1], "no") && CEqualFold(x.Args[2], "one") {
		if e.IsReplica() {
			e.unsetMaster()
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
	if e.IsReplica() && strings.EqualFold(e.Repl.host, host) && e.Repl.port == int(port) {
		x.W.Simple("OK Already connected to specified master")
		return
	}
	e.setMaster(host, int(port))
	e.Log.Info("REPLICAOF enabled (user request)", "master", net.JoinHostPort(host, strconv.Itoa(int(port))), "client", x.C.Addr)
	x.W.OK()
}

// setMaster is replicationSetMaster: drop the link to any previous master
// and start the one to host:port. The data stays until the sync replaces
// it.
func (e *Engine) setMaster(host string, port int) {
	r := &e.Repl
	if r.master != nil {
		r.downSince = e.Clock.Now() // freeing the master client: replicationHandleMasterDisconnection
	}
	e.stopLink()
	if !r.synced {
		// This master's own history becomes what a partial resync with
		// the new master may continue from (Redis caches itself as the
		// master: replicationCacheMasterUsingMyself).
		r.replid, r.synced = e.ReplicationID(), true
	}
	r.host, r.port, r.state = host, port, replConnect
	hp := host + " " + strconv.Itoa(port)
	e.Cfg.Replicaof.Store(&hp)
	e.setReplicaExpiry(true)
	// Our replicas resync with us, and learn of the change (they may
	// still continue partially).
	e.disconnectReplicas()
	e.answerWaiters()
	stop, done := make(chan struct{}), make(chan struct{})
	r.stop, r.done = stop, done
	go e.replicate(host, port, stop, done)
}

// unsetMaster is replicationUnsetMaster: the server becomes a master with
// its data, and a new replication id, keeping the old one for replicas
// that continue from it (replid2, second_repl_offset).
func (e *Engine) unsetMaster() {
	e.stopLink()
	r := &e.Repl
	r.host, r.port, r.state = "", 0, replNone
	r.downSince = time.Time{}
	e.Cfg.Replicaof.Store(config.Ptr(""))
	r.Replid2, r.SecondOffset = r.replid, r.Offset+1
	r.replid = NewReplID()
	e.Debug.ReplID = r.replid
	e.setReplicaExpiry(false)
	// Replicas reconnect and continue from replid2; our own writes now
	// feed the stream, which says its database first.
	e.disconnectReplicas()
	if r.Backlog == nil {
		e.createBacklog()
	}
	r.enc.Reset()
}

// stopLink ends the replication goroutine and waits for it, with the lock
// held (it takes the lock itself only between network reads).
func (e *Engine) stopLink() {
	r := &e.Repl
	if r.stop == nil {
		return
	}
	close(r.stop)
	done := r.done
	r.stop, r.done = nil, nil
	e.mu.Unlock()
	<-done
	e.mu.Lock()
	r.master = nil
}

// setReplicaExpiry switches lazy and active expiry to a replica's rules.
func (e *Engine) setReplicaExpiry(on bool) {
	for _, db := range e.Dbs {
		db.KeepExpired = on || e.Cs.Pause.kind != pauseOff
	}
}

// replicate keeps the link to the master until stop is closed: connect,
// sync, apply the stream; on any failure, wait a second and reconnect
// (replicationCron's retry), asking for a partial resync.
func (e *Engine) replicate(host string, port int, stop, done chan struct{}) {
	defer close(done)
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	for {
		err := e.syncOnce(addr, stop)
		select {
		case <-stop:
			return
		default:
		}
		e.mu.Lock()
		if e.Repl.stop == stop {
			if e.Repl.master != nil {
				e.Repl.downSince = e.Clock.Now()
			}
			e.Repl.state, e.Repl.master = replConnect, nil
		}
		e.mu.Unlock()
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

func (e *Engine) syncOnce(addr string, stop chan struct{}) error {
	e.mu.Lock()
	e.Repl.state = replConnecting
	opts := repl.Options{
		ListeningPort: e.Cfg.AnnouncedPort(),
		AnnounceIP:    e.Cfg.AnnouncedIP(),
		MasterAuth:    *e.Cfg.MasterAuth.Load(),
		MasterUser:    *e.Cfg.MasterUser.Load(),
		Timeout:       time.Duration(e.Cfg.ReplTimeout.Load()) * time.Second,
	}
	e.mu.Unlock()
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

	e.mu.Lock()
	e.Repl.state = replSync
	replid, offset := "?", int64(-1)
	if e.Repl.synced {
		replid, offset = e.Repl.replid, e.Repl.Offset+1
	}
	e.mu.Unlock()
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
		e.mu.Lock()
		err = e.loadFromMaster(&buf)
		if err == nil {
			r := &e.Repl
			r.replid, r.Replid2, r.SecondOffset = s.ReplID, strings.Repeat("0", 40), -1
			r.Offset, r.synced = s.Offset, true
			r.fullSyncs++
			e.Debug.ReplID = s.ReplID
			// A new history: our replicas must sync again, and the backlog
			// starts with the master's next byte, ready for a promotion.
			e.disconnectReplicas()
			e.createBacklog()
		}
		e.mu.Unlock()
		if err != nil {
			return err
		}
	} else {
		e.mu.Lock()
		if s.ReplID != "" && s.ReplID != e.Repl.replid {
			r := &e.Repl
			r.Replid2, r.SecondOffset = r.replid, r.Offset+1
			r.replid = s.ReplID
			e.Debug.ReplID = s.ReplID
			e.disconnectReplicas() // they learn the new id on reconnecting
		}
		if e.Repl.Backlog == nil {
			e.createBacklog()
		}
		e.mu.Unlock()
		e.Log.Info("Successful partial resynchronization with master")
	}
	db := 0 // a full sync's stream starts with SELECT
	if !s.Full {
		e.mu.Lock()
		db = e.Repl.streamDB // the master does not say it again
		e.mu.Unlock()
	}
	return e.applyStream(link, stop, db)
}

// loadFromMaster replaces the data with the master's payload. Call with
// the lock held.
func (e *Engine) loadFromMaster(r io.Reader) error {
	for _, db := range e.Dbs {
		db.Flush()
	}
	e.Scripts.DropFunctions() // the payload's libraries replace ours
	if _, err := e.Load(r, false); err != nil {
		for _, db := range e.Dbs {
			db.Flush()
		}
		return err
	}
	return nil
}

// applyStream runs the master's commands as the master client and answers
// REPLCONF GETACK, sending REPLCONF ACK <offset> every second too.
func (e *Engine) applyStream(link *repl.Link, stop chan struct{}, db int) error {
	var sendMu sync.Mutex
	send := func(args ...string) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return link.Send(args...)
	}
	c := e.NewClient(link.RemoteAddr(), link.LocalAddr())
	defer func() {
		e.mu.Lock()
		e.Repl.streamDB = c.DB
		e.RemoveClientLocked(c)
		e.mu.Unlock()
	}()
	e.mu.Lock()
	c.DB = db
	// The master is obeyed: no password, ACL, OOM or read-only rule
	// applies to it (Redis's mustObeyClient; its user is the superuser).
	c.IsMaster, c.User = true, nil
	c.Authed.Store(true)
	r := &e.Repl
	r.master, r.masterSend, r.state, r.lastIO = c, send, replConnected, e.Clock.Now()
	r.downSince = time.Time{}
	e.mu.Unlock()

	acks := time.NewTicker(time.Second)
	defer acks.Stop()
	ackDone := make(chan struct{})
	defer close(ackDone)
	go func() {
		for {
			select {
			case <-acks.C:
				e.mu.Lock()
				off := e.Repl.Offset
				e.mu.Unlock()
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
			e.mu.Lock()
			e.Repl.lastIO = e.Clock.Now()
			for _, args := range cmds {
				if len(args) == 0 {
					continue
				}
				size := repl.CommandSize(args)
				if len(args) >= 2 && CEqualFold(args[0], "replconf") && CEqualFold(args[1], "getack") {
					// The ACK is of what came before the GETACK.
					send("REPLCONF", "ACK", strconv.FormatInt(e.Repl.Offset, 10))
					e.replProxy(args, size)
					continue
				}
				e.applyMasterCommand(c, args, &w)
				e.replProxy(args, size)
				w.Reset(0)
			}
			e.mu.Unlock()
		}
		if err != nil {
			return err
		}
	}
}

// applyMasterCommand runs one command of the master's stream: keys past
// their deadline are still there for it (the master's DEL removes them).
func (e *Engine) applyMasterCommand(c *Client, args [][]byte, w *resp.Writer) {
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

// replicaDenies is processCommand's read-only replica rule.
func (e *Engine) replicaDenies(c *Client, cmd *Command) bool {
	if e.Repl.host == "" || c.IsMaster || !e.Cfg.ReplicaReadOnly.Load() {
		return false
	}
	return writesData(c, cmd)
}

// writesData is processCommand's is_write_command: a write, or an EXEC
// whose queue holds one.
func writesData(c *Client, cmd *Command) bool {
	if cmd.Flags&FlagWrite != 0 {
		return true
	}
	if cmd.Name == "exec" && c.Multi != nil {
		for _, q := range c.Multi.cmds {
			if q.cmd.Flags&FlagWrite != 0 {
				return true
			}
		}
	}
	return false
}

func cmdRole(x *Ctx) {
	e, r := x.E, &x.E.Repl
	if !e.IsReplica() {
		x.W.Array(3)
		x.W.BulkString("master")
		x.W.Int(r.Offset)
		e.roleReplicas(x.W)
		return
	}
	x.W.Array(5)
	x.W.BulkString("slave")
	x.W.BulkString(r.host)
	x.W.Int(int64(r.port))
	x.W.BulkString(r.state)
	off := int64(-1)
	if r.master != nil {
		off = r.Offset
	}
	x.W.Int(off)
}

// cmdReplconf is REPLCONF as a replica's master or a client sends it.
func cmdReplconf(x *Ctx) {
	if len(x.Args)%2 == 0 {
		x.W.Error(ErrSyntax)
		return
	}
	conf := &x.C.replConf
	for i := 1; i < len(x.Args); i += 2 {
		switch opt, val := x.Args[i], x.Args[i+1]; {
		case CEqualFold(opt, "listening-port"):
			port, ok := num.ParseInt(val)
			if !ok || port < math.MinInt32 || port > math.MaxInt32 {
				x.W.Error(ErrNotInt)
				return
			}
			conf.port = int(int32(port))
		case CEqualFold(opt, "ip-address"):
			if len(val) >= 46 { // NET_HOST_STR_LEN
				x.W.Error("ERR REPLCONF ip-address provided by replica instance is too long: " + strconv.Itoa(len(val)) + " bytes")
				return
			}
			conf.ip = string(val)
		case CEqualFold(opt, "capa"):
			switch {
			case CEqualFold(val, "eof"):
				conf.capaEOF = true
			case CEqualFold(val, "psync2"):
				conf.capaPsync2 = true
			}
		case CEqualFold(opt, "rdb-only"), CEqualFold(opt, "rdb-filter-only"):
		case CEqualFold(opt, "ack"):
			// A replica's ACK (and only a replica's) counts; it is never
			// answered.
			if off, ok := num.ParseInt(val); ok {
				x.E.replconfAck(x.C, off)
			}
			return
		case CEqualFold(opt, "getack"):
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
func (e *Engine) InfoReplica(b *InfoBuf) {
	r := &e.Repl
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
	b.I("slave_read_repl_offset", r.Offset)
	b.I("slave_repl_offset", r.Offset)
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

// deniesStale is processCommand's is_denystale_command: what a replica
// with a broken link refuses when replica-serve-stale-data is no.
func deniesStale(c *Client, cmd *Command) bool {
	if cmd.Flags&FlagStale == 0 {
		return true
	}
	if cmd.Name == "exec" && c.Multi != nil {
		for _, q := range c.Multi.cmds {
			if q.cmd.Flags&FlagStale == 0 {
				return true
			}
		}
	}
	return false
}
