package cluster

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clusterbus"
)

// frameStart is the 8 bytes clusterReadHandler checks first: the
// signature and a total length.
func frameStart(totlen uint32) []byte {
	b := []byte("RCmb\x00\x00\x00\x00")
	binary.BigEndian.PutUint32(b[4:], totlen)
	return b
}

// TestHostileInput: what is not a bus message closes its connection, and
// the node goes on answering real peers.
func TestHostileInput(t *testing.T) {
	n := startNode(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(n.cport))
	badVersion := clusterbus.Encode(&clusterbus.Message{Header: clusterbus.Header{Type: clusterbus.TypePing}, Body: &clusterbus.Ping{}})
	binary.BigEndian.PutUint16(badVersion[8:], 99)
	shortPing := clusterbus.Encode(&clusterbus.Message{Header: clusterbus.Header{Type: clusterbus.TypePing}, Body: &clusterbus.Ping{}})
	binary.BigEndian.PutUint16(shortPing[12:], 3) // count: 3 gossip entries that are not there
	for _, tc := range []struct {
		name string
		data []byte
		// hangUp closes our side after writing: the node must see the
		// message will never complete.
		hangUp bool
	}{
		{"garbage", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), false},
		{"short length", frameStart(16), false},
		{"huge length", frameStart(0xffffffff), false},
		{"truncated frame", append(frameStart(clusterbus.HeaderSize), make([]byte, 100)...), true},
		{"bad version", badVersion, false},
		{"length mismatch", shortPing, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write(tc.data); err != nil {
				t.Fatal(err)
			}
			if tc.hangUp {
				conn.(*net.TCPConn).CloseWrite()
			}
			_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
			if _, err := io.ReadAll(conn); errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatal("the node kept the connection open")
			}
			eventually(t, 2*time.Second, "the link to go", func() bool {
				n.e.Lock()
				defer n.e.Unlock()
				return len(n.bus.links) == 0
			})
		})
	}
	// Still serving: a MEET from a made-up node is answered with a PONG
	// and adds the node, in handshake.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	name := clusterbus.NewNodeName()
	meet := clusterbus.Encode(&clusterbus.Message{
		Header: clusterbus.Header{Type: clusterbus.TypeMeet, Sender: name, Port: 7000, CPort: 17000,
			Flags: clusterbus.NodeMaster | clusterbus.NodeMyself},
		Body: &clusterbus.Ping{},
	})
	if _, err := conn.Write(meet); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	pong, err := clusterbus.ReadMessage(conn, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if pong.Type != clusterbus.TypePong || pong.Sender.String() != n.id() {
		t.Fatalf("answer: type %v from %s", pong.Type, pong.Sender)
	}
	// The handshake node has a random name: it is found by its address.
	n.e.Lock()
	found := false
	for _, x := range n.st.Nodes() {
		if x.InHandshake() && x.IP == "127.0.0.1" && x.Port == 7000 && x.CPort == 17000 {
			found = true
		}
	}
	me := n.st.Myself.IP
	n.e.Unlock()
	if !found {
		t.Error("no handshake node for the MEET's sender")
	}
	if me != "127.0.0.1" {
		t.Errorf("myself's IP from the MEET: %q", me)
	}
}
