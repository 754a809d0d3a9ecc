package limitkv_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv"
)

func TestConfigOption(t *testing.T) {
	dir := t.TempDir() // Close saves there (save points are set)
	for _, tc := range []struct {
		cfg  limitkv.Config
		want string // "" starts
	}{
		{limitkv.Config{"save": "3600 1 300 100", "lua-time-limit": "100", "dir": dir, "dbfilename": "x.rdb", "rdbchecksum": "no"}, ""},
		{limitkv.Config{"maxmemory": "12x"}, `limitkv: Config maxmemory "12x": argument must be a memory value`},
		{limitkv.Config{"nosuch": "1"}, `limitkv: Config "nosuch": no such setting`},
		{limitkv.Config{"port": "1"}, `Options.Addr`},
		{limitkv.Config{"appendonly": "yes", "dir": t.TempDir()}, ""},
		{limitkv.Config{"appendfsync": "sometimes"}, `argument(s) must be one of the following: everysec, always, no`},
	} {
		srv, err := limitkv.Start(limitkv.Options{Config: tc.cfg})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.cfg, err)
				continue
			}
			for k, v := range tc.cfg {
				if got, _ := srv.ConfigGet(k); got != v {
					t.Errorf("CONFIG GET %s = %q, want %q", k, got, v)
				}
			}
			srv.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.cfg, err, tc.want)
			if err == nil {
				srv.Close()
			}
		}
	}
}

func TestConfigSet(t *testing.T) {
	srv := limitkv.StartT(t, limitkv.Options{})
	if err := srv.ConfigSet("maxclients", "0"); err == nil ||
		err.Error() != "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive" {
		t.Errorf("CONFIG SET maxclients 0: %v", err)
	}
	if _, ok := srv.ConfigGet("nosuch"); ok {
		t.Error("ConfigGet of an unknown setting reports one")
	}
}

// A direct write is a write: a client's WATCH sees it.
func TestDirectWriteTouchesWatch(t *testing.T) {
	srv := limitkv.StartT(t, limitkv.Options{})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := t.Context()
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		srv.Set("w", "changed")
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Set(ctx, "w", "mine", 0); return nil })
		return err
	}, "w")
	if err != redis.TxFailedErr {
		t.Fatalf("EXEC after a direct write to a watched key: %v", err)
	}
	if v, _ := srv.Get("w"); v != "changed" {
		t.Fatalf("w = %q", v)
	}
	if _, err := srv.ZScore("w", "m"); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Fatalf("ZScore of a string: %v", err)
	}
	if srv.DB(3).Set("only3", "x"); srv.Exists("only3") || !srv.DB(3).Exists("only3") {
		t.Fatal("DB(3) is not database 3")
	}
	m, _ := srv.DB(0).HGetAll("nohash")
	if len(m) != 0 {
		t.Fatal("HGetAll of a missing key")
	}
}

func TestFaultMatching(t *testing.T) {
	srv := limitkv.StartT(t, limitkv.Options{})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer rdb.Close()
	ctx := t.Context()
	srv.InjectFault(limitkv.Fault{Command: "get", Times: 1, Err: "READONLY You can't write against a read only replica."})
	srv.InjectFault(limitkv.Fault{Err: "ERR everything"})
	// The first fault takes GET once; the second takes everything else.
	if err := rdb.Get(ctx, "k").Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Fatalf("first GET: %v", err)
	}
	for range 3 {
		if err := rdb.Get(ctx, "k").Err(); err == nil || err.Error() != "ERR everything" {
			t.Fatalf("later GET: %v", err)
		}
	}
	// Direct access is not faulted.
	if err := srv.Set("k", "v"); err != nil {
		t.Fatal(err)
	}
	srv.ClearFaults()
	if v, err := rdb.Get(ctx, "k").Result(); v != "v" || err != nil {
		t.Fatalf("GET after ClearFaults: %q %v", v, err)
	}
	// A stall without an error runs the command after it.
	srv.InjectFault(limitkv.Fault{Command: "INCR", Times: 1, Stall: 50 * time.Millisecond})
	start := time.Now()
	if n, err := rdb.Incr(ctx, "n").Result(); n != 1 || err != nil {
		t.Fatalf("stalled INCR: %d %v", n, err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("INCR answered after %v, before the stall ended", d)
	}
}
