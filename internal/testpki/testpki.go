// Package testpki makes throwaway TLS certificates for tests: a CA, a
// server certificate for 127.0.0.1 and localhost, a client certificate from
// the same CA and one from an unrelated CA, as PEM files in the test's
// temporary directory. Only tests import it.
package testpki

import (
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
	"path/filepath"
	"testing"
	"time"
)

// PKI holds the files (paths) and, loaded, what Go code needs of them.
type PKI struct {
	Dir                       string
	CAFile                    string
	ServerCert, ServerKey     string
	ClientCert, ClientKey     string
	StrangerCert, StrangerKey string
	CAPool                    *x509.CertPool
	Server, Client, Stranger  tls.Certificate
}

// New makes a PKI in t's temporary directory.
func New(t testing.TB) *PKI {
	t.Helper()
	dir := t.TempDir()
	p := &PKI{Dir: dir}
	ca, caKey := makeCA(t, "limitkv test CA")
	other, otherKey := makeCA(t, "some other CA")
	p.CAFile = writePEM(t, dir, "ca.crt", "CERTIFICATE", ca.Raw)
	p.CAPool = x509.NewCertPool()
	p.CAPool.AddCert(ca)

	p.ServerCert, p.ServerKey = makeLeaf(t, dir, "server", ca, caKey, x509.ExtKeyUsageServerAuth)
	p.ClientCert, p.ClientKey = makeLeaf(t, dir, "client", ca, caKey, x509.ExtKeyUsageClientAuth)
	p.StrangerCert, p.StrangerKey = makeLeaf(t, dir, "stranger", other, otherKey, x509.ExtKeyUsageClientAuth)
	var err error
	if p.Client, err = tls.LoadX509KeyPair(p.ClientCert, p.ClientKey); err != nil {
		t.Fatal(err)
	}
	if p.Stranger, err = tls.LoadX509KeyPair(p.StrangerCert, p.StrangerKey); err != nil {
		t.Fatal(err)
	}
	if p.Server, err = tls.LoadX509KeyPair(p.ServerCert, p.ServerKey); err != nil {
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

// ServerTLS is a server configuration with the server certificate.
func (p *PKI) ServerTLS() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.Server}}
}

// ClientTLS trusts the CA and presents certs (at most one) whatever CAs the
// server asks for: Go's client would otherwise keep a certificate from
// another CA to itself.
func (p *PKI) ClientTLS(certs ...tls.Certificate) *tls.Config {
	c := &tls.Config{RootCAs: p.CAPool, ServerName: "127.0.0.1"}
	if len(certs) > 0 {
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &certs[0], nil }
	}
	return c
}
