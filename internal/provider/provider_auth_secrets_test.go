package provider

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// noCanaryInPlan fails when a canary appears anywhere in the plan (JSON, all of it).
type noCanaryInPlan struct{ canaries []string }

func (c noCanaryInPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	data, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	for _, canary := range c.canaries {
		if strings.Contains(string(data), canary) {
			resp.Error = fmt.Errorf("the plan holds the secret canary %s", canary)
		}
	}
}

// With TF_LOG=TRACE, a failing login (a password with a canary) and a succeeding one (a client key
// and an OAuth client secret with canaries): the canaries appear nowhere in the provider's log
// (its read logs included: summaries, dials, requests), Terraform's log (which also carries the
// diagnostics), or the plan.
func TestAccAuth_secretsNeverLogged(t *testing.T) {
	b := acctest.Auth(t)
	k, topic := authTopic(t)
	tag := make([]byte, 6)
	_, _ = rand.Read(tag)
	canaryPassword := "CANARY-password-" + hex.EncodeToString(tag)
	canaryKey := "CANARY-key-" + hex.EncodeToString(tag)
	canarySecret := "CANARY-secret-" + hex.EncodeToString(tag)
	canaries := []string{canaryPassword, canaryKey, canarySecret}

	// The client key, still valid PEM, with the canary in a PEM header.
	key := acctest.ReadFile(t, b.ClientKeyFile)
	key = strings.Replace(key, "-----BEGIN PRIVATE KEY-----\n", "-----BEGIN PRIVATE KEY-----\nX-Canary: "+canaryKey+"\n\n", 1)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "client.key")
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := acctest.NewTokenEndpoint(t, "tfacc-app", canarySecret, b.OAuthPrincipal)
	// The secrets reach Terraform through files, as in real configurations, so that the test
	// harness's own log of each step's configuration text does not hold them.
	passwordFile, secretFile := filepath.Join(dir, "password"), filepath.Join(dir, "client-secret")
	for f, v := range map[string]string{passwordFile: canaryPassword + "\n", secretFile: canarySecret + "\n"} {
		if err := os.WriteFile(f, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// TF_ACC_LOG_PATH gets Terraform's TRACE log and, through terraform-plugin-log's test sink,
	// the in-process provider's tflog output at TRACE too.
	logFile := filepath.Join(dir, "trace.log")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	t.Setenv("TF_LOG_PATH_MASK", "")

	failing := authConfig(b.SASLPlaintext, fmt.Sprintf(
		"  sasl {\n    mechanism = \"scram-sha-512\"\n    username  = %q\n    password  = trimspace(file(%q))\n  }\n", b.Username, passwordFile), topic)
	// Two succeeding logins, one provider configuration each (aliases of one in-process provider
	// would be configured concurrently on one framework server, which the race detector rejects).
	mtls := fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  tls {
    ca_cert     = file(%q)
    client_cert = file(%q)
    client_key  = file(%q)
  }
}

data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
}
`, b.MTLS, b.CAFile, b.ClientCertFile, keyFile, topic)
	oauth := fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  tls {
    ca_cert = file(%q)
  }
  sasl {
    mechanism     = "oauthbearer"
    token_url     = %q
    client_id     = "tfacc-app"
    client_secret = trimspace(file(%q))
  }
}

data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
}
`, b.SASLSSL, b.CAFile, tokens.URL, secretFile, topic)

	succeeding := func(config string) resource.TestStep {
		return resource.TestStep{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{noCanaryInPlan{canaries}},
			},
			ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 2, 5),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      failing,
				ExpectError: errorLike("Kafka authentication failed", `user "`+b.Username+`", mechanism SCRAM-SHA-512`),
			},
			succeeding(mtls),
			succeeding(oauth),
		},
	})

	if tokens.Hits.Load() == 0 {
		t.Fatal("the OAuth provider never fetched a token: the succeeding login did not use the canary secret")
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	// The log is there and at TRACE, with the provider's own lines (what is safe to log) and the
	// diagnostics: otherwise the absence of the canaries would prove nothing. The read logs
	// (read_log.go) are there too: each read's summary (the failed login's among them), its
	// dials (the failed login's with its error) and, in the kafka subsystem at TRACE, its requests.
	for _, mustHave := range []string{"sasl_username=" + b.Username, "sasl_oauth_client_id=tfacc-app",
		"tls_client_cert=true", "Kafka authentication failed", "[TRACE]",
		"] kafka: Kafka read: ", `requests="ListOffsets=3 Metadata=1"`, `outcome="error: Kafka authentication failed"`,
		"] kafka.kafka: dialled a Kafka broker: ", `error="SASL authentication failed`, "[TRACE] kafka.kafka: Kafka request: "} {
		if !strings.Contains(log, mustHave) {
			t.Fatalf("%s (%d bytes) lacks %q: the log is not captured as the test expects", logFile, len(data), mustHave)
		}
	}
	for _, canary := range canaries {
		if i := strings.Index(log, canary); i >= 0 {
			t.Errorf("%s holds the secret canary %s: ...%s...", logFile, canary, log[max(0, i-300):i])
		}
	}
	t.Logf("%d bytes of TRACE log checked, no canary", len(data))
}
