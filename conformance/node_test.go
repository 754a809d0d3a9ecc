package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const envRequireNode = "LIMITKV_REQUIRE_NODE" // "1": missing node or its modules is an error, not a skip

// TestNodeClientsPubSub runs testdata/node/pubsub.mjs (ioredis, and
// node-redis in RESP2 and RESP3, subscribing and publishing) against both
// servers and compares what the clients saw. It needs Node.js and the
// modules `npm ci --prefix conformance/testdata/node` installs (.ci/run
// does).
func TestNodeClientsPubSub(t *testing.T) {
	requireServers(t)
	dir := filepath.Join("testdata", "node")
	node, err := exec.LookPath("node")
	_, merr := os.Stat(filepath.Join(dir, "node_modules", "ioredis"))
	if err != nil || merr != nil {
		msg := "node or its modules missing (run: npm ci --prefix conformance/testdata/node)"
		if os.Getenv(envRequireNode) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	run := func(addr string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, "pubsub.mjs", addr)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node pubsub.mjs %s: %v\n%s", addr, err, out)
		}
		return string(out)
	}
	want, got := run(redisAddr), run(limitkvAddr)
	for _, bad := range []string{"timeout", "failed", "error"} {
		if strings.Contains(want, bad) {
			t.Fatalf("the script did not run cleanly against Redis itself:\n%s", want)
		}
	}
	if !strings.Contains(want, "node-redis RESP3") || !strings.Contains(want, "pmessage") {
		t.Fatalf("the script stopped early against Redis:\n%s", want)
	}
	if got != want {
		t.Fatalf("node clients saw different things\n--- redis:\n%s\n--- limitkv:\n%s", want, got)
	}
}
