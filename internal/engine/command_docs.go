package engine

//go:generate go run ./internal/gendocs -out commanddocs_gen.go

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/glob"

	"github.com/limitkv/limitkv/internal/num"

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
var CommandCommand = &Command{
	Name: "command", Arity: -1, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommand,
	Sub: map[string]*Command{
		"count":           {Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommandCount},
		"info":            {Arity: -2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommandInfo},
		"docs":            {Arity: -2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommandDocs},
		"list":            {Arity: -2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommandList},
		"getkeys":         {Arity: -4, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommandGetKeys},
		"getkeysandflags": {Arity: -4, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommandGetKeysAndFlags},
		"help":            {Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdCommandHelp},
	},
}

// redisDoc is one command's entries as Redis 7.0 answers them, minus the
// subcommands, which are assembled from limitkv's own table.
type redisDoc struct {
	Info    string // raw RESP of the first 9 elements of the COMMAND INFO entry (name ... key specs)
	Docs    string // raw RESP of the COMMAND DOCS map's key/value elements, "subcommands" excluded
	info3   string // info and docs as a RESP3 client gets them (maps, sets)
	docs3   string
	DocsLen int    // number of RESP elements in docs
	cats    string // ACL categories without "@", space separated (COMMAND LIST FILTERBY ACLCAT)
}

// commandByFullName finds "name" or "container|sub", as Redis's
// lookupCommandBySds: one level of subcommands, any case.
func commandByFullName(name string) *Command {
	parts := strings.Split(name, "|")
	if name == "" || len(parts) > 2 {
		return nil
	}
	c := Lookup([]byte(parts[0]))
	if c == nil || len(parts) == 1 {
		return c
	}
	if c.Sub == nil {
		return nil
	}
	return LookupSub(c, []byte(parts[1]))
}

func sortedSubs(c *Command) []*Command {
	if len(c.Sub) == 0 {
		return nil
	}
	out := make([]*Command, 0, len(c.Sub))
	for _, s := range c.Sub {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func cmdCommand(x *Ctx) {
	all := All()
	x.W.Array(len(all))
	for _, c := range all {
		writeCommandInfo(x.W, c)
	}
}

func cmdCommandCount(x *Ctx) { x.W.Int(int64(len(Table))) }

func cmdCommandInfo(x *Ctx) {
	if len(x.Args) == 2 {
		cmdCommand(x)
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, a := range x.Args[2:] {
		if c := commandByFullName(string(a)); c != nil {
			writeCommandInfo(x.W, c)
		} else {
			x.W.Null()
		}
	}
}

func cmdCommandDocs(x *Ctx) {
	var cmds []*Command
	if len(x.Args) == 2 {
		cmds = All()
	} else {
		for _, a := range x.Args[2:] {
			if c := commandByFullName(string(a)); c != nil {
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
func writeCommandInfo(w *resp.Writer, c *Command) {
	w.Array(10)
	if d, ok := RedisDocs[c.Name]; ok {
		if w.RESP3() {
			w.Raw([]byte(d.info3))
		} else {
			w.Raw([]byte(d.Info))
		}
	} else {
		writeBuiltInfo(w, c)
	}
	subs := sortedSubs(c)
	w.Set(len(subs)) // a set in RESP3, as Redis's
	for _, s := range subs {
		writeCommandInfo(w, s)
	}
}

// writeCommandDocs writes c's COMMAND DOCS map.
func writeCommandDocs(w *resp.Writer, c *Command) {
	subs := sortedSubs(c)
	extra := 0
	if len(subs) > 0 {
		extra = 1
	}
	if d, ok := RedisDocs[c.Name]; ok {
		w.Map(d.DocsLen/2 + extra)
		if w.RESP3() {
			w.Raw([]byte(d.docs3))
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

// aclCategories derives a command's ACL categories from its flags and group,
// as Redis's setImplicitACLCategories does for its own table, in Redis's
// category order.
func aclCategories(c *Command) []string {
	has := map[string]bool{}
	switch c.Group {
	case "generic":
		has["keyspace"] = true
	case "string":
		has["string"] = true
	case "sorted-set":
		has["sortedset"] = true
	case "connection":
		has["connection"] = true
	case "transactions":
		has["transaction"] = true
	case "scripting":
		has["scripting"] = true
	}
	f := c.Flags
	if f&FlagWrite != 0 {
		has["write"] = true
	}
	if f&FlagReadOnly != 0 && !has["scripting"] {
		has["read"] = true
	}
	if f&FlagAdmin != 0 {
		has["admin"], has["dangerous"] = true, true
	}
	if f&FlagPubSub != 0 {
		has["pubsub"] = true
	}
	if f&FlagFast != 0 {
		has["fast"] = true
	} else {
		has["slow"] = true
	}
	if f&FlagBlocking != 0 {
		has["blocking"] = true
	}
	var out []string
	for _, cat := range aclCategoryOrder {
		if has[cat] {
			out = append(out, cat)
		}
	}
	return out
}

var aclCategoryOrder = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog",
	"geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
	"transaction", "scripting",
}

// writeBuiltInfo writes the first nine COMMAND INFO elements for a command
// Redis does not have, from its table entry.
func writeBuiltInfo(w *resp.Writer, c *Command) {
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
	cats := aclCategories(c)
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
	case c.Flags&FlagWrite != 0:
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

// DocArg describes one argument in COMMAND DOCS, for commands Redis does not
// document itself (Redis's argument fields, in its reply order).
type DocArg struct {
	Name  string
	Type  string // "key", "string", "integer", "double", "pure-token", "oneof", "block", ...
	Token string
	Flags []string // "optional", "multiple", "multiple_token"
	Args  []DocArg // for "oneof" and "block"
}

// builtDocArgs documents the arguments of commands that are not Redis's, so
// redis-cli can show hints for them.
var builtDocArgs = map[string][]DocArg{
	"client|setinfo": {{Name: "attr", Type: "oneof", Args: []DocArg{
		{Name: "libname", Type: "string", Token: "LIB-NAME"},
		{Name: "libver", Type: "string", Token: "LIB-VER"},
	}}},
}

// builtDocs returns the COMMAND DOCS map body of a command Redis does not
// have and its element count (two per pair), in RESP3 if resp3.
func builtDocs(c *Command, resp3 bool) (int, []byte) {
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
		args = builtDocArgs[c.Name]
	}
	if len(args) > 0 {
		w.BulkString("arguments")
		writeDocArgs(&w, args)
		n += 2
	}
	return n, w.Bytes()
}

func writeDocArgs(w *resp.Writer, args []DocArg) {
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

// commandCategories is c's ACL categories (without "@").
func commandCategories(c *Command) []string {
	if d, ok := RedisDocs[c.Name]; ok {
		return strings.Fields(d.cats)
	}
	return aclCategories(c)
}

func cmdCommandList(x *Ctx) {
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
				x.W.Error(ErrSyntax)
				return
			}
			f = &filter{kind, x.Arg(i + 2)}
			i += 2
			continue
		}
		x.W.Error(ErrSyntax)
		return
	}
	keep := func(c *Command) bool {
		if f == nil {
			return true
		}
		switch f.kind {
		case "module":
			return false // no modules
		case "aclcat":
			for _, cat := range commandCategories(c) {
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
	var walk func(c *Command)
	walk = func(c *Command) {
		if keep(c) {
			names = append(names, c.Name)
		}
		for _, s := range sortedSubs(c) {
			walk(s)
		}
	}
	for _, c := range All() {
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

func cmdCommandHelp(x *Ctx) { WriteHelp(x, commandHelp) }

// respVal is a parsed RESP2 value, for reading the key specs in redisDocs.
type respVal struct {
	typ   byte
	str   string
	N     int64
	elems []respVal
}

// parseRESP parses one RESP2 value from b and returns it and its length.
// It is only used on the generated data, which is well-formed.
func ParseRESP(b string) (respVal, int) {
	end := strings.Index(b, "\r\n")
	v := respVal{typ: b[0]}
	line := b[1:end]
	pos := end + 2
	switch v.typ {
	case '+', '-':
		v.str = line
	case ':':
		v.N, _ = strconv.ParseInt(line, 10, 64)
	case '$':
		n, _ := strconv.Atoi(line)
		if n >= 0 {
			v.str = b[pos : pos+n]
			pos += n + 2
		}
	case '*':
		n, _ := strconv.Atoi(line)
		for range max(n, 0) {
			el, m := ParseRESP(b[pos:])
			v.elems = append(v.elems, el)
			pos += m
		}
	}
	return v, pos
}

// field returns the value after key in a RESP2 flattened map.
func (v respVal) field(key string) respVal {
	for i := 0; i+1 < len(v.elems); i += 2 {
		if v.elems[i].str == key {
			return v.elems[i+1]
		}
	}
	return respVal{}
}

// keySpec is Redis 7.0's key specification of a command.
type KeySpec struct {
	Flags []string
	// begin_search
	BsIndex     int    // "index": position of the first key
	BsKeyword   string // "keyword": the key follows this word...
	BsStartFrom int    // ...searched from here (negative: from the end, backwards)
	// find_keys
	FkRange              bool
	LastKey, Step, Limit int // range
	KeyNumIdx, FirstKey  int // keynum (with step)
	unknown              bool
}

// commandKeySpecs returns c's key specs: Redis's own for its commands, one
// range spec from the table for the others.
func CommandKeySpecs(c *Command) (specs []KeySpec, cmdFlags []string) {
	d, ok := RedisDocs[c.Name]
	if !ok {
		if c.FirstKey <= 0 {
			return nil, c.Flags.Names()
		}
		fl := []string{"RO", "access"}
		if c.Flags&FlagWrite != 0 {
			fl = []string{"RW", "update"}
		}
		last := c.LastKey
		if last >= 0 {
			last -= c.FirstKey
		}
		return []KeySpec{{Flags: fl, BsIndex: c.FirstKey, FkRange: true, LastKey: last, Step: max(c.Step, 1)}}, c.Flags.Names()
	}
	info := d.Info
	var elems []respVal
	for pos := 0; pos < len(info); {
		v, n := ParseRESP(info[pos:])
		elems = append(elems, v)
		pos += n
	}
	for _, f := range elems[2].elems {
		cmdFlags = append(cmdFlags, f.str)
	}
	for _, s := range elems[8].elems {
		var ks KeySpec
		for _, f := range s.field("flags").elems {
			ks.Flags = append(ks.Flags, f.str)
		}
		bs, fk := s.field("begin_search"), s.field("find_keys")
		switch bs.field("type").str {
		case "index":
			ks.BsIndex = int(bs.field("spec").field("index").N)
		case "keyword":
			ks.BsKeyword = bs.field("spec").field("keyword").str
			ks.BsStartFrom = int(bs.field("spec").field("startfrom").N)
		default:
			ks.unknown = true
		}
		spec := fk.field("spec")
		switch fk.field("type").str {
		case "range":
			ks.FkRange = true
			ks.LastKey = int(spec.field("lastkey").N)
			ks.Step = int(spec.field("keystep").N)
			ks.Limit = int(spec.field("limit").N)
		case "keynum":
			ks.KeyNumIdx = int(spec.field("keynumidx").N)
			ks.FirstKey = int(spec.field("firstkey").N)
			ks.Step = int(spec.field("keystep").N)
		default:
			ks.unknown = true
		}
		specs = append(specs, ks)
	}
	return specs, cmdFlags
}

type keyRef struct {
	Pos   int
	flags []string
}

// keysFromSpecs is Redis's getKeysUsingKeySpecs: the positions of the keys in
// args, or ok false when the arguments do not fit the specs.
func KeysFromSpecs(specs []KeySpec, args [][]byte) (keys []keyRef, ok bool) {
	argc := len(args)
	for _, s := range specs {
		if slices.Contains(s.Flags, "not_key") {
			continue
		}
		if s.unknown {
			return nil, false
		}
		first := 0
		if s.BsKeyword == "" {
			first = s.BsIndex
		} else {
			start, end := s.BsStartFrom, 1
			if start > 0 {
				end = argc - 1
			} else {
				start = argc + s.BsStartFrom
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if strings.EqualFold(string(args[i]), s.BsKeyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue
			}
		}
		var last, step int
		if s.FkRange {
			step = s.Step
			switch {
			case s.LastKey >= 0:
				last = first + s.LastKey
			case s.Limit == 0:
				last = argc + s.LastKey
			default:
				last = first + ((argc-first)/s.Limit + s.LastKey)
			}
		} else {
			step = s.Step
			if s.KeyNumIdx >= argc || first+s.KeyNumIdx >= argc {
				return nil, false
			}
			n, ok := num.ParseInt(args[first+s.KeyNumIdx])
			if !ok || n < 0 || n > int64(argc) {
				return nil, false
			}
			first += s.FirstKey
			last = first + int(n) - 1
		}
		if last >= argc || last < first || first >= argc {
			return nil, false
		}
		for i := first; i <= last; i += max(step, 1) {
			keys = append(keys, keyRef{i, s.Flags})
		}
	}
	return keys, true
}

func cmdCommandGetKeys(x *Ctx)         { commandGetKeys(x, false) }
func cmdCommandGetKeysAndFlags(x *Ctx) { commandGetKeys(x, true) }

// commandGetKeys is COMMAND GETKEYS / GETKEYSANDFLAGS from the key specs.
// Redis falls back to per-command code for the few commands whose specs are
// incomplete (SORT, MIGRATE...); limitkv has SORT's (sortGetKeys).
func commandGetKeys(x *Ctx, withFlags bool) {
	args := x.Args[2:]
	c := Lookup(args[0])
	if c != nil && c.Sub != nil && len(args) > 1 {
		c = LookupSub(c, args[1])
	}
	if c == nil {
		x.W.Error(ErrInvalidCommand)
		return
	}
	specs, cmdFlags := CommandKeySpecs(c)
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
	if !ArityOK(c.Arity, len(args)) {
		x.W.Error(ErrGetKeysArity)
		return
	}
	keys, ok := KeysFromSpecs(specs, args)
	if c.Name == "sort" || c.Name == "sort_ro" {
		// Their specs are incomplete (BY/GET patterns name keys from the
		// data, STORE can be anywhere): Redis asks their getkeys
		// procedures instead.
		keys, ok = SortGetKeys(args, c.Name == "sort_ro"), true
	}
	if c.Name == "migrate" {
		keys, ok = migrateGetKeys(args), true
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
		if slices.Contains(k.flags, "variable_flags") {
			keys[i].flags = variableKeyFlags(c.Name, args)
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
		x.W.Set(len(k.flags))
		for _, f := range k.flags {
			x.W.Simple(f)
		}
	}
}

// variableKeyFlags is what Redis's getkeys procedures of SET and BITFIELD
// answer for the key's flags, which depend on the options.
func variableKeyFlags(name string, args [][]byte) []string {
	switch name {
	case "set":
		for _, a := range args[3:] {
			if strings.EqualFold(string(a), "get") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"OW", "update"}
	case "bitfield":
		for i := 2; i < len(args); i++ {
			rem := len(args) - i - 1
			switch a := strings.ToLower(string(args[i])); {
			case a == "get" && rem >= 2:
				i += 2
			case a == "overflow" && rem >= 1:
				i++
			default: // SET, INCRBY, or a syntax error: assume a write
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"RO", "access"}
	}
	return []string{"RW", "access", "update"}
}

// sortGetKeys is Redis's sortGetKeys for COMMAND GETKEYS: the sorted key,
// and the destination of the last STORE. Like Redis it skips the arguments
// of LIMIT, GET and BY but not STORE's, so "STORE STORE k" finds k. For
// SORT_RO (sortROGetKeys) it is the sorted key alone.
func SortGetKeys(args [][]byte, readonly bool) []keyRef {
	keys := []keyRef{{1, []string{"RO", "access"}}}
	if readonly {
		return keys
	}
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case AsciiEq(args[i], "limit"):
			i += 2
		case AsciiEq(args[i], "get"), AsciiEq(args[i], "by"):
			i++
		case AsciiEq(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		keys = append(keys, keyRef{store, []string{"OW", "update"}})
	}
	return keys
}

// migrateGetKeys is Redis's migrateGetKeys, which COMMAND GETKEYS uses
// since MIGRATE's key specs are incomplete: the key argument, or with
// KEYS the names after it (none if the key argument is not empty).
func migrateGetKeys(args [][]byte) []keyRef {
	first, n := 3, 1
	if len(args) > 6 {
	scan:
		for i := 6; i < len(args); i++ {
			switch {
			case CEqualFold(args[i], "keys"):
				if len(args[3]) > 0 {
					n = 0
				} else {
					first, n = i+1, len(args)-i-1
				}
				break scan
			case CEqualFold(args[i], "auth"):
				i++
			case CEqualFold(args[i], "auth2"):
				i += 2
			}
		}
	}
	keys := make([]keyRef, 0, n)
	for i := range n {
		keys = append(keys, keyRef{first + i, []string{"RW", "access", "delete"}})
	}
	return keys
}
