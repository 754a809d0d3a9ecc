// Package limitkv runs a Redis-compatible limit server inside a Go program:
// the same server as the limitkv binary, for tests and CI that need the real
// thing without installing Redis, with a clock the test can move.
//
//	srv := limitkv.StartT(t, limitkv.Options{})
//	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
package limitkv

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/server"
)

// Clock is the server's time source.
type Clock = clock.Clock

// ManualClock is a Clock that moves only when the test moves it. Keys expire
// as it passes their deadlines, without sleeping.
type ManualClock = clock.Manual

// NewManualClock returns a ManualClock reading t.
func NewManualClock(t time.Time) *ManualClock { return clock.NewManual(t) }

// Options configure a server. The zero value serves on a free loopback port
// with the real clock and Redis's defaults.
type Options struct {
	// Addr is the TCP address to listen on; default "127.0.0.1:0" (a free port).
	Addr string
	// Clock defaults to the system clock.
	Clock Clock
	// Logger receives the server's logs; default: discarded.
	Logger *slog.Logger
	// Password, if set, is required with AUTH (requirepass).
	Password string
	// Config, if set, supplies every other setting (see commands.DefaultConfig).
	Config *commands.Config
	// TLS, if set, makes the server speak TLS only, with this configuration
	// (certificates; ClientAuth and ClientCAs for client certificates), as
	// the binary's --tls-port does.
	TLS *tls.Config
}

// Server is a running limitkv server.
type Server struct {
	srv  *server.Server
	ln   net.Listener
	done chan struct{}
}

// Start listens on opts.Addr and serves in the background until Close.
func Start(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	cfg := opts.Config
	if cfg == nil {
		cfg = commands.DefaultConfig()
	}
	if opts.Password != "" {
		cfg.RequirePass.Store(&opts.Password)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("limitkv: listen: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok {
		cfg.Port = tcp.Port
		cfg.Bind = tcp.IP.String()
	}
	if opts.TLS != nil {
		ln = tls.NewListener(ln, opts.TLS)
	}
	eng := commands.New(cfg, opts.Clock, opts.Logger)
	s := &Server{srv: server.New(eng, opts.Logger), ln: ln, done: make(chan struct{})}
	eng.Shutdown = func() { go s.Close() }
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// StartT starts a server for the test t and closes it when the test ends.
func StartT(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Addr is the address clients connect to, e.g. "127.0.0.1:41234".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server: no new connections, open ones closed. It waits for
// every connection to finish. Data is not kept.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// Done is closed once the server has stopped (after Close or SHUTDOWN).
func (s *Server) Done() <-chan struct{} { return s.done }
