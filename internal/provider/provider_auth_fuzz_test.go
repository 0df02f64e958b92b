package provider

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// FuzzPEMValidator: the plan-time check of ca_cert, client_cert and client_key. Its verdict on a
// CA is the verdict of building the TLS configuration at apply time (a value that passes the plan
// does not fail the apply for its PEM, and the other way round); its error is one "Invalid PEM" on
// the attribute, and never shows a line of a key's base64 body.
func FuzzPEMValidator(f *testing.F) {
	ca := acctest.OtherCA(f)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	for _, s := range []string{ca, ca + ca, "  " + ca + "\n\n", ca + "garbage", keyPEM, "", "/etc/ssl/ca.pem", ca[:len(ca)/2],
		"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", strings.ReplaceAll(keyPEM, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY")} {
		f.Add(false, s)
		f.Add(true, s)
	}
	f.Fuzz(func(t *testing.T, isKey bool, value string) {
		v, attr := pemValidator{kind: pemCertificate}, path.Root("tls").AtName("ca_cert")
		if isKey {
			v, attr = pemValidator{kind: pemKey}, path.Root("tls").AtName("client_key")
		}
		var resp validator.StringResponse
		v.ValidateString(context.Background(), validator.StringRequest{Path: attr, ConfigValue: types.StringValue(value)}, &resp)
		checkDiagnostics(t, resp.Diagnostics, attr)
		if n := resp.Diagnostics.ErrorsCount(); n > 1 || n == 1 && resp.Diagnostics.Errors()[0].Summary() != "Invalid PEM" {
			t.Fatalf("want at most one Invalid PEM error, got %v", resp.Diagnostics)
		}
		if isKey {
			for _, d := range resp.Diagnostics {
				for _, line := range strings.Split(value, "\n") {
					line = strings.TrimSpace(line)
					if len(line) >= 16 && strings.Trim(line, base64Chars) == "" && strings.Contains(d.Detail(), line) {
						t.Fatalf("the diagnostic shows a line of the key: %q", d.Detail())
					}
				}
			}
			return
		}
		if value == "" {
			return // unset at apply time means the system's roots; the plan refuses an empty string
		}
		_, err := kafkaclient.NewTLSConfig(kafkaclient.TLSConfig{CACert: value})
		if (err == nil) != !resp.Diagnostics.HasError() {
			t.Fatalf("plan says %v; apply says %v", resp.Diagnostics, err)
		}
	})
}

const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

const (
	fuzzPassword     = "CANARY-fuzz-password"
	fuzzClientSecret = "CANARY-fuzz-client-secret"
)

// FuzzSecurityEnv: the tls and sasl settings taken from the environment alone (no blocks), as
// they are checked while planning. Whatever the variables hold: no panic, every diagnostic on
// the tls or sasl block or one of their attributes, no raw control character, and neither the
// password nor the client secret in any diagnostic.
func FuzzSecurityEnv(f *testing.F) {
	ca := acctest.OtherCA(f)
	f.Add("", "", "plain", "", "app", "")
	f.Add("true", "", "SCRAM-SHA-512", "", "app", ca)
	f.Add("true", "true", "oauthbearer", "kafka, openid", "", "")
	f.Add("yes", "maybe", "oauthbearer", ",,", "", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----")
	f.Add("false", "", "aws-msk-iam", "", "", ca)
	f.Add("1", "0", "gssapi", "\x1b[31m", "a\nb", "")
	f.Add("", "", "", "", "", ca)
	f.Fuzz(func(t *testing.T, enableTLS, skipVerify, mechanism, scopes, username, caCert string) {
		env := map[string]string{
			EnvEnableTLS: enableTLS, EnvSkipVerify: skipVerify, EnvSASLMechanism: mechanism, EnvSASLScopes: scopes,
			EnvSASLUsername: username, EnvSASLPassword: fuzzPassword, EnvSASLClientSecret: fuzzClientSecret,
			EnvSASLClientID: "app", EnvSASLTokenURL: "https://idp.example/oauth2/token",
		}
		if strings.Contains(caCert, "-----BEGIN") { // anything else is read as a file's path
			env[EnvCACert] = caCert
		}
		for k, v := range env {
			if strings.ContainsRune(v, 0) {
				return // no environment variable holds NUL
			}
			t.Setenv(k, v)
		}
		var diags diag.Diagnostics
		resolveSecurity(context.Background(), nullConfig(), false, &diags)
		checkDiagnostics(t, diags, path.Root("tls"), path.Root("sasl"))
		for _, d := range diags {
			if text := d.Summary() + d.Detail(); strings.Contains(text, fuzzPassword) || strings.Contains(text, fuzzClientSecret) {
				t.Fatalf("a diagnostic shows a secret: %q", text)
			}
		}
	})
}

// A PEM path in the environment is read only when it names a regular file of at most 1 MiB: a
// device, a pipe or a huge file is refused at once, not read for ever.
func TestPEMFileFromEnvironmentIsBounded(t *testing.T) {
	dir := t.TempDir()
	big := dir + "/big.pem"
	if err := os.WriteFile(big, make([]byte, maxPEMFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := dir + "/ca.pem"
	ca := acctest.OtherCA(t)
	if err := os.WriteFile(ok, []byte(ca), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := dir + "/fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/dev/zero", fifo, big, dir, dir + "/missing.pem"} {
		var diags diag.Diagnostics
		v := pemFromEnv(value{v: name, source: "environment variable " + EnvCACert, attr: path.Root("tls").AtName("ca_cert")}, &diags)
		if v.v != "" || diags.ErrorsCount() != 1 || !strings.Contains(diags.Errors()[0].Detail(), "a regular file of at most 1 MiB") {
			t.Errorf("%s: got %d bytes, %v", name, len(v.v), diags)
		}
	}
	var diags diag.Diagnostics
	if v := pemFromEnv(value{v: ok, source: "environment variable " + EnvCACert}, &diags); v.v != ca || diags.HasError() {
		t.Errorf("a PEM file: got %q, %v", v.v, diags)
	}
}
