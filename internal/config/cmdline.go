package config

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Cmdline is what redis-server's main makes of its arguments.
type Cmdline struct {
	Version, Help bool
	File          string // the config file, made absolute ("" for none)
	Stdin         bool   // "-": config lines on standard input
	Options       string // the --name value arguments as config lines
}

// ParseArgs reads args (without the program name) as redis-server does:
// -v/--version and -h/--help first, then an optional config file, then
// --name value... where each --name starts a config line and the words
// after it are its arguments (quoted as sdscatrepr does, so "" and spaces
// survive), and a "-" first or last reads config from stdin.
func ParseArgs(args []string) Cmdline {
	var c Cmdline
	if len(args) == 0 {
		return c
	}
	switch args[0] {
	case "-v", "--version":
		c.Version = true
		return c
	case "-h", "--help":
		c.Help = true
		return c
	}
	j := 0
	if !strings.HasPrefix(args[0], "-") {
		c.File = args[0]
		if abs, err := filepath.Abs(args[0]); err == nil {
			c.File = abs
		}
		j = 1
	}
	var opts strings.Builder
	handledLast := true
	for ; j < len(args); j++ {
		a := args[j]
		last := j == len(args)-1
		nextIsOpt := !last && strings.HasPrefix(args[j+1], "--")
		switch {
		case a == "-" && (j == 0 || last):
			c.Stdin = true
		case handledLast && strings.HasPrefix(a, "--"):
			if opts.Len() > 0 {
				opts.WriteString("\n")
			}
			opts.WriteString(a[2:])
			opts.WriteString(" ")
			words, _ := SplitArgs(a)
			if len(words) == 1 {
				// "--port": the value follows. "--save" with no value
				// before the next option or at the end is save "".
				handledLast = false
				if strings.EqualFold(a, "--save") && (nextIsOpt || last) {
					opts.WriteString(`""`)
					handledLast = true
				} else if strings.EqualFold(a, "--sentinel") && nextIsOpt {
					handledLast = true
				}
			} else {
				handledLast = true // "--port 6380" in one argument
			}
		default:
			opts.WriteString(QuoteArg(a))
			opts.WriteString(" ")
			handledLast = true
		}
	}
	c.Options = opts.String()
	return c
}

// Version is limitkv's answer to --version, in redis-server's format
// ("Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64
// build=ae4d7c971a948f0"), naming limitkv, its version, the commit it was
// built from when Go recorded one, the Go runtime as the allocator, and the
// Redis version it answers as.
func Version() string {
	sha, dirty, build := "00000000", "0", "0"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				sha = s.Value
				if len(sha) > 8 {
					sha = sha[:8]
				}
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "1"
				}
			}
		}
		build = fmt.Sprintf("%x", fnv64(bi.String()))
	}
	bits := 64
	if strings.HasSuffix(runtime.GOARCH, "32") || runtime.GOARCH == "386" || runtime.GOARCH == "arm" {
		bits = 32
	}
	return fmt.Sprintf("limitkv server v=%s sha=%s:%s malloc=%s bits=%d build=%s redis=%s",
		LimitkvVersion, sha, dirty, runtime.Version(), bits, build, RedisVersion)
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Usage writes the --help text: redis-server's usage, then limitkv's own
// directives.
func Usage(w io.Writer) {
	fmt.Fprint(w, `Usage: limitkv [/path/to/redis.conf] [options] [-]
       limitkv - (read config from stdin)
       limitkv -v or --version
       limitkv -h or --help

Examples:
       limitkv (run the server with default conf)
       echo 'maxmemory 128mb' | limitkv -
       limitkv /etc/redis/6379.conf
       limitkv --port 7777
       limitkv --save '' --appendonly no
       limitkv /etc/myredis.conf --loglevel verbose -
       limitkv /etc/myredis.conf --loglevel verbose

Every --name value is a redis.conf directive, read after the file as one more
line ("--save '3600 1 300 100'", "--save ''"). Settings CONFIG SET has are
checked as CONFIG SET checks them; directives of Redis that limitkv does not
implement are accepted at Redis's default only.

Settings limitkv has (CONFIG GET/SET at run time, unless fixed):
       port, bind, requirepass, protected-mode, maxclients, timeout,
       maxmemory, maxmemory-policy (every Redis 7.0 policy), maxmemory-samples,
       maxmemory-eviction-tenacity, lfu-log-factor, lfu-decay-time,
       proto-max-bulk-len, client-query-buffer-limit,
       client-output-buffer-limit, save, dir, dbfilename, rdbcompression,
       rdbchecksum, busy-reply-threshold, *-max-listpack-*, hll-sparse-max-bytes,
       set-max-intset-entries, list-compress-depth, databases (16),
       appendonly, appendfsync, auto-aof-rewrite-percentage,
       auto-aof-rewrite-min-size, aof-load-truncated, appenddirname and
       appendfilename (fixed)

At start only:
       --tls-port <port> --tls-cert-file <pem> --tls-key-file <pem>
       --tls-ca-cert-file <pem> --tls-auth-clients yes|optional|no
       --loglevel debug|verbose|notice|warning   --logfile <path>
                                    (Redis's line format; "": standard output)
       --syslog-enabled yes|no --syslog-ident <name> --syslog-facility local0..7|user
       --always-show-logo yes|no
       --unixsocket <path> --unixsocketperm <octal, e.g. 700>
       --pidfile <path>   --daemonize no (yes is refused: use a supervisor)
       --include <file or glob>

limitkv's own:
       --net-front loop|goroutine   epoll event loop (default) or a goroutine
                                    per connection (TLS always uses these)
       --log-level debug|info|warn|error   same as loglevel, in slog's names
       --log-format redis|text|json  redis (default): Redis's log lines;
                                    text or json: Go's slog key=value or JSON
                                    records, to standard error or the logfile
       --pprof <addr>               Go's net/http/pprof there (off by default)
       --metrics-addr <addr>        Prometheus metrics on http://<addr>/metrics
                                    (off by default)
       --gc-percent <n>             Go GC target (default 25, raised while
                                    collections find little garbage; a value
                                    given is kept fixed; GOGC wins over the
                                    default)
`)
}
