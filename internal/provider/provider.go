// Package provider is the Terraform side of the Kafka offsets provider: schemas, configuration,
// diagnostics. Everything that speaks the Kafka protocol lives in internal/kafkaclient.
package provider

import (
	"context"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Address is the provider's registry address, used by main.go, the examples and the demo.
const Address = "registry.terraform.io/kafka-offsets/kafka"

// Defaults and environment variables of the provider block.
const (
	DefaultClientID = "terraform-provider-kafka" // the timeout's default is kafkaclient.DefaultTimeout

	EnvBootstrapServers = "KAFKA_BOOTSTRAP_SERVERS"
	EnvTimeout          = "KAFKA_TIMEOUT"
)

var _ provider.Provider = &KafkaProvider{}

// KafkaProvider builds one Kafka client per configured provider and hands it to every data source.
type KafkaProvider struct {
	version string
	// newClient builds the client; tests swap it to count clients.
	newClient func(kafkaclient.Config) (*kafkaclient.Client, error)
}

// New returns the provider factory for providerserver.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &KafkaProvider{version: version, newClient: kafkaclient.New}
	}
}

type providerModel struct {
	BootstrapServers types.List      `tfsdk:"bootstrap_servers"`
	ClientID         types.String    `tfsdk:"client_id"`
	Timeout          goDurationValue `tfsdk:"timeout"`
	TLS              *tlsModel       `tfsdk:"tls"`  // provider_auth_schema.go
	SASL             *saslModel      `tfsdk:"sasl"` // provider_auth_schema.go
}

// providerData is what data sources receive. client is nil when the provider's configuration
// was not known yet (it depends on a resource not yet created).
type providerData struct {
	client    *kafkaclient.Client
	logging   readLogging // what the logs of a read can show (log_settings.go, read_log.go)
	principal principal   // who ACL advice names (principal.go)
}

func (p *KafkaProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kafka"
	resp.Version = p.version
}

func (p *KafkaProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads offsets from Apache Kafka so that plans can print them and modules can " +
			"gate changes on them. Read-only: the provider never creates topics, never joins or commits for a " +
			"consumer group and never writes to the cluster.\n\n" +
			"Without a `tls` or `sasl` block it speaks plaintext Kafka (`PLAINTEXT` listeners). The `tls` block turns " +
			"on TLS and mutual TLS (`SSL` listeners), the `sasl` block SASL authentication with PLAIN, SCRAM-SHA-256, " +
			"SCRAM-SHA-512, OAUTHBEARER or AWS MSK IAM (`SASL_PLAINTEXT`, or `SASL_SSL` with both blocks). Secrets " +
			"(`password`, `client_key`, `client_secret`, `token`) are sensitive and never logged. See the " +
			"authentication guide for MSK, Confluent Cloud, Aiven, Strimzi and Redpanda, and for what each " +
			"connection error means.",
		Blocks: authBlocks(), // provider_auth_schema.go
		Attributes: map[string]schema.Attribute{
			"bootstrap_servers": schema.ListAttribute{
				ElementType: types.StringType,
				Optional:    true,
				MarkdownDescription: "Kafka brokers to bootstrap from, each `host:port` (IPv6 in brackets: " +
					"`[::1]:9092`), one address per element. The first that answers gives the cluster layout. " +
					"Required unless the environment variable `" + EnvBootstrapServers + "` holds a " +
					"comma-separated list; the attribute wins when both are set.",
				Validators: []validator.List{
					listvalidator.NoNullValues(),
					listvalidator.SizeAtLeast(1),
					listvalidator.ValueStringsAre(bootstrapServerValidator{}),
				},
			},
			"client_id": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Kafka `client.id` sent with every request, as seen in broker logs and " +
					"quotas. Default `" + DefaultClientID + "`.",
				// A Kafka protocol string: at most 32767 bytes.
				Validators: []validator.String{stringvalidator.LengthBetween(1, 32767)},
			},
			"timeout": schema.StringAttribute{
				CustomType: goDurationType{},
				Optional:   true,
				MarkdownDescription: "Upper bound of each data source read as a whole (connecting, metadata, " +
					"retries and all), as a Go duration from `\"" + shortDuration(minTimeout) + "\"` to `\"" +
					shortDuration(maxTimeout) + "\"`, such as `\"1m30s\"`; default `\"" +
					kafkaclient.DefaultTimeout.String() + "\"`, or the environment variable `" + EnvTimeout +
					"` (the attribute wins when both are set). Retriable conditions (a broker restarting, a leader " +
					"moving) are retried within it, and one connection attempt takes at most 10 s of it. Several " +
					"bootstrap servers are tried half a second apart, and the first to answer wins.",
				Validators: []validator.String{timeoutBounds}, // provider_timeout.go
			},
		},
	}
}

func (p *KafkaProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	// A cluster created in the same run: its address is unknown while planning. Build no client
	// (nothing to dial yet); data sources then explain, or Terraform defers them when it can.
	if !isKnown(cfg) {
		tflog.Info(ctx, "provider configuration not known yet; no Kafka client built")
		if req.ClientCapabilities.DeferralAllowed {
			resp.Deferred = &provider.Deferred{Reason: provider.DeferredReasonProviderConfigUnknown}
		}
		resp.DataSourceData = &providerData{}
		return
	}

	clientCfg := kafkaclient.Config{ClientID: DefaultClientID}
	clientCfg.BootstrapServers = bootstrapServers(ctx, cfg, &resp.Diagnostics)
	if !cfg.ClientID.IsNull() {
		clientCfg.ClientID = cfg.ClientID.ValueString()
	}
	clientCfg.Timeout = timeout(cfg, &resp.Diagnostics)
	sec := resolveSecurity(ctx, cfg, true, &resp.Diagnostics) // provider_auth.go: tls and sasl blocks
	if resp.Diagnostics.HasError() {
		return
	}
	clientCfg.TLS, clientCfg.SASL = sec.tls, sec.sasl

	client, err := p.newClient(clientCfg)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("bootstrap_servers"), "Invalid Kafka client configuration", err.Error())
		return
	}
	fields := map[string]any{
		"bootstrap_servers": strings.Join(clientCfg.BootstrapServers, ","),
		"client_id":         clientCfg.ClientID,
		"timeout":           clientCfg.Timeout.String(),
	}
	for k, v := range sec.logFields { // names and sources only, never a secret
		fields[k] = v
	}
	tflog.Debug(ctx, "Kafka client configured", fields)
	resp.DataSourceData = &providerData{client: client, logging: readLoggingFrom(os.Getenv), principal: principalOf(sec.logFields)}
}

// isKnown reports whether the whole provider block is known (listKnown and authKnown:
// provider_auth_known.go).
func isKnown(cfg providerModel) bool {
	return listKnown(cfg.BootstrapServers) && !cfg.ClientID.IsUnknown() && !cfg.Timeout.IsUnknown() && authKnown(cfg)
}

// bootstrapServers takes the attribute, else the environment variable, and checks the latter
// (the attribute was checked while validating).
func bootstrapServers(ctx context.Context, cfg providerModel, diags *diag.Diagnostics) []string {
	attr := path.Root("bootstrap_servers")
	if !cfg.BootstrapServers.IsNull() {
		var out []string
		diags.Append(cfg.BootstrapServers.ElementsAs(ctx, &out, false)...)
		return out
	}
	env := strings.TrimSpace(os.Getenv(EnvBootstrapServers))
	if env == "" {
		diags.AddAttributeError(attr, "Missing bootstrap servers",
			"Set bootstrap_servers in the provider block, e.g. bootstrap_servers = [\"broker-1:9092\"], "+
				"or the environment variable "+EnvBootstrapServers+" to a comma-separated list of host:port.")
		return nil
	}
	var out []string
	for _, s := range strings.Split(env, ",") {
		s = strings.TrimSpace(s)
		if err := kafkaclient.CheckBootstrapServer(s); err != nil {
			diags.AddAttributeError(attr, "Invalid "+EnvBootstrapServers, "In the environment variable "+
				EnvBootstrapServers+": "+err.Error()+".")
			continue
		}
		out = append(out, s)
	}
	return out
}

func (p *KafkaProvider) Resources(context.Context) []func() resource.Resource { return nil }
