package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Two clusters, one environment: KAFKA_SASL_* (and KAFKA_ENABLE_TLS) set for the default provider,
// and an alias whose tls and sasl blocks say enabled = false reading the plaintext listener. Each
// listener refuses the other's protocol, so both reads succeed only when each provider block
// speaks its own. Terraform itself runs the built provider (terraformApply): it starts a provider
// process per provider block, where in-process aliases would share one framework server.
func TestAccAuth_aliasSwitchesOffTheEnvironment(t *testing.T) {
	b := acctest.Auth(t)
	k, topic := authTopic(t)
	plaintext := acctest.BootstrapServers(t)[0]
	saslEnv := map[string]string{EnvSASLMechanism: "plain", EnvSASLUsername: b.Username, EnvSASLPassword: b.Password}
	for _, tc := range []struct {
		name, addr, off string
		tlsEnv          bool
	}{
		{name: "SASL_PLAINTEXT from the environment", addr: b.SASLPlaintext, off: "  sasl {\n    enabled = false\n  }\n"},
		{name: "SASL_SSL from the environment", addr: b.SASLSSL, tlsEnv: true,
			off: "  tls {\n    enabled = false\n  }\n  sasl {\n    enabled = false\n  }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, v := range saslEnv {
				t.Setenv(name, v)
			}
			if tc.tlsEnv {
				t.Setenv(EnvEnableTLS, "true")
				t.Setenv(EnvCACert, b.CAFile)
			}
			out := terraformApply(t, fmt.Sprintf(`
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {
  bootstrap_servers = [%q]
}

provider "kafka" {
  alias             = "other"
  bootstrap_servers = [%q]
%s}

data "kafka_partition_offsets" "default" {
  topic     = %q
  partition = 0
}

data "kafka_partition_offsets" "other" {
  provider  = kafka.other
  topic     = %q
  partition = 0
}

output "offsets" {
  value = {
    for name, d in { default = data.kafka_partition_offsets.default, other = data.kafka_partition_offsets.other } :
    name => [d.earliest_offset, d.latest_offset]
  }
}
`, tc.addr, plaintext, tc.off, topic, topic), "offsets")
			// authTopic: 5 records, the first 2 deleted; kadm on the plaintext listener agrees.
			if e, l := k.Offsets(topic, 0); e != 2 || l != 5 {
				t.Fatalf("oracle (kadm): earliest %d, latest %d; want 2, 5", e, l)
			}
			if want := `{"default":[2,5],"other":[2,5]}`; out != want {
				t.Fatalf("output offsets = %s, want %s", out, want)
			}
		})
	}
}

// terraformApply runs `terraform apply` on config (one main.tf) with the provider built from this
// module (dev_overrides: no init), in the environment of the test, and returns output's value as
// compact JSON. A failed apply fails t with Terraform's output.
func terraformApply(t *testing.T, config, output string) string {
	t.Helper()
	cli := devOverridesConfig(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte { // its standard output
		cmd := exec.Command(terraformBinary(), append([]string{"-chdir=" + dir}, args...)...)
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cli, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("terraform %v: %v\n%s%s", args, err, out, stderr.Bytes())
		}
		return out
	}
	run("apply", "-auto-approve", "-input=false", "-no-color")
	var v any
	if err := json.Unmarshal(run("output", "-json", output), &v); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(v)
	return string(compact)
}
