package testredis

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindHonoursEnv(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "redis-server")
	cli := filepath.Join(dir, "redis-cli")
	for _, f := range []string{bin, cli} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvServer, bin)
	if p, err := Find(); err != nil || p != bin {
		t.Fatalf("Find = %q, %v; want %q", p, err, bin)
	}
	if p, err := FindTool("redis-cli"); err != nil || p != cli {
		t.Fatalf("FindTool(redis-cli) = %q, %v; want %q", p, err, cli)
	}
	t.Setenv(EnvServer, filepath.Join(dir, "missing"))
	if _, err := Find(); err == nil {
		t.Fatal("Find accepted a missing $" + EnvServer)
	}
}

func TestStartAndStop(t *testing.T) {
	p := StartT(t, "--enable-debug-command", "yes")
	if !Ping(p.Addr) {
		t.Fatal("started server does not answer PING")
	}
	dir := p.Dir
	p.Stop()
	if !p.Exited() {
		t.Fatal("Stop left the process running")
	}
	if Ping(p.Addr) {
		t.Fatal("server still answers after Stop")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Stop left its directory %s: %v", dir, err)
	}
	p.Stop() // twice is fine
}
