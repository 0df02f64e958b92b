package acctest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// AuthBroker is what tools/kafka.sh run exports about the broker's TLS and SASL listeners (see the
// script's header): addresses, certificate files made at start time, and the test users.
type AuthBroker struct {
	SSL           string // TLS, no client certificate asked
	MTLS          string // TLS, ssl.client.auth=required
	SASLPlaintext string // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER
	SASLSSL       string // the same over TLS

	CAFile, ClientCertFile, ClientKeyFile string // PEM
	Username, Password                    string // for PLAIN and both SCRAMs
	OAuthPrincipal                        string // the token "sub" that is a super user
}

// Auth returns the broker's TLS and SASL listeners. Without TF_ACC the test is skipped; against a
// cluster of your own (KAFKA_BOOTSTRAP_SERVERS set before make testacc) the variables are missing
// and the test is skipped, saying so. Under make testacc they are always there.
func Auth(t testing.TB) *AuthBroker {
	t.Helper()
	BootstrapServers(t) // skips without TF_ACC
	get := func(name string) string {
		v := os.Getenv(name)
		if v == "" {
			t.Skipf("%s is not set: the TLS/SASL acceptance tests need the broker of tools/kafka.sh run (make testacc)", name)
		}
		return v
	}
	return &AuthBroker{
		SSL: get("KAFKA_SSL_BOOTSTRAP_SERVERS"), MTLS: get("KAFKA_MTLS_BOOTSTRAP_SERVERS"),
		SASLPlaintext: get("KAFKA_SASL_PLAINTEXT_BOOTSTRAP_SERVERS"), SASLSSL: get("KAFKA_SASL_SSL_BOOTSTRAP_SERVERS"),
		CAFile: get("KAFKA_TEST_CA_FILE"), ClientCertFile: get("KAFKA_TEST_CLIENT_CERT_FILE"),
		ClientKeyFile: get("KAFKA_TEST_CLIENT_KEY_FILE"),
		Username:      get("KAFKA_TEST_SASL_USERNAME"), Password: get("KAFKA_TEST_SASL_PASSWORD"),
		OAuthPrincipal: get("KAFKA_TEST_OAUTH_PRINCIPAL"),
	}
}

// ReadFile returns a file's text or fails the test.
func ReadFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// UnsecuredJWT is a token that Kafka's unsecured-JWS validator accepts: alg "none", a subject,
// issued now, expiring after lifetime, no signature.
func UnsecuredJWT(subject string, lifetime time.Duration) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now()
	return enc(map[string]string{"alg": "none"}) + "." +
		enc(map[string]any{"sub": subject, "iat": now.Unix(), "exp": now.Add(lifetime).Unix()}) + "."
}

// TokenEndpoint serves an OAuth 2.0 token endpoint (client credentials grant) on loopback that
// gives clientID, authenticated with clientSecret, an unsecured JWT for subject valid one hour.
// Hits counts the tokens issued; refusals answer 401 invalid_client.
type TokenEndpoint struct {
	URL  string
	Hits atomic.Int32
}

// NewTokenEndpoint starts the endpoint and stops it with the test.
func NewTokenEndpoint(t testing.TB, clientID, clientSecret, subject string) *TokenEndpoint {
	t.Helper()
	te := &TokenEndpoint{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
		}
		w.Header().Set("Content-Type", "application/json")
		if r.PostFormValue("grant_type") != "client_credentials" || id != clientID || secret != clientSecret {
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
			return
		}
		te.Hits.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": UnsecuredJWT(subject, time.Hour), "token_type": "bearer", "expires_in": 3600,
		})
	}))
	t.Cleanup(srv.Close)
	te.URL = srv.URL + "/oauth2/token"
	return te
}

// OtherCA returns the PEM of a fresh CA that signed nothing the broker has.
func OtherCA(t testing.TB) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "some other CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
