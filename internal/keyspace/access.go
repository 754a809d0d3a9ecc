package keyspace

import "math/rand/v2"

// Access tracking: Redis's robj.lru, kept per entry in the same 24 bits and
// with the same arithmetic (src/evict.c), so OBJECT IDLETIME and FREQ,
// DEBUG OBJECT and the eviction policies see what Redis's would.
//
// Without an LFU policy the field is the LRU clock of the last access:
// Unix seconds modulo 2^24 (LRU_CLOCK_RESOLUTION 1000 ms), which wraps
// every 194 days. Under an LFU policy it is the minute of the last access,
// modulo 2^16, above an 8-bit logarithmic counter. Neither reading is
// converted when the policy changes: as Redis says, the data "will take
// some time to adjust".

const (
	// LRUClockMax is LRU_CLOCK_MAX, the largest LRU clock value.
	LRUClockMax = 1<<24 - 1
	// LFUInitVal is the counter of a new key (LFU_INIT_VAL): a new key
	// survives a few evictions before its accesses are counted.
	LFUInitVal = 5
)

// Access is how lookups record an access: whether an LFU maxmemory policy
// is in force, and its lfu-log-factor and lfu-decay-time.
type Access struct {
	LFU       bool
	LogFactor int // lfu-log-factor: higher grows the counter more slowly
	DecayTime int // lfu-decay-time: minutes per unit of decay; 0 never decays
}

// DefaultAccess is Redis's default: LRU clock, lfu-log-factor 10,
// lfu-decay-time 1.
var DefaultAccess = Access{LogFactor: 10, DecayTime: 1}

func (db *DB) access() *Access {
	if db.Access == nil {
		return &DefaultAccess
	}
	return db.Access
}

// LRUClock is Redis's LRU clock at now (Unix ms).
func LRUClock(now int64) uint32 { return uint32(now/1000) & LRUClockMax }

// lfuMinutes is LFUGetTimeInMinutes: the Unix minute, in 16 bits.
func lfuMinutes(now int64) uint32 { return uint32(now/60000) & 0xffff }

// IdleMs is estimateObjectIdleTime: milliseconds since the LRU clock value
// lru, at LRU clock resolution, counting a clock behind lru as wrapped once.
func IdleMs(lru uint32, now int64) int64 {
	clock := LRUClock(now)
	if clock >= lru {
		return int64(clock-lru) * 1000
	}
	return int64(clock+(LRUClockMax-lru)) * 1000
}

// LFUDecr is LFUDecrAndReturn: the counter in lru decayed by one for each
// decayTime minutes since its last access (the 16-bit minute wrapping at
// most once).
func LFUDecr(lru uint32, now int64, decayTime int) uint8 {
	ldt, counter := lru>>8, lru&255
	if decayTime <= 0 {
		return uint8(counter)
	}
	cur := lfuMinutes(now)
	var elapsed uint32
	if cur >= ldt {
		elapsed = cur - ldt
	} else {
		elapsed = 65535 - ldt + cur
	}
	periods := elapsed / uint32(decayTime)
	if periods >= counter {
		return 0
	}
	return uint8(counter - periods)
}

// LFUIncr is LFULogIncr given r, a uniform draw from [0, 1): the counter
// grows with probability 1/((counter-LFU_INIT_VAL)*logFactor+1), so a
// counter at or below LFU_INIT_VAL, or any counter with logFactor 0,
// always grows; it saturates at 255.
func LFUIncr(counter uint8, logFactor int, r float64) uint8 {
	if counter == 255 {
		return 255
	}
	base := float64(counter) - LFUInitVal
	if base < 0 {
		base = 0
	}
	if r < 1/(base*float64(logFactor)+1) {
		counter++
	}
	return counter
}

// fresh is the field of an object created at now (createObject).
func (a *Access) fresh(now int64) uint32 {
	if a.LFU {
		return lfuMinutes(now)<<8 | LFUInitVal
	}
	return LRUClock(now)
}

// touch records an access at now (lookupKey's updateLFU or LRU_CLOCK).
func (a *Access) touch(e *Entry, now int64) {
	if !a.LFU {
		e.lru = LRUClock(now)
		return
	}
	c := LFUDecr(e.lru, now, a.DecayTime)
	if c < 255 {
		c = LFUIncr(c, a.LogFactor, rand.Float64())
	}
	e.lru = lfuMinutes(now)<<8 | uint32(c)
}

// LRU returns the raw field (DEBUG OBJECT's lru).
func (e *Entry) LRU() uint32 { return e.lru }

// IdleMs is the key's idle time at now read as an LRU clock
// (OBJECT IDLETIME, DEBUG OBJECT's lru_seconds_idle), whatever the policy.
func (e *Entry) IdleMs(now int64) int64 { return IdleMs(e.lru, now) }

// Freq is the key's counter at now read as LFU data (OBJECT FREQ),
// decayed by the DB's lfu-decay-time.
func (db *DB) Freq(e *Entry, now int64) uint8 {
	return LFUDecr(e.lru, now, db.access().DecayTime)
}

// SetLRUOrLFU is objectSetLRUOrLFU on an object created at now, for
// RESTORE and for loading a snapshot: under an LFU policy a freq >= 0 (at
// most 255) becomes the counter, last accessed now; otherwise an idle >= 0
// (seconds) dates the last access that long before now. Without them the
// key is as new at now.
func (db *DB) SetLRUOrLFU(e *Entry, freq, idle, now int64) {
	a := db.access()
	e.lru = a.fresh(now)
	if a.LFU {
		if freq >= 0 {
			e.lru = lfuMinutes(now)<<8 | uint32(freq&255)
		}
		return
	}
	if idle < 0 {
		return
	}
	abs := int64(LRUClock(now)) - idle
	if abs < 0 {
		abs += LRUClockMax
	}
	e.lru = uint32(abs) & LRUClockMax
}
