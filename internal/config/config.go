// Package config reads limitkv's configuration the way redis-server reads
// its own: a redis.conf file, config lines on stdin, and --name value
// arguments appended to them as more lines (Redis's main and config.c
// loadServerConfigFromString). Settings CONFIG GET/SET has go through its
// table (Config.ApplyDirective), so a value is accepted or refused
// with the same text at start and at run time; the binary's own settings
// (TLS, logs, the network front, ...) are kept in Settings.
package config

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Settings are what the binary applies itself: listeners, logs, process.
type Settings struct {
	TLSPort        int
	TLSCertFile    string
	TLSKeyFile     string
	TLSCACertFile  string
	TLSAuthClients string // yes, optional, no

	LogLevel  string // limitkv's log-level: debug, info, warn, error
	LogFormat string // text or json
	LogFile   string // "": standard error (Redis: standard output)
	PidFile   string
	// Redis's syslog-enabled, syslog-ident, syslog-facility and
	// always-show-logo (internal/redislog applies them).
	SyslogEnabled  bool
	SyslogIdent    string
	SyslogFacility string
	AlwaysShowLogo bool

	// UnixSocket is the path of a unix socket to listen on ("": none),
	// created with UnixSocketPerm's bits (0: as the umask leaves them).
	UnixSocket     string
	UnixSocketPerm uint32

	NetFront     string // loop or goroutine
	Pprof        string
	MetricsAddr  string // Prometheus /metrics (internal/metrics); "": off
	GCPercent    int
	GCPercentSet bool // given explicitly (else GOGC from the environment wins)
	Daemonize    bool // asked for: refused at the end of the load

	// Warnings are logged once logging is set up (Redis logs them at start).
	Warnings []string
}

// DefaultSettings are the binary's defaults.
func DefaultSettings() Settings {
	return Settings{TLSAuthClients: "yes", LogLevel: "info", LogFormat: "redis", NetFront: "loop", GCPercent: DefaultGCPercent,
		SyslogIdent: "redis", SyslogFacility: "local0"}
}

// DefaultGCPercent is the binary's GC target. Go's default of 100 lets the
// heap grow to twice the live data between collections, and a store's live
// data is nearly all of its heap: a million rate-limit keys (171 live bytes
// each) took 252 bytes each of RSS at 100, 205 at 25 (bench/README.md,
// workload 4). The price is more frequent collections, which cost little
// once the data is in (a rate-limit check on a known user allocates
// nothing) but are wasted while a server fills: the binary raises the
// target then (internal/gctune).
const DefaultGCPercent = 25

// Error is redis-server's fatal configuration error: printed as Redis
// prints it, then the process exits with status 1.
type Error struct {
	Line   int    // 0: not about one line
	Text   string // the line, trimmed
	Reason string
	// Header: a check after the last line (the log file), printed under
	// the FATAL header without a line; without it and without a line the
	// reason is Redis's log line (a file that cannot be opened).
	Header bool
}

func (e *Error) Error() string {
	if e.Line == 0 {
		if e.Header {
			return fmt.Sprintf("\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\n%s", RedisVersion, e.Reason)
		}
		return e.Reason
	}
	return fmt.Sprintf("\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\nReading the configuration file, at line %d\n>>> '%s'\n%s",
		RedisVersion, e.Line, e.Text, e.Reason)
}

// Loader applies config text to a Config and Settings.
type Loader struct {
	Cfg *Config
	Set *Settings

	state LoadState
	depth int
}

// NewLoader returns a loader over Redis's defaults with save points on, as
// redis-server starts without a file.
func NewLoader() *Loader {
	cfg := DefaultConfig()
	sp, _ := ParseSave(DefaultSave)
	cfg.SetSavePoints(sp)
	s := DefaultSettings()
	return &Loader{Cfg: cfg, Set: &s}
}

// LoadFile reads a config file (or every file a glob names, as include
// does) and applies it with the options text appended, as loadServerConfig.
// stdin, if not nil, is read after the file.
func (l *Loader) Load(file string, stdin io.Reader, options string) error {
	var text strings.Builder
	if file != "" {
		b, err := readConfigFiles(file)
		if err != nil {
			return err
		}
		text.Write(b)
	}
	if stdin != nil {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return &Error{Reason: "Fatal error, can't read config from stdin: " + err.Error()}
		}
		text.Write(b)
	}
	text.WriteString("\n")
	text.WriteString(options)
	if err := l.LoadString(text.String()); err != nil {
		return err
	}
	if l.Set.Daemonize {
		return &Error{Header: true, Reason: "limitkv cannot daemonize: a Go process cannot fork safely. Run it in the foreground under a supervisor (systemd, runit, a container) with daemonize no"}
	}
	// As Redis, a log file that cannot be opened fails the start here.
	if l.Set.LogFile != "" {
		f, err := os.OpenFile(l.Set.LogFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return &Error{Header: true, Reason: "Can't open the log file: " + errnoText(err)}
		}
		f.Close()
	}
	return nil
}

func readConfigFiles(pattern string) ([]byte, error) {
	if !strings.ContainsAny(pattern, "*?[") {
		b, err := os.ReadFile(pattern)
		if err != nil {
			return nil, &Error{Reason: fmt.Sprintf("Fatal error, can't open config file '%s': %s", pattern, errnoText(err))}
		}
		return b, nil
	}
	// A pattern that matches nothing is no error (an empty conf.d).
	names, _ := filepath.Glob(pattern)
	var out []byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, &Error{Reason: fmt.Sprintf("Fatal error, can't open config file '%s': %s", n, errnoText(err))}
		}
		out = append(out, b...)
	}
	return out, nil
}

// LoadString applies redis.conf text line by line: comments and blank lines
// skipped, each line split as sdssplitargs, the directive name any case.
func (l *Loader) LoadString(text string) error {
	for i, raw := range strings.Split(text, "\n") {
		line := strings.Trim(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(reason string) error { return &Error{Line: i + 1, Text: line, Reason: reason} }
		args, ok := SplitArgs(line)
		if !ok {
			return fail("Unbalanced quotes in configuration line")
		}
		if len(args) == 0 {
			continue
		}
		if err := l.apply(strings.ToLower(args[0]), args[1:]); err != nil {
			if e, ok := err.(*Error); ok {
				return e
			}
			return fail(err.Error())
		}
	}
	return nil
}

// reason is a refusal whose text is the error's last line.
type reason string

func (r reason) Error() string { return string(r) }

func (l *Loader) apply(name string, args []string) error {
	// The binary's own directives first: it applies them (and refuses what
	// it cannot do, daemonize yes); those Redis has are then recorded in
	// the config table too, for CONFIG GET.
	if own, ok := binaryDirectives[name]; ok {
		if len(args) != 1 {
			return reason("wrong number of arguments")
		}
		if err := own(l.Set, args[0]); err != "" {
			return reason(err)
		}
	}
	if known, err := l.Cfg.ApplyDirective(name, args, &l.state); known {
		if err != "" {
			return reason(err)
		}
		return nil
	}
	if _, ok := binaryDirectives[name]; ok {
		return nil
	}
	switch {
	case deprecated[name] && len(args) == 1:
		return nil // Redis skips these silently
	case name == "include" && len(args) == 1:
		if l.depth > 32 {
			return reason("include nesting too deep")
		}
		b, err := readConfigFiles(args[0])
		if err != nil {
			return err
		}
		l.depth++
		defer func() { l.depth-- }()
		return l.LoadString(string(b))
	case name == "rename-command" && len(args) == 2,
		name == "user" && len(args) >= 1,
		name == "loadmodule" && len(args) >= 1:
		return reason("limitkv does not support the '" + name + "' directive")
	case name == "sentinel":
		if len(args) != 0 {
			return reason("sentinel directive while not in sentinel mode")
		}
		return reason("limitkv has no sentinel mode")
	case strings.Contains(name, "."):
		if len(args) == 0 {
			return reason("Module config specified without value")
		}
		return reason("limitkv has no modules: module config '" + name + "' cannot be set")
	}
	return reason("Bad directive or wrong number of arguments")
}

// deprecated are directives Redis 7.0 accepts and ignores
// (deprecated_configs).
var deprecated = map[string]bool{"list-max-ziplist-entries": true, "list-max-ziplist-value": true, "lua-replicate-commands": true}

func errnoText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// binaryDirectives are the settings the binary applies itself, with Redis's
// checks and texts where Redis has the directive.
var binaryDirectives = map[string]func(s *Settings, v string) string{
	"tls-port": func(s *Settings, v string) string {
		n, err := portNumber(v)
		s.TLSPort = n
		return err
	},
	"tls-cert-file":    func(s *Settings, v string) string { s.TLSCertFile = v; return "" },
	"tls-key-file":     func(s *Settings, v string) string { s.TLSKeyFile = v; return "" },
	"tls-ca-cert-file": func(s *Settings, v string) string { s.TLSCACertFile = v; return "" },
	"tls-auth-clients": func(s *Settings, v string) string {
		return enum(v, []string{"no", "yes", "optional"}, &s.TLSAuthClients)
	},
	// Redis's loglevel, mapped onto slog's levels; verbose is between
	// debug and info, as internal/redislog's LevelVerbose.
	"loglevel": func(s *Settings, v string) string {
		var lv string
		if err := enum(v, []string{"debug", "verbose", "notice", "warning"}, &lv); err != "" {
			return err
		}
		s.LogLevel = map[string]string{"debug": "debug", "verbose": "DEBUG+2", "notice": "info", "warning": "warn"}[lv]
		return ""
	},
	"log-level": func(s *Settings, v string) string {
		return enum(v, []string{"debug", "info", "warn", "error"}, &s.LogLevel)
	},
	"log-format":       func(s *Settings, v string) string { return enum(v, []string{"redis", "text", "json"}, &s.LogFormat) },
	"syslog-enabled":   func(s *Settings, v string) string { return yesNo(v, &s.SyslogEnabled) },
	"always-show-logo": func(s *Settings, v string) string { return yesNo(v, &s.AlwaysShowLogo) },
	"syslog-ident":     func(s *Settings, v string) string { s.SyslogIdent = v; return "" },
	"syslog-facility": func(s *Settings, v string) string {
		return enum(v, []string{"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}, &s.SyslogFacility)
	},
	"unixsocket": func(s *Settings, v string) string { s.UnixSocket = v; return "" },
	// An octal number up to 0777, as Redis's OCTAL_CONFIG.
	"unixsocketperm": func(s *Settings, v string) string {
		n, err := strconv.ParseUint(v, 8, 32)
		if err != nil {
			return "argument couldn't be parsed as an octal number"
		}
		if n > 0o777 {
			return "argument must be between 0 and 777 inclusive"
		}
		s.UnixSocketPerm = uint32(n)
		return ""
	},
	"logfile": func(s *Settings, v string) string { s.LogFile = v; return "" },
	"pidfile": func(s *Settings, v string) string { s.PidFile = v; return "" },
	// daemonize yes is refused once the whole configuration is read, so
	// that a file saying yes loads under a supervisor that passes
	// --daemonize no after it (Debian's redis-server.service).
	"daemonize": func(s *Settings, v string) string {
		switch strings.ToLower(v) {
		case "no", "yes":
			s.Daemonize = strings.EqualFold(v, "yes")
			return ""
		}
		return "argument must be 'yes' or 'no'"
	},
	"net-front":    func(s *Settings, v string) string { return enum(v, []string{"loop", "goroutine"}, &s.NetFront) },
	"pprof":        func(s *Settings, v string) string { s.Pprof = v; return "" },
	"metrics-addr": func(s *Settings, v string) string { s.MetricsAddr = v; return "" },
	"gc-percent": func(s *Settings, v string) string {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return "argument must be a positive percentage"
		}
		s.GCPercent, s.GCPercentSet = n, true
		return ""
	},
}

func portNumber(v string) (int, string) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, "argument couldn't be parsed into an integer"
	}
	if n < 0 || n > 65535 {
		return 0, "argument must be between 0 and 65535 inclusive"
	}
	return int(n), ""
}

// enum is Redis's enum config check: any case, stored lower case.
func yesNo(v string, dst *bool) string {
	switch strings.ToLower(v) {
	case "yes":
		*dst = true
	case "no":
		*dst = false
	default:
		return "argument must be 'yes' or 'no'"
	}
	return ""
}

func enum(v string, names []string, dst *string) string {
	lv := strings.ToLower(v)
	for _, n := range names {
		if lv == n {
			*dst = n
			return ""
		}
	}
	return "argument(s) must be one of the following: " + strings.Join(names, ", ")
}
