package engine

import (
	"math"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/keyspace"
	"github.com/limitkv/limitkv/internal/rdb"
)

// Eviction under maxmemory: Redis's performEvictions (src/evict.c) with its
// approximations. The LRU and LFU policies sample maxmemory-samples keys per
// database into a pool of the 16 best candidates kept across calls, and
// evict the best one still present; the random policies take a random key,
// visiting the databases in turn. volatile-ttl alone is exact, as the
// deadline index gives the soonest deadline directly.

// evpoolSize is EVPOOL_SIZE.
const evpoolSize = 16

// poolEntry is one eviction candidate. The key is a copy (its buffer reused
// from candidate to candidate, as Redis caches the pool's sds strings):
// holding the entry itself would keep a deleted key's value alive.
type poolEntry struct {
	idle uint64 // the score: higher is a better victim
	key  []byte
	used bool
	db   int
}

// evictState is what eviction keeps between calls (in memState).
type evictState struct {
	pool    [evpoolSize]poolEntry
	nextDB  int               // the random policies' next_db
	scratch []*keyspace.Entry // sampled entries
}

// evictionTimeLimit is evictionTimeLimitUs: how long one command may spend
// evicting before it runs anyway and leaves the rest to the next ones.
func EvictionTimeLimit(tenacity int64) time.Duration {
	switch {
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity-10))) * time.Microsecond
	}
	return math.MaxInt64
}

// evict deletes keys the policy chooses until about need bytes are freed.
// It returns the estimate freed and whether the command may run: enough was
// freed, or the time limit ran out while keys were still being evicted
// (Redis's EVICT_RUNNING).
func (e *Engine) Evict(m *memState, policy string, need uint64) (freed uint64, ok bool) {
	start := time.Now()
	limit := EvictionTimeLimit(e.Cfg.EvictionTenacity.Load())
	now := e.NowMs()
	for n := 0; freed < need; n++ {
		if n > 0 && n%16 == 0 && time.Since(start) > limit {
			ok = true
			break
		}
		vi, victim := e.pickVictim(m, policy, now)
		if victim == nil {
			break
		}
		freed += EntryMemory(victim)
		db := e.Dbs[vi]
		// A key already past its deadline is an expiry, not an eviction.
		if !db.ExpireIfDue(victim, now) {
			db.Remove(victim)
			e.Stats.EvictedKeys++
			e.evicted(vi, victim.Key())
		}
	}
	m.Evicted += freed
	return freed, ok || freed >= need
}

// pickVictim returns the next key to evict and its database, or nil when
// the policy finds none.
func (e *Engine) pickVictim(m *memState, policy string, now int64) (int, *keyspace.Entry) {
	switch policy {
	case "volatile-ttl":
		return e.soonestExpiring()
	case "allkeys-random", "volatile-random":
		volatile := policy == "volatile-random"
		for range e.Dbs {
			m.ev.nextDB = (m.ev.nextDB + 1) % len(e.Dbs)
			db := e.Dbs[m.ev.nextDB]
			if volatile && db.ExpiresLen() > 0 {
				s := db.Sample(m.ev.scratch[:0], 1, true)
				ent := s[0]
				clear(s)
				return m.ev.nextDB, ent
			}
			if !volatile && db.Len() > 0 {
				return m.ev.nextDB, db.Random()
			}
		}
		return 0, nil
	}
	volatile := policy == "volatile-lru" || policy == "volatile-lfu"
	lfu := policy == "allkeys-lfu" || policy == "volatile-lfu"
	pool := &m.ev.pool
	for {
		total := 0
		for i, db := range e.Dbs {
			n := db.Len()
			if volatile {
				n = db.ExpiresLen()
			}
			if n > 0 {
				e.PoolPopulate(m, i, volatile, lfu, now)
				total += n
			}
		}
		if total == 0 {
			return 0, nil
		}
		// Best candidates are on the right; one no longer there (deleted,
		// or no longer volatile) is a ghost, and the next is tried.
		for k := evpoolSize - 1; k >= 0; k-- {
			p := &pool[k]
			if !p.used {
				continue
			}
			p.used, p.idle = false, 0
			if p.db >= len(e.Dbs) {
				continue
			}
			if ent := e.Dbs[p.db].Peek(p.key); ent != nil && (!volatile || ent.Expiry() != keyspace.NoExpiry) {
				return p.db, ent
			}
		}
	}
}

// poolPopulate is evictionPoolPopulate: it samples database dbi and files
// each sampled key in the pool, kept in ascending score order, if the pool
// has room or the key beats its worst candidate.
func (e *Engine) PoolPopulate(m *memState, dbi int, volatile, lfu bool, now int64) {
	db := e.Dbs[dbi]
	pool := &m.ev.pool
	samples := m.ev.scratch[:0]
	samples = db.Sample(samples, int(e.Cfg.MaxMemorySamples.Load()), volatile)
	for _, ent := range samples {
		var idle uint64
		if lfu {
			// Lower frequency is the better victim: score by inverse.
			idle = 255 - uint64(db.Freq(ent, now))
		} else {
			idle = uint64(ent.IdleMs(now))
		}
		k := 0
		for k < evpoolSize && pool[k].used && pool[k].idle < idle {
			k++
		}
		var buf []byte
		switch {
		case k == 0 && pool[evpoolSize-1].used:
			continue // worse than every candidate, and no room
		case k < evpoolSize && !pool[k].used:
			buf = pool[k].key // an empty slot
		case !pool[evpoolSize-1].used:
			// Room on the right: shift k.. right by one.
			buf = pool[evpoolSize-1].key
			copy(pool[k+1:], pool[k:evpoolSize-1])
		default:
			// No room: drop the leftmost (worst) and insert at k-1.
			k--
			buf = pool[0].key
			copy(pool[:k], pool[1:k+1])
		}
		pool[k] = poolEntry{idle: idle, key: append(buf[:0], ent.Key()...), used: true, db: dbi}
	}
	clear(samples)
	m.ev.scratch = samples[:0]
}

// soonestExpiring is volatile-ttl's victim: the key with the nearest
// deadline across all databases.
func (e *Engine) soonestExpiring() (int, *keyspace.Entry) {
	var victim *keyspace.Entry
	vi := 0
	for i, db := range e.Dbs {
		if db.ExpiresLen() == 0 {
			continue
		}
		if ent := db.SoonestExpiring(); ent != nil && (victim == nil || ent.Expiry() < victim.Expiry()) {
			victim, vi = ent, i
		}
	}
	return vi, victim
}

// RdbAccess is what rdbSaveKeyValuePair writes of a key's access field:
// its idle seconds under an LRU policy, its counter under an LFU one, as of
// the start of the save (a forked child's frozen clock).
type RdbAccess struct {
	lru, lfu bool
	decay    int
	now      int64
}

func (e *Engine) RdbAccessNow() RdbAccess {
	p := *e.Cfg.MaxMemoryPolicy.Load()
	return RdbAccess{lru: strings.HasSuffix(p, "-lru"), lfu: strings.HasSuffix(p, "-lfu"), decay: e.Cfg.Access.DecayTime, now: e.NowMs()}
}

func (a RdbAccess) Set(k *keyspace.Entry, r *rdb.Entry) {
	if a.lru {
		r.LRUIdle, r.HasLRUIdle = uint64(k.IdleMs(a.now)/1000), true
	}
	if a.lfu {
		r.LFUFreq, r.HasLFUFreq = keyspace.LFUDecr(k.LRU(), a.now, a.decay), true
	}
}

// loadedAccess sets a loaded key's access field from its IDLE or FREQ
// record, as rdbLoadRio does.
func LoadedAccess(db *keyspace.DB, k *keyspace.Entry, ent *rdb.Entry, now int64) {
	freq, idle := int64(-1), int64(-1)
	if ent.HasLFUFreq {
		freq = int64(ent.LFUFreq)
	}
	if ent.HasLRUIdle {
		idle = int64(ent.LRUIdle)
	}
	db.SetLRUOrLFU(k, freq, idle, now)
}
