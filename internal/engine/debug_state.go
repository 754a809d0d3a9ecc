package engine

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"sync/atomic"

	"github.com/limitkv/limitkv/internal/config"
)

// errDebugNotAllowed is processCommand's refusal of a protected command.
const ErrDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// debugAllowed is allowProtectedAction for DEBUG: "local" admits only
// clients whose peer address is 127.0.0.1 or ::1, as islocalClient.
func (e *Engine) debugAllowed(c *Client) bool {
	switch e.Cfg.EnableDebugCommand.Load() {
	case config.DebugCommandYes:
		return true
	case config.DebugCommandLocal:
		host, _, err := net.SplitHostPort(c.Addr)
		if err != nil {
			host = c.Addr
		}
		return host == "127.0.0.1" || host == "::1"
	}
	return false
}

// debugState is what DEBUG's switches change. The atomic ones are read by
// the server's cron without the engine lock.
type debugState struct {
	ActiveExpireOff    atomic.Bool // SET-ACTIVE-EXPIRE 0
	CronPaused         atomic.Bool // PAUSE-CRON 1
	DisableDenyScripts bool        // SET-DISABLE-DENY-SCRIPTS: noscript commands run in scripts
	SkipChecksum       bool        // SET-SKIP-CHECKSUM-VALIDATION: RESTORE and loading skip the CRC
	ReplID             string      // master_replid; CHANGE-REPL-ID draws a new one
	// Accepted and kept, with nothing in limitkv to act on them (the AOF
	// flush does not sleep, no replicas, no cluster, Go-managed reply
	// buffers).
	AofFlushSleep     int64
	DropClusterFilter int64
	ReplyPeakReset    int64
	ReplyResizing     bool
}

// ActiveExpireEnabled reports whether the cron should reclaim expired keys
// (DEBUG SET-ACTIVE-EXPIRE 0 turns it off). Safe without the lock.
func (e *Engine) ActiveExpireEnabled() bool { return !e.Debug.ActiveExpireOff.Load() }

// CronPaused reports whether DEBUG PAUSE-CRON 1 stopped the periodic jobs
// (expiry, save points, idle clients, rehashing). Safe without the lock.
func (e *Engine) CronPaused() bool { return e.Debug.CronPaused.Load() }

// atoi is C's atoi: leading spaces, a sign and digits; anything else ends
// the number (0 if there is none).
func Atoi(b []byte) int {
	n, _ := config.Strtoll(string(leadingInt(Cstr(b))))
	return int(int32(n))
}

func leadingInt(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	j := i
	if j < len(b) && (b[j] == '+' || b[j] == '-') {
		j++
	}
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return b[:j]
}

// replicationID is INFO's master_replid: the run id until CHANGE-REPL-ID.
func (e *Engine) ReplicationID() string {
	if e.Debug.ReplID == "" {
		return e.RunID
	}
	return e.Debug.ReplID
}

func NewReplID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
