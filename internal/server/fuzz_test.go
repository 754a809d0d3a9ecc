package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"
)

// FuzzServerStream writes arbitrary bytes to a live connection (in one or
// two writes, split where the fuzzer says), half-closes it, and requires
// that the server answers with well-formed RESP only, closes the connection
// in bounded time (once a script running forever is killed), and still
// serves a new connection; then that Close does not hang. Each input gets a fresh server, so settings it changes (CONFIG
// SET) do not leak into the next.
func FuzzServerStream(f *testing.F) {
	for _, s := range []string{
		"*1\r\n$4\r\nPING\r\n",
		"PING\r\nECHO \"a b\" 'c'\r\n\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"*1\r\n$9223372036854775807\r\n",
		"*-1\r\n*0\r\n*1\r\n$-1\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nabcxx*1\r\n$4\r\nPING\r\n",
		"\x00\x00\x00\r\n",
		"ECHO \"\\x41\\",
		"MULTI\r\nSET a 1\r\nINCR a\r\nEXEC\r\n",
		"MULTI\r\nMULTI\r\nEXEC\r\nDISCARD\r\n",
		"EVAL \"return redis.call('incr', KEYS[1])\" 1 n\r\n",
		"EVAL \"while true do end\" 0\r\nPING\r\n",
		"CONFIG SET requirepass x\r\nPING\r\n",
		"CONFIG SET maxclients 1\r\n",
		"CONFIG SET timeout 1\r\nPING\r\n",
		"CONFIG SET maxmemory 1\r\nSET a b\r\nGET a\r\n",
		"CONFIG SET client-query-buffer-limit 1mb\r\n*2\r\n$4\r\nECHO\r\n$2000000\r\n",
		"CLIENT KILL ID 1\r\nPING\r\n",
		"CLIENT SETNAME x\r\nCLIENT LIST\r\nCLIENT INFO\r\n",
		"SHUTDOWN NOSAVE\r\nPING\r\n",
		"QUIT\r\nPING\r\n",
		"HELLO 2 AUTH default x\r\nRESET\r\n",
		"BZPOPMIN nokey 0\r\nPING\r\n",
		"SUBSCRIBE ch\r\n",
		"SETRANGE big 1000000 x\r\nGET big\r\nGET big\r\n",
		"RL.CHECK rl 10 1000 1\r\nRL.PEEK rl 10 1000\r\n",
		"ZADD z 1 a 2 b\r\nZRANGE z 0 -1 WITHSCORES\r\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(len(s)/2))
	}
	// A byte arriving while the client is blocked, then EOF: the server must
	// keep watching the socket (it once stopped after one byte and hung).
	f.Add([]byte("BZPOPMIN nokey 0\r\nPING\r\n"), uint8(23))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		cfg := config.DefaultConfig()
		cfg.BusyThreshold.Store(50)
		cfg.ProtoMaxBulkLen.Store(1 << 20)
		s := startServer(t, cfg, nil)
		nc, err := net.DialTimeout("tcp", s.addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		go func() {
			nc.SetWriteDeadline(time.Now().Add(2 * time.Second))
			at := 0
			if len(data) > 0 {
				at = int(split) % (len(data) + 1)
			}
			if _, err := nc.Write(data[:at]); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
			if _, err := nc.Write(data[at:]); err != nil {
				return
			}
			nc.(*net.TCPConn).CloseWrite()
		}()
		// A script may run forever (it would in Redis too): once it is past
		// the threshold, another client kills it, and when SCRIPT KILL
		// cannot (the script wrote, or needs AUTH), the test aborts it.
		readDone := make(chan struct{})
		killerDone := make(chan struct{})
		go func() {
			defer close(killerDone)
			for range 10 {
				select {
				case <-readDone:
					return
				case <-time.After(300 * time.Millisecond):
				}
				if r := scriptKill(s.addr); r != "+OK\r\n" && !strings.HasPrefix(r, "-NOTBUSY") {
					s.E.AbortScripts()
				}
			}
		}()
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		out, err := io.ReadAll(nc)
		close(readDone)
		<-killerDone
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("connection still open 5 s after the client half-closed it (input %q)", truncate(data))
		}
		br := bufio.NewReader(bytes.NewReader(out))
		for {
			if _, err := br.Peek(1); err == io.EOF {
				break
			}
			var sb strings.Builder
			if err := readValue(br, &sb); err != nil {
				t.Fatalf("malformed reply stream (%v) for input %q: %q", err, truncate(data), truncate(out))
			}
		}
		c := dial(t, s.addr)
		if r := c.do("PING"); r != "+PONG\r\n" && r != "-"+engine.ErrNoAuth+"\r\n" {
			t.Fatalf("PING on a new connection after input %q: %q", truncate(data), r)
		}
	})
}

// scriptKill sends SCRIPT KILL on a new connection and returns the reply's
// first line ("" on failure).
func scriptKill(addr string) string {
	nc, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return ""
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := nc.Write([]byte("SCRIPT KILL\r\n")); err != nil {
		return ""
	}
	line, _ := bufio.NewReader(nc).ReadString('\n')
	return line
}

func truncate(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}
