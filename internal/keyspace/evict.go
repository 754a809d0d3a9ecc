package keyspace

import (
	"math"
	"math/rand/v2"
)

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

// Sample appends to dst up to n entries picked at random, expired or not:
// from every key, or with volatile only from keys with a deadline. It is
// what the sampled eviction policies draw their candidates from, and for
// the whole keyspace follows Redis's dictGetSomeKeys: a random bucket, then
// the following buckets, jumping elsewhere after a run of empty ones, for
// at most 10*n buckets (so it may return fewer than n). Keys with a
// deadline come from the deadline index, each drawn on its own.
func (db *DB) Sample(dst []*Entry, n int, volatile bool) []*Entry {
	if volatile {
		// Where most keys have a deadline the table's sample, less those
		// without, is the better one: the index's chunks are runs of
		// deadlines, and drawing from chunks of uneven sizes was seen to
		// over-sample the earliest deadlines' keys (TestEvictFlood).
		if ev := db.exp.Len(); ev < n || ev*2 < db.Len() {
			return db.exp.Sample(n, dst)
		}
		start := len(dst)
		dst = db.sampleTable(dst, 2*n)
		kept := dst[:start]
		for _, e := range dst[start:] {
			if e.exp != NoExpiry && len(kept)-start < n {
				kept = append(kept, e)
			}
		}
		clear(dst[len(kept):])
		dst = kept
		if len(dst) == start {
			return db.exp.Sample(n, dst)
		}
		return dst
	}
	return db.sampleTable(dst, n)
}

// sampleTable is dictGetSomeKeys over the whole table.
func (db *DB) sampleTable(dst []*Entry, n int) []*Entry {
	count := min(n, db.Len())
	if count <= 0 {
		return dst
	}
	for j := 0; j < count && db.rehashIdx >= 0; j++ {
		db.rehashStep()
	}
	tables := 1
	mask := uint64(len(db.ht[0]) - 1)
	if db.rehashIdx >= 0 {
		tables = 2
		mask = max(mask, uint64(len(db.ht[1])-1))
	}
	i := rand.Uint64() & mask
	empty, stored := 0, 0
	for steps := count * 10; stored < count && steps > 0; steps-- {
		for t := 0; t < tables; t++ {
			// Buckets of ht[0] below rehashIdx are empty: skip to where
			// ht[0] still has entries unless ht[1] has this bucket.
			if tables == 2 && t == 0 && i < uint64(db.rehashIdx) {
				if i >= uint64(len(db.ht[1])) {
					i = uint64(db.rehashIdx)
				} else {
					continue
				}
			}
			if i >= uint64(len(db.ht[t])) {
				continue
			}
			e := db.ht[t][i]
			if e == nil {
				empty++
				if empty >= 5 && empty > count {
					i = rand.Uint64() & mask
					empty = 0
				}
				continue
			}
			empty = 0
			for ; e != nil && stored < count; e = e.next {
				dst = append(dst, e)
				stored++
			}
			if stored == count {
				return dst
			}
		}
		i = (i + 1) & mask
	}
	return dst
}
