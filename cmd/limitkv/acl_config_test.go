package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/resp"
	"github.com/limitkv/limitkv/internal/testredis"
)

// "user" lines of redis.conf, against redis-server: the same refusals of a
// bad line (at parse or at start), the same users from good ones.
func TestConfigUsers(t *testing.T) {
	redisBin, err := testredis.Find()
	if err != nil {
		t.Skip("no redis-server")
	}
	cli, err := testredis.FindTool("redis-cli")
	if err != nil {
		t.Fatal(err)
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
			text := strings.ReplaceAll(tc.conf, "FILE", acl)
			os.WriteFile(conf, []byte("bind 127.0.0.1\nsave \"\"\ndir "+dir+"\n"+text), 0o644)

			// A refused start's error carries Redis's log.
			var redisList, rout string
			if p, err := testredis.Start(testredis.Options{Path: redisBin, Conf: conf, Dir: dir}); err != nil {
				rout = err.Error()
			} else {
				out, err := exec.Command(cli, "-p", strconv.Itoa(p.Port), "ACL", "LIST").Output()
				p.Stop()
				if err != nil {
					t.Fatal(err)
				}
				redisList = string(out)
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
			if !strings.Contains(rout, msg) {
				t.Errorf("limitkv: %q\nredis:\n%s", msg, rout)
			}
		})
	}
}
