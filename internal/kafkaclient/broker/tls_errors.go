package broker

import "fmt"

// TLSProblem is the kind of TLS failure, so that callers can word their advice.
type TLSProblem int

const (
	// TLSHandshakeFailed: any other handshake failure (no common version or cipher, ...).
	TLSHandshakeFailed TLSProblem = iota
	// TLSUnknownAuthority: the broker's certificate chain does not lead to a trusted CA.
	TLSUnknownAuthority
	// TLSHostnameMismatch: the certificate is valid, but not for the name connected to.
	TLSHostnameMismatch
	// TLSCertificateInvalid: expired, not yet valid, or not usable for a server.
	TLSCertificateInvalid
	// TLSClientCertRequired: the listener requires a client certificate and none was configured.
	TLSClientCertRequired
	// TLSClientCertRejected: the listener rejected the client certificate that was sent.
	TLSClientCertRejected
	// TLSPlaintextListener: TLS is configured, but the listener speaks plaintext Kafka.
	TLSPlaintextListener
)

// TLSError: the TLS handshake with one broker failed, or the broker ended a TLS connection for a
// TLS reason. Detail is one sentence on what happened; Error() names the address.
type TLSError struct {
	Address string
	Problem TLSProblem
	Detail  string
	Err     error // crypto/tls's or the network's error
}

func (e *TLSError) Error() string {
	return fmt.Sprintf("TLS with broker %s failed: %s", e.Address, e.Detail)
}

func (e *TLSError) Unwrap() error { return e.Err }
