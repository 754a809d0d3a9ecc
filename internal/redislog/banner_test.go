package redislog

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// mask takes the pid, time and the pid inside the version line out of a
// Redis log, leaving role, level and text.
var (
	linePrefix = regexp.MustCompile(`^\d+:([MSCX]) \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} ([.\-*#]) `)
	pidInText  = regexp.MustCompile(`pid=\d+`)
)

func mask(log string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(log, "\n"), "\n") {
		m := linePrefix.FindStringSubmatch(line)
		if m == nil {
			out = append(out, "RAW "+line)
			continue
		}
		text := pidInText.ReplaceAllString(line[len(m[0]):], "pid=N")
		out = append(out, m[1]+" "+m[2]+" "+text)
	}
	return out
}

// The banner's lines, in order, with their roles and levels, are those of
// redis-server 7.0.15 started with a logfile (pid and time masked).
// Redis's Linux memory warnings, which limitkv does not write (see
// Initialized), are left out of Redis's side.
func TestBannerMatchesRedis(t *testing.T) {
	dir := t.TempDir()
	logfile := filepath.Join(dir, "redis.log")
	sock := filepath.Join(dir, "r.sock")
	p := testredis.StartT(t, "--logfile", logfile, "--unixsocket", sock)
	p.Stop()
	b, err := os.ReadFile(logfile)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range mask(string(b)) {
		if strings.HasPrefix(l, "M # WARNING ") {
			continue
		}
		if strings.Contains(l, "Ready to accept connections") || strings.Contains(l, "ready to accept connections at") {
			want = append(want, l)
			continue
		}
		if len(want) > 0 && strings.Contains(want[len(want)-1], "accept connections at") {
			break // the shutdown's lines
		}
		want = append(want, l)
	}

	if len(want) != 8 {
		t.Fatalf("redis-server's start-up, %d lines, not the 8 expected:\n%s", len(want), strings.Join(want, "\n"))
	}
	var buf bytes.Buffer
	log := slog.New(New(&buf, nil))
	Starting(log, Start{Version: "7.0.15", Commit: "00000000"})
	Initialized(log, Init{Mode: "standalone", Port: p.Port})
	Ready(log, true, sock)
	got := mask(buf.String())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("banner:\n%s\nredis-server wrote:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Redis warns when it runs without any argument, naming argv[0].
func TestBannerNoConfig(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(New(&buf, &Options{Pid: 9, Now: func() time.Time { return fixed }}))
	Starting(log, Start{Version: "7.0.15", Commit: "00000000", Pid: 9, NoArgs: true, Argv0: "./redis-server"})
	want := "9:C 02 Dec 2026 06:51:54.343 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n" +
		"9:C 02 Dec 2026 06:51:54.343 # Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=9, just started\n" +
		"9:C 02 Dec 2026 06:51:54.343 # Warning: no config file specified, using the default config. In order to specify a config file use ./redis-server /path/to/redis.conf\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// With always-show-logo the logo replaces "Running mode", raw, as Redis
// prints it (checked against redis-server's own).
func TestLogoMatchesRedis(t *testing.T) {
	dir := t.TempDir()
	logfile := filepath.Join(dir, "redis.log")
	p := testredis.StartT(t, "--logfile", logfile, "--always-show-logo", "yes")
	pid := p.Cmd.Process.Pid
	p.Stop()
	b, err := os.ReadFile(logfile)
	if err != nil {
		t.Fatal(err)
	}
	logo := Logo("7.0.15", "00000000", false, "standalone", p.Port, pid)
	if !strings.Contains(string(b), logo) {
		t.Errorf("redis-server's log lacks the logo:\n%s\nlog:\n%s", logo, b)
	}
	var buf bytes.Buffer
	Initialized(slog.New(New(&buf, nil)), Init{Version: "7.0.15", Commit: "00000000", Mode: "standalone", Port: p.Port, Pid: pid, ShowLogo: true})
	if !strings.Contains(buf.String(), "\n"+logo) || strings.Contains(buf.String(), "Running mode") {
		t.Errorf("Initialized with the logo wrote:\n%s", buf.String())
	}
	if !ShowLogo(true, true, "x") || ShowLogo(false, true, "") || ShowLogo(false, false, "/var/log/r.log") {
		t.Error("ShowLogo does not follow redisAsciiArt's rule")
	}
}
