package durability

import (
	"time"

	"github.com/limitkv/limitkv/internal/engine"
)

// What tests outside the package (internal/commands' end-to-end tests) may
// see and set of the component's state; nothing else uses these.

// SetBeforeRename makes hook run between a save's fsync of its temporary
// file and the rename over the RDB file (a save held there, a crash
// there).
func (d *Component) SetBeforeRename(hook func()) { d.persist.beforeRename = hook }

// LastBgsaveCost is what the last background save cost the executor lock:
// the hold of its start, and its walk's slices (their number, total and
// longest hold). Call with the lock held, or after WaitBgsave.
func (d *Component) LastBgsaveCost() (start time.Duration, slices int, held, longest time.Duration) {
	p := &d.persist
	return p.lastLockHold, p.lastWalk.slices, p.lastWalk.held, p.lastWalk.maxSlice
}

// SetLinkUp makes the server a replica of host:port whose link is up,
// without starting one: what a replica refuses is tested so. Call with the
// lock held.
func (d *Component) SetLinkUp(host string, port int) { d.setLink(host, port, replConnected) }

// IsOnlineReplica reports whether c is a replica that gets the stream as
// it happens (its full sync is done). Call with the lock held.
func IsOnlineReplica(c *engine.Client) bool {
	rp := replicaOf(c)
	return rp != nil && rp.state == replicaOnline
}
