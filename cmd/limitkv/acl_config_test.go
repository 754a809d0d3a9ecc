package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/resp"
)

// "user" lines of redis.conf, against redis-server: the same refusals of a
// bad line (at parse or at start), the same users from good ones.
func TestConfigUsers(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server")
	}
	for _, tc := range []struct {
		name, conf string
	}{
		{"bad rule", "user u on badrule\n"},
		{"bad hash", "user u on #abc\n"},
		{"duplicate", "user u on\nuser u off\n"},
		{"unknown command at start", "user u on +nosuch\n"},
		{"users", "user u on >p ~k* &c -@all +get (+set ~s*)\nuser default on nopass ~* &* +@all -flushall\nuser v\n"},
		{"with an acl file", "user u on\naclfile FILE\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			acl := filepath.Join(dir, "users.acl")
			os.WriteFile(acl, nil, 0o644)
			conf := filepath.Join(dir, "r.conf")
			port := freePort(t)
			text := strings.ReplaceAll(tc.conf, "FILE", acl)
			os.WriteFile(conf, []byte("port "+strconv.Itoa(port)+"\nbind 127.0.0.1\nsave \"\"\ndir "+dir+"\n"+text), 0o644)

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rcmd := exec.CommandContext(ctx, redisBin, conf)
			var rout strings.Builder
			rcmd.Stdout, rcmd.Stderr = &rout, &rout
			if err := rcmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- rcmd.Wait() }()
			var redisList string
			select {
			case <-exited:
			case <-time.After(300 * time.Millisecond):
				out, err := exec.Command("redis-cli", "-p", strconv.Itoa(port), "ACL", "LIST").Output()
				if err != nil {
					t.Fatal(err)
				}
				redisList = string(out)
				rcmd.Process.Kill()
				<-exited
			}

			l, _, err := load([]string{conf})
			if err == nil {
				e := commands.New(l.Cfg, nil, nil)
				err = e.LoadACLAtStart()
				if err == nil {
					c := e.NewClient("127.0.0.1:1", "127.0.0.1:2")
					var w resp.Writer
					e.Lock()
					e.Exec(c, [][]byte{[]byte("ACL"), []byte("LIST")}, &w)
					e.Unlock()
					var lines []string
					for _, l := range strings.Split(string(w.Bytes()), "\r\n") {
						if strings.HasPrefix(l, "user ") {
							lines = append(lines, l)
						}
					}
					if got := strings.Join(lines, "\n") + "\n"; got != redisList {
						t.Errorf("ACL LIST:\n%s\nredis:\n%s", got, redisList)
					}
					return
				}
			}
			if redisList != "" {
				t.Fatalf("limitkv refused (%v), redis started", err)
			}
			msg := err.Error()
			if i := strings.LastIndex(msg, "\n"); i >= 0 {
				msg = msg[i+1:]
			}
			if !strings.Contains(rout.String(), msg) {
				t.Errorf("limitkv: %q\nredis:\n%s", msg, rout.String())
			}
		})
	}
}
