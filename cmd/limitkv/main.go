// Command limitkv runs the limitkv server: a Redis-protocol limit server that
// redis-cli, redis-benchmark, go-redis and other Redis clients talk to. Its
// command line is redis-server's (internal/config):
//
//	limitkv [/path/to/redis.conf] [--name value ...] [-]
//	limitkv --port 6379 --bind 127.0.0.1 --save '' --appendonly no
//	limitkv --port 0 --tls-port 6380 --tls-cert-file s.crt --tls-key-file s.key --tls-ca-cert-file ca.crt
package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // served only with --pprof
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/limitkv/limitkv/internal/cluster"
	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/gctune"
	"github.com/limitkv/limitkv/internal/metrics"
	"github.com/limitkv/limitkv/internal/redislog"
	"github.com/limitkv/limitkv/internal/server"
)

func main() {
	err := run(os.Args[1:])
	var cerr *config.Error
	switch {
	case err == nil:
		return
	case errors.Is(err, errUsage):
	case errors.As(err, &cerr):
		fmt.Fprintln(os.Stderr, cerr.Error())
	default:
		fmt.Fprintln(os.Stderr, "limitkv:", err)
	}
	os.Exit(1)
}

// errUsage ends a --help run with redis-server's exit status, 1.
var errUsage = errors.New("usage")

// load reads the command line and config as redis-server does.
func load(args []string) (*config.Loader, config.Cmdline, error) {
	cl := config.ParseArgs(args)
	l := config.NewLoader()
	if cl.Version || cl.Help {
		return l, cl, nil
	}
	var stdin io.Reader
	if cl.Stdin {
		stdin = os.Stdin
	}
	return l, cl, l.Load(cl.File, stdin, cl.Options)
}

func run(args []string) error {
	l, cl, err := load(args)
	switch {
	case cl.Version:
		fmt.Println(config.Version())
		return nil
	case cl.Help:
		config.Usage(os.Stderr)
		return errUsage
	case err != nil:
		return err
	}
	cfg, set := l.Cfg, l.Set

	log, rlog, closeLog, err := newLogger(cfg, set)
	if err != nil {
		return err
	}
	defer closeLog()
	redislog.Starting(log, redislog.Start{Version: config.RedisVersion, Commit: "00000000", NoArgs: len(args) == 0, Argv0: os.Args[0]})
	for _, w := range set.Warnings {
		log.Warn(w)
	}
	if cl.Stdin {
		log.Warn("Reading config from stdin")
	}
	if st, err := os.Stat(*cfg.Dir.Load()); err != nil || !st.IsDir() {
		return fmt.Errorf("dir: can't chdir to '%s': not a directory", *cfg.Dir.Load())
	}
	if setGCPercent(set, log) {
		stopTuner := make(chan struct{})
		defer close(stopTuner)
		t := &gctune.Tuner{Base: set.GCPercent, Headroom: gcHeadroom}
		go gctune.Run(t, 100*time.Millisecond, func() bool { return cfg.MaxMemory.Load() == 0 }, stopTuner,
			func(from, to int) { log.Debug("GC target", "from", from, "to", to, "garbage_share", t.Share()) })
	}

	var tlsCfg *tls.Config
	if set.TLSPort != 0 {
		tlsCfg, err = server.TLSConfig(server.TLSOptions{CertFile: set.TLSCertFile, KeyFile: set.TLSKeyFile, CAFile: set.TLSCACertFile, AuthClients: set.TLSAuthClients})
		if err != nil {
			return err
		}
	}
	if cfg.Port == 0 && set.TLSPort == 0 && set.UnixSocket == "" {
		return errors.New("nothing to listen on: port and tls-port are both 0, and no unixsocket")
	}
	// Signals are taken before the first listener exists: a SIGTERM that
	// comes as soon as the port accepts must stop the server, not kill it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	var lns []net.Listener
	var kinds []string
	var tcpLns []net.Listener // the client TCP listeners, which CONFIG SET port and bind replace
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for _, p := range []struct {
		port int
		kind string
	}{{cfg.Port, "tcp"}, {set.TLSPort, "tls"}} {
		if p.port == 0 {
			continue
		}
		got, err := listen(cfg.Bind, p.port, log)
		if err != nil {
			return err
		}
		for _, ln := range got {
			if p.kind == "tls" {
				ln = tls.NewListener(ln, tlsCfg)
			} else {
				tcpLns = append(tcpLns, ln)
			}
			lns, kinds = append(lns, ln), append(kinds, p.kind)
		}
	}
	if set.UnixSocket != "" {
		ul, err := server.ListenUnix(set.UnixSocket, os.FileMode(set.UnixSocketPerm))
		if err != nil {
			return errors.New(redislog.UnixSocketFailed.Text(err))
		}
		lns, kinds = append(lns, ul), append(kinds, "unix")
	}
	warnFileLimit(log, cfg.MaxClients.Load())
	if set.PidFile != "" {
		if err := os.WriteFile(set.PidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			log.Warn("Failed to write PID file", "file", set.PidFile, "err", err)
		} else {
			defer os.Remove(set.PidFile)
		}
	}
	if cl.File != "" {
		cfg.Rewrite = func() error {
			if err := config.Rewrite(cl.File, cfg, set); err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return errors.New(strerror(err))
			}
			return nil
		}
	}
	redislog.Initialized(log, redislog.Init{Version: config.RedisVersion, Commit: "00000000", Mode: mode(cfg), Port: cfg.Port, TLSPort: set.TLSPort,
		ShowLogo: rlog != nil && redislog.ShowLogo(set.AlwaysShowLogo, set.SyslogEnabled, set.LogFile)})
	eng := commands.New(cfg, nil, log)
	// Cluster mode: nodes.conf and the bus come before the data, as
	// clusterInit runs before loadDataFromDisk.
	node, err := cluster.Open(eng, log, func(port int) ([]net.Listener, error) { return listen(cfg.Bind, port, log) })
	if err != nil {
		return err
	}
	if node != nil {
		defer node.Close()
	}
	// With appendonly yes the AOF is the dataset, loaded before the server
	// listens (the RDB, below, while it serves LOADING).
	aofOn := cfg.AOF.Enabled.Load()
	found, err := durability.OpenAtStart(eng)
	defer durability.CloseAtExit(eng)
	if err != nil {
		return err
	}
	if found {
		log.Info("DB loaded from append only file")
	}
	srv := server.New(eng, log)
	srv.Front = set.NetFront

	stop := make(chan string, 1)
	// SHUTDOWN has saved (or been refused) before it calls this hook.
	eng.Shutdown = func() { stop <- "SHUTDOWN command" }
	go func() {
		for s := range sig {
			// As Redis at SIGTERM: save when save points are set, and
			// keep running if that fails.
			if err := durability.ShutdownSave(eng); err != nil {
				log.Error("Errors trying to shut down the server. Check the logs for more information.", "err", err)
				continue
			}
			stop <- s.String()
			return
		}
	}()

	if set.Pprof != "" {
		pln, err := net.Listen("tcp", set.Pprof)
		if err != nil {
			return fmt.Errorf("pprof: %w", err)
		}
		log.Info("pprof listening", "addr", pln.Addr().String())
		go http.Serve(pln, nil)
	}
	if set.MetricsAddr != "" {
		mln, err := net.Listen("tcp", set.MetricsAddr)
		if err != nil {
			return fmt.Errorf("metrics-addr: %w", err)
		}
		defer mln.Close()
		log.Info("metrics listening", "addr", mln.Addr().String())
		go metrics.Serve(mln, eng)
	}
	served := make(chan error, len(lns))
	// A listener CONFIG SET retired ends its Serve without ending the
	// server.
	serve := func(ln net.Listener) {
		go func() {
			if err := srv.Serve(ln); !srv.Retired(ln) {
				select {
				case served <- err:
				default: // the server is stopping: one error is enough
				}
			}
		}()
	}
	// CONFIG SET port and bind (with the engine lock held): the new
	// listeners first, so a port that cannot be had leaves the old ones.
	// Set before any client is served, as is what reads cfg.Port below:
	// from then on CONFIG SET changes it, under the engine lock.
	cfg.Rebind = func(bind string, port int) error {
		var fresh []net.Listener
		if port != 0 {
			got, err := listen(bind, port, log)
			if err != nil {
				log.Warn("Could not create server TCP listening socket", "bind", bind, "port", port, "err", err)
				return err
			}
			fresh = got
		}
		for _, ln := range tcpLns {
			srv.Retire(ln)
		}
		tcpLns = fresh
		for _, ln := range fresh {
			log.Info("listening", "addr", ln.Addr().String(), "proto", "tcp")
			serve(ln)
		}
		return nil
	}
	listening := cfg.Port != 0 || set.TLSPort != 0
	log.Info("limitkv started", "version", config.LimitkvVersion, "pid", os.Getpid(), "config", cl.File)
	for i, ln := range lns {
		log.Info("listening", "addr", ln.Addr().String(), "proto", kinds[i])
		serve(ln)
	}
	// Load while serving, as Redis: clients get the LOADING error until
	// the data is in. A file that cannot be read stops the start (and is
	// left as it is) rather than leaving an empty server.
	var st durability.LoadStats
	var loadErr error
	if !aofOn {
		st, loadErr = durability.LoadFile(eng, cfg.RDBPath())
	}
	switch {
	case errors.Is(loadErr, engine.ErrLoadAborted):
		log.Info("shutting down while loading", "reason", <-stop)
		srv.Close()
		return nil
	case loadErr != nil:
		srv.Close()
		return loadErr
	}
	if st.Keys > 0 || st.Expired > 0 {
		log.Info("DB loaded from disk", "keys", st.Keys, "expired", st.Expired)
	}
	if node != nil {
		if err := node.VerifyData(); err != nil {
			srv.Close()
			return err
		}
	}
	if rlog != nil {
		stopRole := make(chan struct{})
		defer close(stopRole)
		go redislog.FollowRole(rlog, func() bool { eng.Lock(); defer eng.Unlock(); return eng.IsReplica() }, 100*time.Millisecond, stopRole)
	}
	redislog.Ready(log, listening, set.UnixSocket)
	select {
	case why := <-stop:
		log.Info("shutting down", "reason", why, "clients", eng.NumClients())
	case err := <-served:
		return err
	}
	srv.Close()
	lns = nil
	log.Info("limitkv stopped")
	return nil
}

// listen opens port on each of bind's addresses, as Redis: "*" is every
// IPv4 address, "::*" every IPv6 one, and an address with a leading "-" is
// optional (skipped if it is not available here).
func listen(bind string, port int, log *slog.Logger) ([]net.Listener, error) {
	var out []net.Listener
	addrs := strings.Fields(bind)
	if len(addrs) == 0 {
		addrs = []string{"*", "-::*"}
	}
	for _, a := range addrs {
		optional := strings.HasPrefix(a, "-")
		a = strings.TrimPrefix(a, "-")
		switch a {
		case "*":
			a = "0.0.0.0"
		case "::*":
			a = "::"
		}
		network := "tcp4"
		if strings.Contains(a, ":") {
			network = "tcp6"
		}
		ln, err := net.Listen(network, net.JoinHostPort(a, strconv.Itoa(port)))
		if err != nil {
			if optional {
				log.Warn("Could not create server TCP listening socket (optional)", "addr", a, "port", port, "err", err)
				continue
			}
			for _, l := range out {
				l.Close()
			}
			return nil, err
		}
		out = append(out, ln)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("could not listen on port %d at any of %q", port, bind)
	}
	return out, nil
}

// newLogger opens the log: Redis's lines (internal/redislog) unless
// log-format is text or json; rlog is the Redis-format handler, if that.
// Either way the level is cfg.LogLevel, read for every line, so CONFIG SET
// loglevel changes it at once.
func newLogger(cfg *config.Config, set *config.Settings) (log *slog.Logger, rlog *redislog.Handler, closeLog func(), err error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(set.LogLevel)); err != nil {
		return nil, nil, nil, fmt.Errorf("log-level: %w", err)
	}
	cfg.LogLevel.Set(level)
	if set.LogFormat == "redis" {
		return redislog.NewLogger(redislog.Config{Level: set.LogLevel, Leveler: &cfg.LogLevel, File: set.LogFile, Syslog: set.SyslogEnabled, SyslogIdent: set.SyslogIdent, SyslogFacility: set.SyslogFacility})
	}
	l, c, err := newSlogLogger(set, &cfg.LogLevel)
	return l, nil, c, err
}

func newSlogLogger(set *config.Settings, level slog.Leveler) (*slog.Logger, func(), error) {
	var w io.Writer = os.Stderr
	closeLog := func() {}
	if set.LogFile != "" {
		f, err := os.OpenFile(set.LogFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, err
		}
		w, closeLog = f, func() { f.Close() }
	}
	hopts := &slog.HandlerOptions{Level: level}
	if set.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, hopts)), closeLog, nil
	}
	return slog.New(slog.NewTextHandler(w, hopts)), closeLog, nil
}

// strerror is C's text for an errno ("Permission denied"), as Redis's
// replies quote it.
func strerror(err error) string {
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// gcHeadroom bounds how far the GC tuner lets the heap grow past what
// gc-percent allows: what a cycle may fill with garbage when a fill turns
// into churn before the next collection shows it.
const gcHeadroom = 32 << 20

// setGCPercent applies gc-percent, unless it was left at its default and
// GOGC is set in the environment (the runtime has applied that already).
// It reports whether the target is the default, which the GC tuner then
// raises while collections find little garbage (internal/gctune); a
// target set by hand is kept as set.
func setGCPercent(set *config.Settings, log *slog.Logger) bool {
	if !set.GCPercentSet && os.Getenv("GOGC") != "" {
		log.Debug("GC target from the environment", "GOGC", os.Getenv("GOGC"))
		return false
	}
	debug.SetGCPercent(set.GCPercent)
	return !set.GCPercentSet
}

// mode is the banner's and INFO's server mode.
func mode(cfg *config.Config) string {
	if cfg.ClusterEnabled() {
		return "cluster"
	}
	return "standalone"
}
