package kafkaclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go/sasl"
	"golang.org/x/oauth2"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// tokenResponse answers every token request with one HTTP response, as the token endpoint sent
// it: any status code and reason phrase, content type and body.
type tokenResponse struct {
	code        int
	status      string
	contentType string
	body        []byte
}

func (r *tokenResponse) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return &http.Response{StatusCode: r.code, Status: r.status, Request: req, // as net/http's transport fills them
		Header: http.Header{"Content-Type": {r.contentType}}, Body: io.NopCloser(bytes.NewReader(r.body))}, nil
}

const fuzzClientSecret = "CANARY-client-secret-fuzz"

var contentTypes = []string{"application/json", "application/json; charset=utf-8", "application/x-www-form-urlencoded",
	"text/plain", "text/html", ""}

// FuzzOAuthTokenResponse feeds OAUTHBEARER hostile token endpoint answers. Start either sends
// RFC 7628's client first message with a token Kafka can read (one auth key, a bearer token of
// RFC 6750 characters, so the endpoint cannot add keys of its own), or fails with a
// SASLError (credentials unavailable) that names the broker and shows neither the client secret
// nor a raw control character from the answer.
func FuzzOAuthTokenResponse(f *testing.F) {
	f.Add(uint16(200), "200 OK", uint8(0), []byte(`{"access_token":"eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl","token_type":"bearer","expires_in":3600}`))
	f.Add(uint16(200), "200 OK", uint8(2), []byte(`access_token=abc.def-ghi_jkl&token_type=bearer&expires_in=60`))
	f.Add(uint16(401), "401 Unauthorized", uint8(0), []byte(`{"error":"invalid_client","error_description":"bad client credentials"}`))
	f.Add(uint16(400), "400 Bad Request", uint8(3), []byte(`error=invalid_scope&error_description=unknown+scope`))
	f.Add(uint16(200), "200 OK", uint8(0), []byte(`{"error":"invalid_request"}`))
	f.Add(uint16(200), "200 OK", uint8(0), []byte(`{"access_token":""}`))
	f.Add(uint16(200), "200 OK", uint8(0), []byte(`{"access_token":"abc","expires_in":-99999999999}`))
	f.Add(uint16(200), "200 OK", uint8(4), []byte(`<html>login</html>`))
	f.Add(uint16(500), "500 Internal Server Error", uint8(5), []byte{})
	// An endpoint that echoes what it was sent.
	f.Add(uint16(401), "401 Unauthorized", uint8(0), []byte(`{"error":"invalid_client","error_description":"no client with secret `+fuzzClientSecret+`"}`))
	f.Add(uint16(200), "200 OK", uint8(2), []byte(`error=`+fuzzClientSecret))
	f.Fuzz(func(t *testing.T, code uint16, status string, ctype uint8, body []byte) {
		defer acctest.NoHang("OAUTHBEARER token")()
		m := newOAuthBearer(SASLConfig{Mechanism: "oauthbearer", TokenURL: "https://idp.example/oauth2/token",
			ClientID: "app", ClientSecret: fuzzClientSecret, Scopes: []string{"kafka"}})
		rt := &tokenResponse{code: int(code), status: status, contentType: contentTypes[int(ctype)%len(contentTypes)], body: body}
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: rt})
		ctx = sasl.WithMetadata(ctx, &sasl.Metadata{Host: "broker-1", Port: 9096})
		_, first, err := m.Start(ctx)
		if err == nil {
			parts := strings.Split(string(first), "\x01")
			if len(parts) != 4 || parts[0] != "n,," || parts[2] != "" || parts[3] != "" ||
				!strings.HasPrefix(parts[1], "auth=Bearer ") || !b64token(strings.TrimPrefix(parts[1], "auth=Bearer ")) {
				t.Fatalf("client first message %q is not one auth key with a bearer token", first)
			}
			return
		}
		var se *SASLError
		if !errors.As(err, &se) || se.Problem != SASLCredentialsUnavailable || se.Address != "broker-1:9096" {
			t.Fatalf("got %#v, want a SASLError (credentials unavailable) for broker-1:9096", err)
		}
		text := err.Error()
		if strings.Contains(text, fuzzClientSecret) {
			t.Fatalf("the error shows the client secret: %s", text)
		}
		if r := acctest.ControlRune(text); r >= 0 {
			t.Fatalf("the error shows the control character %U from the endpoint raw: %q", r, text)
		}
	})
}

// b64token is RFC 6750's grammar for a bearer token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" /
// "+" / "/" ) *"=".
func b64token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for _, r := range body {
		if !b64tokenChar(r) {
			return false
		}
	}
	return true
}

func b64tokenChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~+/", r)
}
