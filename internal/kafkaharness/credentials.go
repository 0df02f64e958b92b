package kafkaharness

import (
	"crypto/rand"
	"encoding/hex"
)

// The SASL test identities (the password is random per start).
const (
	SASLUser       = "tfacc"       // PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512
	OAuthPrincipal = "tfacc-oauth" // the "sub" an OAUTHBEARER token needs to be a super user
)

// SASLCredentials are what a SASL test client logs in with.
type SASLCredentials struct {
	User     string
	Password string // Sensitive to tests only: random per start, never committed
}

// newCredentials draws a fresh password (16 random bytes, hex: openssl rand -hex 16).
func newCredentials() SASLCredentials {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand documents it)
	return SASLCredentials{User: SASLUser, Password: hex.EncodeToString(b)}
}
