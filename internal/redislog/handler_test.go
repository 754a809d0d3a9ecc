package redislog

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixed is 2 Dec 2026 06:51:54.3439 UTC: the milliseconds must be
// truncated (343), as tv_usec/1000.
var fixed = time.Date(2026, 12, 2, 6, 51, 54, 343_900_000, time.UTC)

func newTest(level slog.Leveler) (*bytes.Buffer, *Handler, *slog.Logger) {
	var buf bytes.Buffer
	h := New(&buf, &Options{Level: level, Pid: 4242, Now: func() time.Time { return fixed }})
	return &buf, h, slog.New(h)
}

func TestGoldenLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		min  slog.Level
		role Role
		log  func(*slog.Logger)
		want string
	}{
		{"debug", LevelDebug, Master, func(l *slog.Logger) { l.Debug("d") }, "4242:M 02 Dec 2026 06:51:54.343 . d\n"},
		{"verbose", LevelDebug, Master, func(l *slog.Logger) { l.Log(context.Background(), LevelVerbose, "v") }, "4242:M 02 Dec 2026 06:51:54.343 - v\n"},
		{"notice", LevelDebug, Master, func(l *slog.Logger) { l.Info("Ready to accept connections") }, "4242:M 02 Dec 2026 06:51:54.343 * Ready to accept connections\n"},
		{"warning", LevelDebug, Master, func(l *slog.Logger) { l.Warn("w") }, "4242:M 02 Dec 2026 06:51:54.343 # w\n"},
		{"error is warning", LevelDebug, Master, func(l *slog.Logger) { l.Error("e") }, "4242:M 02 Dec 2026 06:51:54.343 # e\n"},
		{"replica", LevelDebug, Replica, func(l *slog.Logger) { l.Info("x") }, "4242:S 02 Dec 2026 06:51:54.343 * x\n"},
		{"sentinel", LevelDebug, Sentinel, func(l *slog.Logger) { l.Info("x") }, "4242:X 02 Dec 2026 06:51:54.343 * x\n"},
		{"child by attr", LevelDebug, Replica, func(l *slog.Logger) { l.Info("DB saved on disk", As(Child)) }, "4242:C 02 Dec 2026 06:51:54.343 * DB saved on disk\n"},
		{"below notice", LevelNotice, Master, func(l *slog.Logger) { l.Debug("d"); l.Log(context.Background(), LevelVerbose, "v") }, ""},
		{"below warning", LevelWarning, Master, func(l *slog.Logger) { l.Info("n"); l.Warn("w") }, "4242:M 02 Dec 2026 06:51:54.343 # w\n"},
		{"nothing", LevelNothing, Master, func(l *slog.Logger) { l.Error("e") }, ""},
		{"attrs", LevelDebug, Master, func(l *slog.Logger) {
			l.With("client", 7).WithGroup("net").Info("closed", "addr", "127.0.0.1:5", "why", "idle timeout", "err", errors.New("EOF"), "empty", "", "nl", "a\nb", "eq", "a=b")
		}, "4242:M 02 Dec 2026 06:51:54.343 * closed client=7 net.addr=127.0.0.1:5 net.why=\"idle timeout\" net.err=EOF net.empty=\"\" net.nl=\"a\\nb\" net.eq=\"a=b\"\n"},
		{"group attr", LevelDebug, Master, func(l *slog.Logger) {
			l.Info("m", slog.Group("g", "a", 1, slog.Group("h", "b", 2)), slog.Group("empty"))
		}, "4242:M 02 Dec 2026 06:51:54.343 * m g.a=1 g.h.b=2\n"},
		{"raw", LevelDebug, Master, func(l *slog.Logger) { l.Info("  logo\n\n", Raw()) }, "  logo\n\n"},
		{"catalogue", LevelDebug, Master, func(l *slog.Logger) { DoneLoadingRDB.Log(l, 3, 1); DBLoadedFromDisk.Log(l, 0.0125); DBSaved.Log(l) },
			"4242:M 02 Dec 2026 06:51:54.343 * Done loading RDB, keys loaded: 3, keys expired: 1.\n" +
				"4242:M 02 Dec 2026 06:51:54.343 * DB loaded from disk: 0.013 seconds\n" +
				"4242:C 02 Dec 2026 06:51:54.343 * DB saved on disk\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf, h, l := newTest(tc.min)
			h.SetRole(tc.role)
			tc.log(l)
			if got := buf.String(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The role is the handler's state, shared by every logger derived from
// it: a replica's REPLICAOF changes the lines of loggers made before.
func TestRoleChangesAtRunTime(t *testing.T) {
	buf, h, l := newTest(nil)
	derived := l.With("client", 1)
	derived.Info("a")
	h.SetRole(Replica)
	derived.Info("b")
	l.Info("c")
	h.SetRole(Master)
	derived.Info("d")
	var roles []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		roles = append(roles, line[5:6])
	}
	if got := strings.Join(roles, ""); got != "MSSM" {
		t.Errorf("roles %q, want MSSM:\n%s", got, buf)
	}
}

// A level var follows CONFIG SET loglevel.
func TestLevelVar(t *testing.T) {
	var lv slog.LevelVar
	lv.Set(LevelWarning)
	buf, _, l := newTest(&lv)
	l.Info("hidden")
	lv.Set(LevelVerbose)
	l.Debug("hidden too")
	l.Log(context.Background(), LevelVerbose, "shown")
	if got := buf.String(); !strings.HasSuffix(got, " - shown\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("%q", got)
	}
}

// _serverLog formats into 1024 bytes: longer messages lose their end.
func TestMessageTruncated(t *testing.T) {
	buf, _, l := newTest(nil)
	l.Info(strings.Repeat("x", 2000), "k", "v")
	line := strings.TrimSuffix(buf.String(), "\n")
	msg := line[strings.Index(line, " * ")+3:]
	if len(msg) != 1023 || strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("message of %d bytes, want 1023", len(msg))
	}
}

func TestParseLevel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want slog.Level
		name string
		err  bool
	}{
		{"debug", LevelDebug, "debug", false},
		{"VERBOSE", LevelVerbose, "verbose", false},
		{"notice", LevelNotice, "notice", false},
		{"Warning", LevelWarning, "warning", false},
		{"nothing", LevelNothing, "nothing", false},
		{"info", slog.LevelInfo, "notice", false},
		{"warn", slog.LevelWarn, "warning", false},
		{"error", slog.LevelError, "warning", false},
		{"DEBUG+2", LevelVerbose, "verbose", false},
		{"loud", 0, "", true},
	} {
		got, err := ParseLevel(tc.in)
		if (err != nil) != tc.err || !tc.err && (got != tc.want || LevelName(got) != tc.name) {
			t.Errorf("ParseLevel(%q) = %v (%s), %v; want %v (%s)", tc.in, got, LevelName(got), err, tc.want, tc.name)
		}
	}
}

// The markers are empty groups to slog's own handlers, so code written for
// this handler logs cleanly under log-format text or json.
func TestMarkersInvisibleToOtherHandlers(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	l.Info("m", As(Child), Raw(), "k", "v")
	if got := buf.String(); !strings.HasSuffix(got, "msg=m k=v\n") {
		t.Errorf("%q", got)
	}
}

type fakeSyslog struct{ got []string }

func (f *fakeSyslog) Debug(m string) error   { f.got = append(f.got, "debug "+m); return nil }
func (f *fakeSyslog) Info(m string) error    { f.got = append(f.got, "info "+m); return nil }
func (f *fakeSyslog) Notice(m string) error  { f.got = append(f.got, "notice "+m); return nil }
func (f *fakeSyslog) Warning(m string) error { f.got = append(f.got, "warning "+m); return nil }

// Syslog gets the message alone at serverLogRaw's syslogLevelMap level.
func TestSyslogLevels(t *testing.T) {
	sl := &fakeSyslog{}
	l := slog.New(New(&bytes.Buffer{}, &Options{Level: LevelDebug, Syslog: sl}))
	l.Debug("a")
	l.Log(context.Background(), LevelVerbose, "b")
	l.Info("c", "k", 1)
	l.Warn("d")
	want := []string{"debug a", "info b", "notice c k=1", "warning d"}
	if strings.Join(sl.got, "|") != strings.Join(want, "|") {
		t.Errorf("%q, want %q", sl.got, want)
	}
	if _, err := ParseFacility("LOCAL7"); err != nil {
		t.Error(err)
	}
	if _, err := ParseFacility("kern"); err == nil {
		t.Error("kern accepted: Redis takes user and local0-7 only")
	}
}

// The file is reopened for each line, so a log moved away by logrotate is
// recreated at the next line.
func TestFileFollowsRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.log")
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := slog.New(New(f, &Options{Pid: 1, Now: func() time.Time { return fixed }}))
	l.Info("one")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	l.Info("two")
	for p, want := range map[string]string{path + ".1": " * one\n", path: " * two\n"} {
		b, err := os.ReadFile(p)
		if err != nil || !strings.HasSuffix(string(b), want) || strings.Count(string(b), "\n") != 1 {
			t.Errorf("%s: %q %v, want one line ending %q", p, b, err, want)
		}
	}
	if _, err := OpenFile(filepath.Join(t.TempDir(), "no", "such", "dir")); err == nil {
		t.Error("a log file that cannot be created was accepted")
	}
}
