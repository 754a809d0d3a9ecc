package limitkv

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"
)

// TestLayers holds the packages to README's layers, as go list reports
// their imports: what the compiler cannot see (a package importing one it
// should not) fails here. The core knows nothing above it; the engine
// imports no family and no component (they attach through its
// interfaces); a family reaches only the engine, config and the core, so
// no family can touch another's or a component's state; the facade's
// server knows the engine alone.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/limitkv/limitkv/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, mod) {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(imp, mod))
			}
		}
	}
	family := func(p string) bool { return strings.HasPrefix(p, "internal/family/") }
	component := func(p string) bool {
		switch p {
		case "internal/admin", "internal/durability", "internal/scripting", "internal/cluster":
			return true
		}
		return false
	}
	// Above the core: everything that knows of commands or connections.
	above := func(p string) bool {
		switch {
		case family(p), component(p):
			return true
		case p == "ratelimit/seedscript", p == "ratelimit/scripts":
			return false // embedded scripts, leaves the core may read
		case !strings.HasPrefix(p, "internal/"):
			return true
		}
		switch p {
		case "internal/engine", "internal/commands", "internal/server", "internal/metrics", "internal/config":
			return true
		}
		return false
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			var why string
			switch {
			case pkg == "internal/engine" && (family(imp) || component(imp) || imp == "internal/commands" || imp == "internal/server"):
				why = "the engine imports no family or component: they attach through its interfaces"
			case family(pkg) && (above(imp) && imp != "internal/engine" && imp != "internal/config"):
				why = "a family imports only the engine, config and the core"
			case component(pkg) && (family(imp) || imp == "internal/commands"):
				why = "a component imports no family"
			case pkg == "internal/config" && above(imp):
				why = "config imports no executor"
			case pkg == "internal/server" && (family(imp) || component(imp)):
				why = "the facade's server knows the engine alone"
			case strings.HasPrefix(pkg, "internal/") && !above(pkg) && above(imp):
				why = "the core knows nothing above it"
			}
			if why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
	if len(imports["internal/engine"]) == 0 {
		t.Fatal("go list reported no imports for internal/engine")
	}
}

// TestFamiliesReachNoEngineState: a family reads the configuration and the
// clock and asks the engine's methods; it never reaches into the engine's
// exported status (the components' and the dispatcher's: statistics,
// tracking, blocked clients, observability). Go cannot hide those fields
// from the families alone, so this test does, by name.
func TestFamiliesReachNoEngineState(t *testing.T) {
	allowed := map[string]bool{"Cfg": true, "Clock": true, "Dur": true}
	ty := reflect.TypeFor[engine.Engine]()
	var fields []string
	for i := range ty.NumField() {
		if f := ty.Field(i); f.IsExported() && !allowed[f.Name] {
			fields = append(fields, f.Name)
		}
	}
	use := regexp.MustCompile(`\.E\.(` + strings.Join(fields, "|") + `)\b`)
	files, err := filepath.Glob("internal/family/*/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no family sources (%v)", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := use.FindStringSubmatch(line); m != nil {
				t.Errorf("%s:%d: a family reaches Engine.%s: give the engine a method", f, i+1, m[1])
			}
		}
	}
}
