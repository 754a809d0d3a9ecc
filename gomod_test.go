package limitkv_test

import (
	"os"
	"regexp"
	"testing"
)

// go.mod's go line is the oldest toolchain the module builds with: a patch
// release there (go 1.26.8) makes every older 1.26 toolchain download a
// newer one before it builds anything. The line names the minor's first
// release, which go-redis needs too.
func TestGoModDoesNotForceAToolchain(t *testing.T) {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.(\d+))?\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	if len(m[3]) > 0 && string(m[3]) != "0" {
		t.Errorf("go.mod says go %s%s: older %s toolchains would download a newer one; use go %s.0", m[1], m[2], m[1], m[1])
	}
	if regexp.MustCompile(`(?m)^toolchain `).Match(b) {
		t.Error("go.mod has a toolchain line: it makes older toolchains download that one")
	}
}
