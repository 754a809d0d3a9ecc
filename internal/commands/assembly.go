// Package commands assembles limitkv's command set: the engine's own
// commands and every family's table, installed once at init. Code that
// makes an engine calls New here, so the table is always the whole set.
package commands

import (
	"log/slog"

	"github.com/limitkv/limitkv/internal/admin"
	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/cluster"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/durability"
	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/family/conncmd"
	"github.com/limitkv/limitkv/internal/family/hashcmd"
	"github.com/limitkv/limitkv/internal/family/keycmd"
	"github.com/limitkv/limitkv/internal/family/limitcmd"
	"github.com/limitkv/limitkv/internal/family/listcmd"
	"github.com/limitkv/limitkv/internal/family/setcmd"
	"github.com/limitkv/limitkv/internal/family/streamcmd"
	"github.com/limitkv/limitkv/internal/family/stringcmd"
	"github.com/limitkv/limitkv/internal/family/zsetcmd"
	"github.com/limitkv/limitkv/internal/scripting"
)

func init() {
	engine.Install(
		// components
		admin.Commands, durability.Commands, cluster.Commands, scripting.ScriptCommands, scripting.FunctionCommands,
		// families
		conncmd.ConnectionCommands, conncmd.ServerCommands, keycmd.KeyCommands, keycmd.ExpireCommands,
		keycmd.SortCommands, stringcmd.StringCommands, stringcmd.BitopsCommands, stringcmd.HllCommands,
		hashcmd.HashCommands, listcmd.ListCommands, setcmd.SetCommands, zsetcmd.ZsetCommands,
		zsetcmd.GeoCommands, streamcmd.StreamCommands, limitcmd.Commands)
}

// New returns an engine with empty databases and the whole command set.
func New(cfg *config.Config, clk clock.Clock, log *slog.Logger) *engine.Engine {
	e := engine.New(cfg, clk, log)
	scripting.Attach(e)
	durability.Attach(e)
	return e
}
