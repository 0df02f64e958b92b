package kafkaharness

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// unsecuredJWS is a token Kafka's unsecured-JWS validator accepts: alg "none",
// a subject, and an expiry in the future.
func unsecuredJWS(sub string) string {
	enc := base64.RawURLEncoding.EncodeToString
	now := time.Now().Unix()
	claims := fmt.Sprintf(`{"sub":%q,"iat":%d,"exp":%d}`, sub, now, now+3600)
	return enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(claims)) + "."
}

// Both SASL listeners log in the test user with each mechanism the harness
// enables (SCRAM users exist from the format on), and refuse a wrong password.
func TestSASLListenersLogInTestUser(t *testing.T) {
	t.Parallel()
	assertSASLLogins(t, startSingle(t))
}

// assertSASLLogins checks the single node's SASL listeners: every mechanism
// logs the test user in, a wrong password is refused. A KRaft broker before
// Kafka 3.5 keeps no SCRAM credentials: there SCRAM refuses the user too.
func assertSASLLogins(t *testing.T, s *Cluster) {
	t.Helper()
	user, pw := s.SASL.User, s.SASL.Password
	noSCRAM := !s.servesSCRAM()
	for _, tc := range []struct {
		name    string
		addr    string
		tls     bool
		mech    sasl.Mechanism
		wantErr bool
	}{
		{name: "PLAIN", addr: s.SASLBootstrap(), mech: plain.Auth{User: user, Pass: pw}.AsMechanism()},
		{name: "SCRAM-SHA-256", addr: s.SASLBootstrap(), wantErr: noSCRAM,
			mech: scram.Auth{User: user, Pass: pw}.AsSha256Mechanism()},
		{name: "SCRAM-SHA-512 over TLS", addr: s.SASLSSLBootstrap(), tls: true, wantErr: noSCRAM,
			mech: scram.Auth{User: user, Pass: pw}.AsSha512Mechanism()},
		{name: "OAUTHBEARER unsecured token", addr: s.SASLBootstrap(),
			mech: oauth.Auth{Token: unsecuredJWS(OAuthPrincipal)}.AsMechanism()},
		{name: "PLAIN wrong password", addr: s.SASLBootstrap(), wantErr: true,
			mech: plain.Auth{User: user, Pass: pw + "x"}.AsMechanism()},
		{name: "SCRAM-SHA-512 wrong password", addr: s.SASLBootstrap(), wantErr: true,
			mech: scram.Auth{User: user, Pass: pw + "x"}.AsSha512Mechanism()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []kgo.Opt{kgo.SeedBrokers(tc.addr), kgo.SASL(tc.mech)}
			if tc.tls {
				opts = append(opts, kgo.DialTLSConfig(tlsConfig(t, s, false)))
			}
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			m, err := adminWith(t, opts...).BrokerMetadata(ctx)
			if tc.wantErr {
				if !errors.Is(err, kerr.SaslAuthenticationFailed) {
					t.Fatalf("err = %v, want SASL_AUTHENTICATION_FAILED", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Brokers) != 1 {
				t.Errorf("%d brokers, want 1", len(m.Brokers))
			}
		})
	}
}
