package admin

import (
	"github.com/limitkv/limitkv/internal/engine"
)

// Commands are the server's administration and introspection commands:
// INFO, CLIENT, CONFIG, DEBUG, MEMORY, SLOWLOG, LATENCY.
var Commands = append([]*engine.Command{
	{Name: "info", Arity: -1, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: CmdInfo},
	ClientCommand, ConfigCommand, slowlogCommand, latencyCommand, memoryCommand,
}, debugCommands...)
