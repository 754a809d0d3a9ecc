// Package redislog writes limitkv's log as redis-server 7.0 writes its own,
// so that tools and people reading Redis logs (grep patterns, log shippers,
// Redis's own test harness, which waits for lines such as "Ready to accept
// connections") read limitkv's unchanged:
//
//	12345:M 02 Dec 2026 06:51:54.343 * Ready to accept connections
//
// pid, role (M master, S replica, C child, X sentinel), the local time to
// the millisecond, the level's character (. debug, - verbose, * notice,
// # warning) and the message, as serverLogRaw. Handler is an slog.Handler;
// attributes follow the message as key=value, quoted when needed, so a
// record stays one line. Redis's loglevel names map onto slog levels
// (ParseLevel). Banner writes the start-up lines of Redis's main, and the
// catalogue (catalog.go) holds Redis's texts for the events limitkv has.
package redislog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Redis's four levels as slog levels. Notice is slog's Info, so a library
// logging at Info shows at Redis's default verbosity.
const (
	LevelDebug   = slog.LevelDebug
	LevelVerbose = slog.Level(-2)
	LevelNotice  = slog.LevelInfo
	LevelWarning = slog.LevelWarn
	// LevelNothing, as a minimum level, logs nothing (Redis 7.2's
	// "nothing"; 7.0's loglevel does not have it).
	LevelNothing = slog.Level(math.MaxInt32)
)

// ParseLevel reads a loglevel value: Redis's names (any case, as Redis's
// enum configs), and slog's (debug, info, warn, error, and their "+n"
// forms) so that log-level's values keep working.
func ParseLevel(name string) (slog.Level, error) {
	switch strings.ToLower(name) {
	case "debug":
		return LevelDebug, nil
	case "verbose":
		return LevelVerbose, nil
	case "notice":
		return LevelNotice, nil
	case "warning":
		return LevelWarning, nil
	case "nothing":
		return LevelNothing, nil
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(name)); err != nil {
		return 0, fmt.Errorf("unknown log level %q: want debug, verbose, notice, warning or nothing", name)
	}
	return l, nil
}

// LevelName is the Redis name of the level a record at l shows as.
func LevelName(l slog.Level) string {
	switch {
	case l >= LevelNothing:
		return "nothing"
	case l < LevelVerbose:
		return "debug"
	case l < LevelNotice:
		return "verbose"
	case l < LevelWarning:
		return "notice"
	}
	return "warning"
}

// levelChar is serverLogRaw's ".-*#": slog's Error, above warning, is
// warning's '#' too.
func levelChar(l slog.Level) byte {
	switch {
	case l < LevelVerbose:
		return '.'
	case l < LevelNotice:
		return '-'
	case l < LevelWarning:
		return '*'
	}
	return '#'
}

// Role is the character after the pid.
type Role byte

const (
	Master   Role = 'M'
	Replica  Role = 'S'
	Child    Role = 'C' // Redis's fork children; limitkv's background saves
	Sentinel Role = 'X'
)

// maxMsg is what _serverLog's 1024-byte buffer keeps of a message.
const maxMsg = 1024 - 1

// TimeLayout is serverLogRaw's strftime("%d %b %Y %H:%M:%S.") and
// milliseconds, truncated as Redis's tv_usec/1000.
const TimeLayout = "02 Jan 2006 15:04:05.000"

// Options configure a Handler; the zero value is Redis's default.
type Options struct {
	// Level is the minimum level (a *slog.LevelVar follows CONFIG SET
	// loglevel); nil is notice.
	Level slog.Leveler
	// Pid is the number lines start with; 0 is the process's.
	Pid int
	// Now is the clock; nil is time.Now. Lines show its time in its own
	// location (time.Now's is the local time, as Redis's).
	Now func() time.Time
	// Role is the starting role; 0 is Master.
	Role Role
	// Syslog, if not nil, also gets every line's message, as Redis's
	// syslog-enabled (OpenSyslog).
	Syslog SyslogWriter
}

// Handler is the slog.Handler. Handlers derived with WithAttrs and
// WithGroup share the writer and the role with the one they came from.
type Handler struct {
	sh     *shared
	attrs  string // rendered by WithAttrs, each with its leading space
	groups string // "a.b." for WithGroup("a").WithGroup("b")
}

type shared struct {
	mu     sync.Mutex
	w      io.Writer
	level  slog.Leveler
	pid    int
	now    func() time.Time
	role   atomic.Uint32
	syslog SyslogWriter
}

// New returns a handler writing to w: os.Stdout when logfile is "" (as
// Redis), OpenFile's writer otherwise.
func New(w io.Writer, o *Options) *Handler {
	if o == nil {
		o = &Options{}
	}
	sh := &shared{w: w, level: o.Level, pid: o.Pid, now: o.Now, syslog: o.Syslog}
	if sh.level == nil {
		sh.level = LevelNotice
	}
	if sh.pid == 0 {
		sh.pid = os.Getpid()
	}
	if sh.now == nil {
		sh.now = time.Now
	}
	r := o.Role
	if r == 0 {
		r = Master
	}
	sh.role.Store(uint32(r))
	return &Handler{sh: sh}
}

// SetRole changes the role of every later line, of h and of the handlers
// derived from it: Replica after REPLICAOF host port, Master after
// REPLICAOF NO ONE.
func (h *Handler) SetRole(r Role) { h.sh.role.Store(uint32(r)) }

// Role is the role lines are written with.
func (h *Handler) Role() Role { return Role(h.sh.role.Load()) }

func (h *Handler) Enabled(_ context.Context, l slog.Level) bool {
	min := h.sh.level.Level()
	return min < LevelNothing && l >= min
}

func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	h2 := *h
	var b []byte
	for _, a := range as {
		if _, ok := marker(a); ok {
			continue
		}
		b = appendAttr(b, h.groups, a)
	}
	h2.attrs += string(b)
	return &h2
}

func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.groups += name + "."
	return &h2
}

func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	role, raw := Role(h.sh.role.Load()), false
	msg := append(make([]byte, 0, len(r.Message)+len(h.attrs)+32), r.Message...)
	msg = append(msg, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		if m, ok := marker(a); ok {
			if m.raw {
				raw = true
			} else {
				role = m.role
			}
			return true
		}
		msg = appendAttr(msg, h.groups, a)
		return true
	})
	var line []byte
	if raw {
		// LL_RAW: the text as it is, no prefix, no newline added.
		line = msg
	} else {
		if len(msg) > maxMsg {
			msg = msg[:maxMsg]
		}
		line = h.sh.prefix(make([]byte, 0, len(msg)+48), role, r.Level)
		line = append(append(line, msg...), '\n')
	}
	h.sh.mu.Lock()
	_, err := h.sh.w.Write(line)
	h.sh.mu.Unlock()
	if h.sh.syslog != nil {
		toSyslog(h.sh.syslog, r.Level, string(msg))
	}
	return err
}

// prefix is "pid:role dd Mon yyyy hh:mm:ss.mmm c ".
func (sh *shared) prefix(b []byte, role Role, l slog.Level) []byte {
	b = strconv.AppendInt(b, int64(sh.pid), 10)
	b = append(b, ':', byte(role), ' ')
	b = sh.now().AppendFormat(b, TimeLayout)
	return append(b, ' ', levelChar(l), ' ')
}

// appendAttr renders a as " key=value", groups dotted into the key.
func appendAttr(b []byte, groups string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b
	}
	if a.Value.Kind() == slog.KindGroup {
		g := groups
		if a.Key != "" {
			g += a.Key + "."
		}
		for _, ga := range a.Value.Group() {
			b = appendAttr(b, g, ga)
		}
		return b
	}
	b = append(b, ' ')
	b = append(b, groups...)
	b = append(b, a.Key...)
	b = append(b, '=')
	var s string
	switch a.Value.Kind() {
	case slog.KindTime:
		s = a.Value.Time().Format(time.RFC3339Nano)
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			s = err.Error()
		} else {
			s = a.Value.String()
		}
	default:
		s = a.Value.String()
	}
	if needsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// needsQuote: values that would split the line or blur where the next
// attribute starts are quoted, as slog's text handler quotes them.
func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '=' || r == '"' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += n
	}
	return false
}

// mark is what the marker attributes carry.
type mark struct {
	role Role
	raw  bool
}

// LogValue makes a marker an empty group, which slog's own handlers drop:
// a record marked for this handler reads the same under text or JSON.
func (mark) LogValue() slog.Value { return slog.GroupValue() }

func marker(a slog.Attr) (mark, bool) {
	if a.Value.Kind() != slog.KindLogValuer {
		return mark{}, false
	}
	m, ok := a.Value.Any().(mark)
	return m, ok
}

// As writes the record with role r whatever the handler's role: Child
// for what Redis's fork children log (a background save's "DB saved on
// disk"), and the lines main writes before initServer, which show C.
func As(r Role) slog.Attr { return slog.Any("", mark{role: r}) }

// Raw writes the record's message as it is, without the prefix or a
// newline: serverLogRaw's LL_RAW, used for the ASCII logo.
func Raw() slog.Attr { return slog.Any("", mark{raw: true}) }
