package server

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests of what the event loop adds to the front (the rest of this
// package's tests run on it too: the loop is the default front).

// goroutineListener hides the *net.TCPConn type, so the server serves the
// connections it accepts with a goroutine each: one server then has
// clients on both fronts.
type goroutineListener struct{ net.Listener }

type hiddenConn struct{ net.Conn }

func (l goroutineListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return hiddenConn{nc}, nil
}

// TestLoopWokenByOtherGoroutine: a loop client blocked in BZPOPMIN is served
// by a write that a goroutine-front client makes, i.e. from outside the
// loop: the loop must be woken to write the reply.
func TestLoopWokenByOtherGoroutine(t *testing.T) {
	s := startServer(t, nil, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(goroutineListener{ln})

	waiter := dial(t, s.addr)
	waiter.send("BZPOPMIN", "wk", "0")
	time.Sleep(50 * time.Millisecond)
	writer := dial(t, ln.Addr().String())
	if r := writer.do("ZADD", "wk", "1", "m"); r != ":1\r\n" {
		t.Fatalf("ZADD: %q", r)
	}
	if r, err := waiter.read(2 * time.Second); r != "*3\r\n$2\r\nwk\r\n$1\r\nm\r\n$1\r\n1\r\n" {
		t.Fatalf("woken BZPOPMIN: %q, %v", r, err)
	}
	// And the other way round: a goroutine client woken by a loop client.
	writer.send("BZPOPMIN", "wk2", "0")
	time.Sleep(50 * time.Millisecond)
	if r := waiter.do("ZADD", "wk2", "2", "n"); r != ":1\r\n" {
		t.Fatalf("ZADD: %q", r)
	}
	if r, err := writer.read(2 * time.Second); r != "*3\r\n$3\r\nwk2\r\n$1\r\nn\r\n$1\r\n2\r\n" {
		t.Fatalf("woken BZPOPMIN: %q, %v", r, err)
	}
	// The woken loop client goes on with what it sends next.
	if r := waiter.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING after being woken: %q", r)
	}
}

// TestLoopCommandsAfterBlockingInOneBatch: commands pipelined behind a
// blocking command wait for it, then run in order.
func TestLoopCommandsAfterBlockingInOneBatch(t *testing.T) {
	s := startServer(t, nil, nil)
	c := dial(t, s.addr)
	var b bytes.Buffer
	b.Write(encode("BZPOPMIN", "bq", "0.2"))
	b.Write(encode("ECHO", "after"))
	b.Write(encode("ZADD", "bq", "1", "x"))
	b.Write(encode("BZPOPMIN", "bq", "0"))
	c.nc.Write(b.Bytes())
	want := []string{"*-1\r\n", "$5\r\nafter\r\n", ":1\r\n", "*3\r\n$2\r\nbq\r\n$1\r\nx\r\n$1\r\n1\r\n"}
	for i, w := range want {
		if r, err := c.read(3 * time.Second); r != w {
			t.Fatalf("reply %d: %q (%v), want %q", i, r, err, w)
		}
	}
}

// TestLoopManyClients: many clients sending at once are all answered, each
// in its own order, with their pipelines larger than one read.
func TestLoopManyClients(t *testing.T) {
	s := startServer(t, nil, nil)
	const clients, per = 64, 3000
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := dial(t, s.addr)
			var b bytes.Buffer
			for j := range per {
				b.Write(encode("ECHO", fmt.Sprintf("%d-%d", i, j)))
			}
			go c.nc.Write(b.Bytes())
			for j := range per {
				r, err := c.read(10 * time.Second)
				v := fmt.Sprintf("%d-%d", i, j)
				if want := fmt.Sprintf("$%d\r\n%s\r\n", len(v), v); r != want {
					errs <- fmt.Errorf("client %d reply %d: %q (%v), want %q", i, j, r, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestLoopHalfClose: a client that sends its commands and shuts down its
// write side still gets every reply, then the close.
func TestLoopHalfClose(t *testing.T) {
	s := startServer(t, nil, nil)
	c := dial(t, s.addr)
	c.nc.Write([]byte(strings.Repeat("PING\r\n", 100)))
	c.nc.(*net.TCPConn).CloseWrite()
	for i := range 100 {
		if r, err := c.read(2 * time.Second); r != "+PONG\r\n" {
			t.Fatalf("reply %d: %q, %v", i, r, err)
		}
	}
	if !c.closedWithin(2 * time.Second) {
		t.Fatal("connection not closed after the client's EOF")
	}
}

// TestLoopKillFromOtherClient: CLIENT KILL of a loop client closes its
// socket at once, even while it sits idle.
func TestLoopKillFromOtherClient(t *testing.T) {
	s := startServer(t, nil, nil)
	victim := dial(t, s.addr)
	id := victim.do("CLIENT", "ID")
	killer := dial(t, s.addr)
	if r := killer.do("CLIENT", "KILL", "ID", strings.Trim(id, ":\r\n")); r != ":1\r\n" {
		t.Fatalf("CLIENT KILL: %q", r)
	}
	if !victim.closedWithin(2 * time.Second) {
		t.Fatal("killed client still connected")
	}
}
