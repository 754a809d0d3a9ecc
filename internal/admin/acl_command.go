package admin

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/num"
)

var aclCommand = &engine.Command{
	Name: "acl", Arity: -2, Group: "server",
	Sub: map[string]*engine.Command{
		"cat":     {Arity: -2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLCat},
		"deluser": {Arity: -3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLDelUser},
		"dryrun":  {Arity: -4, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLDryRun},
		"genpass": {Arity: -2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLGenPass},
		"getuser": {Arity: 3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLGetUser},
		"help":    {Arity: 2, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLHelp},
		"list":    {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLList},
		"load":    {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLLoad},
		"log":     {Arity: -2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLLog},
		"save":    {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLSave},
		"setuser": {Arity: -3, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLSetUser},
		"users":   {Arity: 2, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLUsers},
		"whoami":  {Arity: 2, Flags: engine.FlagNoScript | engine.FlagLoading | engine.FlagStale, Group: "server", Handler: cmdACLWhoAmI},
	},
}

func cmdACLSetUser(x *engine.Ctx) {
	name := x.Arg(2)
	if !acl.ValidName(name) {
		x.W.Error("ERR Usernames can't contain spaces or null characters")
		return
	}
	rules := make([]string, 0, len(x.Args)-3)
	for _, a := range x.Args[3:] {
		rules = append(rules, string(a))
	}
	reg := x.E.Users()
	u, old, err := reg.SetUser(name, rules)
	if err != nil {
		x.W.Error("ERR " + safeError(err.Error()))
		return
	}
	if old != nil {
		x.E.DropRevokedSubscribers(x, u)
	}
	if u == reg.Default {
		x.E.Cfg.SyncDefaultAuth()
	}
	x.W.OK()
}

// safeError is addReplyErrorSdsSafe: newlines in an error become spaces.
func safeError(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

func cmdACLDelUser(x *engine.Ctx) {
	for _, a := range x.Args[2:] {
		if string(a) == "default" {
			x.W.Error("ERR The 'default' user cannot be removed")
			return
		}
	}
	n := 0
	for _, a := range x.Args[2:] {
		if u := x.E.Users().Delete(string(a)); u != nil {
			x.E.UserGone(x, u)
			n++
		}
	}
	x.W.Int(int64(n))
}

func cmdACLGetUser(x *engine.Ctx) {
	u := x.E.Users().User(x.Arg(2))
	if u == nil {
		x.W.Null()
		return
	}
	sels := u.Selectors()
	w := x.W
	w.Map(6)
	w.BulkString("flags")
	flags := u.Flags()
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	w.Array(len(u.Passwords()))
	for _, p := range u.Passwords() {
		w.BulkString(p)
	}
	writeSel := func(s acl.SelectorInfo) {
		w.BulkString("commands")
		w.BulkString(s.Commands)
		w.BulkString("keys")
		w.BulkString(s.Keys)
		w.BulkString("channels")
		w.BulkString(s.Channels)
	}
	writeSel(sels[0])
	w.BulkString("selectors")
	w.Array(len(sels) - 1)
	for _, s := range sels[1:] {
		w.Map(3)
		writeSel(s)
	}
}

func cmdACLList(x *engine.Ctx) {
	users := x.E.Users().Users()
	x.W.Array(len(users))
	for _, u := range users {
		x.W.BulkString("user " + u.Name + " " + u.Describe())
	}
}

func cmdACLUsers(x *engine.Ctx) {
	users := x.E.Users().Users()
	x.W.Array(len(users))
	for _, u := range users {
		x.W.BulkString(u.Name)
	}
}

func cmdACLWhoAmI(x *engine.Ctx) { x.W.BulkString(x.C.UserName()) }

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

func cmdACLLoad(x *engine.Ctx) {
	name := *x.E.Cfg.ACLFile.Load()
	if name == "" {
		x.W.Error(errNoACLFile)
		return
	}
	if err := x.E.LoadACLFile(x, name); err != nil {
		x.W.Error("ERR " + safeError(err.Error()))
		return
	}
	x.W.OK()
}

func cmdACLSave(x *engine.Ctx) {
	name := *x.E.Cfg.ACLFile.Load()
	if name == "" {
		x.W.Error(errNoACLFile)
		return
	}
	tmp := x.E.AclPath(name) + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(x.Now, 10)
	err := os.WriteFile(tmp, []byte(x.E.Users().Save()), 0o644)
	if err == nil {
		err = os.Rename(tmp, x.E.AclPath(name))
	}
	if err != nil {
		os.Remove(tmp)
		x.E.Log.Warn("ACL SAVE failed", "err", err)
		x.W.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	x.W.OK()
}

func cmdACLCat(x *engine.Ctx) {
	if len(x.Args) == 2 {
		x.W.Array(len(acl.Categories))
		for _, c := range acl.Categories {
			x.W.BulkString(c)
		}
		return
	}
	if len(x.Args) != 3 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	names, ok := config.AclTable.InCategory(x.Arg(2))
	if !ok {
		x.W.Error("ERR Unknown category '" + string(engine.Trunc(engine.Cstr(x.Args[2]), 128)) + "'")
		return
	}
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
}

func cmdACLGenPass(x *engine.Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	bits := int64(256)
	if len(x.Args) == 3 {
		n, ok := num.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		x.W.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
		return
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	_, _ = rand.Read(buf)
	x.W.BulkString(hex.EncodeToString(buf)[:chars])
}

func cmdACLLog(x *engine.Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	log := &x.E.Users().Log
	count := int64(10)
	if len(x.Args) == 3 {
		if strings.EqualFold(x.Arg(2), "reset") {
			log.Reset()
			x.W.OK()
			return
		}
		n, ok := num.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(engine.ErrNotInt)
			return
		}
		count = max(n, 0)
	}
	entries := log.Entries(int(min(count, 1<<30)))
	now := x.E.Clock.Now().UnixMilli()
	w := x.W
	w.Array(len(entries))
	for _, le := range entries {
		w.Map(7)
		w.BulkString("count")
		w.Int(le.Count)
		w.BulkString("reason")
		w.BulkString(le.Reason.ReasonName())
		w.BulkString("context")
		w.BulkString(le.Context.String())
		w.BulkString("object")
		w.BulkString(le.Object)
		w.BulkString("username")
		w.BulkString(le.Username)
		w.BulkString("age-seconds")
		w.Double(float64(now-le.CTime) / 1000)
		w.BulkString("client-info")
		w.BulkString(le.ClientInfo)
	}
}

func cmdACLDryRun(x *engine.Ctx) {
	u := x.E.Users().User(x.Arg(2))
	if u == nil {
		x.W.Error("ERR User '" + x.Arg(2) + "' not found")
		return
	}
	args := x.Args[3:]
	// Redis's lookupCommand: a container alone is the container.
	cmd := engine.Lookup(args[0])
	if cmd != nil && cmd.Sub != nil && len(args) >= 2 {
		cmd = engine.LookupSub(cmd, args[1])
	}
	if cmd == nil {
		x.W.Error("ERR Command '" + string(args[0]) + "' not found")
		return
	}
	if !engine.ArityOK(cmd.Arity, len(args)) {
		x.W.Error(engine.ErrWrongArgs(cmd.Name))
		return
	}
	res, pos := engine.AclCheck(u, cmd, args)
	switch res {
	case acl.OK:
		x.W.OK()
	case acl.DeniedCommand:
		x.W.BulkString("This user has no permissions to run the '" + cmd.Name + "' command")
	case acl.DeniedKey:
		x.W.BulkString("This user has no permissions to access the '" + string(args[pos]) + "' key")
	default:
		x.W.BulkString("This user has no permissions to access the '" + string(args[pos]) + "' channel")
	}
}

var aclHelp = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}

func cmdACLHelp(x *engine.Ctx) { engine.WriteHelp(x, aclHelp) }
