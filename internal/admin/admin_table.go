package admin

import (
	engine "github.com/limitkv/limitkv/internal/engine"
)

// adminCommands are the server's administration and introspection
// commands: INFO, CLIENT, DEBUG, MEMORY, SLOWLOG, LATENCY.
var Commands = append([]*engine.Command{
	{Name: "info", Arity: -1, Flags: engine.FlagLoading | engine.FlagStale, Group: "server", Handler: CmdInfo},
	ClientCommand, slowlogCommand, latencyCommand, memoryCommand,
}, debugCommands...)
