package kafkaclient

import "github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"

// The errors of the brokers layer (internal/kafkaclient/broker) under the names callers of this
// package use: what a failed TLS handshake, SASL login or too old a broker means, and a request a
// broker closes the connection at instead of serving it.
type (
	TLSError         = broker.TLSError
	TLSProblem       = broker.TLSProblem
	SASLError        = broker.SASLError
	SASLProblem      = broker.SASLProblem
	UnsupportedError = broker.UnsupportedError
	RefusedError     = broker.RefusedError
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
