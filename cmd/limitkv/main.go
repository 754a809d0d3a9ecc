// Command limitkv runs the limitkv server: a Redis-protocol limit server that
// redis-cli, redis-benchmark, go-redis and other Redis clients talk to.
//
//	limitkv --port 6379 --bind 127.0.0.1
//	limitkv --port 0 --tls-port 6380 --tls-cert-file s.crt --tls-key-file s.key --tls-ca-cert-file ca.crt
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
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

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/server"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "limitkv:", err)
		os.Exit(1)
	}
}

// memFlag is a size flag in redis.conf's units (512mb, 1gb, 100000).
type memFlag struct{ v *int64 }

func (m memFlag) String() string {
	if m.v == nil {
		return ""
	}
	return strconv.FormatInt(*m.v, 10)
}

func (m memFlag) Set(s string) error {
	n, ok := commands.ParseMemory(s)
	if !ok {
		return errors.New("want bytes, or a number with kb, mb, gb")
	}
	*m.v = n
	return nil
}

// outLimitFlag is client-output-buffer-limit in redis.conf's syntax,
// "<class> <hard> <soft> <seconds>", repeatable.
type outLimitFlag struct{ v *commands.OutputLimits }

func (f outLimitFlag) String() string {
	if f.v == nil {
		return ""
	}
	return f.v.String()
}

func (f outLimitFlag) Set(s string) error {
	l, msg := f.v.Set(strings.Fields(s))
	if msg != "" {
		return errors.New(msg)
	}
	*f.v = l
	return nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("limitkv", flag.ContinueOnError)
	var (
		port          = fs.Int("port", 6379, "TCP port to listen on (0: none, e.g. to serve TLS only)")
		tlsPort       = fs.Int("tls-port", 0, "TLS port to listen on (0: none)")
		tlsCert       = fs.String("tls-cert-file", "", "server certificate (PEM) for --tls-port")
		tlsKey        = fs.String("tls-key-file", "", "private key (PEM) of --tls-cert-file")
		tlsCA         = fs.String("tls-ca-cert-file", "", "CA certificates (PEM) that client certificates must chain to")
		tlsAuth       = fs.String("tls-auth-clients", "yes", "yes: require a client certificate; optional: check one if given; no")
		bind          = fs.String("bind", "127.0.0.1", "address to listen on (loopback by default; see --protected-mode)")
		requirepass   = fs.String("requirepass", "", "password clients must give with AUTH (empty: none)")
		maxclients    = fs.Int64("maxclients", 10000, "maximum number of connected clients")
		timeout       = fs.Int64("timeout", 0, "close a client idle for this many seconds (0: never)")
		maxmemPolicy  = fs.String("maxmemory-policy", "noeviction", "what to do at maxmemory: noeviction or volatile-ttl")
		protectedMode = fs.String("protected-mode", "yes", "yes: refuse non-loopback clients when no password is set")
		logLevel      = fs.String("log-level", "info", "debug, info, warn or error")
		logFormat     = fs.String("log-format", "text", "text or json")
		pprofAddr     = fs.String("pprof", "", "serve Go's net/http/pprof on this address, e.g. 127.0.0.1:6060 (off by default)")
		netFront      = fs.String("net-front", "loop", "network front for plain TCP: loop (one epoll event loop, as Redis) or goroutine (a goroutine per connection); TLS always uses goroutines")
		dir           = fs.String("dir", "", "directory of the RDB snapshot (default: the working directory)")
		dbfilename    = fs.String("dbfilename", "dump.rdb", "file name of the RDB snapshot in --dir, loaded at start")
		save          = fs.String("save", commands.DefaultSave, "save points \"<seconds> <changes> ...\": snapshot in the background after <changes> writes in <seconds>, and at shutdown (\"\": never)")
		rdbcompress   = fs.String("rdbcompression", "yes", "yes: LZF-compress strings in snapshots")
		rdbchecksum   = fs.String("rdbchecksum", "yes", "yes: write and check the snapshot's CRC-64")
		gcPercent     = fs.Int("gc-percent", defaultGCPercent, "Go GC target: heap growth allowed over live data before a collection, in percent (the GOGC environment variable, if set, wins over the default); lower trades CPU for memory")
	)
	cfg := commands.DefaultConfig()
	maxmem, bulk, qbuf := int64(0), cfg.ProtoMaxBulkLen.Load(), cfg.QueryBufLimit.Load()
	fs.Var(memFlag{&maxmem}, "maxmemory", "memory limit for data, e.g. 100mb (0: none)")
	fs.Var(memFlag{&bulk}, "proto-max-bulk-len", "largest accepted bulk argument")
	fs.Var(memFlag{&qbuf}, "client-query-buffer-limit", "largest query buffer of one client")
	outLimits := commands.DefaultOutputLimits
	fs.Var(outLimitFlag{&outLimits}, "client-output-buffer-limit",
		"\"normal <hard> <soft> <seconds>\": drop a client whose unread replies pass <hard> bytes, or stay over <soft> for <seconds> (0: no limit, Redis's default)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: limitkv [flags]\n\nA Redis-compatible limit server. Flags follow redis-server's names.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags are --name value)", fs.Arg(0))
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	hopts := &slog.HandlerOptions{Level: level}
	var log *slog.Logger
	switch *logFormat {
	case "text":
		log = slog.New(slog.NewTextHandler(os.Stderr, hopts))
	case "json":
		log = slog.New(slog.NewJSONHandler(os.Stderr, hopts))
	default:
		return fmt.Errorf("--log-format: want text or json, got %q", *logFormat)
	}
	switch *maxmemPolicy {
	case "noeviction", "volatile-ttl":
	default:
		return fmt.Errorf("--maxmemory-policy: want noeviction or volatile-ttl, got %q", *maxmemPolicy)
	}
	if *netFront != "loop" && *netFront != "goroutine" {
		return fmt.Errorf("--net-front: want loop or goroutine, got %q", *netFront)
	}
	switch strings.ToLower(*protectedMode) {
	case "yes", "no":
	default:
		return fmt.Errorf("--protected-mode: want yes or no, got %q", *protectedMode)
	}

	savePoints, msg := commands.ParseSave(*save)
	if msg != "" {
		return fmt.Errorf("--save: %s", msg)
	}
	compress, err := yesNo("rdbcompression", *rdbcompress)
	if err != nil {
		return err
	}
	checksum, err := yesNo("rdbchecksum", *rdbchecksum)
	if err != nil {
		return err
	}
	if *dir != "" || *dbfilename != "dump.rdb" {
		d := *dir
		if d == "" {
			d = *cfg.Dir.Load()
		}
		if err := cfg.SetDir(d, *dbfilename); err != nil {
			return fmt.Errorf("--dir/--dbfilename: %w", err)
		}
	}
	if st, err := os.Stat(*cfg.Dir.Load()); err != nil || !st.IsDir() {
		return fmt.Errorf("--dir: can't chdir to '%s': not a directory", *cfg.Dir.Load())
	}
	cfg.SetSavePoints(savePoints)
	cfg.RDBCompression.Store(compress)
	cfg.RDBChecksum.Store(checksum)

	if err := setGCPercent(fs, *gcPercent, log); err != nil {
		return err
	}

	cfg.Bind, cfg.Port = *bind, *port
	cfg.RequirePass.Store(requirepass)
	cfg.MaxClients.Store(*maxclients)
	cfg.Timeout.Store(*timeout)
	cfg.MaxMemory.Store(maxmem)
	cfg.MaxMemoryPolicy.Store(maxmemPolicy)
	cfg.ProtoMaxBulkLen.Store(bulk)
	cfg.QueryBufLimit.Store(qbuf)
	cfg.ProtectedMode.Store(strings.EqualFold(*protectedMode, "yes"))
	cfg.SetOutputLimits(outLimits)

	var tlsCfg *tls.Config
	if *tlsPort != 0 {
		var err error
		tlsCfg, err = server.TLSConfig(server.TLSOptions{CertFile: *tlsCert, KeyFile: *tlsKey, CAFile: *tlsCA, AuthClients: *tlsAuth})
		if err != nil {
			return err
		}
	}
	if *port == 0 && *tlsPort == 0 {
		return errors.New("nothing to listen on: --port and --tls-port are both 0")
	}
	// Signals are taken before the first listener exists: a SIGTERM that
	// comes as soon as the port accepts must stop the server, not kill it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	var lns []net.Listener
	var kinds []string
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	if *port != 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(*bind, strconv.Itoa(*port)))
		if err != nil {
			return err
		}
		lns, kinds = append(lns, ln), append(kinds, "tcp")
	}
	if *tlsPort != 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(*bind, strconv.Itoa(*tlsPort)))
		if err != nil {
			return err
		}
		lns, kinds = append(lns, tls.NewListener(ln, tlsCfg)), append(kinds, "tls")
	}
	warnFileLimit(log, *maxclients)
	eng := commands.New(cfg, nil, log)
	// Load before serving, as Redis: a file that cannot be read stops the
	// start (and is left as it is) rather than leaving an empty server.
	st, err := eng.LoadFile(cfg.RDBPath())
	if err != nil {
		return err
	}
	if st.Keys > 0 || st.Expired > 0 {
		log.Info("DB loaded from disk", "keys", st.Keys, "expired", st.Expired)
	}
	srv := server.New(eng, log)
	srv.Front = *netFront

	stop := make(chan string, 1)
	// SHUTDOWN has saved (or been refused) before it calls this hook.
	eng.Shutdown = func() { stop <- "SHUTDOWN command" }
	go func() {
		for s := range sig {
			// As Redis at SIGTERM: save when save points are set, and
			// keep running if that fails.
			if err := eng.ShutdownSave(); err != nil {
				log.Error("Errors trying to shut down the server. Check the logs for more information.", "err", err)
				continue
			}
			stop <- s.String()
			return
		}
	}()

	if *pprofAddr != "" {
		pln, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			return fmt.Errorf("--pprof: %w", err)
		}
		log.Info("pprof listening", "addr", pln.Addr().String())
		go http.Serve(pln, nil)
	}
	served := make(chan error, len(lns))
	log.Info("limitkv started", "version", commands.LimitkvVersion, "pid", os.Getpid())
	for i, ln := range lns {
		log.Info("listening", "addr", ln.Addr().String(), "proto", kinds[i])
		go func() { served <- srv.Serve(ln) }()
	}
	select {
	case why := <-stop:
		log.Info("shutting down", "reason", why, "clients", eng.NumClients())
	case err := <-served:
		return err
	}
	srv.Close()
	eng.WaitBgsave()
	lns = nil
	log.Info("limitkv stopped")
	return nil
}

func yesNo(name, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, fmt.Errorf("--%s: want yes or no, got %q", name, v)
}

// defaultGCPercent is the binary's GC target. Go's default of 100 lets the
// heap grow to twice the live data between collections, and a store's live
// data is nearly all of its heap: a million rate-limit keys (171 live bytes
// each) took 252 bytes each of RSS at 100, 205 at 25 (bench/README.md,
// workload 4). The price is more frequent collections, which cost little
// here: a rate-limit check allocates nothing.
const defaultGCPercent = 25

// setGCPercent applies --gc-percent, unless it was left at its default and
// GOGC is set in the environment (the runtime has applied that already).
func setGCPercent(fs *flag.FlagSet, pct int, log *slog.Logger) error {
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "gc-percent" })
	if pct < 1 {
		return fmt.Errorf("--gc-percent: want a positive percentage, got %d", pct)
	}
	if !explicit && os.Getenv("GOGC") != "" {
		log.Debug("GC target from the environment", "GOGC", os.Getenv("GOGC"))
		return nil
	}
	debug.SetGCPercent(pct)
	return nil
}
