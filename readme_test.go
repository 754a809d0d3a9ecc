package limitkv

import (
	"os"
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
