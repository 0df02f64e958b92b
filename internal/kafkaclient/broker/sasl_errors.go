package broker

import (
	"fmt"
	"strconv"
	"strings"
)

// SASLProblem is the kind of SASL failure.
type SASLProblem int

const (
	// SASLAuthenticationFailed: the broker rejected the credentials (SASL_AUTHENTICATION_FAILED).
	SASLAuthenticationFailed SASLProblem = iota
	// SASLMechanismNotEnabled: the listener does not enable the mechanism (UNSUPPORTED_SASL_MECHANISM).
	SASLMechanismNotEnabled
	// SASLListenerWithoutSASL: SASL is configured, but the listener does not use it
	// (ILLEGAL_SASL_STATE in answer to the handshake: PLAINTEXT or SSL).
	SASLListenerWithoutSASL
	// SASLRequired: no SASL is configured, but the listener requires it.
	SASLRequired
	// SASLCredentialsUnavailable: the client could not get its own credentials (token endpoint,
	// AWS credential chain) before talking to the broker.
	SASLCredentialsUnavailable
)

// SASLError: SASL authentication with one broker failed. It never holds a secret: Identity is a
// user name, an OAuth client ID or a description such as "a static token".
type SASLError struct {
	Address       string // the broker, host:port; empty when the failure came before any broker
	Mechanism     string // Kafka's name: PLAIN, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM
	Identity      string // e.g. `user "app"`
	Problem       SASLProblem
	BrokerMessage string   // the broker's own reason, when it gave one
	Offered       []string // the listener's enabled mechanisms, when known
	Err           error
}

func (e *SASLError) Error() string {
	var b strings.Builder
	switch e.Problem {
	case SASLAuthenticationFailed:
		fmt.Fprintf(&b, "SASL authentication failed at broker %s: %s, mechanism %s", e.Address, e.Identity, e.Mechanism)
		if e.BrokerMessage != "" {
			fmt.Fprintf(&b, "; the broker says: %q", e.BrokerMessage)
		} else {
			b.WriteString("; the broker closed the connection without a reason")
		}
	case SASLMechanismNotEnabled:
		fmt.Fprintf(&b, "broker %s does not enable SASL mechanism %s on this listener", e.Address, e.Mechanism)
		if len(e.Offered) > 0 {
			fmt.Fprintf(&b, "; it offers %s", mechanismList(e.Offered))
		}
	case SASLListenerWithoutSASL:
		fmt.Fprintf(&b, "broker %s answered the SASL handshake (mechanism %s) with ILLEGAL_SASL_STATE: "+
			"this listener does not use SASL (it is a PLAINTEXT or SSL listener)", e.Address, e.Mechanism)
	case SASLRequired:
		fmt.Fprintf(&b, "broker %s closed the connection at the first request after the API version "+
			"exchange, and answers a SASL handshake, then refuses any other request until a login: this listener "+
			"requires SASL authentication", e.Address)
		if len(e.Offered) > 0 {
			fmt.Fprintf(&b, " (it offers %s)", mechanismList(e.Offered))
		}
	case SASLCredentialsUnavailable:
		fmt.Fprintf(&b, "could not get credentials for SASL mechanism %s (%s)", e.Mechanism, e.Identity)
		if e.Address != "" {
			fmt.Fprintf(&b, " to authenticate at broker %s", e.Address)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, ": %v", e.Err)
		}
	}
	return b.String()
}

func (e *SASLError) Unwrap() error { return e.Err }

// mechanismList joins the mechanism names a broker offered. SASL names (RFC 4422) are upper-case
// letters, digits, '-' and '_': anything else is the broker's text and is quoted, so that it
// cannot put a line break or an escape sequence into the error.
func mechanismList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if n == "" || strings.IndexFunc(n, func(r rune) bool {
			return (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-' && r != '_'
		}) >= 0 {
			out[i] = strconv.Quote(n)
		}
	}
	return strings.Join(out, ", ")
}
