package limitkv

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// keysAndTTLs is every key of database 0 with its deadline and its window
// (the sorted set's members and scores).
func keysAndTTLs(t *testing.T, rdb *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		exp, _ := rdb.Do(ctx, "PEXPIRETIME", k).Int64()
		zs, _ := rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
		var b strings.Builder
		for _, z := range zs {
			b.WriteString(z.Member.(string) + "=" + strconv.FormatFloat(z.Score, 'g', -1, 64) + ",")
		}
		out[k] = strconv.FormatInt(exp, 10) + " " + b.String()
	}
	return out
}

// A restart keeps every rate-limit window: Close saves when save points
// are set, and Start loads the file.
func TestRestartKeepsWindows(t *testing.T) {
	dir := t.TempDir()
	clk := NewManualClock(time.Now())
	opts := Options{Dir: dir, Save: "3600 1", Clock: clk}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	for i := range 200 {
		key := "{t}:ratelimit:api:user" + strconv.Itoa(i%37)
		if err := rdb.Do(ctx, "RL.CHECK", key, "*", "60000", "5", "*").Err(); err != nil {
			t.Fatal(err)
		}
		clk.Add(3 * time.Millisecond)
	}
	before := keysAndTTLs(t, rdb)
	rdb.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatalf("Close did not save: %v", err)
	}

	s2, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	rdb2 := redis.NewClient(&redis.Options{Addr: s2.Addr()})
	defer rdb2.Close()
	after := keysAndTTLs(t, rdb2)
	if len(after) != len(before) || len(before) != 37 {
		t.Fatalf("%d keys after the restart, %d before", len(after), len(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s: %q after the restart, %q before", k, after[k], v)
		}
	}
}

func TestStartRefusesCorruptFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.rdb")
	data := []byte("REDIS0010\xfa\x09redis-ver")
	os.WriteFile(path, data, 0o644)
	if s, err := Start(Options{Dir: dir}); err == nil {
		s.Close()
		t.Fatal("started on a truncated file")
	} else if !strings.Contains(err.Error(), "dump.rdb") {
		t.Errorf("error does not name the file: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(data) {
		t.Error("the refused file was modified")
	}
}
