package config

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/limitkv/limitkv/internal/sdsargs"
)

// This file is the config table's door for redis.conf and the command line
// (internal/config): the same parse functions and error texts as CONFIG SET,
// with the settings CONFIG SET refuses once the server serves (port, bind,
// dir, dbfilename, rdbchecksum, databases) settable before it starts.

// LoadState carries what applying a config file remembers between lines: a
// file's save lines add up (Redis resets the defaults at the first one only).
type LoadState struct{ saveLoaded bool }

// ApplyDirective sets one redis.conf directive (name any case, args the
// words after it) as redis-server's loadServerConfigFromString would.
// known is false when the table has no such setting; errstr is Redis's
// reason for refusing the value.
func (c *Config) ApplyDirective(name string, args []string, st *LoadState) (known bool, errstr string) {
	if name == "user" && len(args) >= 1 {
		return true, c.appendConfigUser(args) // acl.go
	}
	if strings.EqualFold(name, "replicaof") || strings.EqualFold(name, "slaveof") {
		if len(args) == 1 {
			args = strings.Fields(args[0]) // the embedded API's one value, "host port"
		}
		if len(args) != 2 {
			return true, "wrong number of arguments"
		}
		if strings.EqualFold(args[0], "no") && strings.EqualFold(args[1], "one") {
			c.Replicaof.Store(Ptr(""))
			return true, ""
		}
		if port, err := strconv.Atoi(args[1]); err != nil || port < 0 || port > 65535 {
			return true, "Invalid master port"
		}
		c.Replicaof.Store(Ptr(args[0] + " " + args[1]))
		return true, ""
	}
	p, _ := ConfigLookup(name)
	if p == nil {
		return false, ""
	}
	var v string
	switch {
	case !p.multi && len(args) != 1:
		return true, "wrong number of arguments"
	case p.multi && len(args) == 1 && args[0] != "":
		// "--save '3600 1 300 100'": one word holding several (Redis
		// splits it again).
		words, ok := SplitArgs(args[0])
		if !ok {
			return true, "Unbalanced quotes in configuration line"
		}
		v = strings.Join(words, " ")
	default:
		v = strings.Join(args, " ")
	}
	if p.Name == "save" && st != nil {
		sp, err := ParseSave(v)
		if err != "" {
			return true, err
		}
		if st.saveLoaded && v != "" {
			sp = append(append([]SavePoint(nil), c.SavePoints()...), sp...)
		}
		st.saveLoaded = true
		c.SetSavePoints(sp)
		return true, ""
	}
	if p.start != nil {
		return true, p.start(c, v)
	}
	if p.Parse == nil {
		return true, "can't set immutable config"
	}
	store, err := p.Parse(c, v)
	if err != "" {
		return true, err
	}
	store()
	return true, ""
}

// IsConfigName reports whether the config table (CONFIG GET/SET) has name,
// or an alias of it.
func IsConfigName(name string) bool {
	p, _ := ConfigLookup(name)
	return p != nil
}

// Directive is one setting's lines in a rewritten config file.
type Directive struct {
	Name    string
	Lines   []string
	Default bool // the value is Redis's default: not appended if absent
	// Force, if set, says line by line whether it is appended when the
	// file lacks it (client-output-buffer-limit decides per class).
	Force []bool
}

// CanonicalConfigName is the table's name for name or its alias ("" if
// the table has neither), as CONFIG REWRITE files an alias's line.
func CanonicalConfigName(name string) string {
	p, _ := ConfigLookup(name)
	if p == nil {
		return ""
	}
	return p.Name
}

// Directives returns every setting's redis.conf lines, in table order, as
// CONFIG REWRITE writes them. Settings limitkv only pretends to have
// (appendonly) are left out, as are fixed ones whose line cannot change.
func (c *Config) Directives() []Directive {
	def := DefaultConfig()
	def.Dir.Store(Ptr(""))
	out := make([]Directive, 0, len(ConfigParams))
	for i := range ConfigParams {
		p := &ConfigParams[i]
		switch p.Name {
		case "databases", "rdbchecksum":
			if p.Get(c) == p.Get(def) {
				continue
			}
		}
		lines := []string{p.Name + " " + p.Get(c)}
		if p.rewrite != nil {
			lines = p.rewrite(c)
		}
		d := Directive{Name: p.Name, Lines: lines, Default: p.Get(c) == p.Get(def)}
		if p.Name == "save" {
			d.Default = false // Redis always writes save (rewriteConfigSaveOption)
		}
		if p.Name == "bind" {
			// Against Redis's default, not limitkv's loopback one: the
			// file then keeps the address for redis-server too.
			d.Default = c.Bind == "* -::*"
		}
		if p.Name == "client-output-buffer-limit" {
			d.Lines, d.Force = rewriteOutputLimits(c)
		}
		out = append(out, d)
	}
	// rewriteConfigReplicaOfOption: the line for a replica, none (and the
	// old lines removed) for a master.
	ro := Directive{Name: "replicaof", Default: true}
	if v := *c.Replicaof.Load(); v != "" {
		ro.Lines, ro.Default = []string{"replicaof " + v}, false
	}
	out = append(out, ro)
	return append(out, c.userDirective()) // acl.go
}

// formatMemory is rewriteConfigFormatMemory: the largest of gb, mb, kb that
// divides n.
func formatMemory(n int64) string {
	const kb, mb, gb = 1 << 10, 1 << 20, 1 << 30
	switch {
	case n != 0 && n%gb == 0:
		return strconv.FormatInt(n/gb, 10) + "gb"
	case n != 0 && n%mb == 0:
		return strconv.FormatInt(n/mb, 10) + "mb"
	case n != 0 && n%kb == 0:
		return strconv.FormatInt(n/kb, 10) + "kb"
	}
	return strconv.FormatInt(n, 10)
}

func rewriteSave(c *Config) []string {
	sp := c.SavePoints()
	if len(sp) == 0 {
		return []string{`save ""`}
	}
	lines := make([]string, len(sp))
	for i, p := range sp {
		lines[i] = "save " + strconv.FormatInt(p.Seconds, 10) + " " + strconv.FormatInt(p.Changes, 10)
	}
	return lines
}

// rewriteOutputLimits is one line per client class, each forced into the
// file only if it differs from Redis's default for the class.
func rewriteOutputLimits(c *Config) (lines []string, force []bool) {
	l, d := c.OutputLimits(), DefaultOutputLimits
	for _, cl := range []struct {
		name   string
		v, def OutputLimit
	}{{"normal", l.Normal, d.Normal}, {"replica", l.Replica, d.Replica}, {"pubsub", l.PubSub, d.PubSub}} {
		lines = append(lines, "client-output-buffer-limit "+cl.name+" "+formatMemory(int64(cl.v.Hard))+" "+
			formatMemory(int64(cl.v.Soft))+" "+strconv.FormatInt(cl.v.SoftSeconds, 10))
		force = append(force, cl.v != cl.def)
	}
	return lines, force
}

func startDir(c *Config, v string) string {
	if err := checkDir(v); err != "" {
		return err
	}
	if err := c.SetDir(v, ""); err != nil {
		return err.Error()
	}
	return ""
}

// checkDir is chdir's refusal, in strerror's words.
func checkDir(v string) string {
	st, err := os.Stat(v)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			if en, ok := pe.Err.(syscall.Errno); ok {
				return strerror(en)
			}
		}
		return err.Error()
	}
	if !st.IsDir() {
		return strerror(syscall.ENOTDIR)
	}
	return ""
}

func startDBFilename(c *Config, v string) string {
	if err := c.SetDir(*c.Dir.Load(), v); err != nil {
		return err.Error()
	}
	return ""
}

// strerror is C's strerror text: Go's errno strings are lower case.
func strerror(e syscall.Errno) string {
	s := e.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// QuoteArg is Redis's sdscatrepr: the value in double quotes, with \\, \",
// \n, \r, \t, \a, \b and \xHH for other unprintable bytes (as MONITOR
// quotes arguments).
func QuoteArg(s string) string { return string(AppendRepr(nil, []byte(s))) }

// SplitArgs is Redis's sdssplitargs: words separated by blanks, "..." with
// C escapes (\n, \xHH, ...) and '...' with \' only; a closing quote must be
// followed by a blank or the end. ok is false for unbalanced quotes.
func SplitArgs(line string) (args []string, ok bool) { return sdsargs.Split(line) }
