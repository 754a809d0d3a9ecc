package cluster

import (
	"sync"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/family/listcmd"
	"github.com/limitkv/limitkv/internal/family/stringcmd"
	"github.com/limitkv/limitkv/internal/scripting"
)

var installOnce sync.Once

// newEngine is an engine with the components the cluster reaches and the
// commands its tests send (internal/commands, which assembles them all,
// imports this package). The table is the process's: installed once.
func newEngine(cfg *config.Config) *engine.Engine {
	installOnce.Do(func() {
		engine.Install(Commands, durability.Commands, scripting.ScriptCommands, scripting.FunctionCommands,
			stringcmd.StringCommands, listcmd.ListCommands)
	})
	e := engine.New(cfg, nil, nil)
	scripting.Attach(e)
	durability.Attach(e)
	return e
}
