package redislog

import (
	"io"
	"log/slog"
	"os"
	"time"
)

// Config is what a server's settings say about its log.
type Config struct {
	Level string // ParseLevel's names
	// Leveler, when set, is read for every line instead of Level (a
	// *slog.LevelVar that CONFIG SET loglevel changes).
	Leveler        slog.Leveler
	File           string // logfile; "": standard output, as Redis
	Syslog         bool
	SyslogIdent    string
	SyslogFacility string
}

// NewLogger opens the log c describes. close releases the syslog
// connection; the logfile needs no closing (it is opened per line).
func NewLogger(c Config) (log *slog.Logger, h *Handler, close func(), err error) {
	lv, err := ParseLevel(c.Level)
	if err != nil {
		return nil, nil, nil, err
	}
	var w io.Writer = os.Stdout
	if c.File != "" {
		if w, err = OpenFile(c.File); err != nil {
			return nil, nil, nil, err
		}
	}
	opts := &Options{Level: lv}
	if c.Leveler != nil {
		opts.Level = c.Leveler
	}
	close = func() {}
	if c.Syslog {
		sl, err := OpenSyslog(c.SyslogIdent, c.SyslogFacility)
		if err != nil {
			return nil, nil, nil, err
		}
		opts.Syslog, close = sl, func() { sl.Close() }
	}
	h = New(w, opts)
	return slog.New(h), h, close, nil
}

// FollowRole sets h's role from isReplica every period until stop is
// closed, for a server whose replication state is not pushed to the log.
func FollowRole(h *Handler, isReplica func() bool, period time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r := Master
			if isReplica() {
				r = Replica
			}
			h.SetRole(r)
		}
	}
}
