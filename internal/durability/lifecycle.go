package durability

import (
	"github.com/limitkv/limitkv/internal/engine"
)

// The server's life around its clients, shared by the binary and the
// embedded server so that both start and stop the same way: they differ
// only in how they listen and when the RDB is read (the binary serves
// LOADING meanwhile, the embedded server loads before it listens).

// OpenAtStart reads what must be in place before any client is served:
// the ACL file and, with appendonly yes, the AOF, which is then written
// from here on (Redis's loadDataFromDisk reads no RDB when the AOF is on,
// even when there is no AOF yet). aofLoaded: an AOF was found and loaded.
func OpenAtStart(e *engine.Engine) (aofLoaded bool, err error) {
	if err := e.LoadACLAtStart(); err != nil {
		return false, err
	}
	if !e.Cfg.AOF.Enabled.Load() {
		return false, nil
	}
	if aofLoaded, err = LoadAppendOnly(e); err != nil {
		return false, err
	}
	return aofLoaded, StartAppendOnly(e)
}

// CloseAtExit ends what runs beside the clients once they are gone: it
// waits for a background save, stops the AOF (one that CONFIG SET
// appendonly yes started too) after its last write, and waits for a
// rewrite under way, so a process that exits next leaves whole files.
func CloseAtExit(e *engine.Engine) {
	WaitBgsave(e)
	StopAppendOnly(e)
	WaitAOFRewrite(e)
}
