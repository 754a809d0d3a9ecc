package admin

import (
	"github.com/limitkv/limitkv/internal/engine"
)

// Commands are the server's administration and introspection commands:
// SHUTDOWN, INFO, CLIENT, COMMAND, CONFIG, ACL, DEBUG, MEMORY, SLOWLOG,
// LATENCY.
var Commands = append([]*engine.Command{
	{Name: "shutdown", Arity: -1, Flags: engine.FlagAdmin | engine.FlagNoScript | engine.FlagLoading | engine.FlagStale | engine.FlagNoMulti | engine.FlagAllowBusy,
		Group: "server", Handler: cmdShutdown},
	{Name: "info", Arity: -1, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: CmdInfo},
	ClientCommand, CommandCommand, ConfigCommand, slowlogCommand, latencyCommand, memoryCommand, aclCommand,
}, debugCommands...)
