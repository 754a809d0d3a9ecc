package engine

import (
	"bufio"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"time"

	"github.com/limitkv/limitkv/internal/rdb"
)

// Loading at start. Redis opens its listeners before it loads its file
// (loadDataFromDisk runs after initServer), and while it loads it answers
// every command without the loading flag with the LOADING error, serving
// its clients between chunks of the file (processEventsWhileBlocked, every
// loading-process-events-interval-bytes). limitkv does the same: the loader
// holds the lock and gives it up every loadYieldBytes of the file, so
// clients waiting for it are answered meanwhile. Clients that retry on
// LOADING (go-redis, redis-py, Lettuce do) connect to a restarting server
// and wait for its data rather than failing to connect.

// ErrLoadAborted is what LoadFile returns when a shutdown (SHUTDOWN, or
// ShutdownSave at SIGTERM) stopped the load: the server is to exit
// without saving the half-loaded dataset.
var ErrLoadAborted = errors.New("shutdown requested while loading")

// loadState is the load in progress, for the LOADING error and INFO
// persistence's loading_* fields. Guarded by the engine lock.
type LoadState struct {
	On      bool
	Abort   bool  // a shutdown arrived: stop at the next chunk
	Start   int64 // unix seconds
	Total   int64 // the file's size
	usedMem int64 // its used-mem aux field, once read
	Read    *CountingReader
	Br      *bufio.Reader
	yielded int64 // bytes loaded at the last yield
}

type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}

// loaded is how much of the file the parser has consumed (what bufio read
// ahead is not loaded yet).
func (l *LoadState) loaded() int64 {
	if l.Read == nil {
		return 0
	}
	return l.Read.N - int64(l.Br.Buffered())
}

// loadYield lets the clients waiting for the lock run, once per
// loadYieldBytes of the file. Only the load at start yields: DEBUG RELOAD
// runs inside a command, with the lock its caller holds.
func (e *Engine) LoadYield(rd *rdb.Reader) error {
	l := &e.StartLoad
	if d := e.Cfg.KeyLoadDelay.Load(); d != 0 {
		debugDelay(d)
	}
	if n := l.loaded(); n-l.yielded >= e.Cfg.LoadingEventsBytes.Load() {
		if l.usedMem == 0 {
			for _, a := range rd.Aux {
				if string(a.Key) == "used-mem" {
					l.usedMem, _ = strconv.ParseInt(string(a.Value), 10, 64)
				}
			}
		}
		l.yielded = n
		e.mu.Unlock()
		// The loader has held the lock long enough for Go's mutex to
		// be in starvation mode, so the waiters get it first.
		runtime.Gosched()
		e.mu.Lock()
	}
	if l.Abort {
		return ErrLoadAborted
	}
	return nil
}

// loadingDenied is processCommand's rule: while loading, only commands
// with the loading flag run, and EXEC only if all it queued have it.
func loadingDenied(c *Client, cmd *Command) bool { return execLacks(c, cmd, FlagLoading) }

// Loading reports whether the server is loading its file at start.
func (e *Engine) Loading() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.StartLoad.On
}

// loadingInfo appends INFO persistence's loading_* fields, computed as
// Redis computes them.
func (e *Engine) LoadingInfo(b *InfoBuf) {
	l := &e.StartLoad
	loaded := l.loaded()
	perc := 0.0
	remaining := int64(1)
	switch {
	case l.Total > 0:
		perc = float64(loaded) / float64(l.Total) * 100
		remaining = l.Total - loaded
	case l.usedMem > 0:
		perc = min(float64(loaded)/float64(l.usedMem)*100, 99.99)
		remaining = max(l.usedMem-loaded, 1)
	}
	elapsed := e.Clock.Now().Unix() - l.Start
	eta := int64(1) // Redis's "fake 1 second figure" before a second has passed
	if elapsed != 0 {
		eta = elapsed * remaining / (loaded + 1)
	}
	b.Kv("loading_start_time", strconv.FormatInt(l.Start, 10))
	b.Kv("loading_total_bytes", strconv.FormatInt(l.Total, 10))
	b.Kv("loading_rdb_used_mem", strconv.FormatInt(l.usedMem, 10))
	b.Kv("loading_loaded_bytes", strconv.FormatInt(loaded, 10))
	b.Kv("loading_loaded_perc", strconv.FormatFloat(perc, 'f', 2, 64))
	b.Kv("loading_eta_seconds", strconv.FormatInt(eta, 10))
}

// debugDelay is Redis's: sleep usec per key, or, negative, sleep 1 µs once
// in -usec keys on average.
func debugDelay(usec int64) {
	if usec < 0 {
		if rand.Int64N(-usec) != 0 {
			return
		}
		usec = 1
	}
	time.Sleep(time.Duration(usec) * time.Microsecond)
}
