package server

import (
	"context"
	"crypto/tls"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/testpki"
	"github.com/limitkv/limitkv/internal/testredis"
	"github.com/redis/go-redis/v9"
)

// startTLS serves a fresh engine on a TLS listener with tls-auth-clients auth.
func startTLS(t testing.TB, p *testpki.PKI, auth string, cfg *config.Config, setup ...func(*Server)) *testServer {
	t.Helper()
	tcfg, err := TLSConfig(TLSOptions{CertFile: p.ServerCert, KeyFile: p.ServerKey, CAFile: p.CAFile, AuthClients: auth})
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, cfg, func(ln net.Listener) net.Listener { return tls.NewListener(ln, tcfg) }, setup...)
}

func goRedis(t testing.TB, addr string, tc *tls.Config) *redis.Client {
	// The read timeout allows for 80 MB of TLS replies under the race
	// detector on a loaded 2-core machine; nothing here tests timing.
	rdb := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: tc, MaxRetries: -1, DialTimeout: 2 * time.Second, ReadTimeout: 20 * time.Second})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestTLSConfigErrors(t *testing.T) {
	p := testpki.New(t)
	for _, tc := range []struct {
		name string
		o    TLSOptions
		want string
	}{
		{"no cert", TLSOptions{KeyFile: p.ServerKey, CAFile: p.CAFile}, "tls-cert-file and tls-key-file"},
		{"missing file", TLSOptions{CertFile: p.ServerCert + ".nope", KeyFile: p.ServerKey, CAFile: p.CAFile}, "loading"},
		{"key of another cert", TLSOptions{CertFile: p.ServerCert, KeyFile: p.ClientKey, CAFile: p.CAFile}, "loading"},
		{"auth yes without CA", TLSOptions{CertFile: p.ServerCert, KeyFile: p.ServerKey}, "needs tls-ca-cert-file"},
		{"bad CA file", TLSOptions{CertFile: p.ServerCert, KeyFile: p.ServerKey, CAFile: p.ServerKey}, "no PEM certificate"},
		{"bad auth mode", TLSOptions{CertFile: p.ServerCert, KeyFile: p.ServerKey, CAFile: p.CAFile, AuthClients: "maybe"}, "tls-auth-clients"},
	} {
		if _, err := TLSConfig(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if c, err := TLSConfig(TLSOptions{CertFile: p.ServerCert, KeyFile: p.ServerKey, AuthClients: "no"}); err != nil || c.MinVersion != tls.VersionTLS12 {
		t.Errorf("auth no without CA: %v", err)
	}
}

func TestTLSClientAuth(t *testing.T) {
	p := testpki.New(t)
	ctx := context.Background()
	for _, tc := range []struct {
		auth string
		// outcomes for: no client certificate, one from our CA, one from another CA
		none, ours, stranger bool
	}{
		{"yes", false, true, false},
		{"optional", true, true, false},
		{"no", true, true, true},
	} {
		t.Run(tc.auth, func(t *testing.T) {
			s := startTLS(t, p, tc.auth, nil)
			for _, c := range []struct {
				name  string
				certs []tls.Certificate
				want  bool
			}{{"no certificate", nil, tc.none}, {"our CA", []tls.Certificate{p.Client}, tc.ours}, {"other CA", []tls.Certificate{p.Stranger}, tc.stranger}} {
				rdb := goRedis(t, s.addr, p.ClientTLS(c.certs...))
				err := rdb.Set(ctx, "k", c.name, 0).Err()
				if (err == nil) != c.want {
					t.Errorf("%s: SET error %v, want success %v", c.name, err, c.want)
					continue
				}
				if c.want {
					if v, err := rdb.Get(ctx, "k").Result(); v != c.name || err != nil {
						t.Errorf("%s: GET %q, %v", c.name, v, err)
					}
				}
			}
		})
	}
}

func TestTLSServing(t *testing.T) {
	p := testpki.New(t)
	s := startTLS(t, p, "yes", nil, func(s *Server) { s.HandshakeTimeout = 300 * time.Millisecond })
	ctx := context.Background()
	rdb := goRedis(t, s.addr, p.ClientTLS(p.Client))

	t.Run("big values and pipelines", func(t *testing.T) {
		big := strings.Repeat("z", 4<<20)
		if err := rdb.Set(ctx, "big", big, 0).Err(); err != nil {
			t.Fatal(err)
		}
		pipe := rdb.Pipeline()
		gets := make([]*redis.StringCmd, 20)
		for i := range gets {
			gets[i] = pipe.Get(ctx, "big")
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for i, g := range gets {
			if g.Val() != big {
				t.Fatalf("GET %d over TLS: %d bytes", i, len(g.Val()))
			}
		}
	})
	t.Run("TLS 1.1 refused", func(t *testing.T) {
		tc := p.ClientTLS(p.Client)
		tc.MinVersion, tc.MaxVersion = tls.VersionTLS10, tls.VersionTLS11
		nc, err := tls.Dial("tcp", s.addr, tc)
		if err == nil {
			nc.Close()
			t.Fatal("TLS 1.1 handshake succeeded")
		}
	})
	t.Run("silent client dropped after the handshake timeout", func(t *testing.T) {
		c := dial(t, s.addr)
		start := time.Now()
		if !c.closedWithin(3 * time.Second) {
			t.Fatal("a TCP client that never starts the handshake is kept")
		}
		if d := time.Since(start); d < 250*time.Millisecond {
			t.Fatalf("closed after %v, before the handshake timeout", d)
		}
	})
	t.Run("plaintext on the TLS port", func(t *testing.T) {
		c := dial(t, s.addr)
		c.nc.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		if !c.closedWithin(3 * time.Second) {
			t.Fatal("plaintext client kept open")
		}
	})
	t.Run("still serving", func(t *testing.T) {
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTLSMaxClients(t *testing.T) {
	p := testpki.New(t)
	cfg := config.DefaultConfig()
	cfg.MaxClients.Store(1)
	s := startTLS(t, p, "yes", cfg)
	first, err := tls.Dial("tcp", s.addr, p.ClientTLS(p.Client))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	c := wrapConn(t, first)
	if r := c.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("first client: %q", r)
	}
	// Past maxclients a TLS client is dropped before the handshake, as Redis
	// does: no error text can reach it.
	second, err := tls.Dial("tcp", s.addr, p.ClientTLS(p.Client))
	if err == nil {
		c2 := wrapConn(t, second)
		c2.send("PING")
		if r, err := c2.read(2 * time.Second); err == nil {
			t.Fatalf("second client served past maxclients 1: %q", r)
		}
		second.Close()
	}
}

// TestTLSRedisCli talks to the TLS port with Debian's redis-cli.
func TestTLSRedisCli(t *testing.T) {
	cli, err := testredis.FindTool("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	if out, _ := exec.Command(cli, "--help").CombinedOutput(); !strings.Contains(string(out), "--tls") {
		t.Skip("this redis-cli has no TLS support")
	}
	p := testpki.New(t)
	s := startTLS(t, p, "yes", nil)
	host, port, _ := net.SplitHostPort(s.addr)
	run := func(withCert bool, args ...string) (string, error) {
		base := []string{"--tls", "--cacert", p.CAFile, "-h", host, "-p", port}
		if withCert {
			base = append(base, "--cert", p.ClientCert, "--key", p.ClientKey)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, cli, append(base, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := run(true, "PING"); out != "PONG" {
		t.Fatalf("redis-cli --tls PING: %q, %v", out, err)
	}
	if out, err := run(true, "SET", "k", "over tls"); out != "OK" {
		t.Fatalf("SET: %q, %v", out, err)
	}
	if out, err := run(true, "GET", "k"); out != "over tls" {
		t.Fatalf("GET: %q, %v", out, err)
	}
	if out, _ := run(false, "PING"); out == "PONG" {
		t.Fatal("redis-cli without a client certificate was served under tls-auth-clients yes")
	}
}
