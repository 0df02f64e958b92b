package provider

// The tls and sasl blocks, resolved: with the environment filling in what they leave unset, into
// the TLS configuration and SASL mechanism the Kafka client takes. The parts, one file each:
//
//	provider_auth_schema.go  the blocks' schema and models
//	provider_auth_env.go     environment variables; attribute else variable (pick)
//	provider_auth_tls.go     the tls block to a *tls.Config
//	provider_auth_sasl.go    the sasl block to a kafkaclient.SASL
//	provider_auth_known.go   whether the blocks are known yet
//	provider_auth_pem.go     the PEM validator of the certificate and key attributes
//	provider_auth_diagnostics.go  what a TLS or SASL failure at read time means

import (
	"context"
	"crypto/tls"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// security is the TLS and SASL configuration resolved from the blocks and the environment.
type security struct {
	tls       *tls.Config
	sasl      *kafkaclient.SASL
	logFields map[string]any // what is safe to log: sources and names, never secrets
}

// resolveSecurity builds the TLS configuration and SASL mechanism from the blocks, with the
// environment filling in what they leave unset. With build false (validation) it only checks, and
// skips whatever is unknown.
func resolveSecurity(ctx context.Context, cfg providerModel, build bool, diags *diag.Diagnostics) *security {
	sec := &security{logFields: map[string]any{"tls": false, "sasl": "none"}}
	resolveTLS(cfg, build, sec, diags)
	resolveSASL(ctx, cfg, build, sec, diags)
	return sec
}

var _ provider.ProviderWithValidateConfig = &KafkaProvider{}

// ValidateConfig checks the tls and sasl blocks, with the environment, while planning: the
// attributes a mechanism needs, certificate and key together and matching, environment values
// that do not parse. Each error is on the attribute.
func (p *KafkaProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resolveSecurity(ctx, cfg, false, &resp.Diagnostics)
}
