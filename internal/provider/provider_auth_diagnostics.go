package provider

import (
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Summaries of TLS and SASL failures: the troubleshooting table of the authentication guide
// lists each with its cause and fix.
const (
	summaryCertUntrusted       = "Broker certificate not trusted"
	summaryCertName            = "Broker certificate does not match its address"
	summaryCertInvalid         = "Broker certificate not valid"
	summaryClientCertRequired  = "Client certificate required"
	summaryClientCertRejected  = "Client certificate rejected"
	summaryTLSFailed           = "TLS handshake failed"
	summaryTLSPlaintext        = "TLS and plaintext mismatch"
	summaryAuthFailed          = "Kafka authentication failed"
	summaryMechanismNotEnabled = "SASL mechanism not enabled"
	summaryListenerWithoutSASL = "SASL configured for a listener without SASL"
	summarySASLRequired        = "Broker requires SASL authentication"
	summaryNoCredentials       = "Could not get SASL credentials"
)

// addAuthError adds a diagnostic for a TLS or SASL failure and reports whether err was one. An
// UnreachableError (which may wrap a TLS/plaintext mismatch) is left to addReadError: its detail
// already names the mismatch for each address.
func addAuthError(diags *diag.Diagnostics, err error) bool {
	var (
		unreachable *kafkaclient.UnreachableError
		tlsErr      *kafkaclient.TLSError
		saslErr     *kafkaclient.SASLError
	)
	switch {
	case errors.As(err, &unreachable):
		return false
	case errors.As(err, &tlsErr):
		summary, fix := tlsAdvice(tlsErr.Problem)
		diags.AddError(summary, tlsErr.Error()+". "+fix)
		return true
	case errors.As(err, &saslErr):
		summary, fix := saslAdvice(saslErr)
		diags.AddError(summary, saslErr.Error()+". "+fix)
		return true
	}
	return false
}

func tlsAdvice(p kafkaclient.TLSProblem) (summary, fix string) {
	switch p {
	case kafkaclient.TLSUnknownAuthority:
		return summaryCertUntrusted, "Set ca_cert in the tls block (or " + EnvCACert + ") to the PEM of the CA that " +
			"signed the brokers' certificates, e.g. ca_cert = file(\"ca.pem\"); without ca_cert the system's trusted " +
			"roots are used."
	case kafkaclient.TLSHostnameMismatch:
		return summaryCertName, "Use a broker name the certificate holds in bootstrap_servers, or set server_name " +
			"in the tls block to one of them."
	case kafkaclient.TLSCertificateInvalid:
		return summaryCertInvalid, "Check the broker's certificate (validity dates, key usage) and this machine's clock."
	case kafkaclient.TLSClientCertRequired:
		return summaryClientCertRequired, "Set client_cert and client_key in the tls block (or " + EnvClientCert +
			" and " + EnvClientKey + ") to a certificate that the broker's truststore accepts."
	case kafkaclient.TLSClientCertRejected:
		return summaryClientCertRejected, "Use a client certificate signed by a CA in the broker's truststore, " +
			"valid now and allowed for client authentication."
	case kafkaclient.TLSPlaintextListener:
		return summaryTLSPlaintext, "Remove the tls block (and " + EnvEnableTLS + "; where another provider block " +
			"needs that variable, set tls { enabled = false } in this one), or use the broker's SSL or SASL_SSL port."
	}
	return summaryTLSFailed, "Check that the port is a TLS listener (SSL or SASL_SSL) and that it accepts TLS 1.2 or later."
}

func saslAdvice(e *kafkaclient.SASLError) (summary, fix string) {
	switch e.Problem {
	case kafkaclient.SASLAuthenticationFailed:
		fix := "Check username and password in the sasl block (or " + EnvSASLUsername + ", " + EnvSASLPassword + ")."
		if strings.HasPrefix(e.Mechanism, "SCRAM") {
			fix += " SCRAM credentials are stored per mechanism: the user must exist for " + e.Mechanism +
				" (SCRAM-SHA-256 and SCRAM-SHA-512 are separate)."
		}
		if e.Mechanism == "OAUTHBEARER" {
			fix = "Check that the token is valid for this cluster: issuer, audience, expiry and the claims " +
				"the broker's validator requires."
		}
		return summaryAuthFailed, fix
	case kafkaclient.SASLMechanismNotEnabled:
		return summaryMechanismNotEnabled, "Set mechanism in the sasl block to one the listener offers, or enable it " +
			"on the broker (sasl.enabled.mechanisms)."
	case kafkaclient.SASLListenerWithoutSASL:
		return summaryListenerWithoutSASL, "Remove the sasl block (and " + EnvSASLMechanism + "; where another " +
			"provider block needs that variable, set sasl { enabled = false } in this one), or use the broker's " +
			"SASL_PLAINTEXT or SASL_SSL port."
	case kafkaclient.SASLRequired:
		return summarySASLRequired, "Add a sasl block with one of the offered mechanisms (and a tls block too if " +
			"the listener is SASL_SSL)."
	}
	if e.Mechanism == "AWS_MSK_IAM" {
		return summaryNoCredentials, "Check the AWS credential chain: AWS_PROFILE or profile, AWS_ACCESS_KEY_ID and " +
			"AWS_SECRET_ACCESS_KEY, web identity, or an instance or task role; and role_arn, if set, may be assumed."
	}
	return summaryNoCredentials, "Check token_url, client_id and client_secret in the sasl block (or " +
		EnvSASLTokenURL + ", " + EnvSASLClientID + ", " + EnvSASLClientSecret + ")."
}
