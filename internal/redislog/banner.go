package redislog

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
)

// Start is what the first lines of Redis's main say about the process.
type Start struct {
	Version  string // "7.0.15"
	Commit   string // redisGitSHA1: "00000000" for a build outside git, as Debian's
	Modified bool
	Pid      int // 0: the process's
	// NoArgs is main's argc == 1: no config file and no option at all,
	// which is when Redis warns that it uses the default config.
	NoArgs bool
	Argv0  string
}

// Starting writes the three lines main writes before initServer, all with
// role C: server.pid is not set yet, so serverLogRaw takes the process for
// a child.
func Starting(log *slog.Logger, s Start) {
	pid := s.Pid
	if pid == 0 {
		pid = os.Getpid()
	}
	child := As(Child)
	log.Warn("oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo", child)
	log.Warn(fmt.Sprintf("Redis version=%s, bits=64, commit=%s, modified=%d, pid=%d, just started",
		s.Version, s.Commit, b2i(s.Modified), pid), child)
	if s.NoArgs {
		log.Warn(fmt.Sprintf("Warning: no config file specified, using the default config. In order to specify a config file use %s /path/to/redis.conf", s.Argv0), child)
	} else {
		log.Warn("Configuration loaded", child)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Init is what initServer and redisAsciiArt need.
type Init struct {
	Version  string
	Commit   string
	Modified bool
	Pid      int    // 0: the process's
	Mode     string // "standalone"
	// Port and TLSPort: the logo and "Running mode" show port, or
	// tls-port when port is 0.
	Port, TLSPort int
	// ShowLogo: see ShowLogo.
	ShowLogo bool
}

// Initialized writes what Redis logs from initServer to "Server
// initialized": the monotonic clock (Go's is clock_gettime's
// CLOCK_MONOTONIC, which is what Redis names), the ASCII logo or the
// one-line "Running mode" instead of it, and "Server initialized".
//
// Redis's Linux memory warnings are not written: overcommit matters to a
// server that forks to save, which limitkv does not, and Redis itself
// turns THP off for its process rather than warn.
func Initialized(log *slog.Logger, in Init) {
	if in.Port == 0 {
		in.Port = in.TLSPort
	}
	log.Info("monotonic clock: POSIX clock_gettime")
	if in.ShowLogo {
		pid := in.Pid
		if pid == 0 {
			pid = os.Getpid()
		}
		log.Info(Logo(in.Version, in.Commit, in.Modified, in.Mode, in.Port, pid), Raw())
	} else {
		log.Info(fmt.Sprintf("Running mode=%s, port=%d.", in.Mode, in.Port))
	}
	log.Warn("Server initialized")
}

// Ready writes the lines that end Redis's start: one for TCP and TLS
// listeners together, one for the unix socket.
func Ready(log *slog.Logger, tcp bool, unixsocket string) {
	if tcp {
		log.Info("Ready to accept connections")
	}
	if unixsocket != "" {
		log.Info("The server is now ready to accept connections at " + unixsocket)
	}
}

// ShowLogo is redisAsciiArt's choice: the logo when logging to a terminal
// on standard output without syslog, or always-show-logo.
func ShowLogo(alwaysShow, syslogEnabled bool, logfile string) bool {
	return alwaysShow || !syslogEnabled && logfile == "" && IsTerminal(int(os.Stdout.Fd()))
}

// Logo is asciilogo.h filled as redisAsciiArt fills it.
func Logo(version, commit string, modified bool, mode string, port, pid int) string {
	return fmt.Sprintf(asciiLogo, version, commit, b2i(modified), "64", mode, port, strconv.Itoa(pid))
}

// asciiLogo is Redis 7.0's asciilogo.h; the pid's %ld is %s here.
const asciiLogo = "                _._                                                  \n" +
	"           _.-``__ ''-._                                             \n" +
	"      _.-``    `.  `_.  ''-._           Redis %s (%s/%d) %s bit\n" +
	"  .-`` .-```.  ```\\/    _.,_ ''-._                                  \n" +
	" (    '      ,       .-`  | `,    )     Running in %s mode\n" +
	" |`-._`-...-` __...-.``-._|'` _.-'|     Port: %d\n" +
	" |    `-._   `._    /     _.-'    |     PID: %s\n" +
	"  `-._    `-._  `-./  _.-'    _.-'                                   \n" +
	" |`-._`-._    `-.__.-'    _.-'_.-'|                                  \n" +
	" |    `-._`-._        _.-'_.-'    |           https://redis.io       \n" +
	"  `-._    `-._`-.__.-'_.-'    _.-'                                   \n" +
	" |`-._`-._    `-.__.-'    _.-'_.-'|                                  \n" +
	" |    `-._`-._        _.-'_.-'    |                                  \n" +
	"  `-._    `-._`-.__.-'_.-'    _.-'                                   \n" +
	"      `-._    `-.__.-'    _.-'                                       \n" +
	"          `-._        _.-'                                           \n" +
	"              `-.__.-'                                               \n\n"
