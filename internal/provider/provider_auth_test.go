package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Acceptance tests of the tls and sasl blocks against the broker's SSL, MTLS, SASL_PLAINTEXT and
// SASL_SSL listeners (tools/kafka.sh). Offsets are checked against kadm on the PLAINTEXT listener:
// the same broker, the same partition, an independent client.

func TestAccAuth_eachMechanismAndTLSMode(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	k, topic := authTopic(t)
	tokens := acctest.NewTokenEndpoint(t, "tfacc-app", "app-secret", b.OAuthPrincipal)
	tlsBlock := fmt.Sprintf("  tls {\n    ca_cert = file(%q)\n  }\n", b.CAFile)
	mtlsBlock := fmt.Sprintf("  tls {\n    ca_cert     = file(%q)\n    client_cert = file(%q)\n    client_key  = file(%q)\n  }\n",
		b.CAFile, b.ClientCertFile, b.ClientKeyFile)
	userPass := func(mechanism string) string {
		return fmt.Sprintf("  sasl {\n    mechanism = %q\n    username  = %q\n    password  = %q\n  }\n", mechanism, b.Username, b.Password)
	}
	oauthClient := fmt.Sprintf("  sasl {\n    mechanism     = \"oauthbearer\"\n    token_url     = %q\n    client_id     = \"tfacc-app\"\n"+
		"    client_secret = \"app-secret\"\n    scopes        = [\"kafka\"]\n  }\n", tokens.URL)
	oauthStatic := fmt.Sprintf("  sasl {\n    mechanism = \"OAUTHBEARER\"\n    token     = %q\n  }\n", acctest.UnsecuredJWT(b.OAuthPrincipal, time.Hour))
	for _, tc := range []struct{ name, addr, blocks string }{
		{name: "SSL", addr: b.SSL, blocks: tlsBlock},
		{name: "SSL with server_name", addr: b.SSL, blocks: fmt.Sprintf("  tls {\n    ca_cert     = file(%q)\n    server_name = \"localhost\"\n  }\n", b.CAFile)},
		{name: "mutual TLS", addr: b.MTLS, blocks: mtlsBlock},
		{name: "mutual TLS on a listener that does not ask", addr: b.SSL, blocks: mtlsBlock},
		{name: "SASL_PLAINTEXT PLAIN", addr: b.SASLPlaintext, blocks: userPass("plain")},
		{name: "SASL_PLAINTEXT SCRAM-SHA-256", addr: b.SASLPlaintext, blocks: userPass("scram-sha-256")},
		{name: "SASL_PLAINTEXT SCRAM-SHA-512 (community spelling)", addr: b.SASLPlaintext, blocks: userPass("scram-sha512")},
		{name: "SASL_PLAINTEXT OAUTHBEARER client credentials", addr: b.SASLPlaintext, blocks: oauthClient},
		{name: "SASL_PLAINTEXT OAUTHBEARER static token", addr: b.SASLPlaintext, blocks: oauthStatic},
		{name: "SASL_SSL PLAIN", addr: b.SASLSSL, blocks: tlsBlock + userPass("PLAIN")},
		{name: "SASL_SSL SCRAM-SHA-256 (community spelling)", addr: b.SASLSSL, blocks: tlsBlock + userPass("scram-sha256")},
		{name: "SASL_SSL SCRAM-SHA-512", addr: b.SASLSSL, blocks: tlsBlock + userPass("scram-sha-512")},
		{name: "SASL_SSL OAUTHBEARER client credentials", addr: b.SASLSSL, blocks: tlsBlock + oauthClient},
		{name: "SASL_SSL OAUTHBEARER static token", addr: b.SASLSSL, blocks: tlsBlock + oauthStatic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{scramStep(k, tc.blocks, resource.TestStep{
					Config:            authConfig(tc.addr, tc.blocks, topic),
					ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 2, 5),
				})},
			})
		})
	}
	if tokens.Hits.Load() == 0 {
		t.Fatal("the token endpoint issued no token: the OAUTHBEARER client-credentials cases did not use it")
	}
}

// Every attribute from the environment, with the community provider's names (and a file path
// where PEM is expected).
func TestAccAuth_environment(t *testing.T) {
	b := acctest.Auth(t)
	k, topic := authTopic(t)
	config := func(addr string) string {
		return fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
}
data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
}
`, addr, topic)
	}
	t.Run("SASL_SSL, SCRAM-SHA-512, CA file path", func(t *testing.T) {
		t.Setenv(EnvEnableTLS, "true")
		t.Setenv(EnvCACert, b.CAFile)
		t.Setenv(EnvSASLMechanism, "scram-sha512")
		t.Setenv(EnvSASLUsername, b.Username)
		t.Setenv(EnvSASLPassword, b.Password)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{scramStep(k, "scram", resource.TestStep{Config: config(b.SASLSSL),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 2, 5)})},
		})
	})
	t.Run("mutual TLS, PEM text", func(t *testing.T) {
		t.Setenv(EnvEnableTLS, "1")
		t.Setenv(EnvCACert, acctest.ReadFile(t, b.CAFile))
		t.Setenv(EnvClientCert, acctest.ReadFile(t, b.ClientCertFile))
		t.Setenv(EnvClientKey, acctest.ReadFile(t, b.ClientKeyFile))
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{Config: config(b.MTLS),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 2, 5)}},
		})
	})
	t.Run("a tls block's attribute wins over the environment", func(t *testing.T) {
		t.Setenv(EnvCACert, acctest.OtherCA(t))
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config:            authConfig(b.SSL, fmt.Sprintf("  tls {\n    ca_cert = file(%q)\n  }\n", b.CAFile), topic),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 2, 5)}},
		})
	})
}

func TestAccAuth_wrongPassword(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	for _, tc := range []struct{ mechanism, kafkaName, reason string }{
		{mechanism: "scram-sha-512", kafkaName: "SCRAM-SHA-512", reason: "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"},
		{mechanism: "scram-sha-256", kafkaName: "SCRAM-SHA-256", reason: "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"},
		{mechanism: "plain", kafkaName: "PLAIN", reason: "Authentication failed: Invalid username or password"},
	} {
		t.Run(tc.mechanism, func(t *testing.T) {
			blocks := fmt.Sprintf("  sasl {\n    mechanism = %q\n    username  = %q\n    password  = \"not-the-password\"\n  }\n", tc.mechanism, b.Username)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: authConfig(b.SASLPlaintext, blocks, "any"),
					ExpectError: errorLike("Kafka authentication failed", "SASL authentication failed at broker "+b.SASLPlaintext,
						fmt.Sprintf(`user "%s", mechanism %s`, b.Username, tc.kafkaName), "the broker says", tc.reason,
						"Check username and password"),
				}},
			})
		})
	}
	t.Run("oauthbearer token the broker refuses", func(t *testing.T) {
		blocks := "  sasl {\n    mechanism = \"oauthbearer\"\n    token     = \"not-a-jwt\"\n  }\n"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: authConfig(b.SASLPlaintext, blocks, "any"),
				ExpectError: errorLike("Kafka authentication failed", "at broker "+b.SASLPlaintext,
					"a static token, mechanism OAUTHBEARER", `the broker says`, "invalid_token"),
			}},
		})
	})
}

func TestAccAuth_oauthTokenEndpointRefuses(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	tokens := acctest.NewTokenEndpoint(t, "tfacc-app", "the-right-secret", b.OAuthPrincipal)
	blocks := fmt.Sprintf("  sasl {\n    mechanism     = \"oauthbearer\"\n    token_url     = %q\n    client_id     = \"tfacc-app\"\n"+
		"    client_secret = \"a-wrong-secret\"\n  }\n", tokens.URL)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: authConfig(b.SASLPlaintext, blocks, "any"),
			ExpectError: errorLike("Could not get SASL credentials", "mechanism OAUTHBEARER", `client_id "tfacc-app"`,
				"to authenticate at broker "+b.SASLPlaintext, "answered HTTP 401", `"invalid_client"`, "Check token_url, client_id and client_secret"),
		}},
	})
}

func TestAccAuth_mechanismNotEnabled(t *testing.T) {
	b := acctest.Auth(t)
	// Apache Kafka has no AWS_MSK_IAM: the broker refuses it and lists what it offers. No AWS call
	// is made (the handshake fails before any signing), but the SDK's configuration is loaded:
	// keep it away from this machine's files.
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	for _, addr := range []string{b.SASLPlaintext} {
		blocks := "  sasl {\n    mechanism = \"aws-iam\"\n    region    = \"eu-west-1\"\n  }\n"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: authConfig(addr, blocks, "any"),
				ExpectError: errorLike("SASL mechanism not enabled", "broker "+addr+" does not enable SASL mechanism AWS_MSK_IAM",
					"it offers", "PLAIN", "OAUTHBEARER", "Set mechanism in the sasl block to one the listener offers"),
			}},
		})
	}
}

func TestAccAuth_unknownCA(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	for _, tc := range []struct{ name, blocks string }{
		{name: "system roots", blocks: "  tls {}\n"},
		{name: "another CA", blocks: fmt.Sprintf("  tls {\n    ca_cert = <<-EOT\n%s    EOT\n  }\n", acctest.OtherCA(t))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: authConfig(b.SSL, tc.blocks, "any"),
					ExpectError: errorLike("Broker certificate not trusted", "TLS with broker "+b.SSL+" failed",
						"signed by an unknown certificate authority", "Set ca_cert in the tls block"),
				}},
			})
		})
	}
}

func TestAccAuth_certificateNameMismatch(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	blocks := fmt.Sprintf("  tls {\n    ca_cert     = file(%q)\n    server_name = \"kafka.example.com\"\n  }\n", b.CAFile)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: authConfig(b.SSL, blocks, "any"),
			ExpectError: errorLike("Broker certificate does not match its address", "TLS with broker "+b.SSL,
				`not valid for the name "kafka.example.com"`, "set server_name"),
		}},
	})
}

// Both directions of a TLS/plaintext mismatch are named, per address, at once: the provider's
// timeout is 30 s and the step must end long before it.
func TestAccAuth_tlsPlaintextMismatch(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	plaintext := acctest.BootstrapServers(t)[0]
	for _, tc := range []struct {
		name, addr, blocks string
		want               []string
	}{
		{name: "TLS to the PLAINTEXT listener", addr: plaintext, blocks: fmt.Sprintf("  tls {\n    ca_cert = file(%q)\n  }\n", b.CAFile),
			want: []string{"Cannot reach the Kafka cluster", plaintext, "TLS/plaintext mismatch", "plaintext listener"}},
		{name: "TLS to the SASL_PLAINTEXT listener", addr: b.SASLPlaintext, blocks: "  tls {}\n",
			want: []string{"Cannot reach the Kafka cluster", b.SASLPlaintext, "TLS/plaintext mismatch", "plaintext listener"}},
		{name: "plaintext to the SSL listener", addr: b.SSL, blocks: "",
			want: []string{"Cannot reach the Kafka cluster", b.SSL, "answered with TLS: a TLS/plaintext mismatch", "add a tls block"}},
		{name: "plaintext SASL to the SASL_SSL listener", addr: b.SASLSSL,
			blocks: fmt.Sprintf("  sasl {\n    mechanism = \"plain\"\n    username  = %q\n    password  = %q\n  }\n", b.Username, b.Password),
			want:   []string{"Cannot reach the Kafka cluster", b.SASLSSL, "answered with TLS: a TLS/plaintext mismatch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := strings.Replace(authConfig(tc.addr, tc.blocks, "any"), `timeout           = "20s"`, `timeout           = "30s"`, 1)
			start := time.Now()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: config, ExpectError: errorLike(tc.want...)}},
			})
			if took := time.Since(start); took > 15*time.Second {
				t.Fatalf("took %v: a mismatch must be reported at once, not when the 30 s timeout runs out", took)
			}
		})
	}
}

func TestAccAuth_mutualTLSWithoutClientCertificate(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: authConfig(b.MTLS, fmt.Sprintf("  tls {\n    ca_cert = file(%q)\n  }\n", b.CAFile), "any"),
			ExpectError: errorLike("Client certificate required", "TLS with broker "+b.MTLS,
				"asked for a client certificate, none was configured", "requires mutual TLS", "Set client_cert and client_key"),
		}},
	})
}

func TestAccAuth_saslListenerMismatch(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	plaintext := acctest.BootstrapServers(t)[0]
	userPass := fmt.Sprintf("  sasl {\n    mechanism = \"scram-sha-512\"\n    username  = %q\n    password  = %q\n  }\n", b.Username, b.Password)
	t.Run("SASL to the PLAINTEXT listener", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: authConfig(plaintext, userPass, "any"),
				ExpectError: errorLike("SASL configured for a listener without SASL", "broker "+plaintext,
					"ILLEGAL_SASL_STATE", "does not use SASL", "Remove the sasl block"),
			}},
		})
	})
	t.Run("no SASL to the SASL_PLAINTEXT listener", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: authConfig(b.SASLPlaintext, "", "any"),
				ExpectError: errorLike("Broker requires SASL authentication", "broker "+b.SASLPlaintext,
					"this listener requires SASL authentication", "it offers", "SCRAM-SHA-512", "Add a sasl block"),
			}},
		})
	})
}

func TestAccAuth_invalidInputFailsWhilePlanning(t *testing.T) {
	b := acctest.Auth(t)
	otherKey := filepath.Join(t.TempDir(), "other.pem")
	if err := os.WriteFile(otherKey, []byte(acctest.OtherCA(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, blocks string
		env          map[string]string
		want         []string
	}{
		{name: "unknown mechanism", blocks: "  sasl {\n    mechanism = \"gssapi\"\n  }\n", env: nil,
			want: []string{"Attribute sasl.mechanism value must be one of"}},
		{name: "scram without password", blocks: "  sasl {\n    mechanism = \"scram-sha-512\"\n    username = \"u\"\n  }\n", env: nil,
			want: []string{"Invalid SASL configuration", "sasl.password mechanism scram-sha-512 needs username and password"}},
		{name: "token with scram", blocks: "  sasl {\n    mechanism = \"scram-sha-256\"\n    username = \"u\"\n    password = \"p\"\n    token = \"t\"\n  }\n", env: nil,
			want: []string{"sasl.token does not apply to mechanism scram-sha-256"}},
		{name: "oauthbearer without a secret", blocks: "  sasl {\n    mechanism = \"oauthbearer\"\n    token_url = \"https://idp.example/token\"\n    client_id = \"c\"\n  }\n", env: nil,
			want: []string{"sasl.client_secret mechanism oauthbearer needs token_url, client_id and client_secret"}},
		{name: "no mechanism", blocks: "  sasl {\n    username = \"u\"\n  }\n", env: nil, want: []string{"Missing SASL mechanism"}},
		{name: "client_cert without client_key", blocks: fmt.Sprintf("  tls {\n    client_cert = file(%q)\n  }\n", b.ClientCertFile), env: nil,
			want: []string{"Client certificate without key", "tls.client_cert is set, but no client key"}},
		{name: "a path where PEM belongs", blocks: "  tls {\n    ca_cert = \"/etc/ssl/ca.pem\"\n  }\n", env: nil,
			want: []string{"Invalid PEM", "tls.ca_cert: holds no PEM block", `file("ca.pem") reads a file`}},
		{name: "certificate as key", blocks: fmt.Sprintf("  tls {\n    client_cert = file(%q)\n    client_key = file(%q)\n  }\n", b.ClientCertFile, b.ClientCertFile), env: nil,
			want: []string{"Invalid PEM", "tls.client_key: holds a CERTIFICATE where the private key belongs"}},
		{name: "role_arn", blocks: "  sasl {\n    mechanism = \"aws-msk-iam\"\n    role_arn = \"kafka-reader\"\n  }\n", env: nil,
			want: []string{"must be an IAM role ARN"}},
		{name: "bad KAFKA_CA_CERT", blocks: "  tls {}\n", env: map[string]string{EnvCACert: "/nonexistent/ca.pem"},
			want: []string{"Invalid KAFKA_CA_CERT", "holds neither PEM text"}},
		{name: "KAFKA_CLIENT_CERT not a certificate", blocks: "  tls {}\n",
			env:  map[string]string{EnvClientCert: otherKey + "-missing", EnvClientKey: b.ClientKeyFile},
			want: []string{"Invalid KAFKA_CLIENT_CERT", "holds neither PEM text"}},
		{name: "bad KAFKA_ENABLE_TLS", blocks: "", env: map[string]string{EnvEnableTLS: "maybe"}, want: []string{`KAFKA_ENABLE_TLS is "maybe": want true or false`}},
		{name: "bad KAFKA_SASL_MECHANISM", blocks: "", env: map[string]string{EnvSASLMechanism: "kerberos"},
			want: []string{"Invalid SASL mechanism", `The environment variable KAFKA_SASL_MECHANISM is "kerberos"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{Config: authConfig("localhost:9092", tc.blocks, "t"), PlanOnly: true,
					ExpectError: errorLike(tc.want...)}},
			})
		})
	}
}

// As for bootstrap_servers taken from a resource not yet created, for credentials: a password known
// only after apply (here from a resource) builds no client while planning; the data source, with
// depends_on, is read at apply and exact.
func TestAccAuth_credentialsKnownOnlyAtApply(t *testing.T) {
	t.Parallel()
	b := acctest.Auth(t)
	k, topic := authTopic(t)
	config := fmt.Sprintf(`
resource "terraform_data" "secret" {
  input = %q
}

provider "kafka" {
  bootstrap_servers = [%q]
  sasl {
    mechanism = "plain"
    username  = %q
    password  = terraform_data.secret.output
  }
}

data "kafka_partition_offsets" "test" {
  topic      = %q
  partition  = 0
  depends_on = [terraform_data.secret]
}
`, b.Password, b.SASLPlaintext, b.Username, topic)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("data.kafka_partition_offsets.test", tfjsonpath.New("latest_offset")),
			}},
			ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 2, 5),
		}},
	})
}
