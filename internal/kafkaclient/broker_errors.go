package kafkaclient

import "github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"

// The errors of the brokers layer (internal/kafkaclient/broker) under the names callers of this
// package use: what a failed TLS handshake, SASL login or too old a broker means.
type (
	// TLSError: the TLS handshake with one broker failed, or the broker ended a TLS connection
	// for a TLS reason.
	TLSError = broker.TLSError
	// TLSProblem is the kind of TLS failure.
	TLSProblem = broker.TLSProblem
	// SASLError: SASL authentication with one broker failed. It never holds a secret.
	SASLError = broker.SASLError
	// SASLProblem is the kind of SASL failure.
	SASLProblem = broker.SASLProblem
	// UnsupportedError: the broker is too old for what was asked.
	UnsupportedError = broker.UnsupportedError
)

// The kinds of TLS failure (see broker.TLSProblem).
const (
	TLSHandshakeFailed    = broker.TLSHandshakeFailed
	TLSUnknownAuthority   = broker.TLSUnknownAuthority
	TLSHostnameMismatch   = broker.TLSHostnameMismatch
	TLSCertificateInvalid = broker.TLSCertificateInvalid
	TLSClientCertRequired = broker.TLSClientCertRequired
	TLSClientCertRejected = broker.TLSClientCertRejected
	TLSPlaintextListener  = broker.TLSPlaintextListener
)

// The kinds of SASL failure (see broker.SASLProblem).
const (
	SASLAuthenticationFailed   = broker.SASLAuthenticationFailed
	SASLMechanismNotEnabled    = broker.SASLMechanismNotEnabled
	SASLListenerWithoutSASL    = broker.SASLListenerWithoutSASL
	SASLRequired               = broker.SASLRequired
	SASLCredentialsUnavailable = broker.SASLCredentialsUnavailable
)
