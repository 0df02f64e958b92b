package broker

import (
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"

	"github.com/segmentio/kafka-go/sasl"
)

// Dialer opens the Pool's connections: TCP through the DialLog, then, when TLS is configured,
// the TLS handshake, then a kafkaConn that watches the Kafka frames of the connection (see
// kafka_conn.go). The TLS handshake is done here, on its own, so that its failure is known with
// its address and its cause (unknown CA, a plaintext listener, ...).
type Dialer struct {
	dials    *DialLog
	tls      *tls.Config
	sasl     sasl.Mechanism // nil: no SASL
	identity string         // who sasl authenticates as, for errors: never a secret
	clientID string
}

// NewDialer returns a dialer through dials, with TLS when tlsConfig is set and SASL when
// mechanism is (identity names who it authenticates as, for errors).
func NewDialer(dials *DialLog, tlsConfig *tls.Config, mechanism sasl.Mechanism, identity, clientID string) *Dialer {
	return &Dialer{dials: dials, tls: tlsConfig, sasl: mechanism, identity: identity, clientID: clientID}
}

// Dial connects to address: TCP, then TLS when configured, in a kafkaConn.
func (s *Dialer) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	conn, state, err := s.dialTLS(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &kafkaConn{Conn: conn, s: s, address: address, tls: state}, nil
}

// tlsState is what the handshake of one connection saw of client certificates.
type tlsState struct {
	askedForCert bool // the broker sent a CertificateRequest
	sentCert     bool // and a certificate went back
}

// dialTLS connects and, with TLS configured, completes the handshake within ctx. state is nil
// for plaintext connections.
func (s *Dialer) dialTLS(ctx context.Context, network, address string) (net.Conn, *tlsState, error) {
	raw, err := s.dials.dial(ctx, network, address)
	if err != nil || s.tls == nil {
		return raw, nil, err
	}
	counted := &countingConn{Conn: raw}
	cfg := s.tls.Clone()
	if cfg.ServerName == "" {
		host, _, _ := net.SplitHostPort(address)
		cfg.ServerName = host
	}
	state := watchClientCert(cfg)
	conn := tls.Client(counted, cfg)
	// Until the handshake ends, this is what the address did, should the timeout run out first.
	s.dials.record(address, func(r *addrRecord) { r.security = silentTLSPeer })
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = conn.Close()
		te := classifyHandshake(address, cfg.ServerName, err, counted.read.Load() > 0, state)
		s.dials.record(address, func(r *addrRecord) {
			r.security = ""
			if te.Problem == TLSPlaintextListener {
				r.security = te.Detail
			}
		})
		return nil, nil, te
	}
	s.dials.record(address, func(r *addrRecord) { r.security = "" })
	return conn, state, nil
}

// watchClientCert makes cfg send its client certificate (if any) through a callback that notes,
// in the returned state, whether the broker asked for one and whether one went back.
func watchClientCert(cfg *tls.Config) *tlsState {
	state := &tlsState{}
	var own *tls.Certificate
	if len(cfg.Certificates) > 0 {
		own = &cfg.Certificates[0]
	}
	cfg.Certificates = nil
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		state.askedForCert = true
		if own == nil {
			return &tls.Certificate{}, nil // none: the broker decides whether that is enough
		}
		state.sentCert = true
		return own, nil
	}
	return state
}

// countingConn counts the bytes the peer sent, to tell "closed without a word" from "said no".
type countingConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}
