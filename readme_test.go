package limitkv

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"
)

const (
	commandsBegin = "<!-- commands:begin (generated from the command table: LIMITKV_UPDATE_README=1 go test -run TestREADMECommands .) -->"
	commandsEnd   = "<!-- commands:end -->"
)

// commandList renders the command table for README.md: one line per COMMAND
// DOCS group, containers with their subcommands.
func commandList() string {
	groups := map[string][]string{}
	for _, c := range engine.All() {
		name := strings.ToUpper(c.Name)
		if len(c.Sub) > 0 {
			var subs []string
			for s := range c.Sub {
				subs = append(subs, strings.ToUpper(s))
			}
			sort.Strings(subs)
			name += " (" + strings.Join(subs, ", ") + ")"
		}
		g := c.Group
		if g == "" {
			g = "other"
		}
		groups[g] = append(groups[g], name)
	}
	var names []string
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	var b strings.Builder
	n := 0
	for _, g := range names {
		n += len(groups[g])
		b.WriteString("- **" + g + "**: " + strings.Join(groups[g], ", ") + "\n")
	}
	return b.String()
}

// TestREADMECommands keeps README.md's list of supported commands in step
// with the command table.
func TestREADMECommands(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i, j := strings.Index(s, commandsBegin), strings.Index(s, commandsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the generated command list between %q and %q", commandsBegin, commandsEnd)
	}
	want := commandList()
	got := s[i+len(commandsBegin)+1 : j]
	if got == want {
		return
	}
	if os.Getenv("LIMITKV_UPDATE_README") == "1" {
		s = s[:i+len(commandsBegin)+1] + want + s[j:]
		if err := os.WriteFile("README.md", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's command list is out of date with the command table; run LIMITKV_UPDATE_README=1 go test -run TestREADMECommands .\nwant:\n%s", want)
}

// TestREADMELayout holds README's Layout to the tree: every Go package is
// listed (those below internal/third_party/gopherlua/ and bench/ go with
// their parent's line), and every listed path exists.
func TestREADMELayout(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		f := strings.Fields(line)
		if !strings.HasPrefix(line, "    ") || len(f) == 0 || !strings.HasSuffix(f[0], "/") && !strings.HasSuffix(f[0], ".go") {
			continue
		}
		p := strings.TrimSuffix(f[0], "/")
		if _, err := os.Stat(p); err != nil {
			t.Errorf("README's Layout lists %s, which does not exist", f[0])
		}
		listed[p] = true
	}
	grouped := []string{"internal/third_party/gopherlua/", "bench/"}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." || listed[dir] {
			return nil
		}
		for _, g := range grouped {
			if strings.HasPrefix(dir+"/", g) {
				return nil
			}
		}
		listed[dir] = true // report each package once
		t.Errorf("package %s/ is missing from README's Layout", dir)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
