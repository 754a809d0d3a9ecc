package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
)

// TLSOptions are redis-server's TLS settings, under its names.
type TLSOptions struct {
	CertFile string // tls-cert-file: the server's certificate chain (PEM)
	KeyFile  string // tls-key-file: its private key (PEM)
	// CAFile is tls-ca-cert-file: the CAs client certificates are checked
	// against. Needed unless AuthClients is "no".
	CAFile string
	// AuthClients is tls-auth-clients: "yes" (Redis's default: a client
	// certificate signed by CAFile is required), "optional" (checked if the
	// client presents one) or "no".
	AuthClients string
}

// TLSConfig builds the server-side tls.Config for o: TLS 1.2 and later, Go's
// default cipher suites.
func TLSConfig(o TLSOptions) (*tls.Config, error) {
	if o.CertFile == "" || o.KeyFile == "" {
		return nil, errors.New("TLS needs both tls-cert-file and tls-key-file")
	}
	cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading tls-cert-file/tls-key-file: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	switch strings.ToLower(o.AuthClients) {
	case "", "yes":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	case "optional":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "no":
		cfg.ClientAuth = tls.NoClientCert
	default:
		return nil, fmt.Errorf("tls-auth-clients: want yes, no or optional, got %q", o.AuthClients)
	}
	if cfg.ClientAuth != tls.NoClientCert || o.CAFile != "" {
		if o.CAFile == "" {
			return nil, errors.New("tls-auth-clients yes or optional needs tls-ca-cert-file")
		}
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls-ca-cert-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls-ca-cert-file %s: no PEM certificate in it", o.CAFile)
		}
		cfg.ClientCAs = pool
	}
	return cfg, nil
}
