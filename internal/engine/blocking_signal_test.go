package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/commands"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/resp"
)

func toArgs(args []string) [][]byte {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	return b
}

// A RENAME, MOVE or COPY that puts a sorted set under a key a client waits
// on marks the key ready, in the right database.
func TestKeysSignalBlockedOnZsetArrival(t *testing.T) {
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	e := commands.New(config.DefaultConfig(), clk, nil)
	c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	do := func(args ...string) string {
		var w resp.Writer
		e.Lock()
		defer e.Unlock()
		e.Exec(c, toArgs(args), &w)
		return string(w.Bytes())
	}
	do("ZADD", "src", "0", "m")
	do("ZADD", "src2", "0", "m")
	e.Lock()
	e.AwaitKeyForTest(engine.WaitKey{Db: 0, Key: "dst"})
	e.AwaitKeyForTest(engine.WaitKey{Db: 1, Key: "dst"})
	e.TakeReadyForTest()
	e.Unlock()
	ready := func(args ...string) []engine.WaitKey {
		bargs := toArgs(args)
		e.Lock()
		defer e.Unlock()
		var w resp.Writer
		x := engine.Ctx{E: e, C: c, W: &w, DB: e.DB(c.DB), Now: clk.Now().UnixMilli(), Args: bargs, Cmd: engine.Lookup(bargs[0])}
		x.Cmd.Handler(&x)
		return e.TakeReadyForTest()
	}
	if r := ready("RENAME", "src", "dst"); !slices.Equal(r, []engine.WaitKey{{Db: 0, Key: "dst"}}) {
		t.Fatalf("RENAME signalled %v", r)
	}
	if r := ready("MOVE", "dst", "1"); !slices.Equal(r, []engine.WaitKey{{Db: 1, Key: "dst"}}) {
		t.Fatalf("MOVE signalled %v", r)
	}
	if r := ready("COPY", "src2", "dst", "DB", "1", "REPLACE"); !slices.Equal(r, []engine.WaitKey{{Db: 1, Key: "dst"}}) {
		t.Fatalf("COPY signalled %v", r)
	}
	if r := do("SET", "s", "v"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	if r := ready("RENAME", "s", "dst"); len(r) != 0 {
		t.Fatalf("a string arriving signalled %v", r)
	}
}
