package commands

import (
	"errors"
	"github.com/limitkv/limitkv/internal/admin"
	"testing"

	"github.com/limitkv/limitkv/internal/config"
)

func TestConfigRewriteHook(t *testing.T) {
	tt := newTester(t)
	tt.Expect(errReply(admin.ErrNoConfigFile), "CONFIG", "REWRITE")
	calls := 0
	tt.E.Cfg.Rewrite = func() error { calls++; return nil }
	tt.Expect("+OK\r\n", "CONFIG", "REWRITE")
	tt.E.Cfg.Rewrite = func() error { return errors.New("Permission denied") }
	tt.Expect(errReply("ERR Rewriting config file: Permission denied"), "CONFIG", "REWRITE")
	if calls != 1 {
		t.Errorf("hook called %d times", calls)
	}
}

// ApplyDirective is CONFIG SET's parse for every setting, with the fixed
// ones settable and multi-word values joined or split as Redis does.
func TestApplyDirective(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		err  string
		get  string // CONFIG GET's value after, if no error
	}{
		{"MaxClients", []string{"5"}, "", "5"},
		{"maxclients", []string{"0"}, "argument must be between 1 and 4294967295 inclusive", ""},
		{"maxclients", []string{"1", "2"}, "wrong number of arguments", ""},
		{"lua-time-limit", []string{"100"}, "", "100"},
		{"save", []string{"3600", "1", "60", "5"}, "", "3600 1 60 5"},
		{"save", []string{"3600 1"}, "", "3600 1"},
		{"save", []string{""}, "", ""},
		{"client-output-buffer-limit", []string{"normal", "1mb", "2mb", "3"}, "", "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{"port", []string{"7000"}, "", "7000"},
		{"bind", []string{"127.0.0.1", "-::1"}, "", "127.0.0.1 -::1"},
		{"rdbchecksum", []string{"no"}, "", "no"},
		{"databases", []string{"16"}, "", "16"},
		{"databases", []string{"8"}, "limitkv has exactly 16 databases", ""},
		{"appendonly", []string{"yes"}, "", "yes"},
		{"appendfsync", []string{"sometimes"}, "argument(s) must be one of the following: everysec, always, no", ""},
		{"appendfilename", []string{"a/b"}, "appendfilename can't be a path, just a filename", ""},
		{"dbfilename", []string{"a/b"}, "dbfilename can't be a path, just a filename", ""},
	} {
		c := config.DefaultConfig()
		known, err := c.ApplyDirective(tc.name, tc.args, &config.LoadState{})
		if !known || err != tc.err {
			t.Errorf("%s %q: known %v, %q; want %q", tc.name, tc.args, known, err, tc.err)
			continue
		}
		if err == "" {
			p, _ := config.ConfigLookup(tc.name)
			if got := p.Get(c); got != tc.get {
				t.Errorf("%s %q: CONFIG GET %q, want %q", tc.name, tc.args, got, tc.get)
			}
		}
	}
	if known, _ := config.DefaultConfig().ApplyDirective("nosuch", []string{"1"}, nil); known {
		t.Error("an unknown directive is known")
	}
}
