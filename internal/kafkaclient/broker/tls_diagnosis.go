package broker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
)

// What a failed TLS handshake, or a TLS alert after it, means: which of the usual causes, in
// words that say what to fix.

// silentTLSPeer describes an address that accepted TCP but never answered the ClientHello.
const silentTLSPeer = "accepted the TCP connection but never answered the TLS handshake: a TLS/plaintext " +
	"mismatch (a plaintext listener waiting for the rest of what it takes for a Kafka request), or not a Kafka listener"

// classifyHandshake explains a failed TLS handshake. answered says whether the peer sent any
// byte at all.
func classifyHandshake(address, serverName string, err error, answered bool, state *tlsState) *TLSError {
	te := &TLSError{Address: address, Problem: TLSHandshakeFailed, Err: err}
	var (
		unknownCA   x509.UnknownAuthorityError
		hostname    x509.HostnameError
		invalid     x509.CertificateInvalidError
		verifyErr   *tls.CertificateVerificationError
		recordError tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknownCA):
		te.Problem = TLSUnknownAuthority
		te.Detail = "the broker's certificate is signed by an unknown certificate authority"
		if unknownCA.Cert != nil {
			te.Detail += fmt.Sprintf(" (certificate for %q, issued by %q)",
				unknownCA.Cert.Subject.String(), unknownCA.Cert.Issuer.String())
		}
		te.Detail += ": the CA is not in ca_cert (or, without ca_cert, not in the system's trusted roots)"
	case errors.As(err, &hostname):
		te.Problem = TLSHostnameMismatch
		te.Detail = fmt.Sprintf("the broker's certificate is not valid for the name %q: %s", serverName, hostname.Error())
	case errors.As(err, &invalid):
		te.Problem = TLSCertificateInvalid
		te.Detail = "the broker's certificate is not valid: " + invalid.Error()
	case errors.As(err, &verifyErr):
		te.Problem = TLSCertificateInvalid
		te.Detail = "the broker's certificate failed verification: " + verifyErr.Err.Error()
	case errors.As(err, &recordError):
		te.Detail = "the broker answered the TLS handshake with bytes that are not TLS " +
			"(a plaintext listener, or not a Kafka listener): a TLS/plaintext mismatch"
	case !answered && closedByPeer(err):
		te.Problem = TLSPlaintextListener
		te.Detail = "closed the connection during the TLS handshake without answering it: " +
			"a TLS/plaintext mismatch, the port is a plaintext listener (PLAINTEXT or SASL_PLAINTEXT) " +
			"while the provider's tls block turns TLS on"
	case !answered && (IsTimeout(err) || errors.Is(err, context.Canceled)):
		te.Problem = TLSPlaintextListener
		te.Detail = silentTLSPeer
	default:
		if p, detail := remoteAlert(err, state); detail != "" {
			te.Problem, te.Detail = p, detail
		} else {
			te.Detail = "handshake failed: " + strings.TrimPrefix(err.Error(), "tls: ")
		}
	}
	return te
}

// remoteAlert explains a TLS alert sent by the broker: during the handshake (TLS 1.2) or at the
// first read after it (TLS 1.3, where the broker checks the client certificate after the client
// has finished its side).
func remoteAlert(err error, state *tlsState) (TLSProblem, string) {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" {
		return 0, ""
	}
	alert := op.Err.Error() // "tls: bad certificate", "tls: certificate required", ...
	switch {
	case state != nil && state.askedForCert && !state.sentCert:
		return TLSClientCertRequired, fmt.Sprintf("the broker asked for a client certificate, none was "+
			"configured, and it ended the connection (%s): the listener requires mutual TLS "+
			"(ssl.client.auth=required)", alert)
	case state != nil && state.sentCert && (strings.Contains(alert, "certificate") || strings.Contains(alert, "unknown ca")):
		return TLSClientCertRejected, fmt.Sprintf("the broker rejected the client certificate (%s): "+
			"it is not signed by a CA in the broker's truststore, expired, or not meant for client use", alert)
	}
	return TLSHandshakeFailed, fmt.Sprintf("the broker ended the connection with a TLS alert (%s)", alert)
}
