package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// bulkLoad sends total requests over conns connections in pipelined batches
// of batch, handing out batches in index order so that a load made of
// passes (request i belongs to pass i/passLen) stays roughly in pass order.
// build appends request i; check, if set, validates its reply.
func bulkLoad(addr string, conns, batch, total int, build func(b []byte, i int, now time.Time) []byte,
	check func(i int, r reply) bool) (bad int64, firstBad string, err error) {
	var next atomic.Int64
	var badN atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, conns)
	nb := (total + batch - 1) / batch
	for k := 0; k < conns; k++ {
		c, derr := dial(addr)
		if derr != nil {
			return 0, "", derr
		}
		wg.Add(1)
		go func(k int, c *conn) {
			defer wg.Done()
			defer c.Close()
			buf := make([]byte, 0, batch*96)
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				lo, hi := b*batch, min(total, (b+1)*batch)
				now := time.Now()
				buf = buf[:0]
				for i := lo; i < hi; i++ {
					buf = build(buf, i, now)
				}
				c.nc.SetDeadline(time.Now().Add(60 * time.Second))
				if _, err := c.nc.Write(buf); err != nil {
					errs[k] = err
					return
				}
				for i := lo; i < hi; i++ {
					r, err := c.read()
					if err != nil {
						errs[k] = err
						return
					}
					if r.kind == '-' || (check != nil && !check(i, r)) {
						if badN.Add(1) == 1 {
							mu.Lock()
							firstBad = fmt.Sprintf("request %d: %s", i, r.String())
							mu.Unlock()
						}
					}
				}
			}
		}(k, c)
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return badN.Load(), firstBad, e
		}
	}
	return badN.Load(), firstBad, nil
}

// The seed workload's request, on either server.

const (
	seedWindow = "60000"
	seedLimit  = "5"
)

// seedKind is how a server runs the seed check.
type seedKind int

const (
	seedRLCheck seedKind = iota // limitkv's native RL.CHECK
	seedEvalSHA                 // EVALSHA of the seed script
)

func (k seedKind) String() string {
	if k == seedRLCheck {
		return "RL.CHECK"
	}
	return "EVALSHA"
}

const hexDigits = "0123456789abcdef"

// appendSeed appends one sliding-window check for user u at ms with the
// member "<ms>:<8 hex digits of tag>".
func appendSeed(b []byte, kind seedKind, sha string, u int, ms int64, tag uint32) []byte {
	if kind == seedRLCheck {
		b = appendArrayHeader(b, 6)
		b = appendBulkString(b, "RL.CHECK")
	} else {
		b = appendArrayHeader(b, 8)
		b = appendBulkString(b, "EVALSHA")
		b = appendBulkString(b, sha)
		b = appendBulkString(b, "1")
	}
	var key [40]byte
	k := append(key[:0], "{t}:ratelimit:ai:user"...)
	k = strconv.AppendInt(k, int64(u), 10)
	b = appendBulk(b, k)
	b = appendBulkInt(b, ms)
	b = appendBulkString(b, seedWindow)
	b = appendBulkString(b, seedLimit)
	var mem [32]byte
	m := strconv.AppendInt(mem[:0], ms, 10)
	m = append(m, ':')
	for sh := 28; sh >= 0; sh -= 4 {
		m = append(m, hexDigits[(tag>>uint(sh))&15])
	}
	return appendBulk(b, m)
}

// seedGen makes load-generator clients for the seed workload over users
// uniformly random users, each request stamped with the real clock.
func seedGen(kind seedKind, sha string, users int) func(int) genFunc {
	return func(int) genFunc {
		return func(b []byte, rng *rand.Rand, now time.Time) []byte {
			return appendSeed(b, kind, sha, rng.IntN(users), now.UnixMilli(), rng.Uint32())
		}
	}
}

// cmdGen makes clients that send the same fixed command.
func cmdGen(args ...string) func(int) genFunc {
	pre := appendCmd(nil, args...)
	return func(int) genFunc {
		return func(b []byte, _ *rand.Rand, _ time.Time) []byte { return append(b, pre...) }
	}
}

// loadSeedScript loads the seed script and checks the SHA the brief names.
func loadSeedScript(s *server) (string, error) {
	r, err := s.Do("SCRIPT", "LOAD", seedScript)
	if err != nil {
		return "", err
	}
	if err := r.err(); err != nil {
		return "", err
	}
	if r.str != seedSHA {
		return "", fmt.Errorf("SCRIPT LOAD answered %q, want %s", r.str, seedSHA)
	}
	return r.str, nil
}

// preloadUsers records requests for users users.
// Each user gets seedLimit requests, so every one is at its limit: the seed
// load then refuses more than it records and the users' data stays the
// same size, which makes RSS before and after a storm comparable.
func preloadUsers(s *server, kind seedKind, users int) error {
	limit, _ := strconv.Atoi(seedLimit)
	bad, first, err := bulkLoad(s.Addr, 2, 1000, limit*users, func(b []byte, i int, now time.Time) []byte {
		return appendSeed(b, kind, seedSHA, i%users, now.UnixMilli(), uint32(i))
	}, nil)
	if err == nil && bad > 0 {
		err = fmt.Errorf("%d bad replies, first: %s", bad, first)
	}
	return err
}
