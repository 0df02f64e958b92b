package kafkaharness

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// tlsAdmin is a kadm client on addr that trusts only the node's test CA and,
// when withCert, presents the test client certificate.
func tlsAdmin(t *testing.T, s *Single, addr string, withCert bool) *kadm.Client {
	t.Helper()
	return adminWith(t, kgo.SeedBrokers(addr), kgo.DialTLSConfig(tlsConfig(t, s, withCert)))
}

// tlsConfig trusts only the node's test CA; withCert adds the client certificate.
func tlsConfig(t *testing.T, s *Single, withCert bool) *tls.Config {
	t.Helper()
	caPEM, err := os.ReadFile(s.TLS.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in " + s.TLS.CA)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withCert {
		cert, err := tls.LoadX509KeyPair(s.TLS.ClientCert, s.TLS.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}

// adminWith is a kadm client with opts that does not retry, so a refused
// login fails the request rather than being tried until the context ends.
func adminWith(t *testing.T, opts ...kgo.Opt) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(append(opts, kgo.RequestRetries(0))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// The TLS listeners serve clients that verify the broker against the test CA
// (hostname 127.0.0.1 in the certificate); the mutual-TLS one also demands
// the client certificate, and refuses a client without one.
func TestTLSListenersServeClientsOfTestCA(t *testing.T) {
	s := startSingle(t)
	for _, tc := range []struct {
		name     string
		addr     string
		withCert bool
		wantErr  bool
	}{
		{name: "SSL without client certificate", addr: s.SSLBootstrap()},
		{name: "MTLS with client certificate", addr: s.MTLSBootstrap(), withCert: true},
		{name: "MTLS without client certificate", addr: s.MTLSBootstrap(), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			m, err := tlsAdmin(t, s, tc.addr, tc.withCert).BrokerMetadata(ctx)
			if tc.wantErr {
				if err == nil {
					t.Fatal("metadata answered without a client certificate")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Brokers) != 1 {
				t.Errorf("%d brokers, want 1", len(m.Brokers))
			}
		})
	}
}
