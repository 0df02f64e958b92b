package broker

import (
	"context"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// explain turns a read or write error into a typed one where the state of the connection says
// what it means. atResponseStart: nothing of the awaited response was read yet.
func (c *kafkaConn) explain(err error, atResponseStart bool) error {
	if c.tls != nil {
		if p, detail := remoteAlert(err, c.tls); detail != "" {
			return &TLSError{Address: c.address, Problem: p, Detail: detail, Err: err}
		}
	}
	if !closedByPeer(err) || !atResponseStart {
		return err
	}
	switch {
	case !c.pipelined && c.lastKey == protocol.SaslAuthenticate:
		// Brokers may answer bad credentials by closing the connection. (Not wrapping err:
		// kafka-go's decoder replaces any error that is io.EOF with io.ErrUnexpectedEOF.)
		return c.saslError(SASLAuthenticationFailed, kafka.SASLAuthenticationFailed)
	case c.s.sasl == nil && (c.firstAnswerPending || !c.pipelined && c.requests == 2 && c.lastKey != protocol.SaslHandshake):
		// The broker answered ApiVersions, then dropped the first real request: what a SASL
		// listener does to a client that skips authentication. Ask it to be sure.
		if offered, ok := c.s.probeSASL(c.address, c.readDeadline); ok {
			return &SASLError{Address: c.address, Problem: SASLRequired, Offered: offered}
		}
	}
	return err
}

// explainPipelined explains a read error after the handshake, from the Conn reader.
// atResponseStart: nothing of the awaited answer was read; first: no answer has arrived since
// the handshake (a SASL listener drops a client that skips authentication at its first request).
func (c *kafkaConn) explainPipelined(err error, atResponseStart, first bool) error {
	c.firstAnswerPending = first
	return c.explain(err, atResponseStart)
}

// probeSASL opens one more connection to address and sends a SaslHandshake (v1) to learn
// whether the listener uses SASL and which mechanisms it enables, then an ApiVersions to learn
// whether it requires it. ok is false when it does not use SASL, does not require it, or the probe
// failed.
func (s *Dialer) probeSASL(address string, deadline time.Time) (offered []string, ok bool) {
	if limit := time.Now().Add(3 * time.Second); deadline.IsZero() || deadline.After(limit) {
		deadline = limit
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	conn, _, err := s.dialTLS(ctx, "tcp", address)
	if err != nil {
		return nil, false
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(deadline)
	res := kmsg.NewPtrSASLHandshakeResponse()
	if err := roundTripOnce(conn, s.clientID, &kmsg.SASLHandshakeRequest{Version: 1, Mechanism: "PLAIN"}, res); err != nil {
		return nil, false
	}
	// A SASL listener answers with its enabled mechanisms; Kafka's other listeners with
	// ILLEGAL_SASL_STATE (and franz-go's kfake, without SASL, with an empty list).
	if kafka.Error(res.ErrorCode) == kafka.IllegalSASLState || len(res.SupportedMechanisms) == 0 {
		return nil, false
	}
	// Some Kafka-compatible services answer the handshake on every listener, so the answer alone
	// does not say that SASL is required: a listener that requires it refuses any other request
	// until the login is done (Kafka answers ILLEGAL_SASL_STATE, then closes the connection),
	// where one that does not answers ApiVersions. A broker that closes the connection at every
	// request but ApiVersions (its storage failed, say) is then not taken for a SASL listener.
	versions := kmsg.NewPtrApiVersionsResponse()
	if err := roundTripOnce(conn, s.clientID, &kmsg.ApiVersionsRequest{}, versions); err == nil && versions.ErrorCode == 0 {
		return nil, false
	}
	return res.SupportedMechanisms, true
}
