package ratelimit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The client library is imported by application services: it must not link
// the server (gopher-lua, btree, the engine). Allowed are the standard
// library, go-redis with whatever it imports, and this package with its
// leaves seedscript and scripts (the algorithms' Lua twins, embedded).
func TestDependsOnlyOnGoRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	list := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	allowed := map[string]bool{
		"github.com/limitkv/limitkv/ratelimit":            true,
		"github.com/limitkv/limitkv/ratelimit/seedscript": true,
		"github.com/limitkv/limitkv/ratelimit/scripts":    true,
	}
	for _, p := range list("github.com/redis/go-redis/v9") {
		allowed[p] = true
	}
	for _, p := range list("github.com/limitkv/limitkv/ratelimit") {
		if !allowed[p] {
			t.Errorf("ratelimit depends on %s, which is neither the standard library nor go-redis's", p)
		}
	}
}
