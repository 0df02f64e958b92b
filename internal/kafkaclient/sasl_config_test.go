package kafkaclient

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestMechanismSpellings(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "PLAIN": "plain", "scram-sha-256": "scram-sha-256", "SCRAM-SHA-256": "scram-sha-256",
		"scram-sha256": "scram-sha-256", "scram-sha512": "scram-sha-512", "Scram-Sha-512": "scram-sha-512",
		"oauthbearer": "oauthbearer", "OAUTHBEARER": "oauthbearer", "aws-iam": "aws-msk-iam", "AWS_MSK_IAM": "aws-msk-iam",
	} {
		if got, ok := NormalizeMechanism(in); !ok || got != want {
			t.Errorf("NormalizeMechanism(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "gssapi", "scram", "scram-sha-1"} {
		if got, ok := NormalizeMechanism(in); ok {
			t.Errorf("NormalizeMechanism(%q) = %q, want rejected", in, got)
		}
	}
}

func TestCheckSASLNamesTheAttribute(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   SASLConfig
		field string
		want  string
	}{
		{name: "unknown", cfg: SASLConfig{Mechanism: "gssapi"}, field: "mechanism", want: `"gssapi" is not a SASL mechanism: want one of plain, scram-sha-256`},
		{name: "scram without password", cfg: SASLConfig{Mechanism: "scram-sha-512", Username: "u"}, field: "password", want: "needs username and password"},
		{name: "plain without username", cfg: SASLConfig{Mechanism: "plain", Password: "p"}, field: "username", want: "needs username and password"},
		{name: "token with scram", cfg: SASLConfig{Mechanism: "scram-sha-256", Username: "u", Password: "p", Token: "t"}, field: "token", want: "does not apply to mechanism scram-sha-256"},
		{name: "oauth without secret", cfg: SASLConfig{Mechanism: "oauthbearer", TokenURL: "https://idp/token", ClientID: "c"}, field: "client_secret", want: "needs token_url, client_id and client_secret"},
		{name: "oauth both ways", cfg: SASLConfig{Mechanism: "oauthbearer", Token: "t", ClientID: "c"}, field: "token", want: "either a static token or"},
		{name: "password with iam", cfg: SASLConfig{Mechanism: "aws-iam", Password: "p"}, field: "password", want: "does not apply to mechanism aws-msk-iam"},
		{name: "region with oauth", cfg: SASLConfig{Mechanism: "oauthbearer", Token: "t", Region: "eu-west-1"}, field: "region", want: "does not apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSASL(context.Background(), tc.cfg)
			var ce *SASLConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a SASLConfigError on %s saying %q", err, tc.field, tc.want)
			}
		})
	}
	for _, ok := range []SASLConfig{
		{Mechanism: "plain", Username: "u", Password: "p"},
		{Mechanism: "scram-sha256", Username: "u", Password: "p"},
		{Mechanism: "oauthbearer", Token: "t"},
		{Mechanism: "oauthbearer", TokenURL: "https://idp/token", ClientID: "c", ClientSecret: "s", Scopes: []string{"a"}},
	} {
		m, err := NewSASL(context.Background(), ok)
		if err != nil {
			t.Fatalf("%+v: %v", ok, err)
		}
		if m == nil || identityOf(m.mech()) == "the configured identity" {
			t.Fatalf("%+v: mechanism %v without an identity", ok, m)
		}
	}
}
