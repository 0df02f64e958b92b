package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The tls and sasl blocks' enabled attribute beats the environment both ways: false turns TLS or
// SASL off whatever the variables say, true (or the block alone) turns it on whatever
// KAFKA_ENABLE_TLS says. An unknown enabled builds nothing and reports nothing until known.
func TestSecurityEnabledBeatsEnvironment(t *testing.T) {
	saslEnv := map[string]string{EnvSASLMechanism: "scram-sha-512", EnvSASLUsername: "u", EnvSASLPassword: "p"}
	tlsEnv := map[string]string{EnvEnableTLS: "true", EnvCACert: acctest.OtherCA(t)}
	withSASL := func(enabled types.Bool) providerModel {
		cfg := nullConfig()
		cfg.SASL = nullSASLModel()
		cfg.SASL.Enabled = enabled
		return cfg
	}
	withTLS := func(enabled types.Bool) providerModel {
		cfg := nullConfig()
		cfg.TLS = nullTLSModel()
		cfg.TLS.Enabled = enabled
		return cfg
	}
	for _, tc := range []struct {
		name             string
		env              map[string]string
		cfg              providerModel
		tls, sasl, known bool   // TLS configured, SASL mechanism built, a client built at all
		logSASL          string // the debug log's sasl field
	}{
		{name: "KAFKA_SASL_* alone turn SASL on", env: saslEnv, cfg: nullConfig(),
			sasl: true, logSASL: kafkaclient.MechanismScramSHA512, known: true},
		{name: "sasl enabled = false beats KAFKA_SASL_*", env: saslEnv, cfg: withSASL(types.BoolValue(false)),
			logSASL: "none", known: true},
		{name: "sasl enabled = true takes the rest from KAFKA_SASL_*", env: saslEnv, cfg: withSASL(types.BoolValue(true)),
			sasl: true, logSASL: kafkaclient.MechanismScramSHA512, known: true},
		{name: "sasl enabled unknown: nothing yet", env: saslEnv, cfg: withSASL(types.BoolUnknown()), logSASL: "none"},
		{name: "KAFKA_ENABLE_TLS alone turns TLS on", env: tlsEnv, cfg: nullConfig(), tls: true, logSASL: "none", known: true},
		{name: "tls enabled = false beats KAFKA_ENABLE_TLS and KAFKA_CA_CERT, without a warning", env: tlsEnv,
			cfg: withTLS(types.BoolValue(false)), logSASL: "none", known: true},
		{name: "tls enabled = true beats KAFKA_ENABLE_TLS=false", env: map[string]string{EnvEnableTLS: "false"},
			cfg: withTLS(types.BoolValue(true)), tls: true, logSASL: "none", known: true},
		{name: "tls enabled unknown: nothing yet", env: tlsEnv, cfg: withTLS(types.BoolUnknown()), logSASL: "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var diags diag.Diagnostics
			sec := resolveSecurity(context.Background(), tc.cfg, true, &diags)
			if len(diags) > 0 {
				t.Fatalf("want no diagnostics, got %v", diags)
			}
			if (sec.tls != nil) != tc.tls || sec.logFields["tls"] != tc.tls {
				t.Errorf("TLS on: got %v (logged %v), want %v", sec.tls != nil, sec.logFields["tls"], tc.tls)
			}
			if (sec.sasl != nil) != tc.sasl || sec.logFields["sasl"] != tc.logSASL {
				t.Errorf("SASL: built %v, logged %v; want %v, logged %q", sec.sasl != nil, sec.logFields["sasl"], tc.sasl, tc.logSASL)
			}
			if got := isKnown(tc.cfg); got != tc.known {
				t.Errorf("isKnown: got %v, want %v", got, tc.known)
			}
		})
	}
}

// enabled = false beside another attribute of its block is an error on enabled while planning:
// the block would say both "off" and how to connect.
func TestSecurityEnabledFalseConflicts(t *testing.T) {
	for _, tc := range []struct{ block, attr, value string }{
		{block: "tls", attr: "server_name", value: `"kafka.example.com"`},
		{block: "tls", attr: "insecure_skip_verify", value: "false"},
		{block: "sasl", attr: "mechanism", value: `"plain"`},
		{block: "sasl", attr: "scopes", value: `["kafka"]`},
	} {
		t.Run(tc.block+"."+tc.attr, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`provider "kafka" {
  bootstrap_servers = ["127.0.0.1:1"]
  %s {
    enabled = false
    %s = %s
  }
}
data "kafka_partition_offsets" "test" {
  topic     = "t"
  partition = 0
}`, tc.block, tc.attr, tc.value),
					PlanOnly: true,
					ExpectError: errorLike("Invalid Attribute Combination", fmt.Sprintf(`Attribute "%s.%s" cannot be specified when "%s.enabled" is specified`,
						tc.block, tc.attr, tc.block)),
				}},
			})
		})
	}
}
