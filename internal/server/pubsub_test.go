package server

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
)

// The Pub/Sub push path on both fronts: messages reach subscribers idle in
// a read (the goroutine front's pusher) and loop connections alike, in
// order, while a subscriber that stops reading is dropped at its pubsub
// output limit and costs nobody else anything.
func TestPubSubFronts(t *testing.T) {
	for _, front := range []string{"loop", "goroutine"} {
		t.Run(front, func(t *testing.T) {
			s := startServer(t, nil, nil, func(s *Server) { s.Front = front })
			t.Run("many publishers, every message in order", func(t *testing.T) { testPubSubOrder(t, s) })
			t.Run("stuck subscriber dropped", func(t *testing.T) { testPubSubStuck(t, s) })
			t.Run("soft limit", func(t *testing.T) { testPubSubSoft(t, s) })
		})
	}
}

func testPubSubOrder(t *testing.T, s *testServer) {
	const subs, pubs, perPub = 8, 4, 300
	var readers []*client
	for i := range subs {
		c := dial(t, s.addr)
		if i%2 == 0 {
			c.do("SUBSCRIBE", "ord")
		} else {
			c.do("PSUBSCRIBE", "o*")
		}
		readers = append(readers, c)
	}
	var wg sync.WaitGroup
	for p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := dial(t, s.addr)
			for i := range perPub {
				if r := c.do("PUBLISH", "ord", fmt.Sprintf("%d:%d", p, i)); r != fmt.Sprintf(":%d\r\n", subs) {
					t.Errorf("PUBLISH answered %q", r)
					return
				}
			}
		}()
	}
	for i, c := range readers {
		next := make([]int, pubs)
		for range pubs * perPub {
			r, err := c.read(10 * time.Second)
			if err != nil {
				t.Fatalf("subscriber %d after %v: %v", i, next, err)
			}
			var p, n int
			payload := r[strings.LastIndex(strings.TrimSuffix(r, "\r\n"), "\n")+1 : len(r)-2]
			if _, err := fmt.Sscanf(payload, "%d:%d", &p, &n); err != nil {
				t.Fatalf("subscriber %d: message %q", i, r)
			}
			if n != next[p] {
				t.Fatalf("subscriber %d: publisher %d's message %d arrived when %d was due", i, p, n, next[p])
			}
			next[p]++
		}
	}
	wg.Wait()
	for _, c := range readers {
		c.nc.Close()
	}
}

func testPubSubStuck(t *testing.T, s *testServer) {
	lim, _ := config.DefaultOutputLimits.Set(strings.Fields("pubsub 256kb 0 0"))
	s.cfg.SetOutputLimits(lim)
	defer s.cfg.SetOutputLimits(config.DefaultOutputLimits)

	stuck := dial(t, s.addr)
	stuck.do("SUBSCRIBE", "flood")
	reader := dial(t, s.addr)
	reader.do("SUBSCRIBE", "flood")
	pub := dial(t, s.addr)
	msg := strings.Repeat("m", 1024)
	got := make(chan int, 1)
	var progress atomic.Int64
	go func() {
		n := 0
		for {
			if _, err := reader.read(10 * time.Second); err != nil {
				break
			}
			progress.Add(1)
			if n++; n == 5000 {
				break
			}
		}
		got <- n
	}()
	// 5 MB of messages: far past what the stuck one's socket buffers and
	// its 256 KB limit hold together.
	// In windows of 20 as a publisher waiting for its replies sends
	// them: a reader that keeps up is never near its limit.
	// The reader is let a window behind at most: on a machine starved of
	// CPU its goroutine could otherwise fall 256 KB behind and be dropped
	// as rightly as the stuck one.
	start := time.Now()
	for w := range 250 {
		for range 20 {
			pub.send("PUBLISH", "flood", msg)
		}
		for range 20 {
			if _, err := pub.read(10 * time.Second); err != nil {
				t.Fatal(err)
			}
		}
		for deadline := time.Now().Add(10 * time.Second); progress.Load() < int64(w*20) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	if n := <-got; n != 5000 {
		t.Fatalf("the reading subscriber got %d of 5000 messages", n)
	}
	t.Logf("5000 publishes with a stuck subscriber took %v", time.Since(start))
	if !stuck.closedWithin(5 * time.Second) {
		t.Fatal("the stuck subscriber was not dropped")
	}
	if r := pub.do("PUBSUB", "NUMSUB", "flood"); r != "*2\r\n$5\r\nflood\r\n:1\r\n" {
		t.Fatalf("after the drop, NUMSUB answered %q", r)
	}
	alive(t, s.addr)
}

func testPubSubSoft(t *testing.T, s *testServer) {
	lim, _ := config.DefaultOutputLimits.Set(strings.Fields("pubsub 0 128kb 1"))
	s.cfg.SetOutputLimits(lim)
	defer s.cfg.SetOutputLimits(config.DefaultOutputLimits)
	stuck := dial(t, s.addr)
	stuck.nc.(*net.TCPConn).SetReadBuffer(4 << 10)
	stuck.do("SUBSCRIBE", "soft")
	pub := dial(t, s.addr)
	msg := strings.Repeat("s", 16<<10)
	// Keep it over the soft limit (but under no hard one) for longer than
	// its second; pace the publishing so that it is time, not volume, that
	// drops it.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if r := pub.do("PUBLISH", "soft", msg); r == ":0\r\n" {
			return // dropped: the publisher no longer reaches it
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("a subscriber over the soft limit for 5 s was not dropped")
}
