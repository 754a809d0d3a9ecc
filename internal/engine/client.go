package engine

import (
	"crypto/rand"
	"encoding/hex"
	"sync/atomic"
	"time"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/resp"
)

// Client is one connection's state. Fields are guarded by the engine lock.
type Client struct {
	ID      int64
	Addr    string
	LAddr   string
	Name    string
	LibName string
	LibVer  string
	DB      int
	// Authed is atomic: the goroutine front reads it outside the lock
	// for the protocol limits, and ACL changes it for other connections.
	Authed atomic.Bool
	// User is the ACL user the connection runs as (nil: unrestricted).
	User *acl.User
	// Cluster mode: Asking is set by ASKING for the next command (or the
	// transaction it starts), ReadOnly by READONLY until READWRITE.
	Asking, ReadOnly bool
	// Slot is the hash slot of the running command's keys as the cluster
	// routed it (Redis's c->slot), -1 when it has none; a script the
	// command runs holds its own keys to it (ScriptClusterCheck).
	Slot int
	// Proto is the protocol HELLO chose (2 or 3; 0 until then, which is 2).
	Proto   int
	Created time.Time
	// LastActive is when the client last sent a command (CLIENT LIST idle=, timeout).
	LastActive time.Time
	LastCmd    string
	Multi      *MultiState
	// CloseAfterReply makes the connection close once the pending reply is flushed (QUIT).
	CloseAfterReply bool
	// Kill is closed... set by CLIENT KILL; the connection closes at its next turn.
	Killed bool
	// OnKill, set by the connection, closes its socket so a killed client
	// idle in a read goes away at once, as on Redis.
	OnKill func()
	// Notify, set by an event-loop connection, is called with the lock
	// held when something reaches the client that no request of this turn
	// asked for: its blocking command was served or timed out (and, later,
	// pushed messages). Without it the client's goroutine is woken through
	// a channel (WaitBlocked).
	Notify func()
	// Out is the connection's output buffer, where frames no request asked
	// for (Pub/Sub messages) are appended, under the lock.
	Out *resp.Writer
	// Unsent, if set, is how much of Out the connection has not written
	// yet (the loop writes from an offset into it). Called with the lock.
	Unsent func() int

	softSince time.Time // since when pushes keep it over its soft output limit

	// Unix is the socket's path for a client on a Unix socket (its Addr
	// and LAddr are then "path:0", as Redis shows them).
	Unix string

	subs clientSubs     // Pub/Sub (pubsub.go)
	trk  clientTracking // client-side caching (tracking.go)
	Cs   clientSurface  // MONITOR, CLIENT REPLY, NO-EVICT (monitor.go, client_reply.go)
	// WhileBusy, set by an event-loop connection, serves the loop's other
	// connections while this client's script runs past
	// busy-reply-threshold (see busy.go). Called with the lock held.
	WhileBusy func()

	WakeCh     chan struct{}
	Blocked    *BlockState
	InScript   bool
	IsMaster   bool     // the replication master's client: obeyed, never refused
	AofLoading bool     // the client replaying the AOF: obeyed too (MustObey)
	Repl       ReplConn // the durability component's, once it sends REPLCONF, SYNC or PSYNC
	Woff       int64    // the stream's offset after its last propagated write (WAIT)
	ctx        Ctx      // reused by Exec for this client's commands
}

// NewClient registers a client for a new connection. Call without the lock.
func (e *Engine) NewClient(addr, laddr string) *Client {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.NewClientLocked(addr, laddr)
}

// NewClientLocked is NewClient with the lock already held (the client an
// AOF replays on, made inside DEBUG LOADAOF).
func (e *Engine) NewClientLocked(addr, laddr string) *Client {
	now := e.Clock.Now()
	c := &Client{
		ID:         e.nextID.Add(1),
		Addr:       addr,
		LAddr:      laddr,
		Created:    now,
		LastActive: now,
		WakeCh:     make(chan struct{}, 1),
	}
	e.SetDefaultAuth(c)
	e.Clients[c.ID] = c
	return c
}

// RemoveClient forgets c when its connection ends. Call without the lock.
func (e *Engine) RemoveClient(c *Client) {
	e.mu.Lock()
	e.RemoveClientLocked(c)
	e.mu.Unlock()
}

// RemoveClientLocked is RemoveClient with the lock already held.
func (e *Engine) RemoveClientLocked(c *Client) {
	e.DetachClient(c)
	c.Out = nil
}

// detachClient takes c out of everything the engine keeps of it, the
// client table last. Its output buffer stays: CLIENT KILL detaches a
// client whose connection may still be writing it. Doing it twice is
// harmless (the connection's RemoveClient after a KILL).
func (e *Engine) DetachClient(c *Client) {
	e.Unblock(c)
	e.UnwatchAll(c)
	e.DropSubscriptions(c)
	e.StopMonitor(c)
	e.DisableTracking(c)
	e.Dur.ClientGone(c)
	delete(e.Clients, c.ID)
}

// NumClients is the number of connected clients.
func (e *Engine) NumClients() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.Clients)
}

// MultiState is a client's open MULTI: the queued commands and whether a
// queue-time error doomed the transaction.
type MultiState struct {
	cmds  []queued
	Dirty bool
	// What the queue holds, accumulated as commands are queued (Redis's
	// mstate.cmd_flags and cmd_inv_flags), so the dispatcher asks "does
	// EXEC run a write / a command without the stale flag" in one test
	// instead of walking the queue: flags ORs the queued commands' flags,
	// invFlags their complements ("some command lacks X").
	flags, invFlags Flags
	// The queue's effective traits: a script counts by its own flags
	// (effectiveFlags), as getCommandFlags makes Redis count it.
	read, write, mayRepl bool
	denyOOM              bool // a queued command may grow memory
}

type queued struct {
	cmd  *Command
	args [][]byte
}

// queue copies args: they alias the connection's read buffer, which the next
// batch reuses.
func (m *MultiState) Queue(cmd *Command, args [][]byte) {
	cp := make([][]byte, len(args))
	for i, a := range args {
		cp[i] = append([]byte(nil), a...)
	}
	m.cmds = append(m.cmds, queued{cmd, cp})
	m.flags |= cmd.Flags
	m.invFlags |= ^cmd.Flags
	m.denyOOM = m.denyOOM || cmd.Flags&FlagDenyOOM != 0
}

// execHas reports whether cmd, or the queue an EXEC runs, holds a command
// with flag f (processCommand's is_write_command and the like).
func execHas(c *Client, cmd *Command, f Flags) bool {
	return cmd.Flags&f != 0 || cmd.Name == "exec" && c.Multi != nil && c.Multi.flags&f != 0
}

// execLacks reports whether cmd, or some command of the queue an EXEC
// runs, lacks flag f (is_denystale_command, is_denyloading_command).
func execLacks(c *Client, cmd *Command, f Flags) bool {
	return cmd.Flags&f == 0 || cmd.Name == "exec" && c.Multi != nil && c.Multi.invFlags&f != 0
}

// blockState is what a blocked client waits for.
type BlockState struct {
	keys     []string
	db       int
	Deadline time.Time // zero: forever
	args     [][]byte
	W        *resp.Writer
	// postponed: held back by CLIENT PAUSE (client_pause.go), not
	// waiting for keys; the connection runs the command again.
	postponed bool
	// Wait is set for WAIT, which replicas' ACKs serve, not keys. What it
	// waits for (an offset, a number of replicas) is the durability
	// component's to read: opaque here.
	Wait any
}

// Block tells the executor that the command found nothing to serve and the
// client waits until one of keys is written or timeout passes (0: forever).
// The handler must not have written a reply. Inside MULTI or a script Redis
// does not block: the caller answers as on timeout instead, which Block
// reports by returning false.
func (x *Ctx) Block(keys [][]byte, timeout time.Duration) bool {
	if x.C.Multi != nil || x.C.InScript {
		return false
	}
	b := &BlockState{db: x.C.DB, args: x.Args, W: x.W}
	for _, k := range keys {
		b.keys = append(b.keys, string(k))
	}
	if timeout > 0 {
		// Real time, not the engine clock: a blocked client waits for a
		// duration even when a test clock stands still.
		b.Deadline = time.Now().Add(timeout)
	}
	x.Blocking = b
	return true
}

// SignalReady marks key as written, so clients blocked on it are served after
// the current command, in the order they blocked.
func (x *Ctx) SignalReady(key []byte) {
	if len(x.E.waiting) == 0 {
		return
	}
	k := WaitKey{x.C.DB, string(key)}
	if _, ok := x.E.waiting[k]; ok {
		x.E.ready = append(x.E.ready, k)
	}
}

func (e *Engine) RegisterBlocked(x *Ctx) {
	c := x.C
	c.Blocked = x.Blocking
	for _, k := range x.Blocking.keys {
		wk := WaitKey{x.Blocking.db, k}
		e.waiting[wk] = append(e.waiting[wk], c)
	}
}

func (e *Engine) Unblock(c *Client) {
	b := c.Blocked
	if b == nil {
		return
	}
	if b.postponed {
		e.dropPostponed(c)
	}
	for _, k := range b.keys {
		wk := WaitKey{b.db, k}
		list := e.waiting[wk]
		for i, o := range list {
			if o == c {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(e.waiting, wk)
		} else {
			e.waiting[wk] = list
		}
	}
	c.Blocked = nil
}

// serveBlocked re-runs, in blocking order, the commands of clients waiting on
// keys that were written, as Redis's handleClientsBlockedOnKeys does. A served
// client's reply goes to its own writer and its connection is woken to flush it.
func (e *Engine) serveBlocked() {
	for len(e.ready) > 0 {
		k := e.ready[0]
		e.ready = e.ready[1:]
		for _, c := range append([]*Client(nil), e.waiting[k]...) {
			b := c.Blocked
			if b == nil {
				continue
			}
			x := Ctx{E: e, C: c, W: b.W, Args: b.args, DB: e.Dbs[b.db], Now: e.NowMs(), ReadyKey: k.Key, Rerun: true}
			x.Cmd = Lookup(b.args[0])
			mark := b.W.Len()
			e.Call(&x)
			if x.Blocking != nil {
				continue // still nothing for it (another waiter took it, or wrong type)
			}
			c.BlockedReplyDone(b.W, mark)
			e.Unblock(c)
			c.NotifyOutput()
		}
	}
	e.ready = e.ready[:0]
}

// notify tells c's connection that it has output to write unasked.
func (c *Client) NotifyOutput() {
	if c.Notify != nil {
		c.Notify()
		return
	}
	select {
	case c.WakeCh <- struct{}{}:
	default:
	}
}

// Resp is the client's protocol version, 2 or 3.
func (c *Client) Resp() int {
	if c.Proto == 3 {
		return 3
	}
	return 2
}

// IsBlocked reports whether c waits in a blocking command. Call with the
// lock held.
func (c *Client) IsBlocked() bool { return c.Blocked != nil }

// BlockDeadline is when c's blocking command times out (zero: never, or
// not blocked). Call with the lock held.
func (c *Client) BlockDeadline() time.Time {
	if c.Blocked == nil {
		return time.Time{}
	}
	return c.Blocked.Deadline
}

// TimeoutBlocked ends c's wait as its timeout does, with the reply Redis
// gives then, and reports whether c was still blocked. Call with the lock
// held.
func (e *Engine) TimeoutBlocked(c *Client) bool {
	b := c.Blocked
	if b == nil {
		return false
	}
	e.Unblock(c)
	mark := b.W.Len()
	if b.Wait != nil {
		e.Dur.WaitTimeoutReply(b, b.W)
	} else {
		b.W.NullArray()
	}
	c.BlockedReplyDone(b.W, mark)
	return true
}

// AbandonBlocked forgets c's wait without a reply (its connection went
// away). Call with the lock held.
func (e *Engine) AbandonBlocked(c *Client) { e.Unblock(c) }

// WaitBlocked waits, without the lock, until c is served, its timeout passes,
// or done is closed (the connection went away). On timeout it writes the
// null reply Redis gives. It reports whether the client was served or timed
// out (false: abandoned).
func (e *Engine) WaitBlocked(c *Client, done <-chan struct{}) bool {
	e.mu.Lock()
	b := c.Blocked
	e.mu.Unlock()
	if b == nil {
		return true
	}
	var timeout <-chan time.Time
	if !b.Deadline.IsZero() {
		t := time.NewTimer(time.Until(b.Deadline))
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case <-c.WakeCh:
			// A push to the client wakes it too: go on waiting unless
			// the command was served.
			e.mu.Lock()
			still := c.Blocked == b
			e.mu.Unlock()
			if !still {
				return true
			}
			continue
		case <-timeout:
		case <-done:
			e.mu.Lock()
			e.Unblock(c)
			e.mu.Unlock()
			return false
		}
		break
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.TimeoutBlocked(c) { // served just as the timer fired
		select {
		case <-c.WakeCh:
		default:
		}
	}
	return true
}

// Wake is the channel WaitBlocked waits on; a connection's Notify that
// replaces the default must also signal it.
func (c *Client) Wake() chan struct{} { return c.WakeCh }

// ForEachClient calls fn for every client. Call with the lock held.
func (e *Engine) ForEachClient(fn func(*Client)) {
	for _, c := range e.Clients {
		fn(c)
	}
}

func newRunID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validClientName is Redis's rule: printable ASCII, no spaces.
func ValidClientName(name []byte) bool {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}
