package kafkaclient

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/segmentio/kafka-go/sasl"
)

// No MSK cluster is reachable from the tests: AWS_MSK_IAM is verified here, by recomputing the
// SigV4 query signature of the payload independently (AWS's documented algorithm, written out
// below) from static credentials and a fixed clock. Against the real Apache Kafka broker, which has
// no AWS_MSK_IAM, the acceptance tests check only that the broker's refusal is named.

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// sigV4QuerySignature is AWS Signature Version 4 for a presigned GET of "/" on host, signing only
// the host header, with the payload hash the MSK IAM protocol uses (SHA-256 of "").
func sigV4QuerySignature(secret, region, service, host string, query url.Values) string {
	keys := make([]string, 0, len(query))
	for k := range query {
		if k != "X-Amz-Signature" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	escape := func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
	var pairs []string
	for _, k := range keys {
		pairs = append(pairs, escape(k)+"="+escape(query.Get(k)))
	}
	canonical := strings.Join([]string{
		"GET", "/", strings.Join(pairs, "&"), "host:" + host + "\n", "host",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	}, "\n")
	date := query.Get("X-Amz-Date")
	scope := date[:8] + "/" + region + "/" + service + "/aws4_request"
	toSign := strings.Join([]string{"AWS4-HMAC-SHA256", date, scope, sha256Hex(canonical)}, "\n")
	key := hmacSHA256([]byte("AWS4"+secret), date[:8])
	key = hmacSHA256(key, region)
	key = hmacSHA256(key, service)
	key = hmacSHA256(key, "aws4_request")
	return hex.EncodeToString(hmacSHA256(key, toSign))
}

func TestMSKIAMSignedPayload(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	m, err := newMSKIAM(context.Background(), SASLConfig{Mechanism: "aws-iam", Region: "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	const (
		akid   = "AKIDEXAMPLE"
		secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
		token  = "session/token+with=odd&chars"
		host   = "b-1.demo.kafka.eu-west-1.amazonaws.com"
	)
	m.Credentials = credentials.NewStaticCredentialsProvider(akid, secret, token)
	m.SignTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	if m.Name() != "AWS_MSK_IAM" {
		t.Fatalf("name %q", m.Name())
	}
	ctx := sasl.WithMetadata(context.Background(), &sasl.Metadata{Host: host, Port: 9098})
	sess, ir, err := m.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]string
	if err := json.Unmarshal(ir, &payload); err != nil {
		t.Fatalf("initial response is not a JSON object: %v: %s", err, ir)
	}
	want := map[string]string{
		"version":              "2020_10_22",
		"host":                 host,
		"action":               "kafka-cluster:Connect",
		"x-amz-algorithm":      "AWS4-HMAC-SHA256",
		"x-amz-credential":     akid + "/20260304/eu-west-1/kafka-cluster/aws4_request",
		"x-amz-date":           "20260304T050607Z",
		"x-amz-expires":        "300",
		"x-amz-signedheaders":  "host",
		"x-amz-security-token": token,
	}
	for k, v := range want {
		if payload[k] != v {
			t.Errorf("payload[%q] = %q, want %q", k, payload[k], v)
		}
	}
	if !strings.HasPrefix(payload["user-agent"], "kafka-go/sasl/aws_msk_iam_v2/") {
		t.Errorf("user-agent %q", payload["user-agent"])
	}
	query := url.Values{
		"Action":               {"kafka-cluster:Connect"},
		"X-Amz-Algorithm":      {"AWS4-HMAC-SHA256"},
		"X-Amz-Credential":     {want["x-amz-credential"]},
		"X-Amz-Date":           {want["x-amz-date"]},
		"X-Amz-Expires":        {"300"},
		"X-Amz-Security-Token": {token},
		"X-Amz-SignedHeaders":  {"host"},
	}
	if got, exp := payload["x-amz-signature"], sigV4QuerySignature(secret, "eu-west-1", "kafka-cluster", host, query); got != exp {
		t.Fatalf("x-amz-signature %s, want %s (independent SigV4)", got, exp)
	}
	if done, _, err := sess.Next(ctx, nil); !done || err != nil {
		t.Fatalf("after the broker's answer: done=%v err=%v", done, err)
	}
	if id := identityOf(m); id != "AWS credentials from the default chain, region eu-west-1" {
		t.Fatalf("identity %q", id)
	}
}

func TestMSKIAMCredentialsFromTheDefaultChain(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "config")
	if err := os.WriteFile(cfgFile, []byte("[profile msk]\nregion = ap-south-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	credFile := filepath.Join(dir, "credentials")
	if err := os.WriteFile(credFile, []byte("[msk]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", cfgFile)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", credFile)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	ctx := sasl.WithMetadata(context.Background(), &sasl.Metadata{Host: "b-1", Port: 9098})

	t.Run("profile gives region and credentials", func(t *testing.T) {
		m, err := newMSKIAM(context.Background(), SASLConfig{Mechanism: "aws-msk-iam", Profile: "msk"})
		if err != nil {
			t.Fatal(err)
		}
		_, ir, err := m.Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ir), `"x-amz-credential":"AKIDPROFILE/`) || !strings.Contains(string(ir), "/ap-south-1/kafka-cluster/") {
			t.Fatalf("payload not signed with the profile's key and region: %s", ir)
		}
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "s")
		t.Setenv("AWS_REGION", "us-east-2")
		m, err := newMSKIAM(context.Background(), SASLConfig{Mechanism: "aws-msk-iam"})
		if err != nil {
			t.Fatal(err)
		}
		_, ir, err := m.Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ir), `"x-amz-credential":"AKIDENV/`) || !strings.Contains(string(ir), "/us-east-2/kafka-cluster/") {
			t.Fatalf("payload not signed with the environment's key and region: %s", ir)
		}
	})
	t.Run("no region", func(t *testing.T) {
		_, err := newMSKIAM(context.Background(), SASLConfig{Mechanism: "aws-msk-iam"})
		var ce *SASLConfigError
		if !errors.As(err, &ce) || ce.Field != "region" {
			t.Fatalf("got %v, want a SASLConfigError on region", err)
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		m, err := newMSKIAM(context.Background(), SASLConfig{Mechanism: "aws-msk-iam", Region: "eu-west-1"})
		if err != nil {
			t.Fatal(err)
		}
		m.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{}, errors.New("no EC2 IMDS role found")
		})
		_, _, err = m.Start(ctx)
		var se *SASLError
		if !errors.As(err, &se) || se.Problem != SASLCredentialsUnavailable || !strings.Contains(err.Error(), "b-1:9098") ||
			!strings.Contains(err.Error(), "no EC2 IMDS role found") {
			t.Fatalf("got %v, want a SASLError (credentials unavailable) naming the broker and the cause", err)
		}
	})
}
