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

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/server"
)

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
	// Config sets any other setting CONFIG SET has, by its redis.conf name,
	// checked as CONFIG SET checks it (see Config).
	Config Config
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
	// (config.DefaultSave is Redis's default): a background save runs
	// when one is reached, and Close saves. Empty: none, unless Config has
	// some.
	Save string
}

// Server is a running limitkv server.
type Server struct {
	srv  *server.Server
	eng  *engine.Engine
	ln   net.Listener
	done chan struct{}

	direct *engine.Client // the client direct access runs commands as
	faults faultList
}

// Start listens on opts.Addr and serves in the background until Close.
func Start(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	cfg := config.DefaultConfig()
	if err := opts.Config.apply(cfg); err != nil {
		return nil, err
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
		sp, msg := config.ParseSave(opts.Save)
		if msg != "" {
			return nil, fmt.Errorf("limitkv: Save: %s", msg)
		}
		cfg.SetSavePoints(sp)
	}
	var clk clock.Clock
	if opts.Clock != nil {
		clk = opts.Clock
	}
	eng := commands.New(cfg, clk, opts.Logger)
	if _, err := durability.OpenAtStart(eng); err != nil {
		durability.CloseAtExit(eng)
		return nil, fmt.Errorf("limitkv: %w", err)
	}
	if !cfg.AOF.Enabled.Load() && (opts.Dir != "" || opts.Save != "") {
		// Before listening: a server that cannot load its data must not
		// serve an empty dataset in its place.
		if _, err := durability.LoadFile(eng, cfg.RDBPath()); err != nil {
			return nil, fmt.Errorf("limitkv: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		durability.CloseAtExit(eng)
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
	s.direct = &engine.Client{ID: -1}
	s.direct.Authed.Store(true)
	eng.Fault = s.fault
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
	serr := durability.ShutdownSave(s.eng)
	durability.CloseAtExit(s.eng)
	if serr != nil {
		return fmt.Errorf("limitkv: saving on close: %w", serr)
	}
	return err
}

// Done is closed once the server has stopped (after Close or SHUTDOWN).
func (s *Server) Done() <-chan struct{} { return s.done }
