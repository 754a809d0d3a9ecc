package admin

import (
	"net"
	"strings"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/glob"
)

// CONFIG GET/SET/RESETSTAT/REWRITE/HELP for the settings limitkv has, with
// Redis 7.0's parsing rules and error texts. Some settings exist only so
// that clients probing them get Redis's answer: databases and appendonly
// are fixed, and port and bind cannot move a listening server.
var ConfigCommand = &engine.Command{
	Name: "config", Arity: -2, Group: "server",
	Sub: map[string]*engine.Command{
		"get":       {Arity: -3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdConfigGet},
		"set":       {Arity: -4, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdConfigSet},
		"resetstat": {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdConfigResetStat},
		"rewrite":   {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdConfigRewrite},
		"help":      {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdConfigHelp},
	},
}

func cmdConfigGet(x *engine.Ctx) {
	type match struct {
		key string
		p   *config.ConfigParam
	}
	var out []match
	seen := func(k string) bool {
		for _, m := range out {
			if strings.EqualFold(m.key, k) {
				return true
			}
		}
		return false
	}
	for _, a := range x.Args[2:] {
		pat := string(a)
		if !strings.ContainsAny(pat, "[*?") {
			if seen(pat) {
				continue
			}
			if p, _ := config.ConfigLookup(pat); p != nil {
				out = append(out, match{pat, p})
			}
			continue
		}
		for i := range config.ConfigParams {
			p := &config.ConfigParams[i]
			if p.Hidden {
				continue // hidden settings need their exact name, as in Redis
			}
			for _, k := range []string{p.Name, p.Alias} {
				if k != "" && !seen(k) && glob.Match(a, k, true) {
					out = append(out, match{k, p})
				}
			}
		}
	}
	x.W.Map(len(out))
	for _, m := range out {
		x.W.BulkString(m.key)
		x.W.BulkString(m.p.Get(x.E.Cfg))
	}
}

// cmdConfigSet validates every pair before storing any, so a failed CONFIG
// SET changes nothing, as Redis restores its backup on any failure.
func cmdConfigSet(x *engine.Ctx) {
	args := x.Args
	if len(args)%2 != 0 {
		x.W.Error(engine.ErrSyntax)
		return
	}
	cfg := x.E.Cfg
	n := (len(args) - 2) / 2
	params := make([]*config.ConfigParam, n)
	names := make([]string, n)
	var unknown, errArg, errStr string
	failed := false
	for i := range n {
		raw := string(args[2+2*i])
		p, canon := config.ConfigLookup(raw)
		if p == nil {
			if !failed {
				unknown = raw
				failed = true
			}
			continue
		}
		if failed {
			continue
		}
		if p.Immutable {
			errArg, errStr, failed = raw, "can't set immutable config", true
			continue
		}
		if p.Protected && !protectedAllowed(cfg.Stored("enable-protected-configs"), x.C) {
			errArg, errStr, failed = raw, "can't set protected config", true
			continue
		}
		for j := range i {
			if params[j] == p && names[j] == canon {
				errArg, errStr, failed = raw, "duplicate parameter", true
				break
			}
		}
		params[i], names[i] = p, canon
	}
	fail := func() {
		if unknown != "" {
			x.W.Error(errConfigSetUnknown + unknown + "'")
		} else {
			x.W.Error("ERR CONFIG SET failed (possibly related to argument '" + errArg + "') - " + errStr)
		}
	}
	if failed {
		fail()
		return
	}
	stores := make([]func(), n)
	for i := range n {
		store, err := params[i].Parse(cfg, string(args[3+2*i]))
		if err != "" {
			errArg, errStr = names[i], err
			fail()
			return
		}
		stores[i] = store
	}
	for i := range n {
		if params[i].Check == nil {
			continue
		}
		if err := params[i].Check(cfg, string(args[3+2*i])); err != "" {
			errArg, errStr = params[i].Name, err
			fail()
			return
		}
	}
	for _, s := range stores {
		s()
	}
	if err := durability.AofConfigApplied(x.E); err != "" {
		errArg, errStr = "appendonly", err
		fail()
		return
	}
	x.W.OK()
}

func cmdConfigResetStat(x *engine.Ctx) {
	e := x.E
	st := &e.Stats
	st.Commands = 0
	st.Connections.Store(0)
	st.RejectedConns.Store(0)
	st.KeyspaceHits, st.KeyspaceMisses = 0, 0
	st.EvictedKeys = 0
	st.NetInput.Store(0)
	st.NetOutput.Store(0)
	st.ExpiredStalePerc = 0
	st.ExpireCycleMicros = 0
	for i := range config.NumDBs {
		e.DB(i).Expired = 0
	}
	e.MemPeak = 0
	e.Ops = engine.OpsSample{}
	e.ResetCmdStats()
	x.W.OK()
}

// cmdConfigRewrite rewrites the file the server started from through the
// hook the binary installs (internal/config); servers started without a
// file (embedded ones, a binary given only flags) have none.
func cmdConfigRewrite(x *engine.Ctx) {
	rw := x.E.Cfg.Rewrite
	if rw == nil {
		x.W.Error(ErrNoConfigFile)
		return
	}
	if err := rw(); err != nil {
		x.E.Log.Warn("CONFIG REWRITE failed", "err", err)
		x.W.Error("ERR Rewriting config file: " + err.Error())
		return
	}
	x.E.Log.Info("CONFIG REWRITE executed with success.")
	x.W.OK()
}

var configHelp = []string{
	"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
	"HELP",
	"    Prints this help.",
}

func cmdConfigHelp(x *engine.Ctx) { engine.WriteHelp(x, configHelp) }

// protectedAllowed is allowProtectedAction for enable-protected-configs
// (and enable-module-command's kind): "local" admits loopback clients.
func protectedAllowed(setting string, c *engine.Client) bool {
	switch setting {
	case "yes":
		return true
	case "local":
		if c == nil {
			return false
		}
		host, _, err := net.SplitHostPort(c.Addr)
		if err != nil {
			host = c.Addr
		}
		return host == "127.0.0.1" || host == "::1"
	}
	return false
}
