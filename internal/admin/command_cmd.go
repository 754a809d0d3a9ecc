package admin

import (
	"github.com/limitkv/limitkv/internal/keyspec"
	"slices"
	"strings"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/glob"
	"github.com/limitkv/limitkv/internal/resp"
)

// COMMAND: COUNT, INFO, DOCS, LIST, GETKEYS, GETKEYSANDFLAGS, HELP.
//
// For a command Redis has, COMMAND INFO and COMMAND DOCS splice Redis's own
// reply (commanddocs_gen.go, written by internal/gendocs from a real
// redis-server), so they are byte-identical to Redis's; a container lists only
// the subcommands limitkv implements. Commands Redis does not have (RL.* and
// CLIENT SETINFO, which is Redis 7.2's) get entries built from their Command
// fields. Redis lists commands in hash order, which changes from run to run;
// limitkv lists them sorted by name.
var CommandCommand = &engine.Command{
	Name: "command", Arity: -1, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommand,
	Sub: map[string]*engine.Command{
		"count":           {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommandCount},
		"info":            {Arity: -2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommandInfo},
		"docs":            {Arity: -2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommandDocs},
		"list":            {Arity: -2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommandList},
		"getkeys":         {Arity: -4, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommandGetKeys},
		"getkeysandflags": {Arity: -4, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommandGetKeysAndFlags},
		"help":            {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdCommandHelp},
	},
}

func cmdCommand(x *engine.Ctx) {
	all := engine.All()
	x.W.Array(len(all))
	for _, c := range all {
		writeCommandInfo(x.W, c)
	}
}

func cmdCommandCount(x *engine.Ctx) { x.W.Int(int64(len(engine.Table))) }

func cmdCommandInfo(x *engine.Ctx) {
	if len(x.Args) == 2 {
		cmdCommand(x)
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, a := range x.Args[2:] {
		if c := engine.CommandByFullName(string(a)); c != nil {
			writeCommandInfo(x.W, c)
		} else {
			x.W.Null()
		}
	}
}

func cmdCommandDocs(x *engine.Ctx) {
	var cmds []*engine.Command
	if len(x.Args) == 2 {
		cmds = engine.All()
	} else {
		for _, a := range x.Args[2:] {
			if c := engine.CommandByFullName(string(a)); c != nil {
				cmds = append(cmds, c)
			}
		}
	}
	x.W.Map(len(cmds))
	for _, c := range cmds {
		x.W.BulkString(c.Name)
		writeCommandDocs(x.W, c)
	}
}

// writeCommandInfo writes c's COMMAND INFO entry (Redis 7.0's ten elements).
func writeCommandInfo(w *resp.Writer, c *engine.Command) {
	w.Array(10)
	if d, ok := engine.RedisDocs[c.Name]; ok {
		if w.RESP3() {
			w.Raw([]byte(d.Info3))
		} else {
			w.Raw([]byte(d.Info))
		}
	} else {
		writeBuiltInfo(w, c)
	}
	subs := engine.SortedSubs(c)
	w.Set(len(subs)) // a set in RESP3, as Redis's
	for _, s := range subs {
		writeCommandInfo(w, s)
	}
}

// writeCommandDocs writes c's COMMAND DOCS map.
func writeCommandDocs(w *resp.Writer, c *engine.Command) {
	subs := engine.SortedSubs(c)
	extra := 0
	if len(subs) > 0 {
		extra = 1
	}
	if d, ok := engine.RedisDocs[c.Name]; ok {
		w.Map(d.DocsLen/2 + extra)
		if w.RESP3() {
			w.Raw([]byte(d.Docs3))
		} else {
			w.Raw([]byte(d.Docs))
		}
	} else {
		n, body := builtDocs(c, w.RESP3())
		w.Map(n/2 + extra)
		w.Raw(body)
	}
	if len(subs) > 0 {
		w.BulkString("subcommands")
		w.Map(len(subs))
		for _, s := range subs {
			w.BulkString(s.Name)
			writeCommandDocs(w, s)
		}
	}
}

// writeBuiltInfo writes the first nine COMMAND INFO elements for a command
// Redis does not have, from its table entry.
func writeBuiltInfo(w *resp.Writer, c *engine.Command) {
	w.BulkString(c.Name)
	w.Int(int64(c.Arity))
	flags := c.Flags.Names()
	w.Set(len(flags))
	for _, f := range flags {
		w.Simple(f)
	}
	w.Int(int64(c.FirstKey))
	w.Int(int64(c.LastKey))
	w.Int(int64(c.Step))
	cats := engine.AclCategories(c)
	w.Set(len(cats))
	for _, cat := range cats {
		w.Simple("@" + cat)
	}
	w.Set(0) // tips
	if c.FirstKey <= 0 {
		w.Array(0)
		return
	}
	// One key spec equivalent to the legacy (first, last, step) triple.
	w.Array(1)
	w.Map(3)
	w.BulkString("flags")
	switch {
	case c.Flags&engine.FlagWrite != 0:
		w.Set(2)
		w.Simple("RW")
		w.Simple("update")
	default:
		w.Set(2)
		w.Simple("RO")
		w.Simple("access")
	}
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("index")
	w.BulkString("spec")
	w.Map(1)
	w.BulkString("index")
	w.Int(int64(c.FirstKey))
	last := c.LastKey
	if last >= 0 {
		last -= c.FirstKey
	}
	step := max(c.Step, 1)
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("range")
	w.BulkString("spec")
	w.Map(3)
	w.BulkString("lastkey")
	w.Int(int64(last))
	w.BulkString("keystep")
	w.Int(int64(step))
	w.BulkString("limit")
	w.Int(0)
}

// builtDocs returns the COMMAND DOCS map body of a command Redis does not
// have and its element count (two per pair), in RESP3 if resp3.
func builtDocs(c *engine.Command, resp3 bool) (int, []byte) {
	var w resp.Writer
	w.SetRESP3(resp3)
	n := 0
	pair := func(k, v string) {
		if v != "" {
			w.BulkString(k)
			w.BulkString(v)
			n += 2
		}
	}
	pair("summary", c.Summary)
	pair("since", c.Since)
	pair("group", c.Group)
	pair("complexity", c.Complexity)
	args := c.Args
	if args == nil {
		args = engine.BuiltDocArgs[c.Name]
	}
	if len(args) > 0 {
		w.BulkString("arguments")
		writeDocArgs(&w, args)
		n += 2
	}
	return n, w.Bytes()
}

func writeDocArgs(w *resp.Writer, args []engine.DocArg) {
	w.Array(len(args))
	for _, a := range args {
		n := 4
		if a.Type == "key" {
			n += 2
		}
		if a.Token != "" {
			n += 2
		}
		if len(a.Flags) > 0 {
			n += 2
		}
		if len(a.Args) > 0 {
			n += 2
		}
		w.Map(n / 2)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(a.Type)
		if a.Type == "key" { // limitkv's own commands have one key spec
			w.BulkString("key_spec_index")
			w.Int(0)
		}
		if a.Token != "" {
			w.BulkString("token")
			w.BulkString(a.Token)
		}
		if len(a.Flags) > 0 {
			w.BulkString("flags")
			w.Set(len(a.Flags))
			for _, f := range a.Flags {
				w.Simple(f)
			}
		}
		if len(a.Args) > 0 {
			w.BulkString("arguments")
			writeDocArgs(w, a.Args)
		}
	}
}

func cmdCommandList(x *engine.Ctx) {
	type filter struct {
		kind, arg string
	}
	var f *filter
	args := x.Args
	for i := 2; i < len(args); i++ {
		if strings.EqualFold(x.Arg(i), "filterby") && len(args)-1-i == 2 {
			kind := strings.ToLower(x.Arg(i + 1))
			switch kind {
			case "module", "aclcat", "pattern":
			default:
				x.W.Error(engine.ErrSyntax)
				return
			}
			f = &filter{kind, x.Arg(i + 2)}
			i += 2
			continue
		}
		x.W.Error(engine.ErrSyntax)
		return
	}
	keep := func(c *engine.Command) bool {
		if f == nil {
			return true
		}
		switch f.kind {
		case "module":
			return false // no modules
		case "aclcat":
			for _, cat := range engine.CommandCategories(c) {
				if strings.EqualFold(cat, f.arg) {
					return true
				}
			}
			return false
		default:
			return glob.Match([]byte(f.arg), c.Name, true)
		}
	}
	var names []string
	var walk func(c *engine.Command)
	walk = func(c *engine.Command) {
		if keep(c) {
			names = append(names, c.Name)
		}
		for _, s := range engine.SortedSubs(c) {
			walk(s)
		}
	}
	for _, c := range engine.All() {
		walk(c)
	}
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
}

var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

func cmdCommandHelp(x *engine.Ctx) { engine.WriteHelp(x, commandHelp) }

func cmdCommandGetKeys(x *engine.Ctx) { commandGetKeys(x, false) }

func cmdCommandGetKeysAndFlags(x *engine.Ctx) { commandGetKeys(x, true) }

// commandGetKeys is COMMAND GETKEYS / GETKEYSANDFLAGS from the key specs.
// Redis falls back to per-command code for the few commands whose specs are
// incomplete (SORT, MIGRATE...); limitkv has SORT's (sortGetKeys).
func commandGetKeys(x *engine.Ctx, withFlags bool) {
	args := x.Args[2:]
	c := engine.Lookup(args[0])
	if c != nil && c.Sub != nil && len(args) > 1 {
		c = engine.LookupSub(c, args[1])
	}
	if c == nil {
		x.W.Error(ErrInvalidCommand)
		return
	}
	specs, cmdFlags := engine.CommandKeySpecs(c)
	hasKeys := false
	for _, s := range specs {
		if !slices.Contains(s.Flags, "not_key") {
			hasKeys = true
		}
	}
	if !hasKeys {
		x.W.Error(ErrGetKeysNoKeys)
		return
	}
	if !engine.ArityOK(c.Arity, len(args)) {
		x.W.Error(ErrGetKeysArity)
		return
	}
	keys, ok := keyspec.FromSpecs(specs, args)
	if c.Name == "sort" || c.Name == "sort_ro" {
		// Their specs are incomplete (BY/GET patterns name keys from the
		// data, STORE can be anywhere): Redis asks their getkeys
		// procedures instead.
		keys, ok = keyspec.SortGetKeys(args, c.Name == "sort_ro"), true
	}
	if c.Name == "migrate" {
		keys, ok = keyspec.MigrateGetKeys(args), true
	}
	if !ok || len(keys) == 0 {
		if slices.Contains(cmdFlags, "no_mandatory_keys") {
			x.W.Array(0)
		} else {
			x.W.Error("ERR Invalid arguments specified for command")
		}
		return
	}
	for i, k := range keys {
		if slices.Contains(k.Flags, "variable_flags") {
			keys[i].Flags = keyspec.VariableKeyFlags(c.Name, args)
		}
	}
	x.W.Array(len(keys))
	for _, k := range keys {
		if !withFlags {
			x.W.Bulk(args[k.Pos])
			continue
		}
		x.W.Array(2)
		x.W.Bulk(args[k.Pos])
		x.W.Set(len(k.Flags))
		for _, f := range k.Flags {
			x.W.Simple(f)
		}
	}
}
