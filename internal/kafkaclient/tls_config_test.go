package kafkaclient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

func TestParsePEMSaysWhatIsWrongWithoutQuotingIt(t *testing.T) {
	p := newTestPKI(t)
	const secret = "CANARY-not-a-key"
	for _, tc := range []struct {
		name string
		cfg  TLSConfig
		want string
	}{
		{name: "path instead of PEM", cfg: TLSConfig{CACert: "/etc/ssl/ca.pem"}, want: "ca_cert: holds no PEM block"},
		{name: "key as CA", cfg: TLSConfig{CACert: p.clientKey}, want: `ca_cert: PEM block 1 is a "PRIVATE KEY", not a CERTIFICATE`},
		{name: "damaged certificate", cfg: TLSConfig{CACert: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"},
			want: "ca_cert: certificate 1 does not parse"},
		{name: "trailing garbage", cfg: TLSConfig{CACert: p.caPEM + "garbage"}, want: "ca_cert: has text after certificate 1"},
		{name: "cert without key", cfg: TLSConfig{ClientCert: p.clientCert}, want: "client_cert: is set without client_key"},
		{name: "key without cert", cfg: TLSConfig{ClientKey: p.clientKey}, want: "client_key: is set without client_cert"},
		{name: "key not PEM", cfg: TLSConfig{ClientCert: p.clientCert, ClientKey: secret}, want: "client_key: holds no PEM block"},
		{name: "swapped", cfg: TLSConfig{ClientCert: p.clientKey, ClientKey: p.clientCert}, want: "client_cert: PEM block 1 is a \"PRIVATE KEY\""},
		{name: "cert as key", cfg: TLSConfig{ClientCert: p.clientCert, ClientKey: p.clientCert}, want: "client_key: holds a CERTIFICATE where the private key belongs"},
		{name: "encrypted key", cfg: TLSConfig{ClientCert: p.clientCert, ClientKey: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"},
			want: "client_key: is an encrypted private key"},
		{name: "key of another certificate", cfg: TLSConfig{ClientCert: p.clientCert, ClientKey: newTestPKI(t).clientKey},
			want: "client_cert and client_key: do not form a key pair: private key does not match public key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTLSConfig(tc.cfg)
			var pe *PEMError
			if !errors.As(err, &pe) || err.Error() != tc.want && !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want a PEMError starting %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "AAAA") {
				t.Fatalf("error quotes its input: %v", err)
			}
		})
	}
	cfg, err := NewTLSConfig(TLSConfig{CACert: p.caPEM, ClientCert: p.clientCert, ClientKey: p.clientKey, ServerName: "kafka.internal"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RootCAs == nil || len(cfg.Certificates) != 1 || cfg.ServerName != "kafka.internal" || cfg.MinVersion != tls.VersionTLS12 {
		t.Fatalf("config not built from the inputs: %+v", cfg)
	}
}

// tlsServer accepts TLS connections with cfg and completes the handshake; it sends nothing else.
func tlsServer(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	return acctest.Serve(t, tls.NewListener(acctest.Listen(t), cfg), func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if tc, ok := c.(*tls.Conn); ok {
			_ = tc.Handshake()
		}
		_, _ = c.Read(make([]byte, 1024)) // a TLS 1.3 server reports a bad client certificate here
		_ = c.Close()
	})
}

func dialTLSOnce(t *testing.T, address string, cfg TLSConfig) error {
	t.Helper()
	tc, err := NewTLSConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := broker.NewDialer(broker.NewDialLog((&net.Dialer{}).DialContext, false), tc, nil, "", "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := s.Dial(ctx, "tcp", address)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	// A first request, so that a TLS 1.3 server's verdict on the client certificate arrives.
	_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := conn.Write([]byte{0, 0, 0, 8, 0, 18, 0, 0, 0, 0, 0, 1}); err != nil {
		return err
	}
	_, err = conn.Read(make([]byte, 16))
	return err
}

func TestTLSFailuresAreNamed(t *testing.T) {
	p := newTestPKI(t)
	plain := newTestPKI(t) // another CA
	serverOnly := tlsServer(t, &tls.Config{Certificates: []tls.Certificate{p.serverCert}})
	mutual := tlsServer(t, &tls.Config{Certificates: []tls.Certificate{p.serverCert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.pool})
	for _, tc := range []struct {
		name    string
		addr    string
		cfg     TLSConfig
		problem TLSProblem
		want    string
	}{
		{name: "unknown CA", addr: serverOnly, cfg: TLSConfig{CACert: plain.caPEM}, problem: TLSUnknownAuthority, want: "signed by an unknown certificate authority"},
		{name: "host name", addr: serverOnly, cfg: TLSConfig{CACert: p.caPEM, ServerName: "kafka.example"}, problem: TLSHostnameMismatch, want: `not valid for the name "kafka.example"`},
		{name: "no client certificate", addr: mutual, cfg: TLSConfig{CACert: p.caPEM}, problem: TLSClientCertRequired, want: "requires mutual TLS"},
		{name: "client certificate of another CA", addr: mutual, cfg: TLSConfig{CACert: p.caPEM, ClientCert: plain.clientCert, ClientKey: plain.clientKey},
			problem: TLSClientCertRejected, want: "rejected the client certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := dialTLSOnce(t, tc.addr, tc.cfg)
			var te *TLSError
			if !errors.As(err, &te) || te.Problem != tc.problem || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), tc.addr) {
				t.Fatalf("got %v, want a TLSError (problem %d) naming %s and saying %q", err, tc.problem, tc.addr, tc.want)
			}
		})
	}
	t.Run("mutual TLS works", func(t *testing.T) {
		err := dialTLSOnce(t, mutual, TLSConfig{CACert: p.caPEM, ClientCert: p.clientCert, ClientKey: p.clientKey})
		var te *TLSError
		if errors.As(err, &te) {
			t.Fatalf("a valid client certificate was refused: %v", err)
		}
	})
}

// TLS configured against a plaintext Kafka listener (kfake, which, unlike Apache Kafka, does not
// close the connection on a ClientHello but waits for the rest of a "frame" of 369 MiB): an
// UnreachableError that names the mismatch when the timeout runs out, not later. (Against the real
// broker, which closes at once, the acceptance test TestAccAuth_tlsPlaintextMismatch.)
func TestTLSToPlaintextListener(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t1"))
	const timeout = 2 * time.Second
	cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: timeout, TLS: &tls.Config{MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	start := time.Now()
	_, err = cl.PartitionOffsets(context.Background(), "t1", 0)
	var un *UnreachableError
	if !errors.As(err, &un) || !strings.Contains(err.Error(), "TLS/plaintext mismatch") ||
		!strings.Contains(err.Error(), c.ListenAddrs()[0]) {
		t.Fatalf("got %v, want an UnreachableError naming the address and the TLS/plaintext mismatch", err)
	}
	if took := time.Since(start); took > timeout+time.Second {
		t.Fatalf("took %v: more than the timeout of %v", took, timeout)
	}
}

// A TLS server that is not Kafka (an HTTPS endpoint) answers the first request with HTTP: the
// read fails at once, saying so, without allocating the 1.2 GB that "HTTP" reads as a frame size.
func TestTLSPeerThatIsNotKafka(t *testing.T) {
	p := newTestPKI(t)
	addr := acctest.Serve(t, tls.NewListener(acctest.Listen(t), &tls.Config{Certificates: []tls.Certificate{p.serverCert}}),
		func(c net.Conn) {
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			_, _ = c.Read(make([]byte, 512))
			_, _ = c.Write(acctest.HTTPResponse)
			_ = c.Close()
		})

	tc, err := NewTLSConfig(TLSConfig{CACert: p.caPEM})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := New(Config{BootstrapServers: []string{addr}, Timeout: 5 * time.Second, TLS: tc})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	took, allocated, err := measuredRead(cl)
	if err == nil || !strings.Contains(err.Error(), "answered with HTTP") || !strings.Contains(err.Error(), addr) {
		t.Fatalf("got %v, want an error naming the address and saying it answered with HTTP", err)
	}
	if took > 2*time.Second {
		t.Fatalf("took %v: a peer that is not Kafka must fail at once", took)
	}
	if allocated > 64<<20 {
		t.Fatalf("allocated %d MiB reading a non-Kafka answer", allocated>>20)
	}
}
