package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/commands"
	"github.com/redis/go-redis/v9"
)

// testPKI is a CA, a server certificate for 127.0.0.1 and localhost, a
// client certificate from the same CA and one from an unrelated CA, as PEM
// files in a temporary directory.
type testPKI struct {
	dir                       string
	caFile                    string
	serverCert, serverKey     string
	clientCert, clientKey     string
	strangerCert, strangerKey string
	caPool                    *x509.CertPool
	client, stranger          tls.Certificate
}

func newPKI(t testing.TB) *testPKI {
	t.Helper()
	dir := t.TempDir()
	p := &testPKI{dir: dir}
	ca, caKey := makeCA(t, "limitkv test CA")
	other, otherKey := makeCA(t, "some other CA")
	p.caFile = writePEM(t, dir, "ca.crt", "CERTIFICATE", ca.Raw)
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(ca)

	p.serverCert, p.serverKey = makeLeaf(t, dir, "server", ca, caKey, x509.ExtKeyUsageServerAuth)
	p.clientCert, p.clientKey = makeLeaf(t, dir, "client", ca, caKey, x509.ExtKeyUsageClientAuth)
	p.strangerCert, p.strangerKey = makeLeaf(t, dir, "stranger", other, otherKey, x509.ExtKeyUsageClientAuth)
	var err error
	if p.client, err = tls.LoadX509KeyPair(p.clientCert, p.clientKey); err != nil {
		t.Fatal(err)
	}
	if p.stranger, err = tls.LoadX509KeyPair(p.strangerCert, p.strangerKey); err != nil {
		t.Fatal(err)
	}
	return p
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func serial(t testing.TB) *big.Int {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func makeCA(t testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func makeLeaf(t testing.TB, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, usage x509.ExtKeyUsage) (certFile, keyFile string) {
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, dir, name+".crt", "CERTIFICATE", der), writePEM(t, dir, name+".key", "EC PRIVATE KEY", kder)
}

func writePEM(t testing.TB, dir, name, typ string, der []byte) string {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startTLS serves a fresh engine on a TLS listener with tls-auth-clients auth.
func startTLS(t testing.TB, p *testPKI, auth string, cfg *commands.Config, setup ...func(*Server)) *testServer {
	t.Helper()
	tcfg, err := TLSConfig(TLSOptions{CertFile: p.serverCert, KeyFile: p.serverKey, CAFile: p.caFile, AuthClients: auth})
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, cfg, func(ln net.Listener) net.Listener { return tls.NewListener(ln, tcfg) }, setup...)
}

// clientTLS presents certs (at most one) whatever CAs the server asks for:
// Go's client would otherwise keep a certificate from another CA to itself.
func (p *testPKI) clientTLS(certs ...tls.Certificate) *tls.Config {
	c := &tls.Config{RootCAs: p.caPool, ServerName: "127.0.0.1"}
	if len(certs) > 0 {
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &certs[0], nil }
	}
	return c
}

func goRedis(t testing.TB, addr string, tc *tls.Config) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: tc, MaxRetries: -1, DialTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestTLSConfigErrors(t *testing.T) {
	p := newPKI(t)
	for _, tc := range []struct {
		name string
		o    TLSOptions
		want string
	}{
		{"no cert", TLSOptions{KeyFile: p.serverKey, CAFile: p.caFile}, "tls-cert-file and tls-key-file"},
		{"missing file", TLSOptions{CertFile: p.serverCert + ".nope", KeyFile: p.serverKey, CAFile: p.caFile}, "loading"},
		{"key of another cert", TLSOptions{CertFile: p.serverCert, KeyFile: p.clientKey, CAFile: p.caFile}, "loading"},
		{"auth yes without CA", TLSOptions{CertFile: p.serverCert, KeyFile: p.serverKey}, "needs tls-ca-cert-file"},
		{"bad CA file", TLSOptions{CertFile: p.serverCert, KeyFile: p.serverKey, CAFile: p.serverKey}, "no PEM certificate"},
		{"bad auth mode", TLSOptions{CertFile: p.serverCert, KeyFile: p.serverKey, CAFile: p.caFile, AuthClients: "maybe"}, "tls-auth-clients"},
	} {
		if _, err := TLSConfig(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if c, err := TLSConfig(TLSOptions{CertFile: p.serverCert, KeyFile: p.serverKey, AuthClients: "no"}); err != nil || c.MinVersion != tls.VersionTLS12 {
		t.Errorf("auth no without CA: %v", err)
	}
}

func TestTLSClientAuth(t *testing.T) {
	p := newPKI(t)
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
			}{{"no certificate", nil, tc.none}, {"our CA", []tls.Certificate{p.client}, tc.ours}, {"other CA", []tls.Certificate{p.stranger}, tc.stranger}} {
				rdb := goRedis(t, s.addr, p.clientTLS(c.certs...))
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
	p := newPKI(t)
	s := startTLS(t, p, "yes", nil, func(s *Server) { s.HandshakeTimeout = 300 * time.Millisecond })
	ctx := context.Background()
	rdb := goRedis(t, s.addr, p.clientTLS(p.client))

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
		tc := p.clientTLS(p.client)
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
	p := newPKI(t)
	cfg := commands.DefaultConfig()
	cfg.MaxClients.Store(1)
	s := startTLS(t, p, "yes", cfg)
	first, err := tls.Dial("tcp", s.addr, p.clientTLS(p.client))
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
	second, err := tls.Dial("tcp", s.addr, p.clientTLS(p.client))
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
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	if out, _ := exec.Command(cli, "--help").CombinedOutput(); !strings.Contains(string(out), "--tls") {
		t.Skip("this redis-cli has no TLS support")
	}
	p := newPKI(t)
	s := startTLS(t, p, "yes", nil)
	host, port, _ := net.SplitHostPort(s.addr)
	run := func(withCert bool, args ...string) (string, error) {
		base := []string{"--tls", "--cacert", p.caFile, "-h", host, "-p", port}
		if withCert {
			base = append(base, "--cert", p.clientCert, "--key", p.clientKey)
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
