package engine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/acl"
	"github.com/limitkv/limitkv/internal/num"
)

// ACL: Redis 7.0's users and permissions (internal/acl decides; this file
// maps limitkv's command table onto it and answers the ACL family).
//
// Every connection holds its user. The dispatcher asks the user only when
// it is not Unrestricted (+@all ~* &* in its root selector, as the default
// user is unless changed), so a server without ACL rules pays one flag
// test per command.

// aclInfo is what the permission check needs of a command, computed once.
type aclInfo struct {
	Cmd      *acl.Command
	specs    []KeySpec
	hasKeys  bool
	chans    int8 // 0 none; chanSubscribe, chanPattern, chanPublish
	getKeysF func(args [][]byte) []keyRef
	// readsWrites: a write command of limitkv's own (RL.CHECK), whose
	// one key spec says only "update", but which answers what it read:
	// %W~ alone must not let a user learn a window's state.
	readsWrites bool
}

const (
	chanSubscribe = 1 + iota
	chanPattern
	chanPublish
)

// buildACLTable gives every command (subcommands too) its ACL id and
// categories: Redis's own from commanddocs_gen.go, derived from the flags
// for limitkv's commands (commandCategories).
func buildACLTable() {
	var mk func(c *Command) *acl.Command
	mk = func(c *Command) *acl.Command {
		var bits uint64
		for _, cat := range commandCategories(c) {
			bits |= acl.CategoryBit(cat)
		}
		a := &acl.Command{Name: c.Name, Cats: bits, NoAuth: c.Flags&FlagNoAuth != 0}
		info := &aclInfo{Cmd: a}
		info.specs, _ = CommandKeySpecs(c)
		for _, s := range info.specs {
			if !slices.Contains(s.Flags, "not_key") {
				info.hasKeys = true
			}
		}
		switch c.Name {
		case "sort", "sort_ro":
			ro := c.Name == "sort_ro"
			info.getKeysF = func(args [][]byte) []keyRef { return SortGetKeys(args, ro) }
		case "migrate":
			info.getKeysF = migrateGetKeys
		case "subscribe", "ssubscribe":
			info.chans = chanSubscribe
		case "psubscribe":
			info.chans = chanPattern
		case "publish", "spublish":
			info.chans = chanPublish
		}
		_, redis := RedisDocs[c.Name]
		info.readsWrites = !redis && c.Flags&FlagWrite != 0
		c.Acl = info
		for _, s := range sortedSubs(c) {
			a.Subs = append(a.Subs, mk(s))
		}
		return a
	}
	var top []*acl.Command
	for _, c := range All() {
		top = append(top, mk(c))
	}
	config.AclTable = acl.NewTable(top)
}

// users is the engine's ACL user set, which lives in its Config since
// requirepass is the default user's password.
func (e *Engine) Users() *acl.Registry { return e.Cfg.Users() }

// aclKeys lists the keys of cmd in args with the access each needs
// (Redis's getKeysFromCommandWithSpecs as ACL calls it).
func AclKeys(cmd *Command, args [][]byte) []acl.KeyRef {
	info := cmd.Acl
	var refs []keyRef
	if !ArityOK(cmd.Arity, len(args)) {
		return nil // redis.acl_check_cmd checks no arity; SORT's procedure needs it
	}
	if info.getKeysF != nil {
		refs = info.getKeysF(args)
	} else {
		var ok bool
		if refs, ok = KeysFromSpecs(info.specs, args); !ok {
			return nil
		}
	}
	out := make([]acl.KeyRef, 0, len(refs))
	for _, k := range refs {
		flags := k.flags
		if slices.Contains(flags, "variable_flags") {
			flags = variableKeyFlags(cmd.Name, args)
		}
		var need acl.Perm
		for _, f := range flags {
			switch f {
			case "access":
				need |= acl.PermRead
			case "insert", "delete", "update":
				need |= acl.PermWrite
			}
		}
		if info.readsWrites {
			need |= acl.PermRead
		}
		out = append(out, acl.KeyRef{Pos: k.Pos, Need: need})
	}
	return out
}

func aclChannels(kind int8, args [][]byte) []acl.ChanRef {
	if kind == chanPublish {
		if len(args) < 2 {
			return nil
		}
		return []acl.ChanRef{{Pos: 1}}
	}
	out := make([]acl.ChanRef, 0, len(args)-1)
	for i := 1; i < len(args); i++ {
		out = append(out, acl.ChanRef{Pos: i, Pattern: kind == chanPattern})
	}
	return out
}

// aclCheck is ACLCheckAllUserCommandPerm for u running cmd with args.
func aclCheck(u *acl.User, cmd *Command, args [][]byte) (acl.Result, int) {
	if u == nil || u.Unrestricted {
		return acl.OK, 0
	}
	info := cmd.Acl
	r := acl.Request{Cmd: info.Cmd, Args: args, HasKeys: info.hasKeys,
		Keys: func() []acl.KeyRef { return AclKeys(cmd, args) }}
	if info.chans != 0 {
		kind := info.chans
		r.Channels = func() []acl.ChanRef { return aclChannels(kind, args) }
	}
	return u.Check(&r)
}

// aclLog adds an ACL LOG entry for x's client. object "" is the refused
// command's name (or key/channel at pos).
func (e *Engine) aclLog(x *Ctx, res acl.Result, ctx acl.Context, cmd *Command, args [][]byte, pos int, user, object string) {
	c := x.C
	if user == "" {
		user = c.userName()
	}
	if object == "" {
		switch res {
		case acl.DeniedCommand:
			object = cmd.Name
		case acl.DeniedKey, acl.DeniedChannel:
			object = string(args[pos])
		case acl.DeniedAuth:
			object = string(args[0])
		}
	}
	info := string(x.AppendClientInfo(nil, c))
	e.Users().Log.Add(acl.LogEntry{Reason: res, Context: ctx, Object: object, Username: user,
		CTime: e.Clock.Now().UnixMilli(), ClientInfo: info}, e.Cfg.ACLLogMaxLen.Load())
}

// aclDenied checks a top-level (or queued) command, logging and answering
// a refusal. Called only for a restricted user.
func (e *Engine) aclDenied(x *Ctx, cmd *Command) bool {
	res, pos := aclCheck(x.C.User, cmd, x.Args)
	if res == acl.OK {
		return false
	}
	ctx := acl.CtxToplevel
	if x.C.Multi != nil {
		ctx = acl.CtxMulti
	}
	e.aclLog(x, res, ctx, cmd, x.Args, pos, "", "")
	switch res {
	case acl.DeniedCommand:
		e.rejectCmd(x, cmd, "NOPERM this user has no permissions to run the '"+cmd.Name+"' command")
	case acl.DeniedKey:
		e.rejectCmd(x, cmd, "NOPERM this user has no permissions to access one of the keys used as arguments")
	default:
		e.rejectCmd(x, cmd, "NOPERM this user has no permissions to access one of the channels used as arguments")
	}
	return true
}

// aclExecDenied is EXEC's re-check of a queued command, for rules changed
// since it was queued; it answers the refusal in the EXEC reply.
func (e *Engine) aclExecDenied(x *Ctx, cmd *Command, args [][]byte) bool {
	res, pos := aclCheck(x.C.User, cmd, args)
	if res == acl.OK {
		return false
	}
	e.aclLog(x, res, acl.CtxMulti, cmd, args, pos, "", "")
	reason := "no permission to execute the command or subcommand"
	switch res {
	case acl.DeniedKey:
		reason = "no permission to touch the specified keys"
	case acl.DeniedChannel:
		reason = "no permission to access one of the channels used as arguments"
	}
	x.W.Error("NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + reason)
	return true
}

// aclScriptDenied is scriptVerifyACL: the refusal text redis.call raises.
func (e *Engine) AclScriptDenied(x *Ctx, cmd *Command, args [][]byte) string {
	res, pos := aclCheck(x.C.User, cmd, args)
	if res == acl.OK {
		return ""
	}
	e.aclLog(x, res, acl.CtxLua, cmd, args, pos, "", "")
	switch res {
	case acl.DeniedCommand:
		return "The user executing the script can't run this command or subcommand"
	case acl.DeniedKey:
		return "The user executing the script can't access at least one of the keys mentioned in the command arguments"
	}
	return "The user executing the script can't publish to the channel mentioned in the command"
}

// userName is the client's user for CLIENT LIST and the log.
func (c *Client) subscriptionNames() (chans, pats, shards []string) {
	return c.subs.channels.Members(), c.subs.patterns.Members(), c.subs.shard.Members()
}

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// errnoText is strerror's wording of a file error ("No such file or
// directory"), which Go's errno texts give in lower case.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

func (c *Client) userName() string {
	if c.User == nil {
		return "default"
	}
	return c.User.Name
}

// authenticate is ACLAuthenticateUser: on success the client is that user.
func (e *Engine) Authenticate(x *Ctx, user, pass []byte) bool {
	u := e.Users().User(string(user))
	if u != nil && u.CheckPassword(pass) {
		x.C.Authed.Store(true)
		x.C.User = u
		return true
	}
	ctx := acl.CtxToplevel
	if x.C.Multi != nil {
		ctx = acl.CtxMulti
	}
	e.aclLog(x, acl.DeniedAuth, ctx, nil, x.Args, 0, string(user), "")
	return false
}

// setDefaultAuth is clientSetDefaultAuth: a new or RESET connection.
func (e *Engine) SetDefaultAuth(c *Client) {
	def := e.Users().Default
	c.User = def
	c.Authed.Store(!def.NeedsAuth())
}

// userGone is ACLFreeUserAndKillClients: the connections authenticated as
// u close (the caller after its reply).
func (e *Engine) userGone(x *Ctx, u *acl.User) {
	for _, c := range e.Clients {
		if c.User != u {
			continue
		}
		e.SetDefaultAuth(c)
		c.Authed.Store(false)
		if c == x.C {
			c.CloseAfterReply = true
		} else {
			e.KillClient(c)
		}
	}
}

// dropRevokedSubscribers is ACLKillPubsubClientsIfNeeded: after u's rules
// changed, its subscribers to a channel it may no longer use are closed.
func (e *Engine) dropRevokedSubscribers(x *Ctx, u *acl.User) {
	for _, c := range e.Clients {
		if c.User != u || !c.InPubSub() {
			continue
		}
		ok := true
		chans, pats, shards := c.subscriptionNames()
		for _, p := range pats {
			ok = ok && u.CanChannel(p, true)
		}
		for _, ch := range append(chans, shards...) {
			ok = ok && u.CanChannel(ch, false)
		}
		if !ok {
			if c == x.C {
				c.CloseAfterReply = true
			} else {
				e.KillClient(c)
			}
		}
	}
}

var aclCommand = &Command{
	Name: "acl", Arity: -2, Group: "server",
	Sub: map[string]*Command{
		"cat":     {Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLCat},
		"deluser": {Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLDelUser},
		"dryrun":  {Arity: -4, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLDryRun},
		"genpass": {Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLGenPass},
		"getuser": {Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLGetUser},
		"help":    {Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Handler: cmdACLHelp},
		"list":    {Arity: 2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLList},
		"load":    {Arity: 2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLLoad},
		"log":     {Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLLog},
		"save":    {Arity: 2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLSave},
		"setuser": {Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLSetUser},
		"users":   {Arity: 2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLUsers},
		"whoami":  {Arity: 2, Flags: FlagNoScript | FlagLoading | FlagStale, Group: "server", Handler: cmdACLWhoAmI},
	},
}

var aclCommands = []*Command{aclCommand}

func cmdACLSetUser(x *Ctx) {
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
		x.E.dropRevokedSubscribers(x, u)
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

func cmdACLDelUser(x *Ctx) {
	for _, a := range x.Args[2:] {
		if string(a) == "default" {
			x.W.Error("ERR The 'default' user cannot be removed")
			return
		}
	}
	n := 0
	for _, a := range x.Args[2:] {
		if u := x.E.Users().Delete(string(a)); u != nil {
			x.E.userGone(x, u)
			n++
		}
	}
	x.W.Int(int64(n))
}

func cmdACLGetUser(x *Ctx) {
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

func cmdACLList(x *Ctx) {
	users := x.E.Users().Users()
	x.W.Array(len(users))
	for _, u := range users {
		x.W.BulkString("user " + u.Name + " " + u.Describe())
	}
}

func cmdACLUsers(x *Ctx) {
	users := x.E.Users().Users()
	x.W.Array(len(users))
	for _, u := range users {
		x.W.BulkString(u.Name)
	}
}

func cmdACLWhoAmI(x *Ctx) { x.W.BulkString(x.C.userName()) }

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

func cmdACLLoad(x *Ctx) {
	name := *x.E.Cfg.ACLFile.Load()
	if name == "" {
		x.W.Error(errNoACLFile)
		return
	}
	if err := x.E.loadACLFile(x, name); err != nil {
		x.W.Error("ERR " + safeError(err.Error()))
		return
	}
	x.W.OK()
}

// loadACLFile is ACL LOAD (and the start-time load): the users are
// replaced only if the whole file is valid.
func (e *Engine) loadACLFile(x *Ctx, name string) error {
	data, err := os.ReadFile(e.aclPath(name))
	if err != nil {
		return errorf("Error loading ACLs, opening file '%s': %s", name, errnoText(err))
	}
	gone, err := e.Users().Load(string(data), name)
	if err != nil {
		return err
	}
	for _, u := range gone {
		if x != nil {
			e.userGone(x, u)
		}
	}
	e.Cfg.SyncDefaultAuth()
	return nil
}

// aclPath is where aclfile is: Redis, which works in its dir, reads a
// relative path from there (limitkv engines share a process and its
// working directory, so each resolves against its own dir).
func (e *Engine) aclPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(*e.Cfg.Dir.Load(), name)
}

func cmdACLSave(x *Ctx) {
	name := *x.E.Cfg.ACLFile.Load()
	if name == "" {
		x.W.Error(errNoACLFile)
		return
	}
	tmp := x.E.aclPath(name) + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(x.Now, 10)
	err := os.WriteFile(tmp, []byte(x.E.Users().Save()), 0o644)
	if err == nil {
		err = os.Rename(tmp, x.E.aclPath(name))
	}
	if err != nil {
		os.Remove(tmp)
		x.E.Log.Warn("ACL SAVE failed", "err", err)
		x.W.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	x.W.OK()
}

func cmdACLCat(x *Ctx) {
	if len(x.Args) == 2 {
		x.W.Array(len(acl.Categories))
		for _, c := range acl.Categories {
			x.W.BulkString(c)
		}
		return
	}
	if len(x.Args) != 3 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
		return
	}
	names, ok := config.AclTable.InCategory(x.Arg(2))
	if !ok {
		x.W.Error("ERR Unknown category '" + string(Trunc(Cstr(x.Args[2]), 128)) + "'")
		return
	}
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
}

func cmdACLGenPass(x *Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
		return
	}
	bits := int64(256)
	if len(x.Args) == 3 {
		n, ok := num.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(ErrNotInt)
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

func cmdACLLog(x *Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(ErrSubcommandSyntax(x.Args))
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
			x.W.Error(ErrNotInt)
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

func cmdACLDryRun(x *Ctx) {
	u := x.E.Users().User(x.Arg(2))
	if u == nil {
		x.W.Error("ERR User '" + x.Arg(2) + "' not found")
		return
	}
	args := x.Args[3:]
	// Redis's lookupCommand: a container alone is the container.
	cmd := Lookup(args[0])
	if cmd != nil && cmd.Sub != nil && len(args) >= 2 {
		cmd = LookupSub(cmd, args[1])
	}
	if cmd == nil {
		x.W.Error("ERR Command '" + string(args[0]) + "' not found")
		return
	}
	if !ArityOK(cmd.Arity, len(args)) {
		x.W.Error(ErrWrongArgs(cmd.Name))
		return
	}
	res, pos := aclCheck(u, cmd, args)
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

func cmdACLHelp(x *Ctx) { WriteHelp(x, aclHelp) }

// ACLCheckCommand is redis.acl_check_cmd: Redis looks the command up and
// checks the permissions only (no arity check).
func (x *Ctx) ACLCheckCommand(args [][]byte) (allowed, known bool) {
	cmd := Lookup(args[0])
	if cmd != nil && cmd.Sub != nil && len(args) >= 2 {
		cmd = LookupSub(cmd, args[1])
	}
	if cmd == nil {
		return false, false
	}
	res, _ := aclCheck(x.C.User, cmd, args)
	return res == acl.OK, true
}

// checkPassword tells whether user/pass would authenticate, without
// authenticating or logging (MONITOR's redaction of HELLO).
func (x *Ctx) checkPassword(user, pass []byte) bool {
	u := x.E.Users().User(string(user))
	return u != nil && u.CheckPassword(pass)
}

// LoadACLAtStart reads aclfile, if set, before the server serves: as
// Redis, a file with any error stops the start.
func (e *Engine) LoadACLAtStart() error {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	name := *e.Cfg.ACLFile.Load()
	if name != "" && len(e.Cfg.AclPending) > 0 {
		return errorf("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
	}
	if err := e.loadConfigUsers(); err != nil {
		return err
	}
	if name == "" {
		return nil
	}
	if err := e.loadACLFile(nil, name); err != nil {
		return errorf("Aborting Redis startup because of ACL errors: %s", err.Error())
	}
	return nil
}

// loadConfigUsers is ACLLoadConfiguredUsers.
func (e *Engine) loadConfigUsers() error {
	reg := e.Users()
	for _, args := range e.Cfg.AclPending {
		if err := reg.LoadConfigUser(args[0], args[1:]); err != nil {
			return err
		}
	}
	e.Cfg.AclPending = nil
	e.Cfg.SyncDefaultAuth()
	return nil
}
