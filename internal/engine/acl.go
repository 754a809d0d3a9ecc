package engine

import (
	"errors"
	"fmt"
	"github.com/limitkv/limitkv/internal/keyspec"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/acl"
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
	specs    []keyspec.KeySpec
	hasKeys  bool
	chans    int8 // 0 none; chanSubscribe, chanPattern, chanPublish
	getKeysF func(args [][]byte) []keyspec.Key
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
		for _, cat := range CommandCategories(c) {
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
			info.getKeysF = func(args [][]byte) []keyspec.Key { return keyspec.SortGetKeys(args, ro) }
		case "migrate":
			info.getKeysF = keyspec.MigrateGetKeys
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
		for _, s := range SortedSubs(c) {
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
	var refs []keyspec.Key
	if !ArityOK(cmd.Arity, len(args)) {
		return nil // redis.acl_check_cmd checks no arity; SORT's procedure needs it
	}
	if info.getKeysF != nil {
		refs = info.getKeysF(args)
	} else {
		var ok bool
		if refs, ok = keyspec.FromSpecs(info.specs, args); !ok {
			return nil
		}
	}
	out := make([]acl.KeyRef, 0, len(refs))
	for _, k := range refs {
		flags := k.Flags
		if slices.Contains(flags, "variable_flags") {
			flags = keyspec.VariableKeyFlags(cmd.Name, args)
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
func AclCheck(u *acl.User, cmd *Command, args [][]byte) (acl.Result, int) {
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
		user = c.UserName()
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
	res, pos := AclCheck(x.C.User, cmd, x.Args)
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
	res, pos := AclCheck(x.C.User, cmd, args)
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
	res, pos := AclCheck(x.C.User, cmd, args)
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

func (c *Client) UserName() string {
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
func (e *Engine) UserGone(x *Ctx, u *acl.User) {
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
func (e *Engine) DropRevokedSubscribers(x *Ctx, u *acl.User) {
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

// loadACLFile is ACL LOAD (and the start-time load): the users are
// replaced only if the whole file is valid.
func (e *Engine) LoadACLFile(x *Ctx, name string) error {
	data, err := os.ReadFile(e.AclPath(name))
	if err != nil {
		return errorf("Error loading ACLs, opening file '%s': %s", name, errnoText(err))
	}
	gone, err := e.Users().Load(string(data), name)
	if err != nil {
		return err
	}
	for _, u := range gone {
		if x != nil {
			e.UserGone(x, u)
		}
	}
	e.Cfg.SyncDefaultAuth()
	return nil
}

// aclPath is where aclfile is: Redis, which works in its dir, reads a
// relative path from there (limitkv engines share a process and its
// working directory, so each resolves against its own dir).
func (e *Engine) AclPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(*e.Cfg.Dir.Load(), name)
}

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
	res, _ := AclCheck(x.C.User, cmd, args)
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
	e.mu.Lock()
	defer e.mu.Unlock()
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
	if err := e.LoadACLFile(nil, name); err != nil {
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
