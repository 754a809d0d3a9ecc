package admin

import (
	"strings"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/num"
)

// CLIENT PAUSE timeout [WRITE|ALL] and CLIENT UNPAUSE: the pause of the
// command's own purpose (engine.PauseByCommand), which UNPAUSE ends without
// ending a shutdown's or a failover's.

func cmdClientPause(x *engine.Ctx) {
	kind := engine.PauseAll
	if len(x.Args) > 4 {
		x.W.Error(engine.ErrSubcommandSyntax(x.Args))
		return
	}
	if len(x.Args) == 4 {
		switch strings.ToLower(x.Arg(3)) {
		case "write":
			kind = engine.PauseWrite
		case "all":
		default:
			x.W.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	ms, ok := num.ParseInt(x.Args[2])
	if !ok {
		x.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		x.W.Error("ERR timeout is negative")
		return
	}
	end := int64(0)
	if ms > 0 {
		end = ms + engine.NowMsReal() // wraps past the int64 range, as Redis's does
	}
	x.E.PauseClients(engine.PauseByCommand, end, kind)
	x.W.OK()
}

func cmdClientUnpause(x *engine.Ctx) {
	x.E.UnpauseClients(engine.PauseByCommand)
	x.W.OK()
}
