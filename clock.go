package limitkv

import (
	"sync"
	"time"
)

// Clock is the server's time source: TIME, key deadlines (EXPIRE, SET ...
// EX, TTL), RL.CHECK's "*" and the scripts' clock all read it.
type Clock interface {
	Now() time.Time
}

// ManualClock is a Clock that moves only when the test moves it: keys
// expire as it passes their deadlines, without sleeping, and a rate-limit
// window slides when the test says. It is safe for concurrent use.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a ManualClock reading t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

// Now is the clock's current time.
func (m *ManualClock) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

// Set moves the clock to t, backwards too (a clock step, as NTP makes).
func (m *ManualClock) Set(t time.Time) {
	m.mu.Lock()
	m.t = t
	m.mu.Unlock()
}

// Add moves the clock by d.
func (m *ManualClock) Add(d time.Duration) {
	m.mu.Lock()
	m.t = m.t.Add(d)
	m.mu.Unlock()
}
