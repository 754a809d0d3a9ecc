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
	// Dir, if set, is the directory of the RDB snapshot (redis.conf's dir):
	// Start loads DBFilename from it if it exists, and refuses to start if
	// that file is corrupt. SAVE, BGSAVE and the save points write there.
	// Without Dir, dir is the working directory, loaded from only if Save
	// is set (a server that saves there must also find its data again).
	Dir string
	// DBFilename is the snapshot's file name in Dir; default "dump.rdb".
	DBFilename string
	// Save sets save points in redis.conf's form, e.g. "3600 1 300 100"
	// (commands.DefaultSave is Redis's default): a background save runs
	// when one is reached, and Close saves. Empty: none, unless Config has
	// some.
	Save string
}

// Server is a running limitkv server.
type Server struct {
	srv  *server.Server
	eng  *commands.Engine
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
	if opts.Dir != "" || opts.DBFilename != "" {
		dir := opts.Dir
		if dir == "" {
			dir = *cfg.Dir.Load()
		}
		if err := cfg.SetDir(dir, opts.DBFilename); err != nil {
			return nil, fmt.Errorf("limitkv: %w", err)
		}
	}
	if opts.Save != "" {
		sp, msg := commands.ParseSave(opts.Save)
		if msg != "" {
			return nil, fmt.Errorf("limitkv: Save: %s", msg)
		}
		cfg.SetSavePoints(sp)
	}
	eng := commands.New(cfg, opts.Clock, opts.Logger)
	if opts.Dir != "" || opts.Save != "" {
		// Before listening: a server that cannot load its data must not
		// serve an empty dataset in its place.
		if _, err := eng.LoadFile(cfg.RDBPath()); err != nil {
			return nil, fmt.Errorf("limitkv: %w", err)
		}
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
	s := &Server{srv: server.New(eng, opts.Logger), eng: eng, ln: ln, done: make(chan struct{})}
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
// every connection to finish. With save points set (Options.Save) it then
// saves the dataset, as Redis does at SIGTERM, unless a SHUTDOWN already
// did; a failed save is returned (the server is stopped all the same).
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	serr := s.eng.ShutdownSave()
	s.eng.WaitBgsave()
	if serr != nil {
		return fmt.Errorf("limitkv: saving on close: %w", serr)
	}
	return err
}

// Done is closed once the server has stopped (after Close or SHUTDOWN).
func (s *Server) Done() <-chan struct{} { return s.done }
