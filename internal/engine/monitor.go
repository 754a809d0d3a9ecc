package engine

import (
	"strconv"
	"strings"
	"sync"

	"github.com/limitkv/limitkv/internal/config"

	"github.com/limitkv/limitkv/internal/lua"
	"github.com/limitkv/limitkv/internal/resp"
)

// MONITOR, as Redis 7.0's monitorCommand and replicationFeedMonitors: every
// command that runs is shown to the monitors as one status line
//
//	+1700000000.123456 [0 127.0.0.1:54321] "SET" "k" "v"
//
// after it ran (so "[db" is the database after a SELECT), with its
// arguments quoted as sdscatrepr does. Commands flagged admin or
// skip_monitor are not shown; EVAL, EVALSHA (and their _RO forms) are
// shown before they run, so the commands their script calls, shown as
// "[db lua]", come after them. Commands refused before they run are not
// shown, except EXEC, whose refusal ends a MULTI the monitor saw begin.
// AUTH's and HELLO AUTH's secrets read "(redacted)".
//
// A monitor is a replica in Redis's bookkeeping: it may not run commands
// that touch the keyspace, CLIENT PAUSE does not pause it, and its output
// still counts against the normal class of client-output-buffer-limit
// (getClientType shows monitors as normal clients). RESET ends monitoring.
var monitorCommand = &Command{Name: "monitor", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale,
	Group: "server", Handler: cmdMonitor}

// surface is the engine's share of the client surface: the monitors (in the
// order they started) and the CLIENT PAUSE state. gate is non-zero while
// there is a monitor or a pause, so dispatch pays one comparison otherwise.
type surface struct {
	Monitors []*Client
	line     []byte // the monitor line being built, reused
	Pause    pauseState
	Gate     int
}

func (s *surface) updateGate() { s.Gate = len(s.Monitors) + s.Pause.Kind }

// clientSurface is a client's share: monitoring, CLIENT REPLY, NO-EVICT.
type clientSurface struct {
	Monitor bool
	noEvict bool
	Reply   uint8 // replyOff | replySkipNext | replySkip
	// muting: the client's own command runs while its replies are
	// suppressed; kept lists the pushes written to Out meanwhile, which
	// CLIENT REPLY does not suppress (Redis's CLIENT_PUSHING).
	muting bool
	kept   []span
}

type span struct{ from, to int }

func cmdMonitor(x *Ctx) {
	c := x.C
	if c.Multi != nil { // only while EXEC runs the queue
		x.W.Error("ERR MONITOR isn't allowed for DENY BLOCKING client")
		return
	}
	if c.Cs.Monitor {
		return // already monitoring: Redis answers nothing at all
	}
	c.Cs.Monitor = true
	s := &x.E.Cs
	s.Monitors = append(s.Monitors, c)
	s.updateGate()
	x.W.OK()
}

// stopMonitor ends c's monitoring (RESET, or the connection went away).
func (e *Engine) StopMonitor(c *Client) {
	if !c.Cs.Monitor {
		return
	}
	c.Cs.Monitor = false
	s := &e.Cs
	for i, m := range s.Monitors {
		if m == c {
			s.Monitors = append(s.Monitors[:i], s.Monitors[i+1:]...)
			break
		}
	}
	s.updateGate()
}

// Monitor feed points of a command, from Redis's command table.
const (
	monAfter  = iota // shown once it ran
	monNever         // admin or skip_monitor
	monBefore        // EVAL and friends: shown before the script's commands
)

// Command classes the dispatcher needs from Redis's command table, which
// COMMAND INFO shows (limitkv's own flags only stand in for commands Redis
// does not have).
type cmdTraits struct {
	monitor         uint8
	read, write, mr bool // readonly, write, may_replicate
}

var (
	traitsOnce sync.Once
	traits     map[*Command]cmdTraits
)

func traitsOf(cmd *Command) cmdTraits {
	traitsOnce.Do(func() {
		traits = make(map[*Command]cmdTraits)
		add := func(c *Command) {
			has := func(f string, own Flags) bool {
				if d, ok := RedisDocs[c.Name]; ok {
					return strings.Contains(d.Info, "\r\n+"+f+"\r\n")
				}
				return c.Flags&own != 0
			}
			t := cmdTraits{read: has("readonly", FlagReadOnly), write: has("write", FlagWrite)}
			switch c.Name {
			case "pfcount", "publish", "spublish", "eval", "evalsha":
				t.mr = true // not shown by COMMAND INFO
			}
			switch {
			case c.Name == "eval" || c.Name == "evalsha" || c.Name == "eval_ro" || c.Name == "evalsha_ro":
				t.monitor = monBefore
			case has("admin", FlagAdmin) || has("skip_monitor", FlagSkipMonitor):
				t.monitor = monNever
			}
			traits[c] = t
		}
		for _, c := range Table {
			add(c)
			for _, s := range c.Sub {
				add(s)
			}
		}
	})
	return traits[cmd]
}

// callMonitored runs the handler with the monitor feed around it. Call
// only while there are monitors.
func (e *Engine) callMonitored(x *Ctx) {
	if len(e.Cs.Monitors) == 0 || x.Rerun {
		x.Cmd.Handler(x)
		return
	}
	mode := traitsOf(x.Cmd).monitor
	if mode == monBefore {
		e.feedMonitors(x.C, x.Args)
	}
	x.Cmd.Handler(x)
	// A command that blocks is shown once, when it first runs, as in Redis.
	if mode == monAfter {
		e.feedMonitors(x.C, e.redacted(x))
	}
}

// feedMonitors shows args, run by c, to every monitor.
func (e *Engine) feedMonitors(c *Client, args [][]byte) {
	s := &e.Cs
	if len(s.Monitors) == 0 {
		return
	}
	now := e.Clock.Now()
	b := append(s.line[:0], '+')
	b = strconv.AppendInt(b, now.Unix(), 10)
	b = append(b, '.')
	us := strconv.AppendInt(nil, int64(now.Nanosecond()/1000), 10)
	for i := len(us); i < 6; i++ {
		b = append(b, '0')
	}
	b = append(b, us...)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(c.DB), 10)
	switch {
	case c.InScript:
		b = append(b, " lua"...)
	case c.Unix != "":
		b = append(b, " unix:"...)
		b = append(b, c.Unix...)
	default:
		b = append(b, ' ')
		b = append(b, c.Addr...)
	}
	b = append(b, "] "...)
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = config.AppendRepr(b, a)
	}
	b = append(b, '\r', '\n')
	s.line = b
	for _, m := range append([]*Client(nil), s.Monitors...) {
		if m.Cs.silenced() {
			continue // CLIENT REPLY OFF/SKIP drop monitor output: it is no push
		}
		e.push(m, func(w *resp.Writer) { w.Raw(b) })
	}
}

var redactedArg = []byte("(redacted)")

// redacted is the command as the monitors see it: the secrets AUTH and
// HELLO AUTH took out of it, as far as Redis's handlers got before they
// answered (redactClientCommandArgument).
func (e *Engine) redacted(x *Ctx) [][]byte {
	args := x.Args
	var hide []int
	name := strings.ToLower(string(args[0]))
	switch {
	case name == "config" && len(args) >= 2 && strings.EqualFold(string(args[1]), "set"):
		// Every sensitive value, even in a CONFIG SET that fails, but not
		// when the pairs do not pair up (refused before looking).
		if len(args)%2 == 1 {
			return args
		}
		for j := 2; j+1 < len(args); j += 2 {
			if p, _ := config.ConfigLookup(string(args[j])); p != nil && p.Sensitive {
				hide = append(hide, j+1)
			}
		}
	case name == "acl" && len(args) >= 3 && strings.EqualFold(string(args[1]), "setuser"):
		for j := 2; j < len(args); j++ {
			hide = append(hide, j) // the name and every rule
		}
	case name == "migrate":
		hide = migrateSecrets(args)
	}
	switch x.Cmd.Name {
	case "auth":
		if len(args) > 3 {
			return args // refused with a syntax error before redacting
		}
		hide = append(hide, 1)
		if len(args) == 3 {
			hide = append(hide, 2)
		}
	case "hello":
		if len(args) >= 2 {
			v, err := strconv.ParseInt(string(args[1]), 10, 64)
			if err != nil || v < 2 || v > 3 {
				return args
			}
		}
	loop:
		for j := 2; j < len(args); j++ {
			more := len(args) - 1 - j
			switch opt := strings.ToLower(string(args[j])); {
			case opt == "auth" && more >= 2:
				hide = append(hide, j+1, j+2)
				if !x.checkPassword(args[j+1], args[j+2]) {
					break loop
				}
				j += 2
			case opt == "setname" && more >= 1:
				if !ValidClientName(args[j+1]) {
					break loop
				}
				j++
			default:
				break loop
			}
		}
	}
	if len(hide) == 0 {
		return args
	}
	out := append([][]byte(nil), args...)
	for _, i := range hide {
		out[i] = redactedArg
	}
	return out
}

// migrateSecrets are the positions of MIGRATE's AUTH and AUTH2 arguments,
// as far as migrateCommand's option loop gets: it stops at KEYS, and at an
// option it refuses.
func migrateSecrets(args [][]byte) []int {
	var hide []int
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch strings.ToLower(string(args[j])) {
		case "copy", "replace":
		case "auth":
			if more < 1 {
				return hide
			}
			j++
			hide = append(hide, j)
		case "auth2":
			if more < 2 {
				return hide
			}
			hide = append(hide, j+1, j+2)
			j += 2
		default:
			return hide // KEYS, or a syntax error
		}
	}
	return hide
}

// keyspaceDenied is Redis's rule for replicas, monitors included: no
// command that reads or writes the keyspace, or may replicate.
func (e *Engine) keyspaceDenied(c *Client, cmd *Command, args [][]byte) bool {
	t := traitsOf(cmd)
	read, write, mr := t.read, t.write, t.mr
	switch cmd.Name {
	case "exec":
		if m := c.Multi; m != nil {
			read, write, mr = read || m.read, write || m.write, mr || m.mayRepl
		}
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
		read, write, mr = e.effectiveFlags(c, cmd, args)
	}
	return read || write || mr
}

// effectiveFlags are a command's readonly, write and may_replicate flags
// as Redis's getCommandFlags has them: a script with a shebang declares
// whether it writes.
func (e *Engine) effectiveFlags(c *Client, cmd *Command, args [][]byte) (read, write, mr bool) {
	t := traitsOf(cmd)
	read, write, mr = t.read, t.write, t.mr
	switch cmd.Name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
	default:
		return
	}
	bySHA := cmd.Name == "evalsha" || cmd.Name == "evalsha_ro"
	if bySHA && len(args[1]) != 40 {
		return
	}
	noWrites, shebang := false, false
	var known bool
	if e.Scripts.ScriptCount() > 0 {
		sha := args[1]
		if !bySHA {
			sha = []byte(lua.SHA1Hex(args[1]))
		}
		if s := e.Scripts.LookupScript([]byte(strings.ToLower(string(sha)))); s != nil {
			known = true
			shebang, noWrites = s.Flags&lua.FlagShebang != 0, s.Flags&lua.FlagNoWrites != 0
		}
	}
	if !known {
		if bySHA {
			return
		}
		var ok bool
		if shebang, noWrites, ok = parseShebangFlags(args[1]); !ok {
			return
		}
	}
	if !shebang {
		return // EVAL compatibility mode: the command's own flags
	}
	return read, !noWrites, false
}

// parseShebangFlags reads a script's "#!lua flags=..." line as Redis's
// evalExtractShebangFlags: ok is false when the line is wrong (the script
// then fails to load, and the command's own flags apply meanwhile).
func parseShebangFlags(body []byte) (shebang, noWrites, ok bool) {
	if len(body) < 2 || body[0] != '#' || body[1] != '!' {
		return false, false, true
	}
	line := string(body)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	parts := strings.Fields(line)
	if len(parts) == 0 || parts[0] != "#!lua" {
		return true, false, false
	}
	for _, p := range parts[1:] {
		list, found := strings.CutPrefix(p, "flags=")
		if !found {
			return true, false, false
		}
		if list == "" {
			continue
		}
		for _, f := range strings.Split(list, ",") {
			switch f {
			case "no-writes":
				noWrites = true
			case "allow-oom", "allow-stale", "no-cluster":
			default:
				return true, false, false
			}
		}
	}
	return true, noWrites, true
}

// watchDirty reports whether a key c watches changed (Redis's
// CLIENT_DIRTY_CAS): its transaction can only fail.
func (e *Engine) watchDirty(c *Client) bool {
	if e.watching == 0 {
		return false
	}
	ws := e.watches().Watches[c]
	return ws != nil && ws.Dirty
}
