package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Workload 6: Pub/Sub under load. A fresh server; 1,000 subscribers, ten
// on each of 100 patterns (ch:<n>:*); one more subscriber on ch:* that never
// reads; the seed check running on its own clients (P1) throughout. After a
// quiet baseline, publishers flood the channels. What a user wants to know:
// does the check slow down, do the subscribers get every message, is the
// stuck subscriber dropped at its client-output-buffer-limit (pubsub class,
// set to psLimit on both servers) instead of growing the server without
// bound.

type pubsubResult struct {
	Server         string
	Kind           seedKind
	Subscribers    int
	Before, During windowStats // the seed check's latency
	Published      int64       // PUBLISH commands answered
	Receivers      int64       // sum of their replies (deliveries the server reports)
	Delivered      int64       // messages the reading subscribers got
	PubPerSec      float64
	StuckDropped   bool
	DroppedAfter   time.Duration // from the flood's start until the stuck subscriber's socket closed
	BaseRSS        int64
	PeakRSS        int64
	Err            string
}

const (
	psPatterns    = 100
	psPerPattern  = 10
	psPublishers  = 4
	psPayload     = 200
	psCheckClient = 20
	psLimit       = "pubsub 4mb 1mb 5"
)

func runPubSub(cfg *config, name, bin, dir string, kind seedKind) (res pubsubResult) {
	res = pubsubResult{Server: name, Kind: kind, Subscribers: psPatterns * psPerPattern}
	fail := func(err error) pubsubResult { res.Err = err.Error(); return res }
	s, err := startServer(name, bin, dir, false)
	if err != nil {
		return fail(err)
	}
	defer s.Stop()
	if kind == seedEvalSHA {
		if _, err := loadSeedScript(s); err != nil {
			return fail(fmt.Errorf("SCRIPT LOAD: %w", err))
		}
	}
	// A lower pubsub limit than the default 32 MB, the same on both, so
	// that the flood reaches it within seconds.
	if r, err := s.Do("CONFIG", "SET", "client-output-buffer-limit", psLimit); err != nil || r.err() != nil {
		return fail(fmt.Errorf("CONFIG SET client-output-buffer-limit: %v %v", r, err))
	}

	// Subscribers: each confirms its PSUBSCRIBE, then counts messages.
	var delivered atomic.Int64
	var subs []*conn
	defer func() {
		for _, c := range subs {
			c.Close()
		}
	}()
	var readers sync.WaitGroup
	for i := range res.Subscribers {
		c, err := dial(s.Addr)
		if err != nil {
			return fail(fmt.Errorf("subscriber %d: %w", i, err))
		}
		subs = append(subs, c)
		if _, err := c.Do("PSUBSCRIBE", "ch:"+strconv.Itoa(i%psPatterns)+":*"); err != nil {
			return fail(fmt.Errorf("subscriber %d: %w", i, err))
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				if _, err := c.read(); err != nil {
					return
				}
				delivered.Add(1)
			}
		}()
	}
	// The stuck one: a small receive buffer, and nobody reads it.
	stuck, err := net.DialTimeout("tcp", s.Addr, 2*time.Second)
	if err != nil {
		return fail(err)
	}
	defer stuck.Close()
	stuck.(*net.TCPConn).SetReadBuffer(4 << 10)
	if _, err := stuck.Write(appendCmd(nil, "PSUBSCRIBE", "ch:*")); err != nil {
		return fail(err)
	}

	stop := make(chan struct{})
	var loadRes *loadResult
	var loadErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		loadRes, loadErr = runLoad(loadSpec{Addr: s.Addr, Clients: psCheckClient, Pipeline: 1,
			NewGen: seedGen(kind, seedSHA, 100_000), Samples: true, Stop: stop})
	}()
	stopLoad := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}
	defer stopLoad()

	var peak atomic.Int64
	sample := func() {
		if r := s.RSS(); r > peak.Load() {
			peak.Store(r)
		}
	}
	watch := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			sample()
		}
	}
	watch(time.Second)
	baseFrom := time.Now()
	watch(2 * time.Second)
	baseTo := time.Now()
	res.BaseRSS = peak.Load()

	// The flood: publishers pipelining 16 PUBLISHes per round trip.
	floodStart := time.Now()
	floodFor := 6 * time.Second
	if cfg.quick {
		floodFor = 3 * time.Second
	}
	var published, receivers atomic.Int64
	var pubs sync.WaitGroup
	pubErr := make(chan error, psPublishers)
	payload := string(bytes.Repeat([]byte("p"), psPayload))
	for p := range psPublishers {
		pubs.Add(1)
		go func() {
			defer pubs.Done()
			c, err := dial(s.Addr)
			if err != nil {
				pubErr <- err
				return
			}
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			var b []byte
			for time.Since(floodStart) < floodFor {
				b = b[:0]
				for range 16 {
					b = appendCmd(b, "PUBLISH", "ch:"+strconv.Itoa(rng.IntN(psPatterns))+":x", payload)
				}
				if _, err := c.nc.Write(b); err != nil {
					pubErr <- err
					return
				}
				for range 16 {
					r, err := c.read()
					if err != nil {
						pubErr <- err
						return
					}
					published.Add(1)
					receivers.Add(r.n)
				}
			}
		}()
	}
	// Whether (and when) the stuck subscriber is dropped: its socket gives
	// EOF once the server closed it and the little it buffered is read.
	droppedAt := make(chan time.Duration, 1)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			// Read nothing until the flood has surely passed the limit
			// several times over, then drain to see the end.
			if time.Since(floodStart) < floodFor {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			stuck.SetReadDeadline(time.Now().Add(2 * time.Second))
			_, err := stuck.Read(buf)
			if errors.Is(err, io.EOF) || (err != nil && !isTimeout(err)) {
				droppedAt <- -1
				return
			}
			if err != nil {
				droppedAt <- -2 // still open, with nothing more to read
				return
			}
		}
	}()
	// The server's view: the stuck client leaves its client list.
	mon, err := dial(s.Addr)
	if err != nil {
		return fail(err)
	}
	defer mon.Close()
	clients0, _ := strconv.Atoi(infoOf(mon, "clients", "connected_clients"))
	for time.Since(floodStart) < floodFor {
		sample()
		if !res.StuckDropped {
			if n, _ := strconv.Atoi(infoOf(mon, "clients", "connected_clients")); n > 0 && n < clients0 {
				res.StuckDropped, res.DroppedAfter = true, time.Since(floodStart)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	pubs.Wait()
	select {
	case err := <-pubErr:
		return fail(fmt.Errorf("publisher: %w", err))
	default:
	}
	duringTo := time.Now()
	// Let the last messages arrive before counting.
	for prev := int64(-1); prev != delivered.Load(); {
		prev = delivered.Load()
		time.Sleep(200 * time.Millisecond)
	}
	stopLoad()
	if loadErr != nil {
		return fail(fmt.Errorf("seed load: %w", loadErr))
	}
	if d := <-droppedAt; d == -1 && !res.StuckDropped {
		res.StuckDropped, res.DroppedAfter = true, -1 // closed, but not seen while flooding
	}
	res.Before = statsBetween(loadRes, baseFrom, baseTo)
	res.During = statsBetween(loadRes, floodStart.Add(500*time.Millisecond), duringTo)
	res.Published, res.Receivers, res.Delivered = published.Load(), receivers.Load(), delivered.Load()
	res.PubPerSec = float64(res.Published) / duringTo.Sub(floodStart).Seconds()
	res.PeakRSS = peak.Load()
	return res
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func infoOf(c *conn, section, field string) string {
	r, err := c.Do("INFO", section)
	if err != nil {
		return ""
	}
	return infoField(r.str, field)
}

func (r pubsubResult) summary() string {
	if r.Err != "" {
		return "error: " + r.Err
	}
	return fmt.Sprintf("check p99 %.2f -> %.2f ms, %.0f PUBLISH/s, delivered %d of %d, stuck dropped %v after %v, RSS %d -> %d MB",
		ms(r.Before.P99), ms(r.During.P99), r.PubPerSec, r.Delivered, r.Receivers-stuckShare(r), r.StuckDropped, r.DroppedAfter.Round(10*time.Millisecond), r.BaseRSS>>20, r.PeakRSS>>20)
}

// stuckShare is the deliveries PUBLISH counted for the stuck subscriber
// (one per message while it was subscribed): the reading subscribers get
// the rest. Every PUBLISH matches one pattern of ten readers, plus ch:*
// while the stuck one is still there.
func stuckShare(r pubsubResult) int64 { return r.Receivers - r.Published*psPerPattern }
