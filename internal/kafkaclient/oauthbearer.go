package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go/sasl"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// oauthBearer is SASL/OAUTHBEARER (RFC 7628, KIP-255), which kafka-go lacks. The token comes from
// an OAuth 2.0 token endpoint (client credentials grant, golang.org/x/oauth2/clientcredentials)
// and is kept until shortly before it expires, or is a static token.
type oauthBearer struct {
	identity string
	secret   string // the client secret, to keep it out of errors that quote the endpoint
	fetch    func(ctx context.Context) (*oauth2.Token, error)
	now      func() time.Time

	mu      sync.Mutex
	token   *oauth2.Token
	fetched time.Time
}

// oauthRefreshMargin: a cached token is replaced once less than this (or a quarter of its
// lifetime, if shorter) is left, so that no connection starts with a token about to expire.
const oauthRefreshMargin = 30 * time.Second

func newOAuthBearer(c SASLConfig) *oauthBearer {
	if c.Token != "" {
		static := &oauth2.Token{AccessToken: c.Token}
		return &oauthBearer{identity: "a static token", now: time.Now,
			fetch: func(context.Context) (*oauth2.Token, error) { return static, nil }}
	}
	cc := &clientcredentials.Config{
		ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: c.TokenURL, Scopes: c.Scopes,
		AuthStyle: oauth2.AuthStyleAutoDetect,
	}
	return &oauthBearer{
		identity: fmt.Sprintf("client_id %q, tokens from %s", c.ClientID, c.TokenURL),
		secret:   c.ClientSecret,
		fetch:    cc.Token,
		now:      time.Now,
	}
}

func (m *oauthBearer) Name() string     { return "OAUTHBEARER" }
func (m *oauthBearer) Identity() string { return m.identity }

// Start sends RFC 7628's client first message: a GS2 header without authorization identity,
// then the bearer token as the "auth" key, each key-value pair ended by 0x01.
func (m *oauthBearer) Start(ctx context.Context) (sasl.StateMachine, []byte, error) {
	token, err := m.currentToken(ctx)
	if err != nil {
		e := &SASLError{Mechanism: m.Name(), Identity: m.identity, Problem: SASLCredentialsUnavailable, Err: err}
		if md := sasl.MetadataFromContext(ctx); md != nil {
			e.Address = net.JoinHostPort(md.Host, strconv.Itoa(md.Port))
		}
		return nil, nil, e
	}
	return &oauthSession{}, []byte("n,,\x01auth=Bearer " + token + "\x01\x01"), nil
}

// currentToken returns the cached token, or fetches one when there is none or it is about to expire.
func (m *oauthBearer) currentToken(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.token != nil && m.fresh(now) {
		return m.token.AccessToken, nil
	}
	t, err := m.fetch(ctx)
	if err != nil {
		return "", describeTokenError(err, m.secret)
	}
	if t.AccessToken == "" {
		return "", errors.New("the token endpoint answered without an access_token")
	}
	if !isBearerToken(t.AccessToken) {
		// It goes into the SASL message between 0x01 separators: a token with other bytes
		// could add keys of the endpoint's choosing. Not quoted: it is a secret.
		return "", errors.New("the access token is not a bearer token: RFC 6750 allows letters, digits, " +
			"'-', '.', '_', '~', '+', '/' and trailing '='")
	}
	m.token, m.fetched = t, now
	return t.AccessToken, nil
}

func (m *oauthBearer) fresh(now time.Time) bool {
	if m.token.Expiry.IsZero() {
		return true // no expires_in: valid until the provider ends
	}
	margin := min(oauthRefreshMargin, m.token.Expiry.Sub(m.fetched)/4)
	return now.Before(m.token.Expiry.Add(-margin))
}

// describeTokenError words a token endpoint failure without its response body, which might echo
// what was sent; the error fields it does quote are cleared of the client secret.
func describeTokenError(err error, secret string) error {
	redact := func(s string) string {
		if secret == "" {
			return s
		}
		return strings.ReplaceAll(s, secret, "(client_secret)")
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := "the token endpoint refused the client credentials"
		if re.Response != nil {
			// The status code with Go's words for it: the endpoint's own reason phrase may hold
			// control characters.
			msg = strings.TrimSpace(fmt.Sprintf("the token endpoint %s answered HTTP %d %s", re.Response.Request.URL.Redacted(),
				re.Response.StatusCode, http.StatusText(re.Response.StatusCode)))
		}
		if re.ErrorCode != "" {
			msg += fmt.Sprintf(" (error %q", redact(re.ErrorCode))
			if re.ErrorDescription != "" {
				msg += fmt.Sprintf(": %q", redact(re.ErrorDescription))
			}
			msg += ")"
		}
		return errors.New(msg)
	}
	return fmt.Errorf("cannot get a token from the token endpoint: %s", strings.TrimPrefix(err.Error(), "oauth2: "))
}

// oauthSession: after the client's first message the broker answers an empty challenge
// (success) or an error in JSON, which RFC 7628 has the client acknowledge with a single 0x01;
// the broker then fails the exchange with its reason.
type oauthSession struct{}

func (s *oauthSession) Next(_ context.Context, challenge []byte) (bool, []byte, error) {
	if len(challenge) == 0 {
		return true, nil, nil
	}
	return false, []byte{0x01}, nil
}

// isBearerToken reports whether s is RFC 6750's b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" /
// "~" / "+" / "/" ) *"=".
func isBearerToken(s string) bool {
	body := strings.TrimRight(s, "=")
	return body != "" && strings.IndexFunc(body, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("-._~+/", r)
	}) < 0
}
