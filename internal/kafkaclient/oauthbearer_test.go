package kafkaclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/sasl"
)

// tokenEndpoint is an OAuth 2.0 token endpoint (client credentials grant) that issues tokens
// "token-1", "token-2", ... valid for lifetime, to the client with the given secret.
func tokenEndpoint(t *testing.T, secret string, lifetime time.Duration) (url string, hits *atomic.Int32) {
	t.Helper()
	hits = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, sec, ok := r.BasicAuth()
		if !ok {
			_ = r.ParseForm()
			id, sec = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		w.Header().Set("Content-Type", "application/json")
		if r.PostFormValue("grant_type") != "client_credentials" || id != "app" || sec != secret {
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": "bad client credentials"})
			return
		}
		n := hits.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": fmt.Sprintf("token-%d", n), "token_type": "bearer", "expires_in": int(lifetime.Seconds()),
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL, hits
}

func TestOAuthBearerClientFirstMessage(t *testing.T) { // RFC 7628 section 3.1, as Kafka's OAuthBearerClientInitialResponse parses it
	m, err := NewSASL(context.Background(), SASLConfig{Mechanism: "OAUTHBEARER", Token: "abc.def."})
	if err != nil {
		t.Fatal(err)
	}
	if m.mech().Name() != "OAUTHBEARER" {
		t.Fatalf("name %q", m.mech().Name())
	}
	sess, ir, err := m.mech().Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := "n,,\x01auth=Bearer abc.def.\x01\x01"; string(ir) != want {
		t.Fatalf("client first message %q, want %q", ir, want)
	}
	// The broker's error challenge (JSON) is acknowledged with a single 0x01; an empty one ends the exchange.
	done, resp, err := sess.Next(context.Background(), []byte(`{"status":"invalid_token"}`))
	if done || err != nil || string(resp) != "\x01" {
		t.Fatalf("after an error challenge: done=%v resp=%q err=%v, want false, 0x01, nil", done, resp, err)
	}
	done, _, err = sess.Next(context.Background(), nil)
	if !done || err != nil {
		t.Fatalf("after the empty challenge: done=%v err=%v", done, err)
	}
	if got := identityOf(m.mech()); got != "a static token" {
		t.Fatalf("identity %q", got)
	}
}

func TestOAuthBearerTokenCachedUntilShortlyBeforeExpiry(t *testing.T) {
	url, hits := tokenEndpoint(t, "s3cret", time.Hour)
	m := newOAuthBearer(SASLConfig{Mechanism: "oauthbearer", TokenURL: url, ClientID: "app", ClientSecret: "s3cret", Scopes: []string{"kafka"}})
	now := time.Now()
	m.now = func() time.Time { return now }
	first := func() string {
		t.Helper()
		_, ir, err := m.Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(strings.TrimPrefix(string(ir), "n,,\x01auth=Bearer "), "\x01\x01")
	}
	if tok := first(); tok != "token-1" || hits.Load() != 1 {
		t.Fatalf("first Start: token %q after %d fetches", tok, hits.Load())
	}
	now = now.Add(59 * time.Minute) // 60 s left: more than the 30 s margin
	if tok := first(); tok != "token-1" || hits.Load() != 1 {
		t.Fatalf("59 min later: token %q after %d fetches, want the cached token-1", tok, hits.Load())
	}
	now = now.Add(40 * time.Second) // 20 s left: inside the margin
	if tok := first(); tok != "token-2" || hits.Load() != 2 {
		t.Fatalf("20 s before expiry: token %q after %d fetches, want a fresh token-2", tok, hits.Load())
	}
}

func TestOAuthBearerTokenEndpointRefusal(t *testing.T) {
	const canary = "CANARY-client-secret-7f3a"
	url, _ := tokenEndpoint(t, "the-right-one", time.Hour)
	m := newOAuthBearer(SASLConfig{Mechanism: "oauthbearer", TokenURL: url, ClientID: "app", ClientSecret: canary})
	ctx := sasl.WithMetadata(context.Background(), &sasl.Metadata{Host: "broker-1", Port: 9096})
	_, _, err := m.Start(ctx)
	var se *SASLError
	if !errors.As(err, &se) || se.Problem != SASLCredentialsUnavailable {
		t.Fatalf("got %v, want a SASLError (credentials unavailable)", err)
	}
	for _, want := range []string{"OAUTHBEARER", `client_id "app"`, "broker-1:9096", "HTTP 401", `"invalid_client"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), canary) {
		t.Fatalf("error holds the client secret: %v", err)
	}
}
