package commands

import (
	"bufio"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"
)

// docFlags reads the flags of a COMMAND INFO entry of redisDocs.
func docFlags(info string) []string {
	r := bufio.NewReader(strings.NewReader(info))
	line := func() string { l, _ := r.ReadString('\n'); return strings.TrimSuffix(l, "\r\n") }
	line() // $len of the name
	line() // name
	line() // arity
	n := 0
	if h := line(); strings.HasPrefix(h, "*") {
		for _, c := range h[1:] {
			n = n*10 + int(c-'0')
		}
	}
	var out []string
	for range n {
		out = append(out, strings.TrimPrefix(line(), "+"))
	}
	return out
}

// TestFlagsMatchRedis: the flags limitkv acts on (loading, stale, write,
// denyoom, noscript...) are those Redis 7.0 gives each command, so that a
// rule keyed on a flag (LOADING, OOM, scripts, MULTI) refuses exactly what
// Redis refuses. COMMAND INFO shows Redis's own entry, so a wrong flag in
// the table would otherwise go unseen there.
func TestFlagsMatchRedis(t *testing.T) {
	var names []string
	for name := range engine.Table {
		names = append(names, name)
	}
	sort.Strings(names)
	check := func(full string, c *engine.Command) {
		doc, ok := engine.RedisDocs[full]
		if !ok {
			return // limitkv's own command
		}
		// Only the flags the table has: movablekeys, no_multi and the
		// like are decided elsewhere (key specs, handlers).
		var want []string
		for _, f := range docFlags(doc.Info) {
			if slices.ContainsFunc(engine.FlagNames, func(n engine.FlagName) bool {
				return n.Name == f
			}) {
				want = append(want, f)
			}
		}
		got := c.Flags.Names()
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Errorf("%s: flags %v, Redis has %v", full, got, want)
		}
	}
	for _, name := range names {
		c := engine.Table[name]
		if c.Sub == nil {
			check(name, c)
			continue
		}
		check(name, c)
		for sub, sc := range c.Sub {
			check(name+"|"+sub, sc)
		}
	}
}
