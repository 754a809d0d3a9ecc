// Package server is limitkv's network front: it accepts connections (plain
// TCP or TLS), reads pipelined batches of commands with internal/resp's
// bounded reader, runs each batch on the executor under one lock
// acquisition, and writes the replies of the batch in as few writes as the
// output limits allow.
//
// What a hostile or broken client can cost the server is bounded:
//   - input: the reader's limits (query buffer, bulk length, and Redis's much
//     smaller ones before AUTH);
//   - output: replies are written whenever 64 KB are pending, outside the
//     executor lock, so one slow reader delays only itself, and a pipeline
//     of big replies never piles up; client-output-buffer-limit's normal
//     class drops a client whose pending output passes the hard limit, or
//     stays above the soft limit for its seconds;
//   - idle: the timeout setting closes clients silent for that long (not
//     blocked ones), checked every 100 ms so CONFIG SET applies to clients
//     already idle;
//   - connections: maxclients, and TLS handshakes bounded in time and done
//     on the connection's goroutine, never in the accept loop.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

const (
	readBufSize  = 16 << 10
	keepWriteCap = 64 << 10
	// flushAt: replies pending past this are written before the batch goes on.
	flushAt = 64 << 10
	// writeChunk is the most written in one call, so progress (which keeps a
	// client from counting as idle) and the soft limit are checked between.
	writeChunk = 64 << 10
	// expiry cycle: every tick, at most budget of executor time
	expireTick   = 10 * time.Millisecond
	expireBudget = 2 * time.Millisecond
	// idleEvery is how often idle clients are looked for, and resizes of
	// the keyspace's tables moved on by up to rehashBudget (Redis's cron
	// spends 1 ms every 100 ms on it).
	idleEvery    = 100 * time.Millisecond
	rehashBudget = time.Millisecond
	// DefaultHandshakeTimeout bounds a TLS handshake, so a client that
	// connects and stays silent holds a connection slot no longer than this.
	DefaultHandshakeTimeout = 10 * time.Second
	// rejectTimeout bounds the write of a refusal (maxclients, DENIED).
	rejectTimeout = time.Second
	// softGrace stands for a soft limit of 0 seconds: Redis notices it at
	// its next check.
	softGrace = 100 * time.Millisecond
)

// Server serves one engine on any number of listeners.
type Server struct {
	E   *engine.Engine
	Log *slog.Logger
	// HandshakeTimeout bounds TLS handshakes; set it before Serve.
	HandshakeTimeout time.Duration

	mu        sync.Mutex
	listeners []net.Listener
	retired   map[net.Listener]bool // listeners CONFIG SET port/bind left (Retire)
	conns     map[*conn]struct{}
	closed    bool

	// Front chooses the network front for plain TCP listeners: "loop" (the
	// epoll event loop, the default where there is one) or "goroutine" (a
	// goroutine per connection, what TLS always uses). Set it before Serve.
	Front string
	loop  *loop // started by the first Serve that uses it

	epoch  time.Time // monotonic base of conn.last
	nconns atomic.Int64
	wg     sync.WaitGroup
	stop   chan struct{}
	once   sync.Once
}

// conn is one client connection as the server tracks it: a goroutine
// connection (TLS, or any listener the event loop cannot take) or the
// tracking part of an event-loop connection (lconn), whose nc and raw are
// nil.
type conn struct {
	nc  net.Conn // what commands are read from and replies written to
	raw net.Conn // the socket under nc (nc itself without TLS)
	// addr is the peer's address, for logs.
	addr string
	// closeFn closes the connection from any goroutine: at once for a
	// goroutine connection, at the loop's next turn for a loop one.
	closeFn func()
	// last is when the client last sent a byte or took one of its replies,
	// in ns since the server's epoch.
	last atomic.Int64
	// blocked: waiting in a blocking command, so not idle however long.
	blocked atomic.Bool

	// Goroutine connections only: wmu orders writes to nc between the
	// connection's goroutine and its pusher (see handle), and out is the
	// storage of the bytes being written.
	wmu      sync.Mutex
	out      []byte
	inflight atomic.Int64 // bytes of out not written yet
}

// New returns a server for e and starts its active expiry cycle and idle
// client check.
func New(e *engine.Engine, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{E: e, Log: log, HandshakeTimeout: DefaultHandshakeTimeout,
		conns: make(map[*conn]struct{}), stop: make(chan struct{}), epoch: time.Now()}
	// LIMITKV_NET_FRONT=goroutine runs a whole test suite (or an embedded
	// server) on the goroutine front; CI does so for the server and
	// conformance tests.
	s.Front = os.Getenv("LIMITKV_NET_FRONT")
	s.wg.Add(1)
	go s.cron()
	return s
}

func (s *Server) now() int64 { return int64(time.Since(s.epoch)) }

func (c *conn) touch(s *Server) { c.last.Store(s.now()) }

// Serve accepts connections on ln until Close. ln may be a TLS listener
// (tls.NewListener): handshakes happen on each connection's goroutine. It
// returns nil after Close.
// Retire stops serving ln (CONFIG SET port or bind moved the server to
// other listeners): it is closed, its Serve returns nil, and the
// connections it accepted stay.
func (s *Server) Retire(ln net.Listener) {
	s.mu.Lock()
	if s.retired == nil {
		s.retired = make(map[net.Listener]bool)
	}
	s.retired[ln] = true
	s.listeners = slices.DeleteFunc(s.listeners, func(l net.Listener) bool { return l == ln })
	s.mu.Unlock()
	ln.Close()
}

// Retired reports whether ln was retired.
func (s *Server) Retired(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retired[ln]
}

func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-s.stop:
				return nil
			default:
			}
			if s.Retired(ln) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			// EMFILE and friends: back off instead of spinning, keep serving.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.Log.Warn("accept failed", "err", err, "retry_in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if s.loopAccept(nc) {
			continue
		}
		c := &conn{nc: nc, raw: nc}
		if tc, ok := nc.(*tls.Conn); ok {
			c.raw = tc.NetConn()
		}
		c.addr = c.raw.RemoteAddr().String()
		c.closeFn = func() { c.raw.Close() }
		c.touch(s)
		if !s.track(c) {
			c.raw.Close()
			return nil
		}
		s.wg.Add(1)
		go s.handle(c)
	}
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Close stops accepting, closes every connection, stops the background
// work and waits for all of it to finish. Sockets are closed under TLS, so
// a client that reads nothing cannot hold Close up with a close_notify.
func (s *Server) Close() error {
	s.once.Do(func() {
		// A script that may never end must not keep the server up.
		s.E.AbortScripts()
		close(s.stop)
		s.mu.Lock()
		s.closed = true
		for _, ln := range s.listeners {
			ln.Close()
		}
		for c := range s.conns {
			c.closeFn()
		}
		if s.loop != nil {
			s.loop.stop()
		}
		s.mu.Unlock()
	})
	s.wg.Wait()
	return nil
}

// cron runs the active expiry cycle, closes idle clients and moves table
// resizes on.
func (s *Server) cron() {
	defer s.wg.Done()
	t := time.NewTicker(expireTick)
	defer t.Stop()
	lastIdle := time.Now()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			if s.E.CronPaused() { // DEBUG PAUSE-CRON
				continue
			}
			if s.E.ActiveExpireEnabled() {
				s.E.ExpireCycle(expireBudget)
			}
			if now.Sub(lastIdle) >= idleEvery {
				lastIdle = now
				s.closeIdle()
				s.tickLoop()
				s.E.RehashActively(rehashBudget)
				s.E.Dur.Cron()
				if cl := s.E.Cluster; cl != nil {
					cl.Cron()
				}
			}
		}
	}
}

// closeIdle closes clients that have neither sent anything nor taken any of
// their output for longer than the timeout setting, except blocked clients,
// as Redis's clientsCronHandleTimeout.
func (s *Server) closeIdle() {
	t := s.E.Cfg.Timeout.Load()
	if t <= 0 {
		return
	}
	limit := int64(time.Duration(t) * time.Second)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if !c.blocked.Load() && now-c.last.Load() > limit {
			s.Log.Debug("closing idle client", "addr", c.addr)
			c.closeFn()
		}
	}
}

// connReader counts input bytes, marks the client active, and lets a peek
// made while the client is blocked hand its byte back to the protocol reader.
type connReader struct {
	c       *conn
	s       *Server
	pending []byte
	n       *atomic.Int64
}

func (r *connReader) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	n, err := r.c.nc.Read(p)
	if n > 0 {
		r.n.Add(int64(n))
		r.c.touch(r.s)
	}
	return n, err
}

// reject writes a one-line error to a connection being turned away, without
// waiting long for a client that does not read.
func reject(nc net.Conn, msg string) {
	nc.SetWriteDeadline(time.Now().Add(rejectTimeout))
	nc.Write([]byte("-" + msg + "\r\n"))
}

func (s *Server) handle(c *conn) {
	defer s.wg.Done()
	defer s.untrack(c)
	nc := c.nc
	defer nc.Close()
	e := s.E
	cfg := e.Cfg
	tc, isTLS := nc.(*tls.Conn)

	if n := s.nconns.Add(1); n > cfg.MaxClients.Load() {
		s.nconns.Add(-1)
		e.Stats.RejectedConns.Add(1)
		// Before any handshake, as Redis: a TLS client just sees the
		// connection drop, and costs no handshake.
		if !isTLS {
			reject(nc, errMaxClients)
		}
		return
	}
	defer s.nconns.Add(-1)
	if isTLS {
		ctx, cancel := context.WithTimeout(context.Background(), s.HandshakeTimeout)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			s.Log.Info("TLS handshake failed", "addr", c.raw.RemoteAddr().String(), "err", err)
			c.raw.Close() // no close_notify on a failed handshake
			return
		}
	}
	e.Stats.Connections.Add(1)
	if cfg.ProtectedMode.Load() && !cfg.AuthRequired() && !isLoopback(c.raw.RemoteAddr()) {
		s.Log.Warn("denied non-loopback client in protected mode", "addr", c.raw.RemoteAddr().String())
		reject(nc, errDenied)
		return
	}

	raddr, laddr, unixPath := c.raw.RemoteAddr().String(), c.raw.LocalAddr().String(), ""
	if ua, ok := c.raw.LocalAddr().(*net.UnixAddr); ok {
		// Redis names both ends of a Unix socket connection "path:0".
		unixPath = ua.Name
		raddr, laddr = unixPath+":0", unixPath+":0"
	}
	cl := e.NewClient(raddr, laddr)
	defer e.RemoveClient(cl)
	log := s.Log.With("client", cl.ID, "addr", cl.Addr)

	cr := &connReader{c: c, s: s, n: &e.Stats.NetInput}
	rd := resp.NewReader(cr, readBufSize)
	// w is the client's output buffer: the connection's own replies and
	// what others push to it (Pub/Sub messages) are appended to it under
	// the executor lock, so their bytes keep the order they were produced
	// in. This goroutine writes it out after each batch; the pusher writes
	// it while this goroutine waits in a read.
	w := &resp.Writer{}
	pushed := make(chan struct{}, 1)
	done := make(chan struct{})
	defer close(done)
	e.Lock()
	cl.Unix = unixPath
	cl.OnKill = func() { c.raw.Close() }
	cl.Out = w
	// Output taken for writing still counts as the client's until the
	// socket has it, as in Redis's output buffer.
	cl.Unsent = func() int { return w.Len() + int(c.inflight.Load()) }
	cl.Notify = func() {
		for _, ch := range []chan struct{}{pushed, cl.Wake()} {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	e.Unlock()
	go func() {
		for {
			select {
			case <-done:
				return
			case <-pushed:
				if !s.flush(c, cl, w, log) {
					c.raw.Close()
					return
				}
			}
		}
	}()

	locked := false
	defer func() {
		if r := recover(); r != nil {
			if locked {
				e.Unlock()
			}
			log.Error("connection panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()

	for {
		cmds, err := rd.ReadBatch(s.limits(cl))
		quit := false
		if len(cmds) > 0 {
			e.Lock()
			locked = true
			cl.LastActive = e.Clock.Now()
			for i := 0; i < len(cmds) && !quit; i++ {
				if i%engine.PrefetchWindow == 0 {
					e.Prefetch(cl, cmds[i:min(i+engine.PrefetchWindow, len(cmds))])
				}
				if cl.Killed {
					e.Unlock()
					locked = false
					return
				}
				switch out := e.Exec(cl, cmds[i], w); out {
				case engine.Close:
					quit = true
				case engine.Blocked, engine.Paused:
					if out == engine.Paused {
						i-- // released, it runs the same command again
					}
					e.Unlock()
					locked = false
					if !s.flush(c, cl, w, log) {
						return
					}
					served, gone := s.waitBlocked(c, cl, cr)
					if gone {
						// Served just before the client went: its reply
						// may still reach a half-closed socket.
						if served {
							s.flush(c, cl, w, log)
						}
						return
					}
					e.Lock()
					locked = true
				}
				if w.Len() >= flushAt && i+1 < len(cmds) && !quit {
					e.Unlock()
					locked = false
					if !s.flush(c, cl, w, log) {
						return
					}
					e.Lock()
					locked = true
				}
			}
			e.Unlock()
			locked = false
		}
		if err != nil && !quit {
			quit = true
			var pe *resp.ProtocolError
			switch {
			case errors.As(err, &pe):
				e.Lock()
				w.Error("ERR Protocol error: " + pe.Msg)
				e.Unlock()
				log.Info("protocol error, closing client", "err", pe.Msg)
			case errors.Is(err, resp.ErrQueryBufLimit):
				log.Warn("closing client that reached max query buffer length", "limit", cfg.QueryBufLimit.Load())
			}
		}
		if !s.flush(c, cl, w, log) || quit {
			return
		}
	}
}

// flush writes the client's pending output under the client-output-buffer-
// limit of its class, and reports whether the client may go on. The buffer
// is what Redis's output buffer is: output not yet taken by the client (the
// kernel's socket buffer aside). The pending bytes are taken from w under
// the executor lock and written without it; wmu keeps two flushes (the
// connection's goroutine and its pusher) from interleaving or reordering.
func (s *Server) flush(c *conn, cl *engine.Client, w *resp.Writer, log *slog.Logger) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	e := s.E
	e.Lock()
	if w.Len() == 0 {
		e.Unlock()
		return true
	}
	lim := e.OutputLimit(cl)
	if lim.Hard > 0 && engine.OutputUsage(w.Len()) > lim.Hard {
		pending := w.Len()
		w.Reset(0)
		e.Unlock()
		log.Warn("closing client that overcame the output buffer hard limit", "pending", pending, "limit", lim.Hard)
		return false
	}
	c.out = w.Swap(c.out)
	c.inflight.Store(int64(len(c.out)))
	e.Unlock()
	b := c.out
	defer c.inflight.Store(0)
	// Once this output is over the soft limit its deadline holds until all
	// of it is written: what is left may drop under the limit only because
	// the kernel took the rest, and a write that then blocks would wait
	// for the client forever. (This front stops executing a client's
	// pipeline while its output is written, so the output never grows as
	// Redis's does under a client that does not read.)
	var deadline time.Time
	ok := true
	for len(b) > 0 {
		if deadline.IsZero() && lim.Soft > 0 && uint64(len(b)) > lim.Soft {
			deadline = time.Now().Add(max(time.Duration(lim.SoftSeconds)*time.Second, softGrace))
		}
		c.nc.SetWriteDeadline(deadline)
		n, err := c.nc.Write(b[:min(len(b), writeChunk)])
		if n > 0 {
			e.Stats.NetOutput.Add(int64(n))
			c.touch(s)
			b = b[n:]
			c.inflight.Add(-int64(n))
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				log.Warn("closing client that stayed over the output buffer soft limit", "pending", len(b), "limit", lim.Soft, "seconds", lim.SoftSeconds)
			}
			ok = false
			break
		}
	}
	if cap(c.out) > keepWriteCap || !ok {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
	return ok
}

// waitBlocked waits for a blocked client to be served or time out. Meanwhile
// it keeps reading the connection, as Redis keeps reading a blocked client's
// socket: what arrives is handed to the protocol reader afterwards, and a
// client that disconnects (or sends more than the query buffer limit) stops
// the wait. served: the client got its reply (or its timeout's); gone: the
// connection is to be closed.
func (s *Server) waitBlocked(c *conn, cl *engine.Client, cr *connReader) (served, gone bool) {
	c.blocked.Store(true)
	defer func() {
		c.touch(s)
		c.blocked.Store(false)
	}()
	left := make(chan struct{})
	watched := make(chan struct{})
	var buf []byte
	limit := int(min(s.E.Cfg.QueryBufLimit.Load(), 1<<40))
	c.nc.SetReadDeadline(time.Time{})
	go func() {
		defer close(watched)
		var b [512]byte
		for {
			n, err := c.nc.Read(b[:])
			buf = append(buf, b[:n]...)
			if n > 0 {
				c.touch(s)
			}
			if err != nil {
				var ne net.Error
				if !(errors.As(err, &ne) && ne.Timeout()) {
					close(left)
				}
				return
			}
			if len(buf) > limit {
				s.Log.Warn("closing blocked client that reached max query buffer length", "limit", limit)
				close(left)
				return
			}
		}
	}()
	served = s.E.WaitBlocked(cl, left)
	// Stop the watcher and give what it read to the reader.
	c.nc.SetReadDeadline(time.Now())
	<-watched
	c.nc.SetReadDeadline(time.Time{})
	select {
	case <-left:
		return served, true
	default:
	}
	if len(buf) > 0 {
		cr.pending = append(cr.pending, buf...)
		cr.n.Add(int64(len(buf)))
	}
	return served, false
}

// isLoopback is Redis's connIsLocal: a loopback TCP peer or a Unix socket.
func isLoopback(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// limits are the protocol limits for c now: Redis holds clients that have not
// authenticated to much smaller ones.
func (s *Server) limits(c *engine.Client) resp.Limits {
	cfg := s.E.Cfg
	lim := resp.Limits{MaxBulkLen: cfg.ProtoMaxBulkLen.Load(), MaxQueryBuf: cfg.QueryBufLimit.Load()}
	if !c.Authed.Load() && cfg.AuthRequired() {
		lim.MaxMultibulkLen = resp.UnauthMultibulkLen
		lim.MaxUnauthBulkLen = resp.UnauthBulkLen
	}
	return lim
}
