package engine

//go:generate go run ./internal/gendocs -out commanddocs_gen.go

import (
	"github.com/limitkv/limitkv/internal/keyspec"
	"sort"
	"strconv"
	"strings"
)

// redisDoc is one command's entries as Redis 7.0 answers them, minus the
// subcommands, which are assembled from limitkv's own table.
type redisDoc struct {
	Info    string // raw RESP of the first 9 elements of the COMMAND INFO entry (name ... key specs)
	Docs    string // raw RESP of the COMMAND DOCS map's key/value elements, "subcommands" excluded
	Info3   string // info and docs as a RESP3 client gets them (maps, sets)
	Docs3   string
	DocsLen int    // number of RESP elements in docs
	cats    string // ACL categories without "@", space separated (COMMAND LIST FILTERBY ACLCAT)
}

// commandByFullName finds "name" or "container|sub", as Redis's
// lookupCommandBySds: one level of subcommands, any case.
func CommandByFullName(name string) *Command {
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

func SortedSubs(c *Command) []*Command {
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

// aclCategories derives a command's ACL categories from its flags and group,
// as Redis's setImplicitACLCategories does for its own table, in Redis's
// category order.
func AclCategories(c *Command) []string {
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
var BuiltDocArgs = map[string][]DocArg{
	"client|setinfo": {{Name: "attr", Type: "oneof", Args: []DocArg{
		{Name: "libname", Type: "string", Token: "LIB-NAME"},
		{Name: "libver", Type: "string", Token: "LIB-VER"},
	}}},
}

// commandCategories is c's ACL categories (without "@").
func CommandCategories(c *Command) []string {
	if d, ok := RedisDocs[c.Name]; ok {
		return strings.Fields(d.cats)
	}
	return AclCategories(c)
}

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

// commandKeySpecs returns c's key specs: Redis's own for its commands, one
// range spec from the table for the others.
func CommandKeySpecs(c *Command) (specs []keyspec.KeySpec, cmdFlags []string) {
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
		return []keyspec.KeySpec{{Flags: fl, BsIndex: c.FirstKey, FkRange: true, LastKey: last, Step: max(c.Step, 1)}}, c.Flags.Names()
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
		var ks keyspec.KeySpec
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
			ks.Unknown = true
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
			ks.Unknown = true
		}
		specs = append(specs, ks)
	}
	return specs, cmdFlags
}
