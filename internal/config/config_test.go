package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/testredis"
)

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil: unbalanced
	}{
		{"save 3600 1", []string{"save", "3600", "1"}},
		{`  save ""  `, []string{"save", ""}},
		{`requirepass "a b\"c"`, []string{"requirepass", `a b"c`}},
		{`x "\x41\n\t\\"`, []string{"x", "A\n\t\\"}},
		{`x '\'q\n'`, []string{"x", `'q\n`}},
		{`x a"b c"`, []string{"x", "ab c"}},
		{`x a"b c"d`, nil}, // a closing quote must end the word
		{`x "ab"c`, nil},
		{`x "ab`, nil},
		{`x 'ab`, nil},
		{"", []string{}},
	} {
		got, ok := SplitArgs(tc.in)
		if tc.want == nil {
			if ok {
				t.Errorf("%q: %q, want unbalanced", tc.in, got)
			}
			continue
		}
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q %v, want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		file  string
		stdin bool
		opts  string
	}{
		{[]string{"--port", "7777"}, "", false, `port "7777" `},
		{[]string{"--save", "", "--appendonly", "no"}, "", false, "save \"\" \nappendonly \"no\" "},
		{[]string{"--save", "--port", "1"}, "", false, "save \"\"\nport \"1\" "},
		{[]string{"--port", "1", "--save"}, "", false, "port \"1\" \nsave \"\""},
		{[]string{"--save", "3600 1 300 100"}, "", false, `save "3600 1 300 100" `},
		{[]string{"/etc/r.conf", "--loglevel", "verbose", "-"}, "/etc/r.conf", true, `loglevel "verbose" `},
		{[]string{"-"}, "", true, ""},
		{[]string{"--port 6380"}, "", false, "port 6380 "},
		{[]string{"--requirepass", "a\"b"}, "", false, `requirepass "a\"b" `},
	} {
		c := ParseArgs(tc.args)
		if c.File != tc.file || c.Stdin != tc.stdin || c.Options != tc.opts {
			t.Errorf("%q: file %q stdin %v options %q; want %q %v %q", tc.args, c.File, c.Stdin, c.Options, tc.file, tc.stdin, tc.opts)
		}
	}
	if c := ParseArgs([]string{"-v"}); !c.Version {
		t.Error("-v is not --version")
	}
	if c := ParseArgs([]string{"-h"}); !c.Help {
		t.Error("-h is not --help")
	}
}

func load(t *testing.T, file string, args ...string) (*Loader, error) {
	t.Helper()
	cl := ParseArgs(args)
	if file != "" {
		cl.File = file
	}
	l := NewLoader()
	return l, l.Load(cl.File, nil, cl.Options)
}

func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "inc.conf")
	os.WriteFile(inc, []byte("maxclients 42\n"), 0o644)
	conf := filepath.Join(dir, "r.conf")
	os.WriteFile(conf, []byte(`# a comment
   # an indented comment
maxmemory 1gb
client-query-buffer-limit 2mb
protected-mode NO
save 3600 1
save 300 100
requirepass "p w"
zset-max-ziplist-entries 7
include `+inc+`
list-max-ziplist-entries 512
tcp-backlog 511
auto-aof-rewrite-min-size 64mb
daemonize no
appendonly no
tls-port 0
loglevel warning
dir `+dir+`
`), 0o644)
	l, err := load(t, conf, "--timeout", "9", "--maxclients", "43")
	if err != nil {
		t.Fatal(err)
	}
	c := l.Cfg
	for _, chk := range []struct {
		name      string
		got, want any
	}{
		{"maxmemory", c.MaxMemory.Load(), int64(1 << 30)},
		{"client-query-buffer-limit", c.QueryBufLimit.Load(), int64(2 << 20)},
		{"protected-mode", c.ProtectedMode.Load(), false},
		{"save", FormatSave(c.SavePoints()), "3600 1 300 100"},
		{"requirepass", *c.RequirePass.Load(), "p w"},
		{"zset alias", c.ZsetMaxListpackEntries.Load(), int64(7)},
		{"maxclients: the command line after the include", c.MaxClients.Load(), int64(43)},
		{"timeout", c.Timeout.Load(), int64(9)},
		{"loglevel", l.Set.LogLevel, "warn"},
		{"dir", *c.Dir.Load(), dir},
	} {
		if chk.got != chk.want {
			t.Errorf("%s: %v, want %v", chk.name, chk.got, chk.want)
		}
	}
	// --save '' after a file's save lines clears them.
	l, err = load(t, conf, "--save", "")
	if err != nil || len(l.Cfg.SavePoints()) != 0 {
		t.Errorf("--save '': %v, %v", l.Cfg.SavePoints(), err)
	}
	// Without any save line Redis's default save points hold.
	l, _ = load(t, "")
	if got := FormatSave(l.Cfg.SavePoints()); got != DefaultSave {
		t.Errorf("default save %q", got)
	}
}

// The texts redis-server 7.0.15 prints; TestErrorsLikeRedis checks them
// against a real one when there is one.
var badStarts = []struct {
	args []string
	want string // limitkv's whole report
}{
	{[]string{"--maxclients", "0"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'maxclients \"0\"'\nargument must be between 1 and 4294967295 inclusive"},
	{[]string{"--timeout", "-5"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'timeout \"-5\"'\nargument must be between 0 and 2147483647 inclusive"},
	{[]string{"--port", "1", "--nosuch", "1"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n>>> 'nosuch \"1\"'\nBad directive or wrong number of arguments"},
	{[]string{"--daemonize", "maybe"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'daemonize \"maybe\"'\nargument must be 'yes' or 'no'"},
	{[]string{"--save", "a b"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'save \"a b\"'\nInvalid save parameters"},
	{[]string{"--maxmemory", "12x"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'maxmemory \"12x\"'\nargument must be a memory value"},
	{[]string{"--protected-mode", "on"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'protected-mode \"on\"'\nargument must be 'yes' or 'no'"},
	{[]string{"--maxclients", "1", "2"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'maxclients \"1\" \"2\"'\nwrong number of arguments"},
	{[]string{"--tls-auth-clients", "sometimes"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'tls-auth-clients \"sometimes\"'\nargument(s) must be one of the following: no, yes, optional"},
	{[]string{"--loglevel", "loud"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'loglevel \"loud\"'\nargument(s) must be one of the following: debug, verbose, notice, warning"},
	{[]string{"--client-output-buffer-limit", "normal 1mb"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'client-output-buffer-limit \"normal 1mb\"'\nWrong number of arguments in buffer limit configuration."},
	{[]string{"--dbfilename", "a/b"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'dbfilename \"a/b\"'\ndbfilename can't be a path, just a filename"},
	{[]string{"--dir", "/nonexistent/dir"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'dir \"/nonexistent/dir\"'\nNo such file or directory"},
	{[]string{"--port", "65536"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'port \"65536\"'\nargument must be between 0 and 65535 inclusive"},
	{[]string{"--unixsocketperm", "1000"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'unixsocketperm \"1000\"'\nargument must be between 0 and 777 inclusive"},
	{[]string{"--unixsocketperm", "9"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'unixsocketperm \"9\"'\nargument couldn't be parsed as an octal number"},
	{[]string{"--syslog-facility", "kern"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'syslog-facility \"kern\"'\nargument(s) must be one of the following: user, local0, local1, local2, local3, local4, local5, local6, local7"},
	{[]string{"--always-show-logo", "maybe"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'always-show-logo \"maybe\"'\nargument must be 'yes' or 'no'"},
	{[]string{"--maxmemory-clients", "101%"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'maxmemory-clients \"101%\"'\npercentage argument must be less or equal to 100"},
	{[]string{"--maxmemory-clients", "x%"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'maxmemory-clients \"x%\"'\nargument must be a memory or percent value"},
	{[]string{"--shutdown-on-sigint", "save", "nosave"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'shutdown-on-sigint \"save\" \"nosave\"'\nshutdown options SAVE and NOSAVE can't be used simultaneously"},
	{[]string{"--repl-diskless-load", "sometimes"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'repl-diskless-load \"sometimes\"'\nargument(s) must be one of the following: disabled, on-empty-db, swapdb"},
	{[]string{"--oom-score-adj-values", "1 2"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'oom-score-adj-values \"1 2\"'\nwrong number of arguments"},
	{[]string{"--proc-title-template", "{nosuch}"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'proc-title-template \"{nosuch}\"'\ntemplate format is invalid or contains unknown variables"},
	{[]string{"--cluster-announce-hostname", "a_b"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'cluster-announce-hostname \"a_b\"'\nHostnames may only contain alphanumeric characters, hyphens or dots"},
	{[]string{"--enable-protected-configs", "maybe"}, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'enable-protected-configs \"maybe\"'\nargument(s) must be one of the following: no, yes, local"},
}

// limitkv-only refusals: directives Redis honours that limitkv does not.
var limitkvRefusals = []struct {
	args []string
	want string
}{
	{[]string{"--daemonize", "yes"}, "cannot daemonize"},
	{[]string{"--databases", "4"}, "exactly 16 databases"},
	{[]string{"--rename-command", "GET", "X"}, "does not support the 'rename-command' directive"},
	{[]string{"--sentinel", "x"}, "sentinel directive while not in sentinel mode"},
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range badStarts {
		_, err := load(t, "", tc.args...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n%v\nwant\n%s", tc.args, err, tc.want)
		}
	}
	for _, tc := range limitkvRefusals {
		_, err := load(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "FATAL CONFIG FILE ERROR") {
			t.Errorf("%q: %v, want a fatal error with %q", tc.args, err, tc.want)
		}
	}
	// Lines are the file's, and an unbalanced quote names its line.
	conf := filepath.Join(t.TempDir(), "r.conf")
	os.WriteFile(conf, []byte("# c\n\nport 1\nrequirepass \"x\n"), 0o644)
	_, err := load(t, conf)
	want := "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 4\n>>> 'requirepass \"x'\nUnbalanced quotes in configuration line"
	if err == nil || err.Error() != want {
		t.Errorf("unbalanced: %v", err)
	}
	_, err = load(t, "/nonexistent.conf")
	if err == nil || err.Error() != "Fatal error, can't open config file '/nonexistent.conf': No such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}

// TestErrorsLikeRedis runs the real redis-server with each bad start and
// compares its report with limitkv's.
func TestErrorsLikeRedis(t *testing.T) {
	path, err := testredis.Find()
	if err != nil {
		t.Skipf("no redis-server (%v): the error texts are checked against the recorded ones only", err)
	}
	for _, tc := range badStarts {
		// Bare: --port P and the case's arguments, nothing else, so that
		// the bad one is on the line Redis reports.
		p, err := testredis.Start(testredis.Options{Path: path, Bare: true, Args: tc.args, NoWait: true})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.Done():
		case <-time.After(5 * time.Second):
		}
		running := !p.Exited()
		p.Stop()
		if running || p.Err() == nil {
			t.Errorf("%q: redis-server started", tc.args)
			continue
		}
		out := p.Log()
		// A leading --port on ours too, so the lines count the same.
		_, lerr := load(t, "", append([]string{"--port", "0"}, tc.args...)...)
		if lerr == nil {
			t.Errorf("%q: limitkv accepts it", tc.args)
			continue
		}
		if got := strings.TrimRight(string(out), "\n"); got != lerr.Error() {
			t.Errorf("%q:\nredis:\n%s\nlimitkv:\n%s", tc.args, got, lerr.Error())
		}
	}
}

func TestRewrite(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "r.conf")
	os.WriteFile(conf, []byte(`# keep me
maxclients 10
save 3600 1
save 300 100
mystery-directive 1
hz 10
zset-max-ziplist-entries 7

timeout 0
`), 0o644)
	l, err := load(t, "", "--dir", dir, "--save", "3600 1 300 100", "--zset-max-listpack-entries", "7")
	if err != nil {
		t.Fatal(err)
	}
	c := l.Cfg
	c.MaxClients.Store(77)
	c.MaxMemory.Store(100 << 20)
	c.RequirePass.Store(ptr(`a b"c`))
	if err := Rewrite(conf, c, l.Set); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(conf)
	want := `# keep me
maxclients 77
save 3600 1
save 300 100
# ??? mystery-directive 1
hz 10
zset-max-listpack-entries 7

timeout 0

# Generated by CONFIG REWRITE
bind 127.0.0.1
requirepass "a b\"c"
maxmemory 100mb
dir "` + dir + `"
user default on #` + acl.HashPassword([]byte(`a b"c`)) + ` ~* &* +@all
`
	if string(b) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", b, want)
	}
	// The rewritten file loads to the same settings (once the line limitkv
	// does not know is gone).
	os.WriteFile(conf, []byte(strings.Replace(string(b), "# ??? mystery-directive 1\n", "", 1)), 0o644)
	l2, err := load(t, conf)
	if err != nil {
		t.Fatal(err)
	}
	if l2.Cfg.MaxClients.Load() != 77 || *l2.Cfg.RequirePass.Load() != `a b"c` || l2.Cfg.MaxMemory.Load() != 100<<20 {
		t.Error("the rewritten file does not load back")
	}
	// Fewer save points: the second line is blanked.
	c.SetSavePoints([]SavePoint{{Seconds: 60, Changes: 5}})
	Rewrite(conf, c, l.Set)
	b, _ = os.ReadFile(conf)
	if !strings.Contains(string(b), "maxclients 77\nsave 60 5\n\nhz 10") {
		t.Errorf("after fewer save points:\n%s", b)
	}
}

func ptr[T any](v T) *T { return &v }

// Directives reads the default user through an ACL registry, which needs
// the ACL's command table: the engine installs the real one; these tests
// use an empty one (no user line here names a command).
func init() {
	if AclTable == nil {
		AclTable = acl.NewTable(nil)
	}
}
