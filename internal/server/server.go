// Package server is limitkv's network front: it accepts connections, reads
// pipelined batches of commands with internal/resp's bounded reader, runs each
// batch on the executor under one lock acquisition, and writes all replies of
// the batch in one write.
package server

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/resp"
)

const (
	readBufSize  = 16 << 10
	keepWriteCap = 64 << 10
	// expiry cycle: every tick, at most budget of executor time
	expireTick   = 10 * time.Millisecond
	expireBudget = 2 * time.Millisecond
)

// Server serves one engine on any number of listeners.
type Server struct {
	E   *commands.Engine
	Log *slog.Logger

	mu        sync.Mutex
	listeners []net.Listener
	conns     map[net.Conn]struct{}
	closed    bool

	nconns atomic.Int64
	wg     sync.WaitGroup
	stop   chan struct{}
	once   sync.Once
}

// New returns a server for e and starts its active expiry cycle.
func New(e *commands.Engine, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{E: e, Log: log, conns: make(map[net.Conn]struct{}), stop: make(chan struct{})}
	s.wg.Add(1)
	go s.expireLoop()
	return s
}

// Serve accepts connections on ln until Close. It returns nil after Close.
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
		if !s.track(nc) {
			nc.Close()
			return nil
		}
		s.wg.Add(1)
		go s.handle(nc)
	}
}

func (s *Server) track(nc net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[nc] = struct{}{}
	return true
}

func (s *Server) untrack(nc net.Conn) {
	s.mu.Lock()
	delete(s.conns, nc)
	s.mu.Unlock()
}

// Close stops accepting, closes every connection, stops the expiry cycle and
// waits for all of it to finish.
func (s *Server) Close() error {
	s.once.Do(func() {
		close(s.stop)
		s.mu.Lock()
		s.closed = true
		for _, ln := range s.listeners {
			ln.Close()
		}
		for nc := range s.conns {
			nc.Close()
		}
		s.mu.Unlock()
	})
	s.wg.Wait()
	return nil
}

func (s *Server) expireLoop() {
	defer s.wg.Done()
	t := time.NewTicker(expireTick)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.E.ExpireCycle(expireBudget)
		}
	}
}

// connReader counts input bytes and lets a peek made while the client is
// blocked hand its byte back to the protocol reader.
type connReader struct {
	nc      net.Conn
	pending []byte
	n       *atomic.Int64
}

func (r *connReader) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	n, err := r.nc.Read(p)
	r.n.Add(int64(n))
	return n, err
}

func (s *Server) handle(nc net.Conn) {
	defer s.wg.Done()
	defer s.untrack(nc)
	defer nc.Close()
	e := s.E
	cfg := e.Cfg

	if n := s.nconns.Add(1); n > cfg.MaxClients.Load() {
		s.nconns.Add(-1)
		e.Stats.RejectedConns.Add(1)
		nc.Write([]byte("-" + commands.ErrMaxClients + "\r\n"))
		return
	}
	defer s.nconns.Add(-1)
	e.Stats.Connections.Add(1)
	if cfg.ProtectedMode.Load() && !cfg.AuthRequired() && !isLoopback(nc.RemoteAddr()) {
		s.Log.Warn("denied non-loopback client in protected mode", "addr", nc.RemoteAddr().String())
		nc.Write([]byte("-" + commands.ErrDenied + "\r\n"))
		return
	}

	c := e.NewClient(nc.RemoteAddr().String(), nc.LocalAddr().String())
	defer e.RemoveClient(c)
	e.Lock()
	c.OnKill = func() { nc.Close() }
	e.Unlock()
	log := s.Log.With("client", c.ID, "addr", c.Addr)

	cr := &connReader{nc: nc, n: &e.Stats.NetInput}
	rd := resp.NewReader(cr, readBufSize)
	w := &resp.Writer{}

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
		if t := cfg.Timeout.Load(); t > 0 {
			nc.SetReadDeadline(time.Now().Add(time.Duration(t) * time.Second))
		}
		cmds, err := rd.ReadBatch(s.limits(c))
		quit := false
		if len(cmds) > 0 {
			e.Lock()
			locked = true
			for i := 0; i < len(cmds) && !quit; i++ {
				if c.Killed {
					e.Unlock()
					locked = false
					return
				}
				switch e.Exec(c, cmds[i], w) {
				case commands.Close:
					quit = true
				case commands.Blocked:
					e.Unlock()
					locked = false
					if !s.flush(nc, w) || !s.waitBlocked(c, cr) {
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
				w.Error("ERR Protocol error: " + pe.Msg)
				log.Info("protocol error, closing client", "err", pe.Msg)
			case errors.Is(err, resp.ErrQueryBufLimit):
				log.Warn("closing client that reached max query buffer length", "limit", cfg.QueryBufLimit.Load())
			default:
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					log.Debug("closing idle client")
				}
			}
		}
		if !s.flush(nc, w) || quit {
			return
		}
	}
}

func (s *Server) flush(nc net.Conn, w *resp.Writer) bool {
	if w.Len() == 0 {
		return true
	}
	_, err := nc.Write(w.Bytes())
	s.E.Stats.NetOutput.Add(int64(w.Len()))
	w.Reset(keepWriteCap)
	return err == nil
}

// waitBlocked waits for a blocked client to be served or time out, watching
// the connection meanwhile so a client that disconnects stops waiting.
func (s *Server) waitBlocked(c *commands.Client, cr *connReader) bool {
	done := make(chan struct{})
	peeked := make(chan struct{})
	var b [1]byte
	var n int
	cr.nc.SetReadDeadline(time.Time{})
	go func() {
		defer close(peeked)
		var err error
		n, err = cr.nc.Read(b[:])
		if n == 0 && err != nil {
			var ne net.Error
			if !(errors.As(err, &ne) && ne.Timeout()) {
				close(done)
			}
		}
	}()
	ok := s.E.WaitBlocked(c, done)
	// Stop the peek and give its byte, if any, back to the reader.
	cr.nc.SetReadDeadline(time.Now())
	<-peeked
	cr.nc.SetReadDeadline(time.Time{})
	if n > 0 {
		cr.pending = append(cr.pending, b[0])
		cr.n.Add(1)
	}
	return ok
}

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
func (s *Server) limits(c *commands.Client) resp.Limits {
	cfg := s.E.Cfg
	lim := resp.Limits{MaxBulkLen: cfg.ProtoMaxBulkLen.Load(), MaxQueryBuf: cfg.QueryBufLimit.Load()}
	if !c.Authed && cfg.AuthRequired() {
		lim.MaxMultibulkLen = 10
		lim.MaxUnauthBulkLen = 16384
	}
	return lim
}
