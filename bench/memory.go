package main

import (
	"fmt"
	"strconv"
	"time"
)

// memResult is workload 4 on one server.
type memResult struct {
	Server     string
	Kind       seedKind
	Users      int
	LoadTime   time.Duration
	RSSEmpty   int64
	RSSLoaded  int64
	RSSSettled int64
	UsedMemory int64
	Keys       int64
	// The allocator's view after settling (INFO allocator_*: jemalloc's in
	// Redis, the Go heap's in limitkv): bytes in live objects, in pages
	// holding objects, and resident.
	Allocated, Active, Resident int64
	Err                         string
}

func (m memResult) BytesPerUser() float64 {
	return float64(m.RSSSettled-m.RSSEmpty) / float64(m.Users)
}

// runMemory records 5 requests for each of cfg.memUsers users on a fresh
// server, pipelined deeply, and reads its memory. The five passes go over
// all users in turn. The requests' now is a clock of the load's own, 2 s
// per pass from the real start (what a 10 s load stamps), so no entry
// leaves the 60 s window however long the server takes: Redis once took
// 72 s on a slow day, and its fifth pass found the first one's entries
// pruned. The keys' TTL runs on the server's clock from each write, and a
// user's last write is in the last pass, so none expires before the
// reading.
func runMemory(cfg *config, name, bin, dir string, kind seedKind) (res memResult) {
	res = memResult{Server: name, Kind: kind, Users: cfg.memUsers}
	fail := func(err error) memResult { res.Err = err.Error(); return res }
	s, err := startServer(name, bin, dir, cfg.profileDir != "" && name == "limitkv")
	if err != nil {
		return fail(err)
	}
	defer s.Stop()
	if kind == seedEvalSHA {
		if _, err := loadSeedScript(s); err != nil {
			return fail(fmt.Errorf("SCRIPT LOAD: %w", err))
		}
	}
	time.Sleep(500 * time.Millisecond)
	res.RSSEmpty = s.RSS()
	u := cfg.memUsers
	const passes = 5
	start := time.Now()
	startMs := start.UnixMilli()
	bad, first, err := bulkLoad(s.Addr, 4, 1000, passes*u, func(b []byte, i int, _ time.Time) []byte {
		pass, user := i/u, i%u
		now := startMs + int64(i)*2000/int64(u)
		return appendSeed(b, kind, seedSHA, user, now, uint32(pass)<<28|uint32(user)&0xfffffff)
	}, func(i int, r reply) bool {
		// Each request is the pass-th for its user: the reply is the count before it.
		return r.kind == ':' && r.n == int64(i/u)
	})
	res.LoadTime = time.Since(start)
	if err != nil {
		return fail(err)
	}
	if bad > 0 {
		return fail(fmt.Errorf("%d of %d replies were not the expected count, first: %s", bad, passes*u, first))
	}
	res.RSSLoaded = s.RSS()
	time.Sleep(cfg.settle)
	res.RSSSettled = s.RSS()
	res.UsedMemory = s.UsedMemory()
	res.Allocated, res.Active, res.Resident = allocatorFigures(s)
	res.Keys, _ = s.DBSize()
	if cfg.profileDir != "" && s.Pprof != "" {
		path := cfg.profileDir + "/memory-heap.pprof"
		if err := fetchPprof(s, "heap", path); err == nil {
			pprofTop(bin, path, path+".top.txt", "-sample_index=inuse_space")
		}
	}
	if res.Keys != int64(u) {
		return fail(fmt.Errorf("DBSIZE %d after loading %d users", res.Keys, u))
	}
	return res
}

// allocatorFigures reads INFO's allocator_allocated, allocator_active and
// allocator_resident (jemalloc's in Redis, the Go heap's in limitkv).
func allocatorFigures(s *server) (allocated, active, resident int64) {
	field := func(name string) int64 {
		n, _ := strconv.ParseInt(s.Info("memory", name), 10, 64)
		return n
	}
	return field("allocator_allocated"), field("allocator_active"), field("allocator_resident")
}
