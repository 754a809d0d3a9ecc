//go:build linux

package server

import (
	"errors"
	"io"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

// The event loop: one goroutine that owns every plain TCP connection's
// socket, as Redis's ae loop does. Each turn it waits in epoll_wait, reads
// what the ready connections sent, then, under ONE acquisition of the
// executor lock, runs the commands of all of them, serves the clients whose
// blocking commands were woken, and writes every pending reply with
// non-blocking writes. An unpipelined request therefore costs a read and a
// write system call and a share of one epoll_wait, with no goroutine switch
// and no netpoller wake-up per request: that is where the goroutine front
// lost to Redis.
//
// Output that no request of the turn asked for (a served blocking command,
// a Pub/Sub message) is appended to the client's reply buffer
// under the executor lock by whoever produces it, which then calls the
// client's Notify: the loop picks the client up at its next turn, woken
// through an eventfd when the producer is not the loop itself. Replies are
// only ever written by the loop, from the one buffer, so there is no second
// writer path.
//
// Bounds, as the goroutine front has them: a client whose unwritten replies
// reach flushAt is not read (nor are its parsed commands run) until the
// socket takes them, so a client that stops reading stalls only itself and
// holds at most about flushAt plus one reply; the hard output limit closes
// it at once, the soft one once it has stayed over for its seconds (checked
// at each cron tick); a blocked client is not read, only watched for
// hang-ups, and its further commands wait in the socket.

const maxEvents = 256

type loop struct {
	s    *Server
	epfd int
	wfd  int // eventfd: wakes epoll_wait for the control inputs below

	conns map[int32]*lconn // by fd; loop goroutine only

	mu       sync.Mutex // guards the control inputs
	incoming []*lconn
	closeReq []*lconn
	ticked   bool
	stopping bool

	// Guarded by the executor lock.
	woken     []*lconn
	running   bool             // the loop holds the lock: Notify needs no eventfd write
	now       time.Time        // when the current turn took the executor lock
	turns     uint64           // turns run, for the yields (yieldTurns)
	pfClients []*engine.Client // prefetchSingles's scratch
	pfCmds    [][][]byte

	events   []unix.EpollEvent
	ready    []*lconn // commands to run this turn
	dirty    []*lconn // output to write this turn
	runnable []*lconn // can go on without an event (see lconn.runnable)
	dead     []*lconn // to close at the end of the turn
	scratch  []*lconn

	busyEvents []unix.EpollEvent // serveBusy's (busy_linux.go)
}

// lconn is one event-loop connection. Every field is the loop goroutine's,
// except w and the blocked-client state, which are guarded by the executor
// lock (the loop holds it whenever it touches them).
type lconn struct {
	conn
	fd    int
	local string
	l     *loop
	cl    *engine.Client
	rd    *resp.Reader
	w     resp.Writer
	woff  int // bytes of w already written

	cmds [][][]byte // parsed and not run yet; they alias rd's buffer
	rerr error      // what ReadBatch reported with cmds: acted on once they have run

	interest  uint32
	waiting   bool        // blocked in a blocking command
	timer     *time.Timer // its timeout
	closing   bool        // close once the output is written
	closed    bool
	softSince time.Time
	softGrace time.Duration // how long its class lets it stay over the soft limit

	inReady, inDirty, inRunnable, inDead bool
}

// fdReader reads a non-blocking socket for resp.Reader.
type fdReader struct{ c *lconn }

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(r.c.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, resp.ErrWouldBlock
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		r.c.l.s.E.Stats.NetInput.Add(int64(n))
		r.c.touch(r.c.l.s)
		return n, nil
	}
}

// startLoop makes the server's loop on first use. Call with s.mu held.
func (s *Server) startLoop() (*loop, error) {
	if s.loop != nil {
		return s.loop, nil
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wfd)}); err != nil {
		unix.Close(epfd)
		unix.Close(wfd)
		return nil, err
	}
	l := &loop{s: s, epfd: epfd, wfd: wfd, conns: make(map[int32]*lconn), events: make([]unix.EpollEvent, maxEvents)}
	s.loop = l
	s.wg.Add(1)
	go l.run()
	return l, nil
}

// loopAccept hands a plain TCP or unix socket connection to the event
// loop, after the checks Redis makes on accept. It reports false for
// connections the loop does not take (TLS, other kinds of socket, Front
// "goroutine").
func (s *Server) loopAccept(nc net.Conn) bool {
	var sc syscall.Conn
	switch c := nc.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	}
	if sc == nil || s.Front == "goroutine" {
		return false
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return true
	}
	l, err := s.startLoop()
	s.mu.Unlock()
	if err != nil {
		s.Log.Warn("event loop unavailable, serving with goroutines", "err", err)
		return false
	}
	e := s.E
	cfg := e.Cfg
	if n := s.nconns.Add(1); n > cfg.MaxClients.Load() {
		s.nconns.Add(-1)
		e.Stats.RejectedConns.Add(1)
		go func() { reject(nc, errMaxClients); nc.Close() }()
		return true
	}
	e.Stats.Connections.Add(1)
	if cfg.ProtectedMode.Load() && !cfg.AuthRequired() && !isLoopback(nc.RemoteAddr()) {
		s.nconns.Add(-1)
		s.Log.Warn("denied non-loopback client in protected mode", "addr", nc.RemoteAddr().String())
		go func() { reject(nc, errDenied); nc.Close() }()
		return true
	}
	// The loop gets its own descriptor for the socket and the net.Conn is
	// closed, which takes the socket out of Go's netpoller: otherwise every
	// request would also wake the runtime's poller for nothing.
	rc, err := sc.SyscallConn()
	fd := -1
	if err == nil {
		cerr := rc.Control(func(f uintptr) { fd, err = unix.Dup(int(f)) })
		if err == nil {
			err = cerr
		}
	}
	raddr, laddr, unixPath := nc.RemoteAddr().String(), nc.LocalAddr().String(), ""
	if ua, ok := nc.LocalAddr().(*net.UnixAddr); ok {
		// Redis names both ends of a unix socket connection "path:0".
		unixPath = ua.Name
		raddr, laddr = unixPath+":0", unixPath+":0"
	}
	nc.Close()
	if err == nil {
		unix.CloseOnExec(fd)
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		s.nconns.Add(-1)
		if fd >= 0 {
			unix.Close(fd)
		}
		s.Log.Warn("could not take over a connection", "addr", raddr, "err", err)
		return true
	}
	c := &lconn{fd: fd, l: l, local: laddr}
	c.addr = raddr
	c.rd = resp.NewReader(fdReader{c}, readBufSize)
	c.closeFn = func() { l.requestClose(c) }
	c.touch(s)
	c.cl = e.NewClient(raddr, laddr)
	e.Lock()
	c.cl.Unix = unixPath
	c.cl.OnKill = c.closeFn
	c.cl.Notify = func() { l.notify(c) }
	c.cl.Out = &c.w
	c.cl.Unsent = func() int { return c.w.Len() - c.woff }
	c.cl.WhileBusy = l.serveBusy
	e.Unlock()
	if !s.track(&c.conn) {
		s.nconns.Add(-1)
		e.RemoveClient(c.cl)
		unix.Close(fd)
		return true
	}
	l.mu.Lock()
	if l.stopping {
		l.mu.Unlock()
		s.untrack(&c.conn)
		s.nconns.Add(-1)
		e.RemoveClient(c.cl)
		unix.Close(fd)
		return true
	}
	l.incoming = append(l.incoming, c)
	l.mu.Unlock()
	l.wake()
	return true
}

func (l *loop) wake() {
	var one = [8]byte{1}
	unix.Write(l.wfd, one[:])
}

// notify is lconn's Client.Notify. Called with the executor lock held.
func (l *loop) notify(c *lconn) {
	l.woken = append(l.woken, c)
	if !l.running {
		l.wake()
	}
}

// requestClose closes c at the loop's next turn; any goroutine may call it.
func (l *loop) requestClose(c *lconn) {
	l.mu.Lock()
	l.closeReq = append(l.closeReq, c)
	l.mu.Unlock()
	l.wake()
}

// tickLoop has the loop check its clients' soft output limits.
func (s *Server) tickLoop() {
	s.mu.Lock()
	l := s.loop
	s.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	l.ticked = true
	l.mu.Unlock()
	l.wake()
}

func (l *loop) stop() {
	l.mu.Lock()
	l.stopping = true
	l.mu.Unlock()
	l.wake()
}

func (l *loop) run() {
	defer l.s.wg.Done()
	defer unix.Close(l.epfd)
	defer unix.Close(l.wfd)
	for {
		timeout := -1
		if len(l.runnable) > 0 {
			timeout = 0
		}
		n, err := unix.EpollWait(l.epfd, l.events, timeout)
		if err != nil && err != unix.EINTR {
			l.s.Log.Error("epoll_wait failed", "err", err)
			time.Sleep(time.Millisecond)
			continue
		}
		events := l.events[:max(n, 0)]
		// The eventfd is drained before the control inputs are read, never
		// after: a wake-up that comes in between then stays pending for
		// the next epoll_wait instead of being swallowed.
		for _, ev := range events {
			if int(ev.Fd) == l.wfd {
				var b [8]byte
				unix.Read(l.wfd, b[:])
				break
			}
		}
		if l.control() {
			return
		}
		l.safeTurn(events)
		if l.turns++; l.turns%yieldTurns == 0 {
			runtime.Gosched()
		}
	}
}

// yieldTurns is how many turns the loop runs between yields to the
// scheduler. A goroutine that never reschedules looks to the runtime's
// monitor like one hogging its P: every 10 ms it is sent a preemption
// signal and, caught in epoll_wait, has its P taken and handed to another
// thread, and the monitor, having found work, keeps waking every 20 µs.
// Measured under 50 unpipelined clients: 2,000-2,400 monitor wake-ups and
// 47 signals a second without the yields, about 100 wake-ups with them. A
// yield every few milliseconds of turns (at least 3-5k turns a second
// under load) keeps its time slice fresh.
const yieldTurns = 16

// safeTurn is turn with a recover: a bug in the loop must not take down
// the process and every client with it. The connections of the turn are
// closed (their state may be half updated); the others go on.
func (l *loop) safeTurn(events []unix.EpollEvent) {
	defer func() {
		if r := recover(); r != nil {
			l.s.Log.Error("event loop panicked", "panic", r, "stack", string(debug.Stack()))
			for _, list := range [][]*lconn{l.ready, l.dirty} {
				for _, c := range list {
					l.kill(c)
				}
			}
			l.ready, l.dirty = l.ready[:0], l.dirty[:0]
			l.closeDead()
		}
	}()
	l.turn(events)
}

// control takes what other goroutines asked for. It reports whether the
// loop is to end, having closed every connection.
func (l *loop) control() bool {
	l.mu.Lock()
	in, reqs, ticked, stopping := l.incoming, l.closeReq, l.ticked, l.stopping
	l.incoming, l.closeReq, l.ticked = nil, nil, false
	l.mu.Unlock()
	for _, c := range in {
		c.interest = unix.EPOLLIN | unix.EPOLLRDHUP
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, c.fd, &unix.EpollEvent{Events: c.interest, Fd: int32(c.fd)}); err != nil {
			l.s.Log.Warn("epoll_ctl add failed", "err", err)
			l.kill(c)
			continue
		}
		l.conns[int32(c.fd)] = c
	}
	for _, c := range reqs {
		l.kill(c)
	}
	if ticked {
		l.checkSoftLimits()
	}
	if stopping {
		for _, c := range l.conns {
			l.kill(c)
		}
		l.closeDead()
		return true
	}
	return false
}

func (l *loop) turn(events []unix.EpollEvent) {
	// Connections that can go on without an event first: their commands
	// come before anything read this turn.
	l.scratch = append(l.scratch[:0], l.runnable...)
	l.runnable = l.runnable[:0]
	for _, c := range l.scratch {
		c.inRunnable = false
		if c.closed {
			continue
		}
		if len(c.cmds) > 0 {
			l.markReady(c)
		} else {
			l.read(c)
		}
	}
	clear(l.scratch)
	for _, ev := range events {
		if int(ev.Fd) == l.wfd {
			continue
		}
		c := l.conns[ev.Fd]
		if c == nil || c.closed {
			continue
		}
		if ev.Events&unix.EPOLLOUT != 0 {
			l.markDirty(c)
		}
		if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
			continue
		}
		if c.interest&unix.EPOLLIN == 0 {
			// Not reading it (blocked, or its output is backed up): this is
			// a hang-up, and Redis, which would read the EOF, frees the client.
			if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
				l.kill(c)
			}
			continue
		}
		if len(c.cmds) == 0 && c.rerr == nil {
			l.read(c)
		}
	}
	l.execute()
	l.closeDead()
}

// read takes what c's socket has and parses it.
func (l *loop) read(c *lconn) {
	cmds, err := c.rd.ReadBatch(l.s.limits(c.cl))
	if err == resp.ErrWouldBlock {
		return
	}
	c.cmds, c.rerr = cmds, err
	l.markReady(c)
}

func (l *loop) markReady(c *lconn) {
	if !c.inReady {
		c.inReady = true
		l.ready = append(l.ready, c)
	}
}

func (l *loop) markDirty(c *lconn) {
	if !c.inDirty {
		c.inDirty = true
		l.dirty = append(l.dirty, c)
	}
}

func (l *loop) markRunnable(c *lconn) {
	if !c.inRunnable {
		c.inRunnable = true
		l.runnable = append(l.runnable, c)
	}
}

// execute is the part of a turn under the executor lock: commands, woken
// clients, then every write.
func (l *loop) execute() {
	e := l.s.E
	if len(l.ready) == 0 && len(l.dirty) == 0 {
		// Only a woken client (or nothing) can need the lock now; peek.
		e.Lock()
		if len(l.woken) == 0 {
			e.Unlock()
			return
		}
	} else {
		e.Lock()
	}
	l.running = true
	// One clock read for the turn's CLIENT LIST idle times, as Redis
	// stamps lastinteraction with its cached clock: at one request per
	// connection it was a read per request.
	l.now = e.Clock.Now()
	defer func() {
		l.running = false
		e.Unlock()
	}()
	l.prefetchSingles()
	for _, c := range l.ready {
		c.inReady = false
		if !c.closed {
			l.runConn(c)
		}
	}
	l.ready = l.ready[:0]
	for len(l.woken) > 0 {
		woken := l.woken
		l.woken = nil
		for _, c := range woken {
			switch {
			case c.closed:
			case c.waiting && !c.cl.IsBlocked():
				l.unblocked(c)
			default: // pushed output (a blocked client gets it too)
				l.markDirty(c)
			}
		}
	}
	// The turn's writes reach the AOF (fsynced with appendfsync always)
	// before any of its replies reach a socket, as in Redis's beforeSleep.
	e.Dur.FlushAOF(false)
	for _, c := range l.dirty {
		c.inDirty = false
		if !c.closed {
			l.flush(c)
		}
	}
	l.dirty = l.dirty[:0]
}

// prefetchSingles hands the engine the turn's lone requests (connections
// with one command, which runConn does not prefetch) to touch together.
func (l *loop) prefetchSingles() {
	if len(l.ready) < 2 {
		return
	}
	for _, c := range l.ready {
		if !c.closed && len(c.cmds) == 1 {
			l.pfClients = append(l.pfClients, c.cl)
			l.pfCmds = append(l.pfCmds, c.cmds[0])
		}
	}
	l.s.E.PrefetchEach(l.pfClients, l.pfCmds)
	clear(l.pfClients)
	clear(l.pfCmds)
	l.pfClients, l.pfCmds = l.pfClients[:0], l.pfCmds[:0]
}

// runConn runs c's parsed commands until they end, one blocks, or the
// replies pending reach flushAt. Called with the lock held.
func (l *loop) runConn(c *lconn) {
	e := l.s.E
	cl := c.cl
	defer func() {
		if r := recover(); r != nil {
			l.s.Log.Error("connection panicked", "client", cl.ID, "addr", c.addr, "panic", r, "stack", string(debug.Stack()))
			l.kill(c)
		}
	}()
	if len(c.cmds) > 0 {
		cl.LastActive = l.now
	}
	i := 0
	for i < len(c.cmds) {
		if i%engine.PrefetchWindow == 0 {
			e.Prefetch(cl, c.cmds[i:min(i+engine.PrefetchWindow, len(c.cmds))])
		}
		if cl.Killed {
			l.kill(c)
			return
		}
		out := e.Exec(cl, c.cmds[i], &c.w)
		if out == engine.Paused {
			// Parked like a blocked client, not read meanwhile; released,
			// it runs the same command again (unblocked -> runConn).
			l.block(c)
			break
		}
		i++
		if out == engine.Close {
			c.closing = true
			c.cmds = nil
			l.markDirty(c)
			return
		}
		if out == engine.Blocked {
			l.block(c)
			break
		}
		if c.w.Len()-c.woff >= flushAt {
			break
		}
	}
	c.cmds = c.cmds[i:]
	if len(c.cmds) == 0 {
		c.cmds = nil
		if c.rerr != nil && !c.waiting {
			l.readFailed(c)
		}
	}
	l.markDirty(c)
}

// readFailed acts on the error the reader reported after c's last
// commands: Redis's protocol error reply, or just the close.
func (l *loop) readFailed(c *lconn) {
	err := c.rerr
	c.closing = true
	var pe *resp.ProtocolError
	switch {
	case errors.As(err, &pe):
		c.w.Error("ERR Protocol error: " + pe.Msg)
		l.s.Log.Info("protocol error, closing client", "client", c.cl.ID, "addr", c.addr, "err", pe.Msg)
	case errors.Is(err, resp.ErrQueryBufLimit):
		l.s.Log.Warn("closing client that reached max query buffer length", "client", c.cl.ID, "addr", c.addr, "limit", l.s.E.Cfg.QueryBufLimit.Load())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
	default:
		l.s.Log.Debug("read failed", "client", c.cl.ID, "addr", c.addr, "err", err)
	}
}

// block parks c until its command is served or times out: its socket is
// only watched for a hang-up meanwhile. Called with the lock held.
func (l *loop) block(c *lconn) {
	c.waiting = true
	c.conn.blocked.Store(true)
	if d := c.cl.BlockDeadline(); !d.IsZero() {
		e, cl := l.s.E, c.cl
		c.timer = time.AfterFunc(time.Until(d), func() {
			e.Lock()
			if e.TimeoutBlocked(cl) {
				cl.Notify()
			}
			e.Unlock()
		})
	}
}

// unblocked resumes c after its blocking command was answered. Called with
// the lock held.
func (l *loop) unblocked(c *lconn) {
	c.waiting = false
	c.conn.blocked.Store(false)
	c.touch(l.s)
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	l.runConn(c)
}

// flush writes c's pending replies without blocking and sets what c waits
// for next. Called with the lock held.
func (l *loop) flush(c *lconn) {
	lim := l.s.E.OutputLimit(c.cl)

	pending := c.w.Bytes()[c.woff:]
	if lim.Hard > 0 && engine.OutputUsage(len(pending)) > lim.Hard {
		l.s.Log.Warn("closing client that overcame the output buffer hard limit", "client", c.cl.ID, "addr", c.addr, "pending", len(pending), "limit", lim.Hard)
		l.kill(c)
		return
	}
	for len(pending) > 0 {
		n, err := unix.Write(c.fd, pending)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			break
		}
		if err != nil {
			l.kill(c)
			return
		}
		l.s.E.Stats.NetOutput.Add(int64(n))
		c.touch(l.s)
		pending = pending[n:]
		c.woff += n
	}
	if len(pending) > 0 && c.woff >= keepWriteCap && c.woff >= len(pending) && c.cl.IsReplicaConn() {
		// A replica's stream may never drain fully: what was sent goes
		// rather than growing the buffer by it (no reply marks point into
		// a replica's buffer).
		c.w.DropPrefix(c.woff)
		c.woff = 0
	}
	if len(pending) == 0 {
		c.w.Reset(keepWriteCap)
		c.woff = 0
		c.softSince = time.Time{}
		if c.closing {
			l.kill(c)
			return
		}
	} else if lim.Soft > 0 && uint64(len(pending)) > lim.Soft {
		if c.softSince.IsZero() {
			c.softSince = time.Now()
		}
		c.softGrace = max(time.Duration(lim.SoftSeconds)*time.Second, softGrace)
	} else {
		c.softSince = time.Time{}
	}
	// A replica's input is its ACKs, which answer nothing: they are read
	// however far its stream is behind, or WAIT and min-replicas would see
	// stale offsets.
	backedUp := len(pending) >= flushAt && !c.cl.IsReplicaConn()
	want := uint32(unix.EPOLLRDHUP)
	if len(pending) > 0 {
		want |= unix.EPOLLOUT
	}
	if !c.waiting && !c.closing && !backedUp && len(c.cmds) == 0 {
		want |= unix.EPOLLIN
	}
	if want != c.interest {
		c.interest = want
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &unix.EpollEvent{Events: want, Fd: int32(c.fd)}); err != nil {
			l.kill(c)
			return
		}
	}
	if !c.waiting && !c.closing && !backedUp && (len(c.cmds) > 0 || c.rd.Rewound()) {
		l.markRunnable(c)
	}
}

// checkSoftLimits closes clients that stayed over the soft output limit
// for its seconds.
func (l *loop) checkSoftLimits() {
	for _, c := range l.conns {
		if !c.softSince.IsZero() && time.Since(c.softSince) >= c.softGrace {
			l.s.Log.Warn("closing client that stayed over the output buffer soft limit", "client", c.cl.ID, "addr", c.addr, "seconds", c.softGrace.Seconds())
			l.kill(c)
		}
	}
}

// kill marks c for closing at the end of the turn; its socket is no longer
// used from now on.
func (l *loop) kill(c *lconn) {
	if c.closed {
		return
	}
	c.closed = true
	if !c.inDead {
		c.inDead = true
		l.dead = append(l.dead, c)
	}
}

// closeDead releases the connections killed this turn. The executor lock
// must not be held.
func (l *loop) closeDead() {
	if len(l.dead) == 0 {
		return
	}
	e := l.s.E
	func() {
		e.Lock()
		defer e.Unlock()
		for _, c := range l.dead {
			if c.timer != nil {
				c.timer.Stop()
			}
			e.RemoveClientLocked(c.cl)
		}
	}()
	for _, c := range l.dead {
		if _, ok := l.conns[int32(c.fd)]; ok {
			delete(l.conns, int32(c.fd))
			unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
		}
		// The slot is free before the peer can see the close: a client
		// that reconnects at once must not meet maxclients.
		l.s.untrack(&c.conn)
		l.s.nconns.Add(-1)
		unix.Close(c.fd)
		c.cmds, c.rd = nil, nil
	}
	clear(l.dead)
	l.dead = l.dead[:0]
}
