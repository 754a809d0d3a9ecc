package engine

import "strconv"

const (
	slowlogMaxArgc   = 32
	slowlogMaxString = 128
)

type slowEntry struct {
	Id, Time, Duration int64
	Args               [][]byte
	Peer, Name         string
}

// slowlog is a ring of entries, newest at the end of the slice.
type slowlog struct {
	Entries []slowEntry
	nextID  int64
}

// slowlogPush logs x's command if it ran for us µs or more. Called by
// afterCall with the lock held.
func (e *Engine) slowlogPush(x *Ctx, us int64) {
	limit := e.Cfg.Obs.SlowlogSlowerThan.Load()
	if limit < 0 || us < limit || x.Cmd.Flags&FlagSkipSlowlog != 0 {
		return
	}
	args := e.redacted(x)
	n := min(len(args), slowlogMaxArgc)
	ent := slowEntry{Time: e.Clock.Now().Unix(), Duration: us, Args: make([][]byte, n), Name: x.C.Name}
	for j := range n {
		a := args[j]
		switch {
		case n != len(args) && j == n-1:
			a = []byte("... (" + strconv.Itoa(len(args)-n+1) + " more arguments)")
		case len(a) > slowlogMaxString:
			a = append(append([]byte(nil), a[:slowlogMaxString]...),
				"... ("+strconv.Itoa(len(a)-slowlogMaxString)+" more bytes)"...)
		default:
			a = append([]byte(nil), a...) // the arguments' buffer is reused
		}
		ent.Args[j] = a
	}
	ent.Peer = x.C.Addr
	if x.C.Unix != "" {
		ent.Peer = x.C.Unix + ":0"
	}
	s := &e.Obs.Slow
	ent.Id = s.nextID
	s.nextID++
	s.Entries = append(s.Entries, ent)
	s.trim(e.Cfg.Obs.SlowlogMaxLen.Load())
}

func (s *slowlog) trim(max int64) {
	if over := int64(len(s.Entries)) - max; over > 0 {
		s.Entries = append(s.Entries[:0], s.Entries[over:]...)
	}
}
