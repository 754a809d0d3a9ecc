package redislog

import (
	"log/slog"
	"os"
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

// SyslogConn is an open syslog connection (OpenSyslog).
type SyslogConn interface {
	SyslogWriter
	Close() error
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
