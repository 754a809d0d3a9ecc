package redislog

import (
	"fmt"
	"log/slog"
	"log/syslog"
	"os"
	"strings"
)

// File is a logfile that, like serverLogRaw's fopen("a") for every line,
// is opened for each write: a log rotated by moving the file away is
// followed at the next line, with no signal or reopen command.
type File struct{ path string }

// OpenFile checks that path can be opened for appending (Redis refuses to
// start otherwise: "Can't open the log file") and returns its writer.
func OpenFile(path string) (*File, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	f.Close()
	return &File{path: path}, nil
}

// Write appends p in one write(2), so lines from concurrent writers (the
// handler holds its own lock, but a second process may share the file) are
// not interleaved. A file that cannot be opened drops the line, as Redis.
func (f *File) Write(p []byte) (int, error) {
	fd, err := os.OpenFile(f.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := fd.Write(p)
	if cerr := fd.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// SyslogWriter is the part of *syslog.Writer the handler uses.
type SyslogWriter interface {
	Debug(string) error
	Info(string) error
	Notice(string) error
	Warning(string) error
}

// toSyslog is serverLogRaw's syslogLevelMap: debug, info, notice, warning.
func toSyslog(w SyslogWriter, l slog.Level, msg string) {
	switch levelChar(l) {
	case '.':
		w.Debug(msg)
	case '-':
		w.Info(msg)
	case '*':
		w.Notice(msg)
	default:
		w.Warning(msg)
	}
}

// facilities are syslog-facility's values (config.c syslog_facility_enum).
var facilities = map[string]syslog.Priority{
	"user": syslog.LOG_USER, "local0": syslog.LOG_LOCAL0, "local1": syslog.LOG_LOCAL1,
	"local2": syslog.LOG_LOCAL2, "local3": syslog.LOG_LOCAL3, "local4": syslog.LOG_LOCAL4,
	"local5": syslog.LOG_LOCAL5, "local6": syslog.LOG_LOCAL6, "local7": syslog.LOG_LOCAL7,
}

// ParseFacility reads syslog-facility, any case; the error is Redis's
// enum text.
func ParseFacility(name string) (syslog.Priority, error) {
	if p, ok := facilities[strings.ToLower(name)]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("argument(s) must be one of the following: user, local0, local1, local2, local3, local4, local5, local6, local7")
}

// OpenSyslog connects to the local syslog daemon as Redis's
// openlog(ident, LOG_PID|LOG_NDELAY|LOG_NOWAIT, facility): log/syslog puts
// the pid in every message as LOG_PID does.
func OpenSyslog(ident, facility string) (*syslog.Writer, error) {
	p, err := ParseFacility(facility)
	if err != nil {
		return nil, err
	}
	return syslog.New(p|syslog.LOG_NOTICE, ident)
}
