package keyspace

import "math"

// SoonestExpiring returns the entry whose deadline is nearest (passed or
// not), or nil when no key has one: the victim of the volatile-ttl maxmemory
// policy. The deadline index makes this exact, where Redis approximates it by
// sampling.
func (db *DB) SoonestExpiring() *Entry {
	var buf [1]*Entry
	for {
		due := db.exp.Due(math.MaxInt64, 1, buf[:0])
		if len(due) == 0 {
			return nil
		}
		e := due[0]
		if e.slack == 0 {
			return e
		}
		db.refile(e) // filed under an older deadline: put it where it belongs
	}
}
