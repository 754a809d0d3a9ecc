//go:build linux

package cluster

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestDialedPortListenable: the port a link dialed from can be listened on
// as soon as the link is closed, though its socket waits in TIME_WAIT (a
// node restarted on a bus port that was a peer's ephemeral port: the
// tests/cluster suite's restarted instances failed with "Failed listening
// on port ... (cluster)").
func TestDialedPortListenable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := busDialer(time.Second).Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	local := conn.LocalAddr().String()
	conn.Close() // the dialing side closes first: its socket goes to TIME_WAIT
	_ = peer.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := peer.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("peer read: %v", err)
	}
	peer.Close()
	time.Sleep(50 * time.Millisecond) // the last ACK
	again, err := net.Listen("tcp", local)
	if err != nil {
		t.Fatalf("listen on the dialed port %s: %v", local, err)
	}
	again.Close()
}
