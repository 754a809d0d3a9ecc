package conformance

import (
	"sync"
	"testing"

	"github.com/limitkv/limitkv"
)

// limitkvInProcess reports whether the limitkv side runs inside this test
// process, so that tests can measure its memory with runtime.ReadMemStats.
const limitkvInProcess = true

// launchLimitkv starts one in-process limitkv server on a free loopback port,
// with the real clock. stop is idempotent.
func launchLimitkv() (addr string, stop func(), err error) {
	srv, err := limitkv.Start(limitkv.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		return "", nil, err
	}
	var once sync.Once
	return srv.Addr(), func() { once.Do(func() { srv.Close() }) }, nil
}

// startLimitkv starts a fresh, private limitkv server for one test (for tests
// that need a pristine or specially configured server); it is stopped at the
// end of the test. Most tests use the shared one at limitkvAddr instead.
func startLimitkv(tb testing.TB) (addr string, stop func()) {
	tb.Helper()
	requireServers(tb)
	addr, stop, err := launchLimitkv()
	if err != nil {
		tb.Fatalf("start limitkv: %v", err)
	}
	tb.Cleanup(stop)
	return addr, stop
}
