package acl

// Context is where a refused command ran.
type Context int

const (
	CtxToplevel Context = iota
	CtxMulti
	CtxLua
)

func (c Context) String() string {
	switch c {
	case CtxMulti:
		return "multi"
	case CtxLua:
		return "lua"
	}
	return "toplevel"
}

// ReasonName is ACL LOG's reason field.
func (r Result) ReasonName() string {
	switch r {
	case DeniedCommand:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedChannel:
		return "channel"
	case DeniedAuth:
		return "auth"
	}
	return "unknown"
}

// LogEntry is one ACL LOG entry (Redis 7.0's fields).
type LogEntry struct {
	Count      int64
	Reason     Result
	Context    Context
	Object     string // command, key, channel, or AUTH's argv[0]
	Username   string
	CTime      int64 // Unix ms of the last update
	ClientInfo string
}

// groupWindow is ACL_LOG_GROUPING_MAX_TIME_DELTA: a refusal like one of
// the last ten within a minute bumps its count instead of adding an entry.
const groupWindow = 60000

// Log is the ACL log, newest first.
type Log struct{ entries []*LogEntry }

// Add is addACLLogEntry.
func (l *Log) Add(e LogEntry, maxLen int64) {
	e.Count = 1
	for i := 0; i < len(l.entries) && i < 10; i++ {
		cur := l.entries[i]
		d := cur.CTime - e.CTime
		if d < 0 {
			d = -d
		}
		if cur.Reason == e.Reason && cur.Context == e.Context && d <= groupWindow &&
			cur.Object == e.Object && cur.Username == e.Username {
			cur.ClientInfo, cur.CTime = e.ClientInfo, e.CTime
			cur.Count++
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = cur
			return
		}
	}
	l.entries = append(l.entries, nil)
	copy(l.entries[1:], l.entries)
	l.entries[0] = &e
	if int64(len(l.entries)) > maxLen {
		l.entries = l.entries[:max(maxLen, 0)]
	}
}

// Entries returns the newest n entries.
func (l *Log) Entries(n int) []*LogEntry { return l.entries[:min(max(n, 0), len(l.entries))] }

// Reset empties the log.
func (l *Log) Reset() { l.entries = nil }
